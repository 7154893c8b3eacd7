// Checks of the branch phases (phase 15 OriBranchOpt, phase 38 OptimizeNestedCondBranches),
// shared by orifuzz (`branch-diff`, `branch-behaviour`). Each returns "" when
// it holds, else one line naming the first problem.
#pragma once

#include <string>

#include "ir/ir.h"

namespace ori::checks {

// Phase 15 from both halves gives the same function (text and label ids) and
// the same counts; the result passes verifyFunction; a budget of k rewrites
// makes at most k.
std::string branchDiff(const Function &f);
// The interpreter gives the same result before and after phase 15 on three
// launch inputs derived from the kernel (fuzz/dce_checks.h inputsFor).
std::string branchBehaviour(const Function &f);

// Phase 38 OptimizeNestedCondBranches from both halves gives the same function (text and
// label ids) and counts; the result passes verifyFunction; a second run combines nothing
// (the phase runs to a fixed point); each combination removes one block and one BRA.
std::string nestedCondDiff(const Function &f);
// The interpreter gives the same result before and after phase 38 on three launch inputs
// (fuzz/dce_checks.h inputsFor: a few threads, a warp, or warps whose lanes disagree).
std::string nestedCondBehaviour(const Function &f);
// Every combination phase 38 makes is proved when it is made (verify/nested_cond_check.h):
// a refutation or an unknown is a failure.
std::string nestedCondProof(const Function &f);

} // namespace ori::checks
