// Unreachable blocks (spec/003 OriBranchOpt "Transformation 2"): the contract of
// reference/erase_unreachable_blocks.cpp and optimized/erase_unreachable_blocks.cpp.
//
// computeEraseSlots: sub_BDE6C0 called for bix 0 .. highest with one counter, as sub_BDFB10
// calls it: a block whose mark is not 0 gets mark 0, each successor whose mark is 1 is
// processed first (the "cascade"), then the block takes slot counter--. With
// EraseMarks::Unvisited that is a depth-first RPO forest; with PredCount (spec/003's reading) it
// numbers every block that has a predecessor, reachable or not.
//
// eraseUnreachableBlocks (`--erase-unreachable`, and inside phases 14/15/30): deletes the blocks
// bix 0 does not reach along CFG edges and label operands, drops the jump tables that named one,
// renumbers the rest. Returns the deleted bixes, ascending. Never needs to add a BRA (a deleted
// block is reached by no fall-through from a kept one). Both halves leave the same function.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"
#include <vector>

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
RpoSlots computeEraseSlots(const CfgFacts &cfg, EraseMarks marks);
}
namespace optimized {
RpoSlots computeEraseSlots(const CfgFacts &cfg, EraseMarks marks);
}
namespace reference {
std::vector<uint32_t> eraseUnreachableBlocks(Function &f);
}
namespace optimized {
std::vector<uint32_t> eraseUnreachableBlocks(Function &f);
}

} // namespace ori
