// The CFG-changing passes on random CFGs (fuzz/cfg_gen.h), made runnable:
// phase 6 SetControlFlowOpLastInBB, the unreachable-block erase,
// reorderBlocks and phase 112 PlaceBlocksInSourceOrder. For each:
//  - the reference and optimized halves give the same function (text and
//    label ids), which verifyFunction accepts;
//  - the interpreter sees the same behaviour before and after, on 4 threads
//    that take different paths (P0 = tid & 1, BRX index = tid), each block
//    folding its number into a path hash R1 that every EXIT/RET stores, so a
//    changed path changes the output;
//  - the result is what the pass promises: phase 6 restores exactly the
//    blocks the parser would make from the joined code; the erase keeps
//    exactly the reachable blocks, unchanged; phase 112 puts the blocks back
//    in label-id order and undoes a random reordering up to BRAs that jump to
//    the next block, and keeps behaviour through two reorderings of
//    functions with unlabelled blocks;
//  - phase 15 OriBranchOpt (checkBranchOpt below).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/cfg_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

// The instructions of a small template kernel, for instrumenting.
const std::vector<Instr> &templateInstrs() {
  static const std::vector<Instr> instrs = [] {
    ParseResult r = parseOri(R"(.entry t(.u64 out)
{
  S2R R0, SR_TID.X
  LOP3.LUT R5, R0, 0x1, RZ, 0xc0
  ISETP.NE.U32.AND P0, PT, R5, RZ, PT
  IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x210]
  IMAD R1, R1, 0x1f, 0x1
  STG.E [R2], R1
  EXIT
}
)",
                             "template.ori");
    if (!r.module)
      throw std::runtime_error(r.error->str());
    return r.module->functions.at(0).blocks.at(0).instrs;
  }();
  return instrs;
}

// A cfg_gen function made runnable and observable (see the file comment),
// with the label ids the parser would give it.
// With keepBraOnly, a block holding only an unguarded BRA stays bare (no path
// hash), so phase 15 can thread through it.
Function instrument(Function f, bool keepBraOnly = false) {
  const std::vector<Instr> &t = templateInstrs();
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    const auto &old = f.blocks[b].instrs;
    if (keepBraOnly && b > 0 && old.size() == 1 && old[0].op == Opcode::BRA && !old[0].isGuarded())
      continue;
    std::vector<Instr> out;
    if (b == 0)
      out.assign(t.begin(), t.begin() + 4);
    Instr hash = t[4];
    hash.srcs[2] = Operand::immediate(int64_t(b) + 1);
    out.push_back(hash);
    for (const Instr &in : f.blocks[b].instrs) {
      if (in.op == Opcode::EXIT || in.op == Opcode::RET) {
        Instr store = t[5];
        store.guard = in.guard;
        out.push_back(store);
      }
      out.push_back(in);
    }
    f.blocks[b].instrs = std::move(out);
  }
  f.params = {Param{"u64", "out", 8, 8, 0, 0}};
  layoutParams(f.params, kParamBase);
  uint32_t index = 0; // docs/ori-format.md section 5
  for (Block &b : f.blocks) {
    b.labelId = 0x10 * index;
    index += uint32_t(b.instrs.size());
  }
  f.recountRegs();
  return f;
}

RunResult run(const Function &f, uint64_t maxSteps) {
  Module m;
  m.functions.push_back(f);
  RunConfig cfg;
  cfg.threads = 4;
  cfg.maxSteps = maxSteps;
  cfg.buffers["out"] = std::vector<uint8_t>(16, 0);
  return runKernel(m, cfg);
}

// Runs both with a budget every terminating path fits in (control decisions
// depend on P0 and R0 only, fixed per thread, so a path that ends visits no
// block twice; the budget counts warp instructions, and the 4 lanes' paths may
// all diverge, so 4 paths) and compares how they end. A fault names the
// lowest-numbered thread that faults, whichever side of a branch runs first.
void expectSameBehaviour(const Function &before, const Function &after) {
  const uint64_t budget = 4 * (2 * std::max(before.instrCount(), after.instrCount()) + 64);
  const RunResult a = run(before, budget), b = run(after, budget);
  RC_ASSERT(a.kind != RunResult::Kind::Unsupported);
  RC_ASSERT(a.kind != RunResult::Kind::Error);
  RC_ASSERT(a.kind == b.kind);
  // A timeout names the lane that ran when the warp's budget ran out, which depends on the
  // order the sides of divergent branches run in (the phase may change it): not compared.
  if (a.kind != RunResult::Kind::Timeout) {
    RC_ASSERT(a.thread == b.thread);
    RC_ASSERT(a.addr == b.addr);
  }
  if (a.kind == RunResult::Kind::Ok)
    RC_ASSERT(a.buffers == b.buffers);
}

