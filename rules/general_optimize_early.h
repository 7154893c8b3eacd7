// Phase 13 GeneralOptimizeEarly, MergeEquivalentConditionalFlow (spec/002 "Algorithm A";
// docs/general-optimize.md): the contract of reference/general_optimize_early.cpp and
// optimized/general_optimize_early.cpp, and the match both apply.
//
// The pass: for each block C in the RPO computed at entry, while knob 464's budget lasts
// (negative: unbounded; it is asked before each rewrite): when matchEquivalentCondition holds
// for C and its only predecessor, C's branch is deleted (never taken) or made unconditional
// (always taken). The instructions of C the match used are then removed where nothing they
// write is live (removeDeadCandidates), and mergeUnlabelledBlocks (not under
// --dont-merge-basicblocks: MergeFlowOptions) / dropEmptyUnlabelledBlocks tidy. Gates: -O2, knob
// 214 DisableMergeEquivalentConditionalFlow unset, knob 487 on. Guarantees: the function behaves
// the same (no Z3 obligation states the match: oriopt
// --verify proves each changed function, and fuzz/prop_general_optimize.cpp runs random kernels
// before and after); both halves leave the same text and counts.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "rules/block_merging.h"

namespace ori {

struct EarlyOptimizeCounts {
  uint32_t branchesDeleted = 0;       // a branch or exit that can never be taken, deleted
  uint32_t branchesUnconditional = 0; // one that is always taken, its guard dropped
  uint32_t removed = 0;               // chain instructions left dead and removed
  uint32_t iterations = 0; // successful fixed-point iterations (knob 464 spends one each)
  friend bool operator==(const EarlyOptimizeCounts &, const EarlyOptimizeCounts &) = default;
};

// The depth of sub_1245740's sub-DAG compare (its fourth argument).
inline constexpr uint32_t kEquivalenceDepth = 2;

// An instruction whose result depends on its register and immediate inputs only
// (no memory, side effect, control flow, barrier, convergence, call, OPAQUE;
// no S2R of a clock or timer), unguarded: two of them with equal inputs compute
// equal results.
bool isPureComputation(const Instr &in);

// The first parts of sub_753600's structural equivalence: same opcode and
// modifiers, both unguarded and pure, the same number of operands, equal
// destinations' shape, and each source pair of the same kind with equal
// flags and, unless both are registers, equal value. Registers are left to
// the caller (equal and unchanged, or defined by equivalent instructions).
bool sameShape(const Instr &a, const Instr &b);

// MergeEquivalentConditionalFlow's match (sub_753600), the rule both halves
// apply: block C (not bix 0) whose only predecessor is A ends with a guarded
// BRA, EXIT or RET of the same opcode, modifiers (and target) as A's last
// instruction, and C's guard Q holds the value A's guard P held: the last
// definitions of P in A and of Q in C are equivalent, source by source (a
// register unchanged from one to the other, or defined before each by
// equivalent instructions, kEquivalenceDepth levels down; sameShape for the
// rest). Since C runs only when A's branch went C's way, C's condition is
// then known: `taken` says it is always true (else never). `chain` lists the
// instructions of C the match used (dead once C's branch is rewritten, unless
// read elsewhere).
struct ConditionMatch {
  bool taken = false;
  std::vector<size_t> chain;
};
std::optional<ConditionMatch> matchEquivalentCondition(const Function &f, uint32_t a, uint32_t c);

// The two halves' entries (the pass above).
namespace reference {
EarlyOptimizeCounts generalOptimizeEarly(Function &f, MergeFlowOptions options);
}
namespace optimized {
EarlyOptimizeCounts generalOptimizeEarly(Function &f, MergeFlowOptions options);
}

} // namespace ori
