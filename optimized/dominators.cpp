// Cooper-Harvey-Kennedy iterative immediate dominators over the RPO
// ("A Simple, Fast Dominance Algorithm", 2001; spec/000 "Dominance": ptxas
// computes them the same way in sub_BDFB10). Works in RPO-number space: the
// two-finger intersect walks the finger with the larger RPO number up.
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

  constexpr int32_t kUndef = -1;
  std::vector<int32_t> doms(m, kUndef); // by RPO number
  doms[0] = 0;
  auto intersect = [&](int32_t a, int32_t b) {
    while (a != b) {
      while (a > b) a = doms[size_t(a)];
      while (b > a) b = doms[size_t(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 1; i < m; ++i) {
      int32_t newIdom = kUndef;
      for (uint32_t p : cfg.preds[cfg.rpo[i]]) {
        int32_t rp = cfg.rpoNumber[p];
        if (rp == kNoBlock || doms[size_t(rp)] == kUndef) continue; // unreachable or not yet processed
        newIdom = newIdom == kUndef ? rp : intersect(rp, newIdom);
      }
      if (doms[i] != newIdom) {
        doms[i] = newIdom;
        changed = true;
      }
    }
  }
  for (uint32_t i = 1; i < m; ++i) dom.idom[cfg.rpo[i]] = int32_t(cfg.rpo[size_t(doms[i])]);
  return dom;
}

} // namespace ori::optimized
