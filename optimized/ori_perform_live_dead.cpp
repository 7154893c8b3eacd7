// Phases 16/33/61/84 OriPerformLiveDead (spec/004 "DCE Integration";
// docs/liveness.md), the optimized way. The CFG is computed once (DCE never
// removes control flow). Each round computes global liveness (the bitvector
// solver of optimized/liveness.cpp), then walks every block backwards from
// its live-out, as the spec does: an instruction whose defs are all dead and
// that keptWhenDead (ir/facts.h) lets go is removed and its uses are not
// added to the live set, so a chain of dead instructions inside the block
// goes in the same walk; a kept instruction kills its defs (unguarded only)
// and makes its uses live.
//
// The spec walks each block once, which leaves a value whose only reader was
// removed in a later block (cross-block cascades). So blocks are walked from
// a worklist in postorder: when a walk shrinks a block's live-in, its
// predecessors are walked again with live-outs taken from the shrunken
// live-ins. Those sets only shrink from a solution of the equations, so they
// stay above the true liveness: every removal is sound. A shrink that liveness
// around a loop would allow is only found from fresh liveness, so rounds
// repeat until one removes nothing. The result is the reference's (removal
// order does not matter, reference/ori_perform_live_dead.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "optimized/liveness_solver.h"
#include "optimized/optimized.h"
#include "optimized/reg_index.h"

