#include "rules/general_optimize_late.h"

namespace ori {

bool lateWindowCandidate(const Instr &in) {
  if (in.op != Opcode::MOV || in.isGuarded() || in.dsts.size() != 1 || in.srcs.size() != 1)
    return false;
  const Operand &d = in.dsts[0];
  if (d.kind != Operand::Kind::Reg || d.reg.file != RegFile::R || d.reg.isConst())
    return false;
  const Operand &s = in.srcs[0];
  if (s.kind == Operand::Kind::Imm)
    return true;
  return s.kind == Operand::Kind::Reg && s.reg.isGeneral() && !s.neg && !s.abs && s.reg != d.reg;
}

const LateWindow::Entry *LateWindow::holding(const Instr &mov) const {
  for (const auto &e : slots_)
    if (e && e->value == mov.srcs[0] && e->wide == mov.has(Mod::W64) && e->dst != mov.dsts[0].reg)
      return &*e;
  return nullptr;
}

void LateWindow::step(const Instr &in, LateOptimizeCounts &counts) {
  const bool candidate = lateWindowCandidate(in);
  const bool matched = candidate && holding(in);
  forEachDef(in, [&](Reg r) {
    for (auto &e : slots_) {
      if (!e)
        continue;
      const auto read = e->value.regRead();
      if (e->dst == r || (read && *read == r))
        e.reset();
    }
  });
  if (!candidate || matched)
    return;
  const Entry entry{in.dsts[0].reg, in.srcs[0], in.has(Mod::W64)};
  if (existingOnly_) {
    for (auto &e : slots_)
      if (!e) {
        e = entry;
        ++counts.inserted;
        break;
      }
    return;
  }
  if (slots_[next_])
    ++counts.evicted;
  slots_[next_] = entry;
  next_ = (next_ + 1) % kLateWindowSlots;
  ++counts.inserted;
}

} // namespace ori
