// Phase 58 GeneralOptimizeLate (rules/general_optimize_late.h), the reference way: use and
// definition counts recounted over the whole function at every question, a merged move erased
// at once.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/reference.h"
#include "rules/general_optimize.h"
#include "rules/general_optimize_late.h"

namespace ori::reference {
namespace {

bool reads(const Instr &in, Reg r) {
  for (Reg u : in.uses())
    if (u == r)
      return true;
  return false;
}

// The one use of d (the source operand index in instruction u of block b),
// when d is written once in the function, by instruction i of block b, and
// read once, as a plain register source of an instruction after i in b.
std::optional<std::pair<size_t, size_t>> singleUseAfter(const Function &f, uint32_t b, size_t i,
                                                        Reg d) {
  uint32_t defs = 0, uses = 0;
  for (const Block &blk : f.blocks)
    for (const Instr &in : blk.instrs) {
      for (Reg r : in.defs())
        defs += r == d;
      for (Reg r : in.uses())
        uses += r == d;
    }
  if (defs != 1 || uses != 1)
    return std::nullopt;
  const auto &instrs = f.blocks[b].instrs;
  for (size_t u = i + 1; u < instrs.size(); ++u) {
    const Instr &in = instrs[u];
    if (!reads(in, d))
      continue;
    if (in.op == Opcode::OPAQUE || in.op == Opcode::CALL)
      return std::nullopt;
    for (size_t k = 0; k < in.srcs.size(); ++k)
      if (in.srcs[k].kind == Operand::Kind::Reg && in.srcs[k].reg == d)
        return std::make_pair(u, k);
    return std::nullopt; // read as an address or bank index
  }
  return std::nullopt;
}

} // namespace

LateOptimizeCounts generalOptimizeLate(Function &f, bool existingEntriesOnly) {
  LateOptimizeCounts counts;
  if (f.blocks.empty())
    return counts;
  for (uint32_t b : computeCfg(f).rpo) {
    LateWindow window(existingEntriesOnly);
    auto &instrs = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      const LateWindow::Entry *hit =
          lateWindowCandidate(instrs[i]) ? window.holding(instrs[i]) : nullptr;
      if (hit) {
        const auto use = singleUseAfter(f, b, i, instrs[i].dsts[0].reg);
        bool held = use.has_value();
        for (size_t k = i + 1; held && k < use->first; ++k)
          held = !writesRegister(instrs[k], hit->dst);
        if (held) {
          instrs[use->first].srcs[use->second].reg = hit->dst;
          instrs.erase(instrs.begin() + std::ptrdiff_t(i));
          --i;
          ++counts.movesMerged;
          continue;
        }
      }
      window.step(instrs[i], counts);
    }
  }
  return counts;
}

} // namespace ori::reference
