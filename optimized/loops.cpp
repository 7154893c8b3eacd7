// Natural loops (spec/000 "Natural Loop Detection"; ir/facts.h Loop). A
// backedge latch -> header forms a loop when the header dominates the latch
// (dominance in O(1) by pre/post numbers of the dominator tree, numbered by an
// explicit-stack walk); an irreducible backedge forms none. One loop per
// header, ordered by header bix; the body is found by a worklist walking
// predecessors back from the latches, stopping at the header. Unreachable
// blocks are ignored everywhere: never in a body (they are not dominated by
// the header), never an exit, never an outside predecessor for the preheader.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {

LoopFacts computeLoops(const Function &f, const CfgFacts &cfg, const DomFacts &dom) {
  const uint32_t n = uint32_t(f.blocks.size());
  LoopFacts out;
  if (cfg.backedges.empty())
    return out;

  // Dominator tree: children lists (CSR), then pre/post numbers.
  std::vector<uint32_t> childStart(size_t(n) + 1, 0), children;
  for (uint32_t b = 0; b < n; ++b)
    if (dom.idom[b] != kNoBlock)
      ++childStart[uint32_t(dom.idom[b]) + 1];
  for (uint32_t b = 0; b < n; ++b)
    childStart[b + 1] += childStart[b];
  children.resize(childStart[n]);
  {
    std::vector<uint32_t> fill(childStart.begin(), childStart.end() - 1);
    for (uint32_t b = 0; b < n; ++b)
      if (dom.idom[b] != kNoBlock)
        children[fill[uint32_t(dom.idom[b])]++] = b;
  }
  std::vector<uint32_t> pre(n, 0), postNum(n, 0);
  {
    uint32_t clock = 0;
    std::vector<std::pair<uint32_t, uint32_t>> stack; // (block, next child index)
    if (!cfg.rpo.empty()) {
      stack.emplace_back(cfg.rpo[0], childStart[cfg.rpo[0]]);
      pre[cfg.rpo[0]] = ++clock;
    }
    while (!stack.empty()) {
      auto &[b, next] = stack.back();
      if (next < childStart[b + 1]) {
        uint32_t c = children[next++];
        pre[c] = ++clock;
        stack.emplace_back(c, childStart[c]);
        continue;
      }
      postNum[b] = ++clock;
      stack.pop_back();
    }
  }
  auto dominates = [&](uint32_t a, uint32_t b) {
    return pre[a] != 0 && pre[b] != 0 && pre[a] <= pre[b] && postNum[b] <= postNum[a];
  };

  // Latches per header, by counting sort on the header: the backedges are
  // ordered by source, so each header's latches ascend.
  std::vector<uint32_t> latchStart(size_t(n) + 1, 0), latches;
  for (auto [src, dst] : cfg.backedges)
    if (dominates(dst, src))
      ++latchStart[dst + 1];
  for (uint32_t b = 0; b < n; ++b)
    latchStart[b + 1] += latchStart[b];
  latches.resize(latchStart[n]);
  {
    std::vector<uint32_t> fill(latchStart.begin(), latchStart.end() - 1);
    for (auto [src, dst] : cfg.backedges)
      if (dominates(dst, src))
        latches[fill[dst]++] = src;
  }

  std::vector<uint32_t> mark(n, 0);      // mark[b] == loop id: b is in that loop's body
  std::vector<uint32_t> loopCount(n, 0); // number of bodies containing b
  std::vector<uint32_t> work;
  for (uint32_t h = 0; h < n; ++h) {
    if (latchStart[h] == latchStart[h + 1])
      continue;
    Loop loop;
    loop.header = h;
    loop.latches.assign(latches.begin() + latchStart[h], latches.begin() + latchStart[h + 1]);
    const uint32_t id = uint32_t(out.loops.size()) + 1;
    uint32_t lo = h, hi = h; // the body's smallest and largest bix
    auto add = [&](uint32_t b) {
      mark[b] = id;
      loop.body.push_back(b);
      lo = b < lo ? b : lo;
      hi = b > hi ? b : hi;
    };
    add(h);
    work.clear();
    for (uint32_t l : loop.latches)
      if (mark[l] != id) {
        add(l);
        work.push_back(l);
      }
    while (!work.empty()) {
      uint32_t b = work.back();
      work.pop_back();
      for (uint32_t p : cfg.preds[b])
        if (mark[p] != id && cfg.rpoNumber[p] != kNoBlock) {
          add(p);
          work.push_back(p);
        }
    }
    // Ascending: a scan of the marks over [lo, hi] when the body fills enough
    // of that span (a long loop), else a sort.
    const size_t k = loop.body.size();
    if (size_t(hi - lo) + 1 <= 8 * k) {
      loop.body.clear();
      for (uint32_t b = lo; b <= hi; ++b)
        if (mark[b] == id)
          loop.body.push_back(b);
    } else {
      std::sort(loop.body.begin(), loop.body.end());
    }
    for (uint32_t b : loop.body)
      ++loopCount[b];

    int32_t pre1 = kNoBlock;
    uint32_t outside = 0;
    for (uint32_t p : cfg.preds[h])
      if (mark[p] != id && cfg.rpoNumber[p] != kNoBlock) {
        ++outside;
        pre1 = int32_t(p);
      }
    loop.preheader = outside == 1 ? pre1 : kNoBlock;

    for (uint32_t b : loop.body)
      for (uint32_t s : cfg.succs[b])
        if (mark[s] != id)
          loop.exits.push_back(s);
    std::sort(loop.exits.begin(), loop.exits.end());
    loop.exits.erase(std::unique(loop.exits.begin(), loop.exits.end()), loop.exits.end());
    out.loops.push_back(std::move(loop));
  }
  for (Loop &loop : out.loops)
    loop.depth = loopCount[loop.header];
  return out;
}

} // namespace ori::optimized
