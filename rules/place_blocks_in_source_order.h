// Phase 112 PlaceBlocksInSourceOrder (spec/000) and the block mover under it: the contract of
// reference/place_blocks_in_source_order.cpp and optimized/place_blocks_in_source_order.cpp.
//
// reorderBlocks (also `--reorder-blocks`): moves the blocks into `order` (a permutation with
// order[0] == 0), adding and removing BRAs so that every block continues where it did. Returns
// false, changing nothing, for the identity or an invalid order.
// placeBlocksInSourceOrder: bix 0, then the other blocks stably by label id, through
// reorderBlocks. Returns whether anything moved. Ungated. Guarantees: every block continues
// where it did; both halves leave the same function.
#pragma once

#include "ir/ir.h"
#include <cstdint>
#include <vector>

namespace ori {

// Phase 112's order: bix 0, then the other blocks stably by label id (the source order).
std::vector<uint32_t> sourceOrder(const Function &f);

// The two halves' entries (the contract above).
namespace reference {
bool reorderBlocks(Function &f, const std::vector<uint32_t> &order);
}
namespace optimized {
bool reorderBlocks(Function &f, const std::vector<uint32_t> &order);
}
namespace reference {
bool placeBlocksInSourceOrder(Function &f);
}
namespace optimized {
bool placeBlocksInSourceOrder(Function &f);
}

} // namespace ori
