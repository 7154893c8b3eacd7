// Phase 58 GeneralOptimizeLate (spec/002 "The Per-Block Sub-Pass Runner:
// sub_8F6530", sub_8F6FA0; docs/general-optimize.md), the reference way.
// Each block once, in the RPO computed at entry, with a window of the last
// kLateWindowSlots moves: a circular buffer whose pointer advances at each
// insertion, overwriting (evicting) what it points at; a write to an entry's
// register or to the register its value reads empties that slot. A move of a
// value an entry still holds gives its one use the entry's register and goes;
// any other candidate move is inserted (with knob 605, ReassociateCSEWindow,
// only into an empty slot, the first one: existing entries are never
// replaced). Use and definition counts are recounted over the whole function
// at every question.
#include <cstdint>
#include <array>
#include <optional>
#include <vector>

#include "ir/general_optimize.h"
#include "reference/reference.h"

namespace ori::reference {
namespace {

bool reads(const Instr& in, Reg r) {
  for (Reg u : in.uses())
    if (u == r) return true;
  return false;
}

struct Entry {
  Reg dst;
  Operand value;
  bool wide = false;
};

// The one use of d (the source operand index in instruction u of block b),
// when d is written once in the function, by instruction i of block b, and
// read once, as a plain register source of an instruction after i in b.
std::optional<std::pair<size_t, size_t>> singleUseAfter(const Function& f, uint32_t b, size_t i, Reg d) {
  uint32_t defs = 0, uses = 0;
  for (const Block& blk : f.blocks)
    for (const Instr& in : blk.instrs) {
      for (Reg r : in.defs()) defs += r == d;
      for (Reg r : in.uses()) uses += r == d;
    }
  if (defs != 1 || uses != 1) return std::nullopt;
  const auto& instrs = f.blocks[b].instrs;
  for (size_t u = i + 1; u < instrs.size(); ++u) {
    const Instr& in = instrs[u];
    if (!reads(in, d)) continue;
    if (in.op == Opcode::OPAQUE || in.op == Opcode::CALL) return std::nullopt;
    for (size_t k = 0; k < in.srcs.size(); ++k)
      if (in.srcs[k].kind == Operand::Kind::Reg && in.srcs[k].reg == d) return std::make_pair(u, k);
    return std::nullopt; // read as an address or bank index
  }
  return std::nullopt;
}

} // namespace

LateOptimizeCounts generalOptimizeLate(Function& f, bool existingEntriesOnly) {
  LateOptimizeCounts counts;
  if (f.blocks.empty()) return counts;
  for (uint32_t b : computeCfg(f).rpo) {
    std::array<std::optional<Entry>, kLateWindowSlots> window;
    size_t next = 0; // the slot the next insertion takes
    auto& instrs = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (lateWindowCandidate(instrs[i])) {
        const Instr& mov = instrs[i];
        const Reg d = mov.dsts[0].reg;
        const bool wide = mov.has(Mod::W64);
        const Entry* hit = nullptr;
        for (const auto& e : window)
          if (e && e->value == mov.srcs[0] && e->wide == wide && e->dst != d) hit = &*e;
        if (hit) {
          const auto use = singleUseAfter(f, b, i, d);
          bool held = use.has_value();
          for (size_t k = i + 1; held && k < use->first; ++k) held = !writesRegister(instrs[k], hit->dst);
          if (held) {
            instrs[use->first].srcs[use->second].reg = hit->dst;
            instrs.erase(instrs.begin() + std::ptrdiff_t(i));
            --i;
            ++counts.movesMerged;
            continue;
          }
        }
      }
      // Writes end the entries they touch; then a candidate that matched no
      // entry takes a slot.
      const Instr& in = instrs[i];
      bool matched = false;
      if (lateWindowCandidate(in))
        for (const auto& e : window)
          matched = matched || (e && e->value == in.srcs[0] && e->wide == in.has(Mod::W64) && e->dst != in.dsts[0].reg);
      for (Reg r : in.defs())
        for (auto& e : window) {
          if (!e) continue;
          const auto read = e->value.regRead();
          if (e->dst == r || (read && *read == r)) e.reset();
        }
      if (!lateWindowCandidate(in) || matched) continue;
      const Entry entry{in.dsts[0].reg, in.srcs[0], in.has(Mod::W64)};
      if (existingEntriesOnly) {
        for (auto& e : window)
          if (!e) {
            e = entry;
            ++counts.inserted;
            break;
          }
        continue;
      }
      if (window[next]) ++counts.evicted;
      window[next] = entry;
      next = (next + 1) % kLateWindowSlots;
      ++counts.inserted;
    }
  }
  return counts;
}

} // namespace ori::reference
