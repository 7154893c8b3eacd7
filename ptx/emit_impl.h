// Internals of the Ori -> PTX emitter (ori::ptx::emit, ptx/ptx.h), shared by
// ptx/emit.cpp (module text, variables, headers), emit_regs.cpp (register
// widths and live-in registers), emit_func.cpp (registers, operands, guards,
// function bodies), emit_alu.cpp (integer opcodes), emit_predicate.cpp (predicate opcodes),
// emit_float.cpp (floating point and conversions), emit_mem.cpp (memory,
// control flow, OPAQUE), emit_warp.cpp (warp-level instructions, barriers), emit_matrix.cpp
// (matrix instructions, elect, grid dependencies)
// and emit_call.cpp (CALL and .param variables).
//
// The contract: the emitted PTX means exactly what the interpreter
// (docs/interpreter.md) does with the Ori module. Ori registers are 64-bit
// containers, zero when a thread starts and fresh (zero) in every called
// function, as PTX registers are local to a function; PTX registers are typed
// and sized. So:
//  - every register gets one PTX width (.pred/.b16/.b32/.b64): its declared
//    type when it has one, else 64 bits if any instruction of its function
//    writes it as a 64-bit value, else 32; reads and writes of another width are
//    bridged with cvt (a 32-bit result is zero-extended, as in the container);
//  - registers a function may read before writing them are set to 0 on entry.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"
#include "ir/ptx_origin.h"

namespace ori::ptx::emit_detail {

// The Ori IR's types (ori::ptx also has PTX syntax-tree types of these names).
using ori::Block;
using ori::Function;
using ori::Instr;
using ori::Module;
using ori::Operand;
using ori::Param;
using ori::Space;
using ori::Variable;

// Thrown for an Ori construct with no PTX form; emit() turns it into the
// EmitResult's Diagnostic.
struct Failure {
  SrcLoc loc;
  std::string message;
};
[[noreturn]] void fail(SrcLoc loc, std::string message);

// PTX widths of registers: 1 (.pred), 8, 16, 32 or 64 bits.
unsigned bitsOfType(const std::string &type); // "u32" -> 32, "pred" -> 1; 0 if unknown
std::string regDeclType(unsigned bits);       // 1 -> ".pred", 32 -> ".b32"
// How many bits instruction `in` writes into the general register dsts[d]:
// 32 or 64, 0 when unknown (OPAQUE).
unsigned writeBits(const Instr &in, size_t d);
// A valid PTX identifier (letters, digits, _ $ %, not starting with a digit).
bool isPtxIdent(const std::string &s);

// A PTX ISA version.
struct Version {
  int major = 0, minor = 0;
  friend auto operator<=>(const Version &, const Version &) = default;
};

struct ModuleCtx {
  const Module *m = nullptr;
  // The target's SM number (sm_20 -> 20): instructions newer than the target
  // are replaced (lop3 before sm_50, shf before sm_32, brx.idx before sm_30).
  unsigned sm = 90;
  // An architecture-specific target (sm_90a, sm_100f): what only those have (setmaxnreg).
  bool archSpecific = false;
  // The PTX version the emitted text needs; raised as features are used.
  mutable Version need{2, 0};
  void require(int major, int minor) const { need = std::max(need, Version{major, minor}); }
  std::map<std::string, std::set<Reg>> wide; // every function: untyped registers written as 64 bits
  std::map<std::string, std::set<Reg>>
      liveIn; // every defined function: registers read before written
};

// emit_regs.cpp: register widths and live-in registers of every function.
void analyzeModule(ModuleCtx &ctx);
// Each block's successors (control flow ends a block): BRA/BRX targets, none
// after an unguarded EXIT/RET, else the next block.
std::vector<std::vector<uint32_t>> successors(const Function &f);

// emit.cpp: helpers shared with the function emitter.
// ".param .u32 x" / ".param .align 8 .b8 a[16]"; `device`: of a .func or a call slot.
std::string paramDecl(const Param &p, bool device);
std::string variableDecl(const Variable &v);      // ".global .align 4 .b32 t[4] = {1, 2, 3, 4}"
std::string functionSignature(const Function &f); // "(.param ..) name(...)"

// emit_func.cpp: one function body (with its header); adds the labels it prints to `labels`.
std::string emitFunction(const ModuleCtx &ctx, const Function &f, std::set<std::string> &labels);
// emit_origin.cpp: the module's PTX text after the functions (Module::ptxTrailer): `.file`, and
// each `.section` whose label references name labels, functions or variables still printed.
std::string moduleTrailer(const Module &m, const std::set<std::string> &labels, bool &debug);

// The per-function emitter. One Ori instruction becomes a list of lines; the
// guard is applied to all of them at the end (instr()).
class FnEmitter {
public:
  FnEmitter(const ModuleCtx &ctx, const Function &f);
  std::string run();
  const std::vector<std::string> &labels() const { return labels_; }