std::vector<uint32_t> labelIds(const Function &f) {
  std::vector<uint32_t> ids;
  for (const Block &b : f.blocks)
    ids.push_back(b.labelId);
  return ids;
}

void expectVerifies(const Function &f) {
  std::vector<std::string> problems = verifyFunction(f);
  if (!problems.empty())
    RC_FAIL(problems.front() + "\n" + printFunction(f));
}

// Runs a pass of both halves on copies of f; checks they agree and verify.
template <typename OptimizedPass, typename ReferencePass>
Function applyBoth(const Function &f, OptimizedPass optimizedPass,
                   [[maybe_unused]] ReferencePass referencePass) {
  Function o = f;
  optimizedPass(o);
#if defined(ORIOPT_HAVE_REFERENCE)
  Function r = f;
  referencePass(r);
  RC_ASSERT(printFunction(r) == printFunction(o));
  RC_ASSERT(r == o);
  RC_ASSERT(labelIds(r) == labelIds(o));
#endif
  expectVerifies(o);
  return o;
}

#if defined(ORIOPT_HAVE_REFERENCE)
#define BOTH(opt, ref) opt, ref
#else
#define BOTH(opt, ref) opt, opt
#endif

// Removes labels no operand or table names from blocks that follow control
// flow, then appends those blocks to the block before (control flow then sits
// inside blocks, as phase 6 expects to find it).
Function stripUnusedLabels(Function f) {
  std::vector<bool> named(f.blocks.size(), false);
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      for (const Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          named[o.target] = true;
  for (const JumpTable &jt : f.jumpTables)
    for (uint32_t t : jt.targets)
      named[t] = true;
  for (size_t b = 1; b < f.blocks.size(); ++b) {
    const Block &prev = f.blocks[b - 1];
    if (!named[b] && !prev.instrs.empty() && prev.instrs.back().info().is(CONTROL))
      f.blocks[b].label.clear();
  }
  return f;
}

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

RC_GTEST_PROP(CfgTransformProps, Phase6SplitsJoinedBlocksBackAsTheParserWould, ()) {
  const Function f = stripUnusedLabels(instrument(*gen::cfgFunction()));
  const Function joined = joinUnlabelled(f);
  const Function split =
      applyBoth(joined, BOTH([](Function &g) { optimized::setControlFlowOpLastInBB(g); },
                             [](Function &g) { reference::setControlFlowOpLastInBB(g); }));
  // Expected: f itself, the stripped blocks named L_split0, L_split1, ... in
  // order (cfg_gen's labels are L<number>, so no name is taken).
  Function want = f;
  uint32_t k = 0;
  for (size_t b = 1; b < want.blocks.size(); ++b)
    if (want.blocks[b].label.empty())
      want.blocks[b].label = "L_split" + std::to_string(k++);
  RC_ASSERT(printFunction(split) == printFunction(want));
  RC_ASSERT(labelIds(split) == labelIds(want));
  expectSameBehaviour(f, split);
  // Nothing left to split: a second run changes nothing.
  Function again = split;
  RC_ASSERT(optimized::setControlFlowOpLastInBB(again) == 0u);
  RC_ASSERT(again == split);
}

RC_GTEST_PROP(CfgTransformProps, EraseKeepsExactlyTheReachableBlocks, ()) {
  const Function f = instrument(*gen::cfgFunction());
  const CfgFacts cfg = optimized::computeCfg(f);
  const Function erased =
      applyBoth(f, BOTH([](Function &g) { optimized::eraseUnreachableBlocks(g); },
                        [](Function &g) { reference::eraseUnreachableBlocks(g); }));
  std::vector<uint32_t> kept;
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    if (cfg.rpoNumber[b] != kNoBlock)
      kept.push_back(b); // cfg_gen has no BSSY: kept = reachable
  RC_ASSERT(erased.blocks.size() == kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const Block &a = f.blocks[kept[i]];
    const Block &b = erased.blocks[i];
    RC_ASSERT(a.label == b.label);
    RC_ASSERT(a.labelId == b.labelId);
    RC_ASSERT(a.instrs.size() == b.instrs.size());
    for (size_t j = 0; j < a.instrs.size(); ++j)
      RC_ASSERT(printInstr(f, a.instrs[j]) == printInstr(erased, b.instrs[j]));
  }
  RC_ASSERT(optimized::computeCfg(erased).rpo.size() == kept.size());
  expectSameBehaviour(f, erased);
}

// f without BRAs that jump to the next block (phase 112 may remove those).
std::string withoutBranchesToNext(Function f) {
  for (uint32_t b = 0; b + 1 < f.blocks.size(); ++b) {
    std::vector<Instr> &instrs = f.blocks[b].instrs;
    if (!instrs.empty() && instrs.back().op == Opcode::BRA && !instrs.back().isGuarded() &&
        instrs.back().srcs[0].target == b + 1)
      instrs.pop_back();
  }
  return printFunction(f);
}

RC_GTEST_PROP(CfgTransformProps, Phase112UndoesAReordering, ()) {
  const Function f = instrument(*gen::cfgFunction());
  const uint32_t n = uint32_t(f.blocks.size());
  const auto keys = *rc::gen::container<std::vector<uint32_t>>(n, rc::gen::inRange(0u, 64u));
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin() + (n > 0 ? 1 : 0), order.end(),
                   [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });

  const Function moved =
      applyBoth(f, BOTH([&](Function &g) { optimized::reorderBlocks(g, order); },
                        [&](Function &g) { reference::reorderBlocks(g, order); }));
  expectSameBehaviour(f, moved);
  const Function placed =
      applyBoth(moved, BOTH([](Function &g) { optimized::placeBlocksInSourceOrder(g); },
                            [](Function &g) { reference::placeBlocksInSourceOrder(g); }));
  expectSameBehaviour(f, placed);
  const std::vector<uint32_t> ids = labelIds(placed);
  RC_ASSERT(std::is_sorted(ids.begin(), ids.end()));
  RC_ASSERT(withoutBranchesToNext(placed) == withoutBranchesToNext(f));
  // In source order already: nothing to do.
  Function again = placed;
  RC_ASSERT(!optimized::placeBlocksInSourceOrder(again));
  RC_ASSERT(again == placed);
}

