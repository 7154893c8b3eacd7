// ptxas's RPO routines and the CFG-changing passes of both halves
// (reference/ and optimized/ rpo_iterative, erase_unreachable_blocks,
// set_control_flow_op_last_in_bb, place_blocks_in_source_order) on small
// hand-analysed functions: one typed suite, run once per half. Every expected
// value is derived by hand in the comment above it.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "interp/interp.h"
#include "ir/facts.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {
namespace {

using Edges = std::vector<std::pair<uint32_t, uint32_t>>;
using Ids = std::vector<uint32_t>;

Module parseModule(const std::string &text) {
  ParseResult r = parseOri(text, "test.ori");
  if (!r.module) {
    ADD_FAILURE() << "parse error: " << (r.error ? r.error->str() : "?");
    return {};
  }
  return std::move(*r.module);
}
Function parseOne(const std::string &text) {
  Module m = parseModule(text);
  return m.functions.empty() ? Function{} : m.functions.back();
}

Ids labelIds(const Function &f) {
  Ids ids;
  for (const Block &b : f.blocks)
    ids.push_back(b.labelId);
  return ids;
}

void expectVerifies(const Function &f) {
  EXPECT_EQ(verifyFunction(f), std::vector<std::string>{}) << printFunction(f);
}

// Appends each unlabelled block to the block before it (oriopt
// --unsplit-blocks): control flow then sits inside blocks, as phase 6 finds it.
Function joinUnlabelled(Function f) {
  std::vector<uint32_t> newIndex(f.blocks.size());
  std::vector<Block> joined;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    if (b > 0 && f.blocks[b].label.empty())
      for (Instr &in : f.blocks[b].instrs)
        joined.back().instrs.push_back(std::move(in));
    else
      joined.push_back(std::move(f.blocks[b]));
    newIndex[b] = uint32_t(joined.size() - 1);
  }
  for (Block &b : joined)
    for (Instr &in : b.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  f.blocks = std::move(joined);
  return f;
}

struct ReferenceHalf {
  static CfgFacts cfg(const Function &f) { return reference::computeCfg(f); }
  static RpoSlots iterativeSlots(const CfgFacts &c) {
    return reference::computeRpoIterativeSlots(c);
  }
  static CfgFacts cfgIterative(const Function &f) { return reference::computeCfgIterative(f); }
  static RpoSlots eraseSlots(const CfgFacts &c, EraseMarks m) {
    return reference::computeEraseSlots(c, m);
  }
  static std::vector<uint32_t> erase(Function &f) { return reference::eraseUnreachableBlocks(f); }
  static uint32_t phase6(Function &f) { return reference::setControlFlowOpLastInBB(f); }
  static bool reorder(Function &f, const std::vector<uint32_t> &o) {
    return reference::reorderBlocks(f, o);
  }
  static bool phase112(Function &f) { return reference::placeBlocksInSourceOrder(f); }
};
struct OptimizedHalf {
  static CfgFacts cfg(const Function &f) { return optimized::computeCfg(f); }
  static RpoSlots iterativeSlots(const CfgFacts &c) {
    return optimized::computeRpoIterativeSlots(c);
  }
  static CfgFacts cfgIterative(const Function &f) { return optimized::computeCfgIterative(f); }
  static RpoSlots eraseSlots(const CfgFacts &c, EraseMarks m) {
    return optimized::computeEraseSlots(c, m);
  }
  static std::vector<uint32_t> erase(Function &f) { return optimized::eraseUnreachableBlocks(f); }
  static uint32_t phase6(Function &f) { return optimized::setControlFlowOpLastInBB(f); }
  static bool reorder(Function &f, const std::vector<uint32_t> &o) {
    return optimized::reorderBlocks(f, o);
  }
  static bool phase112(Function &f) { return optimized::placeBlocksInSourceOrder(f); }
};

template <typename Half> class CfgTransforms : public ::testing::Test {};
struct HalfName {
  template <typename T> static std::string GetName(int) {
    return std::is_same_v<T, ReferenceHalf> ? "Reference" : "Optimized";
  }
};
using Halves = ::testing::Types<ReferenceHalf, OptimizedHalf>;
TYPED_TEST_SUITE(CfgTransforms, Halves, HalfName);

void expectSlots(const RpoSlots &got, const RpoSlots &want) {
  EXPECT_TRUE(got == want) << firstDifference(want, got);
}

// bix0 [@P0 BRA L2] -> [2 taken, 1]; bix1 L1 [NOP] -> [2]; bix2 L2 [EXIT].
// Label ids: 0x0, 0x10, 0x20 (one instruction each).
const char *kIfThen = R"(
.entry ifthen()
{
  @P0 BRA L2
L1:
  NOP
L2:
  EXIT
}
)";

