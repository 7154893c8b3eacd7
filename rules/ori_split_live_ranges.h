// Phase 19 OriSplitLiveRanges (spec/004; docs/liveness.md): the contract of
// reference/ori_split_live_ranges.cpp and optimized/ori_split_live_ranges.cpp. For a value live
// through a natural loop and neither read nor written in it, a copy into a fresh register at the
// end of the preheader and back at the loop's exits. Returns the number of splits. Gate: knob
// 456 DisableOriSplitLiveRanges unset. Guarantees: the function behaves the same; both halves
// leave the same text.
#pragma once

#include "ir/ir.h"
#include <cstdint>

namespace ori {

// The copy a split makes (into the fresh register at the preheader's end, and back at the
// exits): MOV.64, so that every bit of the 64-bit container survives.
Instr splitCopy(Reg to, Reg from);

// The two halves' entries (the contract above).
namespace reference {
uint32_t oriSplitLiveRanges(Function &f);
}
namespace optimized {
uint32_t oriSplitLiveRanges(Function &f);
}

} // namespace ori
