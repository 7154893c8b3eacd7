#include "tools/oriopt/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {

namespace {
// Phase 3 AnalyzeControlFlow (spec/001): leaves the IR as it is. Behind the
// wrapper's gate it computes the annotations (optimized half) and checks
// them against the natural loops: every loop header is a LOOP_HEADER and
// every body block IN_LOOP (a failure is a bug: internal error).
void analyzeControlFlowPhase(Function& f, PassContext& ctx) {
  if (f.isDeclaration()) return;
  if (analyzeControlFlowGate(ctx.optLevel, ctx.knobs.getBool("DisableAnalyzeControlFlow"), nullptr) !=
      Phase3Outcome::Ran)
    return;
  CfgFacts cfg = optimized::computeCfg(f);
  AnnotationFacts a = optimized::analyzeControlFlow(f, cfg, nullptr, false);
  LoopFacts loops = optimized::computeLoops(f, cfg, optimized::computeDominators(f, cfg));
  for (const Loop& l : loops.loops) {
    bool ok = a.blocks[l.header].flags & BlockAnnotation::kLoopHeader;
    for (uint32_t b : l.body) ok = ok && (a.blocks[b].flags & BlockAnnotation::kInLoop);
    if (!ok) {
      std::fprintf(stderr, "oriopt: internal error: AnalyzeControlFlow: function %s: loop at bix%u not tagged\n",
                   f.name.c_str(), l.header);
      std::abort();
    }
  }
}

// Runs a transform with the half ctx.half names. Both: the reference on a
// copy, the optimized on f, and the first difference (text or label ids) as
// ctx.error.
template <typename Reference, typename Optimized>
void runTransform(Function& f, PassContext& ctx, std::string_view what, Reference reference, Optimized optimized) {
  if (f.isDeclaration()) return;
  if (ctx.half == PassContext::Half::Reference) {
    reference(f);
    return;
  }
  Function copy;
  if (ctx.half == PassContext::Half::Both) copy = f;
  optimized(f);
  if (ctx.half != PassContext::Half::Both) return;
  reference(copy);
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    for (size_t i = 0; i < text.size();) {
      size_t end = std::min(text.find('\n', i), text.size());
      out.push_back(text.substr(i, end - i));
      i = end + 1;
    }
    return out;
  };
  const std::vector<std::string> r = lines(printFunction(copy)), o = lines(printFunction(f));
  std::string diff;
  for (size_t i = 0; diff.empty() && i < std::max(r.size(), o.size()); ++i) {
    const std::string a = i < r.size() ? r[i] : "<end>", b = i < o.size() ? o[i] : "<end>";
    if (a != b) diff = fmt::format("line {}: reference '{}', optimized '{}'", i + 1, a, b);
  }
  for (size_t b = 0; diff.empty() && b < f.blocks.size(); ++b)
    if (copy.blocks[b].labelId != f.blocks[b].labelId)
      diff = fmt::format("label id of bix{}: reference L{:x}, optimized L{:x}", b, copy.blocks[b].labelId,
                         f.blocks[b].labelId);
  if (!diff.empty() && ctx.error.empty())
    ctx.error = fmt::format("function {}: {}: reference and optimized differ: {}", f.name, what, diff);
}

// Phase 6 SetControlFlowOpLastInBB (spec/000): splits blocks after control
// flow that is not last (the parser never leaves any: see --unsplit-blocks).
void setControlFlowOpLastInBBPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "SetControlFlowOpLastInBB", reference::setControlFlowOpLastInBB,
               optimized::setControlFlowOpLastInBB);
}

// Phase 112 PlaceBlocksInSourceOrder (spec/000): blocks back in label-id order.
void placeBlocksInSourceOrderPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "PlaceBlocksInSourceOrder", reference::placeBlocksInSourceOrder,
               optimized::placeBlocksInSourceOrder);
}