// sub_BDE150 on the if-then, counter from 2: stack [0]. Expand 0: push 2,
// push 1 (both in_stack). Expand 1: its successor 2 is in_stack, not pushed.
// Pop 1: slot 2. Expand 2: nothing. Pop 2: slot 1. Pop 0: slot 0. Counter -1.
// As CfgFacts: rpo [0, 2, 1]; edge 1 -> 2 has RPO(2) = 1 <= RPO(1) = 2: a
// backedge, where the true DFS (0, 2, then 1) gives RPO [0, 1, 2] and none.
TYPED_TEST(CfgTransforms, IterativeRpoOnTheIfThen) {
  Function f = parseOne(kIfThen);
  const CfgFacts cfg = TypeParam::cfg(f);
  expectSlots(TypeParam::iterativeSlots(cfg), RpoSlots{{0, 2, 1}, {0, 2, 1}, -1});
  const CfgFacts it = TypeParam::cfgIterative(f);
  EXPECT_EQ(it.succs, cfg.succs);
  EXPECT_EQ(it.rpo, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(it.rpoNumber, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(it.backedges, (Edges{{1, 2}}));
  EXPECT_EQ(cfg.rpo, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(cfg.backedges, Edges{});
}

// bix0 [BRA L2] -> 2; bix1 L1 [EXIT] unreachable; bix2 L2 [NOP] -> 3; bix3 L3 [EXIT].
const char *kUnreachable = R"(
.entry u()
{
  BRA L2
L1:
  EXIT
L2:
  NOP
L3:
  EXIT
}
)";

// sub_BDE150, counter from 3: 0 pushes 2, 2 pushes 3; pops give 3 slot 3, 2
// slot 2, 0 slot 1; counter ends at 0 (= 4 blocks - 3 reachable - 1): slot 0
// is never written and the entry is not in slot 0. Normalised: rpo [0, 2, 3].
TYPED_TEST(CfgTransforms, IterativeRpoLeavesSlotsOfUnreachableBlocksEmpty) {
  Function f = parseOne(kUnreachable);
  expectSlots(TypeParam::iterativeSlots(TypeParam::cfg(f)),
              RpoSlots{{1, kNoBlock, 2, 3}, {kNoBlock, 0, 2, 3}, 0});
  const CfgFacts it = TypeParam::cfgIterative(f);
  EXPECT_EQ(it.rpo, (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(it.rpoNumber, (std::vector<int32_t>{0, kNoBlock, 1, 2}));
  EXPECT_EQ(it.backedges, Edges{});
}

// sub_BDE6C0 over bix 0..3, counter from 3, on the same function.
// pred_count = [0, 0, 1, 1]: bix0 and bix1 are "already removed" (0) and
// never numbered; bix2 is cleared, cascades into bix3 (count 1): 3 takes slot
// 3, 2 slot 2; bix3 is then 0. Counter 1.
// All marks 1: bix0's DFS numbers 3 (slot 3), 2 (slot 2), 0 (slot 1); then
// bix1 starts a tree of its own: slot 0. Counter -1.
TYPED_TEST(CfgTransforms, EraseSlotsUnderBothReadings) {
  const CfgFacts cfg = TypeParam::cfg(parseOne(kUnreachable));
  expectSlots(TypeParam::eraseSlots(cfg, EraseMarks::PredCount),
              RpoSlots{{kNoBlock, kNoBlock, 2, 3}, {kNoBlock, kNoBlock, 2, 3}, 1});
  expectSlots(TypeParam::eraseSlots(cfg, EraseMarks::Unvisited),
              RpoSlots{{1, 0, 2, 3}, {1, 0, 2, 3}, -1});
}

// bix0 [BRA C]; bix1 A [BRX R0, T] with T = {A, B}; bix2 B [BRA A];
// bix3 C [NOP]; bix4 D [EXIT]. bix0 reaches C, then D: A and B go, and T,
// whose targets they were, with them. Nothing else changes; C and D keep
// their label ids (0x30, 0x40).
// pred_count = [0, 2 (A, B), 1 (A), 1 (bix0), 1 (C)]: bix0 is never numbered,
// A is cleared and cascades into B (slot 4), A slot 3; C cascades into D
// (slot 2), C slot 1: rpo_array [-1, C, D, A, B]. The reachable C and D are
// "erased" as well.
TYPED_TEST(CfgTransforms, EraseDropsUnreachableBlocksAndTheirTable) {
  Function f = parseOne(R"(
.entry er()
{
  .jumptable T = {A, B}
  BRA C
A:
  BRX R0, T
B:
  BRA A
C:
  NOP
D:
  EXIT
}
)");
  expectSlots(TypeParam::eraseSlots(TypeParam::cfg(f), EraseMarks::PredCount),
              RpoSlots{{kNoBlock, 3, 4, 1, 2}, {kNoBlock, 3, 4, 1, 2}, 0});
  EXPECT_EQ(TypeParam::erase(f), (std::vector<uint32_t>{1, 2}));
  expectVerifies(f);
  Function want = parseOne(R"(
.entry er()
{
  BRA C
C:
  NOP
D:
  EXIT
}
)");
  EXPECT_EQ(printFunction(f), printFunction(want));
  EXPECT_TRUE(f == want);
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x30, 0x40}));
  EXPECT_EQ(TypeParam::erase(f), std::vector<uint32_t>{}); // nothing left to erase
}

// BSSY names R, which no CFG edge reaches (bix0 branches to J): R stays, so
// the BSSY operand still names a block; only the self loop X goes. Targets
// after X move down by one: R bix2 -> 1, J bix3 -> 2.
TYPED_TEST(CfgTransforms, EraseKeepsBlocksNamedByLabelOperands) {
  Function f = parseOne(R"(
.entry b()
{
  BSSY B0, R
  BRA J
X:
  BRA X
R:
  BSYNC B0
  EXIT
J:
  EXIT
}
)");
  EXPECT_EQ(TypeParam::erase(f), std::vector<uint32_t>{1});
  expectVerifies(f);
  ASSERT_EQ(f.blocks.size(), 3u);
  EXPECT_EQ(f.blocks[0].instrs[0].srcs[0].target, 1u);
  EXPECT_EQ(f.blocks[0].instrs[1].srcs[0].target, 2u);
  EXPECT_EQ(f.blocks[1].label, "R");
  EXPECT_EQ(f.blocks[2].label, "J");
}

// Parsed (instruction index in brackets):
//   bix0 id 0x0  [0 S2R, 1 LOP3, 2 ISETP, 3 @P0 BRA done]
//   bix1 id 0x40 "" [4 MOV 5, 5 BRX R0, T]
//   bix2 id 0x60 L_split0 [6 MOV 7]
//   bix3 id 0x70 done [7 IMAD.WIDE, 8 STG, 9 EXIT]
// Joined, bix1 sits inside bix0 after @P0 BRA (index 3). Phase 6 splits
// after it: the new block [MOV 5, BRX] gets the first free fresh name
// (L_split0 is taken: L_split1) and id 0x0 + 0x10 * 4 = 0x40; BRX is last
// already. T and `BRA done` follow their blocks (done: bix2 -> bix3).
// Running it: tid 0 (even) takes MOV 5, BRX R0 = 0 -> L_split0: R1 = 7;
// tid 1 branches to done with R1 = 0. out = [7, 0] before and after.
const char *kBranchy = R"(
.entry k(.u64 out)
{
  .jumptable T = {L_split0, done}
  S2R R0, SR_TID.X
  LOP3.LUT R0, R0, 0x1, RZ, 0xc0
  ISETP.NE.U32.AND P0, PT, R0, RZ, PT
  @P0 BRA done
  MOV R1, 0x5
  BRX R0, T
L_split0:
  MOV R1, 0x7
done:
  IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x210]
  STG.E [R2], R1
  EXIT
}
)";

