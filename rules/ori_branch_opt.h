// Phase 15 OriBranchOpt (spec/003 "OriBranchOpt"; docs/branch-and-switch.md): the contract of
// reference/ori_branch_opt.cpp and optimized/ori_branch_opt.cpp.
//
// Erases unreachable blocks (rules/erase_unreachable_blocks.h), then walks the RPO computed at
// that point once, skipping RPO index 0 (the entry), and re-tries each block until no rule
// matches. The first rule that matches the BRA ending the block is applied:
//   1. constant condition: @PT BRA X becomes BRA X; @!PT BRA X is deleted;
//   2. identical targets: @P BRA X where X is the next block becomes BRA X;
//   3. threading: BRA X (guarded or not) where X holds only an unconditional BRA becomes BRA Y,
//      Y the end of that chain (at most kBranchThreadDepth blocks; a chain that cycles is left
//      alone);
//   4. folding: an unconditional BRA to the next block is deleted.
// Each rewrite spends one unit of the budget (knob 464; negative = unbounded); once it is spent
// nothing more is rewritten. If anything was rewritten, blocks left unreachable are erased, then
// mergeUnlabelledBlocks (not under --dont-merge-basicblocks: MergeFlowOptions) and
// dropEmptyUnlabelledBlocks tidy what the deleted BRAs left. Gates:
// -O2, knob 214 DisableMergeEquivalentConditionalFlow unset, knob 487 on. Guarantees: every
// path goes where it went (each rule changes no block's successor as control reaches it; no Z3
// obligation states them: oriopt --verify proves each changed function); both halves leave the
// same text and count the same rewrites in the same order.
#pragma once

#include "ir/ir.h"
#include "rules/block_merging.h"
#include <cstdint>

namespace ori {

// OriBranchOpt, phase 15 (spec/003 "OriBranchOpt"): what one run did. Both
// halves count the same rewrites in the same order, so the counts are equal.
struct BranchOptCounts {
  uint32_t constantConditions = 0; // @PT BRA -> BRA, @!PT BRA deleted
  uint32_t identicalTargets = 0;   // @P BRA to the fall-through block -> BRA
  uint32_t threaded = 0;           // BRA to a block holding only a BRA -> its target
  uint32_t folded = 0;             // BRA to the next block deleted
  uint32_t erasedBlocks = 0;       // unreachable blocks erased (at entry and at the end)
  uint32_t rewrites() const { return constantConditions + identicalTargets + threaded + folded; }
  friend bool operator==(const BranchOptCounts &, const BranchOptCounts &) = default;
};

// Threading follows at most this many blocks that hold only a BRA in one
// rewrite (spec/003 "A depth limit prevents infinite loops on pathological
// CFGs with cycles of empty blocks"; the spec gives no value). A chain that
// comes back to a block it passed is a cycle and is not threaded at all.
inline constexpr uint32_t kBranchThreadDepth = 64;

// The two halves' entries (the contract above).
namespace reference {
BranchOptCounts oriBranchOpt(Function &f, MergeFlowOptions options);
}
namespace optimized {
BranchOptCounts oriBranchOpt(Function &f, MergeFlowOptions options);
}

} // namespace ori
