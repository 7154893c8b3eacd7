// Internals of the PTX -> Ori lowering (ptx/lower.cpp builds functions and
// resolves names; ptx/lower_instr.cpp lowers one instruction).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ptx_origin.h"
#include "ptx/ptx.h"

namespace ori::ptx {

// The type an instruction operates on, from its last type modifier.
struct PtxType {
  // Packed: .f16x2 / .bf16x2, two 16-bit floats in 32 bits.
  enum Kind : uint8_t { None, Signed, Unsigned, Bits, Float, Pred, Packed } kind = None;
  unsigned bits = 0;
  bool bfloat = false; // .bf16 / .bf16x2
  bool isInt() const { return kind == Signed || kind == Unsigned || kind == Bits; }
};
PtxType parseType(
    std::string_view mod); // ".s32" -> {Signed, 32}; ".f16x2" -> {Packed, 32}; not a type -> None
// %clock64, %envreg3, ...: valid PTX special registers that Ori does not model.
bool isUnmodelledSpecialRegister(std::string_view name);

// A module variable as Ori has it (lower_module.cpp): layout, linkage, initial bytes and the
// address initializers (their symbols as written).
ori::Variable convertVariable(const Variable &v, ori::Space space, std::string_view file);
// The module with its `.func`s' `.reg` parameters and return values made .param ones, and the
// calls to them passing .param variables (lower_regparams.cpp); nullopt when it has none.
std::optional<Module> withRegisterParams(const Module &m);

// An instruction family whose operand shapes the reader checks (lower_forms.cpp): add, setp,
// mov, ld, st, bra ... A wrong operand kind in it is an error, not an OPAQUE instruction.
bool isShapedFamily(std::string_view opcode);

// What a name means in the current scope.
struct NameRef {
  enum Kind : uint8_t { None, Register, Special, Variable, EntryParam, Function } kind = None;
  ori::Reg reg{};
  ori::SpecialReg sreg{};
  std::string symbol;                // Variable/Function: the Ori name (may be renamed)
  const ori::Param *param = nullptr; // EntryParam
};

// The warnings of one module's lowering: "'MNEMONIC' is kept as an opaque instruction", at
// most kPerMnemonic for each mnemonic (opcode and modifiers as written), then one note with
// how many more there were.
class OpaqueWarnings {
public:
  static constexpr uint32_t kPerMnemonic = 10;
  explicit OpaqueWarnings(std::string file) : file_(std::move(file)) {}
  void add(const Instruction &pi);
  void add(SrcLoc loc, std::string message); // any other warning of the reader
  std::vector<ori::Warning> finish();        // the warnings in order, then the notes

private:
  struct Count {
    uint32_t n = 0;
    SrcLoc firstLeftOut;
  };
  std::string file_;
  std::vector<ori::Warning> list_;
  std::map<std::string, Count> counts_;
  std::vector<std::string> order_; // mnemonics in the order they first passed kPerMnemonic
};

// The mnemonic of an instruction as written: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32".
std::string mnemonic(const Instruction &pi);

class FunctionLowerer {
public:
  FunctionLowerer(const Module &ast, const Function &pf, ori::Module &om, ori::Function &f,
                  OpaqueWarnings &warnings)
      : ast_(ast), pf_(pf), om_(om), f_(f), warnings_(warnings) {}
  void run(); // throws DiagnosticError

  // --- used by lower_instr.cpp ---
  [[noreturn]] void fail(SrcLoc loc, std::string msg) const;
  NameRef resolve(const std::string &name);
  ori::Reg newTemp(ori::RegFile file, std::string_view type);
  unsigned regBits(ori::Reg r) const; // from the declared type; 32 when unknown
  // A source operand for an instruction of type `t`: registers as they are,
  // immediates (float bits for non-float types), special registers and
  // symbols materialized into a temporary. `kinds` says what the slot takes
  // directly (K_REG | K_IMM ...); anything else goes through a MOV.
  ori::Operand source(const Operand &o, PtxType t, uint16_t kinds);
  ori::Reg destination(const Operand &o); // a register destination (sinks '_' give RZ/PT)
  // Records that a lowering applied operand o's offset (`%r1+4`, `sym+8`) or negation (`!%p`):
  // an instruction whose lowering leaves one of them unapplied stays OPAQUE instead.
  void honored(const Operand &o) { honored_.insert({o.loc.line, o.loc.col}); }
  // Instructions of one PTX instruction are collected and committed only when
  // the whole lowering succeeds.
  void emit(ori::Instr in); // with the current guard and location
  const std::optional<ori::Operand> &guard() const { return guard_; } // the current instruction's
  // A .b128 register as two 64-bit Ori registers: its own (the low half) and a companion
  // "<name>_hi" (the high half), made on first use; both are then typed b64 (lower_atomic.cpp).
  ori::Reg high128(ori::Reg lo);
  bool is128(ori::Reg r) const; // declared .b128 (or already split)
  ori::ModSet &lastPendingMods() { return pending_.back().mods; }
  void branchTo(const std::string &label, SrcLoc loc);     // the next BRA emitted targets it
  uint32_t jumpTable(const std::string &name, SrcLoc loc); // index of a .branchtargets table
  bool isParamVariable(const std::string &oriName) const;
  // A module-scope `.global .texref` named `name` (a texture reference the host binds).
  bool isTexref(const std::string &name) const;
  // A .param variable shaped like `ret` that receives a discarded return value.
  std::string sinkVariable(const ori::Param &ret);
  void opaque(const Instruction &pi);           // the instruction as OPAQUE text with placeholders
  bool lowerInstruction(const Instruction &pi); // false: not native, caller makes it OPAQUE
  // PTX's condition code CC.CF (add.cc, addc, ...): one predicate register per function,
  // made the first time a carry instruction asks (ptx/lower_carry.cpp).
  ori::Reg carryFlag();

