// oriopt's views of a run, as opt gives them: --print-before/--print-after/--print-changed,
// the --stats table, --json's phase statistics, and progress lines on standard error.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli.h"
#include "ir/ori.h"
#include "ir/phases.h"

namespace oriopt_cli {

using namespace ori;
using nlohmann::json;

namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string_view phaseName(int phase) {
  const PhaseInfo *info = findPhase(std::to_string(phase));
  return info ? info->name : std::string_view("?");
}

// "16,OriBranchOpt" "all" ... (each item of each option) -> phase numbers, -1 for all.
std::vector<int> parsePhaseSet(const std::vector<std::string> &items, const char *flag) {
  std::vector<int> out;
  for (const std::string &list : items) {
    size_t i = 0;
    while (i <= list.size()) {
      const size_t end = std::min(list.find(',', i), list.size());
      const std::string item = list.substr(i, end - i);
      i = end + 1;
      if (item == "all") {
        out.push_back(-1);
        continue;
      }
      const PhaseInfo *info = item.empty() ? nullptr : findPhase(item);
      if (!info)
        usageError(fmt::format("{}: unknown phase '{}' (see --list-phases)", flag, item));
      out.push_back(info->number);
    }
  }
  return out;
}

} // namespace

PhaseObserver::PhaseObserver(const Options &o, const PassContext &ctx)
    : o_(o), ctx_(ctx), after_(parsePhaseSet(o.printAfter, "--print-after")),
      before_(parsePhaseSet(o.printBefore, "--print-before")),
      progress_(o.progress || isatty(STDERR_FILENO)), lastProgress_(nowSeconds()) {}

bool PhaseObserver::wanted(const std::vector<int> &set, int phase) const {
  return std::any_of(set.begin(), set.end(), [&](int p) { return p == -1 || p == phase; });
}

void PhaseObserver::print(const Module &m, const std::string &when, const PipelineEntry &e,
                          const Module *onlyChangedFrom) const {
  std::string out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Function &f = m.functions[i];
    if (!o_.function.empty() && f.name != o_.function)
      continue;
    if (onlyChangedFrom && i < onlyChangedFrom->functions.size() &&
        onlyChangedFrom->functions[i] == f)
      continue;
    out += fmt::format("// *** IR Dump {} phase {} {}: function {} ***\n", when, e.phase,
                       phaseName(e.phase), f.name);
    out += printFunction(f);
  }
  std::cerr << out << std::flush;
}

void PhaseObserver::atStart(const Module &m) const {
  if (!o_.printChanged)
    return;
  std::string out;
  for (const Function &f : m.functions) {
    if (!o_.function.empty() && f.name != o_.function)
      continue;
    out += fmt::format("// *** IR Dump At Start: function {} ***\n", f.name);
    out += printFunction(f);
  }
  std::cerr << out << std::flush;
}

void PhaseObserver::install(RunOptions &run, AfterPhase after) {
  run.beforePhase = [this](const PipelineEntry &e, const Module &m) {
    if (!wanted(before_, e.phase))
      return;
    if (auto why = gateBlocks(e.gate, ctx_))
      std::cerr << fmt::format("// *** IR Dump Before phase {} {}: skipped ({}) ***\n", e.phase,
                               phaseName(e.phase), *why);
    else
      print(m, "Before", e, nullptr);
  };
  run.afterPhase = [this, after](const PipelineEntry &e, const Module *before, const Module &m) {
    if (wanted(after_, e.phase)) {
      if (auto why = gateBlocks(e.gate, ctx_))
        std::cerr << fmt::format("// *** IR Dump After phase {} {}: skipped ({}) ***\n", e.phase,
                                 phaseName(e.phase), *why);
      else
        print(m, "After", e, nullptr);
    }
    if (o_.printChanged && before)
      print(m, "After", e, before);
    return after ? after(e, before, m) : true;
  };
  if (progress_)
    run.progress = [this](const PipelineEntry &e, size_t index, size_t count) {
      progressLine(fmt::format("phase {}: function {}/{}", e.phase, index + 1, count));
    };
}

ori::VerifyProgress PhaseObserver::verifyProgress(const std::string &step) {
  if (!progress_)
    return {};
  // "verify phase 19 OriSplitLiveRanges: function 3/24", then inside a long function
  // "...: function 3/24 k (1373 instructions): query: does the target refine the source, 12.0 s"
  return [this, step](size_t index, size_t count, const std::string &detail) {
    progressLine(fmt::format("verify {}: function {}/{}{}", step, index + 1, count,
                             detail.empty() ? "" : " " + detail));
  };
}

std::function<void(size_t, size_t, size_t, size_t)> PhaseObserver::reportProgress() {
  if (!progress_)
    return {};
  return [this](size_t function, size_t functions, size_t drawing, size_t drawings) {
    progressLine(fmt::format("report: function {}/{}, drawing {}/{}", function + 1, functions,
                             drawing + 1, drawings));
  };
}

void PhaseObserver::progressLine(const std::string &text) {
  const double now = nowSeconds();
  if (now - lastProgress_ < o_.progressInterval)
    return;
  lastProgress_ = now;
  std::cerr << "oriopt: " << text << "\n" << std::flush;
}

} // namespace oriopt_cli
