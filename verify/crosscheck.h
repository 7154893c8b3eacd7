// The cross-check of the Z3 opcode models against the interpreter
// (docs/verifier.md, "Cross-check"): for every opcode and modifier
// combination of the model table, random and edge-case inputs run through
// the interpreter (in a harness kernel, one thread per input) and through
// the model evaluated on constants; every difference is a mismatch that
// names the instruction and its inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "verify/model_eval.h"

namespace ori::verify {

struct CrossCheckOptions {
  uint64_t seed = 1;
  uint64_t samples = 10000;   // inputs per opcode/modifier combination
  std::string only;           // a combination name ("FADD.RZ.FTZ") glob or substring; empty: all
  size_t keepMismatches = 20; // mismatch descriptions kept in the report
};

struct CombinationResult {
  std::string name; // opcode and modifiers as printed: "ISETP.LT.U32.OR"
  uint64_t samples = 0, mismatches = 0;
};

struct CrossCheckReport {
  std::vector<CombinationResult> combinations;
  std::vector<std::string> mismatches; // the first keepMismatches, with instruction and inputs
  uint64_t samples = 0, mismatchCount = 0;
  // Combinations whose model is uninterpreted functions (ModelEntry::uninterpreted: the
  // warp-level matrix instructions): not compared, named here.
  std::vector<std::string> uninterpreted;
};

// `progress` (may be empty) is called after each combination.
CrossCheckReport crossCheck(const CrossCheckOptions &opts,
                            const std::function<void(const CombinationResult &)> &progress = {});

// The interpreter's view of one instruction on one input (the harness with a
// single thread; S2R runs ntid x nctaid threads, all given the same inputs,
// and reports the thread x.tid of CTA x.ctaid). `in` must use the harness's
// registers: sources R10, R11, R12 / P1, P2, P3 by position, destinations R20
// or P4, P5, guard P0; memory operands as makeSubject builds them. nullopt
// with *error set when the run does not end ok.
std::optional<ConcreteOutputs> interpretOne(const Instr &in, const ConcreteInputs &x,
                                            std::string *error);

// The harness instruction for opcode `op` with modifiers `mods`: registers as
// interpretOne expects; immediates and the special register from x.srcs;
// operand flags and the guard's polarity from `pattern` (0..127): bit i
// gives source i `-` (IADD3) or `!` (predicates), bits 2i and 2i+1 give
// float source i `-` and `|..|`, bit 6 makes the guard @!P0. Pattern 0: no flags.
Instr makeSubject(Opcode op, const ModSet &mods, unsigned pattern, const ConcreteInputs &x);

// interpretOne and the model on the same input: "" if they agree, otherwise a
// description naming the instruction, its inputs and both results.
std::string compareOne(ModelEvaluator &model, const Instr &in, const ConcreteInputs &x);

} // namespace ori::verify
