// Phases 133 MergeEquivalentConditionalFlow and 136 LateMergeEquivalentConditionalFlow: tail
// merging (spec/003 "Interaction with MergeEquivalentConditionalFlow": "identifying basic
// blocks with identical instruction sequences that branch to the same targets, and merging them
// into a single block ... particularly in switch case bodies"). The contract of
// reference/tail_merge.cpp and optimized/tail_merge.cpp, and the rule both apply.
//
// The pass, to a fixed point: a block Y (not bix 0) merges into the first block X before it in
// the layout whose instructions equal Y's (Instr equality: opcode, modifiers, guard, operands,
// branch targets; not the source location) when both are tail-merge candidates and Y can go:
//  - a candidate ends in an unguarded terminator (BRA, BRX, JMX, EXIT, RET), so it has no
//    fall-through and "branches to the same targets" is part of the equality, and holds
//    nothing whose result depends on which lanes run it together (no warp-level instruction:
//    VOTE, SHFL, MATCH, REDUX, ELECT, no barrier, convergence instruction, call or OPAQUE;
//    see isTailMergeSafe): threads that reached two copies at different times now run one,
//    which only per-thread code cannot tell;
//  - Y can go when no block falls through into it and only branches (BRA, BRX, JMX, their
//    jump tables) name it: a BSSY's reconvergence label stays where it points.
// Every branch and jump-table entry naming Y then names X, and Y is deleted (the layout keeps
// its order; no BRA is added or removed). The spec gives no gate beyond the phases' numbers;
// the rows do not run under --dont-merge-basicblocks (a merge of blocks: spec/000 "BB Merge
// Suppression"). Guarantees: each thread does what it did (oriopt --verify proves
// each changed function); both halves leave the same function and count.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace ori {

// The instruction may sit in a merged block (the list above).
bool isTailMergeSafe(const Instr &in);

// Block b is a candidate: not empty, ends in an unguarded terminator, every instruction safe.
bool isTailMergeCandidate(const Block &b);

// Which blocks may be deleted: not bix 0, no fall-through into them (the block before each
// ends in an unguarded terminator), and named only by branches and jump tables.
std::vector<bool> tailMergeRemovable(const Function &f);

// Redirects every label operand and jump-table entry naming a block b with into[b] !=
// kNotMerged to into[b], deletes those blocks and renumbers the rest (the mechanics after the
// halves' choice; into[b] < b for each merged b, and into[into[b]] == kNotMerged). Returns how
// many went.
inline constexpr uint32_t kNotMerged = 0xFFFFFFFFu;
uint32_t mergeBlocksInto(Function &f, const std::vector<uint32_t> &into);

// The two halves' entries (the contract above): the blocks deleted.
namespace reference {
uint32_t tailMerge(Function &f);
}
namespace optimized {
uint32_t tailMerge(Function &f);
}

} // namespace ori
