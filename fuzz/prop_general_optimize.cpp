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
  if (std::string d = checks::generalOptimizeDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(GeneralOptimizeProps, HalvesAgreeOnArbitraryFunctions, ()) {
  const Function f = *gen::function();
  if (std::string d = checks::generalOptimizeDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(GeneralOptimizeProps, BehaviourUnchanged, ()) {
  const Function f = *gen::kernel(gen::kCleanupKernels);
  if (std::string d = checks::generalOptimizeBehaviour(f); !d.empty())
    RC_FAIL(d);
}

// --fold=evaluate (rules/general_optimize_evaluate.h): the halves agree and behaviour is kept
// with evaluate on, on kernels with constants and identities (kEvaluateKernels).
RC_GTEST_PROP(GeneralOptimizeProps, EvaluateHalvesAgree, ()) {
  const Function f = *gen::kernel(gen::kEvaluateKernels);
  Function g = f;
  GeneralOptimizeOptions o;
  o.evaluate = true;
  const GeneralOptimizeResult r = optimized::generalOptimize(g, o);
  RC_CLASSIFY(r.counts.evaluated > 0, "29 evaluated");
  if (std::string d = checks::generalOptimizeDiff(f, true); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(GeneralOptimizeProps, EvaluateBehaviourUnchanged, ()) {
  const Function f = *gen::kernel(gen::kEvaluateKernels);
  if (std::string d = checks::generalOptimizeBehaviour(f, true); !d.empty())
    RC_FAIL(d);
}

// The evaluate rules fire on a fair share of the generated kernels (at least 40% of 200,
// at sizes 0..99 as orifuzz draws them), and never without --fold=evaluate.
TEST(GeneralOptimizeProps, EvaluateRulesFireOnAFairShare) {
  int fired = 0, withoutFlag = 0;
  const int runs = 200;
  for (int run = 0; run < runs; ++run) {
    rc::Random random(rc::Random::Key{7, uint64_t(run), 0, 0});
    const Function f = gen::kernel(gen::kEvaluateKernels)(random, run % 100).value();
    GeneralOptimizeOptions o;
    Function plain = f;
    withoutFlag += optimized::generalOptimize(plain, o).counts.evaluated > 0;
    o.evaluate = true;
    Function g = f;
    fired += optimized::generalOptimize(g, o).counts.evaluated > 0;
  }
  EXPECT_GE(fired, runs * 40 / 100) << fired << " of " << runs;
  EXPECT_EQ(withoutFlag, 0);
}

} // namespace
} // namespace ori
