// Phase 38 OptimizeNestedCondBranches: counts, the two halves, and the proof made at each
// combination (verify/nested_cond_check.h), which must refute a wrong LUT with a
// counterexample. The filetests tests/filetests/branch/nested_cond*.ori hold the rules.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "tests/unit/parse_one.h"
#include "verify/nested_cond_check.h"
#include "verify/tv.h"

namespace ori {
namespace {

// if (a || b) store: bix0 [@P0 BRA B] falls into I [ISETP P1; @!P1 BRA M], which falls into
// B. One combination: PLOP3 P2 = ~a & ~b (0x03), @P2 BRA M.
const char* kOr2 = R"(.entry or2(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, 0x3, PT
  @P0 BRA B
  ISETP.EQ.U32.AND P1, PT, R0, 0x7, PT
  @!P1 BRA M
B:
  IMAD.WIDE.U32 R2, R0, 0x1, c[0x0][0x210]
  STG.E.U8 [R2], R0
M:
  EXIT
}
)";

// a && b && c: two rounds combine, the second folds the first's PLOP3; a third round finds
// nothing.
const char* kAnd3 = R"(.entry and3(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.LT.U32.AND P0, PT, R0, 0x10, PT
  @!P0 BRA M
  ISETP.NE.U32.AND P1, PT, R0, 0x5, PT
  @!P1 BRA M
  ISETP.GT.U32.AND P2, PT, R0, 0x1, PT
  @!P2 BRA M
  IMAD.WIDE.U32 R2, R0, 0x1, c[0x0][0x210]
  STG.E.U8 [R2], R0
M:
  EXIT
}
)";

struct Seen {
  Function before, after;
  uint32_t outerLabelId = 0;
};

TEST(NestedCond, CountsAndHalvesAgree) {
  for (const char* text : {kOr2, kAnd3}) {
    Function o = parseOne(text), r = o;
    const NestedCondCounts co = optimized::optimizeNestedCondBranches(o);
    const NestedCondCounts cr = reference::optimizeNestedCondBranches(r);
    EXPECT_EQ(printFunction(o), printFunction(r));
    EXPECT_TRUE(co == cr);
    EXPECT_TRUE(verifyFunction(o).empty());
  }
  Function f = parseOne(kAnd3);
  const NestedCondCounts c = optimized::optimizeNestedCondBranches(f);
  EXPECT_EQ(c.combined, 2u);
  EXPECT_EQ(c.absorbedPlop3, 1u); // the second round folds the first round's PLOP3
  EXPECT_EQ(c.rounds, 3u);
  // bix0 (the compares, the PLOP3 and the branch), the body it falls into, and M.
  EXPECT_EQ(f.blocks.size(), 3u);
}

TEST(NestedCond, ObserverSeesEachCombination) {
  Function f = parseOne(kAnd3);
  std::vector<Seen> seen;
  optimized::optimizeNestedCondBranches(
      f, [&](const Function& b, const Function& a, uint32_t id) { seen.push_back({b, a, id}); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].before.blocks.size(), seen[0].after.blocks.size() + 1);
  EXPECT_EQ(printFunction(seen[1].after), printFunction(f));
}

// The proof at a combination: the real one proved, the same with the LUT of a && b (0xC0)
// in place of the right one refuted, with the inputs that tell them apart.
TEST(NestedCond, WrongLutIsRefuted) {
  Function f = parseOne(kOr2);
  std::vector<Seen> seen;
  optimized::optimizeNestedCondBranches(
      f, [&](const Function& b, const Function& a, uint32_t id) { seen.push_back({b, a, id}); });
  ASSERT_EQ(seen.size(), 1u);
  const Module context;
  const LivenessFacts live = optimized::computeLiveness(seen[0].before, optimized::computeCfg(seen[0].before));
  verify::NestedCondCheck ok =
      verify::checkNestedCondCombination(context, seen[0].before, seen[0].after, seen[0].outerLabelId, live);
  EXPECT_EQ(ok.verdict, verify::TvResult::Verdict::Proved) << ok.line;

  Function wrong = seen[0].after;
  Instr* plop = nullptr;
  for (Instr& in : wrong.blocks[0].instrs)
    if (in.op == Opcode::PLOP3) plop = &in;
  ASSERT_NE(plop, nullptr);
  ASSERT_EQ(plop->srcs[3].imm, 0x03);
  plop->srcs[3].imm = 0xC0;
  verify::NestedCondCheck bad =
      verify::checkNestedCondCombination(context, seen[0].before, wrong, seen[0].outerLabelId, live);
  EXPECT_EQ(bad.verdict, verify::TvResult::Verdict::Refuted) << bad.line;
  EXPECT_NE(bad.line.find("counterexample"), std::string::npos) << bad.line;

  // The whole-function validator refutes it too, and its replay runs.
  Module before, after;
  before.functions.push_back(seen[0].before);
  after.functions.push_back(wrong);
  const verify::TvResult whole = verify::validateFunction(before, after, "or2");
  EXPECT_EQ(whole.verdict, verify::TvResult::Verdict::Refuted) << whole.line();
}

// A wrong target is refuted too: the right LUT, but the branch sent to the body.
TEST(NestedCond, WrongTargetIsRefuted) {
  Function f = parseOne(kOr2);
  std::vector<Seen> seen;
  optimized::optimizeNestedCondBranches(
      f, [&](const Function& b, const Function& a, uint32_t id) { seen.push_back({b, a, id}); });
  ASSERT_EQ(seen.size(), 1u);
  Function wrong = seen[0].after;
  Instr& bra = wrong.blocks[0].instrs.back();
  ASSERT_EQ(bra.op, Opcode::BRA);
  bra.guard->neg = !bra.guard->neg; // @!P2 BRA M: the decision inverted
  const LivenessFacts live = optimized::computeLiveness(seen[0].before, optimized::computeCfg(seen[0].before));
  verify::NestedCondCheck bad =
      verify::checkNestedCondCombination(Module{}, seen[0].before, wrong, seen[0].outerLabelId, live);
  EXPECT_EQ(bad.verdict, verify::TvResult::Verdict::Refuted) << bad.line;
}

} // namespace
} // namespace ori
