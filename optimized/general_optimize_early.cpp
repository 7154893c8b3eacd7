// Phase 13 GeneralOptimizeEarly, MergeEquivalentConditionalFlow (spec/002
// "Algorithm A", sub_7917F0; docs/general-optimize.md), the optimized way:
// the CFG is computed once and its predecessor lists kept up to date by hand
// (a rewrite only ever removes one edge: the taken edge of a deleted BRA, or
// the fall-through of a branch made unconditional); the chains left dead go
// in rounds of one backward pass (removeDeadCandidates).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "optimized/optimized.h"
#include "rules/block_merging.h"
#include "rules/general_optimize.h"

namespace ori::optimized {

EarlyOptimizeCounts generalOptimizeEarly(Function &f, MergeFlowOptions options) {
  int64_t budget = options.budget;
  EarlyOptimizeCounts counts;
  if (f.blocks.empty())
    return counts;
  CfgFacts cfg = computeCfg(f);
  const size_t n = f.blocks.size();
  // Block b's predecessors are the first predCount[b] entries of cfg.preds[b]:
  // a removed edge is taken out of the row in place (no copy of the lists, no
  // vector per block: on a big function an allocation per block costs cache
  // misses in malloc's lists). The candidate flags are one array, too.
  std::vector<uint32_t> predCount(n);
  for (size_t b = 0; b < n; ++b)
    predCount[b] = uint32_t(cfg.preds[b].size());
  auto removeEdge = [&](uint32_t from, uint32_t to) {
    const std::span<uint32_t> row = cfg.preds[to];
    predCount[to] =
        uint32_t(std::remove(row.begin(), row.begin() + predCount[to], from) - row.begin());
  };
  std::vector<uint32_t> instrStart(n + 1, 0);
  for (size_t b = 0; b < n; ++b)
    instrStart[b + 1] = instrStart[b] + uint32_t(f.blocks[b].instrs.size());
  std::vector<uint8_t> candidates(instrStart[n], 0); // by instruction, as the blocks were at entry
  for (uint32_t c : cfg.rpo) {
    // One rewrite at most: it leaves C's last instruction no guarded branch.
    if (predCount[c] != 1 || cfg.preds[c][0] == c)
      continue;
    const auto m = matchEquivalentCondition(f, cfg.preds[c][0], c);
    if (!m || budget == 0)
      continue; // knob 464 is asked before the rewrite is applied
    if (budget > 0)
      --budget;
    auto &ic = f.blocks[c].instrs;
    const bool isBra = ic.back().op == Opcode::BRA;
    const uint32_t target = isBra ? ic.back().srcs[0].target : 0;
    const uint32_t next = c + 1;
    if (m->taken) {
      ic.back().guard.reset();
      if (next < f.blocks.size() && !(isBra && target == next))
        removeEdge(c, next);
      ++counts.branchesUnconditional;
    } else {
      ic.pop_back();
      if (isBra && target != next)
        removeEdge(c, target);
      ++counts.branchesDeleted;
    }
    for (size_t i : m->chain)
      candidates[instrStart[c] + i] = 1;
    ++counts.iterations;
  }
  // removeDeadCandidates's order: block by block, each as long as it is now (a
  // rewrite may have dropped a block's last instruction; the chain is before it).
  size_t write = 0;
  for (size_t b = 0; b < n; ++b) {
    const size_t size = f.blocks[b].instrs.size();
    if (write != instrStart[b]) // leftwards: std::copy allows the overlap
      std::copy(candidates.begin() + instrStart[b], candidates.begin() + instrStart[b] + size,
                candidates.begin() + write);
    write += size;
  }
  candidates.resize(write);
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

} // namespace ori::optimized
