// Phase 58 GeneralOptimizeLate (spec/002 sub_8F6530 / sub_8F6FA0;
// docs/general-optimize.md), the optimized way: the same window, with
// definition and use counts taken once at entry and kept up to date, and each
// register's single use found once (again by one scan only when a merge took
// another of its uses away). A merged move becomes a NOP at once and is
// erased when its block's walk ends, so indices stay put during the walk.
#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/general_optimize.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct UseSite {
  uint32_t block = kNone, instr = 0, operand = kNone; // operand kNone: not a plain register source
};

class LateOptimizer {
public:
  LateOptimizer(Function& f, bool existingEntriesOnly) : f_(f), existingOnly_(existingEntriesOnly) {
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (uint32_t i = 0; i < f.blocks[b].instrs.size(); ++i) count(b, i);
  }

  LateOptimizeCounts run() {
    for (uint32_t b : computeRpo(f_)) walk(b);
    return counts_;
  }

private:
  struct Entry {
    Reg dst;
    Operand value;
    bool wide = false;
  };

  uint32_t id(Reg r) {
    auto [it, inserted] = ids_.try_emplace(uint64_t(r.file) << 32 | r.num, uint32_t(ids_.size()));
    if (inserted) {
      defs_.push_back(0);
      uses_.push_back(0);
      site_.emplace_back();
    }
    return it->second;
  }

  void count(uint32_t b, uint32_t i) {
    const Instr& in = f_.blocks[b].instrs[i];
    forEachDef(in, [&](Reg r) { ++defs_[id(r)]; });
    forEachUse(in, [&](Reg r) {
      const uint32_t u = id(r);
      if (++uses_[u] == 1) site_[u] = siteOf(b, i, r);
    });
  }

  UseSite siteOf(uint32_t b, uint32_t i, Reg r) const {
    const Instr& in = f_.blocks[b].instrs[i];
    UseSite s{b, i, kNone};
    if (in.op == Opcode::OPAQUE || in.op == Opcode::CALL) return s;
    for (uint32_t k = 0; k < in.srcs.size(); ++k)
      if (in.srcs[k].kind == Operand::Kind::Reg && in.srcs[k].reg == r) {
        s.operand = k;
        return s;
      }
    return s;
  }

  // The one use of r, when its count is 1 (found again by a scan when a
  // merge took another of its uses away).
  UseSite singleUse(Reg r) {
    const uint32_t u = id(r);
    if (site_[u].block != kNone) return site_[u];
    for (uint32_t b = 0; b < f_.blocks.size(); ++b)
      for (uint32_t i = 0; i < f_.blocks[b].instrs.size(); ++i)
        for (Reg x : f_.blocks[b].instrs[i].uses())
          if (x == r) return site_[u] = siteOf(b, i, r);
    return {};
  }

  void walk(uint32_t b) {
    std::array<std::optional<Entry>, kLateWindowSlots> window;
    size_t next = 0;
    std::vector<uint32_t> merged;
    auto& instrs = f_.blocks[b].instrs;
    for (uint32_t i = 0; i < instrs.size(); ++i) {
      bool matched = false;
      if (lateWindowCandidate(instrs[i])) {
        const Instr& mov = instrs[i];
        const Reg d = mov.dsts[0].reg;
        const bool wide = mov.has(Mod::W64);
        for (const auto& e : window) {
          if (!e || !(e->value == mov.srcs[0]) || e->wide != wide || e->dst == d) continue;
          matched = true;
          if (tryMerge(b, i, *e)) {
            merged.push_back(i);
            matched = false;
          }
          break;
        }
        if (!merged.empty() && merged.back() == i) continue;
      }
      const Instr& in = instrs[i];
      forEachDef(in, [&](Reg r) {
        for (auto& e : window) {
          if (!e) continue;
          const auto read = e->value.regRead();
          if (e->dst == r || (read && *read == r)) e.reset();
        }
      });
      if (!lateWindowCandidate(in) || matched) continue;
      const Entry entry{in.dsts[0].reg, in.srcs[0], in.has(Mod::W64)};
      if (existingOnly_) {
        for (auto& e : window)
          if (!e) {
            e = entry;
            ++counts_.inserted;
            break;
          }
        continue;
      }
      if (window[next]) ++counts_.evicted;
      window[next] = entry;
      next = (next + 1) % kLateWindowSlots;
      ++counts_.inserted;
    }
    for (size_t k = merged.size(); k-- > 0;) instrs.erase(instrs.begin() + merged[k]);
  }

  // Move i of block b, matching entry e: its destination d is written once
  // and read once, as a plain source later in b, and e's register is not
  // written before that read: the read takes e's register, the move a NOP.
  bool tryMerge(uint32_t b, uint32_t i, const Entry& e) {
    auto& instrs = f_.blocks[b].instrs;
    const Instr& mov = instrs[i];
    const uint32_t d = id(mov.dsts[0].reg);
    if (defs_[d] != 1 || uses_[d] != 1) return false;
    const UseSite s = singleUse(mov.dsts[0].reg);
    if (s.block != b || s.instr <= i || s.operand == kNone) return false;
    for (uint32_t k = i + 1; k < s.instr; ++k)
      if (writesRegister(instrs[k], e.dst)) return false;
    defs_[d] = 0;
    uses_[d] = 0;
    site_[d] = {};
    if (const auto read = mov.srcs[0].regRead()) {
      const uint32_t src = id(*read);
      --uses_[src];
      site_[src] = {}; // found again on demand
    }
    const uint32_t t = id(e.dst);
    if (++uses_[t] == 1) site_[t] = UseSite{b, s.instr, s.operand};
    instrs[s.instr].srcs[s.operand].reg = e.dst;
    instrs[i] = Instr{};
    ++counts_.movesMerged;
    return true;
  }

  Function& f_;
  bool existingOnly_;
  std::unordered_map<uint64_t, uint32_t> ids_;
  std::vector<uint32_t> defs_, uses_;
  std::vector<UseSite> site_;
  LateOptimizeCounts counts_;
};

} // namespace

LateOptimizeCounts generalOptimizeLate(Function& f, bool existingEntriesOnly) {
  if (f.blocks.empty()) return {};
  return LateOptimizer(f, existingEntriesOnly).run();
}

} // namespace ori::optimized
