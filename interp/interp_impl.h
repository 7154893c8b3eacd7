// Internals of the interpreter (interp/interp.h), shared by interp/interp.cpp
// (registers, operands), interp/interp_simt.cpp (warps, divergence and
// reconvergence, CTAs, barriers), interp/interp_warp.cpp (VOTE, SHFL, MATCH,
// REDUX), interp/interp_mem.cpp (variables, call frames, memory),
// interp/interp_alu.cpp (integer semantics) and interp/interp_float.cpp
// (floating-point semantics and conversions). Not part of the public API:
// include interp/interp.h instead.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/interp.h"
#include "ir/float_format.h"
#include "ir/param_window.h"

namespace ori::interp_detail {

// Thrown to end the run. Unsupported stops get the
// mnemonic and line from the instruction being executed; Error stops report
// IR that the parser would not produce (an out-of-range target, a missing
// operand, ...).
struct Stop {
  RunResult::Kind kind = RunResult::Kind::Error;
  uint64_t addr = 0;
  std::string message;
};
[[noreturn]] void unsupported(std::string why);
[[noreturn]] void fault(uint64_t addr, std::string why);
[[noreturn]] void malformed(std::string why);

inline uint64_t maskTo(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}
// Sign-extends the low `bits` bits of v.
inline int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  uint64_t m = uint64_t(1) << (bits - 1);
  v = maskTo(v, bits);
  return int64_t((v ^ m) - m);
}

// 64-bit containers per (file, number), all zero at thread start (one set per thread). Small
// numbers live in a dense vector grown on write, large (virtual) ones in a map.
class Registers {
public:
  // The dense case inline (every step reads and writes registers); the rest in interp.cpp.
  // RZ/PT (number Reg::kConst) are never dense.
  [[gnu::always_inline]] uint64_t get(Reg r) const {
    const size_t f = size_t(r.file);
    if (f < kNumRegFiles && r.num < dense_[f].size())
      return dense_[f][r.num];
    return getSlow(r);
  }
  [[gnu::always_inline]] void set(Reg r, uint64_t v) {
    const size_t f = size_t(r.file);
    if (f < kNumRegFiles && r.num < dense_[f].size())
      dense_[f][r.num] = v;
    else
      setSlow(r, v);
  }
  void clear();

private:
  uint64_t getSlow(Reg r) const;
  void setSlow(Reg r, uint64_t v);
  static constexpr uint32_t kDense = 1u << 16;
  std::array<std::vector<uint64_t>, kNumRegFiles> dense_;
  std::array<std::unordered_map<uint32_t, uint64_t>, kNumRegFiles> sparse_;
};

// Byte-addressed memory in 4 KiB pages allocated on first write; unwritten
// bytes read 0. Callers pass aligned accesses of at most 8 bytes, which never
// straddle a page.
class SparseMemory {
public:
  static constexpr uint64_t kPage = 0x1000;
  uint64_t read(uint64_t addr, unsigned bytes) const;
  void write(uint64_t addr, unsigned bytes, uint64_t v);
  void clear() { pages_.clear(); }
  // Sets [addr, addr + n) to 0: whole pages are dropped, so the cost is per page.
  void zero(uint64_t addr, uint64_t n);
  // Copies bytes in (page by page).
  void writeBytes(uint64_t addr, const uint8_t *p, size_t n);
  // The page holding addr: nullptr when it was never written (its bytes read 0); for writing,
  // allocated (zeros) if need be. A page stays where it is until clear() or zero() drops it.
  const uint8_t *pageOf(uint64_t addr) const {
    auto it = pages_.find(addr / kPage);
    return it == pages_.end() ? nullptr : it->second->data();
  }
  uint8_t *pageForWrite(uint64_t addr) {
    auto &page = pages_[addr / kPage];
    if (!page)
      page = std::make_unique<std::array<uint8_t, kPage>>(std::array<uint8_t, kPage>{});
    return page->data();
  }

private:
  std::unordered_map<uint64_t, std::unique_ptr<std::array<uint8_t, kPage>>> pages_;
};

