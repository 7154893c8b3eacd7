// Phase 13 GeneralOptimizeEarly, MergeEquivalentConditionalFlow (spec/002
// "Algorithm A", sub_7917F0; docs/general-optimize.md), the optimized way:
// the CFG is computed once and its predecessor lists kept up to date by hand
// (a rewrite only ever removes one edge: the taken edge of a deleted BRA, or
// the fall-through of a branch made unconditional); the chains left dead go
// in rounds of one backward pass (removeDeadCandidates).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/general_optimize.h"
#include "optimized/optimized.h"

namespace ori::optimized {

EarlyOptimizeCounts generalOptimizeEarly(Function& f, int64_t budget) {
  EarlyOptimizeCounts counts;
  if (f.blocks.empty()) return counts;
  const CfgFacts cfg = computeCfg(f);
  std::vector<std::vector<uint32_t>> preds(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b) preds[b].assign(cfg.preds[b].begin(), cfg.preds[b].end());
  auto removeEdge = [&](uint32_t from, uint32_t to) {
    auto& p = preds[to];
    p.erase(std::remove(p.begin(), p.end(), from), p.end());
  };
  std::vector<std::vector<uint8_t>> candidates(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b) candidates[b].assign(f.blocks[b].instrs.size(), 0);
  const std::vector<uint32_t> order = cfg.rpo;
  for (uint32_t c : order) {
    // One rewrite at most: it leaves C's last instruction no guarded branch.
    if (preds[c].size() != 1 || preds[c][0] == c) continue;
    const auto m = matchEquivalentCondition(f, preds[c][0], c);
    if (!m || budget == 0) continue; // knob 464 is asked before the rewrite is applied
    if (budget > 0) --budget;
    auto& ic = f.blocks[c].instrs;
    const bool isBra = ic.back().op == Opcode::BRA;
    const uint32_t target = isBra ? ic.back().srcs[0].target : 0;
    const uint32_t next = c + 1;
    if (m->taken) {
      ic.back().guard.reset();
      if (next < f.blocks.size() && !(isBra && target == next)) removeEdge(c, next);
      ++counts.branchesUnconditional;
    } else {
      ic.pop_back();
      if (isBra && target != next) removeEdge(c, target);
      ++counts.branchesDeleted;
    }
    for (size_t i : m->chain) candidates[c][i] = 1;
    ++counts.iterations;
  }
  std::vector<uint8_t> flat; // removeDeadCandidates's order: block by block
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    candidates[b].resize(f.blocks[b].instrs.size());
    flat.insert(flat.end(), candidates[b].begin(), candidates[b].end());
  }
  counts.removed = removeDeadCandidates(f, std::move(flat));
  if (counts.iterations) {
    mergeUnlabelledBlocks(f);
    dropEmptyUnlabelledBlocks(f);
  }
  return counts;
}

} // namespace ori::optimized
