// Phase 58 GeneralOptimizeLate (spec/002 "The Per-Block Sub-Pass Runner: sub_8F6530",
// sub_8F6FA0; docs/general-optimize.md): the contract of reference/general_optimize_late.cpp and
// optimized/general_optimize_late.cpp, and the window both walk with.
//
// The pass: each block once, in the RPO computed at entry, with a LateWindow of the block's
// last kLateWindowSlots moves. A move of a value an entry still holds (LateWindow::holding),
// whose destination is written once in the function and read once, as a plain register source
// later in the block with the entry's register unwritten until then, gives that read the
// entry's register and is removed. Every other instruction then steps the window
// (LateWindow::step). Gate: -O3; knob 605 ReassociateCSEWindow (`existingEntriesOnly`) keeps
// the window to its existing entries. Guarantees: the function behaves the same (a merged move
// copied the value the entry's register still holds, so the renamed read sees the same value;
// no Z3 obligation states it: oriopt --verify proves each changed function, and
// fuzz/prop_general_optimize.cpp runs random kernels before and after); both halves leave the
// same text and counts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "ir/ir.h"

namespace ori {

inline constexpr uint32_t kLateWindowSlots = 6; // sub_8F6530's circular buffer

struct LateOptimizeCounts {
  uint32_t movesMerged = 0; // MOVs of a value a window entry already holds, their one use renamed
  uint32_t inserted = 0;    // window insertions
  uint32_t evicted = 0;     // entries the circular buffer overwrote
  friend bool operator==(const LateOptimizeCounts &, const LateOptimizeCounts &) = default;
};

// A window candidate: unguarded MOV (32-bit or .64) of a register or an
// immediate into a register of file R (the spec's class check).
bool lateWindowCandidate(const Instr &in);

// sub_8F6530's window: a circular buffer of kLateWindowSlots moves whose pointer advances at
// each insertion, overwriting (evicting) what it points at; a write to an entry's register or
// to the register its value reads empties that slot. With `existingEntriesOnly` (knob 605) a
// move is inserted only into an empty slot, the first one: existing entries are never replaced.
class LateWindow {
public:
  struct Entry {
    Reg dst;       // the register the move wrote
    Operand value; // what it copied (a register or an immediate)
    bool wide = false;
  };
  explicit LateWindow(bool existingEntriesOnly) : existingOnly_(existingEntriesOnly) {}
  // The entry that holds what the window candidate `mov` copies (the same operand and width,
  // in another register), or null. At most one entry holds a value.
  const Entry *holding(const Instr &mov) const;
  // `in` was not merged: the entries it writes over are emptied, then a window candidate that no
  // entry holds is inserted.
  void step(const Instr &in, LateOptimizeCounts &counts);

private:
  std::array<std::optional<Entry>, kLateWindowSlots> slots_;
  size_t next_ = 0; // the slot the next insertion takes
  bool existingOnly_;
};

// The two halves' entries (the pass above).
namespace reference {
LateOptimizeCounts generalOptimizeLate(Function &f, bool existingEntriesOnly);
}
namespace optimized {
LateOptimizeCounts generalOptimizeLate(Function &f, bool existingEntriesOnly);
}

} // namespace ori
