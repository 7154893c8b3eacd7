#include "rules/place_blocks_in_source_order.h"

#include <algorithm>

namespace ori {

std::vector<uint32_t> sourceOrder(const Function &f) {
  std::vector<uint32_t> order(f.blocks.size());
  for (uint32_t b = 0; b < order.size(); ++b)
    order[b] = b;
  if (order.size() > 1)
    std::stable_sort(order.begin() + 1, order.end(), [&](uint32_t a, uint32_t b) {
      return f.blocks[a].labelId < f.blocks[b].labelId;
    });
  return order;
}

} // namespace ori
