// Phase 6 SetControlFlowOpLastInBB (spec/000 "Phase 6"), the reference way:
// find the first control-flow instruction (CONTROL in the opcode table: BRA,
// BRX, EXIT, RET, CALL) that is not last in its block, split the block after
// it, renumber every label operand and jump table, and start again from the
// new block.
//
// The new block follows its parent, so fall-through is unchanged, and labels
// keep naming the first piece, where the labelled code starts (spec/000 "CFG
// Update Protocol": successors move to the new block, the parent's only
// successor is the new one unless its control flow goes elsewhere; our CFG is
// recomputed from the instructions, so renumbering is all there is to keep
// consistent). It gets a fresh label, the first of L_split0, L_split1, ...
// that no label or register name of the function uses, and the label id of
// its first instruction: the parent's id + 0x10 x that instruction's index in
// the parent (the parser's rule, docs/ori-format.md section 5, exact while the
// parent is as it was read).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

// Index of the first control-flow instruction that is not last, if any.
std::optional<size_t> controlFlowNotLast(const Block &b) {
  for (size_t i = 0; i + 1 < b.instrs.size(); ++i)
    if (b.instrs[i].info().is(CONTROL))
      return i;
  return std::nullopt;
}

// Shifts every reference to a block after `b` up by one (a block was inserted at b + 1).
void shiftTargetsAfter(Function &f, uint32_t b) {
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label && o.target > b)
          ++o.target;
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      if (t > b)
        ++t;
}

} // namespace

uint32_t setControlFlowOpLastInBB(Function &f) {
  std::set<std::string> names;
  for (const Block &b : f.blocks)
    names.insert(b.label);
  for (const auto &[reg, name] : f.regNames)
    names.insert(name);
  uint32_t nextName = 0, splits = 0;

  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    const std::optional<size_t> cf = controlFlowNotLast(f.blocks[b]);
    if (!cf)
      continue;
    const size_t firstMoved = *cf + 1;
    Block piece;
    while (names.count("L_split" + std::to_string(nextName)))
      ++nextName;
    piece.label = "L_split" + std::to_string(nextName++);
    names.insert(piece.label);
    piece.labelId = f.blocks[b].labelId + 0x10u * uint32_t(firstMoved);
    shiftTargetsAfter(f, b); // before moving: the moved instructions may name blocks too
    auto &instrs = f.blocks[b].instrs;
    piece.instrs.assign(instrs.begin() + std::ptrdiff_t(firstMoved), instrs.end());
    instrs.erase(instrs.begin() + std::ptrdiff_t(firstMoved), instrs.end());
    f.blocks.insert(f.blocks.begin() + b + 1, std::move(piece));
    ++splits; // the loop goes on with the new block, which may need splitting again
  }
  return splits;
}

} // namespace ori::reference
