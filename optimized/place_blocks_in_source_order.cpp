// Phase 112 PlaceBlocksInSourceOrder (spec/000 "Block Layout") and
// reorderBlocks: the rules of reference/place_blocks_in_source_order.cpp
// (bix 0 first, the rest stably by label id; BRAs added where a fall-through
// breaks, removed where a jump became a fall-through; L_place<k> labels for
// new targets), with blocks moved rather than copied, flat arrays instead of
// sets, and one renumbering pass.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "optimized/optimized.h"
#include "rules/place_blocks_in_source_order.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

Instr branchTo(uint32_t bix) {
  Instr bra;
  bra.op = Opcode::BRA;
  bra.srcs.push_back(Operand::label(bix));
  return bra;
}

} // namespace

bool reorderBlocks(Function &f, const std::vector<uint32_t> &order) {
  const uint32_t n = uint32_t(f.blocks.size());
  if (order.size() != n || (n > 0 && order[0] != 0))
    return false;
  {
    std::vector<uint8_t> seen(n, 0);
    bool identity = true;
    for (uint32_t p = 0; p < n; ++p) {
      if (order[p] >= n || seen[order[p]])
        return false;
      seen[order[p]] = 1;
      identity = identity && order[p] == p;
    }
    if (identity)
      return false;
  }

  // Old fall-through target of each block (kNone if it does not fall through).
  std::vector<uint32_t> fallThrough(n, kNone);
  for (uint32_t b = 0; b + 1 < n; ++b) {
    const std::vector<Instr> &instrs = f.blocks[b].instrs;
    if (instrs.empty() || !instrs.back().info().is(TERMINATOR) || instrs.back().isGuarded())
      fallThrough[b] = b + 1;
  }
  std::vector<uint8_t> needLabel(n, 0);
  for (uint32_t p = 0; p < n; ++p) {
    const uint32_t ft = fallThrough[order[p]];
    if (ft != kNone && ft != (p + 1 < n ? order[p + 1] : kNone))
      needLabel[ft] = 1;
  }

  std::vector<Block> out;
  out.reserve(size_t(n) + n / 8);
  std::vector<uint32_t> newIndex(n, kNone);
  for (uint32_t p = 0; p < n; ++p) {
    const uint32_t ob = order[p];
    const uint32_t next = p + 1 < n ? order[p + 1] : kNone;
    const uint32_t oldNext = ob + 1 < n ? ob + 1 : kNone;
    Block b = std::move(f.blocks[ob]);
    const uint32_t ft = fallThrough[ob];
    if (ft != kNone && ft != next) {
      if (!b.instrs.empty() && b.instrs.back().info().is(CONTROL)) {
        Block jump;
        jump.labelId = b.labelId;
        jump.instrs.push_back(branchTo(ft));
        newIndex[ob] = uint32_t(out.size());
        out.push_back(std::move(b));
        out.push_back(std::move(jump));
        continue;
      }
      b.instrs.push_back(branchTo(ft));
    } else if (!b.instrs.empty() && b.instrs.back().op == Opcode::BRA &&
               !b.instrs.back().isGuarded() && b.instrs.back().srcs[0].target == next &&
               next != oldNext) {
      b.instrs.pop_back();
      if (b.instrs.empty() && b.label.empty() && !needLabel[ob])
        continue; // dropped: falls into next
    }
    newIndex[ob] = uint32_t(out.size());
    out.push_back(std::move(b));
  }

  std::vector<uint8_t> wantsLabel(out.size(), 0);
  bool anyNewLabel = false;
  for (uint32_t b = 0; b < n; ++b)
    if (needLabel[b] && out[newIndex[b]].label.empty()) {
      wantsLabel[newIndex[b]] = 1;
      anyNewLabel = true;
    }
  std::unordered_set<std::string> names; // only needed when a label is made
  if (anyNewLabel) {
    for (const Block &b : out)
      names.insert(b.label);
    for (const auto &[reg, name] : f.regNames)
      names.insert(name);
  }
  uint32_t nextName = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    Block &blk = out[i];
    if (wantsLabel[i]) {
      std::string name;
      do
        name = "L_place" + std::to_string(nextName++);
      while (names.count(name));
      blk.label = std::move(name);
    }
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
  }
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  f.blocks = std::move(out);
  return true;
}

bool placeBlocksInSourceOrder(Function &f) { return reorderBlocks(f, sourceOrder(f)); }

} // namespace ori::optimized
