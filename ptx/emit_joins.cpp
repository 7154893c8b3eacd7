// Ori -> PTX: the joins that print two Ori instructions the lowering made of one PTX
// instruction as that instruction again (docs/ptx.md, "Round trip"; emit_impl.h). The
// WARPSYNC + .sync instruction join is in emit_warp.cpp.
#include <fmt/format.h>

#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

uint32_t FnEmitter::regMentions(Reg r) const {
  if (!regMentions_) {
    regMentions_.emplace();
    for (const Block& b : f.blocks)
      for (const Instr& in : b.instrs) {
        forEachDef(in, [&](Reg d) { ++(*regMentions_)[d]; });
        forEachUse(in, [&](Reg u) { ++(*regMentions_)[u]; });
      }
  }
  auto it = regMentions_->find(r);
  return it == regMentions_->end() ? 0 : it->second;
}

// S2R b, SR_xWINBASE then IADD3.64 d, a, b, RZ (cvta.space.u64 d, a) or with -b
// (cvta.to.space.u64 d, a), under the same guard, b read by that IADD3 only: the lowering
// of one PTX cvta (ptx/lower_mem.cpp), printed as it again.
std::optional<std::string> FnEmitter::cvtaJoinsNext(const Instr& s2r) const {
  const Instr* n = next_;
  if (!n || n->op != Opcode::IADD3 || s2r.dsts.size() != 1 || n->dsts.size() != 1 || n->srcs.size() != 3) return {};
  ModSet w64;
  w64.set(Mod::W64);
  const Reg b = s2r.dsts[0].reg;
  const Operand &a = n->srcs[0], &base = n->srcs[1], &zero = n->srcs[2];
  auto plainReg = [](const Operand& o) {
    return o.kind == Operand::Kind::Reg && !o.abs && !o.neg && !o.reg.isConst() && o.reg.isGeneral();
  };
  if (n->mods != w64 || !s2r.mods.empty() || !(n->guard == s2r.guard) || b.isConst() || !plainReg(a) || a.reg == b ||
      base.kind != Operand::Kind::Reg || base.abs || base.reg != b || zero.kind != Operand::Kind::Reg ||
      zero.reg != RZ || zero.neg || n->dsts[0].kind != Operand::Kind::Reg || !n->dsts[0].reg.isGeneral() ||
      n->dsts[0].reg.isConst() || regMentions(b) != 2)
    return {};
  const SpecialReg s = s2r.srcs[0].sreg;
  return fmt::format("cvta{}.{}.u64", base.neg ? ".to" : "",
                     s == SpecialReg::SWINBASE ? "shared" : s == SpecialReg::LWINBASE ? "local" : "const");
}

} // namespace ori::ptx::emit_detail
