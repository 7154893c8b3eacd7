// Properties of AnalyzeControlFlow (phase 3, spec/001; ir/facts.h
// AnnotationFacts) on random CFGs (fuzz/cfg_gen.h), with a random previous
// state (any flag bits, sometimes for a different number of blocks) and a
// random force_full_rebuild:
//  - the reference and optimized halves agree;
//  - the optimized half against brute force from the definitions: RPONum,
//    the reset mask (bits outside the cleared set survive, the reserved bits
//    are never set), LOOP_HEADER = backedge target, IN_LOOP = inside some
//    [header, exit] interval, the +152 field, HAS_PRED, ANALYSIS_OK and the
//    RPO-violation latch;
//  - against the natural loops (LoopFacts): every loop header is a
//    LOOP_HEADER, every body block is IN_LOOP, and a LOOP_HEADER that heads
//    no natural loop (an irreducible retreating edge) raises the latch.
// Plus a 1,000,000-block loop, which must not overflow the stack.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/cfg_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "ir/facts.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

using BA = BlockAnnotation;

// A previous state for n blocks, give or take one (the CFG may have changed).
AnnotationFacts genPrevious(size_t n) {
  AnnotationFacts prev;
  const size_t size = *rc::gen::inRange<size_t>(n == 0 ? 0 : n - 1, n + 2);
  for (size_t i = 0; i < size; ++i)
    prev.blocks.push_back({*rc::gen::arbitrary<uint32_t>(), *rc::gen::arbitrary<uint32_t>(),
                           *rc::gen::arbitrary<uint32_t>()});
  return prev;
}

#if defined(ORIOPT_HAVE_REFERENCE)
RC_GTEST_PROP(AnnotationProps, ReferenceEqualsOptimized, ()) {
  Function f = *gen::cfgFunction();
  const bool withPrevious = *rc::gen::arbitrary<bool>();
  const AnnotationFacts prev = withPrevious ? genPrevious(f.blocks.size()) : AnnotationFacts{};
  const bool force = *rc::gen::arbitrary<bool>();
  CfgFacts cfg = optimized::computeCfg(f);
  AnnotationFacts r = reference::analyzeControlFlow(f, cfg, withPrevious ? &prev : nullptr, force);
  AnnotationFacts o = optimized::analyzeControlFlow(f, cfg, withPrevious ? &prev : nullptr, force);
  if (!(r == o))
    RC_FAIL(firstDifference(r, o));
}
#endif

