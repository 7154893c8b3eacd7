// Properties of phase 38 OptimizeNestedCondBranches (reference/ and optimized/
// optimize_nested_cond_branches.cpp) through fuzz/branch_checks.h:
//  - reference == optimized (text, label ids, counts), a fixed point, one block and one BRA
//    fewer per combination, on random terminating kernels (with && and || chains), on random
//    CFGs with predicate traffic (irreducible loops, self loops, unreachable blocks, PLOP3)
//    and on ori_gen's arbitrary functions;
//  - the interpreter's result is unchanged, with lanes of a warp that disagree.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/branch_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "optimized/optimized.h"

namespace ori {
namespace {

uint32_t combinations(const Function &f) {
  Function g = f;
  return optimized::optimizeNestedCondBranches(g).combined;
}

RC_GTEST_PROP(NestedCondProps, HalvesAgreeOnKernels, ()) {
  Function f = *gen::kernel();
  RC_CLASSIFY(combinations(f) > 0, "combined something");
  if (std::string d = checks::nestedCondDiff(f); !d.empty())
    RC_FAIL(d);
}

// Irreducible loops, self loops and unreachable blocks: for robustness (about 0.3% combine).
RC_GTEST_PROP(NestedCondProps, HalvesAgreeOnCfgsWithRegisters, ()) {
  Function f = *gen::cfgWithRegisters();
  RC_CLASSIFY(combinations(f) > 0, "combined something");
  if (std::string d = checks::nestedCondDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(NestedCondProps, HalvesAgreeOnArbitraryFunctions, ()) {
  Function f = *gen::function();
  if (std::string d = checks::nestedCondDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(NestedCondProps, KeepsTheInterpretersResult, ()) {
  Function f = *gen::kernel();
  RC_CLASSIFY(combinations(f) > 0, "combined something");
  if (std::string d = checks::nestedCondBehaviour(f); !d.empty())
    RC_FAIL(d);
}

} // namespace
} // namespace ori