// Unlabelled blocks (after control flow) and the unlabelled BRA blocks a
// first reordering adds, moved again and put back: behaviour and agreement of
// the halves only (new labels L_place<k> may stay).
RC_GTEST_PROP(CfgTransformProps, TwoReorderingsAndPhase112KeepBehaviour, ()) {
  const Function f = stripUnusedLabels(instrument(*gen::cfgFunction()));
  Function g = f;
  for (int round = 0; round < 2; ++round) {
    const uint32_t n = uint32_t(g.blocks.size());
    const auto keys = *rc::gen::container<std::vector<uint32_t>>(n, rc::gen::inRange(0u, 64u));
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin() + (n > 0 ? 1 : 0), order.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    g = applyBoth(g, BOTH([&](Function &h) { optimized::reorderBlocks(h, order); },
                          [&](Function &h) { reference::reorderBlocks(h, order); }));
    expectSameBehaviour(f, g);
  }
  const Function placed =
      applyBoth(g, BOTH([](Function &h) { optimized::placeBlocksInSourceOrder(h); },
                        [](Function &h) { reference::placeBlocksInSourceOrder(h); }));
  expectSameBehaviour(f, placed);
  const std::vector<uint32_t> ids = labelIds(placed);
  RC_ASSERT(std::is_sorted(ids.begin(), ids.end()));
}

// Phases 133/136 tail merging (rules/tail_merge.h) on random CFGs in which some blocks that end
// in an unguarded terminator are made copies of an earlier such block (the interesting case:
// without copies every block's path hash differs): the halves agree, behaviour is kept (the
// copies already store the same path hash), and the result is a fixed point. RC_CLASSIFY shows
// how many runs merged something.
RC_GTEST_PROP(CfgTransformProps, TailMergeKeepsBehaviour, ()) {
  Function f = instrument(*gen::cfgFunction());
  std::vector<uint32_t> candidates;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    if (!isTailMergeCandidate(f.blocks[b]))
      continue;
    if (b > 0 && !candidates.empty() && *rc::gen::inRange(0, 2) == 0)
      f.blocks[b].instrs =
          f.blocks[candidates[*rc::gen::inRange<size_t>(0, candidates.size())]].instrs;
    candidates.push_back(b);
  }
  uint32_t mergedO = 0, mergedR = 0;
  const Function merged =
      applyBoth(f, BOTH([&](Function &g) { mergedO = optimized::tailMerge(g); },
                        [&](Function &g) { mergedR = reference::tailMerge(g); }));
