// Opcodes and modifiers, generated from ir/opcodes.def and ir/modifiers.def.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ori {

enum class Opcode : uint8_t {
#define OP(Name, Dsts, Srcs, Flags, Mods) Name,
#include "ir/opcodes.def"
};
inline constexpr int kNumOpcodes = 0
#define OP(Name, Dsts, Srcs, Flags, Mods) +1
#include "ir/opcodes.def"
    ;

enum class Mod : uint8_t {
#define MOD(Enum, Text, Group) Enum,
#include "ir/modifiers.def"
};
inline constexpr int kNumMods = 0
#define MOD(Enum, Text, Group) +1
#include "ir/modifiers.def"
    ;

enum class ModGroup : uint8_t {
  Dir,
  Addr,
  Lut,
  Part,
  Carry,
  Cmp,
  FType,
  Type,
  AtomOp,
  IRound,
  FRound,
  Ftz,
  Sat,
  BoolOp,
  Uniform,
  Div,
  CallKind,
  NoDec,
  BarOp,
  VoteOp,
  ShflOp,
  Scope,
  Volatile,
  Wrap,
  PrmtMode,
  ShiftAmt,
  FSrc,
  MufuOp,
  ReduxOp,
  BarRedOp,
  SurfDim,
  Vec,
  SurfMode,
  TexCoord,
  TexLod,
  MmaShape,
  MmaA,
  MmaB,
  MmaCType,
  MmaALayout,
  MmaBLayout,
  MatShape,
  MatNum,
  IdpForm,
  BType,
  Relu,
  Oob,
  MnmxNaN,
  XorSign,
  SetBool, // floating point (issue 39)
  AtomFType,
  MemOrder,
  MemScope,
  CacheOp,
  L1Evict,
  L2Evict,
  L2Second,
  Prefetch,
  CacheHint,
  SpaceQual,
  Proxy,
  CctlOp,
  PolicyKind,
};

std::string_view modText(Mod m);
ModGroup modGroup(Mod m);

// A set of modifiers; iteration order (= print order) is modifiers.def order.
class ModSet {
public:
  bool test(Mod m) const { return bits_.test(size_t(m)); }
  void set(Mod m) { bits_.set(size_t(m)); }
  void reset(Mod m) { bits_.reset(size_t(m)); }
  bool empty() const { return bits_.none(); }
  // The modifier of `g` present in the set, if any.
  std::optional<Mod> inGroup(ModGroup g) const;
  std::vector<Mod> list() const;
  friend bool operator==(const ModSet &, const ModSet &) = default;

private:
  std::bitset<kNumMods> bits_;
};

// Instruction properties from the table's FLAGS column.
enum OpFlag : uint32_t {
  CONTROL = 1u << 0,    // ends a basic block (BRA, BRX, EXIT, RET, CALL)
  TERMINATOR = 1u << 1, // no fall-through when unguarded
  BRANCH = 1u << 2,     // has block targets
  CALL_ = 1u << 3,
  SIDE_EFFECT = 1u << 4, // must not be deleted even when its defs are dead
  MEMORY = 1u << 5,
  BARRIER = 1u << 6,
  CONVERGENCE = 1u << 7,
  COMMUTATIVE = 1u << 8, // the first two sources may be swapped
  INEG = 1u << 9,        // source registers may be negated (-R1)
  FNEG = 1u << 10,       // source registers may be negated and take |abs|
  VARIADIC = 1u << 11,   // OPAQUE: any number of register defs and uses
};

// Operand kinds a slot accepts (letters of opcodes.def).
enum OperandKindBit : uint16_t {
  K_REG = 1 << 0,   // R
  K_PRED = 1 << 1,  // P
  K_BAR = 1 << 2,   // B
  K_IMM = 1 << 3,   // I
  K_FIMM = 1 << 4,  // F
  K_CBANK = 1 << 5, // C
  K_SREG = 1 << 6,  // S
  K_MEM = 1 << 7,   // M
  K_LABEL = 1 << 8, // L
  K_JTAB = 1 << 9,  // J
  K_SYM = 1 << 10,  // Y
};

