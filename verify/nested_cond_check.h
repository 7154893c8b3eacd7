// The proof of one combination of phase 38 OptimizeNestedCondBranches (docs/verifier.md,
// "Nested conditions"), made when it is made under oriopt --verify. Nothing the pass
// recorded is trusted: the region is read from the function before and after.
//
// The outer block O (by label id) and the blocks of `before` that `after` no longer has and
// that O reaches (the erased intermediate block) form the source region; O in `after` alone
// forms the target region; both leave out the instructions the two outer blocks start with
// alike (they run alike from the same state). Each region becomes a kernel of its own: its
// blocks with every
// fall-through made an explicit BRA, and one exit stub per block the region leaves to (O
// itself included, when a branch comes back to it). A stub stores, at a fixed address, the
// exit's label id and then every register live into that block in `before` (`live`, the
// caller's LivenessFacts of `before`; a predicate as 0 or 1). The translation validator
// (verify/tv.h) then proves the target refines the source: for every initial state, both
// regions leave to the same block with the same values in every register live there, so
// the new branch condition equals the old decision for all predicate values.
//
// No Z3 types here.
#pragma once

#include <string>

#include "ir/facts.h"
#include "ir/ir.h"
#include "verify/tv.h"

namespace ori::verify {

struct NestedCondCheck {
  TvResult::Verdict verdict = TvResult::Verdict::Unknown;
  std::string line; // "combination at L<id> in F: proved" / "refuted: ..." / "unknown: ..."
  // The validator's result on the two regions (its function is the region kernel's name); for
  // an unknown before validation (a region that cannot be built), only reason is set.
  TvResult result;
};

// `context` gives the module variables the region's code may name.
NestedCondCheck checkNestedCondCombination(const Module &context, const Function &before,
                                           const Function &after, uint32_t outerLabelId,
                                           const LivenessFacts &live, const TvOptions &opts = {});

} // namespace ori::verify
