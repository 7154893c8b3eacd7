// ptxas's RPO routines (reference/ and optimized/ rpo_iterative.cpp and
// computeEraseSlots in erase_unreachable_blocks.cpp) on random CFGs
// (fuzz/cfg_gen.h):
//  - the two halves give equal slots and equal CfgFacts;
//  - what each routine computes, checked against its definition: sub_BDE150
//    numbers exactly the reachable blocks, from the highest slot down, with
//    the entry first and every block after the predecessor that pushed it,
//    and it finds every backedge whose target dominates its source, so
//    dominators and loops over its order equal those over the DFS order;
//    sub_BDE6C0 with "unvisited" marks is a depth-first RPO forest whose
//    first tree is the true DFS RPO; with pred_count marks it numbers exactly
//    the blocks that have a predecessor;
//  - an exhaustive search over every graph of up to 3 blocks for those where
//    sub_BDE150's backedges differ from the true DFS's: none below 3 blocks,
//    and the smallest is the if-then (docs/spec-notes.md, "ptxas-iterative
//    RPO vs DFS"; tests/filetests/cfg/rpo_iterative.ori).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "fuzz/cfg_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "ir/facts.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

// Blocks reachable from bix 0.
std::vector<bool> reachable(const CfgFacts &cfg) {
  std::vector<bool> seen(cfg.succs.size(), false);
  if (seen.empty())
    return seen;
  std::vector<uint32_t> work{0};
  seen[0] = true;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : cfg.succs[b])
      if (!seen[s]) {
        seen[s] = true;
        work.push_back(s);
      }
  }
  return seen;
}

#if defined(ORIOPT_HAVE_REFERENCE)
RC_GTEST_PROP(RpoIterativeProps, ReferenceEqualsOptimized, ()) {
  Function f = *gen::cfgFunction();
  const CfgFacts cfg = optimized::computeCfg(f);
  RpoSlots r = reference::computeRpoIterativeSlots(cfg),
           o = optimized::computeRpoIterativeSlots(cfg);
  if (!(r == o))
    RC_FAIL("sub_BDE150 slots: " + firstDifference(r, o));
  CfgFacts rc = reference::computeCfgIterative(f), oc = optimized::computeCfgIterative(f);
  if (!(rc == oc))
    RC_FAIL("iterative CfgFacts: " + firstDifference(rc, oc));
  for (EraseMarks marks : {EraseMarks::PredCount, EraseMarks::Unvisited}) {
    r = reference::computeEraseSlots(cfg, marks);
    o = optimized::computeEraseSlots(cfg, marks);
    if (!(r == o))
      RC_FAIL("sub_BDE6C0 slots: " + firstDifference(r, o));
  }
}
#endif

RC_GTEST_PROP(RpoIterativeProps, IterativeNumbersTheReachableBlocksFromTheTop, ()) {
  Function f = *gen::cfgFunction();
  const CfgFacts cfg = optimized::computeCfg(f);
  const RpoSlots s = optimized::computeRpoIterativeSlots(cfg);
  const std::vector<bool> reach = reachable(cfg);
  const int32_t n = int32_t(cfg.succs.size());
  const int32_t r = int32_t(std::count(reach.begin(), reach.end(), true));
  // One slot per reachable block, from n - 1 down: the counter ends at
  // n - 1 - r, which is -1 exactly when every block is reachable.
  RC_ASSERT(s.counter == n - 1 - r);
  for (int32_t b = 0; b < n; ++b) {
    RC_ASSERT((s.rpoNumber[size_t(b)] != kNoBlock) == bool(reach[size_t(b)]));
    if (reach[size_t(b)])
      RC_ASSERT(s.rpoArray[size_t(s.rpoNumber[size_t(b)])] == b);
  }
  for (int32_t slot = 0; slot < n; ++slot)
    RC_ASSERT((s.rpoArray[size_t(slot)] == kNoBlock) == (slot <= s.counter));
  RC_ASSERT(s.rpoArray[size_t(s.counter + 1)] == 0); // the entry takes the lowest slot written

  const CfgFacts it = optimized::computeCfgIterative(f);
  RC_ASSERT(it.succs == cfg.succs);
  RC_ASSERT(it.preds == cfg.preds);
  RC_ASSERT(it.rpo.size() == size_t(r));
  // Every block but the entry comes after a predecessor (the one whose
  // expansion pushed it: it is popped, and numbered, after everything above it).
  for (size_t i = 1; i < it.rpo.size(); ++i) {
    bool before = false;
    for (uint32_t p : it.preds[it.rpo[i]])
      before = before || (it.rpoNumber[p] != kNoBlock && it.rpoNumber[p] < int32_t(i));
    RC_ASSERT(before);
  }
}

