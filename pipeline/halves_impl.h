// The two-half runner (internal to pipeline/): how a pass of either half becomes a HalfEntry of
// the phase table, and how one half, the other, or both run on a function.
#pragma once

#include <any>
#include <cstddef>
#include <functional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pipeline/pipeline.h"

namespace ori::pipeline_detail {

// What a pass's counts give the runner: its rewrites, and the fold marks it made (or null).
struct CountsReport {
  size_t rewrites = 0;
  const std::vector<FoldMark> *marks = nullptr;
};

// A pass of one half as a HalfEntry: `Pass` is that half's function, called as Pass(f) or,
// when `Options` is not nullptr, as Pass(f, Options(f, ctx, observed)); `Report` (a function of
// the pass's result, or nullptr for a phase without a rewrite counter) reads its counts.
template <auto Pass, auto Options, auto Report>
HalfOutcome half(Function &f, PassContext &ctx, bool observed) {
  auto counts = [&] {
    if constexpr (std::is_null_pointer_v<decltype(Options)>) {
      (void)ctx, (void)observed;
      return Pass(f);
    } else {
      return Pass(f, Options(f, ctx, observed));
    }
  }();
  using Counts = decltype(counts);
  HalfOutcome out;
  if constexpr (!std::is_null_pointer_v<decltype(Report)>) {
    const CountsReport r = Report(counts);
    out.rewrites = r.rewrites;
    if (r.marks)
      out.marks = *r.marks;
  }
  out.counts = std::move(counts);
  out.sameCounts = [](const std::any &a, const std::any &b) {
    return std::any_cast<const Counts &>(a) == std::any_cast<const Counts &>(b);
  };
  return out;
}

// A table row's halves: the same options and counts for the reference's and the optimized
// half's function.
template <auto Reference, auto Optimized, auto Options = nullptr, auto Report = nullptr>
constexpr PipelineEntry row(int phase, bool byDefault = true, PhaseGate gate = {}) {
  return {
      phase, half<Reference, Options, Report>,         half<Optimized, Options, Report>, byDefault,
      gate,  !std::is_null_pointer_v<decltype(Report)>};
}

using HalfRun = std::function<HalfOutcome(Function &f, bool observed)>;

// Runs the half ctx.half names on f (a definition) and returns its outcome. Both: the
// reference on a copy, the optimized on f, and the first difference (text, label ids, counts,
// fold marks) as ctx.error, naming `what`.
HalfOutcome runHalves(Function &f, PassContext &ctx, std::string_view what,
                      const HalfRun &reference, const HalfRun &optimized);

} // namespace ori::pipeline_detail