RC_GTEST_PROP(AnnotationProps, MatchTheirDefinitionsAndTheNaturalLoops, ()) {
  Function f = *gen::cfgFunction();
  const AnnotationFacts prev = genPrevious(f.blocks.size());
  const bool force = *rc::gen::arbitrary<bool>();
  CfgFacts cfg = optimized::computeCfg(f);
  LoopFacts loops = optimized::computeLoops(f, cfg, optimized::computeDominators(f, cfg));
  AnnotationFacts a = optimized::analyzeControlFlow(f, cfg, &prev, force);
  const uint32_t n = uint32_t(f.blocks.size());
  RC_ASSERT(a.blocks.size() == size_t(n));
  RC_ASSERT(!a.reentrancyGuard);

  std::vector<uint32_t> rpo(n, 0);
  for (uint32_t b = 0; b < n; ++b)
    rpo[b] = cfg.rpoNumber[b] == kNoBlock ? 0 : uint32_t(cfg.rpoNumber[b]) + 1;
  std::vector<std::pair<uint32_t, uint32_t>> edges; // numbered blocks only
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v : cfg.succs[u])
      if (rpo[u] && rpo[v])
        edges.emplace_back(u, v);
  std::vector<uint32_t> exitOf(n, 0), latchPred(n, 0);
  for (auto [u, v] : edges)
    if (rpo[v] <= rpo[u]) {
      exitOf[v] = std::max(exitOf[v], rpo[u]);
      latchPred[u] = latchPred[u] ? std::min(latchPred[u], rpo[v]) : rpo[v];
    }
  auto covers = [&](uint32_t h, uint32_t r) { return exitOf[h] && rpo[h] <= r && r <= exitOf[h]; };

  bool earlyExit = false;
  for (uint32_t b = 0; b < n; ++b) {
    const BA &x = a.blocks[b];
    const uint32_t before = b < prev.blocks.size() ? prev.blocks[b].flags : 0;
    RC_ASSERT(x.rpoNumber == rpo[b]);
    RC_ASSERT((x.flags & BA::kResetMask) == (before & BA::kResetMask));
    RC_ASSERT((x.flags & 0x00030640u) == 0u); // cleared, never set (bits 6, 9, 10, 16, 17)
    if (rpo[b] == 0) {
      RC_ASSERT(x.flags == (before & BA::kResetMask));
      RC_ASSERT(x.latchPredOrExit == 0u);
      continue;
    }
    earlyExit = earlyExit || (before & BA::kEarlyExit);
    RC_ASSERT(bool(x.flags & BA::kLoopHeader) == (exitOf[b] != 0));
    RC_ASSERT(bool(x.flags & BA::kAnalysisOk) == (latchPred[b] != 0));
    RC_ASSERT(x.latchPredOrExit == (exitOf[b] ? exitOf[b] : latchPred[b]));
    // With a depth-first RPO every block but the entry has a smaller predecessor (its DFS parent).
    RC_ASSERT(bool(x.flags & BA::kHasPred) == (force || b != 0));
    bool inLoop = false;
    for (uint32_t h = 0; h < n; ++h)
      inLoop = inLoop || covers(h, rpo[b]);
    RC_ASSERT(bool(x.flags & BA::kInLoop) == inLoop);
  }
  RC_ASSERT(a.earlyExitObserved == earlyExit);

  bool violation = false;
  for (auto [u, v] : edges)
    for (uint32_t h = 0; h < n; ++h)
      if (covers(h, rpo[v]) && rpo[v] != rpo[h] && !covers(h, rpo[u]))
        violation = true;
  RC_ASSERT(a.rpoViolation == violation);

  std::vector<bool> naturalHeader(n, false);
  for (const Loop &l : loops.loops) {
    naturalHeader[l.header] = true;
    RC_ASSERT(bool(a.blocks[l.header].flags & BA::kLoopHeader));
    for (uint32_t b : l.body)
      RC_ASSERT(bool(a.blocks[b].flags & BA::kInLoop));
  }
  for (uint32_t b = 0; b < n; ++b)
    if ((a.blocks[b].flags & BA::kLoopHeader) && rpo[b] && !naturalHeader[b])
      RC_ASSERT(a.rpoViolation);
}

// bix0 .. bix(n-2) a chain, bix(n-2) branching back to bix1, bix(n-1) EXIT:
// one loop [2, n-1] in RPO numbers; every block but the first and last is
// IN_LOOP. No recursion may overflow on it.
TEST(AnnotationLarge, MillionBlockLoop) {
  const uint32_t n = 1000000;
  Function f;
  f.name = "chain";
  f.blocks.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    f.blocks[i].label = fmt::format("L{}", i);
    f.blocks[i].instrs.push_back(Instr{});
  }
  Instr bra;
  bra.op = Opcode::BRA;
  bra.guard = Operand::reg_(P(0));
  bra.srcs.push_back(Operand::label(1));
  f.blocks[n - 2].instrs.back() = bra;
  Instr exit;
  exit.op = Opcode::EXIT;
  f.blocks[n - 1].instrs.back() = exit;
  f.recountRegs();
  CfgFacts cfg = optimized::computeCfg(f);
  AnnotationFacts a = optimized::analyzeControlFlow(f, cfg, nullptr, false);
  ASSERT_EQ(a.blocks.size(), size_t(n));
  EXPECT_EQ(a.blocks[1].flags, BA::kLoopHeader | BA::kHasPred | BA::kInLoop);
  EXPECT_EQ(a.blocks[1].latchPredOrExit, n - 1);
  EXPECT_EQ(a.blocks[n - 2].flags, BA::kHasPred | BA::kAnalysisOk | BA::kInLoop);
  EXPECT_EQ(a.blocks[n - 2].latchPredOrExit, 2u);
  for (uint32_t i = 2; i + 2 < n; ++i)
    ASSERT_EQ(a.blocks[i].flags, BA::kHasPred | BA::kInLoop) << i;
  EXPECT_EQ(a.blocks[n - 1].flags, BA::kHasPred);
  EXPECT_EQ(a.blocks[0].flags, 0u);
  EXPECT_FALSE(a.rpoViolation);
}

} // namespace
} // namespace ori
