// The CFG analyses on large functions (issue 4): a 1,000,000-block chain and a
// 1,000,000-block random CFG through the optimized half (CFG, dominators,
// loops) without a crash (no recursion may overflow the stack) and with
// properties checked in time linear in the graph; and the two halves equal
// on 100,000-block graphs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

Instr branchTo(uint32_t target, bool guarded) {
  Instr in;
  in.op = Opcode::BRA;
  if (guarded)
    in.guard = Operand::reg_(P(0));
  in.srcs.push_back(Operand::label(target));
  return in;
}

Instr exitInstr(bool guarded) {
  Instr in;
  in.op = Opcode::EXIT;
  if (guarded)
    in.guard = Operand::reg_(P(0));
  return in;
}

Function withLabels(Function f) {
  for (uint32_t i = 0; i < f.blocks.size(); ++i)
    f.blocks[i].label = fmt::format("L{}", i);
  f.recountRegs();
  return f;
}

// n empty blocks falling through; bix n-2 ends in @P0 BRA L0, bix n-1 in EXIT.
Function chain(uint32_t n) {
  Function f;
  f.name = "chain";
  f.blocks.resize(n);
  f.blocks[n - 2].instrs.push_back(branchTo(0, true));
  f.blocks[n - 1].instrs.push_back(exitInstr(false));
  return withLabels(std::move(f));
}

// Random terminators: fall-through (empty block), conditional branches
// forward and backward (loops, self loops, and irreducible entries where they
// cross), unconditional branches (leaving the next block unreachable unless
// something else reaches it), switches with duplicate targets, guarded and
// unguarded exits. Deterministic.
Function randomCfg(uint32_t n, uint64_t seed) {
  Function f;
  f.name = "random";
  f.blocks.resize(n);
  std::mt19937_64 rng(seed);
  auto below = [&](uint32_t k) { return uint32_t(rng() % k); };
  auto near = [&](uint32_t i) { // up to 48 blocks back or 96 ahead, inside the function
    uint32_t lo = i > 48 ? i - 48 : 0, hi = std::min(n - 1, i + 96);
    return lo + below(hi - lo + 1);
  };
  for (uint32_t i = 0; i + 1 < n; ++i) {
    const uint32_t r = below(1000);
    if (r < 350)
      continue;
    if (r < 750) {
      f.blocks[i].instrs.push_back(branchTo(near(i), true));
    } else if (r < 800) {
      f.blocks[i].instrs.push_back(branchTo(near(i), false));
    } else if (r < 900) {
      JumpTable jt;
      jt.name = fmt::format("T{}", f.jumpTables.size());
      for (uint32_t k = 1 + below(5); k > 0; --k) // sometimes repeating the first target
        jt.targets.push_back(below(4) == 0 && !jt.targets.empty() ? jt.targets[0] : near(i));
      Instr brx;
      brx.op = Opcode::BRX;
      brx.srcs.push_back(Operand::reg_(R(0)));
      brx.srcs.push_back(Operand::jumpTable(uint32_t(f.jumpTables.size())));
      f.jumpTables.push_back(std::move(jt));
      f.blocks[i].instrs.push_back(std::move(brx));
    } else {
      f.blocks[i].instrs.push_back(exitInstr(r < 998));
    }
  }
  f.blocks[n - 1].instrs.push_back(exitInstr(false));
  return withLabels(std::move(f));
}

// Pre and post numbers of the claimed dominator tree (explicit stack), so
// that "a is an ancestor of b" is a constant-time test; 0 = not in the tree.
struct TreeNumbers {
  std::vector<uint32_t> pre, post;
  bool ancestor(uint32_t a, uint32_t b) const {
    return pre[a] != 0 && pre[b] != 0 && pre[a] <= pre[b] && post[b] <= post[a];
  }
};

TreeNumbers numberTree(const DomFacts &dom) {
  const uint32_t n = uint32_t(dom.idom.size());
  std::vector<std::vector<uint32_t>> children(n);
  for (uint32_t b = 0; b < n; ++b)
    if (dom.idom[b] != kNoBlock)
      children[uint32_t(dom.idom[b])].push_back(b);
  TreeNumbers t{std::vector<uint32_t>(n, 0), std::vector<uint32_t>(n, 0)};
  uint32_t clock = 0;
  std::vector<std::pair<uint32_t, size_t>> stack{{0u, 0u}};
  t.pre[0] = ++clock;
  while (!stack.empty()) {
    auto [b, k] = stack.back();
    if (k < children[b].size()) {
      ++stack.back().second;
      uint32_t c = children[b][k];
      t.pre[c] = ++clock;
      stack.emplace_back(c, 0u);
    } else {
      t.post[b] = ++clock;
      stack.pop_back();
    }
  }
  return t;
}

