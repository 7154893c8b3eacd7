// Phases 16/33/61/84 OriPerformLiveDead (spec/004; docs/liveness.md), the
// reference way: compute the CFG and global liveness from scratch, remove
// the first dead instruction found, and start again, until none is left.
// An instruction is dead when no register it defines is live just after it
// and it is not kept for its effects (keptWhenDead, ir/facts.h). "Live just
// after" comes from walking the block backwards from its live-out set:
// through each instruction, an unguarded one kills its defs (a guarded def
// may leave the old value), then its uses become live.
//
// Removing a dead instruction never makes anything else live (its defs were
// not live after it), so the order of removals does not matter: every order
// ends with the same instructions, the ones no liveness-based step can
// remove (the optimized half relies on this; docs/liveness.md).
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

// The first dead instruction of the function (blocks in bix order, each
// walked from its end), as (block, index).
std::optional<std::pair<uint32_t, size_t>> firstDeadInstr(const Function &f,
                                                          const LivenessFacts &live) {
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    std::set<Reg> liveNow(live.liveOut[b].begin(), live.liveOut[b].end());
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      const Instr &in = instrs[i];
      bool anyDefLive = false;
      for (Reg r : in.defs())
        anyDefLive = anyDefLive || liveNow.count(r);
      if (!anyDefLive && !keptWhenDead(in))
        return std::make_pair(b, i);
      if (!in.isGuarded())
        for (Reg r : in.defs())
          liveNow.erase(r);
      for (Reg r : in.uses())
        liveNow.insert(r);
    }
  }
  return std::nullopt;
}

// Removes block b, which no label operand or table names (it has no label:
// only fall-through reaches it); later blocks move down by one.
void removeUnnamedBlock(Function &f, uint32_t b) {
  f.blocks.erase(f.blocks.begin() + b);
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label && o.target > b)
          --o.target;
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      if (t > b)
        --t;
}

} // namespace

uint32_t dropEmptyUnlabelledBlocks(Function &f) {
  uint32_t dropped = 0;
  for (uint32_t b = 0; b < f.blocks.size() && f.blocks.size() > 1;) {
    if (!f.blocks[b].instrs.empty() || !f.blocks[b].label.empty()) {
      ++b;
      continue;
    }
    // It falls through to b + 1, which now follows b - 1.
    removeUnnamedBlock(f, b);
    ++dropped;
  }
  return dropped;
}

uint32_t mergeUnlabelledBlocks(Function &f) {
  uint32_t merged = 0;
  for (uint32_t b = uint32_t(f.blocks.size()); b-- > 1;) {
    const Block &prev = f.blocks[b - 1];
    if (!f.blocks[b].label.empty() ||
        (!prev.instrs.empty() && prev.instrs.back().info().is(CONTROL)))
      continue;
    auto &into = f.blocks[b - 1].instrs;
    into.insert(into.end(), f.blocks[b].instrs.begin(), f.blocks[b].instrs.end());
    removeUnnamedBlock(f, b);
    ++merged;
  }
  return merged;
}

uint32_t oriPerformLiveDead(Function &f) {
  uint32_t removed = 0;
  for (;;) {
    const LivenessFacts live = computeLiveness(f, computeCfg(f));
    const auto dead = firstDeadInstr(f, live);
    if (!dead)
      break;
    auto &instrs = f.blocks[dead->first].instrs;
    instrs.erase(instrs.begin() + std::ptrdiff_t(dead->second));
    ++removed;
  }
  dropEmptyUnlabelledBlocks(f);
  return removed;
}

} // namespace ori::reference
