// Properties of the CFG analyses on random CFGs (fuzz/cfg_gen.h), through
// the checks of fuzz/cfg_checks.h (which orifuzz --check cfg-diff runs for
// long campaigns):
//  - the reference and optimized halves agree on CfgFacts, DomFacts and
//    LoopFacts (when reference/ is built);
//  - definitional checks of the optimized half against brute force: the
//    successor rules, RPO is a permutation of the reachable blocks and every
//    non-backedge goes forward in it, idom(b) dominates b (by removing it and
//    searching) and is the closest strict dominator, loops are the natural
//    loops of the dominating backedges.
// The 1,000,000-block graphs are in tests/unit/cfg_large_test.cpp.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "fuzz/cfg_checks.h"
#include "fuzz/cfg_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "ir/facts.h"
#include "ir/verify.h"
#include "optimized/optimized.h"

namespace ori {
namespace {

void require(const std::string &problem) {
  if (!problem.empty())
    RC_FAIL(problem);
}

RC_GTEST_PROP(CfgProps, GeneratedCfgsVerify, ()) {
  Function f = *gen::cfgFunction();
  std::vector<std::string> problems = verifyFunction(f);
  require(problems.empty() ? "" : problems.front());
}

#if defined(ORIOPT_HAVE_REFERENCE)
RC_GTEST_PROP(CfgProps, ReferenceEqualsOptimized, ()) {
  Function f = *gen::cfgFunction();
  require(checks::halvesAgree(f));
}
#endif

RC_GTEST_PROP(CfgProps, SuccessorsFollowTheRules, ()) {
  Function f = *gen::cfgFunction();
  require(checks::successorsFollowTheRules(f, optimized::computeCfg(f)));
}

RC_GTEST_PROP(CfgProps, RpoIsADepthFirstOrderAndNonBackedgesGoForward, ()) {
  Function f = *gen::cfgFunction();
  require(checks::rpoIsADepthFirstOrder(optimized::computeCfg(f)));
}

RC_GTEST_PROP(CfgProps, IdomIsTheClosestStrictDominator, ()) {
  Function f = *gen::cfgFunction(gen::CfgOptions{24, 120});
  CfgFacts cfg = optimized::computeCfg(f);
  require(checks::idomIsTheClosestStrictDominator(cfg, optimized::computeDominators(f, cfg)));
}

RC_GTEST_PROP(CfgProps, LoopsAreTheNaturalLoopsOfDominatingBackedges, ()) {
  Function f = *gen::cfgFunction(gen::CfgOptions{24, 120});
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts dom = optimized::computeDominators(f, cfg);
  require(checks::loopsAreTheNaturalLoops(cfg, dom, optimized::computeLoops(f, cfg, dom)));
}

// The checks can fail: each one on facts that are wrong on purpose, for a
// 3-block function L0: @P0 BRA L2; L1: BRA L0; L2: EXIT. By hand: succs
// [2, 1], [0], []; the DFS from bix0 takes bix2 first and finishes it, then
// bix1 (its successor bix0 is already visited), then bix0: postorder 2 1 0,
// RPO 0 1 2, backedge 1 -> 0 (RPO 0 <= 1); idom of 1 and 2 is 0; one loop at
// bix0 with latch 1, body {0, 1}, exit 2.
TEST(CfgChecks, EachCheckRejectsAWrongFact) {
  Function f;
  f.blocks.resize(3);
  for (uint32_t i = 0; i < 3; ++i)
    f.blocks[i].label = fmt::format("L{}", i);
  Instr cond;
  cond.op = Opcode::BRA;
  cond.guard = Operand::reg_(P(0));
  cond.srcs.push_back(Operand::label(2));
  Instr back;
  back.op = Opcode::BRA;
  back.srcs.push_back(Operand::label(0));
  Instr exit;
  exit.op = Opcode::EXIT;
  f.blocks[0].instrs.push_back(cond);
  f.blocks[1].instrs.push_back(back);
  f.blocks[2].instrs.push_back(exit);
  f.recountRegs();
  ASSERT_EQ(checks::cfgDiff(f), "");

  CfgFacts cfg = optimized::computeCfg(f);
  ASSERT_EQ(cfg.rpo, (std::vector<uint32_t>{0, 1, 2}));
  CfgFacts swapped = cfg;
  std::swap(swapped.succs[0][0], swapped.succs[0][1]);
  EXPECT_NE(checks::successorsFollowTheRules(f, swapped), "");
  CfgFacts noBackedge = cfg;
  noBackedge.backedges.clear(); // 1 -> 0 goes back in the RPO but is not listed
  EXPECT_NE(checks::rpoIsADepthFirstOrder(noBackedge), "");
  CfgFacts wrongNumber = cfg;
  std::swap(wrongNumber.rpoNumber[1], wrongNumber.rpoNumber[2]); // no longer the inverse of rpo
  EXPECT_NE(checks::rpoIsADepthFirstOrder(wrongNumber), "");

  DomFacts dom = optimized::computeDominators(f, cfg);
  ASSERT_EQ(dom.idom, (std::vector<int32_t>{kNoBlock, 0, 0}));
  DomFacts wrongIdom = dom;
  wrongIdom.idom[2] = 1; // bix1 does not dominate bix2 (0 -> 2 avoids it)
  EXPECT_NE(checks::idomIsTheClosestStrictDominator(cfg, wrongIdom), "");

  LoopFacts loops = optimized::computeLoops(f, cfg, dom);
  ASSERT_EQ(loops.loops.size(), 1u);
  LoopFacts wrongBody = loops;
  wrongBody.loops[0].body.push_back(2);
  EXPECT_NE(checks::loopsAreTheNaturalLoops(cfg, dom, wrongBody), "");
}

} // namespace
} // namespace ori
