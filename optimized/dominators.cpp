// Cooper-Harvey-Kennedy iterative immediate dominators over the RPO
// ("A Simple, Fast Dominance Algorithm", 2001; spec/000 "Dominance": ptxas
// computes them the same way in sub_BDFB10). Works in RPO-number space: the
// two-finger intersect walks the finger with the larger RPO number up.
//
// The predecessors are first copied into one flat array in RPO-number space
// (unreachable ones dropped: CHK never counts them), so that every pass reads
// memory in order. After the first pass, when every retreating edge l -> b
// (RPO(l) >= RPO(b)) has b on l's dominator chain, as in every reducible
// graph, a second pass would change nothing (each block's forward
// predecessors give the same intersection, and a predecessor that b
// dominates does not move it), so it is skipped; otherwise the passes go on
// until one changes nothing, as in the paper, each skipping the blocks whose
// inputs cannot have changed (below). The result is the same.
#include <cstdint>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {

DomFacts computeDominators(const Function& f, const CfgFacts& cfg) {
  const uint32_t n = uint32_t(f.blocks.size());
  DomFacts dom;
  dom.idom.assign(n, kNoBlock);
  const uint32_t m = uint32_t(cfg.rpo.size());
  if (m == 0) return dom;

  // Predecessors of the block with RPO number i: pred[predStart[i], predStart[i + 1]).
  std::vector<uint32_t> predStart(size_t(m) + 1), pred;
  pred.reserve(m + m / 2);
  for (uint32_t i = 0; i < m; ++i) {
    predStart[i] = uint32_t(pred.size());
    for (uint32_t p : cfg.preds[cfg.rpo[i]])
      if (int32_t rp = cfg.rpoNumber[p]; rp != kNoBlock) pred.push_back(uint32_t(rp));
  }
  predStart[m] = uint32_t(pred.size());

  // retreating[i]: the block with RPO number i has a predecessor at or after it.
  std::vector<uint8_t> retreating(m, 0);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t k = predStart[i]; k < predStart[i + 1]; ++k) retreating[i] |= pred[k] >= i;

  constexpr uint32_t kUndef = 0xFFFFFFFFu;
  std::vector<uint32_t> doms(m, kUndef); // by RPO number
  doms[0] = 0;
  // One pass in RPO order. After the first, a block without retreating
  // predecessors is skipped while nothing before it has changed in this
  // pass: its intersection reads only doms[] of blocks before it (a block's
  // idom comes before it), which are as it last saw them.
  auto pass = [&](bool first) {
    bool changed = false;
    for (uint32_t i = 1; i < m; ++i) {
      if (!first && !changed && !retreating[i]) continue;
      uint32_t newIdom = kUndef;
      for (uint32_t k = predStart[i]; k < predStart[i + 1]; ++k) {
        uint32_t a = pred[k];
        if (doms[a] == kUndef) continue; // not processed yet
        if (newIdom == kUndef) {
          newIdom = a;
          continue;
        }
        uint32_t b = newIdom;
        while (a != b) {
          while (a > b) a = doms[a];
          while (b > a) b = doms[b];
        }
        newIdom = a;
      }
      if (doms[i] != newIdom) {
        doms[i] = newIdom;
        changed = true;
      }
    }
    return changed;
  };
  pass(true);
  bool settled = true; // every retreating edge l -> i has i on l's chain
  for (uint32_t i = 1; i < m && settled; ++i)
    for (uint32_t k = predStart[i]; k < predStart[i + 1] && settled; ++k) {
      uint32_t l = pred[k];
      if (l < i) continue;
      while (l > i) l = doms[l];
      settled = l == i;
    }
  if (!settled)
    while (pass(false)) {
    }
  for (uint32_t i = 1; i < m; ++i) dom.idom[cfg.rpo[i]] = int32_t(cfg.rpo[doms[i]]);
  return dom;
}

} // namespace ori::optimized
