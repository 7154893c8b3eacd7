// THE phase table: every implemented phase as a row {number, reference entry, optimized entry,
// default, gate}, in ptxas order, and how the pipeline calls each pass (its options from the
// PassContext) and reads its counts (its rewrites). A new phase is one more row, at its place in
// allPhases() order, with its gate (PhaseGate; docs/phases-and-knobs.md gives the sources); its
// contract is its rules/ header.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ir/arch.h"
#include "optimized/optimized.h"
#include "pipeline/halves_impl.h"
#include "pipeline/pipeline.h"
#include "reference/reference.h"

namespace ori {

namespace {

using pipeline_detail::CountsReport;
using pipeline_detail::row;

// ---------------------------------------------------------------- options from the context

// Knob 464, the budget of phases 13 and 15, and --dont-merge-basicblocks.
MergeFlowOptions mergeFlowOptions(const Function &, PassContext &ctx, bool) {
  return {ctx.knobs.getInt("MergeEquivalentConditionalFlowBudget"),
          !ctx.knobs.getBool("dont-merge-basicblocks")};
}

template <bool SecondPass>
SwitchOptOptions switchOptions(const Function &f, PassContext &ctx, bool) {
  SwitchOptOptions o;
  o.secondPass = SecondPass;
  o.budget = ctx.knobs.getInt("SwitchOptBudget");
  o.extendedPatternMatch = ctx.knobs.getBool("SwitchOptExtendedPatternMatch");
  o.bitTests = ctx.switchBitTests;
  o.mergeBlocks = !ctx.knobs.getBool("dont-merge-basicblocks");
  if (ctx.profile)
    if (auto it = ctx.profile->find(f.name); it != ctx.profile->end())
      o.blockCounts = &it->second;
  return o;
}

// Phases 108 and 109: --profile's counts of f's blocks (a count of 0 makes a block cold).
HotColdOptions hotColdOptions(const Function &f, PassContext &ctx, bool) {
  HotColdOptions o;
  if (ctx.profile)
    if (auto it = ctx.profile->find(f.name); it != ctx.profile->end())
      o.blockCounts = &it->second;
  return o;
}
// Phase 38 shows each combination to ctx.nestedCondObserver, from the half that runs on f.
NestedCondObserver nestedCondObserver(const Function &, PassContext &ctx, bool observed) {
  return observed ? ctx.nestedCondObserver : NestedCondObserver{};
}

// The GeneralOptimize options of the target: sub_8F2E50's SM, sub_8F29C0's class, limit-fold-fp.
GeneralOptimizeOptions generalOptimizeOptions(const Function &, PassContext &ctx, bool) {
  GeneralOptimizeOptions o;
  const ArchInfo *arch = ctx.arch ? ctx.arch : findArch(kDefaultArch);
  o.smEncoded = arch->encoded;
  o.predicateMarking = archAllowsPredicateMarking(o.smEncoded);
  o.limitFoldFp = ctx.knobs.getBool("limit-fold-fp");
  o.evaluate = ctx.foldEvaluate;
  return o;
}

// Knobs 474 (the MOV weight and convergence threshold), 136 (the promotion threshold) and 135
// (the convergence override) are phase 37's cost model's.
MemToRegOptions memToRegOptions(const Function &f, PassContext &ctx, bool observed) {
  MemToRegOptions o;
  o.movWeight = ctx.knobs.getFloat("MovWeightForConvertMemToReg");
  o.promotionThreshold = ctx.knobs.getFloat("ConvertMemoryToRegPromotionThreshold");
  o.convergenceOverride = ctx.knobs.getInt("ConvertMemoryToRegIndexedSizeLimit");
  o.suite = generalOptimizeOptions(f, ctx, observed);
  return o;
}

// Knob 605 (ReassociateCSEWindow) keeps phase 58's window to its existing entries.
bool lateWindowExistingOnly(const Function &, PassContext &ctx, bool) {
  return ctx.knobs.getBool("ReassociateCSEWindow");
}

// ---------------------------------------------------------------- rewrites from the counts

CountsReport removed(uint32_t n) { return {n}; }
CountsReport branchRewrites(const BranchOptCounts &c) {
  return {size_t(c.rewrites()) + c.erasedBlocks};
} // the four rules, and each unreachable block erased
CountsReport switchRewrites(const SwitchOptCounts &c) { return {c.lowered()}; }
CountsReport nestedRewrites(const NestedCondCounts &c) { return {c.combined}; }
CountsReport earlyRewrites(const EarlyOptimizeCounts &c) {
  return {size_t(c.branchesDeleted) + c.branchesUnconditional};
}
CountsReport suiteRewrites(const GeneralOptimizeResult &r) {
  return {size_t(r.counts.usesReplaced) + r.counts.selectsToCopies + r.counts.guardsResolved,
          &r.marks};
}
CountsReport midRewrites(const MidOptimizeResult &r) {
  const GeneralOptimizeCounts &c = r.suite.counts;
  return {size_t(r.memToReg.loadsReplaced) + r.memToReg.storesReplaced + c.usesReplaced +
              c.selectsToCopies + c.guardsResolved,
          &r.suite.marks};
}
CountsReport lateRewrites(const LateOptimizeCounts &c) { return {c.movesMerged}; }

// ---------------------------------------------------------------- phase 3

// AnalyzeControlFlow leaves the IR as it is: the half computes the annotations and checks them
// against its natural loops (every loop header a LOOP_HEADER, every body block IN_LOOP; a
// failure is a bug: internal error). Returns true.
template <auto Cfg, auto Analyze, auto Dominators, auto Loops>
bool analyzeControlFlowCheck(Function &f) {
  const CfgFacts cfg = Cfg(f);
  const AnnotationFacts a = Analyze(f, cfg, nullptr, false);
  const LoopFacts loops = Loops(f, cfg, Dominators(f, cfg));
  for (const Loop &l : loops.loops) {
    bool ok = a.blocks[l.header].flags & BlockAnnotation::kLoopHeader;
    for (uint32_t b : l.body)
      ok = ok && (a.blocks[b].flags & BlockAnnotation::kInLoop);
    if (!ok) {
      std::fprintf(
          stderr,
          "oriopt: internal error: AnalyzeControlFlow: function %s: loop at bix%u not tagged\n",
          f.name.c_str(), l.header);
      std::abort();
    }
  }
  return true;
}

namespace R = reference;
namespace O = optimized;

// The phase rows in pipeline order. Gates: docs/phases-and-knobs.md; each pass's contract: its
// rules/ header (phase 13: rules/general_optimize_early.h, ...).
constexpr PipelineEntry kPipeline[] = {
    row<analyzeControlFlowCheck<R::computeCfg, R::analyzeControlFlow, R::computeDominators,
                                R::computeLoops>,
        analyzeControlFlowCheck<O::computeCfg, O::analyzeControlFlow, O::computeDominators,
                                O::computeLoops>>(
        3, true,
        {.minOptLevel = 1, .vetoKnobs = {"DisableAnalyzeControlFlow"}, .spec = "001:15, 001:19"}),
    row<R::setControlFlowOpLastInBB, O::setControlFlowOpLastInBB, nullptr, removed>(6),
    row<R::earlyOriSimpleLiveDead, O::earlyOriSimpleLiveDead, nullptr, removed>(10, false),
    row<R::generalOptimizeEarly, O::generalOptimizeEarly, mergeFlowOptions, earlyRewrites>(
        13, false,
        {.minOptLevel = 2,
         .vetoKnobs = {"DisableMergeEquivalentConditionalFlow"},
         .requiredKnobs = {"GeneralOptimizationEnable"},
         .spec = "002:11, 002:785"}),
    // The SM backend's slot 17 is the 2-byte no-op on sm_30 and sm_50 (the gate's minSm); on
    // sm_60 and later the generic algorithm runs in first-pass mode (docs/branch-and-switch.md).
    row<R::doSwitchOpt, O::doSwitchOpt, switchOptions<false>, switchRewrites>(
        14, false, {.minOptLevel = 2, .minSm = 60, .spec = "003:415, 003:19"}),
    row<R::oriBranchOpt, O::oriBranchOpt, mergeFlowOptions, branchRewrites>(
        15, false,
        {.minOptLevel = 2,
         .vetoKnobs = {"DisableMergeEquivalentConditionalFlow"},
         .requiredKnobs = {"GeneralOptimizationEnable"},
         .spec = "003:415, 003:420"}),
    row<R::oriPerformLiveDead, O::oriPerformLiveDead, nullptr, removed>(16, false),
    row<R::oriSplitLiveRanges, O::oriSplitLiveRanges, nullptr, removed>(
        19, false, {.vetoKnobs = {"DisableOriSplitLiveRanges"}, .spec = "004:253"}),
    row<R::generalOptimize, O::generalOptimize, generalOptimizeOptions, suiteRewrites>(
        29, false,
        {.minOptLevel = 2,
         .vetoKnobs = {"DisableRedundantBarrierRemoval"},
         .requiredKnobs = {"GeneralOptimizationEnable"},
         .spec = "002:859, 002:786"}),
    row<R::doSwitchOpt, O::doSwitchOpt, switchOptions<true>, switchRewrites>(
        30, false, {.minOptLevel = 2, .spec = "003:415"}),
    row<R::oriPerformLiveDead, O::oriPerformLiveDead, nullptr, removed>(33, false),
    // The sub_8F3EA0 pre-check is not known (docs/general-optimize.md).
    row<R::generalOptimizeMid, O::generalOptimizeMid, memToRegOptions, midRewrites>(
        37, false,
        {.minOptLevel = 2,
         .requiredKnobs = {"GeneralOptimizationEnable"},
         .namedPhase = "ConvertMemoryToRegisterOrUniform",
         .spec = "002:18, 002:65-69, 002:787"}),
    row<R::optimizeNestedCondBranches, O::optimizeNestedCondBranches, nestedCondObserver,
        nestedRewrites>(
        38, false,
        // each combination erases the inner block: a merge
        // --dont-merge-basicblocks forbids (docs/spec-notes.md)
        {.minOptLevel = 2, .vetoKnobs = {"dont-merge-basicblocks"}, .spec = "003:415, 000:293"}),
    // The SM backend's slot 0x1C0: the no-op sentinel where the architecture has no
    // predicate-aware suite (sub_8F29C0 false), phase 29's suite elsewhere.
    row<R::generalOptimize, O::generalOptimize, generalOptimizeOptions, suiteRewrites>(
        46, false, {.needsPredicateMarking = true, .spec = "002:89-96"}),
    row<R::generalOptimizeLate, O::generalOptimizeLate, lateWindowExistingOnly, lateRewrites>(
        58, false, {.minOptLevel = 3, .spec = "002:75-76"}),
    row<R::oriPerformLiveDead, O::oriPerformLiveDead, nullptr, removed>(61, false),
    // The compilation unit's slot 392: phase 29's suite on every architecture.
    row<R::generalOptimize, O::generalOptimize, generalOptimizeOptions, suiteRewrites>(
        65, false, {.minOptLevel = 2, .spec = "002:100-101"}),
    // No gate: it must run for the code to be final.
    row<expandJmxComputation, expandJmxComputation, nullptr, removed>(80, false),
    row<R::oriPerformLiveDead, O::oriPerformLiveDead, nullptr, removed>(84, false),
    // Hot/cold layout (spec/000:285-290; cold blocks: rules/hot_cold.h).
    row<R::optimizeHotColdInLoop, O::optimizeHotColdInLoop, hotColdOptions>(
        108, false, {.spec = "000:289, 000:291"}),
    row<R::optimizeHotColdFlow, O::optimizeHotColdFlow, hotColdOptions>(
        109, false, {.spec = "000:290, 000:291"}),
    row<R::placeBlocksInSourceOrder, O::placeBlocksInSourceOrder>(112),
    // Tail merging (spec/003:456): merges blocks, so not under --dont-merge-basicblocks. The spec
    // gives 108, 109, 133 and 136 no -O level (the registry's 0).
    row<R::tailMerge, O::tailMerge, nullptr, removed>(
        133, false, {.vetoKnobs = {"dont-merge-basicblocks"}, .spec = "003:34, 003:456"}),
    row<R::tailMerge, O::tailMerge, nullptr, removed>(
        136, false, {.vetoKnobs = {"dont-merge-basicblocks"}, .spec = "003:35, 003:456"}),
};

} // namespace

std::optional<std::string> checkPipelineOrder(std::span<const PipelineEntry> table) {
  const std::span<const PhaseInfo> all = allPhases();
  size_t next = 0; // the first index of allPhases() the next entry may take
  for (size_t i = 0; i < table.size(); ++i) {
    const PipelineEntry &e = table[i];
    if (!e.reference || !e.optimized)
      return fmt::format("pipeline entry {} (phase {}) runs nothing", i, e.phase);
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const PhaseInfo &p) { return p.number == e.phase; });
    if (it == all.end())
      return fmt::format("pipeline entry {}: phase {} is not in the phase registry", i, e.phase);
    const size_t at = size_t(it - all.begin());
    if (at < next)
      return fmt::format(
          "pipeline entry {}: phase {} {} comes after phase {} {}, against ptxas's order", i,
          e.phase, it->name, table[i - 1].phase,
          findPhase(std::to_string(table[i - 1].phase))->name);
    next = at + 1;
  }
  return std::nullopt;
}

std::span<const PipelineEntry> pipeline() {
  static const bool checked = [] {
    if (auto problem = checkPipelineOrder(kPipeline)) {
      std::fprintf(stderr, "oriopt: internal error: %s\n", problem->c_str());
      std::abort();
    }
    return true;
  }();
  (void)checked;
  return kPipeline;
}

} // namespace ori
