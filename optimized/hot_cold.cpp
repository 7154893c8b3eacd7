// Hot/cold layout, phases 108 and 109 (rules/hot_cold.h), the fast way: the cold set by a
// worklist (each block counts its successors not yet cold; a block whose count reaches 0 turns
// cold and its predecessors count down), the same fixed point as the reference's in one pass
// over the edges.
#include "optimized/optimized.h"

namespace ori::optimized {

std::vector<bool> coldBlocks(const Function &f, const HotColdOptions &o) {
  const uint32_t n = uint32_t(f.blocks.size());
  std::vector<bool> cold(n, false);
  if (n == 0)
    return cold;
  const CfgFacts cfg = computeCfg(f);
  std::vector<uint32_t> warm(n), work;
  for (uint32_t b = 0; b < n; ++b)
    warm[b] = uint32_t(cfg.succs[b].size());
  for (uint32_t b = 1; b < n; ++b) {
    const Block &blk = f.blocks[b];
    bool seed = endsInError(blk);
    if (!seed && o.blockCounts && !blk.label.empty())
      if (auto it = o.blockCounts->find(blk.label); it != o.blockCounts->end())
        seed = it->second == 0;
    if (seed) {
      cold[b] = true;
      work.push_back(b);
    }
  }
  while (!work.empty()) {
    const uint32_t c = work.back();
    work.pop_back();
    for (uint32_t p : cfg.preds[c])
      if (--warm[p] == 0 && p != 0 && !cold[p]) {
        cold[p] = true;
        work.push_back(p);
      }
  }
  return cold;
}

bool optimizeHotColdInLoop(Function &f, const HotColdOptions &o) {
  const std::vector<bool> cold = coldBlocks(f, o);
  const CfgFacts cfg = computeCfg(f);
  const LoopFacts loops = computeLoops(f, cfg, computeDominators(f, cfg));
  return reorderBlocks(f, hotColdInLoopOrder(f, cold, loops));
}

bool optimizeHotColdFlow(Function &f, const HotColdOptions &o) {
  return reorderBlocks(f, hotColdFlowOrder(f, coldBlocks(f, o)));
}

} // namespace ori::optimized
