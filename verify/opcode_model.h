// Bit-precise Z3 models of the opcodes the interpreter runs
// (docs/verifier.md, "Opcode models"; the meaning of each opcode is the one
// docs/interpreter.md gives, which follows the PTX ISA). Internal to verify/.
//
// One table (kModelTable, verify/model_table.cpp) drives everything: each
// entry names an opcode, its model, the modifier combinations the
// cross-check runs and what kind of value each source takes. Adding an
// opcode means adding one entry.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "verify/smt.h"

namespace ori::verify {

// What one instruction reads, as Z3 terms. Sources are raw: before the
// operand's own `-`, `|..|` and `!` (the model applies those) and before
// truncation to the operation's width.
struct ModelInputs {
  // Per source operand: a 64-bit bit-vector for a register container, an
  // integer immediate (its int64 value) or the bytes a constant bank gives; a
  // Boolean for a predicate. Memory and special-register operands have a
  // placeholder (their value comes from `memory` and the thread below).
  std::vector<z3::expr> srcs;
  z3::expr guard; // the guard register (Boolean, before @!); true without a guard
  std::vector<z3::expr>
      oldDsts;     // destinations before the instruction (kept when the guard is false)
  z3::expr memory; // the 64-bit little-endian word at the address the instruction reaches
  z3::expr tid, ctaid, ntid, nctaid; // the thread (32-bit; x only, y and z are 0 and 1)
};

// What it writes: each destination's value afterwards (a register's 64-bit
// container, a predicate's Boolean), and the memory word afterwards for stores
// and atomics.
struct ModelOutputs {
  std::vector<z3::expr> dsts;
  std::optional<z3::expr> memory;
};

// Fresh symbolic inputs for `in`: s0 s1 ... (sources), g (guard), d0 d1 ...
// (old destinations), mem, tid, ctaid, ntid, nctaid; each name prefixed.
ModelInputs freshInputs(Smt &smt, const Instr &in, const std::string &prefix = "");

// The model of `in` on `x`, guard applied; nullopt if the opcode or this
// modifier combination is not modelled (the interpreter refuses those too).
std::optional<ModelOutputs> modelInstr(Smt &smt, const Instr &in, const ModelInputs &x);

// ---------------------------------------------------------------- the table

// The helper a model function works through: sources as the operation sees
// them (width, `-`, `|..|`, `!` applied).
class ModelContext {
public:
  ModelContext(Smt &smt, const Instr &in, const ModelInputs &x) : smt(smt), in(in), x(x) {}
  Smt &smt;
  const Instr &in;
  const ModelInputs &x;

