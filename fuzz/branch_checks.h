// Checks of the branch and switch phases (phase 15 OriBranchOpt so far),
// shared by orifuzz (`branch-diff`, `branch-behaviour`). Each returns "" when
// it holds, else one line naming the first problem.
#pragma once

#include <string>

#include "ir/ir.h"

namespace ori::checks {

// Phase 15 from both halves gives the same function (text and label ids) and
// the same counts; the result passes verifyFunction; a budget of k rewrites
// makes at most k.
std::string branchDiff(const Function& f);
// The interpreter gives the same result before and after phase 15 on three
// launch inputs derived from the kernel (fuzz/dce_checks.h inputsFor).
std::string branchBehaviour(const Function& f);

} // namespace ori::checks
