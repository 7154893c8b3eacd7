// Tail merging (rules/tail_merge.h), the reference way: each block against every block before
// it, instruction lists compared whole, one merge round after another until none merges.
#include "reference/reference.h"

namespace ori::reference {

uint32_t tailMerge(Function &f) {
  uint32_t total = 0;
  for (;;) {
    const std::vector<bool> removable = tailMergeRemovable(f);
    std::vector<uint32_t> into(f.blocks.size(), kNotMerged);
    bool any = false;
    for (size_t y = 1; y < f.blocks.size(); ++y) {
      if (!removable[y] || !isTailMergeCandidate(f.blocks[y]))
        continue;
      for (size_t x = 0; x < y; ++x)
        if (isTailMergeCandidate(f.blocks[x]) && f.blocks[x].instrs == f.blocks[y].instrs) {
          into[y] = uint32_t(x); // x is the first such block: never merged itself
          any = true;
          break;
        }
    }
    if (!any)
      return total;
    total += mergeBlocksInto(f, into);
  }
}

} // namespace ori::reference