// Blocks reached from bix 0 without entering `avoid` (kNoBlock: none).
std::vector<uint8_t> reachAvoiding(const CfgFacts &cfg, int32_t avoid) {
  std::vector<uint8_t> seen(cfg.succs.size(), 0);
  if (avoid == 0)
    return seen;
  std::vector<uint32_t> work{0};
  seen[0] = 1;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : cfg.succs[b])
      if (!seen[s] && int32_t(s) != avoid) {
        seen[s] = 1;
        work.push_back(s);
      }
  }
  return seen;
}

// A 1M-block chain. By hand: every block falls through to the next, bix n-2
// also branches to bix 0 (successors [0, n-1]: taken target first). The DFS
// walks 0, 1, ..., n-2, finds bix 0 visited, goes to n-1 and unwinds:
// postorder n-1, n-2, ..., 0, so RPO is 0..n-1 and n-2 -> 0 is the only
// backedge (RPO 0 <= n-2). Each block's only path from the entry passes all
// blocks before it: idom[i] = i-1. One loop: header 0, latch n-2, body
// 0..n-2, exit n-1, no preheader (bix 0 has no predecessor outside), depth 1.
TEST(CfgLarge, MillionBlockChain) {
  const uint32_t n = 1000000;
  const Function f = chain(n);
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts d = optimized::computeDominators(f, cfg);
  LoopFacts lf = optimized::computeLoops(f, cfg, d);

  ASSERT_EQ(cfg.rpo.size(), n);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(cfg.rpo[i], i);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(cfg.rpoNumber[i], int32_t(i));
  EXPECT_TRUE(std::ranges::equal(cfg.succs[n - 2], std::vector<uint32_t>{0, n - 1}));
  EXPECT_TRUE(std::ranges::equal(cfg.preds[0], std::vector<uint32_t>{n - 2}));
  ASSERT_EQ(cfg.backedges, (std::vector<std::pair<uint32_t, uint32_t>>{{n - 2, 0}}));
  EXPECT_EQ(d.idom[0], kNoBlock);
  for (uint32_t i = 1; i < n; ++i)
    ASSERT_EQ(d.idom[i], int32_t(i - 1));
  ASSERT_EQ(lf.loops.size(), 1u);
  const Loop &L = lf.loops[0];
  EXPECT_EQ(L.header, 0u);
  EXPECT_EQ(L.latches, std::vector<uint32_t>{n - 2});
  ASSERT_EQ(L.body.size(), size_t(n - 1));
  for (uint32_t i = 0; i + 1 < n; ++i)
    ASSERT_EQ(L.body[i], i);
  EXPECT_EQ(L.exits, std::vector<uint32_t>{n - 1});
  EXPECT_EQ(L.preheader, kNoBlock);
  EXPECT_EQ(L.depth, 1u);
}

