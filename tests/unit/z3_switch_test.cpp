// The switch-dispatch checker (verify/switch_dispatch.h) on hand-made
// lowerings: three correct ones proved for all 32-bit selectors, three wrong
// ones refuted at a selector derived by hand (each wrong lowering here
// differs from its cascade at exactly one selector or one derived range).
#include <gtest/gtest.h>

#include "verify/switch_dispatch.h"

namespace ori {
namespace {

using verify::DispatchCmp;
using verify::DispatchProgram;

// switch (sel) { case 10: A(1); case 11: B(2); case 13: C(3); default: D(7) }
DispatchProgram reference() { return verify::cascade({{10, 1}, {11, 2}, {13, 3}}, 7); }

// v = sel - 10; v <u bound (or <= / signed) guards table [1, 2, gap, 3].
DispatchProgram jumpTable(DispatchCmp cmp, uint32_t bound, bool isSigned, uint32_t gap) {
  DispatchProgram p;
  uint32_t deflt = p.target(7);
  uint32_t table = p.table(10, {1, 2, gap, 3});
  p.compare(cmp, isSigned, bound, table, deflt, 10);
  return p;
}

TEST(Z3Switch, ConcreteEvaluation) {
  DispatchProgram ref = reference();
  EXPECT_EQ(verify::dispatchTarget(ref, 10), 1u);
  EXPECT_EQ(verify::dispatchTarget(ref, 13), 3u);
  EXPECT_EQ(verify::dispatchTarget(ref, 12), 7u);
  DispatchProgram unchecked;
  unchecked.table(10, {1, 2, 7, 3});
  EXPECT_EQ(verify::dispatchTarget(unchecked, 14), verify::kFaultTarget); // v = 4 is past the table
  EXPECT_EQ(verify::dispatchTarget(unchecked, 9), verify::kFaultTarget);  // v = 2^32 - 1
}

TEST(Z3Switch, JumpTableWithBoundsCheckAndDefaultFillIsProved) {
  verify::DispatchCheck c =
      verify::checkDispatch(reference(), jumpTable(DispatchCmp::LT, 4, false, 7));
  EXPECT_TRUE(c.equivalent) << c.error;
  EXPECT_TRUE(c.error.empty()) << c.error;
}

// Unsigned BST: pivot 11 splits {10} | {11, 13}; leaves test equality.
TEST(Z3Switch, BalancedBstIsProved) {
  DispatchProgram p;
  uint32_t d = p.target(7);
  uint32_t left = p.compare(DispatchCmp::EQ, false, 10, p.target(1), d);
  uint32_t r13 = p.compare(DispatchCmp::EQ, false, 13, p.target(3), d);
  uint32_t right = p.compare(DispatchCmp::EQ, false, 11, p.target(2), r13);
  p.compare(DispatchCmp::LT, false, 11, left, right);
  EXPECT_TRUE(verify::checkDispatch(reference(), p).equivalent);
}

// case 1, 4, 6: A(1); case 3, 31: B(2); default D(7): masks 0x52 and
// 0x80000008 on bit = 1 << sel, no range check at all (SHL gives 0 from 32 up).
TEST(Z3Switch, BitTestClustersAreProved) {
  DispatchProgram ref = verify::cascade({{1, 1}, {4, 1}, {6, 1}, {3, 2}, {31, 2}}, 7);
  DispatchProgram p;
  uint32_t d = p.target(7);
  p.bitTest(0, {{0x52, p.target(1)}, {0x80000008u, p.target(2)}}, d);
  EXPECT_TRUE(verify::checkDispatch(ref, p).equivalent);
}

// v <=u 4 lets v = 4 (sel = 14) read past the 4-entry table: BRX faults
// where the cascade goes to the default. Every other selector agrees.
TEST(Z3Switch, OffByOneBoundIsRefutedAtTheFirstSelectorPastTheTable) {
  verify::DispatchCheck c =
      verify::checkDispatch(reference(), jumpTable(DispatchCmp::LE, 4, false, 7));
  ASSERT_FALSE(c.equivalent);
  ASSERT_TRUE(c.selector) << c.error;
  EXPECT_EQ(*c.selector, 14u);
  EXPECT_EQ(c.referenceTarget, 7u);
  EXPECT_EQ(c.candidateTarget, verify::kFaultTarget);
}

// Cases 5: A(1) and 0x80000000: B(2), default D(0), as a BST with pivot 6.
// A signed compare sends 0x80000000 (negative) left, where only 5 matches:
// it reaches the default instead of B. Every other selector agrees (left
// and right both test equality against their own case only).
TEST(Z3Switch, SignedUnsignedMixUpIsRefutedAtTheHighCase) {
  DispatchProgram ref = verify::cascade({{5, 1}, {0x80000000u, 2}}, 0);
  auto bst = [](bool isSigned) {
    DispatchProgram p;
    uint32_t d = p.target(0);
    uint32_t left = p.compare(DispatchCmp::EQ, false, 5, p.target(1), d);
    uint32_t right = p.compare(DispatchCmp::EQ, false, 0x80000000u, p.target(2), d);
    p.compare(DispatchCmp::LT, isSigned, 6, left, right);
    return p;
  };
  EXPECT_TRUE(verify::checkDispatch(ref, bst(false)).equivalent);
  verify::DispatchCheck c = verify::checkDispatch(ref, bst(true));
  ASSERT_FALSE(c.equivalent);
  ASSERT_TRUE(c.selector) << c.error;
  EXPECT_EQ(*c.selector, 0x80000000u);
  EXPECT_EQ(c.referenceTarget, 2u);
  EXPECT_EQ(c.candidateTarget, 0u);
}

// The gap slot (v = 2, sel = 12) left as block 0 instead of the default 7.
TEST(Z3Switch, MissingGapFillIsRefutedAtTheGap) {
  verify::DispatchCheck c =
      verify::checkDispatch(reference(), jumpTable(DispatchCmp::LT, 4, false, 0));
  ASSERT_FALSE(c.equivalent);
  ASSERT_TRUE(c.selector) << c.error;
  EXPECT_EQ(*c.selector, 12u);
  EXPECT_EQ(c.referenceTarget, 7u);
  EXPECT_EQ(c.candidateTarget, 0u);
}

// A signed bound check lets v >= 2^31 through: sel = v + 10 for those v,
// i.e. 0x8000000a..0xffffffff and 0..9 wrapped (v = sel - 10 mod 2^32).
TEST(Z3Switch, SignedBoundIsRefutedInTheNegativeRange) {
  verify::DispatchCheck c =
      verify::checkDispatch(reference(), jumpTable(DispatchCmp::LT, 4, true, 7));
  ASSERT_FALSE(c.equivalent);
  ASSERT_TRUE(c.selector) << c.error;
  uint32_t v = *c.selector - 10;
  EXPECT_GE(v, 0x80000000u);
  EXPECT_EQ(c.candidateTarget, verify::kFaultTarget);
}

// The bound as a precondition: `sel <u 10` to the default, else the table
// [1, 2, 7, 3] at bias 10 with no upper check. It agrees with the cascade on
// 0..13 and faults on every sel >= 14 (v >= 4). For selectors <= 13: proved;
// <= 14: refuted at 14, the only one; no bound: refuted at some sel >= 14.
TEST(Z3Switch, DispatchBoundIsAPrecondition) {
  DispatchProgram p;
  uint32_t d = p.target(7);
  uint32_t table = p.table(10, {1, 2, 7, 3});
  p.compare(DispatchCmp::LT, false, 10, d, table);
  verify::DispatchCheck c = verify::checkDispatch(reference(), p, 13);
  EXPECT_TRUE(c.equivalent) << c.error;
  c = verify::checkDispatch(reference(), p, 14);
  ASSERT_TRUE(c.selector) << c.error;
  EXPECT_EQ(*c.selector, 14u);
  EXPECT_EQ(c.referenceTarget, 7u);
  EXPECT_EQ(c.candidateTarget, verify::kFaultTarget);
  c = verify::checkDispatch(reference(), p);
  ASSERT_TRUE(c.selector) << c.error;
  EXPECT_GE(*c.selector, 14u);
  EXPECT_EQ(c.candidateTarget, verify::kFaultTarget);
}

TEST(Z3Switch, ExamplesForOriverify) {
  auto examples = verify::switchExamples();
  ASSERT_EQ(examples.size(), 6u);
  size_t correct = 0;
  for (const auto &e : examples) {
    verify::DispatchCheck c = verify::checkDispatch(e.reference, e.candidate);
    EXPECT_EQ(c.equivalent, e.equivalent) << e.name << " " << c.error;
    correct += e.equivalent;
  }
  EXPECT_EQ(correct, 3u);
}

TEST(Z3Switch, InvalidProgramsAreReported) {
  DispatchProgram forward;
  forward.compare(DispatchCmp::EQ, false, 1, 1, 0); // refers to itself and beyond
  forward.target(1);
  verify::DispatchCheck c = verify::checkDispatch(reference(), forward);
  EXPECT_FALSE(c.equivalent);
  EXPECT_NE(c.error.find("candidate: node 0"), std::string::npos) << c.error;
  EXPECT_NE(verify::validate(DispatchProgram{}), "");
  DispatchProgram emptyTable;
  emptyTable.table(0, {});
  EXPECT_NE(verify::validate(emptyTable), "");
}

} // namespace
} // namespace ori
