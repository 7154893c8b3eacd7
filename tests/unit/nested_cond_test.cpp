// Phase 38 OptimizeNestedCondBranches: counts, the two halves, and the proof made at each
// combination (verify/nested_cond_check.h), which must refute a wrong LUT with a
// counterexample. The filetests tests/filetests/branch/nested_cond*.ori hold the rules.
#include <gtest/gtest.h>

#include <algorithm>

#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "tests/unit/parse_one.h"
#include "tests/unit/words.h"
#include "verify/nested_cond_check.h"
#include "verify/tv.h"

namespace ori {
namespace {

// if (a || b) store: bix0 [@P0 BRA B] falls into I [ISETP P1; @!P1 BRA M], which falls into
// B. One combination: PLOP3 P2 = ~a & ~b (0x03), @P2 BRA M.
const char *kOr2 = R"(.entry or2(.u64 out)
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
const char *kAnd3 = R"(.entry and3(.u64 out)
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
  for (const char *text : {kOr2, kAnd3}) {
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
  optimized::optimizeNestedCondBranches(f, [&](const Function &b, const Function &a, uint32_t id) {
    seen.push_back({b, a, id});
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].before.blocks.size(), seen[0].after.blocks.size() + 1);
  EXPECT_EQ(printFunction(seen[1].after), printFunction(f));
}

// The proof at a combination: the real one proved, the same with the LUT of a && b (0xC0)
// in place of the right one refuted, with the inputs that tell them apart.
TEST(NestedCond, WrongLutIsRefuted) {
  Function f = parseOne(kOr2);
  std::vector<Seen> seen;
  optimized::optimizeNestedCondBranches(f, [&](const Function &b, const Function &a, uint32_t id) {
    seen.push_back({b, a, id});
  });
  ASSERT_EQ(seen.size(), 1u);
  const Module context;
  const LivenessFacts live =
      optimized::computeLiveness(seen[0].before, optimized::computeCfg(seen[0].before));
  verify::NestedCondCheck ok = verify::checkNestedCondCombination(
      context, seen[0].before, seen[0].after, seen[0].outerLabelId, live);
  EXPECT_EQ(ok.verdict, verify::TvResult::Verdict::Proved) << ok.line;

  Function wrong = seen[0].after;
  Instr *plop = nullptr;
  for (Instr &in : wrong.blocks[0].instrs)
    if (in.op == Opcode::PLOP3)
      plop = &in;
  ASSERT_NE(plop, nullptr);
  ASSERT_EQ(plop->srcs[3].imm, 0x03);
  plop->srcs[3].imm = 0xC0;
  verify::NestedCondCheck bad = verify::checkNestedCondCombination(context, seen[0].before, wrong,
                                                                   seen[0].outerLabelId, live);
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
  optimized::optimizeNestedCondBranches(f, [&](const Function &b, const Function &a, uint32_t id) {
    seen.push_back({b, a, id});
  });
  ASSERT_EQ(seen.size(), 1u);
  Function wrong = seen[0].after;
  Instr &bra = wrong.blocks[0].instrs.back();
  ASSERT_EQ(bra.op, Opcode::BRA);
  bra.guard->neg = !bra.guard->neg; // @!P2 BRA M: the decision inverted
  const LivenessFacts live =
      optimized::computeLiveness(seen[0].before, optimized::computeCfg(seen[0].before));
  verify::NestedCondCheck bad = verify::checkNestedCondCombination(Module{}, seen[0].before, wrong,
                                                                   seen[0].outerLabelId, live);
  EXPECT_EQ(bad.verdict, verify::TvResult::Verdict::Refuted) << bad.line;
}

// Why a VOTE must not move across the outer branch, seen by the SIMT interpreter. In the
// intermediate block, lanes 0-15 (tid < 16) vote on tid > 4: the ballot is bits 5..15 =
// 0xFFE0, stored by those of them that go on. Phase 38 leaves the pair alone (VOTE is
// SIDE_EFFECT). The same code with the VOTE moved above the branch (what a combination would
// do) votes with all 32 lanes: bits 5..31 = 0xFFFFFFE0.
TEST(NestedCond, MovingAVoteWouldShowInTheInterpreter) {
  const char *text = R"(.entry vote(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.LT.U32.AND P0, PT, R0, 0x10, PT
  @!P0 BRA M
  ISETP.GT.U32.AND P2, PT, R0, 0x4, PT
  VOTE.ANY R5, P1, P2
  @!P1 BRA M
  IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x210]
  STG.E [R2], R5
M:
  EXIT
}
)";
  Module m;
  m.functions.push_back(parseOne(text));
  Function g = m.functions[0];
  EXPECT_EQ(optimized::optimizeNestedCondBranches(g).combined, 0u);
  EXPECT_EQ(reference::optimizeNestedCondBranches(g).combined, 0u);

  Module moved = m; // the VOTE and its compare above the outer branch
  std::vector<Instr> &b0 = moved.functions[0].blocks[0].instrs;
  std::vector<Instr> &b1 = moved.functions[0].blocks[1].instrs;
  ASSERT_EQ(b1.size(), 3u);
  b0.insert(b0.end() - 1, b1.begin(), b1.begin() + 2);
  b1.erase(b1.begin(), b1.begin() + 2);

  RunConfig cfg;
  cfg.threads = 32;
  cfg.buffers["out"] = std::vector<uint8_t>(32 * 4);
  auto word = [](const RunResult &r, size_t k) { return uint32_t(wordAt(r.buffers.at("out"), k)); };
  const RunResult right = runKernel(m, cfg), wrong = runKernel(moved, cfg);
  ASSERT_EQ(right.kind, RunResult::Kind::Ok);
  ASSERT_EQ(wrong.kind, RunResult::Kind::Ok);
  for (size_t t = 0; t < 16; ++t) {
    EXPECT_EQ(word(right, t), 0xFFE0u) << t;
    EXPECT_EQ(word(wrong, t), 0xFFFFFFE0u) << t;
  }
  for (size_t t = 16; t < 32; ++t)
    EXPECT_EQ(word(right, t), 0u) << t;
  EXPECT_EQ(right.divergentBranches, 1u); // the outer branch splits the warp; P1 is uniform
}

} // namespace
} // namespace ori
