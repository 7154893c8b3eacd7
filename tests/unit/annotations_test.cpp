// AnalyzeControlFlow (phase 3, spec/001) of both halves (reference/ and
// optimized/ analyze_control_flow.cpp) on small hand-analysed .ori functions,
// plus the phase-3 wrapper's gate: one typed suite, run once per half.
// Every expected value is derived by hand in the comment above it from the
// definitions in ir/facts.h (BlockAnnotation, AnnotationFacts):
//   RPONum = 1 + the DFS RPO index (successors in successor order: taken
//   target, then fall-through; BRX table order), 0 = unreachable;
//   backedge u -> v when RPONum(v) <= RPONum(u); LOOP_HEADER (0x10) = a
//   backedge target; HAS_PRED (0x20) = a predecessor with a smaller RPONum;
//   ANALYSIS_OK (0x40000) = a backedge source; IN_LOOP (0x800000) = inside
//   some [header, exit] interval, exit = the largest RPONum branching back to
//   the header; +152 = exit on a header, else the smallest RPONum the block
//   branches back to, else 0; flags = (previous & 0xFF78F98F) | those bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/facts.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "tests/unit/parse_one.h"

namespace ori {
namespace {

constexpr uint32_t LH = BlockAnnotation::kLoopHeader, HP = BlockAnnotation::kHasPred,
                   OK = BlockAnnotation::kAnalysisOk, IL = BlockAnnotation::kInLoop;

// The two halves, as type parameters of the suite. Each uses its own CFG.
struct ReferenceHalf {
  static AnnotationFacts run(const Function &f, const AnnotationFacts *previous, bool force) {
    return reference::analyzeControlFlow(f, reference::computeCfg(f), previous, force);
  }
};
struct OptimizedHalf {
  static AnnotationFacts run(const Function &f, const AnnotationFacts *previous, bool force) {
    return optimized::analyzeControlFlow(f, optimized::computeCfg(f), previous, force);
  }
};

template <typename Half>
AnnotationFacts annotate(const std::string &text, const AnnotationFacts *previous = nullptr,
                         bool force = false) {
  return Half::run(parseOne(text), previous, force);
}

// Phase 3 as the wrapper sub_C60870 runs it: the gate, then force=0.
template <typename Half>
std::pair<Phase3Outcome, AnnotationFacts> phase3(const Function &f, int optLevel, bool knob235,
                                                 const AnnotationFacts *previous) {
  Phase3Outcome o = analyzeControlFlowGate(optLevel, knob235, previous);
  if (o != Phase3Outcome::Ran)
    return {o, previous ? *previous : AnnotationFacts{}};
  return {o, Half::run(f, previous, false)};
}

template <typename Half> class Annotations : public ::testing::Test {};
struct HalfName {
  template <typename T> static std::string GetName(int) {
    return std::is_same_v<T, ReferenceHalf> ? "Reference" : "Optimized";
  }
};
using Halves = ::testing::Types<ReferenceHalf, OptimizedHalf>;
TYPED_TEST_SUITE(Annotations, Halves, HalfName);

AnnotationFacts want(std::vector<BlockAnnotation> blocks, bool violation = false) {
  AnnotationFacts a;
  a.blocks = std::move(blocks);
  a.rpoViolation = violation;
  return a;
}
void expectFacts(const AnnotationFacts &got, const AnnotationFacts &expected) {
  EXPECT_TRUE(got == expected) << firstDifference(expected, got);
}

const char *kWhileLoop = R"(
.entry whileloop()
{
  MOV R0, 0x0
H:
  ISETP.GE.AND P0, PT, R0, 0xa, PT
  @P0 BRA X
B:
  IADD3 R0, R0, 0x1, RZ
  BRA H
X:
  EXIT
}
)";
// bix0 -> 1; bix1 -> {3 taken, 2}; bix2 -> 1; bix3 exits.
// DFS 0, 1, 3 (done), 2 (1 on the stack, done): postorder 3 2 1 0, RPO
// 0 1 2 3, RPONum 1 2 3 4. Backedge 2 -> 1 (2 <= 3): header bix1 with exit 3,
// interval [2, 3] = bix1, bix2; bix2 is the latch (ANALYSIS_OK, +152 = 2).
// HAS_PRED: bix1 (bix0 1 < 2), bix2 (bix1), bix3 (bix1); bix0 has no pred.
const std::vector<BlockAnnotation> kWhileLoopWant = {
    {1, 0, 0}, {2, LH | HP | IL, 3}, {3, HP | OK | IL, 2}, {4, HP, 0}};

// bix0 -> 1 -> 2, bix2 exits: RPONum 1 2 3, no backedge; HAS_PRED on 1, 2.
TYPED_TEST(Annotations, StraightLine) {
  auto a = annotate<TypeParam>(R"(
.entry line()
{
  MOV R0, 0x1
A:
  MOV R1, 0x2
B:
  EXIT
}
)");
  expectFacts(a, want({{1, 0, 0}, {2, HP, 0}, {3, HP, 0}}));
}

// bix0 -> {2 taken, 1}; 1 -> 3; 2 -> 3. DFS 0, 2, 3 (done), 1: postorder
// 3 2 1 0, RPONum 1 2 3 4 (= bix + 1). No backedge, so no loop bits.
TYPED_TEST(Annotations, Diamond) {
  auto a = annotate<TypeParam>(R"(
.entry diamond()
{
  ISETP.GE.AND P0, PT, R0, RZ, PT
  @P0 BRA L_else
L_then:
  MOV R1, 0x1
  BRA L_join
L_else:
  MOV R1, 0x2
L_join:
  EXIT
}
)");
  expectFacts(a, want({{1, 0, 0}, {2, HP, 0}, {3, HP, 0}, {4, HP, 0}}));
}

TYPED_TEST(Annotations, WhileLoop) {
  expectFacts(annotate<TypeParam>(kWhileLoop), want(kWhileLoopWant));
}

// bix0 -> 1; bix1 -> 2; bix2 -> {2 taken, 3}; bix3 -> {1 taken, 4}; bix4 exits.
// DFS 0 1 2 (2 on the stack) 3 (1 on the stack) 4: RPONum = bix + 1.
// Backedges 2 -> 2 (self) and 3 -> 1. Headers bix1 (exit 4: [2, 4]) and
// bix2 (exit 3: [3, 3]); IN_LOOP bix1..bix3. Latches bix2 and bix3
// (ANALYSIS_OK). +152: bix1 4, bix2 3 (a header: its exit, which is its own
// number), bix3 2 (the header it closes). HAS_PRED on bix1..bix4.
TYPED_TEST(Annotations, NestedLoops) {
  auto a = annotate<TypeParam>(R"(
.entry nested()
{
  MOV R0, 0x0
OUTER:
  MOV R1, 0x0
INNER:
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.AND P0, PT, R1, 0x4, PT
  @P0 BRA INNER
  IADD3 R0, R0, 0x1, RZ
  ISETP.LT.AND P1, PT, R0, 0x4, PT
  @P1 BRA OUTER
  EXIT
}
)");
  expectFacts(a, want({{1, 0, 0},
                       {2, LH | HP | IL, 4},
                       {3, LH | HP | OK | IL, 3},
                       {4, HP | OK | IL, 2},
                       {5, HP, 0}}));
}

// The entry branches to itself: bix0 -> {0, 1}. RPONum 1 2. Backedge 0 -> 0:
// bix0 is header, latch and IN_LOOP, +152 = 1 (its own number, spec/000's
// "rpo_number equals +152"), and has no HAS_PRED: its only predecessor is
// itself, not smaller. bix1: HAS_PRED.
TYPED_TEST(Annotations, SelfLoopAtEntry) {
  auto a = annotate<TypeParam>(R"(
.entry selfloop()
{
L:
  @P0 BRA L
  EXIT
}
)");
  expectFacts(a, want({{1, LH | OK | IL, 1}, {2, HP, 0}}));
}

// dumps.ori's irreducible graph: bix0 -> {2, 1}; 1 -> 2; 2 -> {1, 3}.
// DFS 0, 2, 1 (2 on the stack), 3: postorder 1 3 2 0, RPO 0 2 3 1, so
// RPONum bix0 1, bix1 4, bix2 2, bix3 3. Backedge 1 -> 2 (2 <= 4): header
// bix2, exit 4, interval [2, 4] = bix2, bix3, bix1 (bix3, the EXIT block, is
// inside: the interval is only an RPO range). Latch bix1, +152 = 2.
// Edge 0 -> 1 enters the interval at 4 from 1, outside [2, 4]: violation.
TYPED_TEST(Annotations, IrreducibleLoopRaisesTheViolationLatch) {
  auto a = annotate<TypeParam>(R"(
.entry irreducible()
{
  @P0 BRA B
A:
  NOP
B:
  @P1 BRA A
  EXIT
}
)");
  expectFacts(a,
              want({{1, 0, 0}, {4, HP | OK | IL, 2}, {2, LH | HP | IL, 4}, {3, HP | IL, 0}}, true));
}

// bix0 -> 2; bix1 -> 1 (unreachable self loop); bix2 exits. RPONum 1 0 2:
// the unreachable block is never numbered, so it gets no bits for its self
// loop, but the reset mask still applies to it: previous 0xFFFFFFFF becomes
// 0xFF78F98F. Its bit 0 does not count as an early exit (not walked).
TYPED_TEST(Annotations, UnreachableBlockIsOnlyReset) {
  AnnotationFacts previous;
  previous.blocks.resize(3);
  previous.blocks[1] = {7, 0xFFFFFFFFu, 7};
  auto a = annotate<TypeParam>(R"(
.entry unreachable()
{
  BRA L2
L1:
  BRA L1
L2:
  EXIT
}
)",
                               &previous);
  expectFacts(a, want({{1, 0, 0}, {0, 0xFF78F98Fu, 0}, {2, HP, 0}}));
}

