// Phase 10 EarlyOriSimpleLiveDead (spec/004 "Phase 10"; docs/liveness.md),
// the optimized way: block-local, no CFG. Every register some instruction
// reads counts as live at each block's end, so a def is dead just after it
// when nothing in the function reads its register (use count 0), or when a
// later unguarded def in the same block overwrites it before any read
// ("shadowed"). One backward walk per block removes such instructions (not
// those keptWhenDead, ir/facts.h); removing one lowers the use counts of its
// sources, and a count that drops to 0 sends the blocks that define that
// register back to the worklist. Shadowing is an epoch stamp per register,
// so no set is cleared between blocks. Same result as the reference (the
// order of removals does not matter).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "optimized/optimized.h"
#include "optimized/reg_index.h"

namespace ori::optimized {

uint32_t earlyOriSimpleLiveDead(Function &f) {
  const size_t n = f.blocks.size();
  FunctionRegs all = functionRegs(f);
  auto &regs = all.blocks;
  const uint32_t count = all.index.size();
  std::vector<uint32_t> useCount(count, 0);
  std::vector<std::vector<uint32_t>> defBlocks(count); // blocks with a def, ascending, once each
  for (uint32_t b = 0; b < n; ++b)
    for (const InstrRegs &r : regs[b]) {
      for (uint32_t k = 0; k < r.defs; ++k) {
        const uint32_t d = all.defs(r)[k];
        if (defBlocks[d].empty() || defBlocks[d].back() != b)
          defBlocks[d].push_back(b);
      }
      for (uint32_t k = 0; k < r.uses; ++k)
        ++useCount[all.uses(r)[k]];
    }

  std::vector<uint32_t> shadowedIn(count, 0); // == epoch: shadowed in the current walk
  uint32_t epoch = 0, removed = 0;
  std::deque<uint32_t> work;
  std::vector<char> queued(n, 1), dead;
  for (uint32_t b = 0; b < n; ++b)
    work.push_back(b);
  while (!work.empty()) {
    const uint32_t b = work.front();
    work.pop_front();
    queued[b] = 0;
    ++epoch;
    auto &instrs = regs[b];
    dead.assign(instrs.size(), 0);
    bool any = false;
    for (size_t i = instrs.size(); i-- > 0;) {
      const InstrRegs &r = instrs[i];
      const uint32_t *defs = all.defs(r);
      const uint32_t *uses = all.uses(r);
      bool anyDefLive = false;
      for (uint32_t k = 0; k < r.defs; ++k)
        anyDefLive = anyDefLive || (useCount[defs[k]] > 0 && shadowedIn[defs[k]] != epoch);
      if (!anyDefLive && !r.kept) {
        dead[i] = any = true;
        for (uint32_t k = 0; k < r.uses; ++k)
          if (const uint32_t u = uses[k]; --useCount[u] == 0)
            for (uint32_t db : defBlocks[u])
              if (!queued[db]) {
                queued[db] = 1;
                work.push_back(db);
              }
        continue;
      }
      if (!r.guarded)
        for (uint32_t k = 0; k < r.defs; ++k)
          shadowedIn[defs[k]] = epoch;
      for (uint32_t k = 0; k < r.uses; ++k)
        shadowedIn[uses[k]] = 0;
    }
    if (!any)
      continue;
    size_t k = 0;
    auto &code = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (dead[i])
        continue;
      if (k != i) {
        code[k] = std::move(code[i]);
        instrs[k] = std::move(instrs[i]);
      }
      ++k;
    }
    removed += uint32_t(instrs.size() - k);
    code.resize(k);
    instrs.resize(k);
  }
  dropEmptyUnlabelledBlocks(f);
  return removed;
}

} // namespace ori::optimized
