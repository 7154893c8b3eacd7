// The interpreter: the semantic oracle (DESIGN.md, "Interpreter";
// docs/interpreter.md gives every opcode's meaning). It runs whole CTAs as
// warps of 32 lanes in lockstep (an active mask; divergence at a branch whose
// lanes disagree; reconvergence at the region's BSYNC, else at the immediate
// post-dominator), with barriers across the CTA's warps and the warp-level
// instructions, deterministically: 64-bit register containers, sparse byte
// memory, a step budget counted in warp instructions. It refuses OPAQUE and
// unmodelled opcodes with an explicit `Unsupported` result instead of guessing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/ir.h"

namespace ori {

// A launch dimension: x, y, z (a plain number is x alone).
struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x_) : x(x_) {} // NOLINT: a plain count is a 1-D launch
  Dim3(uint32_t x_, uint32_t y_, uint32_t z_) : x(x_), y(y_), z(z_) {}
  uint64_t count() const { return uint64_t(x) * y * z; }
  friend bool operator==(const Dim3 &, const Dim3 &) = default;
};
// "32", "32x4", "32x4x2": as --threads and --ctas take it (trailing 1s left out).
std::string formatDim3(const Dim3 &d);

// Bounds on a launch (a configuration beyond them is an Error result).
inline constexpr uint32_t kMaxThreadsPerCta = 1024;              // CUDA's limit; z at most 64
inline constexpr uint64_t kMaxLaunchThreads = uint64_t(1) << 24; // all CTAs together

// A surface or texture (docs/interpreter.md, "Surfaces and textures"): widthBytes x height x
// depth bytes, row after row (x fastest, then y, then z). SULD/SUST and TEX reach it through a
// register holding `handle` (a CUDA surface or texture object). A 1-D one has height = depth =
// 1, a 2-D one depth = 1. TEX sees texels of 16 bytes (four 32-bit channels), widthBytes / 16
// of them in a row.
struct Surface {
  uint64_t handle = 0; // not 0; distinct among the launch's surfaces
  uint32_t widthBytes = 0, height = 1, depth = 1;
  std::vector<uint8_t> bytes; // at most widthBytes * height * depth; the rest 0
  bool normalized = false;    // TEX: f32 coordinates in [0, 1) span the texture
};
inline constexpr uint64_t kMaxSurfaceBytes = uint64_t(64) << 20; // each surface

struct RunConfig {
  std::string entry; // empty: the module's only .entry (error if several)
  Dim3 threads = 1;  // ntid; tid runs over it, x fastest
  Dim3 ctas = 1;     // nctaid; CTAs run one after another, x fastest
  // Warp instructions executed (an instruction counts once for the warp, however many lanes
  // run it), all warps and CTAs together; beyond it the run ends in Timeout.
  uint64_t maxSteps = 10'000'000;
  std::map<std::string, uint64_t> params;              // scalar parameter values by name
  std::map<std::string, std::vector<uint8_t>> buffers; // parameter name -> initial bytes
  // A third way to bind a parameter: its bytes from its first one (at most its size; the rest
  // 0), for structs and arrays passed by value, which `params` fills only up to 8 bytes.
  std::map<std::string, std::vector<uint8_t>> paramBytes;
  // Global buffers no parameter names (a name must not be a parameter's), placed after the
  // parameters' buffers in name order; layoutLaunch gives their addresses and RunResult::buffers
  // their final bytes. A pointer in a struct parameter, a 32-bit pointer parameter or a module
  // variable can hold their address (interp/auto_launch.h binds them so).
  std::map<std::string, std::vector<uint8_t>> extraBuffers;
  // Initial bytes of .global and .const variables by name, instead of their initializers (at
  // most the variable's size; the rest 0).
  std::map<std::string, std::vector<uint8_t>> variableBytes;
  // Surfaces by name (any name; RunResult::surfaces reports them under it). A TEX on a
  // module's .texref reads the surface named as the reference.
  std::map<std::string, Surface> surfaces;
  // Registers' values at each thread's start (the others start at 0); a predicate is its bit 0.
  // The translation validator's counterexamples give the registers a function reads before
  // writing them (docs/verifier.md, "Replaying a counterexample").
  std::map<Reg, uint64_t> initialRegs;
  // Run only this thread of the launch (linear index cta * threads per CTA + thread index in
  // the CTA), as if it were alone: barriers pass at once, a VOTE sees one lane. ntid and
  // nctaid stay as given.
  std::optional<uint32_t> onlyThread;
  // The launch's dynamic shared memory in bytes (CUDA's third <<<>>> argument): where the
  // kernel's .extern .shared arrays live, after its static .shared variables
  // (docs/interpreter.md, "Memory"). Unset: the rest of the shared window, the most a CTA could
  // be given, so that a run which does not say how much it needs does not fault for lack of it.
  // A shared access past the static variables and this many dynamic bytes faults.
  std::optional<uint64_t> sharedDynamic;
  // The clock registers (%clock, %clock_hi, %clock64, %globaltimer and its halves) read the
  // run's warp instructions so far (RunResult::warpSteps), a deterministic model of time
  // that only moves forward (docs/interpreter.md, "Special registers"). Off: reading one
  // stops the run as unsupported, as comparisons of two runs (--verify's fallback, the
  // fuzzers) want: a phase changes how many instructions run.
  bool clockFromSteps = false;
};

