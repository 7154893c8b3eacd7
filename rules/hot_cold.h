// Phases 108 OptimizeHotColdInLoop and 109 OptimizeHotColdFlow (spec/000 "Hot/Cold Block
// Layout": "Cold blocks (e.g., error handlers, unlikely branches, assert paths) are moved to the
// end of the function's block sequence. The MarkAdditionalColdBlocks pass marks blocks as cold
// based on heuristics."): the contract of reference/hot_cold.cpp and optimized/hot_cold.cpp, and
// the orders both apply.
//
// Cold blocks (the spec does not give MarkAdditionalColdBlocks's heuristics; ours, in both
// halves' coldBlocks):
//  - a block that ends a thread's run in error: it holds an unguarded TRAP, or a CALL to
//    __assertfail (CUDA's assert(): a declaration nvcc calls before its trap);
//  - a block every successor of which is cold, when it has one (it only leads to an error);
//  - with --profile, a labelled block the profile says ran 0 times;
//  - never bix 0.
// Phase 108: each cold block inside a loop's layout range (from its first to its last body block:
// ptxas's "loop body", spec/000 "Natural Loop Detection") moves to just after the range, of the
// outermost such loop, so the loop's blocks are contiguous hot code; cold blocks keep their
// order among themselves. (A block that leads only to an error is never in a natural loop's
// body, but the layout may put it between the loop's blocks.) Phase 109: the hot blocks
// in their order, then the cold ones in theirs. Both through reorderBlocks (rules/
// place_blocks_in_source_order.h), which adds and removes BRAs so that every block continues
// where it did. Gates: none (the spec gives none beyond the phases' numbers). Guarantees: the
// function does the same (every block continues where it did: oriopt --verify proves each
// changed function); both halves leave the same function.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

struct HotColdOptions {
  // --profile: this function's block counts by label (nullptr: none).
  const std::map<std::string, uint64_t> *blockCounts = nullptr;
};

// A block that ends a thread's run in error (the first rule above).
bool endsInError(const Block &b);

// Phase 108's and 109's orders (permutations with order[0] == 0) for the cold set `cold`.
std::vector<uint32_t> hotColdInLoopOrder(const Function &f, const std::vector<bool> &cold,
                                         const LoopFacts &loops);
std::vector<uint32_t> hotColdFlowOrder(const Function &f, const std::vector<bool> &cold);

// The two halves' entries (the contract above). coldBlocks: per bix.
namespace reference {
std::vector<bool> coldBlocks(const Function &f, const HotColdOptions &o);
bool optimizeHotColdInLoop(Function &f, const HotColdOptions &o);
bool optimizeHotColdFlow(Function &f, const HotColdOptions &o);
} // namespace reference
namespace optimized {
std::vector<bool> coldBlocks(const Function &f, const HotColdOptions &o);
bool optimizeHotColdInLoop(Function &f, const HotColdOptions &o);
bool optimizeHotColdFlow(Function &f, const HotColdOptions &o);
} // namespace optimized

} // namespace ori