  const Module &ast_;
  const Function &pf_;
  ori::Module &om_;
  ori::Function &f_;
  OpaqueWarnings &warnings_;

private:
  struct RangeDecl {
    std::string prefix, type;
    uint32_t count;
  };
  struct VectorReg {
    std::string type; // of an element: "f32"
    uint32_t count;   // 2 or 4
  };
  struct Scope {
    // Looked up by name only, never walked in order.
    std::unordered_map<std::string, ori::Reg> regs;        // declared (or allocated from a range)
    std::unordered_map<std::string, std::string> regTypes; // declared but not yet allocated
    // `.reg .v4 .f32 v;`: v's elements are registers of their own, named "v.x" .. "v.w" here
    // (v.r .. v.a are the same ones) and allocated on first use like the others.
    std::unordered_map<std::string, VectorReg> vectors;
    std::vector<RangeDecl> ranges;
    std::unordered_map<std::string, std::string> vars; // PTX variable name -> Ori variable name
  };

  void collectLabels();
  void declare(const Variable &v);
  // lower_forms.cpp: operand forms no instruction has are errors; `v` (a vector register) is
  // the vector operand of its elements.
  void checkOperandForms(const Instruction &pi);
  void checkForm(const Operand &o, size_t k, bool firstIsDef, Operand::Kind container,
                 const Instruction &pi);
  std::optional<Instruction> expandVectorRegisters(const Instruction &pi);
  std::optional<Instruction> expandArrayIndices(const Instruction &pi);
  size_t nameAt(const std::string &t, size_t i, std::string &name);
  bool allHonored(const Instruction &pi) const;
  // The vector register `name` names in scope, or nullptr.
  const VectorReg *vectorRegister(const std::string &name) const;
  void statement(const Statement &s);
  void instruction(const Instruction &pi);
  std::string uniqueRegName(const std::string &name);
  std::string uniqueVarName(const std::string &name);
  void finish();
  // lower_origin.cpp: provenance (ir/ptx_origin.h). recordOrigin() gives the instructions the
  // lowering of `pi` made (pending_) a new origin with pi's text; finishOrigins() copies each
  // origin's instructions once the labels are resolved.
  void recordOrigin(const Instruction &pi);
  std::vector<ori::PtxTextPiece> textPieces(const Instruction &pi, bool &exact);
  void noteRegDeclaration(const Variable &v);
  void noteLoc(const std::string &text);
  void finishOrigins();

  std::vector<Scope> scopes_;
  std::set<std::string> regNamesUsed_, varNamesUsed_;
  std::map<std::string, const BranchTargets *> tables_;
  std::set<std::string> labelsSeen_;
  struct Fixup {
    uint32_t block, instr, src;
    std::string label;
    SrcLoc loc;
  };
  std::vector<Fixup> fixups_;
  std::vector<std::pair<uint32_t, const BranchTargets *>> tableUses_;
  void commit();
  void rollback();
  void numberRegisters(const Operand &o);

  std::map<ori::Reg, ori::Reg> high128_;            // .b128 registers: low half -> high half
  std::set<std::pair<uint32_t, uint32_t>> honored_; // operand locations (see honored())
  const Instruction *current_ =
      nullptr; // the instruction being lowered (source() reads its opcode)
  std::vector<ori::Instr> pending_;
  std::vector<ori::Reg> pendingTemps_;
  uint32_t regMark_[ori::kNumRegFiles] = {}; // f_.nextReg before the current lowering
  std::string pendingLabel_;
  SrcLoc pendingLabelLoc_;
  std::map<std::string, uint32_t> tableIndex_;
  bool needBlock_ = true;
  uint32_t instrIndex_ = 0; // Ori instructions so far: label ids are 0x10 x this (DESIGN.md)
  std::optional<ori::Operand> guard_;
  std::optional<ori::Reg> carryFlag_;
  SrcLoc loc_;
  std::shared_ptr<ori::PtxOrigins> origins_ = std::make_shared<ori::PtxOrigins>();
  std::map<ori::Reg, uint32_t> declaredBits_; // each register's width as its .reg declares it
  std::vector<std::string> pendingLocs_;      // .loc lines since the last instruction
  uint32_t curLoc_ = 0;                       // the .loc in effect (PtxOrigins::locTexts)
  std::unordered_map<std::string, uint32_t> locIndex_;
};

} // namespace ori::ptx
