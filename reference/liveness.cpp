// Reference liveness (spec/004 "Classical Backward Liveness"; ir/facts.h
// LivenessFacts): a std::set of registers per block. gen and kill come
// straight from their definitions in one forward walk per block: gen(B) is
// what an instruction uses before any unguarded def of it earlier in B (the
// upward-exposed uses), kill(B) what an unguarded instruction defines (a
// guarded def may leave the old value). Then the equations
//   LiveOut(B) = union of LiveIn(S) over the successors S
//   LiveIn(B)  = gen(B) | (LiveOut(B) - kill(B))
// are recomputed for every block, round-robin (from the last bix down, which
// suits a backward problem on code laid out forwards), until a whole round
// changes nothing. Pressure: the live set walked backward through each block.
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

using RegSet = std::set<Reg>;

RegCounts countByFile(const RegSet &s) {
  RegCounts c{};
  for (Reg r : s)
    ++c[size_t(r.file)];
  return c;
}

void raiseTo(RegCounts &best, const RegCounts &c) {
  for (size_t k = 0; k < best.size(); ++k)
    best[k] = std::max(best[k], c[k]);
}

} // namespace

LivenessFacts computeLiveness(const Function &f, const CfgFacts &cfg) {
  const size_t n = f.blocks.size();
  std::vector<RegSet> gen(n), kill(n), in(n), out(n);
  for (size_t b = 0; b < n; ++b) {
    RegSet definedSoFar;
    for (const Instr &i : f.blocks[b].instrs) {
      for (Reg r : i.uses())
        if (!definedSoFar.count(r))
          gen[b].insert(r);
      if (i.isGuarded())
        continue;
      for (Reg r : i.defs()) {
        kill[b].insert(r);
        definedSoFar.insert(r);
      }
    }
  }

  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = n; b-- > 0;) {
      RegSet newOut;
      for (uint32_t s : cfg.succs[b])
        newOut.insert(in[s].begin(), in[s].end());
      RegSet newIn = gen[b];
      for (Reg r : newOut)
        if (!kill[b].count(r))
          newIn.insert(r);
      if (newOut != out[b] || newIn != in[b])
        changed = true;
      out[b] = std::move(newOut);
      in[b] = std::move(newIn);
    }
  }

  LivenessFacts facts;
  facts.pressure.resize(n);
  for (size_t b = 0; b < n; ++b) {
    facts.liveIn.emplace_back(in[b].begin(), in[b].end());
    facts.liveOut.emplace_back(out[b].begin(), out[b].end());
    // Points of the block, last first: just after each instruction (its defs
    // included), then the entry.
    RegSet live = out[b];
    RegCounts best{};
    const auto &instrs = f.blocks[b].instrs;
    for (auto it = instrs.rbegin(); it != instrs.rend(); ++it) {
      RegSet after = live;
      for (Reg r : it->defs())
        after.insert(r);
      raiseTo(best, countByFile(after));
      if (!it->isGuarded())
        for (Reg r : it->defs())
          live.erase(r);
      for (Reg r : it->uses())
        live.insert(r);
    }
    raiseTo(best, countByFile(live));
    facts.pressure[b] = best;
    raiseTo(facts.maxPressure, best);
  }
  if (n)
    facts.uninitialized = facts.liveIn[0];
  return facts;
}

} // namespace ori::reference
