// Dead-code elimination (spec/004; docs/liveness.md): phase 10 EarlyOriSimpleLiveDead and phases
// 16/33/61/84 OriPerformLiveDead, the contract of reference/early_ori_simple_live_dead.cpp,
// reference/ori_perform_live_dead.cpp and their optimized/ namesakes, and the rule both apply
// (keptWhenDead).
//
// An instruction is dead when no register it defines is live just after it and keptWhenDead
// does not hold; removals go on until no dead instruction is left, and unlabelled blocks left
// empty are dropped (dropEmptyUnlabelledBlocks). earlyOriSimpleLiveDead: block-local, taking
// every register some instruction reads as live at each block's end. oriPerformLiveDead: by
// global liveness (rules/liveness.h). Both return how many instructions they removed. Ungated;
// they run only when named (--phases) or under --pipeline=ptxas. Guarantees: the function
// behaves the same (a removed instruction wrote only registers nothing reads before they are
// written again; oriopt --verify proves each changed function); both halves leave the same text.
//
// dropEmptyUnlabelledBlocks: drops every empty block without a label (only fall-through reaches
// it) unless it is the only block, renumbering labels and tables; returns how many.
// mergeUnlabelledBlocks: appends each block without a label to the block before it when that
// one does not end in control flow (only fall-through reaches it, and a block boundary there
// cannot be written in .ori or PTX), as a rewrite that deletes a block's last BRA leaves them;
// renumbers labels and tables; returns how many. Phases 13, 14/30, 15 tidy with both.
#pragma once

#include "ir/ir.h"
#include <cstdint>

namespace ori {

// Dead-code elimination (spec/004 "Side-Effect Preservation"; phases 10,
// 16/33/61/84): whether an instruction stays even when every register it
// defines is dead. From the opcode table's flags: SIDE_EFFECT (stores,
// atomics, BAR, VOTE/SHFL, OPAQUE), CONTROL/BRANCH/TERMINATOR/CALL_,
// BARRIER, CONVERGENCE, VARIADIC; and any ordered access (.VOLATILE, .ACQUIRE, .MMIO ...:
// isOrderedAccess). A plain or .RELAXED load (MEMORY without SIDE_EFFECT) may go:
// docs/liveness.md "Loads".
bool keptWhenDead(const Instr &i);

// The two halves' entries (the contract above).
namespace reference {
uint32_t earlyOriSimpleLiveDead(Function &f);
}
namespace optimized {
uint32_t earlyOriSimpleLiveDead(Function &f);
}
namespace reference {
uint32_t oriPerformLiveDead(Function &f);
}
namespace optimized {
uint32_t oriPerformLiveDead(Function &f);
}
namespace reference {
uint32_t dropEmptyUnlabelledBlocks(Function &f);
}
namespace optimized {
uint32_t dropEmptyUnlabelledBlocks(Function &f);
}
namespace reference {
uint32_t mergeUnlabelledBlocks(Function &f);
}
namespace optimized {
uint32_t mergeUnlabelledBlocks(Function &f);
}

} // namespace ori
