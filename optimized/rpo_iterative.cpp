// ptxas's iterative RPO (spec/000 sub_BDE150) with its two bit arrays
// (need_expand, in_stack) as 64-bit words and one preallocated stack; the
// same readings as reference/rpo_iterative.cpp (in_stack[entry] set at the
// start, counter from the highest bix). Used for `--rpo=ptxas-iterative`.
#include <cstdint>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

struct Bits {
  std::vector<uint64_t> words;
  Bits(uint32_t n, bool value) : words((size_t(n) + 63) / 64, value ? ~uint64_t(0) : 0) {}
  bool test(uint32_t i) const { return (words[i >> 6] >> (i & 63)) & 1; }
  void set(uint32_t i) { words[i >> 6] |= uint64_t(1) << (i & 63); }
  void clear(uint32_t i) { words[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
};

} // namespace

RpoSlots computeRpoIterativeSlots(const CfgFacts &cfg) {
  const uint32_t n = uint32_t(cfg.succs.size());
  RpoSlots out;
  out.rpoNumber.assign(n, kNoBlock);
  out.rpoArray.assign(n, kNoBlock);
  int32_t counter = int32_t(n) - 1;
  if (n > 0) {
    Bits needExpand(n, true), inStack(n, false);
    std::vector<uint32_t> stack;
    stack.reserve(n); // in_stack admits each block once: never more than n entries
    stack.push_back(0);
    inStack.set(0);
    while (!stack.empty()) {
      const uint32_t bix = stack.back();
      if (needExpand.test(bix)) {
        needExpand.clear(bix);
        for (uint32_t s : cfg.succs[bix])
          if (needExpand.test(s) && !inStack.test(s)) {
            inStack.set(s);
            stack.push_back(s);
          }
        continue;
      }
      stack.pop_back();
      if (inStack.test(bix)) {
        inStack.clear(bix);
        out.rpoNumber[bix] = counter;
        out.rpoArray[size_t(counter)] = int32_t(bix);
        --counter;
      }
    }
  }
  out.counter = counter;
  return out;
}

CfgFacts computeCfgIterative(const Function &f) {
  CfgFacts cfg = computeCfg(f);
  const RpoSlots slots = computeRpoIterativeSlots(cfg);
  const int32_t first = slots.counter + 1; // the entry's slot becomes RPO number 0
  const uint32_t n = uint32_t(cfg.succs.size());
  cfg.rpo.assign(slots.rpoArray.begin() + first, slots.rpoArray.end());
  for (uint32_t b = 0; b < n; ++b) {
    const int32_t s = slots.rpoNumber[b];
    cfg.rpoNumber[b] = s == kNoBlock ? kNoBlock : s - first;
  }
  cfg.backedges.clear();
  for (uint32_t b = 0; b < n; ++b) {
    const int32_t rb = cfg.rpoNumber[b];
    if (rb == kNoBlock)
      continue;
    for (uint32_t s : cfg.succs[b])
      if (cfg.rpoNumber[s] <= rb)
        cfg.backedges.emplace_back(b, s);
  }
  return cfg;
}

} // namespace ori::optimized
