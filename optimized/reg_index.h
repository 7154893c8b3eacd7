// Dense indices for a set of registers: a table by number per register file
// when the numbers are dense enough (virtual registers counted from 0, as
// parsed code has them), else a binary search of the sorted registers
// (numbers may be anything, up to 2^32 - 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori::optimized {

class RegIndex {
public:
  RegIndex() = default;
  // Constant registers are left out; duplicates are fine. Indices follow
  // ascending Reg order (file, then number); only sparse files are sorted.
  explicit RegIndex(const std::vector<Reg>& regs) {
    uint32_t maxNum[kNumRegFiles] = {}, mentions[kNumRegFiles] = {};
    for (Reg r : regs)
      if (!r.isConst()) maxNum[size_t(r.file)] = std::max(maxNum[size_t(r.file)], r.num), ++mentions[size_t(r.file)];
    std::vector<Reg> sparse;
    for (int file = 0; file < kNumRegFiles; ++file) {
      if (mentions[file] == 0) continue;
      if (maxNum[file] >= 8 * uint64_t(mentions[file]) + 4096) searched_[file] = true;
      else table_[file].assign(size_t(maxNum[file]) + 1, -1);
    }
    for (Reg r : regs) {
      if (r.isConst()) continue;
      if (searched_[size_t(r.file)]) sparse.push_back(r);
      else table_[size_t(r.file)][r.num] = 0; // mentioned; numbered below
    }
    std::sort(sparse.begin(), sparse.end());
    sparse.erase(std::unique(sparse.begin(), sparse.end()), sparse.end());
    auto next = sparse.begin();
    for (int file = 0; file < kNumRegFiles; ++file) {
      for (uint32_t num = 0; num < table_[file].size(); ++num)
        if (table_[file][num] == 0) {
          table_[file][num] = int32_t(regs_.size());
          regs_.push_back(Reg{RegFile(file), num});
        }
      for (; next != sparse.end() && int(next->file) == file; ++next) regs_.push_back(*next);
    }
  }

  uint32_t size() const { return uint32_t(regs_.size()); }
  // The registers in index order (ascending Reg order).
  Reg reg(uint32_t i) const { return regs_[i]; }
  // The index of r, or -1 when r is not one of the registers.
  int32_t index(Reg r) const {
    const auto& table = table_[size_t(r.file)];
    if (!table.empty()) return r.num < table.size() ? table[r.num] : -1;
    if (!searched_[size_t(r.file)]) return -1;
    const auto it = std::lower_bound(regs_.begin(), regs_.end(), r);
    return it != regs_.end() && *it == r ? int32_t(it - regs_.begin()) : -1;
  }

private:
  std::vector<Reg> regs_; // sorted, distinct
  std::vector<int32_t> table_[kNumRegFiles];
  bool searched_[kNumRegFiles] = {};
};

// The registers of every instruction of a function, as indices of one
// RegIndex, computed once for the DCE passes' walks: instruction i of block b
// is blocks[b][i]; its defs then its uses sit at [start, start + defs + uses)
// of `nums`, one array for the whole function.
struct InstrRegs {
  uint32_t start = 0, defs = 0, uses = 0;
  bool guarded = false, kept = false; // kept: keptWhenDead (ir/facts.h)
};
struct FunctionRegs {
  RegIndex index;
  std::vector<uint32_t> nums;
  std::vector<std::vector<InstrRegs>> blocks;
  const uint32_t* defs(const InstrRegs& r) const { return nums.data() + r.start; }
  const uint32_t* uses(const InstrRegs& r) const { return nums.data() + r.start + r.defs; }
};

inline FunctionRegs functionRegs(const Function& f) {
  FunctionRegs out;
  std::vector<Reg> regs;
  for (const Block& b : f.blocks)
    for (const Instr& in : b.instrs) {
      forEachDef(in, [&](Reg r) { regs.push_back(r); });
      forEachUse(in, [&](Reg r) { regs.push_back(r); });
    }
  out.index = RegIndex(regs);
  out.nums.reserve(regs.size());
  out.blocks.resize(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    out.blocks[b].reserve(f.blocks[b].instrs.size());
    for (const Instr& in : f.blocks[b].instrs) {
      InstrRegs& r = out.blocks[b].emplace_back();
      r.start = uint32_t(out.nums.size());
      forEachDef(in, [&](Reg d) { out.nums.push_back(uint32_t(out.index.index(d))); });
      r.defs = uint32_t(out.nums.size()) - r.start;
      forEachUse(in, [&](Reg u) { out.nums.push_back(uint32_t(out.index.index(u))); });
      r.uses = uint32_t(out.nums.size()) - r.start - r.defs;
      r.guarded = in.isGuarded();
      r.kept = keptWhenDead(in);
    }
  }
  return out;
}

} // namespace ori::optimized