namespace ori::optimized {

namespace {

constexpr uint32_t kLocal = UINT32_MAX; // liveAcrossSlots: a register live into no block

// computeLiveness's LiveIn of every block into `sets`, on the registers as
// `all` numbers them (one set for every file, as the walk below wants them),
// without reading the IR again: gen and kill from the instructions' registers,
// then the bitvector solver. The equations are computeLiveness's, so is the
// answer. Every set of `sets` is made anew.
void solveLiveIn(const FunctionRegs &all, const std::vector<uint32_t> &slot, const CfgFacts &cfg,
                 const std::vector<uint32_t> &order, LivenessSets &sets) {
  const auto &regs = all.blocks;
  for (uint32_t b = 0; b < regs.size(); ++b) {
    uint32_t *gen = sets.gen(b), *kill = sets.kill(b);
    std::memset(gen, 0,
                4 * size_t(sets.words()) * sizeof(uint32_t)); // gen, kill, in, out side by side
    for (size_t i = regs[b].size(); i-- > 0;) {
      const InstrRegs &r = regs[b][i];
      const uint32_t *defs = all.defs(r);
      const uint32_t *uses = all.uses(r);
      if (!r.guarded)
        for (uint32_t k = 0; k < r.defs; ++k)
          if (const uint32_t g = slot[defs[k]]; g != kLocal) {
            clearBit(gen, g);
            setBit(kill, g);
          }
      for (uint32_t k = 0; k < r.uses; ++k)
        if (const uint32_t g = slot[uses[k]]; g != kLocal)
          setBit(gen, g);
    }
  }
  solveLiveness(sets, cfg, order);
}

// Each register's bit in the liveness sets, or kLocal. A register that no
// block reads before writing it (unguarded) there is live into no block (the
// least solution of the equations), so its liveness never leaves a block and
// it needs no bit: the walk tracks it alone. In nvcc's PTX most registers are
// such temporaries (hashcat's kernels: about 400 of 6,000 per function are
// live into a block), and the sets are blocks x bits. Removing instructions
// never makes a read exposed (a write is removed only when nothing reads it
// before the next write), so the slots hold for every round.
std::vector<uint32_t> liveAcrossSlots(const FunctionRegs &all, uint32_t &count) {
  std::vector<uint32_t> writtenIn(all.index.size(), 0), slot(all.index.size(), kLocal);
  count = 0;
  for (uint32_t b = 0; b < all.blocks.size(); ++b)
    for (const InstrRegs &r : all.blocks[b]) {
      const uint32_t *uses = all.uses(r);
      for (uint32_t k = 0; k < r.uses; ++k)
        if (writtenIn[uses[k]] != b + 1 && slot[uses[k]] == kLocal)
          slot[uses[k]] = count++;
      if (!r.guarded)
        for (uint32_t k = 0; k < r.defs; ++k)
          writtenIn[all.defs(r)[k]] = b + 1;
    }
  return slot;
}

} // namespace

uint32_t oriPerformLiveDead(Function &f) {
  const size_t n = f.blocks.size();
  if (n == 0)
    return 0;
  const CfgFacts cfg = computeCfg(f);
  FunctionRegs all = functionRegs(f);
  auto &regs = all.blocks;

  const std::vector<uint32_t> order = solverOrder(cfg); // postorder, then the unreachable blocks

  uint32_t removed = 0;
  // The walk shrinks each block's LiveIn in place, in the solver's sets: one
  // arena for the function rather than a heap object per block (in the
  // pipeline at 1M instructions, each of phases 16/33/61/84 went from about
  // 150 to 110 ns per instruction: docs/performance.md, "Heap objects per block").
  uint32_t across = 0;
  const std::vector<uint32_t> slot = liveAcrossSlots(all, across);
  LivenessSets sets(uint32_t(n), across);
  const size_t words = sets.words();
  std::vector<uint32_t> live(words);
  // The registers without a slot: live in the walk of block b when liveStamp is its stamp.
  std::vector<uint32_t> liveStamp(all.index.size(), 0);
  uint32_t stamp = 0;
  auto isLive = [&](uint32_t r) {
    return slot[r] != kLocal ? testBit(live.data(), slot[r]) : liveStamp[r] == stamp;
  };
  auto makeDead = [&](uint32_t r) {
    if (slot[r] != kLocal)
      clearBit(live.data(), slot[r]);
    else
      liveStamp[r] = 0;
  };
  auto makeLive = [&](uint32_t r) {
    if (slot[r] != kLocal)
      setBit(live.data(), slot[r]);
    else
      liveStamp[r] = stamp;
  };
  std::vector<char> queued(n, 0), dead;
  std::vector<uint32_t> work; // first in, first out: work[head] is next
  work.reserve(n);
  for (uint32_t roundRemoved = 1; roundRemoved;) {
    roundRemoved = 0;
    solveLiveIn(all, slot, cfg, order, sets);
    work.assign(order.begin(), order.end());
    std::fill(queued.begin(), queued.end(), 1);
    for (size_t head = 0; head < work.size(); ++head) {
      const uint32_t b = work[head];
      queued[b] = 0;
      ++stamp;
      std::fill(live.begin(), live.end(), 0);
      for (uint32_t s : cfg.succs[b]) {
        const uint32_t *in = sets.in(s);
        for (size_t w = 0; w < words; ++w)
          live[w] |= in[w];
      }
      auto &instrs = regs[b];
      dead.assign(instrs.size(), 0);
      bool any = false;
      for (size_t i = instrs.size(); i-- > 0;) {
        const InstrRegs &r = instrs[i];
        const uint32_t *defs = all.defs(r);
        const uint32_t *uses = all.uses(r);
        bool anyDefLive = false;
        for (uint32_t k = 0; k < r.defs; ++k)
          anyDefLive = anyDefLive || isLive(defs[k]);
        if (!anyDefLive && !r.kept) {
          dead[i] = any = true;
          continue;
        }
        if (!r.guarded)
          for (uint32_t k = 0; k < r.defs; ++k)
            makeDead(defs[k]);
        for (uint32_t k = 0; k < r.uses; ++k)
          makeLive(uses[k]);
      }
      if (any) {
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
        roundRemoved += uint32_t(instrs.size() - k);
        code.resize(k);
        instrs.resize(k);
      }
      uint32_t *in = sets.in(b);
      if (!std::equal(live.begin(), live.end(), in)) {
        std::copy(live.begin(), live.end(), in);
        for (uint32_t p : cfg.preds[b])
          if (!queued[p]) {
            queued[p] = 1;
            work.push_back(p);
          }
      }
    }
    removed += roundRemoved;
  }
  dropEmptyUnlabelledBlocks(f);
  return removed;
}

uint32_t dropEmptyUnlabelledBlocks(Function &f) {
  // One pass: new index of every block, then renumber the targets once.
  const size_t n = f.blocks.size();
  std::vector<uint32_t> newIndex(n);
  size_t kept = 0;
  for (size_t b = 0; b < n; ++b) {
    const bool drop =
        f.blocks[b].instrs.empty() && f.blocks[b].label.empty() && !(kept == 0 && b + 1 == n);
    newIndex[b] = uint32_t(kept); // a dropped block has no label: nothing targets it
    if (drop)
      continue;
    if (kept != b)
      f.blocks[kept] = std::move(f.blocks[b]);
    ++kept;
  }
  if (kept == n)
    return 0;
  f.blocks.resize(kept);
  auto renumber = [&](uint32_t &t) { t = t < n ? newIndex[t] : t - uint32_t(n - kept); };
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          renumber(o.target);
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      renumber(t);
  return uint32_t(n - kept);
}

uint32_t mergeUnlabelledBlocks(Function &f) {
  // One pass: each block either moves down or joins the block kept before it.
  const size_t n = f.blocks.size();
  std::vector<uint32_t> newIndex(n);
  size_t kept = 0;
  for (size_t b = 0; b < n; ++b) {
    Block &blk = f.blocks[b];
    const bool join =
        kept > 0 && blk.label.empty() &&
        (f.blocks[kept - 1].instrs.empty() || !f.blocks[kept - 1].instrs.back().info().is(CONTROL));
    if (join) {
      auto &into = f.blocks[kept - 1].instrs;
      into.insert(into.end(), std::make_move_iterator(blk.instrs.begin()),
                  std::make_move_iterator(blk.instrs.end()));
      newIndex[b] = uint32_t(kept - 1); // never a target: it has no label
      continue;
    }
    newIndex[b] = uint32_t(kept);
    if (kept != b)
      f.blocks[kept] = std::move(blk);
    ++kept;
  }
  if (kept == n)
    return 0;
  f.blocks.resize(kept);
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  return uint32_t(n - kept);
}

} // namespace ori::optimized
