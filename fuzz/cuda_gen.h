// Random CUDA kernels with defined behaviour only, for the cuda-host-diff
// oracle (docs/cuda-host-diff.md): the same kernel is compiled by nvcc and run
// in the interpreter, and compiled for the host by g++ with barriers and warp
// operations modelled, and both must write the same bytes.
//
// A kernel is a tree of statements whose expressions are C++ text that both
// compilers read alike. Thread variables are written `$N` and per-thread local
// arrays `@N` in that text; the renderers (fuzz/cuda_render.h) make them `vN`
// / `aN` on the device and `S.vN` / `S.aN` (a per-thread state) on the host.
// Everything is a function of (seed, index): the same pair gives the same
// kernel on every machine (own PRNG, no std:: distributions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ori::cudagen {

enum class Ty : uint8_t { Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64 };
inline constexpr int kTyCount = 12;

struct TyInfo {
  const char *c; // C++ spelling
  int bits;      // value bits (bool: 8, as stored)
  bool isSigned, isInt, isFloat;
};
const TyInfo &info(Ty t);

enum class WarpOp : uint8_t {
  ShflIdx,
  ShflUp,
  ShflDown,
  ShflXor,
  Ballot,
  Any,
  All,
  ReduceAdd,
  ReduceMin,
  ReduceMax,
  ReduceAnd,
  ReduceOr,
  ReduceXor,
  MatchAny,
  SyncWarp
};
enum class BarOp : uint8_t { Sync, Count, And, Or };

struct Stmt {
  enum class Kind : uint8_t {
    Simple,  // text is the whole statement
    If,      // text: condition; body, els (thread-varying)
    For,     // text: the header inside `for (...)`
    Do,      // `{ int text = 0; do { body } while (++text < a && (b)); }`
    Switch,  // text: the selector; cases
    Barrier, // bar; dst/a for the reductions
    Warp,    // warp; ty, dst, a, b, width
    UFor,    // a loop every thread of the CTA runs alike (may hold barriers and warp ops)
    UIf,     // an if every thread of the CTA takes alike
  };
  Kind kind = Kind::Simple;
  std::string text;
  std::vector<Stmt> body, els;
  struct Case {
    std::string label; // "case 3:" or "default:"
    std::vector<Stmt> body;
  };
  std::vector<Case> cases;
  WarpOp warp = WarpOp::SyncWarp;
  BarOp bar = BarOp::Sync;
  Ty ty = Ty::I32;       // Warp: the exchanged type
  int dst = -1;          // Warp, Barrier reductions: the thread variable written
  std::string a, b;      // Warp: value and lane/delta/mask expressions; Barrier: the predicate
  int width = 32;        // Warp shuffles
  bool removable = true; // the reducer may delete it (not barriers, prologue, epilogue)
  uint32_t id = 0;       // preorder number in the generated kernel, kept by the reducer's edits
};

// `static __device__ __noinline__ RET NAME_fI(P0 p0, ...) { return body; }`, called from the
// kernel's expressions; the body reads its parameters only.
struct Func {
  Ty ret;
  std::vector<Ty> params;
  std::string body;
};

struct Array {
  Ty ty;
  int perThread; // slots per thread (a power of 2)
};

struct Kernel {
  std::string name; // k<index>
  uint64_t seed = 0, index = 0;
  uint32_t threads = 32, ctas = 1; // threads: per CTA, all of them
  uint32_t threadsY = 1;           // blockDim = (threads / threadsY, threadsY)
  std::vector<Ty> vars;            // $N
  std::vector<Array> locals;       // @N: per-thread arrays
  std::vector<Array> shared;       // shN: per-CTA arrays, perThread slots for each thread
  std::vector<Func> funcs;         // NAME_f0, NAME_f1, ...
  std::vector<Stmt> body;          // prologue, generated statements, epilogue
  std::vector<uint8_t> input;      // kInputBytes of input bytes (parameter 0)
  bool usesHalf = false, usesWarp = false, usesShared = false;

  // Output: each thread writes slots() 8-byte slots at (cta * threads + tid) * slots().
  uint32_t slots() const;
  std::vector<Ty> slotTypes() const; // the type of each of them
  std::vector<std::string> slotNames() const;
  uint64_t outputBytes() const { return uint64_t(threads) * ctas * slots() * 8; }
  size_t statements() const; // all statements, nested ones included
};

inline constexpr uint32_t kInputBytes = 1024;
inline constexpr uint32_t kMaxThreads = 128;

struct GenOptions {
  int halfPercent = 30; // share of kernels that use __half
  int warpPercent = 60; // share of kernels with warp operations
  int sharedPercent = 60;
  int maxStatements = 12; // top-level statements generated (before prologue and epilogue)
  int exprDepth = 2;      // of the expression an assignment stores
  // Leave out what the interpreter does not run yet (docs/cuda-host-diff.md, "Avoiding"):
  bool avoidHalf = false; // __half arithmetic and conversions
  bool avoidSad = false;  // __sad, __usad (PTX sad)
  bool avoidMulHi64 =
      false; // __umul64hi, __mul64hi and 64-bit division by what nvcc can fold (mul.hi.u64/s64)
  bool avoidAtomics = false; // shared-memory atomics (atom.shared)
};
// "half,sad,mulhi64,atomics" (any of them, comma-separated) into `o`; false on an unknown name.
bool parseAvoid(const std::string &list, GenOptions &o);
// The list parseAvoid reads back ("" when nothing is avoided).
std::string avoidList(const GenOptions &o);

Kernel generateKernel(uint64_t seed, uint64_t index, const GenOptions &opts = {});

} // namespace ori::cudagen