// A loop with two exits: bix0 -> 1; bix1 -> {4 taken, 2}; bix2 -> {1 taken, 3};
// bix3, bix4 exit. DFS 0 1 4 (done) 2 (1 on the stack) 3: postorder 4 3 2 1 0,
// RPONum = bix + 1. Backedge 2 -> 1: header bix1, exit 3, interval [2, 3]; the
// exits bix3 (4) and bix4 (5) are outside it.
TYPED_TEST(Annotations, LoopWithTwoExits) {
  auto a = annotate<TypeParam>(R"(
.entry twoexits()
{
  MOV R0, 0x0
H:
  ISETP.EQ.AND P0, PT, R0, 0x5, PT
  @P0 BRA OUT1
  IADD3 R0, R0, 0x1, RZ
  ISETP.LT.AND P1, PT, R0, 0xa, PT
  @P1 BRA H
  EXIT
OUT1:
  EXIT
}
)");
  expectFacts(
      a, want({{1, 0, 0}, {2, LH | HP | IL, 3}, {3, HP | OK | IL, 2}, {4, HP, 0}, {5, HP, 0}}));
}

// The body is the taken target and the exit falls through: bix0 -> 1;
// bix1 -> {3 taken, 2}; bix2 exits; bix3 -> 1. DFS 0 1 3 (1 on the stack) 2:
// postorder 3 2 1 0, RPO 0 1 2 3, RPONum = bix + 1. Backedge 3 -> 1 (2 <= 4):
// interval [2, 4] holds the exit block bix2 (RPONum 3) too, though it is in
// no natural loop: IN_LOOP is the RPO interval. No edge enters from outside.
TYPED_TEST(Annotations, ExitInsideTheRpoIntervalIsInLoop) {
  auto a = annotate<TypeParam>(R"(
.entry exitinside()
{
  MOV R0, 0x0
H:
  @P0 BRA B
  EXIT
B:
  BRA H
}
)");
  expectFacts(a, want({{1, 0, 0}, {2, LH | HP | IL, 4}, {3, HP | IL, 0}, {4, HP | OK | IL, 2}}));
}