#if defined(ORIOPT_HAVE_REFERENCE)
  RC_ASSERT(mergedO == mergedR);
#endif
  RC_ASSERT(merged.blocks.size() + mergedO == f.blocks.size());
  RC_CLASSIFY(mergedO > 0, "merged");
  expectSameBehaviour(f, merged);
  Function again = merged;
  RC_ASSERT(optimized::tailMerge(again) == 0u);
}

// Phases 108/109 hot/cold layout (rules/hot_cold.h) on random CFGs whose labelled blocks a
// random profile says ran 0 times about a third of the time (cold without stopping the run, as
// a TRAP would): the halves agree on the cold set and on both phases' output, behaviour is kept,
// and after phase 109 no labelled hot block follows a block the profile made cold.
RC_GTEST_PROP(CfgTransformProps, HotColdKeepsBehaviour, ()) {
  const Function f = instrument(*gen::cfgFunction());
  std::map<std::string, uint64_t> counts;
  for (const Block &b : f.blocks)
    if (!b.label.empty())
      counts[b.label] = *rc::gen::inRange(0, 3) == 0 ? 0 : 1;
  HotColdOptions o;
  o.blockCounts = &counts;
#if defined(ORIOPT_HAVE_REFERENCE)
  RC_ASSERT(optimized::coldBlocks(f, o) == reference::coldBlocks(f, o));
#endif
  const Function inLoop =
      applyBoth(f, BOTH([&](Function &g) { optimized::optimizeHotColdInLoop(g, o); },
                        [&](Function &g) { reference::optimizeHotColdInLoop(g, o); }));
  expectSameBehaviour(f, inLoop);
  const Function flow =
      applyBoth(inLoop, BOTH([&](Function &g) { optimized::optimizeHotColdFlow(g, o); },
                             [&](Function &g) { reference::optimizeHotColdFlow(g, o); }));
  expectSameBehaviour(f, flow);
  bool seenCold = false;
  for (uint32_t b = 1; b < flow.blocks.size(); ++b) {
    auto it = counts.find(flow.blocks[b].label);
    if (it == counts.end())
      continue;
    const bool profiledCold = it->second == 0;
    RC_ASSERT(!(seenCold && !profiledCold && !optimized::coldBlocks(flow, o)[b]));
    seenCold = seenCold || profiledCold;
  }
  RC_CLASSIFY(printFunction(flow) != printFunction(f), "moved");
}

// Phase 15 OriBranchOpt on random CFGs whose blocks often hold only a BRA
// and whose guards are sometimes the constants PT and !PT: the halves agree
// (function and counts), behaviour is kept, and what the rules promise holds
// (no BRA on a constant guard outside the entry, every block reachable, a
// budget of k makes at most k rewrites). Returns the counts, so the test can
// check that every rule fired somewhere.
int percent() { return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 100)); }

BranchOptCounts checkBranchOpt() {
  Function g = *gen::cfgFunction();
  const uint32_t n = uint32_t(g.blocks.size());
  // Trampolines: blocks holding only a BRA, to an original block or to another
  // trampoline (chains and cycles), which some branches are sent through.
  const uint32_t trampolines = uint32_t(*rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 4)));
  for (uint32_t k = 0; k < trampolines; ++k) {
    Block t;
    t.label = "Tramp" + std::to_string(k);
    t.labelId = 0x10 * (n + k) + 0x8000;
    Instr bra;
    bra.op = Opcode::BRA;
    bra.srcs.push_back(Operand::label(percent() < 60 ? uint32_t(percent()) % n
                                                     : n + uint32_t(percent()) % trampolines));
    t.instrs.push_back(bra);
    g.blocks.push_back(std::move(t));
  }
  for (uint32_t b = 0; b < n; ++b) {
    std::vector<Instr> &instrs = g.blocks[b].instrs;
    if (instrs.empty() || instrs.back().op != Opcode::BRA)
      continue;
    Instr &bra = instrs.back();
    if (trampolines > 0 && percent() < 40)
      bra.srcs[0].target = n + uint32_t(percent()) % trampolines;
    if (percent() < 40)
      instrs.erase(instrs.begin(), instrs.end() - 1); // drop the NOPs: maybe BRA-only
    if (instrs.back().isGuarded() && percent() < 20)
      instrs.back().guard = Operand::reg_(PT, percent() < 50);
  }
  const Function f = instrument(g, true);
  const int64_t budget = percent() < 80 ? -1 : percent() % 6;
  BranchOptCounts counts, reference;
  const Function out =
      applyBoth(f, BOTH([&](Function &h) { counts = optimized::oriBranchOpt(h, budget); },
                        [&](Function &h) { reference = reference::oriBranchOpt(h, budget); }));