RunResult runTwoThreads(const Function &f) {
  Module m;
  m.functions.push_back(f);
  RunConfig cfg;
  cfg.threads = 2;
  cfg.buffers["out"] = std::vector<uint8_t>(8, 0);
  return runKernel(m, cfg);
}

TYPED_TEST(CfgTransforms, Phase6SplitsAfterABranchWithAFreshLabel) {
  const Function parsed = parseOne(kBranchy);
  Function f = joinUnlabelled(parsed);
  ASSERT_EQ(f.blocks.size(), 3u);
  EXPECT_EQ(TypeParam::phase6(f), 1u);
  expectVerifies(f);
  Function want = parsed;
  want.blocks[1].label = "L_split1";
  EXPECT_EQ(printFunction(f), printFunction(want));
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x40, 0x60, 0x70}));
  EXPECT_EQ(f.jumpTables[0].targets, (std::vector<uint32_t>{2, 3}));

  const RunResult before = runTwoThreads(parsed), after = runTwoThreads(f);
  ASSERT_EQ(before.kind, RunResult::Kind::Ok) << before.message;
  EXPECT_EQ(before.buffers.at("out"), (std::vector<uint8_t>{7, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(after.kind, RunResult::Kind::Ok);
  EXPECT_EQ(after.buffers, before.buffers);
}

// Parsed: bix0 [CALL g] (0x0), bix1 "" [@P0 EXIT] (0x10), bix2 "" [NOP, EXIT]
// (0x20); joined: [CALL g, @P0 EXIT, NOP, EXIT]. CALL and a guarded EXIT are
// control flow (CONTROL in the opcode table): split after index 0, then the
// new block [@P0 EXIT, NOP, EXIT] after its index 0. Two splits: L_split0 at
// 0x10, L_split1 at 0x0 + 0x10 * 2 = 0x20.
TYPED_TEST(CfgTransforms, Phase6SplitsAfterCallAndGuardedExit) {
  Module m = parseModule(R"(
.func g()
{
  RET
}
.entry callk()
{
  CALL g
  @P0 EXIT
  NOP
  EXIT
}
)");
  ASSERT_EQ(m.functions.size(), 2u);
  Function f = joinUnlabelled(m.functions[1]);
  ASSERT_EQ(f.blocks.size(), 1u);
  EXPECT_EQ(TypeParam::phase6(f), 2u);
  expectVerifies(f);
  ASSERT_EQ(f.blocks.size(), 3u);
  EXPECT_EQ(f.blocks[1].label, "L_split0");
  EXPECT_EQ(f.blocks[2].label, "L_split1");
  EXPECT_EQ(f.blocks[0].instrs.size(), 1u);
  EXPECT_EQ(f.blocks[1].instrs.size(), 1u);
  EXPECT_EQ(f.blocks[2].instrs.size(), 2u);
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x10, 0x20}));
  EXPECT_EQ(TypeParam::phase6(f), 0u); // already split
}