// A switch inside a loop. bix0 -> 1; bix1 -> {5 taken, 2}; bix2 BRX -> {3, 4, 1};
// bix3 -> 1; bix4 -> 1; bix5 exits. DFS 0 1 5 (done) 2 3 (1 on the stack) 4 (same),
// 1 on the stack: postorder 5 3 4 2 1 0, RPO 0 1 2 4 3 5: RPONum bix0 1,
// bix1 2, bix2 3, bix3 5, bix4 4, bix5 6. Backedges 2 -> 1 (the table's
// third entry), 3 -> 1, 4 -> 1: header bix1, exit max(3, 5, 4) = 5, interval
// [2, 5] = bix1..bix4. Latches bix2, bix3, bix4, each +152 = 2.
TYPED_TEST(Annotations, BrxSwitchInsideALoop) {
  auto a = annotate<TypeParam>(R"(
.entry switchloop()
{
  .jumptable T = {C0, C1, HEAD}
  MOV R0, 0x0
HEAD:
  ISETP.GE.AND P0, PT, R0, 0x3, PT
  @P0 BRA OUT
SW:
  BRX R0, T
C0:
  IADD3 R0, R0, 0x1, RZ
  BRA HEAD
C1:
  IADD3 R0, R0, 0x2, RZ
  BRA HEAD
OUT:
  EXIT
}
)");
  expectFacts(a, want({{1, 0, 0},
                       {2, LH | HP | IL, 5},
                       {3, HP | OK | IL, 2},
                       {5, HP | OK | IL, 2},
                       {4, HP | OK | IL, 2},
                       {6, HP, 0}}));
}

