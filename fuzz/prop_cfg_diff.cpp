// Properties of the CFG analyses on random CFGs (fuzz/cfg_gen.h):
//  - the reference and optimized halves agree on CfgFacts, DomFacts and
//    LoopFacts (when reference/ is built);
//  - definitional checks of the optimized half against brute force: the
//    successor rules, RPO is a permutation of the reachable blocks and every
//    non-backedge goes forward in it, idom(b) dominates b (by removing it and
//    searching) and is the closest strict dominator, loops are the natural
//    loops of the dominating backedges.
// Plus a 1,000,000-block chain that must not overflow the stack.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <chrono>
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

std::string firstProblem(const std::vector<std::string>& problems) {
  return problems.empty() ? std::string() : problems.front();
}

// Blocks reached from bix 0 without entering `avoid` (kNoBlock: none avoided).
std::vector<bool> reachAvoiding(const CfgFacts& cfg, int32_t avoid) {
  size_t n = cfg.succs.size();
  std::vector<bool> seen(n, false);
  if (n == 0 || avoid == 0) return seen;
  std::vector<uint32_t> work{0};
  seen[0] = true;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : cfg.succs[b])
      if (!seen[s] && int32_t(s) != avoid) {
        seen[s] = true;
        work.push_back(s);
      }
  }
  return seen;
}

// dom[d][b]: d dominates b (both reachable), by definition.
std::vector<std::vector<bool>> bruteDominance(const CfgFacts& cfg) {
  size_t n = cfg.succs.size();
  std::vector<bool> reach = reachAvoiding(cfg, kNoBlock);
  std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, false));
  for (size_t d = 0; d < n; ++d) {
    if (!reach[d]) continue;
    std::vector<bool> without = reachAvoiding(cfg, int32_t(d));
    for (size_t b = 0; b < n; ++b) dom[d][b] = reach[b] && !without[b];
  }
  return dom;
}

RC_GTEST_PROP(CfgProps, GeneratedCfgsVerify, ()) {
  Function f = *gen::cfgFunction();
  RC_ASSERT(firstProblem(verifyFunction(f)) == "");
}

#if defined(ORIOPT_HAVE_REFERENCE)
RC_GTEST_PROP(CfgProps, ReferenceEqualsOptimized, ()) {
  Function f = *gen::cfgFunction();
  CfgFacts rc = reference::computeCfg(f), oc = optimized::computeCfg(f);
  if (!(rc == oc)) RC_FAIL("CfgFacts: " + firstDifference(rc, oc));
  DomFacts rd = reference::computeDominators(f, rc), od = optimized::computeDominators(f, oc);
  if (!(rd == od)) RC_FAIL("DomFacts: " + firstDifference(rd, od));
  LoopFacts rl = reference::computeLoops(f, rc, rd), ol = optimized::computeLoops(f, oc, od);
  if (!(rl == ol)) RC_FAIL("LoopFacts: " + firstDifference(rl, ol));
}
#endif

// Successor lists by the rules of optimized.h, computed the obvious way.
RC_GTEST_PROP(CfgProps, SuccessorsFollowTheRules, ()) {
  Function f = *gen::cfgFunction();
  CfgFacts cfg = optimized::computeCfg(f);
  const uint32_t n = uint32_t(f.blocks.size());
  RC_ASSERT(cfg.succs.size() == n);
  for (uint32_t b = 0; b < n; ++b) {
    std::vector<uint32_t> want;
    const Block& blk = f.blocks[b];
    bool fall = true;
    if (!blk.instrs.empty()) {
      const Instr& in = blk.instrs.back();
      if (in.op == Opcode::BRA) want.push_back(in.srcs[0].target);
      if (in.op == Opcode::BRX) want = f.jumpTables[in.srcs[1].target].targets;
      bool cf = in.op == Opcode::BRA || in.op == Opcode::BRX || in.op == Opcode::EXIT || in.op == Opcode::RET;
      fall = !cf || in.isGuarded();
    }
    if (fall && b + 1 < n) want.push_back(b + 1);
    std::vector<uint32_t> dedup;
    for (uint32_t s : want)
      if (std::find(dedup.begin(), dedup.end(), s) == dedup.end()) dedup.push_back(s);
    RC_ASSERT(cfg.succs[b] == dedup);
    for (uint32_t s : cfg.succs[b])
      RC_ASSERT(std::count(cfg.preds[s].begin(), cfg.preds[s].end(), b) == 1);
    RC_ASSERT(std::is_sorted(cfg.preds[b].begin(), cfg.preds[b].end()));
  }
}

