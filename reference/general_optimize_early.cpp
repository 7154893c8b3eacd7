// Phase 13 GeneralOptimizeEarly, MergeEquivalentConditionalFlow (spec/002
// "Algorithm A: Chain-Matching", sub_7917F0 / sub_753600;
// docs/general-optimize.md), the reference way: the CFG recomputed before
// every match, every definition found by scanning backwards.
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "reference/reference.h"
#include "rules/block_merging.h"
#include "rules/general_optimize.h"

namespace ori::reference {
namespace {

std::optional<ConditionMatch> matchPair(const Function &f, const CfgFacts &cfg, uint32_t c) {
  if (cfg.preds[c].size() != 1 || cfg.preds[c][0] == c)
    return std::nullopt;
  return matchEquivalentCondition(f, cfg.preds[c][0], c);
}

} // namespace

EarlyOptimizeCounts generalOptimizeEarly(Function &f, MergeFlowOptions options) {
  int64_t budget = options.budget;
  EarlyOptimizeCounts counts;
  if (f.blocks.empty())
    return counts;
  const std::vector<uint32_t> order = computeCfg(f).rpo;
  std::set<std::pair<uint32_t, size_t>> candidates;
  for (uint32_t c : order) {
    for (;;) {
      const auto m = matchPair(f, computeCfg(f), c);
      if (!m || budget == 0)
        break; // knob 464 is asked before the rewrite is applied
      if (budget > 0)
        --budget;
      auto &ic = f.blocks[c].instrs;
      if (m->taken) {
        ic.back().guard.reset();
        ++counts.branchesUnconditional;
      } else {
        ic.pop_back();
        ++counts.branchesDeleted;
      }
      for (size_t i : m->chain)
        candidates.insert({c, i});
      ++counts.iterations;
    }
  }
  counts.removed = removeDeadCandidates(f, std::move(candidates));
  if (counts.iterations) {
    if (options.mergeBlocks)
      mergeUnlabelledBlocks(f);
    dropEmptyUnlabelledBlocks(f);
    if (!options.mergeBlocks)
      labelFallThroughBlocks(f); // --dont-merge-basicblocks
  }
  return counts;
}

} // namespace ori::reference
