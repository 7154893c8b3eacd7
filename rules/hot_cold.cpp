// Hot/cold layout (rules/hot_cold.h): what ends in error, and the orders of phases 108 and 109.
#include "rules/hot_cold.h"

#include <algorithm>

#include "ir/opcodes.h"

namespace ori {

bool endsInError(const Block &b) {
  for (const Instr &in : b.instrs) {
    if (in.isGuarded())
      continue;
    if (in.op == Opcode::TRAP)
      return true;
    if (in.op == Opcode::CALL && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol &&
        std::string_view(in.srcs[0].sym) == "__assertfail")
      return true;
  }
  return false;
}

std::vector<uint32_t> hotColdInLoopOrder(const Function &f, const std::vector<bool> &cold,
                                         const LoopFacts &loops) {
  const uint32_t n = uint32_t(f.blocks.size());
  // A loop's blocks in ptxas's sense are its layout range (spec/000 "Natural Loop Detection":
  // "[header_rpo, exit_rpo] defines the set of blocks belonging to the loop body"): a cold block
  // strictly inside the range of a loop goes after the range's last block, of the outermost
  // such loop (its range holds the inner ones').
  std::vector<int64_t> after(n, -1); // cold b goes after this bix; -1: stays
  for (const Loop &l : loops.loops) {
    const auto [lo, hi] = std::minmax_element(l.body.begin(), l.body.end());
    for (uint32_t b = *lo + 1; b < *hi; ++b)
      if (cold[b] && int64_t(*hi) > after[b])
        after[b] = *hi;
  }
  std::vector<uint32_t> order;
  std::vector<std::vector<uint32_t>> moved(n);
  for (uint32_t b = 0; b < n; ++b)
    if (after[b] >= 0)
      moved[size_t(after[b])].push_back(b);
  for (uint32_t b = 0; b < n; ++b) {
    if (after[b] < 0)
      order.push_back(b);
    for (uint32_t c : moved[b])
      order.push_back(c);
  }
  return order;
}

std::vector<uint32_t> hotColdFlowOrder(const Function &f, const std::vector<bool> &cold) {
  std::vector<uint32_t> order;
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    if (b == 0 || !cold[b])
      order.push_back(b);
  for (uint32_t b = 1; b < f.blocks.size(); ++b)
    if (cold[b])
      order.push_back(b);
  return order;
}

} // namespace ori
