#include "optimized/liveness_subset.h"

#include <algorithm>

#include "optimized/group_by_key.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

} // namespace

SubsetLiveness::SubsetLiveness(const FunctionRegs &all, const CfgFacts &cfg,
                               const std::vector<uint32_t> &asked, bool entryOnly) {
  std::vector<Reg> regs;
  regs.reserve(asked.size());
  which_.assign(all.index.size(), -1);
  for (uint32_t i = 0; i < asked.size(); ++i) {
    regs.push_back(all.index.reg(asked[i]));
    which_[asked[i]] = int32_t(i);
  }
  regs_ = RegIndex(regs);
  const uint32_t n = uint32_t(all.blocks.size()), k = uint32_t(regs_.size());
  outStart_.assign(size_t(n) + 1, 0);
  entry_.assign(k, 0);
  if (k == 0 || n == 0)
    return;

  // One forward walk per block: where each register is upward-exposed, and
  // which blocks write it unguarded; (register, block) pairs in block order.
  Pairs exposed, written;
  std::vector<uint32_t> exposedIn(k, kNone), writtenIn(k, kNone);
  for (uint32_t b = 0; b < n; ++b)
    for (const InstrRegs &in : all.blocks[b]) {
      const uint32_t *uses = all.uses(in);
      for (uint32_t u = 0; u < in.uses; ++u) {
        const int32_t i = which_[uses[u]];
        if (i >= 0 && writtenIn[i] != b && exposedIn[i] != b)
          exposedIn[i] = b, exposed.emplace_back(i, b);
      }
      if (in.guarded)
        continue; // a guarded write may leave the old value
      const uint32_t *defs = all.defs(in);
      for (uint32_t d = 0; d < in.defs; ++d) {
        const int32_t i = which_[defs[d]];
        if (i >= 0 && writtenIn[i] != b)
          writtenIn[i] = b, written.emplace_back(i, b);
      }
    }
  solve(n, cfg, exposed, written, entryOnly);
}

void SubsetLiveness::solve(uint32_t n, const CfgFacts &cfg, const Pairs &exposed,
                           const Pairs &written, bool entryOnly) {
  const uint32_t k = uint32_t(regs_.size());
  std::vector<uint32_t> exposedStart, exposedBlocks, writtenStart, writtenBlocks;
  groupByKey(exposed, k, exposedStart, exposedBlocks);
  groupByKey(written, k, writtenStart, writtenBlocks);

  // Per register, the blocks it is live into, found backwards from its
  // upward-exposed uses; stamps (register index + 1) mark the blocks.
  std::vector<uint32_t> killStamp(n, 0), inStamp(n, 0), outStamp(n, 0), work;
  Pairs liveOutPairs; // (block, register), registers ascending
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t stamp = i + 1;
    for (uint32_t x = writtenStart[i]; x < writtenStart[i + 1]; ++x)
      killStamp[writtenBlocks[x]] = stamp;
    work.clear();
    for (uint32_t x = exposedStart[i]; x < exposedStart[i + 1]; ++x) {
      inStamp[exposedBlocks[x]] = stamp;
      work.push_back(exposedBlocks[x]);
    }
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      if (b == 0) {
        entry_[i] = 1;
        if (entryOnly)
          break; // all that is asked of this register
      }
      for (uint32_t p : cfg.preds[b]) {
        if (outStamp[p] == stamp)
          continue;
        outStamp[p] = stamp;
        if (!entryOnly)
          liveOutPairs.emplace_back(p, i);
        if (killStamp[p] != stamp && inStamp[p] != stamp) {
          inStamp[p] = stamp;
          work.push_back(p);
        }
      }
    }
  }
  if (!entryOnly)
    groupByKey(liveOutPairs, n, outStart_, out_);
}

} // namespace ori::optimized
