// Phase 58 GeneralOptimizeLate (rules/general_optimize_late.h), the optimized way: definition
// and use counts taken once at entry and kept up to date, and each register's single use found
// once (again, when a merge took another of its uses away, among the instructions known to read
// it). A merged move becomes a NOP at once and is erased when its block's walk ends, so indices
// stay put during the walk.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "optimized/group_by_key.h"
#include "optimized/optimized.h"
#include "optimized/reg_index.h"
#include "rules/general_optimize_late.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct UseSite {
  uint32_t block = kNone, instr = 0, operand = kNone; // operand kNone: not a plain register source
};

class LateOptimizer {
public:
  LateOptimizer(Function &f, bool existingEntriesOnly)
      : f_(f), existingOnly_(existingEntriesOnly), walked_(f.blocks.size(), 0) {
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (uint32_t i = 0; i < f.blocks[b].instrs.size(); ++i)
        count(b, i);
    addedHead_.assign(ids_.size(), kNone);
  }

  LateOptimizeCounts run() {
    for (uint32_t b : computeRpo(f_)) {
      walk(b);
      walked_[b] = 1;
    }
    return counts_;
  }

private:
  uint32_t id(Reg r) {
    bool added = false;
    const uint32_t u = ids_.get(r, &added);
    if (added) {
      defs_.push_back(0);
      uses_.push_back(0);
      site_.emplace_back();
    }
    return u;
  }

  void count(uint32_t b, uint32_t i) {
    const Instr &in = f_.blocks[b].instrs[i];
    forEachDef(in, [&](Reg r) { ++defs_[id(r)]; });
    forEachUse(in, [&](Reg r) {
      const uint32_t u = id(r);
      if (++uses_[u] == 1)
        site_[u] = siteOf(b, i, r);
    });
  }

  // The readers of every register in the blocks not walked yet, as they are now
  // (flat instruction numbers grouped by register id; blockStart_ gives each
  // block's first), built the first time singleUse needs them: most functions
  // never do, and building them at entry cost every call of the pass about a
  // third more. Reads a merge makes later are listed through added_ (a merge
  // before the build is in the instructions already; listed twice is harmless).
  void buildReaders() {
    readersBuilt_ = true;
    std::vector<std::pair<uint32_t, uint32_t>>
        reads; // (register, flat number of an instruction reading it)
    uint32_t flat = 0;
    for (uint32_t b = 0; b < f_.blocks.size(); ++b) {
      blockStart_.push_back(flat);
      for (const Instr &in : f_.blocks[b].instrs) {
        if (!walked_[b])
          forEachUse(in, [&](Reg r) { reads.emplace_back(id(r), flat); });
        ++flat;
      }
    }
    groupByKey(reads, uint32_t(ids_.size()), readStart_, readers_);
  }

  UseSite siteOf(uint32_t b, uint32_t i, Reg r) const {
    const Instr &in = f_.blocks[b].instrs[i];
    UseSite s{b, i, kNone};
    if (in.op == Opcode::OPAQUE || in.op == Opcode::CALL)
      return s;
    for (uint32_t k = 0; k < in.srcs.size(); ++k)
      if (in.srcs[k].kind == Operand::Kind::Reg && in.srcs[k].reg == r) {
        s.operand = k;
        return s;
      }
    return s;
  }

  // The one use of r, when its count is 1. When a merge took another of its
  // uses away, it is looked for among the instructions known to read r
  // (buildReaders, and those a merge made read it), in blocks not walked yet or being walked
  // (their instructions are where they were: a walk erases its merged moves
  // when it ends). A use in a walked block is not looked for: tryMerge wants
  // one in the block it walks. Scanning the function instead made the pass
  // quadratic on moves whose register is read before it is written.
  UseSite singleUse(Reg r) {
    const uint32_t u = id(r);
    if (site_[u].block != kNone)
      return site_[u];
    auto reads = [&](uint32_t b, uint32_t i) {
      if (walked_[b] || i >= f_.blocks[b].instrs.size())
        return false;
      bool found = false;
      forEachUse(f_.blocks[b].instrs[i], [&](Reg x) { found = found || x == r; });
      return found;
    };
    if (!readersBuilt_)
      buildReaders();
    if (u + 1 < readStart_.size())
      for (uint32_t k = readStart_[u]; k < readStart_[u + 1]; ++k) {
        const uint32_t flat = readers_[k];
        const uint32_t b = uint32_t(std::upper_bound(blockStart_.begin(), blockStart_.end(), flat) -
                                    blockStart_.begin()) -
                           1;
        if (reads(b, flat - blockStart_[b]))
          return site_[u] = siteOf(b, flat - blockStart_[b], r);
      }
    for (uint32_t a = u < addedHead_.size() ? addedHead_[u] : kNone; a != kNone; a = added_[a].next)
      if (reads(added_[a].block, added_[a].instr))
        return site_[u] = siteOf(added_[a].block, added_[a].instr, r);
    return {};
  }

