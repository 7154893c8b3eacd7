// The reference half (DESIGN.md, "The two halves"): slow and obviously correct (Boost.Graph for
// the CFG, std::set liveness, every analysis recomputed after every rewrite). Every pass's and
// analysis's contract, and its entry in both halves, is in the rules/ header named after its
// file (rules/do_switch_opt.h for reference/do_switch_opt.cpp; docs/library.md, "Where a pass is
// written"); this header adds only what the reference half offers beside them.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "rules/analyze_control_flow.h"
#include "rules/cfg.h"
#include "rules/convert_memory_to_register.h"
#include "rules/do_switch_opt.h"
#include "rules/dominators.h"
#include "rules/erase_unreachable_blocks.h"
#include "rules/general_optimize.h"
#include "rules/general_optimize_early.h"
#include "rules/general_optimize_late.h"
#include "rules/general_optimize_mid.h"
#include "rules/hot_cold.h"
#include "rules/liveness.h"
#include "rules/loops.h"
#include "rules/optimize_nested_cond_branches.h"
#include "rules/ori_branch_opt.h"
#include "rules/ori_perform_live_dead.h"
#include "rules/ori_split_live_ranges.h"
#include "rules/place_blocks_in_source_order.h"
#include "rules/rpo_iterative.h"
#include "rules/set_control_flow_op_last_in_bb.h"
#include "rules/tail_merge.h"

namespace ori::reference {

// Liveness of the registers `regs` only (optimized/liveness_subset.h, the optimized half's
// SubsetLiveness), the reference way: computeLiveness, then each block's live-out set and the
// entry's live-in set kept to `regs`.
struct SubsetLivenessFacts {
  std::vector<Reg> regs;                 // sorted, distinct, constants left out
  std::vector<std::vector<Reg>> liveOut; // per block, ascending
  std::vector<Reg> liveIntoEntry;        // ascending
};
SubsetLivenessFacts subsetLiveness(const Function &f, const CfgFacts &cfg, std::vector<Reg> regs);

// The DCE phases 13 and 29 end with: removes, one at a time with liveness recomputed each time,
// an instruction of `candidates` (bix, index) none of whose writes is live just after it, until
// none is left; the others' indices follow the removals. Returns how many.
uint32_t removeDeadCandidates(Function &f, std::set<std::pair<uint32_t, size_t>> candidates);

} // namespace ori::reference