RC_GTEST_PROP(CfgProps, RpoIsADepthFirstOrderAndNonBackedgesGoForward, ()) {
  Function f = *gen::cfgFunction();
  CfgFacts cfg = optimized::computeCfg(f);
  std::vector<bool> reach = reachAvoiding(cfg, kNoBlock);
  const size_t n = cfg.succs.size();
  RC_ASSERT(!cfg.rpo.empty());
  RC_ASSERT(cfg.rpo[0] == 0u);
  RC_ASSERT(size_t(std::count(reach.begin(), reach.end(), true)) == cfg.rpo.size());
  for (size_t b = 0; b < n; ++b) {
    RC_ASSERT((cfg.rpoNumber[b] != kNoBlock) == bool(reach[b]));
    if (reach[b]) RC_ASSERT(cfg.rpo[size_t(cfg.rpoNumber[b])] == b);
  }
  std::set<std::pair<uint32_t, uint32_t>> back(cfg.backedges.begin(), cfg.backedges.end());
  RC_ASSERT(back.size() == cfg.backedges.size());
  RC_ASSERT(std::is_sorted(cfg.backedges.begin(), cfg.backedges.end(),
                           [](auto a, auto b) { return a.first < b.first; }));
  for (uint32_t b = 0; b < n; ++b) {
    if (!reach[b]) continue;
    for (uint32_t s : cfg.succs[b]) {
      bool isBack = back.count({b, s}) != 0;
      RC_ASSERT(isBack == (cfg.rpoNumber[s] <= cfg.rpoNumber[b]));
      if (!isBack) RC_ASSERT(cfg.rpoNumber[s] > cfg.rpoNumber[b]);
    }
  }
  // Depth-first: in RPO every block but the entry has a predecessor before it
  // (its DFS tree parent).
  for (size_t i = 1; i < cfg.rpo.size(); ++i) {
    bool parentBefore = false;
    for (uint32_t p : cfg.preds[cfg.rpo[i]])
      if (cfg.rpoNumber[p] != kNoBlock && cfg.rpoNumber[p] < int32_t(i)) parentBefore = true;
    RC_ASSERT(parentBefore);
  }
}

RC_GTEST_PROP(CfgProps, IdomIsTheClosestStrictDominator, ()) {
  Function f = *gen::cfgFunction(gen::CfgOptions{24, 120});
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts d = optimized::computeDominators(f, cfg);
  auto dom = bruteDominance(cfg);
  const size_t n = cfg.succs.size();
  RC_ASSERT(d.idom.size() == n);
  RC_ASSERT(d.idom[0] == kNoBlock);
  for (size_t b = 1; b < n; ++b) {
    if (cfg.rpoNumber[b] == kNoBlock) {
      RC_ASSERT(d.idom[b] == kNoBlock);
      continue;
    }
    // The idom chain climbs to the entry with strictly falling RPO numbers,
    // through dominators of b only.
    int32_t x = d.idom[b];
    int32_t lastRpo = cfg.rpoNumber[b];
    while (true) {
      RC_ASSERT(x != kNoBlock);
      RC_ASSERT(cfg.rpoNumber[size_t(x)] < lastRpo);
      RC_ASSERT(dom[size_t(x)][b]);
      if (x == 0) break;
      lastRpo = cfg.rpoNumber[size_t(x)];
      x = d.idom[size_t(x)];
    }
    // Immediate: every strict dominator of b dominates idom(b).
    for (size_t s = 0; s < n; ++s)
      if (s != b && dom[s][b]) RC_ASSERT(dom[s][size_t(d.idom[b])]);
  }
}