// A mapped region of global memory: a module .global variable or a buffer
// bound to a kernel parameter.
struct Buffer {
  std::string name;
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
  bool isVariable = false; // a module .global variable (reported in RunResult::variables)
};

// The state spaces an access can reach. Global addresses are generic
// addresses; Shared and Local are offsets in the CTA's shared window and the
// thread's local window; Const is an offset in the module's read-only .const
// data; Param an offset in the current call frame's parameter area.
enum class MemSpace : uint8_t { Global, Shared, Local, Const, Param, EntryParams };

inline constexpr uint64_t kGlobalBase = 0x10000000;
inline constexpr uint64_t kSharedSize = 0x38000; // 228 KiB
inline constexpr uint64_t kLocalSize = 0x80000;
// Generic addresses of the windows (SR_SWINBASE, SR_LWINBASE): a generic
// address in [base, base + size) is that offset of the window.
inline constexpr uint64_t kConstWindowBase = 0x7c0000000000; // read-only: the module's .const data
// Read-only: the kernel's parameters (PTX cvta.param): [base, base + size) is constant bank 0
// from kParamBase; setUp writes the base at c[0x0][kParamWindowPointer] (ir/param_window.h).
inline constexpr uint64_t kParamWindowBase = 0x7c8000000000;
inline constexpr uint64_t kParamWindowSize = 0x8000; // 32 KiB: the most parameters a kernel has
inline constexpr uint64_t kSharedWindowBase = 0x7e0000000000;
inline constexpr uint64_t kLocalWindowBase = 0x7f0000000000;
inline constexpr size_t kMaxCallDepth = 1024;
// c[0x3][...] reads the module's .const data (where SASS puts __constant__ variables).
inline constexpr uint32_t kConstDataBank = 3;
// Function addresses (MOV R, func; the target of an indirect CALL): function k of the module
// is at kFunctionBase + 16 * k. Nothing can be loaded from or stored to them.
inline constexpr uint64_t kFunctionBase = 0x7d0000000000;
// Module .global and .const variables together; more is a configuration error.
inline constexpr uint64_t kMaxVariableBytes = uint64_t(64) << 20;
// The parameter areas of the live call frames of one thread together.
inline constexpr uint64_t kMaxParamStack = uint64_t(1) << 20;

// Where a function's own variables live in its call frame (computed once per
// function): .local variables in a local area of localSize bytes, aligned to
// localAlign; a .func's parameters from offset 0 of the parameter area, its
// return values from returnsBase, its .param variables after them.
struct FrameLayout {
  uint64_t localSize = 0, localAlign = 1;
  uint64_t paramSize = 0, returnsBase = 0;
  std::vector<const Variable *> localInits, paramInits; // variables with initial bytes
};

// A call frame. The callee of a CALL gets a fresh register file; the caller's
// is kept in the callee's frame and restored at RET.
struct Frame {
  const Function *f = nullptr;
  const FrameLayout *layout = nullptr;
  uint64_t localBase = 0;      // offset of the local area in the thread's local window
  uint64_t stackTop = 0;       // ALLOCA's stack: the first free local offset (0: the area's end)
  std::vector<uint8_t> params; // the parameter area
  const Instr *call = nullptr; // the CALL that made the frame (nullptr: the kernel's)
  Registers callerRegs;
};

// A symbol resolved in the function that names it.
struct SymbolLoc {
  MemSpace space = MemSpace::Global;
  bool inFrame = false;    // Local/Param: offset is relative to the current frame's area
  bool isFunction = false; // a function name, not a variable
  // A kernel parameter (MOV R, p: its address in the param state space, its offset from the
  // first parameter; LDC c[0x0][R+kParamBase+off] reads it); no memory operand can name one.
  bool kernelParam = false;
  uint64_t offset = 0; // Global: the generic address; otherwise the offset in its space
  uint64_t size = 0;
};