  void walk(uint32_t b) {
    LateWindow window(existingOnly_);
    std::vector<uint32_t> merged;
    auto &instrs = f_.blocks[b].instrs;
    for (uint32_t i = 0; i < instrs.size(); ++i) {
      if (lateWindowCandidate(instrs[i]))
        if (const LateWindow::Entry *e = window.holding(instrs[i]); e && tryMerge(b, i, *e)) {
          merged.push_back(i);
          continue;
        }
      window.step(instrs[i], counts_);
    }
    // One compaction for the block's merged moves (ascending), not an erase each: a block
    // of many merges would move its tail once per merge.
    if (!merged.empty()) {
      size_t kept = 0, m = 0;
      for (size_t i = 0; i < instrs.size(); ++i) {
        if (m < merged.size() && merged[m] == i) {
          ++m;
          continue;
        }
        if (kept != i)
          instrs[kept] = std::move(instrs[i]);
        ++kept;
      }
      instrs.resize(kept);
    }
  }

  // Move i of block b, matching entry e: its destination d is written once
  // and read once, as a plain source later in b, and e's register is not
  // written before that read: the read takes e's register, the move a NOP.
  bool tryMerge(uint32_t b, uint32_t i, const LateWindow::Entry &e) {
    auto &instrs = f_.blocks[b].instrs;
    const Instr &mov = instrs[i];
    const uint32_t d = id(mov.dsts[0].reg);
    if (defs_[d] != 1 || uses_[d] != 1)
      return false;
    const UseSite s = singleUse(mov.dsts[0].reg);
    if (s.block != b || s.instr <= i || s.operand == kNone)
      return false;
    if (writtenBetween(b, i, s.instr, e.dst))
      return false;
    defs_[d] = 0;
    uses_[d] = 0;
    site_[d] = {};
    if (const auto read = mov.srcs[0].regRead()) {
      const uint32_t src = id(*read);
      --uses_[src];
      site_[src] = {}; // found again on demand
    }
    const uint32_t t = id(e.dst);
    if (++uses_[t] == 1)
      site_[t] = UseSite{b, s.instr, s.operand};
    if (t < addedHead_.size()) {
      added_.push_back(Added{b, s.instr, addedHead_[t]});
      addedHead_[t] = uint32_t(added_.size() - 1);
    }
    instrs[s.instr].srcs[s.operand].reg = e.dst;
    instrs[i] = Instr{};
    ++counts_.movesMerged;
    return true;
  }

  // Whether an instruction of block b after `from` and before `to` writes r: a binary
  // search in the block's writes, sorted by (register, index) when its walk first asks.
  // A look at every instruction between made a block of many merges quadratic. A merge
  // leaves the list true where it is asked: the move it empties was the only write of
  // its destination, which therefore is no entry's register.
  bool writtenBetween(uint32_t b, uint32_t from, uint32_t to, Reg r) {
    if (writesOf_ != b) {
      writesOf_ = b;
      blockWrites_.clear();
      const auto &instrs = f_.blocks[b].instrs;
      for (uint32_t k = 0; k < instrs.size(); ++k)
        forEachDef(instrs[k], [&](Reg d) { blockWrites_.emplace_back(id(d), k); });
      std::sort(blockWrites_.begin(), blockWrites_.end());
    }
    const uint32_t u = id(r);
    const auto it =
        std::lower_bound(blockWrites_.begin(), blockWrites_.end(), std::make_pair(u, from + 1));
    return it != blockWrites_.end() && it->first == u && it->second < to;
  }

  Function &f_;
  bool existingOnly_;
  RegIds ids_;
  std::vector<uint32_t> defs_, uses_;
  std::vector<UseSite> site_;
  // Who reads each register (singleUse): buildReaders's rows, then a list per register
  // through added_ of the reads merges made.
  struct Added {
    uint32_t block, instr, next;
  };
  std::vector<uint32_t> blockStart_, readStart_, readers_, addedHead_;
  std::vector<Added> added_;
  std::vector<uint8_t> walked_;
  bool readersBuilt_ = false;
  std::vector<std::pair<uint32_t, uint32_t>> blockWrites_; // writtenBetween's, of block writesOf_
  uint32_t writesOf_ = kNone;
  LateOptimizeCounts counts_;
};

} // namespace

LateOptimizeCounts generalOptimizeLate(Function &f, bool existingEntriesOnly) {
  if (f.blocks.empty())
    return {};
  return LateOptimizer(f, existingEntriesOnly).run();
}

} // namespace ori::optimized
