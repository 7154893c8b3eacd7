// The Ori-like IR shared by both halves: registers, operands, instructions,
// blocks, functions and modules (DESIGN.md, "IR").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ir/inline_vector.h"
#include "ir/opcodes.h"
#include "ir/symbol.h"

namespace ori {

struct PtxOrigins; // ir/ptx_origin.h

// Register files. R holds 32- or 64-bit values (virtual registers are 64-bit
// containers); P and UP hold one bit; B orders convergence barriers.
enum class RegFile : uint8_t { R, UR, P, UP, B };
inline constexpr int kNumRegFiles = 5;

std::string_view regFilePrefix(RegFile f); // "R", "UR", "P", "UP", "B"

struct Reg {
  // The constant registers RZ, URZ (read as 0) and PT, UPT (read as true).
  static constexpr uint32_t kConst = 0xFFFFFFFFu;

  RegFile file = RegFile::R;
  uint32_t num = 0;

  bool isConst() const { return num == kConst; }
  bool isPredicate() const { return file == RegFile::P || file == RegFile::UP; }
  bool isGeneral() const { return file == RegFile::R || file == RegFile::UR; }
  friend auto operator<=>(const Reg &, const Reg &) = default;
};

inline Reg R(uint32_t n) { return {RegFile::R, n}; }
inline Reg P(uint32_t n) { return {RegFile::P, n}; }
inline constexpr Reg RZ{RegFile::R, Reg::kConst};
inline constexpr Reg PT{RegFile::P, Reg::kConst};

// Special registers read by S2R.
enum class SpecialReg : uint8_t {
  TID_X,
  TID_Y,
  TID_Z,
  CTAID_X,
  CTAID_Y,
  CTAID_Z,
  NTID_X,
  NTID_Y,
  NTID_Z,
  NCTAID_X,
  NCTAID_Y,
  NCTAID_Z,
  LANEID,
  WARPID,
  NWARPID,
  SMID,
  NSMID,
  GRIDID,
  CLOCKLO,
  CLOCKHI,
  GLOBALTIMERLO,
  GLOBALTIMERHI,
  LANEMASK_EQ,
  LANEMASK_LT,
  LANEMASK_LE,
  LANEMASK_GT,
  LANEMASK_GE,
  // 64-bit generic addresses where the shared and local windows start
  // (PTX cvta.shared / cvta.local add them; docs/interpreter.md).
  SWINBASE,
  LWINBASE,
  // ... and where the constant window starts (PTX cvta.const adds it; docs/interpreter.md).
  CWINBASE,
};
inline constexpr int kNumSpecialRegs = int(SpecialReg::CWINBASE) + 1;
std::string_view specialRegName(SpecialReg s); // "SR_TID.X"
std::optional<SpecialReg> specialRegFromName(std::string_view name);

struct Operand {
  enum class Kind : uint8_t {
    Reg,       // reg, with neg/abs/bitNot flags
    Imm,       // integer immediate: imm
    FImm,      // float immediate: fimm
    CBank,     // c[bank][reg + imm]: bank, optional index register reg (hasReg), imm
    SReg,      // special register: sreg
    Mem,       // [reg + sym + imm]: optional reg (hasReg), optional symbol sym, imm
    Label,     // a block: target (bix)
    JumpTable, // a jump table of the function: target (index)
    Symbol,    // a function or variable name: sym
  };

  Kind kind = Kind::Imm;
  bool neg = false;    // -R1 (integer or float negate); !P1 on predicates
  bool abs = false;    // |R1|
  bool hasReg = false; // CBank and Mem: an index/base register is present
  Reg reg{};
  // Fields no kind uses together share their storage, so that an operand is
  // 32 bytes and an instruction's operands take fewer cache lines. Read only
  // the field of the operand's kind (operator== and the printer go by kind).
  union {
    uint32_t bank = 0; // CBank
    uint32_t target;   // Label, JumpTable
    SpecialReg sreg;   // SReg
  };
  union {
    int64_t imm = 0; // Imm; the offset of CBank and Mem
    double fimm;     // FImm
  };
  Symbol sym;

  static Operand reg_(Reg r, bool negated = false);
  static Operand immediate(int64_t v);
  static Operand floatImm(double v);
  static Operand cbank(uint32_t bank, int64_t offset);
  static Operand special(SpecialReg s);
  static Operand mem(std::optional<Reg> base, int64_t offset, Symbol symbol = {});
  static Operand label(uint32_t bix);
  static Operand jumpTable(uint32_t index);
  static Operand symbol(Symbol name);

