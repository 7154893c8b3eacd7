#include "pipeline/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "ir/arch.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {

namespace {
// Phase 3 AnalyzeControlFlow (spec/001): leaves the IR as it is. Behind the
// wrapper's gate (the table's: -O1+, knob 235; analyzeControlFlowGate) it
// computes the annotations (optimized half) and checks them against the
// natural loops: every loop header is a LOOP_HEADER and every body block
// IN_LOOP (a failure is a bug: internal error).
void analyzeControlFlowPhase(Function& f, PassContext&) {
  if (f.isDeclaration()) return;
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

// runTransform for halves that return how many rewrites they applied: the count of the half
// that ran on f (0 for a declaration) goes to ctx.rewrites.
template <typename Reference, typename Optimized>
void runCountedTransform(Function& f, PassContext& ctx, std::string_view what, Reference reference,
                         Optimized optimized) {
  size_t ref = 0, opt = 0;
  runTransform(f, ctx, what, [&](Function& g) { ref = reference(g); }, [&](Function& g) { opt = optimized(g); });
  addRewrites(ctx, ctx.half == PassContext::Half::Reference ? ref : opt);
}

// Phase 6 SetControlFlowOpLastInBB (spec/000): splits blocks after control
// flow that is not last (the parser never leaves any: see --unsplit-blocks).
void setControlFlowOpLastInBBPhase(Function& f, PassContext& ctx) {
  runCountedTransform(f, ctx, "SetControlFlowOpLastInBB", reference::setControlFlowOpLastInBB,
                      optimized::setControlFlowOpLastInBB);
}

// Phase 112 PlaceBlocksInSourceOrder (spec/000): blocks back in label-id order.
void placeBlocksInSourceOrderPhase(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "PlaceBlocksInSourceOrder", reference::placeBlocksInSourceOrder,
               optimized::placeBlocksInSourceOrder);
}

// Phase 10 EarlyOriSimpleLiveDead (spec/004): block-local dead-code elimination.
void earlyOriSimpleLiveDeadPhase(Function& f, PassContext& ctx) {
  runCountedTransform(f, ctx, "EarlyOriSimpleLiveDead", reference::earlyOriSimpleLiveDead,
                      optimized::earlyOriSimpleLiveDead);
}

// Phases 16/33/61/84 OriPerformLiveDead (spec/004): one pass at four places.
void oriPerformLiveDeadPhase(Function& f, PassContext& ctx) {
  runCountedTransform(f, ctx, "OriPerformLiveDead", reference::oriPerformLiveDead, optimized::oriPerformLiveDead);
}

// Phase 19 OriSplitLiveRanges (spec/004), unless knob 456 vetoes it (the table's gate).
void oriSplitLiveRangesPhase(Function& f, PassContext& ctx) {
  runCountedTransform(f, ctx, "OriSplitLiveRanges", reference::oriSplitLiveRanges, optimized::oriSplitLiveRanges);
}

// Phase 15 OriBranchOpt (spec/003): from -O2 (sub_7DDB50 > 1), unless knob 214
// disables the sub_7917F0 body or knob 487 turns general optimization off (the
// table's gate); knob 464 is the budget of rewrites.
void oriBranchOptPhase(Function& f, PassContext& ctx) {
  const int64_t budget = ctx.knobs.getInt("MergeEquivalentConditionalFlowBudget");
  // Rewrites: the four branch rules, and each unreachable block erased (spec/003's Transformation 2).
  auto rewrites = [](const BranchOptCounts& c) { return size_t(c.rewrites()) + c.erasedBlocks; };
  runCountedTransform(f, ctx, "OriBranchOpt", [&](Function& g) { return rewrites(reference::oriBranchOpt(g, budget)); },
                      [&](Function& g) { return rewrites(optimized::oriBranchOpt(g, budget)); });
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
  runCountedTransform(f, ctx, what, [&](Function& g) { return reference::doSwitchOpt(g, o).lowered(); },
                      [&](Function& g) { return optimized::doSwitchOpt(g, o).lowered(); });
}

// Phase 14 DoSwitchOptFirst (spec/003 "Phase 14 Vtable Slot 17"): from -O2;
// the SM backend's slot 17 is the 2-byte no-op on sm_30 and sm_50 (Kepler,
// Maxwell: nothing happens; both the table's gate); on sm_60 and later the
// generic algorithm runs in first-pass mode (docs/branch-and-switch.md says
// why: the spec's handlers there rewrite branch encodings and sync stacks Ori
// does not model).
void doSwitchOptFirstPhase(Function& f, PassContext& ctx) {
  runSwitchOpt(f, ctx, "DoSwitchOptFirst", switchOptions(f, ctx, false));
}

// Phase 30 DoSwitchOptSecond: from -O2, the generic algorithm (sub_791F00(ctx, 1)).
void doSwitchOptSecondPhase(Function& f, PassContext& ctx) {
  runSwitchOpt(f, ctx, "DoSwitchOptSecond", switchOptions(f, ctx, true));
}

// Phase 38 OptimizeNestedCondBranches (spec/003): from -O2 (sub_7DDB50 > 1; the spec names
// no knob of its own). Each combination is shown to ctx.nestedCondObserver, from the half
// that runs on f.
void optimizeNestedCondBranchesPhase(Function& f, PassContext& ctx) {
  const NestedCondObserver& watch = ctx.nestedCondObserver;
  runCountedTransform(f, ctx, "OptimizeNestedCondBranches",
               [&](Function& g) { return reference::optimizeNestedCondBranches(g, ctx.half == PassContext::Half::Reference ? watch : NestedCondObserver{}).combined; },
               [&](Function& g) { return optimized::optimizeNestedCondBranches(g, watch).combined; });
}

// The GeneralOptimize options of the target: sub_8F2E50's SM, sub_8F29C0's
// class, limit-fold-fp.
GeneralOptimizeOptions generalOptimizeOptions(const PassContext& ctx) {
  GeneralOptimizeOptions o;
  const ArchInfo* arch = ctx.arch ? ctx.arch : findArch(kDefaultArch);
  o.smEncoded = arch->encoded;
  o.predicateMarking = archAllowsPredicateMarking(o.smEncoded);
  o.limitFoldFp = ctx.knobs.getBool("limit-fold-fp");
  o.evaluate = ctx.foldEvaluate;
  return o;
}

// Phase 29's suite (sub_908EB0), which phases 29, 46 and 65 run: both halves
// must agree on the text, the counts and the marks.
void runGeneralOptimize(Function& f, PassContext& ctx, std::string_view what) {
  const GeneralOptimizeOptions o = generalOptimizeOptions(ctx);
  GeneralOptimizeResult ref, opt;
  runTransform(f, ctx, what, [&](Function& g) { ref = reference::generalOptimize(g, o); },
               [&](Function& g) { opt = optimized::generalOptimize(g, o); });
  if (ctx.half == PassContext::Half::Both && ctx.error.empty() && !(ref == opt))
    ctx.error = fmt::format("function {}: {}: reference and optimized differ in counts or fold marks", f.name, what);
  if (ctx.foldMarksObserver && !f.isDeclaration())
    ctx.foldMarksObserver(f, what, ctx.half == PassContext::Half::Reference ? ref.marks : opt.marks);
  const GeneralOptimizeCounts& c = (ctx.half == PassContext::Half::Reference ? ref : opt).counts;
  addRewrites(ctx, size_t(c.usesReplaced) + c.selectsToCopies + c.guardsResolved);
}

// Phase 13 GeneralOptimizeEarly (spec/002 sub_7917F0): from -O2, unless knob 214
// disables it or knob 487 turns general optimization off; knob 464 is the
// budget of the fixed-point loop.
void generalOptimizeEarlyPhase(Function& f, PassContext& ctx) {
  const int64_t budget = ctx.knobs.getInt("MergeEquivalentConditionalFlowBudget");
  EarlyOptimizeCounts ref, opt;
  runTransform(f, ctx, "GeneralOptimizeEarly", [&](Function& g) { ref = reference::generalOptimizeEarly(g, budget); },
               [&](Function& g) { opt = optimized::generalOptimizeEarly(g, budget); });
  if (ctx.half == PassContext::Half::Both && ctx.error.empty() && !(ref == opt))
    ctx.error = fmt::format("function {}: GeneralOptimizeEarly: reference and optimized differ in counts", f.name);
  const EarlyOptimizeCounts& c = ctx.half == PassContext::Half::Reference ? ref : opt;
  addRewrites(ctx, size_t(c.branchesDeleted) + c.branchesUnconditional);
}

// Phase 29 GeneralOptimize (spec/002 sub_C5FC50): from -O2 ("count > 1"), with
// knob 487 on and knob 231 (DisableRedundantBarrierRemoval, the spec's dump
// mode) off.
void generalOptimizePhase(Function& f, PassContext& ctx) {
  runGeneralOptimize(f, ctx, "GeneralOptimize");
}

// Phase 37 GeneralOptimizeMid (spec/002 sub_910840): from -O2 ("count > 1"),
// knob 487 on, unless no-phase names ConvertMemoryToRegisterOrUniform (the
// named gate sub_799250). Knobs 474 (the MOV weight and convergence
// threshold), 136 (the promotion threshold) and 135 (the convergence
// override) are the cost model's. The sub_8F3EA0 pre-check is not known
// (docs/general-optimize.md).
void generalOptimizeMidPhase(Function& f, PassContext& ctx) {
  MemToRegOptions o;
  o.movWeight = ctx.knobs.getFloat("MovWeightForConvertMemToReg");
  o.promotionThreshold = ctx.knobs.getFloat("ConvertMemoryToRegPromotionThreshold");
  o.convergenceOverride = ctx.knobs.getInt("ConvertMemoryToRegIndexedSizeLimit");
  o.suite = generalOptimizeOptions(ctx);
  MidOptimizeResult ref, opt;
  runTransform(f, ctx, "GeneralOptimizeMid", [&](Function& g) { ref = reference::generalOptimizeMid(g, o); },
               [&](Function& g) { opt = optimized::generalOptimizeMid(g, o); });
  if (ctx.half == PassContext::Half::Both && ctx.error.empty() && !(ref == opt))
    ctx.error = fmt::format("function {}: GeneralOptimizeMid: reference and optimized differ in counts or fold marks", f.name);
  const MidOptimizeResult& r = ctx.half == PassContext::Half::Reference ? ref : opt;
  if (ctx.foldMarksObserver && !f.isDeclaration()) ctx.foldMarksObserver(f, "GeneralOptimizeMid", r.suite.marks);
  const GeneralOptimizeCounts& c = r.suite.counts;
  addRewrites(ctx, size_t(r.memToReg.loadsReplaced) + r.memToReg.storesReplaced + c.usesReplaced + c.selectsToCopies +
                       c.guardsResolved);
}

// Phase 46 GeneralOptimizeMid2 (spec/002 0xC60840): the SM backend's slot 0x1C0,
// which is the no-op sentinel sub_7D6DD0 where the architecture has no
// predicate-aware suite (sub_8F29C0 false: sm_30, sm_60) and phase 29's suite
// elsewhere (docs/general-optimize.md says why this reading).
void generalOptimizeMid2Phase(Function& f, PassContext& ctx) {
  runGeneralOptimize(f, ctx, "GeneralOptimizeMid2");
}

// Phase 58 GeneralOptimizeLate (spec/002 sub_8F7080): from -O3 ("> 2"); knob 605
// (ReassociateCSEWindow) keeps the window to its existing entries.
void generalOptimizeLatePhase(Function& f, PassContext& ctx) {
  const bool existingOnly = ctx.knobs.getBool("ReassociateCSEWindow");
  LateOptimizeCounts ref, opt;
  runTransform(f, ctx, "GeneralOptimizeLate", [&](Function& g) { ref = reference::generalOptimizeLate(g, existingOnly); },
               [&](Function& g) { opt = optimized::generalOptimizeLate(g, existingOnly); });
  if (ctx.half == PassContext::Half::Both && ctx.error.empty() && !(ref == opt))
    ctx.error = fmt::format("function {}: GeneralOptimizeLate: reference and optimized differ in counts", f.name);
  addRewrites(ctx, (ctx.half == PassContext::Half::Reference ? ref : opt).movesMerged);
}

// Phase 65 GeneralOptimizeLate2 (spec/002 sub_C60550): from -O2 ("> 1"), the
// compilation unit's slot 392: phase 29's suite on every architecture.
void generalOptimizeLate2Phase(Function& f, PassContext& ctx) {
  runGeneralOptimize(f, ctx, "GeneralOptimizeLate2");
}

// Phase 80 ExpandJmxComputation: every JMX becomes a BRX (no gate: it must
// run for the code to be final).
void expandJmxComputationPhase(Function& f, PassContext& ctx) {
  runCountedTransform(f, ctx, "ExpandJmxComputation", reference::expandJmxComputation, optimized::expandJmxComputation);
}

// Implemented phases in pipeline order: THE phase table. A new phase is one
// more line here, at its place in allPhases() order, with its gate (PhaseGate;
// docs/phases-and-knobs.md gives the sources).
constexpr PipelineEntry kPipeline[] = {
    {3, analyzeControlFlowPhase, true,
     {.minOptLevel = 1, .vetoKnobs = {"DisableAnalyzeControlFlow"}, .spec = "001:15, 001:19"}},
    {6, setControlFlowOpLastInBBPhase},
    {10, earlyOriSimpleLiveDeadPhase, false},
    {13, generalOptimizeEarlyPhase, false,
     {.minOptLevel = 2, .vetoKnobs = {"DisableMergeEquivalentConditionalFlow"},
      .requiredKnobs = {"GeneralOptimizationEnable"}, .spec = "002:11, 002:785"}},
    {14, doSwitchOptFirstPhase, false, {.minOptLevel = 2, .minSm = 60, .spec = "003:415, 003:19"}},
    {15, oriBranchOptPhase, false,
     {.minOptLevel = 2, .vetoKnobs = {"DisableMergeEquivalentConditionalFlow"},
      .requiredKnobs = {"GeneralOptimizationEnable"}, .spec = "003:415, 003:420"}},
    {16, oriPerformLiveDeadPhase, false},
    {19, oriSplitLiveRangesPhase, false, {.vetoKnobs = {"DisableOriSplitLiveRanges"}, .spec = "004:253"}},
    {29, generalOptimizePhase, false,
     {.minOptLevel = 2, .vetoKnobs = {"DisableRedundantBarrierRemoval"}, .requiredKnobs = {"GeneralOptimizationEnable"},
      .spec = "002:859, 002:786"}},
    {30, doSwitchOptSecondPhase, false, {.minOptLevel = 2, .spec = "003:415"}},
    {33, oriPerformLiveDeadPhase, false},
    {37, generalOptimizeMidPhase, false,
     {.minOptLevel = 2, .requiredKnobs = {"GeneralOptimizationEnable"}, .namedPhase = "ConvertMemoryToRegisterOrUniform",
      .spec = "002:18, 002:65-69, 002:787"}},
    {38, optimizeNestedCondBranchesPhase, false, {.minOptLevel = 2, .spec = "003:415"}},
    {46, generalOptimizeMid2Phase, false, {.needsPredicateMarking = true, .spec = "002:89-96"}},
    {58, generalOptimizeLatePhase, false, {.minOptLevel = 3, .spec = "002:75-76"}},
    {61, oriPerformLiveDeadPhase, false},
    {65, generalOptimizeLate2Phase, false, {.minOptLevel = 2, .spec = "002:100-101"}},
    {80, expandJmxComputationPhase, false},
    {84, oriPerformLiveDeadPhase, false},
    {112, placeBlocksInSourceOrderPhase},
};
} // namespace

