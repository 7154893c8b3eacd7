// The interpreter's semantics of one instruction whose sources are all
// constants (docs/general-optimize.md, "--fold=evaluate"). The transform
// phases' constant folding asks this, so an opcode's arithmetic is defined in
// one place, the interpreter's (interp/interp_alu.cpp), which the opcode models
// of verify/ are cross-checked against.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace ori {

// The opcodes evaluateConstant runs (and --fold=evaluate folds, rules/general_optimize_evaluate.h):
// integer and predicate arithmetic without memory or side effects.
bool evaluatedOpcode(Opcode op);

// Whether operand `o` is a constant evaluateConstant reads: an integer
// immediate, RZ/URZ, PT/UPT (with or without `!`).
bool isConstantOperand(const Operand &o);

// What an unguarded integer, logic or predicate instruction (IADD3, IMAD in every
// form, LOP3, PLOP3, SHF, SHL, SHR, IMNMX, LEA, ISETP, SGXT, PRMT, POPC, FLO,
// BREV) whose sources are all constants (isConstantOperand) writes: per
// destination, the 64-bit container (general registers) or 0/1 (predicates);
// constant destinations (RZ, PT) get 0. nullopt for anything else, and where the
// interpreter refuses the instruction (a missing modifier, a malformed operand).
std::optional<std::vector<uint64_t>> evaluateConstant(const Instr &in);

} // namespace ori