  bool isReg() const { return kind == Kind::Reg; }
  // The OperandKindBit of this operand (a register's by its file).
  uint16_t kindBit() const;
  // The register this operand reads or writes, if any (Reg, or the index
  // register of CBank and Mem).
  std::optional<Reg> regRead() const;
  friend bool operator==(const Operand &a, const Operand &b);
};

// Operands are copied and moved as bytes by the instruction's operand lists.
static_assert(std::is_trivially_copyable_v<Operand>);
static_assert(sizeof(Operand) == 32);

// An instruction's destinations and sources: one destination and three
// sources are stored in the instruction, more on the heap (ir/inline_vector.h).
using DstList = InlineVector<Operand, 1>;
using SrcList = InlineVector<Operand, 3>;

struct SrcLoc {
  uint32_t line = 0, col = 0;
};

struct Instr {
  Opcode op = Opcode::NOP;
  // The PTX instruction this one was lowered from: an index into its function's ptxOrigins
  // (ir/ptx_origin.h), 0 for none (an instruction a pass made, or from .ori text). Passes that
  // copy or move an instruction keep it; like loc it is not part of equality (the emitter
  // compares the instruction with what the lowering made before it prints the PTX text again).
  uint32_t origin = 0;
  ModSet mods;
  std::optional<Operand> guard; // a predicate register operand; neg = @!P
  DstList dsts;
  SrcList srcs;
  Symbol opaqueText; // OPAQUE only: the original instruction text (interned: 8 bytes)
  SrcLoc loc;        // where it came from; not part of equality

  const OpInfo &info() const { return opInfo(op); }
  bool has(Mod m) const { return mods.test(m); }
  bool isGuarded() const { return guard.has_value() && !(guard->reg.isConst() && !guard->neg); }
  // Registers written (dests, constants excluded) and read (sources, address
  // and bank index registers, the guard; constants excluded), in operand order.
  std::vector<Reg> defs() const;
  std::vector<Reg> uses() const;
  friend bool operator==(const Instr &a, const Instr &b);
};

// defs() and uses() without building a vector: f(Reg) for each register, in
// the same order (the optimized half's loops over every instruction use these).
template <class F> void forEachDef(const Instr &in, F &&f) {
  for (const Operand &d : in.dsts)
    if (d.kind == Operand::Kind::Reg && !d.reg.isConst())
      f(d.reg);
}
template <class F> void forEachUse(const Instr &in, F &&f) {
  if (in.guard && !in.guard->reg.isConst())
    f(in.guard->reg);
  for (const Operand &s : in.srcs) {
    const bool reads =
        s.kind == Operand::Kind::Reg ||
        ((s.kind == Operand::Kind::CBank || s.kind == Operand::Kind::Mem) && s.hasReg);
    if (reads && !s.reg.isConst())
      f(s.reg);
  }
  // Stores and atomics read their address register; it is a source already.
}

// An instruction of `op` with these operands and modifiers (no guard, no source location).
Instr makeInstr(Opcode op, DstList dsts, SrcList srcs, std::initializer_list<Mod> mods = {});

struct Block {
  std::string label; // empty when the block starts after a control-flow instruction
  // Printed as L%x in dumps: 0x10 x the source index of the block's first
  // instruction, fixed when the block is read (passes keep it, as ptxas keeps
  // its label ids); like Instr::loc it is not part of equality.
  uint32_t labelId = 0;
  std::vector<Instr> instrs;
  friend bool operator==(const Block &a, const Block &b) {
    return a.label == b.label && a.instrs == b.instrs;
  }
};

struct JumpTable {
  std::string name;
  std::vector<uint32_t> targets; // block indices, in table order
  friend bool operator==(const JumpTable &, const JumpTable &) = default;
};

struct Param {
  std::string type; // PTX-style scalar type: "u32", "f32", "b8", ...
  std::string name;
  uint32_t size = 0;   // bytes (array params: element size x count)
  uint32_t align = 0;  // bytes
  uint32_t count = 0;  // 0 = scalar, else array length
  uint32_t offset = 0; // byte offset in constant bank 0 (entries) or param space
  friend bool operator==(const Param &, const Param &) = default;
};

// State spaces of variables (PTX .global, .shared, .const, .local, .param).
enum class Space : uint8_t { Global, Shared, Const, Local, Param };
std::string_view spaceName(Space s); // "global", "shared", ...

// A variable with memory of its own: module scope (.global, .const, .shared)
// or function scope (.shared, .local, and .param for call arguments). A memory
// operand that names it ([sym+off]) addresses the variable's state space.
struct Variable {
  Space space = Space::Global;
  std::string type; // element type as in Param: "b32", "f32", "u8", ...
  std::string name;
  uint32_t elemSize = 0;     // bytes per element
  uint32_t count = 0;        // 0 = scalar, else array length
  uint32_t align = 0;        // bytes
  std::vector<uint8_t> init; // initial bytes (little endian), at most size(); the rest is zero
  // PTX linkage as written ("visible", "extern", "weak", "common"), empty for a variable of
  // this module only. An "extern" .shared variable is the launch's dynamic shared memory.
  std::string linkage;
  bool unsized = false; // declared `name[]` (an .extern array: its length is not this module's)
  // Initializer elements that are addresses (PTX `.global .u64 p = x;`, `{generic(x)+4}`): at
  // placement the element at `offset` (elemSize bytes) gets the symbol's address plus `addend`:
  // its address in its own state space, or its generic address when `generic`. A function's
  // address is the one an indirect CALL takes.
  struct AddrInit {
    uint32_t offset = 0;
    std::string symbol;
    int64_t addend = 0;
    bool generic = false;
    // 0-7: only byte `byte` of the address, zero-extended into the element (PTX's mask form
    // `0xFF00(sym)` is byte 1: ISA 9.0 5.4.4; nvcc writes it for pointers in packed structs);
    // -1: the whole address.
    int8_t byte = -1;
    friend bool operator==(const AddrInit &, const AddrInit &) = default;
  };
  std::vector<AddrInit> addrInit;
  uint32_t size() const { return elemSize * (count ? count : 1); }
  friend bool operator==(const Variable &, const Variable &) = default;
};

// Kernel parameters live in constant bank 0 from this offset, as on sm_90.
inline constexpr uint32_t kParamBase = 0x210;

struct Function {
  std::string name;
  bool isEntry = false;
  std::string linkage; // PTX linkage as written ("visible", "extern", "weak"), or empty
  std::vector<Param> params;
  std::vector<Param> returns; // .func return values
  std::vector<Block> blocks;  // index = bix; bix 0 is the entry
  std::vector<JumpTable> jumpTables;
  std::vector<Variable> variables;     // function-scope variables
  std::map<Reg, std::string> regNames; // registers with source names (PTX %r5)
  std::map<Reg, std::string> regTypes; // declared PTX type of named registers ("b32", "pred")
  // PTX text carried through unchanged for re-emission: performance
  // directives (".maxntid 256, 1, 1"), call prototypes, pragmas.
  std::vector<std::string> ptxDirectives;
  // PTX statement-level directives (`.pragma "nounroll";`) by the label of the block they
  // stand in, printed again at that block's start. A block a pass erased leaves its entry
  // unprinted.
  std::map<std::string, std::vector<std::string>> blockDirectives;
  uint32_t nextReg[kNumRegFiles] = {}; // first unused virtual register number per file
  SrcLoc loc;
  // The PTX instructions the function was lowered from, which Instr::origin indexes, with their
  // text, .loc and what the lowering made of each (ir/ptx_origin.h); null when not from PTX.
  // Shared by copies of the function and never changed after the lowering; not part of equality.
  std::shared_ptr<const PtxOrigins> ptxOrigins;

