// Tail merging (rules/tail_merge.h), the fast way: each candidate block's instructions hashed
// (FNV-1a over opcodes and operands; fnv_map.h), so a block is compared in full only with the
// earlier candidates of its hash. Rounds until none merges, as the reference does; the first
// equal block of a bucket is the first equal block in the layout, as there.
#include "optimized/fnv_map.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

uint32_t mix(uint32_t h, uint64_t v) {
  for (int k = 0; k < 8; ++k)
    h = kFnvPrime * (h ^ uint32_t((v >> (8 * k)) & 0xFFu));
  return h;
}

uint32_t operandHash(uint32_t h, const Operand &o) {
  h = mix(h, uint64_t(o.kind) | uint64_t(o.neg) << 8 | uint64_t(o.abs) << 9 |
                 uint64_t(o.hasReg) << 10 | uint64_t(o.reg.file) << 16 | uint64_t(o.reg.num) << 32);
  switch (o.kind) {
  case Operand::Kind::Imm:
  case Operand::Kind::CBank:
  case Operand::Kind::Mem:
    return mix(h, uint64_t(o.imm));
  case Operand::Kind::Label:
  case Operand::Kind::JumpTable:
    return mix(h, o.target);
  default:
    return h; // the rest is left to the full comparison
  }
}

uint32_t blockHash(const Block &b) {
  uint32_t h = mix(kFnvOffsetBasis, b.instrs.size());
  for (const Instr &in : b.instrs) {
    h = mix(h, uint64_t(in.op) | uint64_t(in.dsts.size()) << 16 | uint64_t(in.srcs.size()) << 24);
    for (const Operand &o : in.dsts)
      h = operandHash(h, o);
    for (const Operand &o : in.srcs)
      h = operandHash(h, o);
  }
  return h;
}

} // namespace

uint32_t tailMerge(Function &f) {
  uint32_t total = 0;
  for (;;) {
    const std::vector<bool> removable = tailMergeRemovable(f);
    std::vector<uint32_t> into(f.blocks.size(), kNotMerged);
    FnvMap<std::vector<uint32_t>> firstOfHash; // hash -> the first block of each content
    bool any = false;
    for (uint32_t y = 0; y < f.blocks.size(); ++y) {
      if (!isTailMergeCandidate(f.blocks[y]))
        continue;
      std::vector<uint32_t> &seen = firstOfHash[blockHash(f.blocks[y])];
      uint32_t equal = kNotMerged;
      for (uint32_t x : seen)
        if (f.blocks[x].instrs == f.blocks[y].instrs) {
          equal = x;
          break;
        }
      if (equal == kNotMerged)
        seen.push_back(y);
      else if (removable[y]) {
        into[y] = equal;
        any = true;
      }
    }
    if (!any)
      return total;
    total += mergeBlocksInto(f, into);
  }
}

} // namespace ori::optimized
