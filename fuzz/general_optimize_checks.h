// Checks of the GeneralOptimize phases 13, 29 and 58 (reference/ and optimized/
// general_optimize*.cpp), shared by orifuzz (`go-diff`, `go-behaviour`, `go-proof`)
// and the properties of fuzz/prop_general_optimize.cpp. Each returns "" when it holds,
// else one line naming the first problem.
#pragma once

#include <string>

#include "ir/ir.h"

namespace ori::checks {

// Each check takes `evaluate`: phase 29 with --fold=evaluate (GeneralOptimizeOptions::evaluate)
// everywhere it runs; the go-eval-* checks of orifuzz.

// Phases 13 (unbounded and on a budget of 1), 29 (on sm_50, sm_60 and sm_90, with and
// without limit-fold-fp) and 58 (with and without knob 605) from both halves give the
// same function (text and label ids), counts and fold marks; each result passes
// verifyFunction; phase 29 run again finds no use to replace and no SEL or guard to
// simplify (unless the first run stopped at kGeneralOptimizeRounds); phase 13 within its
// budget.
std::string generalOptimizeDiff(const Function &f, bool evaluate = false);
// The interpreter gives the same result before and after phases 13, 29, 58 and
// 13+29+58 on three launch inputs (fuzz/dce_checks.h inputsFor).
std::string generalOptimizeBehaviour(const Function &f, bool evaluate = false);
// The translation validator never refutes what phases 13, 29 and 58 make of the
// function (a refutation is a failure; unknown is not).
std::string generalOptimizeProof(const Function &f, bool evaluate = false);

} // namespace ori::checks