// A 1M-block random CFG: the RPO is a depth-first numbering of exactly the
// reachable blocks; the claimed dominator tree has the parent property (for
// every reachable edge p -> b, idom(b) is an ancestor of p or p itself), which
// makes every ancestor a dominator; on a sample, idom(b) dominates b by
// brute force (b is unreachable once idom(b) is removed); and the loops are
// closed under predecessors and dominated by their headers.
TEST(CfgLarge, MillionBlockRandomCfg) {
  const uint32_t n = 1000000;
  const Function f = randomCfg(n, 1);
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts d = optimized::computeDominators(f, cfg);
  LoopFacts lf = optimized::computeLoops(f, cfg, d);

  // RPO: a permutation of the reachable blocks, inverse of rpoNumber, every
  // block after its depth-first tree parent, every non-backedge forward.
  std::vector<uint8_t> reach = reachAvoiding(cfg, kNoBlock);
  const size_t reachable = size_t(std::count(reach.begin(), reach.end(), 1));
  ASSERT_GT(reachable, size_t(n / 2)); // the graph is not cut short early
  ASSERT_LT(reachable, size_t(n));     // and has unreachable blocks
  ASSERT_EQ(cfg.rpo.size(), reachable);
  ASSERT_EQ(cfg.rpo[0], 0u);
  std::vector<uint8_t> listed(n, 0);
  for (uint32_t i = 0; i < cfg.rpo.size(); ++i) {
    const uint32_t b = cfg.rpo[i];
    ASSERT_TRUE(reach[b]) << "bix" << b;
    ASSERT_FALSE(listed[b]) << "bix" << b << " twice in the RPO";
    listed[b] = 1;
    ASSERT_EQ(cfg.rpoNumber[b], int32_t(i));
    bool parentBefore = i == 0;
    for (uint32_t p : cfg.preds[b])
      parentBefore |= cfg.rpoNumber[p] != kNoBlock && cfg.rpoNumber[p] < int32_t(i);
    ASSERT_TRUE(parentBefore) << "bix" << b;
  }
  size_t back = 0;
  for (uint32_t b = 0; b < n; ++b) {
    if (!reach[b]) {
      ASSERT_EQ(cfg.rpoNumber[b], kNoBlock);
      ASSERT_EQ(d.idom[b], kNoBlock);
      continue;
    }
    for (uint32_t s : cfg.succs[b])
      back += cfg.rpoNumber[s] <= cfg.rpoNumber[b];
  }
  ASSERT_EQ(cfg.backedges.size(), back);

  // Dominator tree: rooted at bix 0, idoms earlier in RPO, parent property.
  ASSERT_EQ(d.idom[0], kNoBlock);
  for (uint32_t b = 1; b < n; ++b)
    if (reach[b]) {
      ASSERT_NE(d.idom[b], kNoBlock) << "bix" << b;
      ASSERT_LT(cfg.rpoNumber[uint32_t(d.idom[b])], cfg.rpoNumber[b]) << "bix" << b;
    }
  const TreeNumbers tree = numberTree(d);
  for (uint32_t p = 0; p < n; ++p)
    if (reach[p])
      for (uint32_t b : cfg.succs[p])
        if (b != 0) {
          ASSERT_TRUE(tree.ancestor(uint32_t(d.idom[b]), p)) << "edge bix" << p << " -> bix" << b;
        }
  std::mt19937 pick(7);
  for (int k = 0; k < 12; ++k) {
    uint32_t b = cfg.rpo[1 + pick() % (cfg.rpo.size() - 1)];
    ASSERT_FALSE(reachAvoiding(cfg, d.idom[b])[b])
        << "bix" << d.idom[b] << " does not dominate bix" << b;
  }

  // Loops: headers ascend; latches are backedge sources the header dominates;
  // the body is sorted, holds the header, is dominated by it, and every
  // reachable predecessor of a body block but the header is in the body;
  // exits are outside with a predecessor inside.
  RecordProperty("reachable", int(reachable));
  RecordProperty("loops", int(lf.loops.size()));
  ASSERT_FALSE(lf.loops.empty());
  for (size_t k = 0; k < lf.loops.size(); ++k) {
    const Loop &L = lf.loops[k];
    if (k > 0) {
      ASSERT_LT(lf.loops[k - 1].header, L.header);
    }
    ASSERT_TRUE(std::is_sorted(L.body.begin(), L.body.end()));
    auto inBody = [&](uint32_t b) { return std::binary_search(L.body.begin(), L.body.end(), b); };
    ASSERT_TRUE(inBody(L.header));
    for (uint32_t l : L.latches) {
      ASSERT_TRUE(std::count(cfg.succs[l].begin(), cfg.succs[l].end(), L.header))
          << "latch bix" << l;
      ASSERT_TRUE(tree.ancestor(L.header, l));
    }
    for (uint32_t b : L.body) {
      ASSERT_TRUE(tree.ancestor(L.header, b)) << "loop at bix" << L.header << ", bix" << b;
      if (b == L.header)
        continue;
      for (uint32_t p : cfg.preds[b])
        if (reach[p]) {
          ASSERT_TRUE(inBody(p)) << "loop at bix" << L.header << ": bix" << p << " -> bix" << b;
        }
    }
    for (uint32_t e : L.exits) {
      ASSERT_FALSE(inBody(e));
      ASSERT_TRUE(std::any_of(cfg.preds[e].begin(), cfg.preds[e].end(), inBody));
    }
  }
}

#if defined(ORIOPT_HAVE_REFERENCE)
// 100,000 blocks: the reference half (Boost.Graph, Lengauer-Tarjan, explicit
// reachability sets) gives the same facts as the optimized half.
TEST(CfgLarge, HalvesAgreeOnHundredThousandBlocks) {
  for (const Function &f : {randomCfg(100000, 2), chain(100000)}) {
    SCOPED_TRACE(f.name);
    CfgFacts rc = reference::computeCfg(f), oc = optimized::computeCfg(f);
    ASSERT_EQ(firstDifference(rc, oc), "");
    DomFacts rd = reference::computeDominators(f, rc), od = optimized::computeDominators(f, oc);
    ASSERT_EQ(firstDifference(rd, od), "");
    LoopFacts rl = reference::computeLoops(f, rc, rd), ol = optimized::computeLoops(f, oc, od);
    ASSERT_EQ(firstDifference(rl, ol), "");
    EXPECT_FALSE(ol.loops.empty());
  }
}
#endif

} // namespace
} // namespace ori