  // ---- registers and names (emit_func.cpp)
  std::string regName(Reg r) const;
  unsigned regBits(Reg r) const;   // 1 for predicates
  std::string temp(unsigned bits); // a fresh temporary for the current instruction
  std::string labelName(uint32_t bix) const;
  std::string tableName(uint32_t index) const;

  // ---- lines of the current instruction
  void emit(std::string text);    // an instruction line (takes the guard)
  void emitRaw(std::string text); // a declaration, brace or comment (no guard)

  // ---- operands (emit_func.cpp)
  // An integer source of `bits` bits (16, 32 or 64): a register bridged to that
  // width, an immediate, a constant-bank value loaded from .param. With
  // `inReg`, immediates are moved into a temporary first.
  std::string intSrc(const Instr &in, size_t i, unsigned bits, bool inReg = false);
  std::string immText(uint64_t v, unsigned bits) const;
  // An immediate as Ori holds it: a negative value that fits `bits` signed as written (-1),
  // else immText's bits, so that lowering the text again gives the same Ori immediate.
  std::string immTextAsHeld(int64_t v, unsigned bits) const;
  // The register r as a `bits`-wide value (cvt through a temporary if needed).
  std::string regAs(Reg r, unsigned bits);
  // A binary32 / binary64 source with |..| and - applied (as bit operations).
  std::string f32Src(const Instr &in, size_t i);
  std::string f64Src(const Instr &in, size_t i);
  std::string halfSrc(const Instr &in, size_t i); // emit_float.cpp
  void emitCanonicalNaN64(const Instr &in, const std::string &r, const std::string &p);
  void emitF2FSaturating(const Instr &in); // emit_float.cpp: F2F .TF32 .RELU .SATFINITE .RNA
  bool isScalarHalf(const Instr &in, size_t n) const; // emit_float.cpp
  struct Pred {
    bool isConst = false, value = false; // PT / !PT
    std::string name;
    bool neg = false;
  };
  Pred predSrc(const Instr &in, size_t i) const;
  std::string predText(const Pred &p); // "%p", "!%p" (callers handle PT/!PT first)
  // Destinations: the name to write a `bits`-wide result to. A register of
  // another width (or RZ) is written through a temporary; finishDsts() emits
  // the conversion into the real register.
  std::string intDst(const Instr &in, size_t d, unsigned bits);
  std::string predDst(const Instr &in, size_t d); // a temporary for PT
  void finishDsts();
  void setPred(const std::string &d, const Pred &value); // d = value (constant or register)
  // c[0x0][off] of an .entry: `bytes` bytes of the parameter covering it,
  // loaded with ld.param.<ldType> into a temporary of `bits` bits.
  // With `dst`, the value is loaded into that register instead.
  std::string cbank(const Instr &in, const Operand &o, unsigned bytes, const std::string &ldType,
                    unsigned bits, const std::string &dst = "");

  // ---- opcode families; each returns false if `in` is not one of its opcodes
  bool emitInteger(const Instr &in);     // emit_alu.cpp
  bool emitIntegerMore(const Instr &in); // emit_intops.cpp: IADDC IDP I2IP BMSK FNS
  // Whether PTX's CC.CF holds predicate p before the current instruction (emit_intops.cpp).
  bool carryHolds(Reg p) const;
  bool emitPredicate(const Instr &in); // emit_predicate.cpp (ISETP, PLOP3)
  Pred predOfTwo(const std::vector<bool> &t, const Pred &a, const Pred &b, const std::string &into);
  void emitPredFunction(const std::string &dst, const std::vector<bool> &table,
                        const std::vector<Pred> &lits);
  bool emitFloat(const Instr &in);  // emit_float.cpp
  bool emitHalf(const Instr &in);   // emit_half.cpp: MUFU, HMNMX2, HSETP2, HSET2, F2FP
  bool emitMemory(const Instr &in); // emit_mem.cpp
  bool emitAtomic(const Instr &in); // emit_atomic.cpp: ATOM ATOMG ATOMS RED REDG
  bool emitMemorySystem(
      const Instr &in); // emit_atomic.cpp: MEMBAR FENCE NANOSLEEP CCTL QSPC CREATEPOLICY, the stack
  // PTX's qualifiers of a memory access (emit_atomic.cpp): ".relaxed.gpu", ".mmio.relaxed.sys"
  // ..., and ".cg", ".nc", ".L1::evict_last", ".L2::cache_hint", ".L2::128B" ...; the cache
  // policy operand ", %rd" of a .HINT access ("" without).
  std::string orderQualifiers(const Instr &in);
  void checkAccessQualifiers(const Instr &in,
                             const std::string &space); // fails for combinations PTX lacks
  std::string cacheQualifiers(const Instr &in);
  std::string policySrc(const Instr &in);
  bool emitControl(const Instr &in); // emit_mem.cpp
  bool emitWarp(const Instr &in);    // emit_warp.cpp (SHFL, MATCH, REDUX, BAR)
  bool emitMatrix(const Instr &in);  // emit_matrix.cpp (MMA, LDSM, STSM, MOVM, ELECT, ...)
  void emitCall(const Instr &in);    // emit_call.cpp
  void emitRegisterCall(const Instr &in);