RC_GTEST_PROP(CfgProps, LoopsAreTheNaturalLoopsOfDominatingBackedges, ()) {
  Function f = *gen::cfgFunction(gen::CfgOptions{24, 120});
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts d = optimized::computeDominators(f, cfg);
  LoopFacts lf = optimized::computeLoops(f, cfg, d);
  auto dom = bruteDominance(cfg);
  const uint32_t n = uint32_t(cfg.succs.size());
  // Expected latches per header.
  std::vector<std::vector<uint32_t>> latches(n);
  for (auto [s, h] : cfg.backedges)
    if (dom[h][s]) latches[h].push_back(s);
  std::vector<uint32_t> headers;
  for (uint32_t h = 0; h < n; ++h)
    if (!latches[h].empty()) headers.push_back(h);
  RC_ASSERT(lf.loops.size() == headers.size());
  std::vector<std::vector<bool>> inBody;
  for (size_t k = 0; k < lf.loops.size(); ++k) {
    const Loop& L = lf.loops[k];
    const uint32_t h = headers[k];
    RC_ASSERT(L.header == h);
    std::vector<uint32_t> want = latches[h];
    std::sort(want.begin(), want.end());
    RC_ASSERT(L.latches == want);
    // Body: reachable b with a path to a latch that does not pass the header.
    std::vector<bool> body(n, false);
    body[h] = true;
    for (uint32_t b = 0; b < n; ++b) {
      if (b == h || cfg.rpoNumber[b] == kNoBlock) continue;
      std::vector<bool> seen(n, false);
      std::vector<uint32_t> work{b};
      seen[b] = true;
      while (!work.empty() && !body[b]) {
        uint32_t x = work.back();
        work.pop_back();
        if (std::count(want.begin(), want.end(), x)) body[b] = true;
        for (uint32_t s : cfg.succs[x])
          if (s != h && !seen[s]) {
            seen[s] = true;
            work.push_back(s);
          }
      }
    }
    std::vector<uint32_t> wantBody;
    for (uint32_t b = 0; b < n; ++b)
      if (body[b]) {
        wantBody.push_back(b);
        RC_ASSERT(dom[h][b]); // the header dominates its body
      }
    RC_ASSERT(L.body == wantBody);
    std::set<uint32_t> outsidePreds, exits;
    for (uint32_t p : cfg.preds[h])
      if (!body[p] && cfg.rpoNumber[p] != kNoBlock) outsidePreds.insert(p); // reachable only
    RC_ASSERT(L.preheader == (outsidePreds.size() == 1 ? int32_t(*outsidePreds.begin()) : kNoBlock));
    for (uint32_t b : wantBody)
      for (uint32_t s : cfg.succs[b])
        if (!body[s]) exits.insert(s);
    RC_ASSERT(L.exits == std::vector<uint32_t>(exits.begin(), exits.end()));
    inBody.push_back(body);
  }
  for (size_t k = 0; k < lf.loops.size(); ++k) {
    uint32_t depth = 0;
    for (const auto& body : inBody) depth += body[lf.loops[k].header] ? 1 : 0;
    RC_ASSERT(lf.loops[k].depth == depth);
  }
}

// A 1,000,000-block chain (each block a NOP falling through, the last one a
// guarded BRA back to the entry, then EXIT): no recursion may overflow.
TEST(CfgLarge, MillionBlockChain) {
  const uint32_t n = 1000000;
  Function f;
  f.name = "chain";
  f.blocks.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    f.blocks[i].label = "L";
    f.blocks[i].label += std::to_string(i);
    f.blocks[i].instrs.push_back(Instr{});
  }
  Instr bra;
  bra.op = Opcode::BRA;
  bra.guard = Operand::reg_(P(0));
  bra.srcs.push_back(Operand::label(0));
  f.blocks[n - 2].instrs.back() = bra;
  Instr exit;
  exit.op = Opcode::EXIT;
  f.blocks[n - 1].instrs.back() = exit;
  f.recountRegs();

  auto t0 = std::chrono::steady_clock::now();
  CfgFacts cfg = optimized::computeCfg(f);
  auto t1 = std::chrono::steady_clock::now();
  DomFacts d = optimized::computeDominators(f, cfg);
  auto t2 = std::chrono::steady_clock::now();
  LoopFacts lf = optimized::computeLoops(f, cfg, d);
  auto t3 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  RecordProperty("cfg_ms", std::to_string(ms(t0, t1)));
  std::printf("1M-block chain: cfg %.1f ms, dominators %.1f ms, loops %.1f ms\n", ms(t0, t1), ms(t1, t2),
              ms(t2, t3));

  ASSERT_EQ(cfg.rpo.size(), n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(cfg.rpo[i], i);
  ASSERT_EQ(cfg.backedges, (std::vector<std::pair<uint32_t, uint32_t>>{{n - 2, 0}}));
  for (uint32_t i = 1; i < n; ++i) ASSERT_EQ(d.idom[i], int32_t(i - 1));
  ASSERT_EQ(lf.loops.size(), 1u);
  const Loop& L = lf.loops[0];
  EXPECT_EQ(L.header, 0u);
  EXPECT_EQ(L.latches, std::vector<uint32_t>{n - 2});
  EXPECT_EQ(L.body.size(), size_t(n - 1));
  EXPECT_EQ(L.exits, std::vector<uint32_t>{n - 1});
  EXPECT_EQ(L.preheader, kNoBlock);
  EXPECT_EQ(L.depth, 1u);
}

} // namespace
} // namespace ori
