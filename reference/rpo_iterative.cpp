// ptxas's iterative RPO, CFG::computeRPO (spec/000 "Reverse Post-Order
// (RPO) Computation", sub_BDE150), step by step as the spec's pseudocode
// writes it, with std::set for its two bit arrays; and the same walk turned
// into CfgFacts (`--rpo=ptxas-iterative`).
//
// Two readings are fixed here (docs/spec-notes.md, "ptxas-iterative RPO vs
// DFS"): the entry starts with in_stack set (as printed, the entry would be
// discarded as a "duplicate stack entry" and never numbered, contradicting
// "rpo_array[0] is the entry block"), and counter starts at the highest bix
// (num_blocks is the max index, spec/000 scheduling context +984), so that the
// spec's "return counter -- should be -1 if all blocks reachable" holds.
#include <cstdint>
#include <set>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {

RpoSlots computeRpoIterativeSlots(const CfgFacts &cfg) {
  const auto n = static_cast<uint32_t>(cfg.succs.size());
  RpoSlots out;
  out.rpoNumber.assign(n, kNoBlock);
  out.rpoArray.assign(n, kNoBlock);
  out.counter = int32_t(n) - 1;
  if (n == 0)
    return out;

  std::set<uint32_t> needExpand; // blocks whose successors have not been pushed
  for (uint32_t b = 0; b < n; ++b)
    needExpand.insert(b);
  std::set<uint32_t> inStack{0};
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    const uint32_t bix = stack.back();
    if (needExpand.count(bix)) { // first visit: push every successor not yet seen
      needExpand.erase(bix);
      for (uint32_t s : cfg.succs[bix])
        if (needExpand.count(s) && !inStack.count(s)) {
          inStack.insert(s);
          stack.push_back(s);
        }
      continue;
    }
    stack.pop_back();
    if (inStack.erase(bix)) { // canonical entry: number it
      out.rpoNumber[bix] = out.counter;
      out.rpoArray[size_t(out.counter)] = int32_t(bix);
      --out.counter;
    } // else: a duplicate stack entry, discarded
  }
  return out;
}

CfgFacts computeCfgIterative(const Function &f) {
  CfgFacts cfg = computeCfg(f);
  const RpoSlots slots = computeRpoIterativeSlots(cfg);
  // The numbered blocks hold the slots counter+1 .. n-1; slot counter+1 (the
  // entry) becomes RPO number 0.
  const int32_t first = slots.counter + 1;
  cfg.rpo.clear();
  for (size_t s = size_t(first); s < slots.rpoArray.size(); ++s)
    cfg.rpo.push_back(uint32_t(slots.rpoArray[s]));
  for (size_t b = 0; b < cfg.rpoNumber.size(); ++b)
    cfg.rpoNumber[b] = slots.rpoNumber[b] == kNoBlock ? kNoBlock : slots.rpoNumber[b] - first;
  cfg.backedges.clear();
  for (uint32_t src = 0; src < cfg.succs.size(); ++src) {
    if (cfg.rpoNumber[src] == kNoBlock)
      continue;
    for (uint32_t dst : cfg.succs[src])
      if (cfg.rpoNumber[dst] <= cfg.rpoNumber[src])
        cfg.backedges.emplace_back(src, dst);
  }
  return cfg;
}

} // namespace ori::reference
