// Phase 37's totals (rules/general_optimize_mid.h addMidRound): every count of every round is
// summed, --fold=evaluate's `evaluated` included (issue 41: it was left out, and since both halves
// call addMidRound, --impl=both could not see it).
#include <gtest/gtest.h>

#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "rules/general_optimize_mid.h"

namespace ori {
namespace {

GeneralOptimizeResult suiteRound(uint32_t k) {
  GeneralOptimizeResult r;
  r.counts = {.usesReplaced = k,
              .selectsToCopies = k + 1,
              .guardsResolved = k + 2,
              .removed = k + 3,
              .rounds = 2,
              .evaluated = k + 4};
  r.marks.push_back(
      FoldMark{.bix = 0, .index = k, .dst = 0, .mask = kFoldPropagated, .uses = 1, .round = 1});
  return r;
}

TEST(GeneralOptimizeMid, AddMidRoundSumsEveryCount) {
  MidOptimizeResult total;
  MemToRegCounts promoted;
  promoted.slotsPromoted = 1;
  promoted.loadsReplaced = 2;
  promoted.cost = 0.5;
  addMidRound(total, promoted, suiteRound(1));
  addMidRound(total, promoted, suiteRound(10));
  // By hand: the suite counts of rounds k = 1 and k = 10 summed (k, k+1, k+2, k+3, k+4).
  const GeneralOptimizeCounts &c = total.suite.counts;
  EXPECT_EQ(c.usesReplaced, 11u);
  EXPECT_EQ(c.selectsToCopies, 13u);
  EXPECT_EQ(c.guardsResolved, 15u);
  EXPECT_EQ(c.removed, 17u);
  EXPECT_EQ(c.evaluated, 19u);
  EXPECT_EQ(c.rounds, 4u); // two suite rounds in each phase-37 round
  EXPECT_EQ(total.rounds, 2u);
  EXPECT_EQ(total.memToReg.slotsPromoted, 2u);
  EXPECT_EQ(total.memToReg.loadsReplaced, 4u);
  EXPECT_DOUBLE_EQ(total.memToReg.cost, 1.0);
  // The second round's mark is renumbered past the first round's two suite rounds.
  ASSERT_EQ(total.suite.marks.size(), 2u);
  EXPECT_EQ(total.suite.marks[0].round, 1u);
  EXPECT_EQ(total.suite.marks[1].round, 3u);
}

// End to end: with --fold=evaluate, phase 37's suite folds IADD3 R1, R0, 0x3, RZ into MOV R1, 0x5
// once the copy MOV R0, 0x2 reaches it, and the phase's total counts it, in both halves.
TEST(GeneralOptimizeMid, EvaluatedCountsReachTheTotal) {
  const char *text = R"(.entry k(.u64 out)
{
  MOV R0, 0x2
  IADD3 R1, R0, 0x3, RZ
  MOV.64 R2, c[0x0][0x210]
  STG.E [R2], R1
  EXIT
}
)";
  for (int half = 0; half < 2; ++half) {
    ParseResult p = parseOri(text, "k.ori");
    ASSERT_TRUE(p.module) << p.error->message;
    MemToRegOptions o;
    o.suite.evaluate = true;
    Function &f = p.module->functions[0];
    const MidOptimizeResult r =
        half ? optimized::generalOptimizeMid(f, o) : reference::generalOptimizeMid(f, o);
    EXPECT_GE(r.suite.counts.evaluated, 1u) << (half ? "optimized" : "reference");
  }
}

} // namespace
} // namespace ori
