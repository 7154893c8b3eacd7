// DoSwitchOpt (phases 14, 30) and ExpandJmxComputation (80) on random switch
// kernels (fuzz/switch_gen.h): the halves agree, behaviour is kept for every
// interesting selector, the switch-dispatch checker proves each lowering from
// the IR, wrong lowerings made from each real one are refuted; and over
// the run every strategy is taken, or the property proves little.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "fuzz/switch_checks.h"
#include "fuzz/switch_gen.h"

namespace ori {
namespace {

TEST(SwitchOptProps, HalvesAgreeBehaviourKeptEveryLoweringProvedEveryStrategyTaken) {
  SwitchOptCounts total;
  uint32_t mutantsMade = 0;
  const bool ok = rc::check("phases 14/30/80 on random switch kernels", [&] {
    const Function f = *gen::switchKernel();
    SwitchOptCounts c;
    const std::string diff = checks::switchDiff(f, &c);
    RC_ASSERT(diff == "");
    const std::string behaviour = checks::switchBehaviour(f);
    RC_ASSERT(behaviour == "");
    const std::string proof = checks::switchProof(f);
    RC_ASSERT(proof == "");
    uint32_t made = 0;
    const std::string mutants = checks::switchMutants(f, &made);
    RC_ASSERT(mutants == "");
    mutantsMade += made;
    total.switches += c.switches;
    total.keptSmall += c.keptSmall;
    total.keptShallow += c.keptShallow;
    total.jumpTables += c.jumpTables;
    total.bsts += c.bsts;
    total.bitTests += c.bitTests;
    total.reordered += c.reordered;
    total.erasedBlocks += c.erasedBlocks;
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(total.keptSmall, 0u);
  EXPECT_GT(total.keptShallow, 0u);
  EXPECT_GT(total.jumpTables, 0u);
  EXPECT_GT(total.bsts, 0u);
  EXPECT_GT(total.bitTests, 0u);  // switchDiff's run with bit tests
  EXPECT_GT(total.reordered, 0u); // and its run with a profile
  EXPECT_GT(total.erasedBlocks, 0u);
  EXPECT_GT(mutantsMade, 0u); // wrong lowerings were built (and each refuted)
}

} // namespace
} // namespace ori
