// Phase 37 GeneralOptimizeMid (spec/002 sub_910840, sub_90FBA0; docs/general-optimize.md
// "Phase 37"): the contract of reference/general_optimize_mid.cpp and
// optimized/general_optimize_mid.cpp, and the round loop both run (midRounds).
//
// The pass: rounds of convertMemoryToRegister (rules/convert_memory_to_register.h) then the
// phase-29 suite (rules/general_optimize.h, MemToRegOptions::suite), while a round's weighted
// cost (midRoundCost) is at least the convergence threshold (knob 474, or 135 when set), at most
// kMidRounds rounds. Gates: -O2, knob 487 on, and not named by the no-phase knob
// (ConvertMemoryToRegisterOrUniform). Guarantees: those of its two parts; the result sums the
// rounds (addMidRound).
#pragma once

#include <cstdint>

#include "rules/convert_memory_to_register.h"
#include "rules/general_optimize.h"

namespace ori {

// Phase 37 runs rounds of promotion then the phase-29 suite while a round's
// weighted cost (promotions plus one per suite rewrite) is at least the
// convergence threshold, at most this many rounds.
inline constexpr uint32_t kMidRounds = 4;

struct MidOptimizeResult {
  MemToRegCounts memToReg; // summed over rounds (cost too)
  GeneralOptimizeResult
      suite;           // summed over rounds (GeneralOptimizeCounts::rounds: the suite's rounds)
  uint32_t rounds = 0; // phase-37 rounds run
  friend bool operator==(const MidOptimizeResult &, const MidOptimizeResult &) = default;
};
// The weighted cost of one round (the convergence loop's delta).
double midRoundCost(const MemToRegCounts &promoted, const GeneralOptimizeCounts &suite);
// Adds one phase-37 round to the total: counts summed, the suite's marks
// renumbered so that their rounds go on from the suite rounds before.
void addMidRound(MidOptimizeResult &total, const MemToRegCounts &promoted,
                 const GeneralOptimizeResult &suite);

// The round loop: `promote` and `suite` are the half's convertMemoryToRegister and
// generalOptimize.
template <class Promote, class Suite>
MidOptimizeResult midRounds(Function &f, const MemToRegOptions &opt, Promote promote, Suite suite) {
  MidOptimizeResult total;
  if (f.blocks.empty())
    return total;
  for (uint32_t round = 1; round <= kMidRounds; ++round) {
    const MemToRegCounts promoted = promote(f, opt);
    const GeneralOptimizeResult folded = suite(f, opt.suite);
    addMidRound(total, promoted, folded);
    if (midRoundCost(promoted, folded.counts) < opt.convergenceThreshold())
      break;
  }
  return total;
}

// The two halves' entries (the pass above).
namespace reference {
MidOptimizeResult generalOptimizeMid(Function &f, const MemToRegOptions &opt);
}
namespace optimized {
MidOptimizeResult generalOptimizeMid(Function &f, const MemToRegOptions &opt);
}

} // namespace ori
