// Phase 112 PlaceBlocksInSourceOrder (spec/000 "Block Layout"), the
// reference way, and reorderBlocks, the layout change it is made of.
//
// Source order is label-id order: the label id is 0x10 x the source index of
// the block's first instruction (docs/ori-format.md section 5). bix 0 stays
// first (execution starts there); the other blocks are sorted by label id,
// blocks with equal ids keeping their current relative order. Blocks passes
// create carry an id that puts them where they belong: phase 6's pieces the
// id of their first instruction, the BRA blocks added below the id of the
// block they follow, so they stay right after it.
//
// reorderBlocks keeps behaviour by keeping every block's continuation:
//  - a block that falls through (empty, last instruction not a terminator,
//    CALL, or a guarded terminator) to a block that no longer follows it gets
//    `BRA next`: appended when its last instruction is not control flow, else
//    in a new unlabelled block right after it (control flow stays last);
//  - an unguarded `BRA T` at the end of a block that T now follows, and did
//    not follow before, is removed (the block falls into T); a block left
//    empty and unlabelled by that is dropped (nothing names it, unless an
//    added BRA is about to: then it stays, labelled, and falls into T);
//  - a block that now needs a label as a BRA target gets the first unused of
//    L_place0, L_place1, ..., handed out in the new block order.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reference/reference.h"
#include "rules/place_blocks_in_source_order.h"

namespace ori::reference {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

bool fallsThrough(const Block &b) {
  if (b.instrs.empty())
    return true;
  const Instr &last = b.instrs.back();
  return !last.info().is(TERMINATOR) || last.isGuarded();
}

bool endsInControlFlow(const Block &b) {
  return !b.instrs.empty() && b.instrs.back().info().is(CONTROL);
}

Instr branchTo(uint32_t bix) {
  Instr bra;
  bra.op = Opcode::BRA;
  bra.srcs.push_back(Operand::label(bix));
  return bra;
}

bool isPermutationFromEntry(const std::vector<uint32_t> &order, size_t n) {
  if (order.size() != n || (n > 0 && order[0] != 0))
    return false;
  std::set<uint32_t> seen(order.begin(), order.end());
  return seen.size() == n && (n == 0 || *seen.rbegin() == n - 1);
}

} // namespace

bool reorderBlocks(Function &f, const std::vector<uint32_t> &order) {
  const size_t n = f.blocks.size();
  if (!isPermutationFromEntry(order, n))
    return false;
  bool identity = true;
  for (size_t p = 0; p < n; ++p)
    identity = identity && order[p] == p;
  if (identity)
    return false;

  // The block each old block falls through to, if it falls through, and the
  // block after it in the new order.
  // kNone: there is no such block.
  auto nextInOrder = [&](size_t p) { return p + 1 < n ? order[p + 1] : kNone; };
  auto fallThroughOf = [&](uint32_t ob) {
    return fallsThrough(f.blocks[ob]) && ob + 1 < n ? ob + 1 : kNone;
  };
  std::set<uint32_t> needLabel; // old bixes that become targets of added BRAs
  for (size_t p = 0; p < n; ++p)
    if (uint32_t ft = fallThroughOf(order[p]); ft != kNone && ft != nextInOrder(p))
      needLabel.insert(ft);

  // Built with block references in old bix numbers; renumbered at the end.
  struct Placed {
    Block block;
    std::optional<uint32_t> oldBix; // none: a BRA block added here
  };
  std::vector<Placed> placed;
  for (size_t p = 0; p < n; ++p) {
    const uint32_t ob = order[p];
    const uint32_t next = nextInOrder(p);
    const uint32_t oldNext = ob + 1 < n ? ob + 1 : kNone;
    const uint32_t ft = fallThroughOf(ob);
    Block b = f.blocks[ob];
    if (ft != kNone && ft != next) {
      if (endsInControlFlow(b)) {
        placed.push_back({b, ob});
        Block jump;
        jump.labelId = b.labelId;
        jump.instrs.push_back(branchTo(ft));
        placed.push_back({jump, std::nullopt});
        continue;
      }
      b.instrs.push_back(branchTo(ft));
    } else if (!b.instrs.empty() && b.instrs.back().op == Opcode::BRA &&
               !b.instrs.back().isGuarded() && b.instrs.back().srcs.at(0).target == next &&
               next != oldNext) {
      b.instrs.pop_back();
      if (b.instrs.empty() && b.label.empty() && !needLabel.count(ob))
        continue; // dropped: nothing names it, and control falls into `next` as it jumped there
    }
    placed.push_back({b, ob});
  }

  std::vector<uint32_t> newIndex(n, 0);
  for (size_t i = 0; i < placed.size(); ++i)
    if (placed[i].oldBix)
      newIndex[*placed[i].oldBix] = uint32_t(i);
  std::set<std::string> names;
  for (const Block &b : f.blocks)
    names.insert(b.label);
  for (const auto &[reg, name] : f.regNames)
    names.insert(name);
  uint32_t nextName = 0;
  f.blocks.clear();
  for (Placed &pl : placed) {
    if (pl.oldBix && needLabel.count(*pl.oldBix) && pl.block.label.empty()) {
      while (names.count("L_place" + std::to_string(nextName)))
        ++nextName;
      pl.block.label = "L_place" + std::to_string(nextName++);
    }
    for (Instr &in : pl.block.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
    f.blocks.push_back(std::move(pl.block));
  }
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  return true;
}

bool placeBlocksInSourceOrder(Function &f) { return reorderBlocks(f, sourceOrder(f)); }

} // namespace ori::reference