// The size and signedness of a load or store (LD/ST and their spaces, LDC): .U8, .S8, .U16,
// .S16, .64, else 4 bytes.
struct Access {
  unsigned bytes = 4;
  bool isSigned = false;
};
inline Access accessOf(const Instr &in) {
  if (in.has(Mod::U8))
    return {1, false};
  if (in.has(Mod::S8))
    return {1, true};
  if (in.has(Mod::U16))
    return {2, false};
  if (in.has(Mod::S16))
    return {2, true};
  if (in.has(Mod::W64))
    return {8, false};
  return {4, false};
}
// A loaded value as the destination receives it: 8/16-bit values extended to
// 32 bits, then stored zero-extended like every 32-bit result.
inline uint64_t extendLoaded(uint64_t v, Access a) {
  if (a.bytes == 8)
    return v;
  if (a.isSigned)
    return maskTo(uint64_t(signExtend(v, 8 * a.bytes)), 32);
  return v;
}

// An address an access reaches: `addr` in `space` (Global: generic), and the
// address as the instruction formed it, which faults report.
struct Location {
  MemSpace space = MemSpace::Global;
  uint64_t addr = 0;
  uint64_t shown = 0;
};

// What one thread owns: its registers, local memory and call frames.
struct Thread {
  Registers regs;              // the current frame's registers
  SparseMemory local;          // the thread's local window
  std::vector<Frame> frames;   // frames.back() is the current one; [0] is the kernel's
  uint64_t paramStackUsed = 0; // bytes of the live frames' parameter areas
  Dim3 tid;                    // SR_TID.X/Y/Z
  uint32_t index = 0; // in the CTA: tid.x + ntid.x * (tid.y + ntid.y * tid.z); lane = index % 32
};

// Which fast paths the SIMT runner takes (interp/interp_fast.cpp): each does what the general
// per-lane path does, only decoded once per warp instruction. A switch for tests and the
// bench, which run kernels both ways and compare (tests/unit/interp_fast_test.cpp).
struct FastPaths {
  bool alu = true;    // MOV, IADD3, LOP3, SEL, LEA, IMAD, SHF, ISETP
  bool memory = true; // LD/ST, LDG/STG, LDS/STS, LDL/STL at [R+imm] or [imm]
};
// What every Machine created on this thread starts with (all on unless a test says otherwise).
FastPaths &fastPathsOnThisThread();

// The machine: the memory every thread shares, the thread executing now
// (`th`: the SIMT runner points it at each active lane in turn) and operand
// access for the semantics files.
// Helpers of the memory layout (interp_layout.cpp, interp_mem.cpp).
inline uint64_t roundUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

inline MemSpace memSpaceOf(Space s) {
  switch (s) {
  case Space::Global:
    return MemSpace::Global;
  case Space::Shared:
    return MemSpace::Shared;
  case Space::Const:
    return MemSpace::Const;
  case Space::Local:
    return MemSpace::Local;
  case Space::Param:
    return MemSpace::Param;
  }
  return MemSpace::Global;
}

inline const char *spaceText(MemSpace s) {
  switch (s) {
  case MemSpace::Global:
    return "global";
  case MemSpace::Shared:
    return "shared";
  case MemSpace::Local:
    return "local";
  case MemSpace::Const:
    return "constant";
  case MemSpace::Param:
    return "param";
  case MemSpace::EntryParams:
    return "kernel parameter";
  }
  return "?";
}

// The initial bytes of a variable, at most its size.
inline size_t initBytes(const Variable &v) { return std::min<size_t>(v.init.size(), v.size()); }

