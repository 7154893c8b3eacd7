// Phase 37 GeneralOptimizeMid (spec/002 sub_910840, sub_90FBA0;
// docs/general-optimize.md "Phase 37"): rounds of ConvertMemoryToRegister
// then phase 29's suite, while a round's weighted cost (midRoundCost) is at
// least the convergence threshold (knob 474, or 135 when set), at most
// kMidRounds rounds.
#include "ir/convert_memory_to_register.h"
#include "reference/reference.h"

namespace ori::reference {

MidOptimizeResult generalOptimizeMid(Function& f, const MemToRegOptions& opt) {
  MidOptimizeResult total;
  if (f.blocks.empty()) return total;
  for (uint32_t round = 1; round <= kMidRounds; ++round) {
    const MemToRegCounts promoted = convertMemoryToRegister(f, opt);
    const GeneralOptimizeResult suite = generalOptimize(f, opt.suite);
    addMidRound(total, promoted, suite);
    if (midRoundCost(promoted, suite.counts) < opt.convergenceThreshold()) break;
  }
  return total;
}

} // namespace ori::reference