// Moving the if-then to [0, 2, 1]:
//  bix0 [@P0 BRA L2] falls through (guarded) to bix1, which no longer
//    follows: it ends in control flow, so a new block [BRA L1] follows it,
//    with bix0's id 0x0;
//  L2 [EXIT] does not fall through;
//  L1 [NOP] fell through to L2, now last: BRA L2 is appended.
// Phase 112 then sorts by id, bix0 first: the BRA block (0x0, stable after
// bix0), L1 (0x10), L2 (0x20). The BRA block's `BRA L1` now jumps to the next
// block and did not before: removed, and the block, empty and unlabelled,
// goes. L1's `BRA L2` likewise: removed. The original comes back.
TYPED_TEST(CfgTransforms, ReorderAddsBranchesAndPhase112RemovesThem) {
  const Function original = parseOne(kIfThen);
  Function f = original;
  EXPECT_TRUE(TypeParam::reorder(f, {0, 2, 1}));
  expectVerifies(f);
  Function want = parseOne(R"(
.entry ifthen()
{
  @P0 BRA L2
  BRA L1
L2:
  EXIT
L1:
  NOP
  BRA L2
}
)");
  EXPECT_EQ(printFunction(f), printFunction(want));
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x0, 0x20, 0x10}));

  EXPECT_TRUE(TypeParam::phase112(f));
  expectVerifies(f);
  EXPECT_EQ(printFunction(f), printFunction(original));
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x10, 0x20}));
  EXPECT_FALSE(TypeParam::phase112(f)); // in source order: nothing to do
}

