// Unreachable-block erase (spec/003 OriBranchOpt "Transformation 2") in
// place: a breadth-first walk marks what bix 0 reaches along CFG edges and
// label operands, the kept blocks slide down, and one pass renumbers labels
// and jump tables. The rules (which blocks stay, why no BRA is needed, which
// tables go) are those of reference/erase_unreachable_blocks.cpp. Plus
// sub_BDE6C0's RPO slot assignment as spec/003 documents it, with the
// recursion on an explicit stack.
#include <cstdint>
#include <span>
#include <vector>

#include "optimized/optimized.h"
#include "optimized/prefetch.h"

namespace ori::optimized {

std::vector<uint32_t> eraseUnreachableBlocks(Function &f) {
  const uint32_t n = uint32_t(f.blocks.size());
  std::vector<uint32_t> erased;
  if (n == 0)
    return erased;
  std::vector<uint8_t> reach(n, 0);
  std::vector<uint32_t> work, succs, seen(n, 0);
  work.reserve(n); // at most every block, once: no regrowth copies on a big function
  work.push_back(0);
  reach[0] = 1;
  // First in, first out: a block is read a while after it was found, so its
  // instructions are asked for when it is found.
  auto visit = [&](uint32_t s) {
    if (s < n && !reach[s]) {
      reach[s] = 1;
      work.push_back(s);
      prefetchBlock(f, s);
    }
  };
  for (size_t head = 0; head < work.size(); ++head) {
    const uint32_t b = work[head];
    succs.clear();
    appendSuccessors(f, b, succs, seen);
    for (uint32_t s : succs)
      visit(s);
    for (const Instr &in : f.blocks[b].instrs)
      for (const Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          visit(o.target);
  }

  std::vector<uint32_t> newIndex(n, UINT32_MAX);
  uint32_t kept = 0;
  for (uint32_t b = 0; b < n; ++b) {
    if (!reach[b]) {
      erased.push_back(b);
      continue;
    }
    newIndex[b] = kept;
    if (kept != b)
      f.blocks[kept] = std::move(f.blocks[b]);
    ++kept;
  }
  if (erased.empty())
    return erased;
  f.blocks.resize(kept);

  std::vector<uint32_t> newTable(f.jumpTables.size(), UINT32_MAX);
  uint32_t tables = 0;
  for (uint32_t t = 0; t < f.jumpTables.size(); ++t) {
    JumpTable &jt = f.jumpTables[t];
    bool allKept = true;
    for (uint32_t &target : jt.targets) {
      allKept = allKept && newIndex[target] != UINT32_MAX;
      target = newIndex[target];
    }
    if (!allKept)
      continue; // only erased BRXs used it
    newTable[t] = tables;
    if (tables != t)
      f.jumpTables[tables] = std::move(jt);
    ++tables;
  }
  f.jumpTables.resize(tables);
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs) {
        if (o.kind == Operand::Kind::Label)
          o.target = newIndex[o.target];
        else if (o.kind == Operand::Kind::JumpTable)
          o.target = newTable[o.target];
      }
  return erased;
}

// sub_BDE6C0 (spec/003) called for bix 0 .. highest with one shared counter
// from the highest bix, as sub_BDFB10 calls it; see reference/ for the
// readings of `marks`.
RpoSlots computeEraseSlots(const CfgFacts &cfg, EraseMarks marks) {
  const uint32_t n = uint32_t(cfg.succs.size());
  RpoSlots out;
  out.rpoNumber.assign(n, kNoBlock);
  out.rpoArray.assign(n, kNoBlock);
  std::vector<uint32_t> mark(n, 1);
  if (marks == EraseMarks::PredCount)
    for (uint32_t b = 0; b < n; ++b)
      mark[b] = uint32_t(cfg.preds[b].size());
  int32_t counter = int32_t(n) - 1;
  std::vector<std::pair<uint32_t, uint32_t>> stack; // (block, next successor index)
  stack.reserve(64);
  for (uint32_t root = 0; root < n; ++root) {
    if (mark[root] == 0)
      continue;
    mark[root] = 0;
    stack.emplace_back(root, 0u);
    while (!stack.empty()) {
      auto &[b, next] = stack.back();
      const std::span<const uint32_t> ss = cfg.succs[b];
      while (next < ss.size() && mark[ss[next]] != 1)
        ++next;
      if (next < ss.size()) {
        const uint32_t s = ss[next++];
        mark[s] = 0;
        stack.emplace_back(s, 0u); // invalidates b and next
        continue;
      }
      out.rpoNumber[b] = counter;
      out.rpoArray[size_t(counter)] = int32_t(b);
      --counter;
      stack.pop_back();
    }
  }
  out.counter = counter;
  return out;
}

} // namespace ori::optimized
