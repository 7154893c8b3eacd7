// CFG, dominators and loops of both halves (reference/ and optimized/
// {cfg,dominators,loops}.cpp) on small hand-analysed .ori functions: one typed
// suite, run once per half. Every expected fact is derived by hand in the
// comment above it, independently of the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/facts.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "tests/unit/parse_one.h"

namespace ori {
namespace {

using Edges = std::vector<std::pair<uint32_t, uint32_t>>;
using Lists = std::vector<std::vector<uint32_t>>;

struct Analysed {
  Function f;
  CfgFacts cfg;
  DomFacts dom;
  LoopFacts loops;
};

// The two halves, as type parameters of the suite.
struct ReferenceHalf {
  static CfgFacts cfg(const Function &f) { return reference::computeCfg(f); }
  static DomFacts dom(const Function &f, const CfgFacts &c) {
    return reference::computeDominators(f, c);
  }
  static LoopFacts loops(const Function &f, const CfgFacts &c, const DomFacts &d) {
    return reference::computeLoops(f, c, d);
  }
};
struct OptimizedHalf {
  static CfgFacts cfg(const Function &f) { return optimized::computeCfg(f); }
  static DomFacts dom(const Function &f, const CfgFacts &c) {
    return optimized::computeDominators(f, c);
  }
  static LoopFacts loops(const Function &f, const CfgFacts &c, const DomFacts &d) {
    return optimized::computeLoops(f, c, d);
  }
};

template <typename Half> Analysed analyse(const std::string &text) {
  Analysed a;
  a.f = parseOne(text);
  a.cfg = Half::cfg(a.f);
  a.dom = Half::dom(a.f, a.cfg);
  a.loops = Half::loops(a.f, a.cfg, a.dom);
  return a;
}

template <typename Half> class CfgHalves : public ::testing::Test {};
struct HalfName {
  template <typename T> static std::string GetName(int) {
    return std::is_same_v<T, ReferenceHalf> ? "Reference" : "Optimized";
  }
};
using Halves = ::testing::Types<ReferenceHalf, OptimizedHalf>;
TYPED_TEST_SUITE(CfgHalves, Halves, HalfName);

void expectCfg(const CfgFacts &got, const CfgFacts &want) {
  EXPECT_TRUE(got == want) << firstDifference(want, got);
}
void expectDom(const DomFacts &got, const std::vector<int32_t> &idom) {
  EXPECT_TRUE(got == DomFacts{idom}) << firstDifference(DomFacts{idom}, got);
}
void expectLoops(const LoopFacts &got, const std::vector<Loop> &loops) {
  EXPECT_TRUE(got == LoopFacts{loops}) << firstDifference(LoopFacts{loops}, got);
}

// bix0 -> {2 taken, 1 fall-through}; 1 -> 3; 2 -> 3; 3 exits.
// DFS visits the taken target first: 0, 2, 3 (done), back, 1 (3 is done).
// Postorder 3 2 1 0, so RPO [0, 1, 2, 3]. (Fall-through first would give
// [0, 2, 1, 3].) No backedge; 0 dominates everything; no loop.
TYPED_TEST(CfgHalves, Diamond) {
  auto a = analyse<TypeParam>(R"(
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
  ASSERT_EQ(a.f.blocks.size(), 4u);
  expectCfg(a.cfg, CfgFacts{Lists{{2, 1}, {3}, {3}, {}},
                            Lists{{}, {0}, {0}, {1, 2}},
                            {0, 1, 2, 3},
                            {0, 1, 2, 3},
                            Edges{}});
  expectDom(a.dom, {kNoBlock, 0, 0, 0});
  expectLoops(a.loops, {});
}

// 0 -> 1; header 1 -> {3 taken, 2}; 2 -> 1; 3 exits.
// DFS: 0, 1, 3 (done), 2 (1 on stack) done, 1 done, 0 done: RPO [0, 1, 2, 3].
// Backedge 2 -> 1. idom: 1 by 0, 2 and 3 by 1. Loop at 1: latch 2, body
// {1, 2}, preheader 0 (the only outside predecessor), exit 3.
TYPED_TEST(CfgHalves, LoopWithPreheader) {
  auto a = analyse<TypeParam>(R"(
.entry loop()
{
  MOV R0, RZ
L_head:
  ISETP.GE.AND P0, PT, R0, 0xa, PT
  @P0 BRA L_done
L_body:
  IADD3 R0, R0, 0x1, RZ
  BRA L_head
L_done:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 4u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {3, 2}, {1}, {}},
                            Lists{{}, {0, 2}, {1}, {1}},
                            {0, 1, 2, 3},
                            {0, 1, 2, 3},
                            Edges{{2, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1, 1});
  expectLoops(a.loops, {Loop{1, {2}, {1, 2}, 1, 0, {3}}});
}

// 0 -> 1 -> 2; inner header 2 -> {4 taken, 3}; 3 -> 2; outer latch
// 4 -> {1 taken, 5}; 5 exits.
// DFS: 0 1 2 4 (1 on stack) 5 done, 4 done, 3 (2 on stack) done, 2 1 0:
// postorder 5 4 3 2 1 0, RPO [0..5]. Backedges by source: 3 -> 2, 4 -> 1.
// idom: 1:0 2:1 3:2 4:2 5:4.
// Outer loop at 1: latch 4, body {1,2,3,4}, depth 1, preheader 0, exit 5.
// Inner loop at 2: latch 3, body {2,3}, depth 2, preheader 1, exit 4.
TYPED_TEST(CfgHalves, NestedLoopsDepths) {
  auto a = analyse<TypeParam>(R"(
.entry nested()
{
  MOV R0, RZ
L_outer:
  MOV R1, RZ
L_inner:
  ISETP.GE.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_latch
L_ibody:
  IADD3 R1, R1, 0x1, RZ
  BRA L_inner
L_latch:
  IADD3 R0, R0, 0x1, RZ
  ISETP.LT.AND P1, PT, R0, 0x4, PT
  @P1 BRA L_outer
L_done:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 6u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {2}, {4, 3}, {2}, {1, 5}, {}},
                            Lists{{}, {0, 4}, {1, 3}, {2}, {2}, {4}},
                            {0, 1, 2, 3, 4, 5},
                            {0, 1, 2, 3, 4, 5},
                            Edges{{3, 2}, {4, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1, 2, 2, 4});
  expectLoops(a.loops, {Loop{1, {4}, {1, 2, 3, 4}, 1, 0, {5}}, Loop{2, {3}, {2, 3}, 2, 1, {4}}});
}

// 0 -> 1; 1 -> {1 taken, 2}; 2 exits. RPO [0, 1, 2]; backedge 1 -> 1
// (RPO(1) <= RPO(1)). Loop at 1: latch 1, body {1}, preheader 0, exit 2.
TYPED_TEST(CfgHalves, SelfLoop) {
  auto a = analyse<TypeParam>(R"(
.entry spin()
{
  MOV R0, RZ
L_spin:
  IADD3 R0, R0, 0x1, RZ
  ISETP.LT.AND P0, PT, R0, 0x8, PT
  @P0 BRA L_spin
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 3u);
  expectCfg(
      a.cfg,
      CfgFacts{
          Lists{{1}, {1, 2}, {}}, Lists{{}, {0, 1}, {1}}, {0, 1, 2}, {0, 1, 2}, Edges{{1, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1});
  expectLoops(a.loops, {Loop{1, {1}, {1}, 1, 0, {2}}});
}

// Table {B, A, B, C} = bix {2, 1, 2, 3}: successors of 0 are [2, 1, 3]
// (B once, first-occurrence order). 1 -> 3; 2 falls through to 3.
// DFS in table order: 0 2 3 done 2 done, 1 (3 done) done: RPO [0, 1, 2, 3]
// (table order [1, 2, 3] would give [0, 2, 1, 3]). idom all 0.
TYPED_TEST(CfgHalves, BrxDuplicateTargets) {
  auto a = analyse<TypeParam>(R"(
.entry sw()
{
  .jumptable t = {L_b, L_a, L_b, L_c}
  S2R R0, SR_TID.X
  BRX R0, t
L_a:
  BRA L_c
L_b:
  MOV R1, 0x1
L_c:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 4u);
  expectCfg(a.cfg, CfgFacts{Lists{{2, 1, 3}, {3}, {3}, {}},
                            Lists{{}, {0}, {0}, {0, 1, 2}},
                            {0, 1, 2, 3},
                            {0, 1, 2, 3},
                            Edges{}});
  expectDom(a.dom, {kNoBlock, 0, 0, 0});
  expectLoops(a.loops, {});
}

// A guarded EXIT falls through only (0 -> 1); the unguarded EXIT ends.
TYPED_TEST(CfgHalves, GuardedExitFallsThroughOnly) {
  auto a = analyse<TypeParam>(R"(
.entry early()
{
  ISETP.GE.AND P0, PT, R0, RZ, PT
  @P0 EXIT
  MOV R1, 0x1
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 2u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {}}, Lists{{}, {0}}, {0, 1}, {0, 1}, Edges{}});
  expectDom(a.dom, {kNoBlock, 0});
}

// Same for a guarded RET in a .func; CALL-free fall-through of a plain block.
TYPED_TEST(CfgHalves, GuardedRetFallsThroughOnly) {
  auto a = analyse<TypeParam>(R"(
.func g()
{
  ISETP.GE.AND P0, PT, R0, RZ, PT
  @!P0 RET
  MOV R1, 0x1
  RET
}
)");
  ASSERT_EQ(a.f.blocks.size(), 2u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {}}, Lists{{}, {0}}, {0, 1}, {0, 1}, Edges{}});
}

// A conditional BRA to the fall-through block has that successor once.
TYPED_TEST(CfgHalves, BranchToFallThroughOnce) {
  auto a = analyse<TypeParam>(R"(
.entry same()
{
  ISETP.GE.AND P0, PT, R0, RZ, PT
  @P0 BRA L_next
L_next:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 2u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {}}, Lists{{}, {0}}, {0, 1}, {0, 1}, Edges{}});
}

// 0 -> 2; 1 (dead) -> 2; 2 exits. Block 1 is unreachable: rpoNumber -1, not
// in rpo, idom -1; it is still a predecessor of 2. idom(2) = 0.
TYPED_TEST(CfgHalves, UnreachableBlock) {
  auto a = analyse<TypeParam>(R"(
.entry dead()
{
  BRA L_end
L_dead:
  MOV R0, 0x1
  BRA L_end
L_end:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 3u);
  expectCfg(
      a.cfg,
      CfgFacts{Lists{{2}, {2}, {}}, Lists{{}, {}, {0, 1}}, {0, 2}, {0, kNoBlock, 1}, Edges{}});
  expectDom(a.dom, {kNoBlock, kNoBlock, 0});
  expectLoops(a.loops, {});
}

// The loop of LoopWithPreheader plus unreachable blocks 4 -> {1, 5} and
// 5 -> 2 that enter the loop. Unreachable blocks are ignored by the loop
// analysis (reference/loops.cpp): body stays {1, 2}, preheader stays 0.
// RPO [0, 1, 2, 3] as before; rpoNumber of 4 and 5 is -1.
TYPED_TEST(CfgHalves, UnreachablePredecessorsOfALoop) {
  auto a = analyse<TypeParam>(R"(
.entry deadloop()
{
  MOV R0, RZ
L_head:
  ISETP.GE.AND P0, PT, R0, 0xa, PT
  @P0 BRA L_done
L_body:
  IADD3 R0, R0, 0x1, RZ
  BRA L_head
L_done:
  EXIT
L_dead:
  @P1 BRA L_head
L_dead2:
  BRA L_body
}
)");
  ASSERT_EQ(a.f.blocks.size(), 6u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {3, 2}, {1}, {}, {1, 5}, {2}},
                            Lists{{}, {0, 2, 4}, {1, 5}, {1}, {}, {4}},
                            {0, 1, 2, 3},
                            {0, 1, 2, 3, kNoBlock, kNoBlock},
                            Edges{{2, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1, 1, kNoBlock, kNoBlock});
  expectLoops(a.loops, {Loop{1, {2}, {1, 2}, 1, 0, {3}}});
}

// Irreducible: 0 -> {2 taken, 1}; 1 -> {3 taken, 2}; 2 -> {1 taken, 3}; 3 exits.
// DFS: 0 2 1 3 done, (2 on stack) 1 done, (3 done) 2 done, (1 done) 0 done:
// postorder 3 1 2 0, RPO [0, 2, 1, 3], rpoNumber [0, 2, 1, 3].
// Backedges: 1 -> 2 (RPO 1 <= 2); 2 -> 1 is forward (2 > 1).
// idom: all 0 (1 and 2 are each entered from 0 directly).
// 2 does not dominate 1, so the retreating edge forms no natural loop.
TYPED_TEST(CfgHalves, IrreducibleHasNoLoop) {
  auto a = analyse<TypeParam>(R"(
.entry irr()
{
  ISETP.GE.AND P0, PT, R0, RZ, PT
  @P0 BRA L_b
L_a:
  @P1 BRA L_out
L_b:
  @P2 BRA L_a
L_out:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 4u);
  expectCfg(a.cfg, CfgFacts{Lists{{2, 1}, {3, 2}, {1, 3}, {}},
                            Lists{{}, {0, 2}, {0, 1}, {1, 2}},
                            {0, 2, 1, 3},
                            {0, 2, 1, 3},
                            Edges{{1, 2}}});
  expectDom(a.dom, {kNoBlock, 0, 0, 0});
  expectLoops(a.loops, {});
}

// An irreducible region inside a natural loop: 0 -> 1; header
// 1 -> {3 taken, 2}; 2 -> {4 taken, 3}; 3 -> {2 taken, 4}; 4 -> {1 taken, 5};
// 5 exits.
// DFS: 0 1 3 2 4 (1 on stack) 5 done, 4 done, (3 on stack) 2 done,
// (4 done) 3 done, (2 done) 1 done, 0 done: postorder 5 4 2 3 1 0,
// RPO [0, 1, 3, 2, 4, 5], rpoNumber [0, 1, 3, 2, 4, 5].
// Backedges: 2 -> 3 (RPO 2 <= 3, irreducible: idom(2) = 1), 4 -> 1.
// idom: 1:0 2:1 3:1 4:1 5:4. One loop at 1: latch 4, body {1,2,3,4},
// preheader 0, exit 5; no loop at 3.
TYPED_TEST(CfgHalves, IrreducibleRegionInsideNaturalLoop) {
  auto a = analyse<TypeParam>(R"(
.entry mixed()
{
  MOV R0, RZ
L_head:
  @P0 BRA L_y
L_x:
  @P1 BRA L_latch
L_y:
  @P2 BRA L_x
L_latch:
  @P3 BRA L_head
L_done:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 6u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {3, 2}, {4, 3}, {2, 4}, {1, 5}, {}},
                            Lists{{}, {0, 4}, {1, 3}, {1, 2}, {2, 3}, {4}},
                            {0, 1, 3, 2, 4, 5},
                            {0, 1, 3, 2, 4, 5},
                            Edges{{2, 3}, {4, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1, 1, 1, 4});
  expectLoops(a.loops, {Loop{1, {4}, {1, 2, 3, 4}, 1, 0, {5}}});
}

// Two backedges to one header merge into one loop with two latches:
// 0 -> 1; header 1 -> {4 taken, 2}; 2 -> {1 taken, 3}; 3 -> 1; 4 exits.
// DFS: 0 1 4 done, 2 (1 on stack) 3 (1) done, 2 done, 1, 0: postorder
// 4 3 2 1 0, RPO [0, 1, 2, 3, 4]. Backedges 2 -> 1, 3 -> 1.
// idom: 1:0 2:1 3:2 4:1. Loop at 1: latches {2, 3}, body {1, 2, 3},
// preheader 0, exit 4.
TYPED_TEST(CfgHalves, TwoLatchesMerge) {
  auto a = analyse<TypeParam>(R"(
.entry twolatch()
{
  MOV R0, RZ
L_head:
  @P0 BRA L_done
L_l1:
  @P1 BRA L_head
L_l2:
  BRA L_head
L_done:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 5u);
  expectCfg(a.cfg, CfgFacts{Lists{{1}, {4, 2}, {1, 3}, {1}, {}},
                            Lists{{}, {0, 2, 3}, {1}, {2}, {1}},
                            {0, 1, 2, 3, 4},
                            {0, 1, 2, 3, 4},
                            Edges{{2, 1}, {3, 1}}});
  expectDom(a.dom, {kNoBlock, 0, 1, 2, 1});
  expectLoops(a.loops, {Loop{1, {2, 3}, {1, 2, 3}, 1, 0, {4}}});
}

// A loop entered from two outside blocks has no preheader:
// 0 -> {2 taken, 1}; 1 -> 2; header 2 -> {2 taken, 3}; 3 exits.
TYPED_TEST(CfgHalves, NoPreheaderWithTwoOutsidePredecessors) {
  auto a = analyse<TypeParam>(R"(
.entry twoin()
{
  @P0 BRA L_head
L_mid:
  MOV R0, RZ
L_head:
  @P1 BRA L_head
L_done:
  EXIT
}
)");
  ASSERT_EQ(a.f.blocks.size(), 4u);
  expectLoops(a.loops, {Loop{2, {2}, {2}, 1, kNoBlock, {3}}});
}

// Structural invariants on every function of examples/*.ori (real kernels):
// preds invert succs, rpo numbers the reachable blocks in order, every idom
// comes earlier in RPO, every loop's header dominates its body and latches.
bool dominates(const DomFacts &dom, uint32_t a, uint32_t b) {
  for (int32_t x = int32_t(b); x != kNoBlock; x = dom.idom[x])
    if (x == int32_t(a))
      return true;
  return false;
}

TYPED_TEST(CfgHalves, InvariantsOnExamples) {
  std::string root = std::getenv("ORIOPT_SOURCE_DIR") ? std::getenv("ORIOPT_SOURCE_DIR") : "";
#ifdef ORIOPT_SOURCE_DIR
  if (root.empty())
    root = ORIOPT_SOURCE_DIR;
#endif
  ASSERT_FALSE(root.empty());
  int functions = 0, loopCount = 0;
  for (const auto &e :
       std::filesystem::directory_iterator(std::filesystem::path(root) / "examples")) {
    if (e.path().extension() != ".ori")
      continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    ParseResult r = parseOri(text.str(), e.path().string());
    ASSERT_TRUE(r.module) << e.path();
    for (const Function &f : r.module->functions) {
      if (f.isDeclaration())
        continue;
      ++functions;
      SCOPED_TRACE(e.path().string() + ": " + f.name);
      CfgFacts cfg = TypeParam::cfg(f);
      DomFacts dom = TypeParam::dom(f, cfg);
      LoopFacts loops = TypeParam::loops(f, cfg, dom);
      const size_t n = f.blocks.size();
      ASSERT_EQ(cfg.succs.size(), n);
      for (uint32_t b = 0; b < n; ++b)
        for (uint32_t s : cfg.succs[b])
          EXPECT_TRUE(std::binary_search(cfg.preds[s].begin(), cfg.preds[s].end(), b));
      ASSERT_FALSE(cfg.rpo.empty());
      EXPECT_EQ(cfg.rpo[0], 0u);
      for (uint32_t i = 0; i < cfg.rpo.size(); ++i)
        EXPECT_EQ(cfg.rpoNumber[cfg.rpo[i]], int32_t(i));
      for (uint32_t b = 1; b < n; ++b) {
        if (dom.idom[b] != kNoBlock) {
          EXPECT_LT(cfg.rpoNumber[dom.idom[b]], cfg.rpoNumber[b]);
        }
      }
      loopCount += int(loops.loops.size());
      for (const Loop &l : loops.loops) {
        for (uint32_t b : l.body)
          EXPECT_TRUE(dominates(dom, l.header, b));
        for (uint32_t b : l.latches)
          EXPECT_TRUE(std::binary_search(l.body.begin(), l.body.end(), b));
      }
    }
  }
  EXPECT_GE(functions, 4);
  EXPECT_GE(loopCount, 1); // examples/reduce.ori has a counted loop
}

// AdjacencyLists (ir/facts.h), CSR rows. By the definition, the three ways
// of building rows [[1, 2], [], [0]] must give equal values: offsets
// [0, 2, 2, 3], targets [1, 2, 0].
TEST(AdjacencyLists, BuildersAgreeAndCompareByRows) {
  const AdjacencyLists fromInit{{1, 2}, {}, {0}};
  const AdjacencyLists fromVectors(Lists{{1, 2}, {}, {0}});
  const AdjacencyLists viaOffsets = AdjacencyLists::fromOffsets({0, 2, 2, 3}, {1, 2, 0});
  AdjacencyLists built;
  built.reserve(3, 3);
  built.appendRow();
  built.push(1);
  built.push(2);
  built.appendRow();
  built.appendRow();
  built.push(0);
  for (const AdjacencyLists *a : std::initializer_list<const AdjacencyLists *>{
           &fromInit, &fromVectors, &viaOffsets, &built}) {
    ASSERT_EQ(a->size(), 3u);
    EXPECT_EQ(a->edgeCount(), 3u);
    EXPECT_TRUE(std::ranges::equal((*a)[0], std::vector<uint32_t>{1, 2}));
    EXPECT_TRUE((*a)[1].empty());
    EXPECT_TRUE(std::ranges::equal((*a)[2], std::vector<uint32_t>{0}));
    EXPECT_TRUE(*a == fromInit);
  }
  // Rows differ: [[2, 1], [], [0]], and [[1, 2], [0], []] (same targets,
  // other offsets), and one row fewer.
  EXPECT_FALSE(fromInit == (AdjacencyLists{{2, 1}, {}, {0}}));
  EXPECT_FALSE(fromInit == (AdjacencyLists{{1, 2}, {0}, {}}));
  EXPECT_FALSE(fromInit == (AdjacencyLists{{1, 2}, {}}));
  // No rows, however built, is empty and equal; one empty row is not.
  EXPECT_TRUE(AdjacencyLists{} == AdjacencyLists::fromOffsets({0}, {}));
  EXPECT_TRUE(AdjacencyLists{}.empty());
  AdjacencyLists oneRow;
  oneRow.appendRow();
  EXPECT_EQ(oneRow.size(), 1u);
  EXPECT_FALSE(oneRow == AdjacencyLists{});
  // Entries may be rewritten in place.
  AdjacencyLists swapped = fromInit;
  std::swap(swapped[0][0], swapped[0][1]);
  EXPECT_TRUE(swapped == (AdjacencyLists{{2, 1}, {}, {0}}));
}

} // namespace
} // namespace ori
