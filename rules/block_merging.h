// --dont-merge-basicblocks (-no-bb-merge; spec/000 "BB Merge Suppression": "Normally, ptxas
// attempts to merge consecutive basic blocks ... for debuggable code this is very confusing"):
// what phases 13 GeneralOptimizeEarly and 15 OriBranchOpt take (MergeFlowOptions; DoSwitchOpt
// has SwitchOptOptions::mergeBlocks), and how a block stays apart from the one before it.
// Phase 38 does not run under the flag (its gate: each combination erases a block).
#pragma once

#include <cstdint>

#include "ir/ir.h"

namespace ori {

struct MergeFlowOptions {
  // Knob 464 MergeEquivalentConditionalFlowBudget: the rewrites the pass may make (negative:
  // unbounded).
  int64_t budget = -1;
  // false under --dont-merge-basicblocks (-no-bb-merge, spec/000 "BB Merge Suppression": "for
  // debuggable code"): the tidying after the rewrites leaves consecutive blocks apart
  // (mergeUnlabelledBlocks does not run; empty unlabelled blocks, which hold no source line,
  // are still dropped).
  bool mergeBlocks = true;
  // A budget alone (the tests' and benchmarks' calls) merges as ptxas does by default.
  MergeFlowOptions(int64_t b = -1, bool merge = true) : budget(b), mergeBlocks(merge) {}
};

// Ori text starts a block only at a label or after control flow (ir/verify.h), so a block kept
// apart from a predecessor that falls into it without control flow needs a label: each such
// block without one gets `$L__KEEP<its label id in hex>` (`_1`, `_2` ... appended if that name is
// taken). The tidying of a pass under the flag: the rule has nothing to choose, so it is written
// once for both halves. Returns how many blocks it labelled.
uint32_t labelFallThroughBlocks(Function &f);

} // namespace ori
