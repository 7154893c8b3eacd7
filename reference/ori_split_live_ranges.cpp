// Phase 19 OriSplitLiveRanges (spec/004 "Phase 19"; docs/liveness.md), the
// reference way, for values live through a loop but not touched in it.
//
// Per register v and block b, spec/004's three per-register sets, here as
// sets of blocks: kill(v) the blocks that define v (guarded or not), gen(v)
// the blocks that read v, liveThrough(v) the blocks where v is live in and
// out and which neither define nor read it. v is split at natural loop L when
//   - v is an R or UR register the function had on entry (not a copy made
//     here), and a fresh register of its file is left;
//   - L's header is not bix0 and is in liveThrough(v), and no block of L's
//     body is in kill(v) or gen(v);
//   - L has a preheader P whose only successor is the header;
//   - every exit E of L where v is live-in is not bix0 and has all its
//     predecessors in the body (else the copy back would need a new block).
// The split: a fresh T (Function::newReg); `MOV.64 T, v` at the end of P
// (before its control-flow instruction, if it ends with one) and `MOV.64 v,
// T` at the start of each exit where v is live-in. In the loop only T is
// live; v's range stops at P and starts again at the exits.
//
// Order (spec/004: the register array "in reverse order (highest VR ID
// first)"): registers from the highest (file, number) down, and for each,
// loops by depth (outermost first), then header bix. The reference takes the
// first pair that qualifies, splits it, recomputes every analysis, and starts
// again; a split value is no longer live in the loop, so the same value is
// not split again at a loop inside it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

struct RegisterBlockSets {
  std::set<uint32_t> kill, gen, liveThrough;
};

std::map<Reg, RegisterBlockSets> perRegisterSets(const Function &f, const LivenessFacts &live) {
  std::map<Reg, RegisterBlockSets> sets;
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (const Instr &in : f.blocks[b].instrs) {
      for (Reg r : in.defs())
        sets[r].kill.insert(b);
      for (Reg r : in.uses())
        sets[r].gen.insert(b);
    }
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (Reg r : live.liveIn[b]) {
      const auto &out = live.liveOut[b];
      RegisterBlockSets &s = sets[r];
      if (std::binary_search(out.begin(), out.end(), r) && !s.kill.count(b) && !s.gen.count(b))
        s.liveThrough.insert(b);
    }
  return sets;
}

bool splittable(Reg v, const Loop &loop, const Function &f, const CfgFacts &cfg,
                const LivenessFacts &live, const RegisterBlockSets &s) {
  if ((v.file != RegFile::R && v.file != RegFile::UR) || v.isConst())
    return false;
  if (f.nextReg[size_t(v.file)] >= Reg::kConst)
    return false; // no fresh register left
  if (loop.header == 0 || loop.preheader == kNoBlock)
    return false;
  if (!std::ranges::equal(cfg.succs[uint32_t(loop.preheader)], std::array{loop.header}))
    return false;
  if (!s.liveThrough.count(loop.header))
    return false;
  const std::set<uint32_t> body(loop.body.begin(), loop.body.end());
  for (uint32_t b : loop.body)
    if (s.kill.count(b) || s.gen.count(b))
      return false;
  for (uint32_t e : loop.exits) {
    if (!std::binary_search(live.liveIn[e].begin(), live.liveIn[e].end(), v))
      continue;
    if (e == 0)
      return false;
    for (uint32_t p : cfg.preds[e])
      if (!body.count(p))
        return false;
  }
  return true;
}

// Registers numbered at or above nextReg would clash with new ones.
void raiseNextReg(Function &f) {
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      for (const auto &regs : {in.defs(), in.uses()})
        for (Reg r : regs)
          f.nextReg[size_t(r.file)] = std::max(f.nextReg[size_t(r.file)], r.num + 1);
}

} // namespace

uint32_t oriSplitLiveRanges(Function &f) {
  if (f.isDeclaration())
    return 0;
  raiseNextReg(f);
  std::set<Reg> made; // the copies' registers: never split themselves
  uint32_t splits = 0;
  for (;;) {
    const CfgFacts cfg = computeCfg(f);
    LoopFacts loops = computeLoops(f, cfg, computeDominators(f, cfg));
    std::stable_sort(loops.loops.begin(), loops.loops.end(), [](const Loop &a, const Loop &b) {
      return a.depth < b.depth;
    }); // then by header, as given
    const LivenessFacts live = computeLiveness(f, cfg);
    const std::map<Reg, RegisterBlockSets> sets = perRegisterSets(f, live);
    std::optional<std::pair<Reg, const Loop *>> chosen;
    for (auto it = sets.rbegin(); it != sets.rend() && !chosen; ++it) {
      if (made.count(it->first))
        continue;
      for (const Loop &l : loops.loops)
        if (splittable(it->first, l, f, cfg, live, it->second)) {
          chosen.emplace(it->first, &l);
          break;
        }
    }
    if (!chosen)
      break;
    const auto [v, loop] = *chosen;
    const Reg t = f.newReg(v.file);
    made.insert(t);
    auto &pre = f.blocks[uint32_t(loop->preheader)].instrs;
    const bool endsInControl = !pre.empty() && pre.back().info().is(CONTROL);
    pre.insert(endsInControl ? pre.end() - 1 : pre.end(), splitCopy(t, v));
    for (uint32_t e : loop->exits)
      if (std::binary_search(live.liveIn[e].begin(), live.liveIn[e].end(), v))
        f.blocks[e].instrs.insert(f.blocks[e].instrs.begin(), splitCopy(v, t));
    ++splits;
  }
  return splits;
}

} // namespace ori::reference