RC_GTEST_PROP(RpoIterativeProps, IterativeOrderKeepsDominatorsAndLoops, ()) {
  Function f = *gen::cfgFunction();
  const CfgFacts dfs = optimized::computeCfg(f), it = optimized::computeCfgIterative(f);
  const DomFacts dd = optimized::computeDominators(f, dfs),
                 di = optimized::computeDominators(f, it);
  if (!(dd == di))
    RC_FAIL("idom over the iterative order: " + firstDifference(dd, di));
  // A dominator is expanded before everything it dominates and popped after
  // it, so a backedge to a dominator is a backedge in both orders.
  const std::set<std::pair<uint32_t, uint32_t>> back(it.backedges.begin(), it.backedges.end());
  for (auto [src, dst] : dfs.backedges) {
    bool dominates = dst == src;
    for (int32_t x = dd.idom[src]; x != kNoBlock && !dominates; x = dd.idom[size_t(x)])
      dominates = uint32_t(x) == dst;
    if (dominates)
      RC_ASSERT(back.count({src, dst}) == 1u);
  }
  const LoopFacts ld = optimized::computeLoops(f, dfs, dd), li = optimized::computeLoops(f, it, di);
  if (!(ld == li))
    RC_FAIL("loops over the iterative order: " + firstDifference(ld, li));
}

// With every mark 1, sub_BDE6C0 driven over bix 0, 1, ... is a depth-first
// search forest: bix 0's tree (the reachable blocks) takes the top r slots in
// true DFS RPO order, every other block a slot below, and all n slots fill.
RC_GTEST_PROP(RpoIterativeProps, EraseWithUnvisitedMarksIsTheDfsRpoForest, ()) {
  Function f = *gen::cfgFunction();
  const CfgFacts cfg = optimized::computeCfg(f);
  const RpoSlots s = optimized::computeEraseSlots(cfg, EraseMarks::Unvisited);
  const int32_t n = int32_t(cfg.succs.size()), r = int32_t(cfg.rpo.size());
  RC_ASSERT(s.counter == -1);
  for (int32_t b = 0; b < n; ++b) {
    const int32_t slot = s.rpoNumber[size_t(b)];
    if (cfg.rpoNumber[size_t(b)] != kNoBlock)
      RC_ASSERT(slot == n - r + cfg.rpoNumber[size_t(b)]);
    else
      RC_ASSERT(slot >= 0 && slot < n - r);
  }
}

// With predecessor counts, as spec/003 reads it, every block with a
// predecessor is "erased" and numbered, reachable or not, and a block
// without one (the entry among them) never is.
RC_GTEST_PROP(RpoIterativeProps, EraseWithPredCountsNumbersTheBlocksThatHavePredecessors, ()) {
  Function f = *gen::cfgFunction();
  const CfgFacts cfg = optimized::computeCfg(f);
  const RpoSlots s = optimized::computeEraseSlots(cfg, EraseMarks::PredCount);
  int32_t numbered = 0;
  for (size_t b = 0; b < cfg.succs.size(); ++b) {
    RC_ASSERT((s.rpoNumber[b] != kNoBlock) == !cfg.preds[b].empty());
    numbered += cfg.preds[b].empty() ? 0 : 1;
  }
  RC_ASSERT(s.counter == int32_t(cfg.succs.size()) - 1 - numbered);
}

// A function with the given successor lists: block b ends in EXIT when it
// has none, else in `BRX R0` through a table listing them in order.
Function graphFunction(const std::vector<std::vector<uint32_t>> &succs) {
  Function f;
  f.name = "g";
  f.isEntry = true;
  f.blocks.resize(succs.size());
  for (uint32_t b = 0; b < succs.size(); ++b) {
    f.blocks[b].label = "blk"; // (not "blk" + ...: GCC 12 warns falsely, -Wrestrict)
    f.blocks[b].label += std::to_string(b);
    Instr in;
    in.op = succs[b].empty() ? Opcode::EXIT : Opcode::BRX;
    if (!succs[b].empty()) {
      in.srcs = {Operand::reg_(R(0)), Operand::jumpTable(uint32_t(f.jumpTables.size()))};
      f.jumpTables.push_back(JumpTable{"T" + std::to_string(b), succs[b]});
    }
    f.blocks[b].instrs.push_back(in);
  }
  f.recountRegs();
  return f;
}

