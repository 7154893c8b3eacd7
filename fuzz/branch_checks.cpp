// Checks of the branch and switch phases (fuzz/branch_checks.h).
#include "fuzz/branch_checks.h"

#include <fmt/format.h>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {

std::string branchDiff(const Function& f) {
  for (int64_t budget : {int64_t(-1), int64_t(2)}) {
    Function o = f;
    const BranchOptCounts co = optimized::oriBranchOpt(o, budget);
    if (std::vector<std::string> problems = verifyFunction(o); !problems.empty())
      return fmt::format("phase 15 (budget {}) leaves a malformed function: {}", budget, problems.front());
    if (budget >= 0 && co.rewrites() > budget)
      return fmt::format("phase 15 made {} rewrites on a budget of {}", co.rewrites(), budget);
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f;
    const BranchOptCounts cr = reference::oriBranchOpt(r, budget);
    if (std::string d = firstTextDifference(r, o, "reference", "optimized"); !d.empty())
      return fmt::format("phase 15 (budget {}): halves differ: {}", budget, d);
    for (size_t b = 0; b < r.blocks.size(); ++b)
      if (r.blocks[b].labelId != o.blocks[b].labelId)
        return fmt::format("phase 15 (budget {}): label id of bix{} differs", budget, b);
    if (!(cr == co))
      return fmt::format("phase 15 (budget {}): reference made {} rewrites and erased {} blocks, optimized {} and {}",
                         budget, cr.rewrites(), cr.erasedBlocks, co.rewrites(), co.erasedBlocks);
#endif
  }
  return "";
}

std::string branchBehaviour(const Function& f) {
  if (!f.isEntry || f.isDeclaration()) return "";
  Module before;
  before.functions.push_back(f);
  Module after = before;
  optimized::oriBranchOpt(after.functions[0], -1);
  const std::vector<RunConfig> inputs = inputsFor(f, 3, gen::kLaunchBufferBytes);
  for (size_t k = 0; k < inputs.size(); ++k)
    if (std::string d = compareRuns(runKernel(before, inputs[k]), runKernel(after, inputs[k])); !d.empty())
      return fmt::format("after phase 15, input {} (threads {}): {}", k, formatDim3(inputs[k].threads), d);
  return "";
}

} // namespace ori::checks
