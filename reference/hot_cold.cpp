// Hot/cold layout, phases 108 and 109 (rules/hot_cold.h), the reference way: the cold set as a
// fixed point recomputed over every block until nothing changes, the loops from
// computeLoops, the move by reorderBlocks.
#include "reference/reference.h"

namespace ori::reference {

std::vector<bool> coldBlocks(const Function &f, const HotColdOptions &o) {
  const size_t n = f.blocks.size();
  std::vector<bool> cold(n, false);
  for (size_t b = 1; b < n; ++b) {
    const Block &blk = f.blocks[b];
    bool neverRan = false;
    if (o.blockCounts && !blk.label.empty())
      if (auto it = o.blockCounts->find(blk.label); it != o.blockCounts->end())
        neverRan = it->second == 0;
    cold[b] = endsInError(blk) || neverRan;
  }
  const CfgFacts cfg = computeCfg(f);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 1; b < n; ++b) {
      if (cold[b] || cfg.succs[b].empty())
        continue;
      bool all = true;
      for (uint32_t s : cfg.succs[b])
        all = all && cold[s];
      if (all) {
        cold[b] = true;
        changed = true;
      }
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

} // namespace ori::reference
