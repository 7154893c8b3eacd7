// The checks around a run of phases (pipeline/run_checks.h).
#include "pipeline/run_checks.h"

#include <fmt/format.h>

#include "ir/phases.h"
#include "pipeline/verify_phases.h"

namespace ori {

RunChecks::RunChecks(const Module &m, PassContext &ctx, RunChecksOptions o)
    : ctx_(ctx), o_(std::move(o)) {
  if (o_.verify)
    nested_.install(
        ctx, m, o_.tv,
        [this](const std::string &line) {
          if (o_.print)
            o_.print(line + "\n");
        },
        [this](VerdictRecord r) { log_.add(std::move(r)); });
}

namespace {
// --verify-plant-bug: in the first function that differs from `before`, the guard of the first
// guarded instruction negated or, when none is guarded, the first integer immediate plus one
// (a predicate flipped or a constant off by one, as TvMutants plants); false when neither is
// found.
bool plantBug(const Module &before, Module &after) {
  for (Function &f : after.functions) {
    const Function *b = before.findFunction(f.name);
    if (b && *b == f)
      continue;
    for (Block &blk : f.blocks)
      for (Instr &in : blk.instrs)
        if (in.isGuarded()) {
          in.guard->neg = !in.guard->neg;
          return true;
        }
    for (Block &blk : f.blocks)
      for (Instr &in : blk.instrs)
        for (Operand &src : in.srcs)
          if (src.kind == Operand::Kind::Imm) {
            ++src.imm;
            return true;
          }
  }
  return false;
}
} // namespace

void RunChecks::checkStep(const Module &before, const Module &after, const std::string &step) {
  if (!o_.verify || !ctx_.error.empty() || error_)
    return;
  std::optional<Module> planted;
  if (o_.plantBug) {
    planted = after;
    if (!plantBug(before, *planted))
      planted.reset();
  }
  VerifyReport rep = verifyStep(before, planted ? *planted : after, step, o_.tv,
                                o_.verifyProgress ? o_.verifyProgress(step) : VerifyProgress());
  if (o_.print)
    o_.print(rep.lines);
  for (VerdictRecord &r : rep.verdicts)
    log_.add(std::move(r));
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