struct RunResult {
  // Trap: a thread executed TRAP (PTX trap), which aborts the grid; `thread`, the place and
  // the lanes are as for Fault.
  enum class Kind { Ok, Timeout, Fault, Unsupported, Deadlock, Error, Trap };
  Kind kind = Kind::Ok;
  uint32_t threadsRun = 0; // how many threads ran to completion
  // Timeout/Fault/Unsupported/Deadlock: the thread (linear index cta * threads per CTA + thread
  // index in the CTA; for Timeout and Deadlock the first active lane of the warp).
  uint32_t thread = 0;
  uint64_t warpSteps = 0; // warp instructions executed (the step budget's unit)
  uint64_t laneSteps = 0; // lane instructions: each warp instruction times the lanes that ran it
  // Warp executions of BRA, BRX and JMX (guarded or not, taken or not), and those of them
  // whose active lanes went more than one way (a divergence: docs/interpreter.md, "Warps").
  uint64_t branches = 0, divergentBranches = 0;
  uint64_t addr = 0;     // Fault: the faulting address (BRX: the out-of-range index)
  std::string mnemonic;  // Unsupported and Fault: e.g. "OPAQUE" or "VOTE"
  uint32_t line = 0;     // Unsupported and Fault: source line of the instruction
  uint32_t column = 0;   // ... and its column
  std::string instrText; // ... and the instruction as the .ori printer writes it
  // Unsupported and Fault: the warp that stopped there, as the linear index of its lane 0,
  // and its lanes that ran the instruction (Unsupported) or faulted in it (bit i: lane i).
  uint64_t warpFirstThread = 0;
  uint32_t lanes = 0;
  std::string message; // Error (bad configuration) and a human-readable detail for the others
  std::map<std::string, std::vector<uint8_t>>
      buffers; // final contents of every bound buffer (and extra one)
  std::map<std::string, std::vector<uint8_t>>
      variables; // final contents of the module's .global variables
  std::map<std::string, std::vector<uint8_t>>
      surfaces; // final contents of every surface (all its bytes)
};

RunResult runKernel(const Module &m, const RunConfig &cfg);

// Where runKernel places what the kernel of `cfg` can address (docs/interpreter.md,
// "Memory"); the translation validator builds counterexamples that replay on it.
struct LaunchLayout {
  struct Bytes {
    uint64_t at = 0; // generic address (global), or offset in its window or frame area
    std::vector<uint8_t> bytes;
  };
  std::vector<Bytes> global; // mapped global memory: .global variables, then buffers, by address
  std::vector<std::string> globalNames; // the variable or parameter each region of `global` is
  std::map<const Variable *, uint64_t>
      variables;                  // .global: generic address; .const/.shared: window
                                  // offset; .local/.param: offset in its frame area
  std::vector<uint8_t> constData; // the const window (c[0x3]) from offset 0
  std::vector<Bytes> sharedInit;  // initial bytes in the shared window (the rest: zero)
  std::vector<Bytes> localInit;   // the kernel frame's local area (the rest: zero)
  std::vector<Bytes> paramInit;   // the kernel frame's .param variables (the rest: zero)
  std::vector<uint8_t> cbank0;    // constant bank 0 from offset 0 (beyond it, and other banks: 0)
  // Shared memory of the launch: the static .shared variables in [0, sharedStatic), the
  // dynamic memory (every .extern .shared array) at sharedDynamicBase, sharedDynamicSize bytes.
  uint64_t sharedStatic = 0, sharedDynamicBase = 0, sharedDynamicSize = 0;
  // Each function's frame: its local area (a callee's sits above its caller's, aligned to
  // localAlign) and the offsets of its parameters and return values in its parameter area.
  struct Frame {
    uint64_t localSize = 0, localAlign = 1;
    std::map<std::string, uint64_t> params;
  };
  std::map<const Function *, Frame> frames;
};
// The layout, or the configuration error runKernel would report.
std::variant<LaunchLayout, std::string> layoutLaunch(const Module &m, const RunConfig &cfg);

// "exit: ok threads=T", "exit: timeout thread=T", "exit: fault thread=T addr=0x..",
// "exit: deadlock thread=T", "exit: trap thread=T",
// "exit: unsupported \"MNEMONIC\" at FILE:LINE" (no trailing newline).
std::string formatExit(const RunResult &r, const std::string &file);
// Where a Fault or Unsupported run stopped: "FILE:LINE:COL: 'INSTRUCTION' in lanes 4-5 (threads
// 36-37)", the lanes of the warp that faulted there or ran it; "" for the other kinds.
std::string formatStopPlace(const RunResult &r, const std::string &file);
// What stopped a run formatStopPlace places: "fault", "trap" or "unsupported".
std::string_view stopKindName(const RunResult &r);

} // namespace ori
