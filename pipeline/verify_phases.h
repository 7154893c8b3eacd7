// oriopt --verify: after each phase, translation validation (verify/tv.h) of every function
// the phase changed; where Z3 says unknown, the interpreter on random launches instead
// (docs/verifier.md, "oriopt --verify").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"
#include "pipeline/verdicts.h"
#include "verify/tv.h"

namespace ori {

struct VerifyReport {
  bool refuted = false; // a function was refuted or behaved differently in the interpreter
  std::string lines;    // one line per changed function, each ending in '\n'
  std::vector<VerdictRecord> verdicts; // one per line, in the same order
};

// oriopt's progress callback for --verify: before each function (index, count, "") and, inside
// a function, at each stage of the validator (index, count, "F: STAGE, T s").
using VerifyProgress = std::function<void(size_t, size_t, const std::string &)>;

// Checks `after` against `before` for the step named `step` ("phase 16 OriPerformLiveDeadFirst").
// `opts`: the validator's bounds (--unroll, --verify-timeout, --verify-budget). `progress`, if
// given, is called before each function (0-based index, count: oriopt's progress lines) and
// at each stage inside it. Past opts.deadline a kernel Z3 left unknown is not run in the
// interpreter either.
VerifyReport verifyStep(const Module &before, const Module &after, const std::string &step,
                        const verify::TvOptions &opts, const VerifyProgress &progress = {});

// The phase number of a step named "phase N NAME", else none.
std::optional<int> stepPhase(const std::string &step);

// Random launches of kernel k (the interpreter fallback's inputs): each 64-bit scalar
// parameter a buffer of 4096 random bytes, the others values below 64; 1-4 threads, a warp, a
// warp and a part, or two warps per CTA in turn; 1-2 CTAs. Seeded by the kernel's name.
std::vector<RunConfig> randomLaunches(const Function &k, int count);

} // namespace ori