// Phase 10 EarlyOriSimpleLiveDead (spec/004): block-local dead-code elimination.
void earlyOriSimpleLiveDeadPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "EarlyOriSimpleLiveDead", reference::earlyOriSimpleLiveDead,
               optimized::earlyOriSimpleLiveDead);
}

// Phases 16/33/61/84 OriPerformLiveDead (spec/004): one pass at four places.
void oriPerformLiveDeadPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "OriPerformLiveDead", reference::oriPerformLiveDead, optimized::oriPerformLiveDead);
}

// Phase 19 OriSplitLiveRanges (spec/004), unless knob 456 vetoes it.
void oriSplitLiveRangesPhase(Function& f, PassContext& ctx) {
  if (ctx.knobs.getBool("DisableOriSplitLiveRanges")) return;
  runTransform(f, ctx, "OriSplitLiveRanges", reference::oriSplitLiveRanges, optimized::oriSplitLiveRanges);
}

// The opt level sub_7DDB50 reports: knob 499 (OptBudget) spent caps it at
// O1 (docs/phases-and-knobs.md, 002:851).
int gateOptLevel(const PassContext& ctx) {
  return ctx.knobs.getInt("OptBudget") == 0 ? std::min(ctx.optLevel, 1) : ctx.optLevel;
}

// Phase 15 OriBranchOpt (spec/003): from -O2 (sub_7DDB50 > 1), unless knob 214
// disables the sub_7917F0 body or knob 487 turns general optimization off;
// knob 464 is the budget of rewrites.
void oriBranchOptPhase(Function& f, PassContext& ctx) {
  if (gateOptLevel(ctx) < 2 || ctx.knobs.getBool("DisableMergeEquivalentConditionalFlow") ||
      !ctx.knobs.getBool("GeneralOptimizationEnable"))
    return;
  const int64_t budget = ctx.knobs.getInt("MergeEquivalentConditionalFlowBudget");
  runTransform(f, ctx, "OriBranchOpt", [&](Function& g) { reference::oriBranchOpt(g, budget); },
               [&](Function& g) { optimized::oriBranchOpt(g, budget); });
}

// The SM number of the target ("sm_90" -> 90); 90 without one.
int smNumber(const PassContext& ctx) {
  if (!ctx.arch) return 90;
  std::string_view n = ctx.arch->name;
  int v = 0;
  for (char c : n.substr(n.find('_') + 1))
    if (c >= '0' && c <= '9') v = v * 10 + (c - '0');
    else break;
  return v;
}

SwitchOptOptions switchOptions(const Function& f, const PassContext& ctx, bool secondPass) {
  SwitchOptOptions o;
  o.secondPass = secondPass;
  o.budget = ctx.knobs.getInt("SwitchOptBudget");
  o.extendedPatternMatch = ctx.knobs.getBool("SwitchOptExtendedPatternMatch");
  o.bitTests = ctx.switchBitTests;
  if (ctx.profile)
    if (auto it = ctx.profile->find(f.name); it != ctx.profile->end()) o.blockCounts = &it->second;
  return o;
}

void runSwitchOpt(Function& f, PassContext& ctx, std::string_view what, const SwitchOptOptions& o) {
  runTransform(f, ctx, what, [&](Function& g) { reference::doSwitchOpt(g, o); },
               [&](Function& g) { optimized::doSwitchOpt(g, o); });
}

// Phase 14 DoSwitchOptFirst (spec/003 "Phase 14 Vtable Slot 17"): from -O2;
// the SM backend's slot 17 is the 2-byte no-op on sm_30 and sm_50 (Kepler,
// Maxwell: nothing happens); on sm_60 and later the generic algorithm runs in
// first-pass mode (docs/branch-and-switch.md says why: the spec's handlers
// there rewrite branch encodings and sync stacks Ori does not model).
void doSwitchOptFirstPhase(Function& f, PassContext& ctx) {
  if (gateOptLevel(ctx) < 2 || smNumber(ctx) < 60) return;
  runSwitchOpt(f, ctx, "DoSwitchOptFirst", switchOptions(f, ctx, false));
}