class Machine {
public:
  const Module *module = nullptr;
  const Function *entry = nullptr;
  Dim3 ntid, nctaid, ctaid;            // the launch and the CTA that runs
  uint32_t warpsPerCta = 1;            // SR_NWARPID
  std::map<Reg, uint64_t> initialRegs; // RunConfig::initialRegs
  std::vector<uint8_t> cbank0;         // constant bank 0 from offset 0 (parameters at kParamBase)
  std::vector<Buffer> buffers;         // sorted by base: .global variables, then parameter buffers
  std::vector<uint8_t> constData;      // module .const variables from offset 0
  SparseMemory shared;                 // the CTA's shared window
  // The shared window's bytes a CTA may use: static .shared variables in [0, sharedStatic),
  // dynamic shared memory in [sharedDynamicBase, sharedLimit) (RunConfig::sharedDynamic).
  uint64_t sharedStatic = 0, sharedDynamicBase = 0, sharedLimit = kSharedSize;
  Thread *th = nullptr;    // the thread (lane) executing now
  uint64_t extraSteps = 0; // step budget charged for work besides instructions (CALL's copies)
  // RunConfig::clockFromSteps: the clock registers read *steps (the SIMT runner's count).
  bool clockFromSteps = false;
  const uint64_t *steps = nullptr;
  FastPaths fast = fastPathsOnThisThread();

  // Operand access (interp/interp.cpp). `i` indexes in.srcs / in.dsts; a missing
  // operand or one of a kind the slot cannot hold is malformed IR.
  const Operand &src(const Instr &in, size_t i) const;
  const Operand &dst(const Instr &in, size_t i) const;
  // An integer source of `bits` (32 or 64) bits: a register's low bits, an
  // immediate truncated, 4/8 bytes of a constant bank, or a variable's
  // address (MOV R, sym); `-` negates.
  uint64_t readInt(const Instr &in, size_t i, unsigned bits) const;
  // An immediate-only source (LUTs, LEA's shift).
  int64_t readImm(const Instr &in, size_t i) const;
  bool readPred(const Instr &in, size_t i) const; // `!` inverts
  // Float sources as bit patterns, with |abs| then `-` applied to the sign bit.
  uint32_t readF32Bits(const Instr &in, size_t i) const;
  uint64_t readF64Bits(const Instr &in, size_t i) const;
  uint64_t readHalfBits(const Instr &in, size_t i, fp::Format f) const; // interp_float.cpp
  void writeInt(const Instr &in, size_t d, uint64_t v, unsigned bits);  // 32: zero-extended
  void writePred(const Instr &in, size_t d, bool v);
  uint64_t readCBank(const Operand &o, unsigned bytes) const;

  // Semantics. Each returns false if the opcode is not one of its family.
  bool execInteger(const Instr &in);     // interp/interp_alu.cpp
  bool execIntegerMore(const Instr &in); // interp/interp_intops.cpp: IADDC IDP I2IP BMSK FNS
  bool execFloat(const Instr &in);       // interp/interp_float.cpp
  bool execConvert(const Instr &in);     // interp/interp_convert.cpp: I2F F2I F2F FRND F2FP
  bool execHalf(const Instr &in);        // interp/interp_half.cpp: HMNMX2 HSETP2 HSET2
  bool execMemory(const Instr &in);      // interp/interp_mem.cpp
  bool execSurface(const Instr &in);     // interp/interp_surface.cpp: SULD, SUST, TEX
  bool execAtomic(const Instr &in);      // interp/interp_atomic.cpp: ATOM ATOMG ATOMS RED REDG
  // interp/interp_atomic.cpp: MEMBAR FENCE NANOSLEEP CCTL QSPC CREATEPOLICY ALLOCA STACKSAVE
  // STACKRESTORE
  bool execMemorySystem(const Instr &in);
  bool execTexture(const Instr &in); // TEX