  // ---- helpers shared between families
  // p = r BOOL c and q = !r BOOL c for the comparison `cmp` ("setp.lt") of
  // type `type` (".s32", ".ftz.f32") of operands `a, b`.
  void emitSetp(const Instr &in, const std::string &cmp, const std::string &type,
                const std::string &a, const std::string &b);
  // The `w`-bit bitwise function `lut` (lop3's table) of a, b, c: lop3.b32
  // from sm_50, and/or/xor/not before (also for w = 64). Returns the
  // operand (a register or an immediate) holding the result.
  std::string bitwise3(uint32_t lut, const std::string &a, const std::string &b,
                       const std::string &c, unsigned w);
  // LOP3 as mov/not/and/or/xor when its table is one of those (emit_alu.cpp).
  bool emitPlainLogic(const Instr &in, uint32_t lut);
  // The member mask of a warp-level .sync instruction: the mask of the WARPSYNC just
  // before it when the two print as one (syncedMask_, syncJoinsNext), else a
  // temporary holding the lanes that run `in` here (activemask; under a guard, the
  // ballot of the guard among them).
  std::string memberMask(const Instr &in);
  // Whether WARPSYNC `sync` and `next`, the instruction after it in its block, print as
  // one PTX .sync instruction with the WARPSYNC's mask (emit_warp.cpp).
  bool syncJoinsNext(const Instr &sync, const Instr *next);
  // Whether register r holds the lanes that run the current instruction: an unguarded
  // activemask wrote it earlier in the block, with only plain computation between.
  bool activeMaskHere(Reg r) const;
  // p = r BOOL c, q = !r BOOL c for a constant comparison result r.
  void emitConstCompare(const Instr &in, bool r);
  // The address operand srcs[i] as PTX "[...]" for state space `space`
  // ("global", "shared", "local", "" = generic, "param", "const").
  std::string address(const Instr &in, size_t i, std::string &space);
  bool abortsAlways(const Instr &in, bool store); // emits trap for such an access
  unsigned accessBytes(const Instr &in);          // bytes a memory instruction touches

  const ModuleCtx &ctx;
  const Module &m;
  const Function &f;

  struct Line {
    std::string text;
    bool guardable = true;
  };

private:
  // emit_origin.cpp: the PTX text instructions were lowered from (ir/ptx_origin.h).
  // How many instructions from instrs[i] print as their PTX text again (0: none): the
  // instructions of one origin that equal what the lowering made of it, and the text.
  size_t originRun(const std::vector<Instr> &instrs, size_t i, std::string &text);
  bool sameAsLowered(const Instr &in, const Instr &lowered, const std::vector<std::string> &labels,
                     size_t &label) const;
  void emitLoc(const Instr &in); // the .loc lines of in's origin, before its first instruction
  // Registers the origins' texts name, and whether the function's own .reg lines declare the
  // registers (declareNames, after the names are given).
  void noteOriginRegisters(std::set<Reg> &regs);
  void checkOriginDeclarations();
  std::string regDeclarations() const;
  const PtxOrigins *origins_ = nullptr;
  std::unordered_map<std::string, uint32_t> blockOfLabel_; // Ori block label -> bix
  std::unordered_set<std::string> symbols_;   // variables and parameters the function sees
  std::unordered_set<std::string> paramVars_; // its .param variables
  std::set<Reg> untyped_; // registers instructions printed by the emitter name (regDeclarations)
  bool allText_ = true;   // every instruction so far printed as its PTX text
  std::set<uint32_t> textOrigins_; // the origins printed as their text
  // The original .reg line that declares `name`, if any.
  const PtxOrigins::RegDecl *declaredBy(const std::string &name) const;
  bool originDecls_ = false; // print those lines
  uint32_t lastLoc_ = 0, lastOrigin_ = 0;

