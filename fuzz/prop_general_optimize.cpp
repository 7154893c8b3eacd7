// Properties of the GeneralOptimize phases 13, 29 and 58 (reference/ and optimized/
// general_optimize*.cpp) through fuzz/general_optimize_checks.h: the halves agree
// (text, label ids, counts, fold marks) and the interpreter sees the same behaviour,
// on kernels made to give each rule work (fuzz/kernel_gen.h kCleanupKernels). The
// classifications show that each rule fires in a good share of the runs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/general_optimize_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "optimized/optimized.h"

namespace ori {
namespace {

RC_GTEST_PROP(GeneralOptimizeProps, HalvesAgree, ()) {
  const Function f = *gen::kernel(gen::kCleanupKernels);
  Function g = f;
  const GeneralOptimizeResult r = optimized::generalOptimize(g, GeneralOptimizeOptions{});
  Function e = f;
  const EarlyOptimizeCounts ce = optimized::generalOptimizeEarly(e, -1);
  Function l = f;
  const LateOptimizeCounts cl = optimized::generalOptimizeLate(l, false);
  RC_CLASSIFY(r.counts.usesReplaced > 0, "29 replaced a use");
  RC_CLASSIFY(r.counts.selectsToCopies > 0, "29 made a SEL a copy");
  RC_CLASSIFY(r.counts.guardsResolved > 0, "29 resolved a guard");
  RC_CLASSIFY(r.counts.removed > 0, "29 removed a copy");
  RC_CLASSIFY(ce.branchesDeleted + ce.branchesUnconditional > 0, "13 rewrote a branch");
  RC_CLASSIFY(cl.movesMerged > 0, "58 merged a move");
  if (std::string d = checks::generalOptimizeDiff(f); !d.empty()) RC_FAIL(d);
}

RC_GTEST_PROP(GeneralOptimizeProps, HalvesAgreeOnArbitraryFunctions, ()) {
  const Function f = *gen::function();
  if (std::string d = checks::generalOptimizeDiff(f); !d.empty()) RC_FAIL(d);
}

RC_GTEST_PROP(GeneralOptimizeProps, BehaviourUnchanged, ()) {
  const Function f = *gen::kernel(gen::kCleanupKernels);
  if (std::string d = checks::generalOptimizeBehaviour(f); !d.empty()) RC_FAIL(d);
}

} // namespace
} // namespace ori