// Phase 30 DoSwitchOptSecond: from -O2, the generic algorithm (sub_791F00(ctx, 1)).
void doSwitchOptSecondPhase(Function& f, PassContext& ctx) {
  if (gateOptLevel(ctx) < 2) return;
  runSwitchOpt(f, ctx, "DoSwitchOptSecond", switchOptions(f, ctx, true));
}

// Phase 38 OptimizeNestedCondBranches (spec/003): from -O2 (sub_7DDB50 > 1; the spec names
// no knob of its own). Each combination is shown to ctx.nestedCondObserver, from the half
// that runs on f.
void optimizeNestedCondBranchesPhase(Function& f, PassContext& ctx) {
  if (gateOptLevel(ctx) < 2) return;
  const NestedCondObserver& watch = ctx.nestedCondObserver;
  runTransform(f, ctx, "OptimizeNestedCondBranches",
               [&](Function& g) { reference::optimizeNestedCondBranches(g, ctx.half == PassContext::Half::Reference ? watch : NestedCondObserver{}); },
               [&](Function& g) { optimized::optimizeNestedCondBranches(g, watch); });
}

// Phase 80 ExpandJmxComputation: every JMX becomes a BRX (no gate: it must
// run for the code to be final).
void expandJmxComputationPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "ExpandJmxComputation", reference::expandJmxComputation, optimized::expandJmxComputation);
}

// Implemented phases in pipeline order.
constexpr PipelineEntry kPipeline[] = {
    {0, nullptr}, // sentinel so the array is not empty; never runs (see pipeline())
    {3, analyzeControlFlowPhase},
    {6, setControlFlowOpLastInBBPhase},
    {10, earlyOriSimpleLiveDeadPhase, false},
    {14, doSwitchOptFirstPhase, false},
    {15, oriBranchOptPhase, false},
    {16, oriPerformLiveDeadPhase, false},
    {19, oriSplitLiveRangesPhase, false},
    {30, doSwitchOptSecondPhase, false},
    {33, oriPerformLiveDeadPhase, false},
    {38, optimizeNestedCondBranchesPhase, false},
    {61, oriPerformLiveDeadPhase, false},
    {80, expandJmxComputationPhase, false},
    {84, oriPerformLiveDeadPhase, false},
    {112, placeBlocksInSourceOrderPhase},
};
} // namespace

void eraseUnreachablePass(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "erase-unreachable", reference::eraseUnreachableBlocks, optimized::eraseUnreachableBlocks);
}

void reorderBlocksPass(Function& f, PassContext& ctx, const std::vector<uint32_t>& order) {
  runTransform(f, ctx, "reorder-blocks", [&](Function& g) { reference::reorderBlocks(g, order); },
               [&](Function& g) { optimized::reorderBlocks(g, order); });
}

std::span<const PipelineEntry> pipeline() {
  return std::span<const PipelineEntry>(kPipeline).subspan(1);
}

bool isImplemented(int phase) {
  for (const PipelineEntry& e : pipeline())
    if (e.phase == phase) return true;
  return false;
}

std::variant<std::vector<const PipelineEntry*>, std::string> parsePhaseList(std::string_view list) {
  std::vector<const PipelineEntry*> out;
  size_t i = 0;
  while (i <= list.size()) {
    size_t end = list.find(',', i);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(i, end - i);
    i = end + 1;
    if (item.empty()) {
      if (end == list.size() && out.empty() && list.empty()) break;
      return std::string("empty item in phase list");
    }
    const PhaseInfo* info = findPhase(item);
    if (!info) return fmt::format("unknown phase '{}' (see --list-phases)", item);
    const PipelineEntry* entry = nullptr;
    for (const PipelineEntry& e : pipeline())
      if (e.phase == info->number) entry = &e;
    if (!entry) return fmt::format("phase {} {} is not implemented yet", info->number, info->name);
    out.push_back(entry);
  }
  return out;
}

} // namespace ori
