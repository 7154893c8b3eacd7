#include "pipeline/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "ir/arch.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "pipeline/halves_impl.h"
#include "reference/reference.h"

namespace ori {

using pipeline_detail::HalfRun;
using pipeline_detail::runHalves;

namespace {

// A pass of each half that takes no context and reports nothing, as the runner runs it.
template <class Reference, class Optimized>
void runUncounted(Function &f, PassContext &ctx, std::string_view what, Reference reference,
                  Optimized optimized) {
  if (f.isDeclaration())
    return;
  auto wrap = [](auto pass) -> HalfRun {
    return [pass](Function &g, bool) {
      pass(g);
      return HalfOutcome{};
    };
  };
  runHalves(f, ctx, what, wrap(reference), wrap(optimized));
}

} // namespace

void eraseUnreachablePass(Function &f, PassContext &ctx) {
  runUncounted(f, ctx, "erase-unreachable", reference::eraseUnreachableBlocks,
               optimized::eraseUnreachableBlocks);
}

void unsplitBlocks(Function &f) {
  if (f.blocks.empty())
    return;
  std::vector<uint32_t> newIndex(f.blocks.size());
  std::vector<Block> joined;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    Block &blk = f.blocks[b];
    if (b > 0 && blk.label.empty()) {
      for (Instr &in : blk.instrs)
        joined.back().instrs.push_back(std::move(in));
    } else {
      joined.push_back(std::move(blk));
    }
    newIndex[b] = uint32_t(joined.size() - 1);
  }
  for (Block &blk : joined)
    for (Instr &in : blk.instrs)
      for (Operand &op : in.srcs)
        if (op.kind == Operand::Kind::Label)
          op.target = newIndex[op.target];
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  f.blocks = std::move(joined);
}

void reorderBlocksPass(Function &f, PassContext &ctx, const std::vector<uint32_t> &order) {
  runUncounted(
      f, ctx, "reorder-blocks", [&](Function &g) { reference::reorderBlocks(g, order); },
      [&](Function &g) { optimized::reorderBlocks(g, order); });
}

std::vector<const PipelineEntry *> defaultPhases() {
  std::vector<const PipelineEntry *> out;
  for (const PipelineEntry &e : pipeline())
    if (e.byDefault)
      out.push_back(&e);
  return out;
}

ModuleSize moduleSize(const Module &m) {
  ModuleSize s;
  for (const Function &f : m.functions) {
    s.blocks += f.blocks.size();
    for (const Block &b : f.blocks)
      s.instrs += b.instrs.size();
  }
  return s;
}

void runPhase(Module &m, const PipelineEntry &e, PassContext &ctx, const PhaseProgress &progress) {
  if (gateBlocks(e.gate, ctx))
    return;
  const PhaseInfo *info = findPhase(std::to_string(e.phase));
  const std::string_view name = info ? info->name : std::string_view("?");
  auto entry = [&](HalfEntry h) -> HalfRun {
    return [&ctx, h](Function &g, bool observed) { return h(g, ctx, observed); };
  };
  const HalfRun reference = entry(e.reference), optimized = entry(e.optimized);
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (progress)
      progress(e, i, m.functions.size());
    Function &f = m.functions[i];
    if (f.isDeclaration()) {
      if (e.counted)
        addRewrites(ctx, 0);
      continue;
    }
    const HalfOutcome out = runHalves(f, ctx, name, reference, optimized);
    if (out.rewrites)
      addRewrites(ctx, *out.rewrites);
    if (out.marks && ctx.foldMarksObserver)
      ctx.foldMarksObserver(f, name, *out.marks);
  }
}

std::vector<PhaseStats> runPhases(Module &m, std::span<const PipelineEntry *const> phases,
                                  PassContext &ctx, const RunOptions &opts) {
  std::vector<PhaseStats> out;
  for (const PipelineEntry *e : phases) {
    if (opts.beforePhase)
      opts.beforePhase(*e, m);
    PhaseStats st;
    st.phase = e->phase;
    st.before = moduleSize(m);
    std::optional<Module> before;
    if (std::optional<std::string> why = gateBlocks(e->gate, ctx)) {
      st.gatedBy = std::move(*why);
      st.after = st.before;
      if (opts.countChanges)
        st.changes = ModuleChanges{};
      out.push_back(st);
      if (opts.afterPhase &&
          !opts.afterPhase(*e, opts.keepBefore || opts.countChanges ? &m : nullptr, m))
        break;
      continue;
    }
    if (opts.keepBefore || opts.countChanges)
      before = m;
    ctx.rewrites.reset();
    const auto start = std::chrono::steady_clock::now();
    runPhase(m, *e, ctx, opts.progress);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    st.rewrites = ctx.rewrites;
    st.after = moduleSize(m);
    if (opts.countChanges)
      st.changes = diffModules(*before, m);
    out.push_back(st);
    if (!ctx.error.empty())
      break;
    if (opts.afterPhase && !opts.afterPhase(*e, before ? &*before : nullptr, m))
      break;
  }
  return out;
}

std::vector<const PipelineEntry *> ptxasPhases() {
  std::vector<const PipelineEntry *> out;
  for (const PipelineEntry &e : pipeline())
    out.push_back(&e);
  return out;
}

bool isImplemented(int phase) {
  for (const PipelineEntry &e : pipeline())
    if (e.phase == phase)
      return true;
  return false;
}

std::variant<std::vector<const PipelineEntry *>, std::string>
parsePhaseList(std::string_view list) {
  std::vector<const PipelineEntry *> out;
  size_t i = 0;
  while (i <= list.size()) {
    size_t end = list.find(',', i);
    if (end == std::string_view::npos)
      end = list.size();
    std::string_view item = list.substr(i, end - i);
    i = end + 1;
    if (item.empty()) {
      if (end == list.size() && out.empty() && list.empty())
        break;
      return std::string("empty item in phase list");
    }
    const PhaseInfo *info = findPhase(item);
    if (!info)
      return fmt::format("unknown phase '{}' (see --list-phases)", item);
    const PipelineEntry *entry = nullptr;
    for (const PipelineEntry &e : pipeline())
      if (e.phase == info->number)
        entry = &e;
    if (!entry)
      return fmt::format("phase {} {} is not implemented yet", info->number, info->name);
    out.push_back(entry);
  }
  return out;
}

} // namespace ori