  bool has(Mod m) const { return in.has(m); }
  std::optional<Mod> mod(ModGroup g) const { return in.mods.inGroup(g); }
  z3::expr intSrc(size_t i, unsigned bits) const; // low `bits` bits, negated mod 2^bits for `-R`
  z3::expr f32Src(size_t i) const;                // 32 bits, `|..|` then `-` on the sign bit
  z3::expr f64Src(size_t i) const;
  z3::expr predSrc(size_t i) const; // `!P` inverted
  z3::expr raw(size_t i) const;     // the raw 64-bit source (immediates)
  z3::expr wide(const z3::expr &v) const { return Smt::zext(v, 64); } // a result into its container
};

using ModelFn = std::optional<ModelOutputs> (*)(ModelContext &);

// The values a source takes in the cross-check.
enum class Domain : uint8_t {
  None,     // no operand in this slot
  Int,      // any 64-bit container; edge cases 0, 1, -1, INT_MIN, INT_MAX (32 and 64 bits)
  Shift,    // shift amounts: 0, 1, 31, 32, 33, 63, 64, 65, huge, random
  Count,    // small signed 32-bit counts and positions (-40..40), INT_MIN, INT_MAX, huge
  F32,      // binary32 patterns: +-0, +-inf, NaNs, denormals, ties, random
  F64,      // binary64 patterns likewise
  Half2,    // two binary16 or bfloat16 patterns in the low 32 bits (either format's edge cases,
            // random)
  Pred,     // a predicate
  Lut,      // an 8-bit immediate truth table
  SmallImm, // an immediate shift count 0..70
  Address,  // a memory operand (the value is the memory word)
  CBank,    // a constant-bank operand (the value is the memory word)
  Special,  // a special register (S2R; the value comes from the thread)
  Window,   // a generic address: the edges of the shared, local and constant windows, random
};

// One modifier axis: its alternatives, each a list of modifiers (possibly
// empty). The combinations an entry runs are the product of its axes.
using Axis = std::vector<std::vector<Mod>>;

struct ModelEntry {
  Opcode op;
  ModelFn model;
  std::vector<Axis> axes;
  // The domain of each source of an instruction with the given modifiers.
  std::vector<Domain> (*domains)(const ModSet &mods);
  // The model is uninterpreted functions of the inputs (the warp-level matrix instructions,
  // whose values come from every lane): the translation validator proves a phase that keeps
  // them and cannot prove one that changes them; the cross-check has nothing to compare and
  // lists the combinations as uninterpreted.
  bool uninterpreted = false;
};

std::span<const ModelEntry> modelTable();
const ModelEntry *findModelEntry(Opcode op);
// Every modifier combination of an entry, in table order.
std::vector<ModSet> combinations(const ModelEntry &e);

// The models by family (verify/model_int.cpp, model_float.cpp, model_mem.cpp).
namespace models {
std::optional<ModelOutputs> mov(ModelContext &);
std::optional<ModelOutputs> iadd3(ModelContext &);
std::optional<ModelOutputs> sel(ModelContext &);
std::optional<ModelOutputs> imad(ModelContext &);
std::optional<ModelOutputs> lop3(ModelContext &);
std::optional<ModelOutputs> plop3(ModelContext &);
std::optional<ModelOutputs> shl(ModelContext &);
std::optional<ModelOutputs> shr(ModelContext &);
std::optional<ModelOutputs> shf(ModelContext &);
std::optional<ModelOutputs> imnmx(ModelContext &);
std::optional<ModelOutputs> lea(ModelContext &);
std::optional<ModelOutputs> isetp(ModelContext &);
std::optional<ModelOutputs> s2r(ModelContext &);
std::optional<ModelOutputs> sgxt(ModelContext &);
std::optional<ModelOutputs> prmt(ModelContext &);
std::optional<ModelOutputs> popc(ModelContext &);
std::optional<ModelOutputs> brev(ModelContext &);
std::optional<ModelOutputs> flo(ModelContext &);
std::optional<ModelOutputs> idivRem(ModelContext &); // IDIV IREM
std::optional<ModelOutputs> iaddc(ModelContext &);   // verify/model_intops.cpp
std::optional<ModelOutputs> idp(ModelContext &);
std::optional<ModelOutputs> i2ip(ModelContext &);
std::optional<ModelOutputs> bmsk(ModelContext &);
std::optional<ModelOutputs> fns(ModelContext &);
std::optional<ModelOutputs> fArith(ModelContext &); // FADD FMUL FFMA
std::optional<ModelOutputs> dArith(ModelContext &); // DADD DMUL DFMA
std::optional<ModelOutputs> fmnmx(ModelContext &);
std::optional<ModelOutputs> fsetp(ModelContext &); // FSETP DSETP
std::optional<ModelOutputs> i2f(ModelContext &);
std::optional<ModelOutputs> f2i(ModelContext &);
std::optional<ModelOutputs> dmnmx(ModelContext &);
std::optional<ModelOutputs> vote(ModelContext &); // one-thread warps
std::optional<ModelOutputs> f2f(ModelContext &);
std::optional<ModelOutputs> frnd(ModelContext &);
std::optional<ModelOutputs> mufu(ModelContext &);
std::optional<ModelOutputs> fdivSqrt(ModelContext &); // FDIV FSQRT
std::optional<ModelOutputs> half2(ModelContext &);    // HADD2 HMUL2 HFMA2
std::optional<ModelOutputs> hmnmx2(ModelContext &);
std::optional<ModelOutputs> hsetp2(ModelContext &); // HSETP2 HSET2
std::optional<ModelOutputs> f2fp(ModelContext &);
std::optional<ModelOutputs> load(ModelContext &);     // LD LDG LDS LDL LDC
std::optional<ModelOutputs> store(ModelContext &);    // ST STG STS STL
std::optional<ModelOutputs> atomic(ModelContext &);   // ATOM ATOMG ATOMS RED REDG
std::optional<ModelOutputs> noEffect(ModelContext &); // MEMBAR FENCE NANOSLEEP CCTL
std::optional<ModelOutputs> qspc(ModelContext &);
std::optional<ModelOutputs> createpolicy(ModelContext &);
// verify/model_matrix.cpp
std::optional<ModelOutputs> uninterpretedWarp(ModelContext &); // HMMA IMMA DMMA BMMA MOVM
std::optional<ModelOutputs> elect(ModelContext &);
} // namespace models

// ISETP/FSETP/DSETP: p = r BOOL c, q = !r BOOL c (BOOL .AND when absent).
ModelOutputs predicatePair(ModelContext &m, const z3::expr &r, const z3::expr &c);

} // namespace ori::verify