struct OperandSlot {
  uint16_t kinds = 0;
  bool optional = false;
  bool repeat = false; // zero or more (implies optional); only the last slot
};

struct OpInfo {
  Opcode op;
  std::string_view name;
  uint32_t flags;
  std::vector<OperandSlot> dsts, srcs;
  ModSet allowedMods;

  bool is(uint32_t f) const { return (flags & f) != 0; }
  size_t minSrcs() const;
  // The slot operand k of a list uses, or nullptr past the end (repeating
  // last slots accept any number of operands).
  static const OperandSlot *slotAt(const std::vector<OperandSlot> &slots, size_t k);
};

const OpInfo &opInfo(Opcode op);
// How many destinations an instruction of `op` with modifiers `mods` has: its dest slots,
// except for an optional one that only a modifier brings. BAR has its one destination
// (the reduction's result) exactly with .RED; BAR.SYNC and BAR.ARV have none. The .ori
// parser reads that many operands as destinations; checkShape (ir/ori.h) holds the rest
// of BAR's shape, which its slots cannot say.
size_t dstCount(Opcode op, const ModSet &mods);
// SULD/SUST: coordinates (1 .. 3 from .1D/.2D/.3D; 0 without one) and elements (1, or 2/4
// with .V2/.V4) of a surface access; bytes per element (1, 2, 4 or 8 by .U8/.U16/none/.64).
inline unsigned surfaceDims(const ModSet &m) {
  return m.test(Mod::D1) ? 1 : m.test(Mod::D2) ? 2 : m.test(Mod::D3) ? 3 : 0;
}
inline unsigned surfaceElems(const ModSet &m) {
  return m.test(Mod::V4) ? 4 : m.test(Mod::V2) ? 2 : 1;
}
inline unsigned surfaceBytes(const ModSet &m) {
  return m.test(Mod::U8) ? 1 : m.test(Mod::U16) ? 2 : m.test(Mod::W64) ? 8 : 4;
}
// The atomics: ATOM, ATOMG, ATOMS (with a result) and RED, REDG (without).
inline bool isAtomic(Opcode op) {
  return op == Opcode::ATOM || op == Opcode::ATOMG || op == Opcode::ATOMS || op == Opcode::RED ||
         op == Opcode::REDG;
}
// The bytes an atomic reads and writes: 16 (.128), 8 (.64, .S64, .F64), 2 (.U16, .F16, .BF16),
// else 4.
inline unsigned atomicBytes(const ModSet &m) {
  if (m.test(Mod::W128))
    return 16;
  if (m.test(Mod::W64) || m.test(Mod::S64) || m.test(Mod::AF64))
    return 8;
  if (m.test(Mod::U16) || m.test(Mod::AF16) || m.test(Mod::ABF16))
    return 2;
  return 4;
}
// Memory ordering beyond a weak access (docs/ptx.md, "Memory ordering and cache qualifiers"):
// .VOLATILE, .ACQUIRE, .RELEASE, .ACQ_REL, .SC or .MMIO. A load with one is never removed,
// even when its result is dead (ptxas 13.0 keeps such loads too; it removes dead weak and
// .RELAXED ones).
inline bool isOrderedAccess(const ModSet &m) {
  return m.test(Mod::VOLATILE) || m.test(Mod::ACQUIRE) || m.test(Mod::RELEASE) ||
         m.test(Mod::ACQ_REL) || m.test(Mod::SC) || m.test(Mod::MMIO);
}
// BRX and its pseudo form JMX (until phase 80): a branch through a jump table.
inline bool isTableBranch(Opcode op) { return op == Opcode::BRX || op == Opcode::JMX; }
std::optional<Opcode> opcodeFromName(std::string_view name);
// A human-readable list of the kinds in a slot mask: "a register, an integer or a constant bank".
std::string describeKinds(uint16_t kinds);

} // namespace ori
