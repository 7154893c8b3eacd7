// oriopt --verify: after each phase, translation validation (verify/tv.h) of every function
// the phase changed; where Z3 says unknown, the interpreter on random launches instead
// (docs/verifier.md, "oriopt --verify").
#pragma once

#include <string>

#include "ir/ir.h"
#include "verify/tv.h"

namespace ori {

struct VerifyReport {
  bool refuted = false; // a function was refuted or behaved differently in the interpreter
  std::string lines;    // one line per changed function, each ending in '\n'
};

// Checks `after` against `before` for the step named `step` ("phase 16 OriPerformLiveDeadFirst").
// `opts`: the validator's bounds (--unroll, --verify-timeout, --verify-budget).
VerifyReport verifyStep(const Module& before, const Module& after, const std::string& step,
                        const verify::TvOptions& opts);

} // namespace ori
