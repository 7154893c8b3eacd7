// Phase 15 OriBranchOpt (spec/003 "OriBranchOpt"): the rules and the visiting
// order of reference/ori_branch_opt.cpp (rules/ori_branch_opt.h), with
// every test made on the block itself instead of a recomputed CFG: the
// fall-through of block b is b + 1 and the rules never move a block, so one
// RPO at entry and the instruction lists are all the pass needs. Threading
// marks the blocks of a chain with a per-walk stamp instead of a set.
#include <cstdint>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct BranchOpt {
  Function &f;
  std::vector<uint32_t> stamp; // walk number that last passed each block
  uint32_t walk = 0;

  // The target of a block holding only an unconditional BRA, else kNone.
  uint32_t onlyBraTarget(uint32_t b) const {
    const auto &instrs = f.blocks[b].instrs;
    if (instrs.size() != 1 || instrs[0].op != Opcode::BRA || instrs[0].isGuarded())
      return kNone;
    return instrs[0].srcs[0].target;
  }

  // End of the chain of BRA-only blocks from `start`, kNone for a cycle.
  uint32_t threadTarget(uint32_t start) {
    ++walk;
    uint32_t at = start;
    for (uint32_t hops = 0; hops < kBranchThreadDepth; ++hops) {
      const uint32_t next = onlyBraTarget(at);
      if (next == kNone)
        break;
      if (stamp[at] == walk)
        return kNone;
      stamp[at] = walk;
      at = next;
    }
    return stamp[at] == walk ? kNone : at;
  }

  // Applies the first rule that matches block b's ending BRA; false if none does.
  bool rewriteOnce(uint32_t b, BranchOptCounts &counts, int64_t &budget) {
    auto &instrs = f.blocks[b].instrs;
    if (instrs.empty() || instrs.back().op != Opcode::BRA)
      return false;
    Instr &bra = instrs.back();
    const uint32_t target = bra.srcs[0].target;
    enum { None, ConstantTrue, ConstantFalse, Identical, Thread, Fold } rule = None;
    uint32_t to = kNone;
    if (bra.guard && bra.guard->reg.isConst())
      rule = bra.guard->neg ? ConstantFalse : ConstantTrue;
    else if (bra.isGuarded() && target == b + 1)
      rule = Identical;
    else if ((to = threadTarget(target)) != kNone && to != target)
      rule = Thread;
    else if (!bra.isGuarded() && target == b + 1)
      rule = Fold;
    if (rule == None || budget == 0)
      return false;
    if (budget > 0)
      --budget;
    switch (rule) {
    case ConstantTrue:
      bra.guard.reset();
      ++counts.constantConditions;
      break;
    case ConstantFalse:
      instrs.pop_back();
      ++counts.constantConditions;
      break;
    case Identical:
      bra.guard.reset();
      ++counts.identicalTargets;
      break;
    case Thread:
      bra.srcs[0].target = to;
      ++counts.threaded;
      break;
    case Fold:
      instrs.pop_back();
      ++counts.folded;
      break;
    case None:
      break;
    }
    return true;
  }
};

} // namespace

BranchOptCounts oriBranchOpt(Function &f, MergeFlowOptions options) {
  int64_t budget = options.budget;
  BranchOptCounts counts;
  if (f.blocks.empty())
    return counts;
  std::vector<uint32_t> rpo = computeRpo(f);
  if (rpo.size() < f.blocks.size()) { // else every block is reachable: nothing to erase
    const std::vector<uint32_t> erased = eraseUnreachableBlocks(f);
    counts.erasedBlocks += uint32_t(erased.size());
    // The blocks in the RPO are the reachable ones, which all stay, with their
    // successors in the same order; the erase only slid them down past the
    // erased blocks (ascending). So the RPO of f now is the old one renumbered,
    // without another walk over the blocks.
    std::vector<uint32_t> shift(f.blocks.size() + erased.size(), 0);
    for (uint32_t e : erased)
      ++shift[e];
    for (size_t b = 1; b < shift.size(); ++b)
      shift[b] += shift[b - 1];
    for (uint32_t &b : rpo)
      b -= shift[b];
  }
  BranchOpt pass{f, std::vector<uint32_t>(f.blocks.size(), 0)};
  for (size_t i = 1; i < rpo.size(); ++i)
    while (pass.rewriteOnce(rpo[i], counts, budget)) {
    }
  if (counts.rewrites() > 0) {
    counts.erasedBlocks += uint32_t(eraseUnreachableBlocks(f).size());
    if (options.mergeBlocks)
      mergeUnlabelledBlocks(f);
    dropEmptyUnlabelledBlocks(f);
    if (!options.mergeBlocks)
      labelFallThroughBlocks(f); // --dont-merge-basicblocks
  }
  return counts;
}

} // namespace ori::optimized