  // Variables, frames and memory (interp/interp_mem.cpp).
  // Lays out the module's variables and binds the entry's parameters; returns
  // a configuration error message, or "" on success.
  std::string setUp(const RunConfig &cfg);
  // The surfaces of cfg (interp/interp_surface.cpp); a configuration error, or "".
  std::string setUpSurfaces(const RunConfig &cfg);
  std::vector<std::pair<std::string, Surface>> surfaces; // full size (widthBytes x height x depth)
  void startCta(); // shared memory: zeros, then the .shared variables' initial bytes
  void
  startThread(Thread &t); // registers, local memory and frames reset; the kernel's frame entered
  // CALL by the current thread: enters `callee`'s frame, copying the argument .param variables.
  void enterCall(const Instr &call, const Function *callee);
  // RET from a called function by the current thread: copies the return values
  // back and restores the caller's registers.
  void leaveCall();
  // The symbol `o` names, resolved in the current frame's function.
  const SymbolLoc &symbol(const Operand &o) const;
  // The address of a variable symbol in its space (MOV R, sym).
  uint64_t symbolAddress(const Operand &o) const;
  // A shared-memory address operand (LDSM, STSM: [R+imm] is an offset in the shared window).
  Location sharedLocation(const Instr &in, size_t i) const;
  uint64_t load(const Location &l, unsigned bytes);
  void store(const Location &l, unsigned bytes, uint64_t v);
  // After setUp: where everything is (interp.h, layoutLaunch).
  LaunchLayout layout() const;

private:
  enum class OpSpace : uint8_t { Generic, Global, Shared, Local };
  Location location(const Instr &in, size_t i, OpSpace s) const;
  Buffer *findBuffer(uint64_t addr, unsigned bytes);
  uint8_t *globalBytes(const Location &l, unsigned bytes); // faults outside every buffer
  void checkWindow(const Location &l, unsigned bytes);     // shared/local bounds, faults outside
  std::optional<uint64_t> initAddress(const Variable::AddrInit &a) const;
  std::string placeAddressInitializers(const RunConfig &cfg);
  std::unordered_map<const Function *, FrameLayout> layouts_;
  const FrameLayout *entryLayout_ =
      nullptr; // layouts_'s entry for `entry`, once startThread found it
  std::unordered_map<const Variable *, uint64_t> varOffset_; // static address or in-frame offset
  std::unordered_map<const Param *, uint64_t>
      paramOffset_; // .func parameters and returns, in-frame
  std::vector<std::pair<uint64_t, const Variable *>> sharedInits_;
  mutable std::unordered_map<const Operand *, SymbolLoc> symbols_;
};

// The most frequent integer instructions (MOV, IADD3, LOP3, SEL, IMAD, LEA, SHF, ISETP) in
// their plain forms, and loads and stores at [R+imm] whose lanes all stay within one buffer
// or window, aligned, decoded once for all lanes `exec` of a warp (interp/interp_fast.cpp).
// False when `in` is not one of those forms or a lane's access is anything else (it may
// fault): the general path (execInteger, execMemory) runs it, and defines what the fast path
// must compute (tests/unit/interp_fast_test.cpp checks the two agree).
bool execFast(Machine &m, const Instr &in, Thread *lanes, uint32_t exec);

// The warp-level instructions (interp/interp_warp.cpp): VOTE, SHFL, MATCH, REDUX, ELECT
// by the lanes `exec` of a warp whose lane l is lanes[l], and the matrix instructions,
// which fault unless all 32 lanes execute them. False if `in` is not one.
bool execWarpLevel(Machine &m, const Instr &in, Thread *lanes, uint32_t exec);
// HMMA, IMMA, DMMA, BMMA by a whole warp (interp/interp_mma.cpp).
void execMma(Machine &m, const Instr &in, Thread *lanes);
// LDSM, STSM, MOVM by a whole warp (interp/interp_matrix.cpp).
void execMatrixMove(Machine &m, const Instr &in, Thread *lanes);

// ISETP/FSETP/DSETP: the comparison result r combined with the third source
// predicate c by .AND (the default), .OR or .XOR.
bool combinePredicate(const Instr &in, bool r, bool c);

// The modifier of group g on the instruction, if any (ModSet::inGroup, but
// testing only the group's few members: this runs on every step).
std::optional<Mod> modOf(const Instr &in, ModGroup g);

// "FADD.FTZ.SAT": the opcode and its modifiers as the printer spells them.
std::string mnemonic(const Instr &in);

// The reconvergence points of the SIMT runner (interp/interp_postdom.cpp says what they are).
constexpr int64_t kNoBlock = -1;
std::vector<int64_t> immediatePostDominators(const Function &f);

} // namespace ori::interp_detail