  Reg newReg(RegFile f) { return {f, nextReg[int(f)]++}; }
  // A declaration (PTX `.extern .func f(...);`, .ori `.func f(...);`) has no blocks.
  bool isDeclaration() const { return blocks.empty(); }
  // Recomputes nextReg from the registers the function mentions.
  void recountRegs();
  std::optional<uint32_t> findBlock(std::string_view label) const;
  size_t instrCount() const;
  friend bool operator==(const Function &a, const Function &b);
};

struct Module {
  std::string fileName; // for diagnostics
  // PTX module text carried through unchanged for re-emission, in order:
  // ".version 7.0", ".target sm_70", ".address_size 64", texture declarations.
  std::vector<std::string> ptxDirectives;
  // PTX module text after the functions, printed after them unchanged: the `.section .debug_*`
  // of a -G or -lineinfo build. Like a function's ptxOrigins it is not part of equality.
  std::vector<std::string> ptxTrailer;
  std::vector<Variable> variables; // module-scope variables
  std::vector<Function> functions;
  const Function *findFunction(std::string_view name) const;
  friend bool operator==(const Module &a, const Module &b) {
    return a.ptxDirectives == b.ptxDirectives && a.variables == b.variables &&
           a.functions == b.functions;
  }
};

// The variable or .func parameter a memory operand's symbol names, looked up
// in the function's variables, then its parameters and return values (.func
// only: they live in the param space), then the module's variables. Sets *param for parameters.
const Variable *findVariable(const Module &m, const Function &f, std::string_view name,
                             const Param **param = nullptr);

// Offsets of the parameters: naturally aligned, in order, from `base`.
void layoutParams(std::vector<Param> &params, uint32_t base);

} // namespace ori
