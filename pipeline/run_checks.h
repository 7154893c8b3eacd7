// The checks oriopt makes around runPhases (docs/library.md, "A run as oriopt makes it"): with
// --verify, each phase's output proved against its input (verifyStep) and phase 38's
// combinations proved as they are made (NestedCondProver); the --report recording; and
// --erase-unreachable after the phases, proved too. A refutation stops the run: afterPhase
// returns false (runPhases stops after that phase) and error() says why.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "pipeline/driver.h"
#include "pipeline/pipeline.h"
#include "pipeline/report.h"
#include "pipeline/verdicts.h"
#include "pipeline/verify_phases.h"
#include "verify/tv.h"

namespace ori {

struct RunChecksOptions {
  bool verify = false; // --verify
  verify::TvOptions tv;
  // Where the verdict lines go as they are made (each text ends in '\n').
  std::function<void(const std::string &)> print;
  // A progress callback for the verify of the step named (oriopt's progress lines), or none.
  std::function<VerifyProgress(const std::string &)> verifyProgress;
  ReportRecorder *recorder = nullptr; // --report: told of every phase
  // Testing (oriopt's hidden --verify-plant-bug): each step is checked against a copy of its
  // output in which the first guarded instruction of the first changed function has its
  // guard negated, so that a refutation can be tested end to end.
  bool plantBug = false;
};

class RunChecks {
public:
  // Installs phase 38's prover in ctx when verifying; m is the module the phases will change.
  RunChecks(const Module &m, PassContext &ctx, RunChecksOptions o);
  RunChecks(const RunChecks &) = delete; // ctx keeps a pointer to it
  RunChecks &operator=(const RunChecks &) = delete;

  // RunOptions::afterPhase: records the phase, then (verifying) proves what it changed.
  bool afterPhase(const PipelineEntry &e, const Module *before, const Module &after);
  // RunOptions::keepBefore is needed (verifying).
  bool keepBefore() const { return o_.verify; }
  // --erase-unreachable on every function of m, then (verifying) proved as a step.
  void eraseUnreachable(Module &m);
  // Why the run stopped: a step or a phase 38 combination that changed behaviour.
  const std::optional<std::string> &error() const { return error_; }
  // Every verdict so far, in the order made.
  const VerdictLog &verdicts() const { return log_; }

private:
  void checkStep(const Module &before, const Module &after, const std::string &step);
  PassContext &ctx_;
  RunChecksOptions o_;
  NestedCondProver nested_;
  std::optional<std::string> error_;
  VerdictLog log_;
};

} // namespace ori