// A BRX into the middle of a loop: bix0 -> {1, 2}; bix1 -> 2; bix2 -> {1, 3}.
// DFS 0 1 2 (1 on the stack) 3: RPONum = bix + 1. Backedge 2 -> 1: header
// bix1, exit 3, interval [2, 3]. The table's second entry 0 -> 2 enters the
// interval at 3 from 1: the RPO-violation latch is set.
TYPED_TEST(Annotations, BrxIntoTheMiddleOfALoopRaisesTheViolationLatch) {
  auto a = annotate<TypeParam>(R"(
.entry brxinto()
{
  .jumptable T = {H, M}
  BRX R0, T
H:
  NOP
M:
  @P0 BRA H
  EXIT
}
)");
  expectFacts(a, want({{1, 0, 0}, {2, LH | HP | IL, 3}, {3, HP | OK | IL, 2}, {4, HP, 0}}, true));
}

// Previous state: every bit set everywhere (and stale +144/+152 values).
// The mask keeps 0xFF78F98F of each block, the analysis ORs the while loop's
// bits in, +144/+152 are recomputed. Bit 0 survives, so the walk sees an
// early exit. Then a previous state holding only the cleared bits: nothing
// of it survives (a stale LOOP_HEADER on bix3 is gone).
TYPED_TEST(Annotations, PreviousBitsSurviveTheResetMask) {
  AnnotationFacts previous;
  previous.blocks.assign(4, BlockAnnotation{9, 0xFFFFFFFFu, 9});
  AnnotationFacts expected = want(kWhileLoopWant);
  for (BlockAnnotation &b : expected.blocks)
    b.flags |= 0xFF78F98Fu;
  expected.earlyExitObserved = true;
  expectFacts(annotate<TypeParam>(kWhileLoop, &previous), expected);

  previous.blocks.assign(4, BlockAnnotation{0, 0x00870670u, 0});
  expectFacts(annotate<TypeParam>(kWhileLoop, &previous), want(kWhileLoopWant));

  // A previous state for fewer blocks (a block was added since): the rest start at 0.
  previous.blocks.assign(1, BlockAnnotation{0, 0x40000000u, 0});
  expected = want(kWhileLoopWant);
  expected.blocks[0].flags |= 0x40000000u; // bit 30: outside the cleared set
  expectFacts(annotate<TypeParam>(kWhileLoop, &previous), expected);
}

