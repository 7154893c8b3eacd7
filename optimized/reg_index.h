// Dense indices for a set of registers: a table by number per register file
// when the numbers are dense enough (virtual registers counted from 0, as
// parsed code has them), else a binary search of the sorted registers
// (numbers may be anything, up to 2^32 - 2).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "rules/ori_perform_live_dead.h"

namespace ori::optimized {

class RegIndex {
public:
  RegIndex() = default;
  // Constant registers are left out; duplicates are fine. Indices follow
  // ascending Reg order (file, then number); only sparse files are sorted.
  explicit RegIndex(const std::vector<Reg> &regs) {
    uint32_t maxNum[kNumRegFiles] = {}, mentions[kNumRegFiles] = {};
    for (Reg r : regs)
      if (!r.isConst())
        maxNum[size_t(r.file)] = std::max(maxNum[size_t(r.file)], r.num),
        ++mentions[size_t(r.file)];
    std::vector<Reg> sparse;
    for (int file = 0; file < kNumRegFiles; ++file) {
      if (mentions[file] == 0)
        continue;
      if (maxNum[file] >= 8 * uint64_t(mentions[file]) + 4096)
        searched_[file] = true;
      else
        table_[file].assign(size_t(maxNum[file]) + 1, -1);
    }
    for (Reg r : regs) {
      if (r.isConst())
        continue;
      if (searched_[size_t(r.file)])
        sparse.push_back(r);
      else
        table_[size_t(r.file)][r.num] = 0; // mentioned; numbered below
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
      for (; next != sparse.end() && int(next->file) == file; ++next)
        regs_.push_back(*next);
    }
  }

