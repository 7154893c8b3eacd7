// --fold=evaluate (docs/general-optimize.md, "Beyond ptxas: --fold=evaluate"): the constant
// folding and algebraic identities the GeneralOptimize suite (phases 29, 46, 65;
// rules/general_optimize.h) applies when asked to, beyond what ptxas's suite does (spec/002
// leaves them to its peephole pass). The rules are here once, so that they mean the same in both
// halves and in the proofs (verify/obligations_evaluate.cpp: go.evaluate.*); the arithmetic is
// not: every value, and every truth-table composition, is the interpreter's
// (interp/evaluate.h, evaluateConstant), which the opcode models are cross-checked against.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace ori {

// The rule families (EvaluateRewrite::rule).
enum class EvaluateRule : uint8_t {
  Fold,  // every source constant: the result's MOV (proved by go.evaluate.fold)
  Iadd3, // x+0, x-x: zero terms dropped (RZ), a single plain term a MOV (go.evaluate.iadd3)
  Imad,  // x*0+c = c, x*1+0 = x, x*1+c = IADD3 x, c (go.evaluate.imad)
  Shift, // SHL/SHR by 0 = x, by the width or more (logical) = 0 (go.evaluate.shift)
  Lop3,  // LUT algebra: constant (0 or ~0) and repeated inputs folded into the LUT,
         // inputs the LUT ignores dropped (RZ); one input left as is: a MOV (go.evaluate.lop3)
  Isetp, // both sides constant, or x against itself: a PLOP3 of the third predicate
         // (go.evaluate.isetp)
  Plop3, // PT/!PT and repeated inputs folded into the LUTs, ignored inputs dropped (PT)
         // (go.evaluate.plop3)
};
const char *evaluateRuleName(EvaluateRule r);

struct EvaluateRewrite {
  Instr instr; // what replaces the instruction
  EvaluateRule rule;
  // Sources of the original whose register had a known value (`known`) that the
  // replacement used and no longer reads: the copies that gave those values
  // have one use fewer.
  std::vector<size_t> consumed;
};

// The rewrite --fold=evaluate makes of `in` (unguarded; an IADD3, IMAD, LOP3,
// PLOP3, SHF, SHL, SHR, IMNMX, LEA, ISETP, SGXT, PRMT, POPC, FLO or BREV
// writing a register of file R or predicates), or nullopt if none applies or the
// rewrite would give `in` back. known[k], when set, is the value source k's
// register holds at `in` (the copy that reaches it): for a general register an
// integer immediate (the 64-bit container) or RZ; for a predicate PT or !PT.
// known may be empty (nothing known). An instruction whose opcode or modifiers
// the interpreter does not run (evaluateConstant refuses them) is never folded.
std::optional<EvaluateRewrite> evaluateRewrite(const Instr &in,
                                               const std::vector<std::optional<Operand>> &known);

// The instruction that leaves `container` in register d: `MOV d, v` when it fits
// in 32 bits (a 32-bit MOV zero-extends), else `MOV.64 d, v`.
Instr materializeConstant(const Operand &d, uint64_t container);

// The truth-table algebra of rules/lut.h, computed by running LOP3 in the interpreter on the
// canonical tables (0xF0, 0xCC, 0xAA): the LUT of F(x, y, z) where x, y, z are 8-bit tables.
std::optional<uint8_t> lutApply(uint8_t lut, uint8_t x, uint8_t y, uint8_t z);

} // namespace ori
