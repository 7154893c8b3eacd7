// Tail merging (rules/tail_merge.h): what a merged block may hold, which blocks may go, and the
// redirection and renumbering once the halves have chosen.
#include "rules/tail_merge.h"

#include "ir/opcodes.h"

namespace ori {

bool isTailMergeSafe(const Instr &in) {
  const OpInfo &info = in.info();
  if (info.is(TERMINATOR))
    return true;
  if (info.is(CONVERGENCE) || info.is(BARRIER) || info.is(CALL_) || in.op == Opcode::OPAQUE)
    return false;
  // What else must not be deleted is a warp-level instruction (VOTE, SHFL, MATCH, REDUX, ELECT:
  // their results depend on the lanes that run them together) unless it is a memory access,
  // which is per thread.
  return !info.is(SIDE_EFFECT) || info.is(MEMORY);
}

bool isTailMergeCandidate(const Block &b) {
  if (b.instrs.empty())
    return false;
  const Instr &last = b.instrs.back();
  if (!last.info().is(TERMINATOR) || last.isGuarded())
    return false;
  for (const Instr &in : b.instrs)
    if (!isTailMergeSafe(in))
      return false;
  return true;
}

std::vector<bool> tailMergeRemovable(const Function &f) {
  const size_t n = f.blocks.size();
  std::vector<bool> removable(n, true);
  if (n)
    removable[0] = false;
  for (size_t b = 1; b < n; ++b) {
    const std::vector<Instr> &prev = f.blocks[b - 1].instrs;
    const bool fallsIn =
        prev.empty() || !prev.back().info().is(TERMINATOR) || prev.back().isGuarded();
    if (fallsIn)
      removable[b] = false;
  }
  for (const Block &blk : f.blocks)
    for (const Instr &in : blk.instrs)
      if (!in.info().is(BRANCH))
        for (const Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label && o.target < n)
            removable[o.target] = false; // a BSSY's reconvergence point stays
  return removable;
}

uint32_t mergeBlocksInto(Function &f, const std::vector<uint32_t> &into) {
  const size_t n = f.blocks.size();
  std::vector<uint32_t> newIndex(n);
  std::vector<Block> kept;
  uint32_t merged = 0;
  for (size_t b = 0; b < n; ++b) {
    if (into[b] != kNotMerged) {
      ++merged;
      continue;
    }
    newIndex[b] = uint32_t(kept.size());
    kept.push_back(std::move(f.blocks[b]));
  }
  if (!merged) {
    f.blocks = std::move(kept);
    return 0;
  }
  auto renumber = [&](uint32_t t) { return newIndex[into[t] != kNotMerged ? into[t] : t]; };
  for (Block &blk : kept)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = renumber(o.target);
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = renumber(t);
  f.blocks = std::move(kept);
  return merged;
}

} // namespace ori