#if defined(ORIOPT_HAVE_REFERENCE)
  RC_ASSERT(counts == reference);
#endif
  if (budget >= 0)
    RC_ASSERT(int64_t(counts.rewrites()) <= budget);
  expectSameBehaviour(f, out);
  const CfgFacts cfg = optimized::computeCfg(out);
  if (counts.rewrites() > 0)
    for (uint32_t b = 0; b < out.blocks.size(); ++b)
      RC_ASSERT(cfg.rpoNumber[b] != kNoBlock);
  if (budget < 0)
    for (uint32_t b = 1; b < out.blocks.size(); ++b)
      for (const Instr &in : out.blocks[b].instrs)
        RC_ASSERT(!(in.op == Opcode::BRA && in.guard && in.guard->reg.isConst()));
  return counts;
}

TEST(CfgTransformProps, Phase15BranchOptAgreesKeepsBehaviourAndFiresEveryRule) {
  BranchOptCounts total;
  const bool ok = rc::check("phase 15 on random CFGs", [&] {
    const BranchOptCounts c = checkBranchOpt();
    total.constantConditions += c.constantConditions;
    total.identicalTargets += c.identicalTargets;
    total.threaded += c.threaded;
    total.folded += c.folded;
    total.erasedBlocks += c.erasedBlocks;
  });
  EXPECT_TRUE(ok);
  // The generator must reach every rule, or the property proves little.
  EXPECT_GT(total.constantConditions, 0u);
  EXPECT_GT(total.identicalTargets, 0u);
  EXPECT_GT(total.threaded, 0u);
  EXPECT_GT(total.folded, 0u);
  EXPECT_GT(total.erasedBlocks, 0u);
}

// A 200,000-block function: a chain of NOPs whose last block exits, bix 1
// unreachable (bix 0 branches over it), every other block falling through.
// The optimized passes take it without recursion (they have none).
TEST(CfgTransformLarge, LongChain) {
  const uint32_t n = 200000;
  Function f;
  f.name = "big";
  f.isEntry = true;
  f.blocks.resize(n);
  for (uint32_t b = 0; b < n; ++b) {
    f.blocks[b].label = "blk"; // (not "blk" + ...: GCC 12 warns falsely, -Wrestrict)
    f.blocks[b].label += std::to_string(b);
    f.blocks[b].labelId = 0x10 * b;
    f.blocks[b].instrs.push_back(Instr{});
  }
  Instr bra;
  bra.op = Opcode::BRA;
  bra.srcs.push_back(Operand::label(2));
  f.blocks[0].instrs.back() = bra;
  Instr exit;
  exit.op = Opcode::EXIT;
  f.blocks[1].instrs.back() = exit;
  f.blocks[n - 1].instrs.back() = exit;
  ASSERT_EQ(verifyFunction(f), std::vector<std::string>{});

  Function e = f;
  EXPECT_EQ(optimized::eraseUnreachableBlocks(e), std::vector<uint32_t>{1});
  EXPECT_EQ(e.blocks.size(), size_t(n - 1));
  EXPECT_EQ(e.blocks[0].instrs.back().srcs[0].target, 1u); // B2 is now bix1
  EXPECT_EQ(e.blocks[1].label, "blk2");

  // Reverse the blocks after bix 0: every fall-through breaks and gets a BRA;
  // phase 112 puts them back and removes exactly those BRAs again.
  std::vector<uint32_t> order{0};
  for (uint32_t b = n - 1; b >= 1; --b)
    order.push_back(b);
  Function r = f;
  ASSERT_TRUE(optimized::reorderBlocks(r, order));
  EXPECT_EQ(r.blocks.size(), size_t(n));
  EXPECT_TRUE(optimized::placeBlocksInSourceOrder(r));
  EXPECT_TRUE(r == f);
  EXPECT_EQ(optimized::setControlFlowOpLastInBB(r), 0u);
}

} // namespace
} // namespace ori