  uint32_t size() const { return uint32_t(regs_.size()); }
  // The registers in index order (ascending Reg order).
  Reg reg(uint32_t i) const { return regs_[i]; }
  // The index of r, or -1 when r is not one of the registers.
  int32_t index(Reg r) const {
    const auto &table = table_[size_t(r.file)];
    if (!table.empty())
      return r.num < table.size() ? table[r.num] : -1;
    if (!searched_[size_t(r.file)])
      return -1;
    const auto it = std::lower_bound(regs_.begin(), regs_.end(), r);
    return it != regs_.end() && *it == r ? int32_t(it - regs_.begin()) : -1;
  }

private:
  std::vector<Reg> regs_; // sorted, distinct
  std::vector<int32_t> table_[kNumRegFiles];
  bool searched_[kNumRegFiles] = {};
};

// Ids for registers as a walk meets them (0, 1, 2, ... in first-seen order), for a pass
// that cannot list its registers before it starts. A table by number per register file,
// grown on demand, since parsed code numbers its virtual registers densely from 0; a
// number too far past the table (more than 16 per id given, past 4096) goes to a hash
// map instead. A hash map for all of them cost phase 58 a cache miss per register read
// on a 1M-instruction function (docs/performance.md, "Phase 58's register ids").
class RegIds {
public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t size() const { return next_; }
  // r's id, given now when r is new (then `added` is set).
  uint32_t get(Reg r, bool *added = nullptr) {
    auto &table = byNumber_[size_t(r.file)];
    if (r.num < table.size() && table[r.num] != kNone)
      return table[r.num];
    const uint64_t key = uint64_t(r.file) << 32 | r.num;
    if (!sparse_.empty())
      if (const auto it = sparse_.find(key); it != sparse_.end())
        return it->second;
    const uint32_t id = next_++;
    if (added)
      *added = true;
    if (r.num < std::max<uint64_t>(4096, 16 * uint64_t(next_))) {
      if (r.num >= table.size())
        table.resize(std::max<size_t>(size_t(r.num) + 1, 2 * table.size()), kNone);
      table[r.num] = id;
    } else {
      sparse_.emplace(key, id);
    }
    return id;
  }

private:
  std::vector<uint32_t> byNumber_[kNumRegFiles];
  std::unordered_map<uint64_t, uint32_t> sparse_;
  uint32_t next_ = 0;
};

// The registers of every instruction of a function, as indices of one
// RegIndex, computed once for the DCE passes' walks: instruction i of block b
// is blocks[b][i]; its defs then its uses sit at [start, start + defs + uses)
// of `nums`, one array for the whole function.
struct InstrRegs {
  uint32_t start = 0, defs = 0, uses = 0;
  bool guarded = false, kept = false; // kept: keptWhenDead (ir/facts.h)
  bool control = false;               // ends its block (OpFlag CONTROL)
  uint8_t passBits = 0; // the pass's own per-instruction facts (functionRegs's visitor)
};

// One block's entries: a range of FunctionRegs::instrs. The passes only ever
// remove instructions, so a range only shrinks (resize) or moves to another
// block's slot when empty blocks are dropped.
class BlockRegs {
public:
  BlockRegs() = default;
  BlockRegs(InstrRegs *data, uint32_t size) : data_(data), size_(size) {}
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  InstrRegs &operator[](size_t i) { return data_[i]; }
  const InstrRegs &operator[](size_t i) const { return data_[i]; }
  InstrRegs *begin() { return data_; }
  InstrRegs *end() { return data_ + size_; }
  const InstrRegs *begin() const { return data_; }
  const InstrRegs *end() const { return data_ + size_; }
  void resize(size_t k) { // shrinks only: the entries past the range are another block's
    assert(k <= size_);
    size_ = uint32_t(std::min<size_t>(k, size_));
  }

private:
  InstrRegs *data_ = nullptr;
  uint32_t size_ = 0;
};

// Every block's entries lie in one array, block after block: one allocation
// rather than one per block (the scan went from 73.7 to 66.5 ns per
// instruction at 1M instructions, docs/performance.md, "Heap objects per
// block"). blocks[b] points into instrs, so a FunctionRegs moves but is never
// copied.
struct FunctionRegs {
  RegIndex index;
  std::vector<uint32_t> nums;
  std::vector<InstrRegs> instrs;
  std::vector<BlockRegs> blocks;
  FunctionRegs() = default;
  FunctionRegs(FunctionRegs &&) = default;
  FunctionRegs &operator=(FunctionRegs &&) = default;
  FunctionRegs(const FunctionRegs &) = delete;
  FunctionRegs &operator=(const FunctionRegs &) = delete;
  const uint32_t *defs(const InstrRegs &r) const { return nums.data() + r.start; }
  const uint32_t *uses(const InstrRegs &r) const { return nums.data() + r.start + r.defs; }
};

// One look at every instruction: its registers go to a flat array as they
// are, `visit(instr, instrRegs)` is called on it (for a pass's own facts, in
// passBits), and the array is numbered afterwards without reading the IR again.
template <class Visit> FunctionRegs functionRegs(const Function &f, Visit &&visit) {
  FunctionRegs out;
  std::vector<Reg> regs;
  size_t total = 0;
  for (const Block &blk : f.blocks)
    total += blk.instrs.size();
  out.instrs.reserve(total); // never grows after: blocks point into it
  out.blocks.reserve(f.blocks.size());
  for (const Block &blk : f.blocks) {
    const size_t first = out.instrs.size();
    for (const Instr &in : blk.instrs) {
      InstrRegs &r = out.instrs.emplace_back();
      r.start = uint32_t(regs.size());
      forEachDef(in, [&](Reg d) { regs.push_back(d); });
      r.defs = uint32_t(regs.size()) - r.start;
      forEachUse(in, [&](Reg u) { regs.push_back(u); });
      r.uses = uint32_t(regs.size()) - r.start - r.defs;
      r.guarded = in.isGuarded();
      r.kept = keptWhenDead(in);
      r.control = in.info().is(CONTROL);
      visit(in, r);
    }
    out.blocks.emplace_back(out.instrs.data() + first, uint32_t(blk.instrs.size()));
  }
  out.index = RegIndex(regs);
  out.nums.resize(regs.size());
  for (size_t k = 0; k < regs.size(); ++k)
    out.nums[k] = uint32_t(out.index.index(regs[k]));
  return out;
}

inline FunctionRegs functionRegs(const Function &f) {
  return functionRegs(f, [](const Instr &, InstrRegs &) {});
}

// `in` changed: its entry `r` made to say so again, in place. False (and `r`
// unchanged) when it no longer fits: more registers than it had, or one the
// index does not number; then the FunctionRegs must be built again.
inline bool refreshInstrRegs(FunctionRegs &all, InstrRegs &r, const Instr &in) {
  uint32_t buf[64], defs = 0, count = 0;
  bool fits = true;
  auto put = [&](Reg x) {
    const int32_t i = all.index.index(x);
    if (i < 0 || count == 64)
      fits = false;
    else
      buf[count++] = uint32_t(i);
  };
  forEachDef(in, put);
  defs = count;
  forEachUse(in, put);
  if (!fits || count > r.defs + r.uses)
    return false;
  std::copy(buf, buf + count, all.nums.begin() + r.start);
  r.defs = defs;
  r.uses = count - defs;
  r.guarded = in.isGuarded();
  r.kept = keptWhenDead(in);
  r.control = in.info().is(CONTROL);
  return true;
}

} // namespace ori::optimized
