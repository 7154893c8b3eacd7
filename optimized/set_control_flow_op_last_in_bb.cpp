// Phase 6 SetControlFlowOpLastInBB (spec/000 "Phase 6") in one pass: every
// block is cut after each control-flow instruction that is not last, the
// pieces are moved into a new block array in order, and labels and jump
// tables are renumbered once through an old -> new index map (a label names
// the first piece). Fresh labels and label ids follow the rules of
// reference/set_control_flow_op_last_in_bb.cpp.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {

uint32_t setControlFlowOpLastInBB(Function &f) {
  const uint32_t n = uint32_t(f.blocks.size());
  // Pieces per block: 1 + the control-flow instructions that are not last.
  std::vector<uint32_t> newIndex(n);
  uint32_t total = 0;
  for (uint32_t b = 0; b < n; ++b) {
    newIndex[b] = total++;
    const std::vector<Instr> &instrs = f.blocks[b].instrs;
    for (size_t i = 0; i + 1 < instrs.size(); ++i)
      total += instrs[i].info().is(CONTROL) ? 1 : 0;
  }
  const uint32_t splits = total - n;
  if (splits == 0)
    return 0;

  std::unordered_set<std::string> names;
  names.reserve(size_t(n) + f.regNames.size());
  for (const Block &b : f.blocks)
    names.insert(b.label);
  for (const auto &[reg, name] : f.regNames)
    names.insert(name);
  uint32_t nextName = 0;
  auto freshLabel = [&] {
    std::string name;
    do
      name = "L_split" + std::to_string(nextName++);
    while (names.count(name));
    return name;
  };

  std::vector<Block> out;
  out.reserve(total);
  for (uint32_t b = 0; b < n; ++b) {
    std::vector<Instr> instrs = std::move(f.blocks[b].instrs);
    const uint32_t labelId = f.blocks[b].labelId;
    Block *piece = &out.emplace_back(std::move(f.blocks[b])); // the head keeps label and id
    piece->instrs.clear();
    for (size_t i = 0; i < instrs.size(); ++i) {
      piece->instrs.push_back(std::move(instrs[i]));
      if (i + 1 < instrs.size() && piece->instrs.back().info().is(CONTROL)) {
        Block next;
        next.label = freshLabel();
        next.labelId = labelId + 0x10u * uint32_t(i + 1); // its first instruction's source index
        piece = &out.emplace_back(std::move(next));
      }
    }
  }
  for (Block &blk : out)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = newIndex[t];
  f.blocks = std::move(out);
  return splits;
}

} // namespace ori::optimized
