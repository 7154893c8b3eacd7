// labelFallThroughBlocks (rules/block_merging.h), once for both halves.
#include "rules/block_merging.h"

#include <fmt/format.h>

namespace ori {

uint32_t labelFallThroughBlocks(Function &f) {
  uint32_t labelled = 0;
  for (size_t b = 1; b < f.blocks.size(); ++b) {
    Block &blk = f.blocks[b];
    const Block &prev = f.blocks[b - 1];
    const bool startsAfterControl = !prev.instrs.empty() && prev.instrs.back().info().is(CONTROL);
    if (!blk.label.empty() || startsAfterControl)
      continue;
    std::string name = fmt::format("$L__KEEP{:x}", blk.labelId);
    for (uint32_t k = 1; f.findBlock(name); ++k)
      name = fmt::format("$L__KEEP{:x}_{}", blk.labelId, k);
    blk.label = name;
    ++labelled;
  }
  return labelled;
}

} // namespace ori