void eraseUnreachablePass(Function& f, PassContext& ctx) {
  runTransform(f, ctx, "erase-unreachable", reference::eraseUnreachableBlocks, optimized::eraseUnreachableBlocks);
}

void unsplitBlocks(Function& f) {
  if (f.blocks.empty()) return;
  std::vector<uint32_t> newIndex(f.blocks.size());
  std::vector<Block> joined;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    Block& blk = f.blocks[b];
    if (b > 0 && blk.label.empty()) {
      for (Instr& in : blk.instrs) joined.back().instrs.push_back(std::move(in));
    } else {
      joined.push_back(std::move(blk));
    }
    newIndex[b] = uint32_t(joined.size() - 1);
  }
  for (Block& blk : joined)
    for (Instr& in : blk.instrs)
      for (Operand& op : in.srcs)
        if (op.kind == Operand::Kind::Label) op.target = newIndex[op.target];
  for (JumpTable& jt : f.jumpTables)
    for (uint32_t& t : jt.targets) t = newIndex[t];
  f.blocks = std::move(joined);
}

void reorderBlocksPass(Function& f, PassContext& ctx, const std::vector<uint32_t>& order) {
  runTransform(f, ctx, "reorder-blocks", [&](Function& g) { reference::reorderBlocks(g, order); },
               [&](Function& g) { optimized::reorderBlocks(g, order); });
}

