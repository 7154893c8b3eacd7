// Checks of the translation validator itself (verify/tv.h), shared by the RapidCheck
// properties (fuzz/prop_tv.cpp), the orifuzz checks `tv-passes` and `tv-mutants`, and the
// corpus test (tests/unit/tv_mutants_test.cpp):
//  - what the implemented phases make of a function is never refuted;
//  - a wrong variant of a phase (the bugs below, planted in the phase's real output) is
//    never proved when the interpreter tells it apart from the input, and each refutation's
//    replay, run in the interpreter on both, really differs.
// Each check returns "" when it holds, else one line naming the first problem.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"
#include "verify/tv.h"

namespace ori::checks {

// A bug a phase could have, planted in its output at one of the places it applies.
enum class WrongVariant {
  DceDropsLive,         // phase 16, then one instruction it kept (a live one) deleted
  SplitForgetsCopy,     // phase 19, then one of the copies it added deleted
  LayoutDropsBranch,    // phase 112, then an unguarded BRA to a block other than the next deleted
  EraseDropsReachable,  // --erase-unreachable, then a reachable block's instructions deleted
  BranchOptWrongTarget, // phase 15, then one BRA sent to the block after its target
};
inline constexpr WrongVariant kWrongVariants[] = {
    WrongVariant::DceDropsLive, WrongVariant::SplitForgetsCopy, WrongVariant::LayoutDropsBranch,
    WrongVariant::EraseDropsReachable, WrongVariant::BranchOptWrongTarget};
const char *variantName(WrongVariant v);

// The places where the bug can be planted in f (after the phase), and f with the bug at
// place `pick` (pick < places).
size_t wrongVariantPlaces(const Function &f, WrongVariant v);
Function wrongVariant(const Function &f, WrongVariant v, size_t pick);

struct MutantOutcome {
  verify::TvResult tv;
  bool interpreterDiffers = false; // on one of the inputs, or on the replay
  bool replayConfirmed = false;    // refuted with a replay whose two runs differ
};

// Validates the mutant of function `fi` of m against m and runs both on `inputs`: "" unless
// the validator proves a mutant the interpreter tells apart, or a replay does not differ.
std::string tvMutantCheck(const Module &m, size_t fi, WrongVariant v, size_t pick,
                          const std::vector<RunConfig> &inputs, const verify::TvOptions &opts,
                          MutantOutcome *out = nullptr);

// `tv-mutants`: every variant at one place (chosen from f's text) on f with inputsFor(f).
std::string tvMutants(const Function &f);
// `tv-passes`: phases 10, 15, 16, 19, 112 and --erase-unreachable on f, each validated: never
// refuted.
std::string tvPasses(const Function &f);
// The first refutation the translation validator finds between f and what one of `phases`
// (a name and the phase) makes of it, as "after NAME: ..."; "" when none is refuted
// (unknown is not a failure). Bounds: 5 s per query, 10 s per function.
using NamedPhase = std::pair<const char *, std::function<void(Function &)>>;
std::string firstRefutation(const Function &f, std::span<const NamedPhase> phases);

} // namespace ori::checks