// A fall-through target without a label gets one: parsed, bix1 "" [NOP,
// EXIT] follows the CALL block bix0 (id 0x0) unlabelled; bix2 L [EXIT] (0x30).
// Order [0, 2, 1]: bix0 falls through (CALL) to bix1, which no longer
// follows: [BRA L_place0] after bix0, and bix1 is named L_place0.
TYPED_TEST(CfgTransforms, ReorderNamesNewTargets) {
  Module m = parseModule(R"(
.func g()
{
  RET
}
.entry callk()
{
  CALL g
  NOP
  EXIT
L:
  EXIT
}
)");
  Function f = m.functions.at(1);
  EXPECT_TRUE(TypeParam::reorder(f, {0, 2, 1}));
  expectVerifies(f);
  ASSERT_EQ(f.blocks.size(), 4u);
  EXPECT_EQ(f.blocks[1].label, "");
  EXPECT_EQ(f.blocks[1].instrs.at(0).srcs.at(0).target, 3u);
  EXPECT_EQ(f.blocks[2].label, "L");
  EXPECT_EQ(f.blocks[3].label, "L_place0");
  EXPECT_EQ(labelIds(f), (Ids{0x0, 0x0, 0x30, 0x10}));
}

// Phase 112 keeps bix0 first whatever its id, keeps blocks with equal ids in
// their current order, and refuses orders that are not permutations from 0.
// Ties: bix1 A is empty, so A and B share id 0x10. Moved to [0, 2, 1]: bix0
// gets [BRA A] after it (id 0x0), A [BRA B]. Sorting keeps B (bix2) before A
// (bix3): the order is already sorted and phase 112 leaves it.
TYPED_TEST(CfgTransforms, Phase112EntryFirstAndStableTies) {
  Function f = parseOne(kIfThen);
  f.blocks[0].labelId = 0x100;
  EXPECT_FALSE(TypeParam::phase112(f));
  EXPECT_FALSE(TypeParam::reorder(f, {1, 0, 2}));
  EXPECT_FALSE(TypeParam::reorder(f, {0, 1, 1}));
  EXPECT_FALSE(TypeParam::reorder(f, {0, 1}));

  Function g = parseOne(R"(
.entry t()
{
  @P0 BRA B
A:
B:
  EXIT
}
)");
  EXPECT_EQ(labelIds(g), (Ids{0x0, 0x10, 0x10}));
  EXPECT_TRUE(TypeParam::reorder(g, {0, 2, 1}));
  expectVerifies(g);
  EXPECT_EQ(labelIds(g), (Ids{0x0, 0x0, 0x10, 0x10}));
  EXPECT_EQ(g.blocks[2].label, "B");
  EXPECT_FALSE(TypeParam::phase112(g));
}

} // namespace
} // namespace ori
