// What the oriopt command does, as calls (pipeline/driver.h).
#include "pipeline/driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "ir/arch.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "pipeline/stats.h"
#include "ptx/ptx.h"
#include "verify/nested_cond_check.h"

namespace ori {

using nlohmann::json;

std::variant<std::vector<const PipelineEntry *>, std::string> selectPhases(PipelineChoice pipeline,
                                                                           std::string_view list) {
  if (pipeline == PipelineChoice::Ptxas) {
    if (!list.empty())
      return std::string("--pipeline=ptxas and --phases are exclusive: give one or the other");
    return ptxasPhases();
  }
  if (list.empty())
    return defaultPhases();
  auto parsed = parsePhaseList(list);
  if (auto *err = std::get_if<std::string>(&parsed))
    return "--phases: " + *err;
  return std::get<0>(parsed);
}

std::optional<std::string> configureContext(PassContext &ctx, const ContextOptions &o) {
  ctx.optLevel = o.optLevel;
  ctx.arch = findArch(o.arch);
  ctx.switchBitTests = o.switchBitTests;
  ctx.foldEvaluate = o.foldEvaluate;
  ctx.half = o.impl == Impl::Reference ? PassContext::Half::Reference
             : o.impl == Impl::Both    ? PassContext::Half::Both
                                       : PassContext::Half::Optimized;
  if (!ctx.arch) {
    std::string known;
    for (const ArchInfo &a : allArchs())
      known += " " + std::string(a.name);
    return fmt::format("unknown architecture '{}'; known:{}", o.arch, known);
  }
  for (const std::string &k : o.knobs)
    if (auto err = ctx.knobs.setFromAssignment(k))
      return fmt::format("--knob {}: {}", k, *err);
  return std::nullopt;
}

std::optional<std::string> reorderModuleBlocks(Module &m, PassContext &ctx,
                                               const std::string &order,
                                               const std::string &function) {
  std::vector<uint32_t> bixes;
  for (size_t i = 0; i <= order.size();) {
    size_t end = std::min(order.find(',', i), order.size());
    const std::string item = order.substr(i, end - i);
    char *stop = nullptr;
    const unsigned long v = item.empty() || !std::isdigit(static_cast<unsigned char>(item[0]))
                                ? ~0ul
                                : std::strtoul(item.c_str(), &stop, 0);
    if (v >= (1ul << 31) || *stop != '\0')
      return fmt::format("--reorder-blocks {}: expected bix numbers separated by commas", order);
    bixes.push_back(uint32_t(v));
    i = end + 1;
  }
  std::vector<bool> seen(bixes.size());
  for (uint32_t b : bixes)
    if (b >= bixes.size() || seen[b] || bixes[0] != 0)
      return fmt::format("--reorder-blocks {}: expected 0 first, then every other bix once", order);
    else
      seen[b] = true;
  for (Function &f : m.functions) {
    if (f.isDeclaration() || (!function.empty() && f.name != function))
      continue;
    if (f.blocks.size() != bixes.size())
      return fmt::format("--reorder-blocks {}: function {} has {} blocks", order, f.name,
                         f.blocks.size());
    reorderBlocksPass(f, ctx, bixes);
  }
  return std::nullopt;
}

std::optional<std::string> unsplitModuleBlocks(Module &m,
                                               std::span<const PipelineEntry *const> phases) {
  if (std::none_of(phases.begin(), phases.end(),
                   [](const PipelineEntry *e) { return e->phase == 6; }))
    return std::string("--unsplit-blocks leaves control flow inside blocks: run phase 6 "
                       "(--phases=6,...) to split them again");
  for (Function &f : m.functions)
    unsplitBlocks(f);
  return std::nullopt;
}

std::variant<std::string, Diagnostic> emitModule(const Module &m, EmitFormat format) {
  if (format == EmitFormat::Ori)
    return printModule(m);
  ptx::EmitResult emitted = ptx::emit(m);
  if (emitted.error)
    return *emitted.error;
  return std::move(emitted.text);
}

std::string formatFoldMarksEvent(const std::string &function, std::string_view phase,
                                 const std::vector<FoldMark> &marks) {
  return fmt::format("fold-marks: function {} phase {}: {} marked\n", function, phase,
                     marks.size()) +
         formatFoldMarks(marks);
}

void FoldMarksLog::install(PassContext &ctx, std::function<void(const std::string &)> echo) {
  echo_ = std::move(echo);
  ctx.foldMarksObserver = [this](const Function &f, std::string_view phase,
                                 const std::vector<FoldMark> &marks) {
    events_.push_back({f.name, std::string(phase), marks});
    if (echo_)
      echo_(formatFoldMarksEvent(f.name, phase, marks));
  };
}

std::string FoldMarksLog::text() const {
  std::string out;
  for (const Event &e : events_)
    out += formatFoldMarksEvent(e.function, e.phase, e.marks);
  return out;
}

nlohmann::json FoldMarksLog::json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Event &e : events_) {
    nlohmann::json marks = nlohmann::json::array();
    for (const FoldMark &m : e.marks)
      marks.push_back({{"bix", m.bix},
                       {"index", m.index},
                       {"dst", m.dst},
                       {"mask", m.mask},
                       {"uses", m.uses},
                       {"round", m.round}});
    out.push_back({{"function", e.function}, {"phase", e.phase}, {"marks", std::move(marks)}});
  }
  return out;
}

void NestedCondProver::install(PassContext &ctx, const Module &m, const verify::TvOptions &opts,
                               std::function<void(const std::string &)> line,
                               std::function<void(VerdictRecord)> record) {
  ctx.nestedCondObserver = [this, &m, opts, line, record](const Function &before,
                                                          const Function &after,
                                                          uint32_t outerLabelId) {
    const LivenessFacts live = optimized::computeLiveness(before, optimized::computeCfg(before));
    verify::NestedCondCheck c =
        verify::checkNestedCondCombination(m, before, after, outerLabelId, live, opts);
    if (line)
      line("verify phase 38 OptimizeNestedCondBranches: " + c.line);
    refuted_ = refuted_ || c.verdict == verify::TvResult::Verdict::Refuted;
    if (record) {
      VerdictRecord r;
      r.step = "phase 38 OptimizeNestedCondBranches";
      r.phase = 38;
      r.function = before.name;
      r.kind = "combination";
      r.what = fmt::format("L{:x}", outerLabelId);
      r.verdict = c.verdict;
      r.reason = c.result.reason;
      r.seconds = c.result.seconds;
      r.inputs = c.result.inputs;
      r.noReplay = c.result.noReplay;
      r.functionLine = before.loc.line;
      r.line = c.line;
      record(std::move(r));
    }
  };
}

std::string_view implName(Impl impl) {
  return impl == Impl::Reference ? "reference" : impl == Impl::Both ? "both" : "optimized";
}

std::string_view pipelineName(PipelineChoice pipeline, std::string_view phases) {
  return pipeline == PipelineChoice::Ptxas ? "ptxas" : phases.empty() ? "default" : "phases";
}

json runDocument(const RunDescription &run, std::span<const PhaseStats> stats,
                 nlohmann::json functions, const FoldMarksLog *foldMarks) {
  nlohmann::json j = {{"oriopt", 1},
                      {"input", run.input},
                      {"optLevel", run.optLevel},
                      {"arch", run.arch},
                      {"impl", implName(run.impl)},
                      {"pipeline", run.pipeline},
                      {"phases", statsJson(stats)},
                      {"functions", std::move(functions)}};
  if (foldMarks)
    j["foldMarks"] = foldMarks->json();
  return j;
}

} // namespace ori
