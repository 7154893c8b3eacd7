// Checks of the GeneralOptimize phases (fuzz/general_optimize_checks.h).
#include "fuzz/general_optimize_checks.h"

#include <fmt/format.h>

#include <functional>
#include <span>
#include <utility>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/tv_checks.h"
#include "interp/interp.h"
#include "ir/arch.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "rules/general_optimize.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

GeneralOptimizeOptions optionsFor(std::string_view arch, bool limitFoldFp, bool evaluate = false) {
  GeneralOptimizeOptions o;
  o.evaluate = evaluate;
  o.smEncoded = findArch(arch)->encoded;
  o.predicateMarking = archAllowsPredicateMarking(o.smEncoded);
  o.limitFoldFp = limitFoldFp;
  return o;
}

// The three phases as the behaviour and proof checks run them (the optimized half).
const NamedPhase kPhases[] = {
    {"phase 13", [](Function &g) { optimized::generalOptimizeEarly(g, -1); }},
    {"phase 29", [](Function &g) { optimized::generalOptimize(g, optionsFor("sm_90", false)); }},
    {"phase 58", [](Function &g) { optimized::generalOptimizeLate(g, false); }},
    {"phases 13+29+58",
     [](Function &g) {
       optimized::generalOptimizeEarly(g, -1);
       optimized::generalOptimize(g, optionsFor("sm_90", false));
       optimized::generalOptimizeLate(g, false);
     }},
};

// The same with --fold=evaluate in phase 29.
const NamedPhase kEvaluatePhases[] = {
    {"phase 29 (evaluate)",
     [](Function &g) { optimized::generalOptimize(g, optionsFor("sm_90", false, true)); }},
    {"phases 13+29+58 (evaluate)",
     [](Function &g) {
       optimized::generalOptimizeEarly(g, -1);
       optimized::generalOptimize(g, optionsFor("sm_90", false, true));
       optimized::generalOptimizeLate(g, false);
     }},
};

std::span<const NamedPhase> phasesFor(bool evaluate) {
  if (evaluate)
    return kEvaluatePhases;
  return kPhases;
}

} // namespace

std::string generalOptimizeDiff(const Function &f, bool evaluate) {
  for (int64_t budget : {int64_t(-1), int64_t(1)}) {
    const std::string what = fmt::format("phase 13 (budget {})", budget);
    Function o = f;
    const EarlyOptimizeCounts co = optimized::generalOptimizeEarly(o, budget);
    if (std::string d = malformedAfter(o, what); !d.empty())
      return d;
    if (budget >= 0 && co.iterations > budget)
      return fmt::format("{} made {} rewrites", what, co.iterations);
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f;
    const EarlyOptimizeCounts cr = reference::generalOptimizeEarly(r, budget);
    if (std::string d = halvesDiffer(r, o, what); !d.empty())
      return d;
    if (!(cr == co))
      return fmt::format(
          "{}: reference deleted {}, made {} unconditional, removed {}; optimized {}, {}, {}", what,
          cr.branchesDeleted, cr.branchesUnconditional, cr.removed, co.branchesDeleted,
          co.branchesUnconditional, co.removed);
#endif
  }
  for (std::string_view arch : {"sm_50", "sm_60", "sm_90"})
    for (bool limit : {false, true}) {
      const GeneralOptimizeOptions opt = optionsFor(arch, limit, evaluate);
      const std::string what = fmt::format(
          "phase 29 ({}{}{})", arch, limit ? ", limit-fold-fp" : "", evaluate ? ", evaluate" : "");
      Function o = f;
      const GeneralOptimizeResult ro = optimized::generalOptimize(o, opt);
      if (std::string d = malformedAfter(o, what); !d.empty())
        return d;
      Function again = o;
      const GeneralOptimizeResult r2 = optimized::generalOptimize(again, opt);
      if (ro.counts.rounds < kGeneralOptimizeRounds &&
          (r2.counts.usesReplaced || r2.counts.selectsToCopies || r2.counts.guardsResolved ||
           r2.counts.evaluated))
        return fmt::format(
            "{} run again replaces {} uses, simplifies {} SELs and {} guards, evaluates {}", what,
            r2.counts.usesReplaced, r2.counts.selectsToCopies, r2.counts.guardsResolved,
            r2.counts.evaluated);
#if defined(ORIOPT_HAVE_REFERENCE)
      Function r = f;
      const GeneralOptimizeResult rr = reference::generalOptimize(r, opt);
      if (std::string d = halvesDiffer(r, o, what); !d.empty())
        return d;
      if (!(rr.counts == ro.counts))
        return fmt::format("{}: reference replaced {} uses, {} SELs, {} guards, removed {}, "
                           "evaluated {}; optimized "
                           "{}, {}, {}, {}, {}",
                           what, rr.counts.usesReplaced, rr.counts.selectsToCopies,
                           rr.counts.guardsResolved, rr.counts.removed, rr.counts.evaluated,
                           ro.counts.usesReplaced, ro.counts.selectsToCopies,
                           ro.counts.guardsResolved, ro.counts.removed, ro.counts.evaluated);
      if (rr.marks != ro.marks)
        return fmt::format("{}: fold marks differ:\nreference:\n{}optimized:\n{}", what,
                           formatFoldMarks(rr.marks), formatFoldMarks(ro.marks));
#endif
    }
  for (bool existingOnly : {false, true}) {
    const std::string what = fmt::format("phase 58{}", existingOnly ? " (knob 605)" : "");
    Function o = f;
    const LateOptimizeCounts co = optimized::generalOptimizeLate(o, existingOnly);
    if (std::string d = malformedAfter(o, what); !d.empty())
      return d;
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f;
    const LateOptimizeCounts cr = reference::generalOptimizeLate(r, existingOnly);
    if (std::string d = halvesDiffer(r, o, what); !d.empty())
      return d;
    if (!(cr == co))
      return fmt::format("{}: reference merged {}, inserted {}, evicted {}; optimized {}, {}, {}",
                         what, cr.movesMerged, cr.inserted, cr.evicted, co.movesMerged, co.inserted,
                         co.evicted);
#endif
  }
  return "";
}

std::string generalOptimizeBehaviour(const Function &f, bool evaluate) {
  if (!f.isEntry || f.isDeclaration())
    return "";
  Module before;
  before.functions.push_back(f);
  const std::vector<RunConfig> inputs = inputsFor(f, 3, gen::kLaunchBufferBytes);
  for (const auto &[name, phase] : phasesFor(evaluate)) {
    Module after = before;
    phase(after.functions[0]);
    if (after.functions[0] == f)
      continue;
    for (size_t k = 0; k < inputs.size(); ++k)
      if (std::string d = compareRuns(runKernel(before, inputs[k]), runKernel(after, inputs[k]));
          !d.empty())
        return fmt::format("after {}, input {} (threads {}): {}", name, k,
                           formatDim3(inputs[k].threads), d);
  }
  return "";
}

std::string generalOptimizeProof(const Function &f, bool evaluate) {
  return firstRefutation(f, phasesFor(evaluate));
}

} // namespace ori::checks
