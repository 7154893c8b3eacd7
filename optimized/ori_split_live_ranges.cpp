// Phase 19 OriSplitLiveRanges (spec/004 "Phase 19"; docs/liveness.md), the
// optimized way: the rules and order of reference/ori_split_live_ranges.cpp
// in one pass over analyses computed once.
//
// Candidates are the R/UR registers live-in at some loop header. Each gets
// spec/004's three per-register bitvectors, indexed by block: kill (blocks
// defining it), gen (blocks reading it) and live-through (live in and out,
// neither defined nor read), plus untouched = ~(kill | gen). v is split at
// loop L when L's header is in live-through(v) and L's body bitvector
// isSubsetOf untouched(v) (spec/004's sub_BDC390 test), with the loop's
// structural conditions (a preheader whose only successor is the header,
// exits that only the body enters) checked once per loop.
//
// One pass is enough: a split only changes the copied register's liveness,
// and only inside the loop (where it becomes dead: nested loops are then
// skipped for it) and in the preheader and exits, which lie in no other loop
// the same register could still be split at. The copies' registers are new
// and never candidates.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "optimized/bitvector.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

struct LoopShape {
  const Loop *loop = nullptr;
  BitVector body;         // over blocks
  bool canonical = false; // header not bix0, preheader with the header as only successor
  std::vector<char> exitEnteredOnlyFromBody; // parallel to loop->exits; bix0 never qualifies
};

struct RegisterBlockSets {
  BitVector kill, gen, liveThrough, untouched;
};

bool liveIn(const LivenessFacts &live, uint32_t b, Reg r) {
  return std::binary_search(live.liveIn[b].begin(), live.liveIn[b].end(), r);
}

} // namespace

uint32_t oriSplitLiveRanges(Function &f) {
  if (f.isDeclaration())
    return 0;
  const uint32_t n = uint32_t(f.blocks.size());
  for (const Block &b : f.blocks) // registers at or above nextReg would clash with new ones
    for (const Instr &in : b.instrs) {
      auto note = [&](Reg r) {
        f.nextReg[size_t(r.file)] = std::max(f.nextReg[size_t(r.file)], r.num + 1);
      };
      forEachDef(in, note);
      forEachUse(in, note);
    }

  const CfgFacts cfg = computeCfg(f);
  LoopFacts loops = computeLoops(f, cfg, computeDominators(f, cfg));
  if (loops.loops.empty())
    return 0;
  std::stable_sort(loops.loops.begin(), loops.loops.end(),
                   [](const Loop &a, const Loop &b) { return a.depth < b.depth; });
  const LivenessFacts live = computeLiveness(f, cfg);

  std::vector<LoopShape> shapes(loops.loops.size());
  std::vector<Reg> candidates;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Loop &l = loops.loops[k];
    LoopShape &s = shapes[k];
    s.loop = &l;
    s.body = BitVector(n);
    for (uint32_t b : l.body)
      s.body.setBit(b);
    s.canonical = l.header != 0 && l.preheader != kNoBlock &&
                  std::ranges::equal(cfg.succs[uint32_t(l.preheader)], std::array{l.header});
    for (uint32_t e : l.exits) {
      bool only = e != 0;
      for (uint32_t p : cfg.preds[e])
        only = only && s.body.testBit(p);
      s.exitEnteredOnlyFromBody.push_back(only);
    }
    if (s.canonical)
      for (Reg r : live.liveIn[l.header])
        if (r.file == RegFile::R || r.file == RegFile::UR)
          candidates.push_back(r);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  if (candidates.empty())
    return 0;
  auto candidateIndex = [&](Reg r) -> int64_t {
    auto it = std::lower_bound(candidates.begin(), candidates.end(), r);
    return it != candidates.end() && *it == r ? it - candidates.begin() : -1;
  };

  std::vector<RegisterBlockSets> sets(candidates.size());
  for (RegisterBlockSets &s : sets)
    s.kill = s.gen = s.liveThrough = BitVector(n);
  for (uint32_t b = 0; b < n; ++b)
    for (const Instr &in : f.blocks[b].instrs) {
      forEachDef(in, [&](Reg r) {
        if (int64_t c = candidateIndex(r); c >= 0)
          sets[size_t(c)].kill.setBit(b);
      });
      forEachUse(in, [&](Reg r) {
        if (int64_t c = candidateIndex(r); c >= 0)
          sets[size_t(c)].gen.setBit(b);
      });
    }
  BitVector allBlocks(n);
  for (uint32_t b = 0; b < n; ++b)
    allBlocks.setBit(b);
  for (RegisterBlockSets &s : sets) {
    s.untouched = s.kill;
    s.untouched |= s.gen;
    s.untouched ^= allBlocks;
  }
  for (uint32_t b = 0; b < n; ++b)
    for (Reg r : live.liveIn[b])
      if (int64_t c = candidateIndex(r);
          c >= 0 && sets[size_t(c)].untouched.testBit(b) &&
          std::binary_search(live.liveOut[b].begin(), live.liveOut[b].end(), r))
        sets[size_t(c)].liveThrough.setBit(b);

  uint32_t splits = 0;
  std::vector<const LoopShape *> splitAt; // loops the current register was split at
  for (size_t c = candidates.size(); c-- > 0;) {
    const Reg v = candidates[c];
    const RegisterBlockSets &s = sets[c];
    splitAt.clear();
    for (const LoopShape &shape : shapes) {
      const Loop &l = *shape.loop;
      if (!shape.canonical || !s.liveThrough.testBit(l.header) ||
          !shape.body.isSubsetOf(s.untouched))
        continue;
      if (std::any_of(splitAt.begin(), splitAt.end(),
                      [&](const LoopShape *o) { return o->body.testBit(l.header); }))
        continue; // inside a loop v was split at: v is no longer live here
      bool exitsOk = true;
      for (size_t k = 0; k < l.exits.size() && exitsOk; ++k)
        exitsOk = shape.exitEnteredOnlyFromBody[k] || !liveIn(live, l.exits[k], v);
      if (!exitsOk || f.nextReg[size_t(v.file)] >= Reg::kConst)
        continue;
      const Reg t = f.newReg(v.file);
      auto &pre = f.blocks[uint32_t(l.preheader)].instrs;
      const bool endsInControl = !pre.empty() && pre.back().info().is(CONTROL);
      pre.insert(endsInControl ? pre.end() - 1 : pre.end(), splitCopy(t, v));
      for (uint32_t e : l.exits)
        if (liveIn(live, e, v))
          f.blocks[e].instrs.insert(f.blocks[e].instrs.begin(), splitCopy(v, t));
      splitAt.push_back(&shape);
      ++splits;
    }
  }
  return splits;
}

} // namespace ori::optimized
