// Phase 38 OptimizeNestedCondBranches (spec/003; docs/branch-and-switch.md "Phase 38"): the
// contract of reference/optimize_nested_cond_branches.cpp and
// optimized/optimize_nested_cond_branches.cpp.
//
// Rounds of a fixed-point loop while the function has more than one block: each round computes
// the CFG and liveness and tries the blocks in reverse RPO as the outer block O of a pair; the
// first pair that every rule allows is combined and the round ends. A pair:
//   O ends with a conditional BRA (its guard a predicate register), with successors I and M (I
//   the fall-through, tried first, or the target); I != bix 0, O is its only predecessor and
//   nothing but O's BRA names it; I ends with a conditional BRA with the same modifiers whose
//   successors are M and a body block (the shared merge point M).
// The code of I but its BRA moves to the end of O, so it must be eligible (no CONTROL,
// SIDE_EFFECT, MEMORY, BARRIER, CONVERGENCE, CALL, LEA, or LDC with an index register; no PLOP3
// reading two or more predicate registers; no ISETP/FSETP/DSETP chaining a predicate other than
// PT), write nothing live into M, nothing but I's branch predicate live into the body, and none
// of the outer condition's inputs. Each branch's condition is its guard register, or the PLOP3
// that defines it in the block when that can be folded (the last definition, its sources not
// rewritten after it, the guard dead after the block): the two are composed with rules/lut.h
// (proved by lop3.compose, plop3.compose, spec003.lut.and-chain and spec003.lut.or-chain) over
// at most kNestedCondMaxInputs predicates, else no combination. O then ends with
// PLOP3 Pn, PT, a, b, c, LUT, 0x0 (Pn a new register, PT in unused slots) and @Pn BRA: to I's
// target (I was the fall-through; O now falls into I's fall-through) or to the body (I was the
// target; O still falls into M; the body gets the label $L__NC<label id> if it has none). I is
// erased. `observer`, if set, sees each combination (oriopt --verify proves each one,
// verify/nested_cond_check.h). Gate: -O2. Both halves leave the same text and counts.
#pragma once

#include "ir/ir.h"
#include <cstdint>
#include <functional>

namespace ori {

// Phase 38 OptimizeNestedCondBranches (spec/003; docs/branch-and-switch.md "Phase 38").
struct NestedCondCounts {
  uint32_t combined =
      0; // pairs of conditional branches made one (one intermediate block erased each)
  uint32_t absorbedPlop3 =
      0;               // PLOP3s that defined a branch predicate, folded into the combined one
  uint32_t rounds = 0; // rounds of the fixed-point loop, the last one (combining nothing) included
  friend bool operator==(const NestedCondCounts &, const NestedCondCounts &) = default;
};
// The combined predicate reads at most this many predicates (PLOP3's three sources): a
// combination that would need more is not made (spec/003 "No already-folded setp").
inline constexpr uint32_t kNestedCondMaxInputs = 3;
// Called after each combination with the function just before and just after it and the
// label id of the outer block (which keeps it): oriopt --verify proves each one there.
using NestedCondObserver =
    std::function<void(const Function &before, const Function &after, uint32_t outerLabelId)>;

// The two halves' entries (the contract above).
namespace reference {
NestedCondCounts optimizeNestedCondBranches(Function &f, const NestedCondObserver &observer = {});
}
namespace optimized {
NestedCondCounts optimizeNestedCondBranches(Function &f, const NestedCondObserver &observer = {});
}

} // namespace ori
