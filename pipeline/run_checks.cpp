// The checks around a run of phases (pipeline/run_checks.h).
#include "pipeline/run_checks.h"

#include <fmt/format.h>

#include "ir/phases.h"
#include "pipeline/verify_phases.h"

namespace ori {

RunChecks::RunChecks(const Module &m, PassContext &ctx, RunChecksOptions o)
    : ctx_(ctx), o_(std::move(o)) {
  if (o_.verify)
    nested_.install(ctx, m, o_.tv, [this](const std::string &line) {
      if (o_.print)
        o_.print(line + "\n");
    });
}

void RunChecks::checkStep(const Module &before, const Module &after, const std::string &step) {
  if (!o_.verify || !ctx_.error.empty() || error_)
    return;
  VerifyReport rep = verifyStep(before, after, step, o_.tv,
                                o_.verifyProgress ? o_.verifyProgress(step)
                                                  : std::function<void(size_t, size_t)>());
  if (o_.print)
    o_.print(rep.lines);
  if (rep.refuted)
    error_ = step + " changed the behaviour of a function (above)";
}

bool RunChecks::afterPhase(const PipelineEntry &e, const Module *before, const Module &after) {
  if (o_.recorder)
    o_.recorder->afterPhase(e, after);
  if (nested_.refuted()) {
    error_ =
        "phase 38 OptimizeNestedCondBranches made a combination that changes behaviour (above)";
    return false;
  }
  if (before) {
    const PhaseInfo *info = findPhase(std::to_string(e.phase));
    checkStep(*before, after, fmt::format("phase {} {}", e.phase, info ? info->name : ""));
  }
  return !error_;
}

void RunChecks::eraseUnreachable(Module &m) {
  std::optional<Module> before;
  if (o_.verify)
    before = m;
  for (Function &f : m.functions)
    eraseUnreachablePass(f, ctx_);
  if (before)
    checkStep(*before, m, "--erase-unreachable");
}

} // namespace ori
