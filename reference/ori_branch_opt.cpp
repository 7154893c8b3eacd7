// Phase 15 OriBranchOpt (spec/003 "OriBranchOpt"), the reference way: every
// question about the CFG is answered by a CFG computed from scratch for that
// question. The rules and the visiting order are in rules/ori_branch_opt.h.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

enum class Rule { ConstantTrue, ConstantFalse, IdenticalTargets, Thread, Fold };

struct Rewrite {
  Rule rule;
  uint32_t newTarget = 0; // Thread only
};

// The BRA ending block b, if it ends with one.
const Instr *endingBra(const Function &f, uint32_t b) {
  const auto &instrs = f.blocks[b].instrs;
  if (instrs.empty() || instrs.back().op != Opcode::BRA)
    return nullptr;
  return &instrs.back();
}

// A block whose only instruction is an unconditional BRA: its target.
std::optional<uint32_t> onlyBraTarget(const Function &f, uint32_t b) {
  const auto &instrs = f.blocks[b].instrs;
  if (instrs.size() != 1 || instrs[0].op != Opcode::BRA || instrs[0].isGuarded())
    return std::nullopt;
  return instrs[0].srcs[0].target;
}

// Where a branch to `start` ends up through blocks that hold only a BRA,
// following at most kBranchThreadDepth of them; nullopt for a cycle.
std::optional<uint32_t> threadTarget(const Function &f, uint32_t start) {
  std::set<uint32_t> passed;
  uint32_t at = start;
  for (uint32_t hops = 0; hops < kBranchThreadDepth; ++hops) {
    const std::optional<uint32_t> next = onlyBraTarget(f, at);
    if (!next)
      break;
    if (!passed.insert(at).second)
      return std::nullopt;
    at = *next;
  }
  if (passed.count(at))
    return std::nullopt; // stopped on a block of the chain: a cycle
  return at;
}

std::optional<Rewrite> match(const Function &f, uint32_t b) {
  const Instr *bra = endingBra(f, b);
  if (!bra)
    return std::nullopt;
  if (bra->guard && bra->guard->reg.isConst())
    return Rewrite{bra->guard->neg ? Rule::ConstantFalse : Rule::ConstantTrue};
  const CfgFacts cfg = computeCfg(f);
  // Taken and fall-through edges are one successor when they go to one block.
  if (bra->isGuarded() && b + 1 < f.blocks.size() && cfg.succs[b].size() == 1)
    return Rewrite{Rule::IdenticalTargets};
  const uint32_t target = bra->srcs[0].target;
  if (const std::optional<uint32_t> to = threadTarget(f, target); to && *to != target)
    return Rewrite{Rule::Thread, *to};
  if (!bra->isGuarded() && target == b + 1)
    return Rewrite{Rule::Fold};
  return std::nullopt;
}

void apply(Function &f, uint32_t b, const Rewrite &r, BranchOptCounts &counts) {
  auto &instrs = f.blocks[b].instrs;
  Instr &bra = instrs.back();
  switch (r.rule) {
  case Rule::ConstantTrue:
    bra.guard.reset();
    ++counts.constantConditions;
    break;
  case Rule::ConstantFalse:
    instrs.pop_back();
    ++counts.constantConditions;
    break;
  case Rule::IdenticalTargets:
    bra.guard.reset();
    ++counts.identicalTargets;
    break;
  case Rule::Thread:
    bra.srcs[0].target = r.newTarget;
    ++counts.threaded;
    break;
  case Rule::Fold:
    instrs.pop_back();
    ++counts.folded;
    break;
  }
}

} // namespace

BranchOptCounts oriBranchOpt(Function &f, MergeFlowOptions options) {
  int64_t budget = options.budget;
  BranchOptCounts counts;
  if (f.blocks.empty())
    return counts;
  counts.erasedBlocks += uint32_t(eraseUnreachableBlocks(f).size());
  const std::vector<uint32_t> rpo = computeCfg(f).rpo; // computed once, at entry
  for (size_t i = 1; i < rpo.size(); ++i) {            // RPO index 0, the entry, is skipped
    for (;;) {
      const std::optional<Rewrite> r = match(f, rpo[i]);
      if (!r || budget == 0)
        break;
      if (budget > 0)
        --budget;
      apply(f, rpo[i], *r, counts);
    }
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

} // namespace ori::reference
