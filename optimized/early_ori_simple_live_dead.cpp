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

namespace ori::optimized {
namespace {

struct InstrRegs {
  std::vector<uint32_t> defs, uses;
  bool guarded = false, kept = false;
};

} // namespace

uint32_t earlyOriSimpleLiveDead(Function& f) {
  const size_t n = f.blocks.size();
  std::vector<Reg> all;
  for (const Block& b : f.blocks)
    for (const Instr& in : b.instrs) {
      forEachDef(in, [&](Reg r) { all.push_back(r); });
      forEachUse(in, [&](Reg r) { all.push_back(r); });
    }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  auto number = [&](Reg r) { return uint32_t(std::lower_bound(all.begin(), all.end(), r) - all.begin()); };

  std::vector<uint32_t> useCount(all.size(), 0);
  std::vector<std::vector<uint32_t>> defBlocks(all.size()); // blocks with a def, ascending, once each
  std::vector<std::vector<InstrRegs>> regs(n);
  for (uint32_t b = 0; b < n; ++b)
    for (const Instr& in : f.blocks[b].instrs) {
      InstrRegs& r = regs[b].emplace_back();
      forEachDef(in, [&](Reg d) {
        r.defs.push_back(number(d));
        if (defBlocks[r.defs.back()].empty() || defBlocks[r.defs.back()].back() != b) defBlocks[r.defs.back()].push_back(b);
      });
      forEachUse(in, [&](Reg u) {
        r.uses.push_back(number(u));
        ++useCount[r.uses.back()];
      });
      r.guarded = in.isGuarded();
      r.kept = keptWhenDead(in);
    }

  std::vector<uint32_t> shadowedIn(all.size(), 0); // == epoch: shadowed in the current walk
  uint32_t epoch = 0, removed = 0;
  std::deque<uint32_t> work;
  std::vector<char> queued(n, 1), dead;
  for (uint32_t b = 0; b < n; ++b) work.push_back(b);
  while (!work.empty()) {
    const uint32_t b = work.front();
    work.pop_front();
    queued[b] = 0;
    ++epoch;
    auto& instrs = regs[b];
    dead.assign(instrs.size(), 0);
    bool any = false;
    for (size_t i = instrs.size(); i-- > 0;) {
      const InstrRegs& r = instrs[i];
      bool anyDefLive = false;
      for (uint32_t d : r.defs) anyDefLive = anyDefLive || (useCount[d] > 0 && shadowedIn[d] != epoch);
      if (!anyDefLive && !r.kept) {
        dead[i] = any = true;
        for (uint32_t u : r.uses)
          if (--useCount[u] == 0)
            for (uint32_t db : defBlocks[u])
              if (!queued[db]) {
                queued[db] = 1;
                work.push_back(db);
              }
        continue;
      }
      if (!r.guarded)
        for (uint32_t d : r.defs) shadowedIn[d] = epoch;
      for (uint32_t u : r.uses) shadowedIn[u] = 0;
    }
    if (!any) continue;
    size_t k = 0;
    auto& code = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (dead[i]) continue;
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