std::optional<std::string> checkPipelineOrder(std::span<const PipelineEntry> table) {
  const std::span<const PhaseInfo> all = allPhases();
  size_t next = 0; // the first index of allPhases() the next entry may take
  for (size_t i = 0; i < table.size(); ++i) {
    const PipelineEntry& e = table[i];
    if (!e.run) return fmt::format("pipeline entry {} (phase {}) runs nothing", i, e.phase);
    auto it = std::find_if(all.begin(), all.end(), [&](const PhaseInfo& p) { return p.number == e.phase; });
    if (it == all.end()) return fmt::format("pipeline entry {}: phase {} is not in the phase registry", i, e.phase);
    const size_t at = size_t(it - all.begin());
    if (at < next)
      return fmt::format("pipeline entry {}: phase {} {} comes after phase {} {}, against ptxas's order", i, e.phase,
                         it->name, table[i - 1].phase, findPhase(std::to_string(table[i - 1].phase))->name);
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

std::vector<const PipelineEntry*> defaultPhases() {
  std::vector<const PipelineEntry*> out;
  for (const PipelineEntry& e : pipeline())
    if (e.byDefault) out.push_back(&e);
  return out;
}

ModuleSize moduleSize(const Module& m) {
  ModuleSize s;
  for (const Function& f : m.functions) {
    s.blocks += f.blocks.size();
    for (const Block& b : f.blocks) s.instrs += b.instrs.size();
  }
  return s;
}

void runPhase(Module& m, const PipelineEntry& e, PassContext& ctx, const PhaseProgress& progress) {
  if (gateBlocks(e.gate, ctx)) return;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (progress) progress(e, i, m.functions.size());
    e.run(m.functions[i], ctx);
  }
}

std::vector<PhaseStats> runPhases(Module& m, std::span<const PipelineEntry* const> phases, PassContext& ctx,
                                  const RunOptions& opts) {
  std::vector<PhaseStats> out;
  for (const PipelineEntry* e : phases) {
    if (opts.beforePhase) opts.beforePhase(*e, m);
    PhaseStats st;
    st.phase = e->phase;
    st.before = moduleSize(m);
    std::optional<Module> before;
    if (std::optional<std::string> why = gateBlocks(e->gate, ctx)) {
      st.gatedBy = std::move(*why);
      st.after = st.before;
      if (opts.countChanges) st.changes = ModuleChanges{};
      out.push_back(st);
      if (opts.afterPhase && !opts.afterPhase(*e, opts.keepBefore || opts.countChanges ? &m : nullptr, m)) break;
      continue;
    }
    if (opts.keepBefore || opts.countChanges) before = m;
    ctx.rewrites.reset();
    const auto start = std::chrono::steady_clock::now();
    runPhase(m, *e, ctx, opts.progress);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    st.rewrites = ctx.rewrites;
    st.after = moduleSize(m);
    if (opts.countChanges) st.changes = diffModules(*before, m);
    out.push_back(st);
    if (!ctx.error.empty()) break;
    if (opts.afterPhase && !opts.afterPhase(*e, before ? &*before : nullptr, m)) break;
  }
  return out;
}

std::vector<const PipelineEntry*> ptxasPhases() {
  std::vector<const PipelineEntry*> out;
  for (const PipelineEntry& e : pipeline()) out.push_back(&e);
  return out;
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