  struct Fixup {
    std::string from, to;
    unsigned fromBits, toBits;
  };
  void instr(const Instr &in);
  void declareNames();
  std::string uniqueName(std::string base);
  void bodyPrologue(std::string &out);

  // Function-scope .param variables used as plain PTX call slots (emit_call.cpp):
  // written (unguarded) and passed as arguments only, or returned into and
  // read only after a call certainly filled them, with the callee's
  // declaration (or named by OPAQUE text). ptxas 13.0 crashes on any other
  // use of a call slot (reading an argument slot, say), so the other .param
  // variables are declared .local and copied to and from real slots at each CALL.
  void classifySlots();
  std::set<std::string> slots_;
  std::map<Reg, std::string> names_;
  std::map<Reg, unsigned> bits_;
  std::set<std::string> used_;      // every identifier of the function and module
  std::vector<std::string> labels_; // by bix; empty: not needed
  std::vector<std::string> tables_; // by jump-table index
  std::map<unsigned, std::vector<std::string>> tempNames_; // declared temporaries by width
  std::map<unsigned, size_t> tempUsed_;                    // per instruction
  std::vector<Line> lines_;
  std::vector<Fixup> fixups_;
  std::string body_;
  const Instr *cur_ = nullptr;
  const Instr *next_ = nullptr; // the instruction after cur_ in its block, if any
  size_t curIndex_ = 0;         // cur_'s index in its block
  size_t curBlock_ = 0;         // the block being printed
  // The member mask a WARPSYNC left for the next instruction (syncJoinsNext), which
  // must take it; and the registers that hold 0xffffffff wherever they are read, found
  // the first time a WARPSYNC asks (most functions have none).
  std::optional<std::string> syncedMask_;
  std::optional<std::set<Reg>> fullMaskRegs_;
  std::set<Reg> findFullMaskRegs() const;
  // The lowering's two instructions for PTX cvta{.to}.space.u64 d, a (S2R b, SR_xWINBASE then
  // IADD3.64 d, a, [-]b, RZ, b used nowhere else) print as that cvta again (emit_joins.cpp):
  // the S2R leaves the mnemonic ("cvta.to.shared.u64") here for the IADD3, which must take it.
  std::optional<std::string> cvtaJoin_;
  std::optional<std::string> cvtaJoinsNext(const Instr &s2r) const;
  // The same for mul24.lo/mad24.lo: SGXT[.U32] x, a, 24; SGXT[.U32] y, b, 24; IMAD d, x, y, c
  // (x, y read by that IMAD only) print as mul24.lo d, a, b (c = RZ) or mad24.lo d, a, b, c. The
  // first SGXT leaves the mnemonic and a, b here; the second prints nothing; the IMAD prints it.
  struct Mul24Join {
    std::string mnemonic; // "mul24.lo.u32", "mad24.lo.s32"
    Operand a, b;
    int pending = 0; // instructions of the three still to come
  };
  std::optional<Mul24Join> mul24Join_;
  std::optional<Mul24Join> mul24Starts(const Instr &sgxt) const;
  // And for bfe: SHR.type x, a, pos; SGXT[.U32][.64] d, x, len (pos, len immediates, x read
  // by that SGXT only) print as bfe.type d, a, pos, len: the SHR leaves "bfe.type", a and pos
  // here (as the IMAD of a mul24 join does with a and b), the SGXT prints it.
  std::optional<Mul24Join> bfeJoin_;
  std::optional<Mul24Join> bfeStarts(const Instr &shr) const;
  // How many times each register is written or read in the function (operands and guards),
  // counted the first time asked.
  mutable std::optional<std::map<Reg, uint32_t>> regMentions_;
  uint32_t regMentions(Reg r) const;
  // Whether the BRX/JMX `in` ending block b can only see an index inside its table.
  bool boundChecked(size_t b, const Instr &in) const;
};

// The largest parameter and return area of a callee a CALL is printed for: its slots live in the
// caller's frame, whose parameter areas the interpreter bounds.
inline constexpr uint64_t kMaxCallSlotBytes = 64 * 1024;

// The PTX spelling of a comparison modifier ("lt", "equ", "nan"), or nullptr.
const char *compareName(ori::Mod m);

// Shared by the integer and predicate emitters (ptx/emit_alu.cpp says what each gives).
int64_t immOf(const Instr &in, size_t i);
std::pair<unsigned, bool> intType(const Instr &in, bool defaultSigned);
std::string typeName(std::pair<unsigned, bool> t);

} // namespace ori::ptx::emit_detail
