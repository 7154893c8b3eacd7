// Checks of phase 37 GeneralOptimizeMid and its ConvertMemoryToRegisterOrUniform
// (reference/ and optimized/ convert_memory_to_register.cpp, general_optimize_mid.cpp),
// shared by orifuzz (`mid-diff`, `mid-behaviour`, `mid-proof`) and the properties of
// fuzz/prop_convert_memory_to_register.cpp. Each returns "" when it holds, else one line
// naming the first problem.
#pragma once

#include <string>

#include "ir/ir.h"
#include "rules/convert_memory_to_register.h"

namespace ori::checks {

// The cost-model settings the checks run: the defaults, every slot promoted (knob 136 at
// 1.5), and a convergence override (knob 135 = 2) with the MOV weight at 1 (knob 474).
MemToRegOptions memToRegOptions(int variant);
inline constexpr int kMemToRegVariants = 3;

// ConvertMemoryToRegister alone and phase 37 (each variant) from both halves give the same
// function (text and label ids) and counts; each result passes verifyFunction; no load or
// store of a promoted slot is left (each promotion replaced all its accesses); phase 37 run
// again promotes nothing (unless the first run stopped at kMidRounds).
std::string memToRegDiff(const Function &f);
// The interpreter gives the same result before and after ConvertMemoryToRegister and phase 37
// (defaults, and every slot promoted) on three launch inputs (fuzz/dce_checks.h inputsFor).
// *compared (if given) counts the runs compared (compareRuns) of changed functions.
std::string memToRegBehaviour(const Function &f, size_t *compared = nullptr);
// The translation validator never refutes what they make of the function.
std::string memToRegProof(const Function &f);

} // namespace ori::checks