// Every ordered list of distinct blocks of {0..n-1}.
std::vector<std::vector<uint32_t>> orderedSubsets(uint32_t n) {
  std::vector<std::vector<uint32_t>> out{{}};
  for (size_t i = 0; i < out.size(); ++i)
    for (uint32_t b = 0; b < n; ++b)
      if (std::find(out[i].begin(), out[i].end(), b) == out[i].end() && out[i].size() < n) {
        std::vector<uint32_t> longer = out[i];
        longer.push_back(b);
        out.push_back(longer);
      }
  return out;
}

// All graphs of 1, 2 and 3 blocks (2 + 25 + 4096): sub_BDE150's backedges
// equal the true DFS's on every graph of 1 or 2 blocks; on 3 blocks they
// differ, and the fewest edges with which they do is 3, on the if-then
// 0 -> [2, 1], 1 -> [2] among others (derivation in docs/spec-notes.md).
TEST(RpoIterativeSearch, SmallestGraphsWhereTheBackedgesDiffer) {
  size_t differing[4] = {0, 0, 0, 0};
  size_t fewestEdges = SIZE_MAX;
  std::vector<std::vector<std::vector<uint32_t>>> smallest;
  for (uint32_t n = 1; n <= 3; ++n) {
    const std::vector<std::vector<uint32_t>> lists = orderedSubsets(n);
    std::vector<size_t> pick(n, 0);
    while (true) {
      std::vector<std::vector<uint32_t>> succs(n);
      size_t edges = 0;
      for (uint32_t b = 0; b < n; ++b) {
        succs[b] = lists[pick[b]];
        edges += succs[b].size();
      }
      Function f = graphFunction(succs);
      ASSERT_EQ(verifyFunction(f), std::vector<std::string>{});
      const CfgFacts dfs = optimized::computeCfg(f), it = optimized::computeCfgIterative(f);
      ASSERT_EQ(dfs.succs, succs);
      if (dfs.backedges != it.backedges) {
        ++differing[n];
        if (edges < fewestEdges) {
          fewestEdges = edges;
          smallest.clear();
        }
        if (edges == fewestEdges)
          smallest.push_back(succs);
      }
      size_t k = 0;
      while (k < n && ++pick[k] == lists.size())
        pick[k++] = 0;
      if (k == n)
        break;
    }
  }
  EXPECT_EQ(differing[1], 0u);
  EXPECT_EQ(differing[2], 0u);
  EXPECT_GT(differing[3], 0u);
  EXPECT_EQ(fewestEdges, 3u);
  const std::vector<std::vector<uint32_t>> ifThen{{2, 1}, {2}, {}};
  EXPECT_NE(std::find(smallest.begin(), smallest.end(), ifThen), smallest.end());
  std::printf(
      "graphs where the backedges differ: 3 blocks %zu of 4096; %zu with the fewest edges (%zu)\n",
      differing[3], smallest.size(), fewestEdges);
}

// A 1,000,000-block chain with a guarded BRA back to the entry: no recursion
// may overflow in either routine.
TEST(RpoIterativeLarge, MillionBlockChain) {
  const uint32_t n = 1000000;
  std::vector<std::vector<uint32_t>> succs(n), preds(n);
  for (uint32_t b = 0; b + 1 < n; ++b) {
    succs[b].push_back(b + 1);
    preds[b + 1].push_back(b);
  }
  succs[n - 2].insert(succs[n - 2].begin(), 0u);
  preds[0].push_back(n - 2);
  CfgFacts cfg;
  cfg.succs = succs;
  cfg.preds = preds;
  const RpoSlots it = optimized::computeRpoIterativeSlots(cfg);
  const RpoSlots un = optimized::computeEraseSlots(cfg, EraseMarks::Unvisited);
  const RpoSlots pc = optimized::computeEraseSlots(cfg, EraseMarks::PredCount);
  // A chain: every order is 0, 1, ..., n-1 and fills every slot.
  for (uint32_t b = 0; b < n; b += 99991) {
    EXPECT_EQ(it.rpoNumber[b], int32_t(b));
    EXPECT_EQ(un.rpoNumber[b], int32_t(b));
  }
  EXPECT_EQ(it.counter, -1);
  EXPECT_EQ(un.counter, -1);
  // pred_count: every block has one predecessor (bix0: n-2), so the cascade
  // from bix0 runs down the whole chain: the same numbering.
  EXPECT_EQ(pc.rpoNumber, un.rpoNumber);
}

} // namespace
} // namespace ori