// force_full_rebuild (force=1) ORs 0x30 into every block it numbers; the
// provisional LOOP_HEADER is resolved by the walk, HAS_PRED stays: the only
// block that changes is the entry, the one numbered block without a smaller
// predecessor. Unreachable blocks are not numbered and stay unchanged.
TYPED_TEST(Annotations, ForceFullRebuildSetsHasPredOnEveryNumberedBlock) {
  AnnotationFacts expected = want(kWhileLoopWant);
  expected.blocks[0].flags = HP;
  expectFacts(annotate<TypeParam>(kWhileLoop, nullptr, true), expected);
  expectFacts(annotate<TypeParam>(kWhileLoop, nullptr, false), want(kWhileLoopWant));
  auto forced = annotate<TypeParam>(R"(
.entry unreachable()
{
  EXIT
L1:
  BRA L1
}
)",
                                    nullptr, true);
  expectFacts(forced, want({{1, HP, 0}, {0, 0, 0}}));
}

// Knob 235 (DisableAnalyzeControlFlow) vetoes the phase-3 run at any -O:
// the annotations stay as they were (here: none).
TYPED_TEST(Annotations, Knob235VetoesPhase3) {
  Function f = parseOne(kWhileLoop);
  for (int o = 0; o <= 4; ++o) {
    auto [outcome, facts] = phase3<TypeParam>(f, o, true, nullptr);
    EXPECT_EQ(outcome, o == 0 ? Phase3Outcome::SkippedBelowO1 : Phase3Outcome::VetoedByKnob235)
        << "-O" << o;
    EXPECT_TRUE(facts.blocks.empty());
  }
  auto [outcome, facts] = phase3<TypeParam>(f, 3, false, nullptr);
  EXPECT_EQ(outcome, Phase3Outcome::Ran);
  expectFacts(facts, want(kWhileLoopWant));
}

// The O-level gate: -O0 skips, -O1 to -O4 run (spec/001 prose "O1+").
TYPED_TEST(Annotations, OptLevelGate) {
  Function f = parseOne(kWhileLoop);
  EXPECT_EQ(phase3<TypeParam>(f, 0, false, nullptr).first, Phase3Outcome::SkippedBelowO1);
  for (int o = 1; o <= 4; ++o) {
    auto [outcome, facts] = phase3<TypeParam>(f, o, false, nullptr);
    EXPECT_EQ(outcome, Phase3Outcome::Ran) << "-O" << o;
    expectFacts(facts, want(kWhileLoopWant));
  }
}

// The re-entrancy guard (CO +1370 bit 0x10) is released when a run ends; a
// call made while it is held (a nested call) is short-circuited and leaves
// the state as it was.
TYPED_TEST(Annotations, ReentrancyGuard) {
  Function f = parseOne(kWhileLoop);
  AnnotationFacts running;
  running.blocks.assign(4, BlockAnnotation{0, 0x100u, 0});
  running.reentrancyGuard = true;
  auto [outcome, facts] = phase3<TypeParam>(f, 3, false, &running);
  EXPECT_EQ(outcome, Phase3Outcome::SkippedReentrant);
  EXPECT_TRUE(facts == running);
  running.reentrancyGuard = false;
  auto [outcome2, facts2] = phase3<TypeParam>(f, 3, false, &running);
  EXPECT_EQ(outcome2, Phase3Outcome::Ran);
  EXPECT_FALSE(facts2.reentrancyGuard);
  AnnotationFacts expected = want(kWhileLoopWant);
  for (BlockAnnotation &b : expected.blocks)
    b.flags |= 0x100u; // bit 8 survives the mask
  expectFacts(facts2, expected);
}

} // namespace
} // namespace ori
