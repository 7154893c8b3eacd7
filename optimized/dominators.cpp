// Cooper-Harvey-Kennedy iterative immediate dominators over the RPO
// ("A Simple, Fast Dominance Algorithm", 2001; spec/000 "Dominance": ptxas
// computes them the same way in sub_BDFB10). Works in RPO-number space: the
// two-finger intersect walks the finger with the larger RPO number up.
//
// The first pass reads the predecessor lists directly; only predecessors
// before the block in RPO count (the others have no value yet), and the
// retreating edges l -> b (RPO(l) >= RPO(b)) are noted. When b is on l's
// dominator chain for each of them, as in every reducible graph, a second
// pass would change nothing (each block's forward predecessors give the same
// intersection, and a predecessor that b dominates does not move it), so the
// result is final. Otherwise the predecessors are copied into one flat array
// in RPO-number space and the passes go on until one changes nothing, as in
// the paper, each skipping the blocks whose inputs cannot have changed
// (below). The result is the same.
#include <cstdint>
#include <utility>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {

DomFacts computeDominators(const Function &f, const CfgFacts &cfg) {
  const uint32_t n = uint32_t(f.blocks.size());
  DomFacts dom;
  dom.idom.assign(n, kNoBlock);
  const uint32_t m = uint32_t(cfg.rpo.size());
  if (m == 0)
    return dom;

  constexpr uint32_t kUndef = 0xFFFFFFFFu;
  std::vector<uint32_t> doms(m, kUndef); // by RPO number
  doms[0] = 0;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (a > b)
        a = doms[a];
      while (b > a)
        b = doms[b];
    }
    return a;
  };

  // Pass 1: every block before i already has its value (its DFS tree parent
  // is a predecessor before it, so every block gets one).
  std::vector<std::pair<uint32_t, uint32_t>> retreatingEdges; // (RPO of source, RPO of target)
  for (uint32_t i = 1; i < m; ++i) {
    uint32_t newIdom = kUndef;
    for (uint32_t p : cfg.preds[cfg.rpo[i]]) {
      const int32_t rp = cfg.rpoNumber[p];
      if (rp == kNoBlock)
        continue; // unreachable: never counts
      if (uint32_t(rp) >= i) {
        retreatingEdges.emplace_back(uint32_t(rp), i);
        continue;
      }
      newIdom = newIdom == kUndef ? uint32_t(rp) : intersect(uint32_t(rp), newIdom);
    }
    doms[i] = newIdom;
  }
  bool settled = true; // every retreating edge l -> i has i on l's chain
  for (auto [l, i] : retreatingEdges) {
    while (l > i)
      l = doms[l];
    if (l != i) {
      settled = false;
      break;
    }
  }

  if (!settled) {
    // Predecessors of the block with RPO number i: pred[predStart[i],
    // predStart[i + 1]); retreating[i]: one of them is at or after i.
    std::vector<uint32_t> predStart(size_t(m) + 1), pred;
    pred.reserve(m + m / 2);
    for (uint32_t i = 0; i < m; ++i) {
      predStart[i] = uint32_t(pred.size());
      for (uint32_t p : cfg.preds[cfg.rpo[i]])
        if (int32_t rp = cfg.rpoNumber[p]; rp != kNoBlock)
          pred.push_back(uint32_t(rp));
    }
    predStart[m] = uint32_t(pred.size());
    std::vector<uint8_t> retreating(m, 0);
    for (auto [l, i] : retreatingEdges)
      retreating[i] = 1;
    // Passes 2, 3, ...: a block without retreating predecessors is skipped
    // while nothing before it has changed in this pass: its intersection
    // reads only doms[] of blocks before it (a block's idom comes before it),
    // which are as it last saw them.
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i = 1; i < m; ++i) {
        if (!changed && !retreating[i])
          continue;
        uint32_t newIdom = kUndef;
        for (uint32_t k = predStart[i]; k < predStart[i + 1]; ++k)
          newIdom = newIdom == kUndef ? pred[k] : intersect(pred[k], newIdom);
        if (doms[i] != newIdom) {
          doms[i] = newIdom;
          changed = true;
        }
      }
    }
  }
  for (uint32_t i = 1; i < m; ++i)
    dom.idom[cfg.rpo[i]] = int32_t(cfg.rpo[doms[i]]);
  return dom;
}

} // namespace ori::optimized
