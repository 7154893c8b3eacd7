// The optimized half (DESIGN.md, "The two halves"): FNV-1a maps, explicit-stack DFS, CHK
// dominators, SSE2 bitvectors, incremental updates inside passes. Every pass's and analysis's
// contract, and its entry in both halves, is in the rules/ header named after its file
// (rules/do_switch_opt.h for optimized/do_switch_opt.cpp; docs/library.md, "Where a pass is
// written"); this header adds only what the optimized half offers beside them.
#pragma once

#include <cstdint>
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

namespace ori::optimized {

// computeCfg(f).rpo alone, without the edge maps, predecessors and backedges.
std::vector<uint32_t> computeRpo(const Function &f);
// Appends block b's successors (rules/cfg.h) to `out`, each once: `seen`
// has one slot per block, and a slot holding b + 1 means already appended.
void appendSuccessors(const Function &f, uint32_t b, std::vector<uint32_t> &out,
                      std::vector<uint32_t> &seen);

// The DCE phases 13 and 29 end with: removes the instructions of `candidates` none of whose
// writes is live just after them, in rounds of one backward pass per block with the liveness of the
// registers the candidates write (optimized/liveness_subset.h) computed once
// per round, until a round removes nothing or no kept candidate writes a
// register that a removed instruction read (only those stay candidates for
// the next round). `candidates` holds one flag per instruction of the function,
// in function order (block 0's instructions, then block 1's, ...); missing
// flags are 0. `cfgNow`, when given, is the function's CFG as it is now;
// `regsNow`, when given, the function's registers as they are now
// (optimized/reg_index.h functionRegs), and they are kept so.
// `readsRemovedWrite`, when given, gets a flag per block of f as it was
// given: whether an instruction kept in the block reads a register that an
// instruction removed from the block wrote (generalOptimize's
// confirmationNeedless asks it).
struct FunctionRegs;
uint32_t removeDeadCandidates(Function &f, std::vector<uint8_t> candidates,
                              const CfgFacts *cfgNow = nullptr, FunctionRegs *regsNow = nullptr,
                              std::vector<uint8_t> *readsRemovedWrite = nullptr);

} // namespace ori::optimized
