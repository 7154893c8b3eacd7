// Ori -> PTX: the joins that print two Ori instructions the lowering made of one PTX
// instruction as that instruction again (docs/ptx.md, "Round trip"; emit_impl.h). The
// WARPSYNC + .sync instruction join is in emit_warp.cpp.
#include <fmt/format.h>

#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

uint32_t FnEmitter::regMentions(Reg r) const {
  if (!regMentions_) {
    regMentions_.emplace();
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
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
std::optional<std::string> FnEmitter::cvtaJoinsNext(const Instr &s2r) const {
  const Instr *n = next_;
  if (!n || n->op != Opcode::IADD3 || s2r.dsts.size() != 1 || n->dsts.size() != 1 ||
      n->srcs.size() != 3)
    return {};
  ModSet w64;
  w64.set(Mod::W64);
  const Reg b = s2r.dsts[0].reg;
  const Operand &a = n->srcs[0], &base = n->srcs[1], &zero = n->srcs[2];
  auto plainReg = [](const Operand &o) {
    return o.kind == Operand::Kind::Reg && !o.abs && !o.neg && !o.reg.isConst() &&
           o.reg.isGeneral();
  };
  if (n->mods != w64 || !s2r.mods.empty() || !(n->guard == s2r.guard) || b.isConst() ||
      !plainReg(a) || a.reg == b || base.kind != Operand::Kind::Reg || base.abs || base.reg != b ||
      zero.kind != Operand::Kind::Reg || zero.reg != RZ || zero.neg ||
      n->dsts[0].kind != Operand::Kind::Reg || !n->dsts[0].reg.isGeneral() ||
      n->dsts[0].reg.isConst() || regMentions(b) != 2)
    return {};
  const SpecialReg s = s2r.srcs[0].sreg;
  return fmt::format("cvta{}.{}.u64", base.neg ? ".to" : "",
                     s == SpecialReg::SWINBASE   ? "shared"
                     : s == SpecialReg::LWINBASE ? "local"
                                                 : "const");
}

// SGXT[.U32] x, a, 24; SGXT[.U32] y, b, 24; IMAD d, x, y, c under one guard, x and y distinct
// and read by that IMAD only, a and b registers: the lowering of mul24.lo / mad24.lo
// (ptx/lower_int.cpp).
std::optional<FnEmitter::Mul24Join> FnEmitter::mul24Starts(const Instr &s1) const {
  const std::vector<Instr> &code = f.blocks[curBlock_].instrs;
  if (curIndex_ + 2 >= code.size())
    return {};
  const Instr &s2 = code[curIndex_ + 1], &mad = code[curIndex_ + 2];
  auto plainReg = [](const Operand &o) {
    return o.kind == Operand::Kind::Reg && !o.neg && !o.abs && !o.reg.isConst() &&
           o.reg.isGeneral();
  };
  auto low24 = [&](const Instr &s) {
    return s.op == Opcode::SGXT && s.mods == s1.mods && s.dsts.size() == 1 && plainReg(s.dsts[0]) &&
           s.srcs.size() == 2 && plainReg(s.srcs[0]) && s.srcs[1].kind == Operand::Kind::Imm &&
           !s.srcs[1].neg && s.srcs[1].imm == 24 && s.guard == s1.guard &&
           regBits(s.dsts[0].reg) == 32 && regBits(s.srcs[0].reg) == 32;
  };
  ModSet u32;
  u32.set(Mod::U32);
  if (!(s1.mods.empty() || s1.mods == u32) || !low24(s1) || !low24(s2) || mad.op != Opcode::IMAD ||
      !mad.mods.empty() || !(mad.guard == s1.guard) || mad.dsts.size() != 1 ||
      !plainReg(mad.dsts[0]) || regBits(mad.dsts[0].reg) != 32 || mad.srcs.size() != 3)
    return {};
  const Reg x = s1.dsts[0].reg, y = s2.dsts[0].reg;
  const Operand &c = mad.srcs[2];
  if (x == y || !plainReg(mad.srcs[0]) || mad.srcs[0].reg != x || !plainReg(mad.srcs[1]) ||
      mad.srcs[1].reg != y || regMentions(x) != 2 || regMentions(y) != 2 ||
      (c.kind == Operand::Kind::Reg && (c.reg == x || c.reg == y)))
    return {};
  const bool isMul = c.kind == Operand::Kind::Reg && c.reg.isConst() && !c.neg;
  return Mul24Join{
      fmt::format("{}.lo.{}", isMul ? "mul24" : "mad24", s1.has(Mod::U32) ? "u32" : "s32"),
      s1.srcs[0], s2.srcs[0], 2};
}

// SHR.type x, a, pos; SGXT[.U32][.64] d, x, len under one guard, pos and len immediates, the
// signedness and width alike, x read by that SGXT only: the lowering of bfe (ptx/lower_int.cpp).
std::optional<FnEmitter::Mul24Join> FnEmitter::bfeStarts(const Instr &shr) const {
  const Instr *sg = next_;
  auto plainReg = [](const Operand &o) {
    return o.kind == Operand::Kind::Reg && !o.neg && !o.abs && !o.reg.isConst() &&
           o.reg.isGeneral();
  };
  auto byteImm = [](const Operand &o) {
    return o.kind == Operand::Kind::Imm && !o.neg && o.imm >= 0 && o.imm <= 255;
  };
  auto t = shr.mods.inGroup(ModGroup::Type);
  if (!sg || sg->op != Opcode::SGXT || !t || shr.dsts.size() != 1 || !plainReg(shr.dsts[0]) ||
      shr.srcs.size() != 2 || !plainReg(shr.srcs[0]) || !byteImm(shr.srcs[1]) ||
      sg->dsts.size() != 1 || !plainReg(sg->dsts[0]) || sg->srcs.size() != 2 ||
      !plainReg(sg->srcs[0]) || sg->srcs[0].reg != shr.dsts[0].reg || !byteImm(sg->srcs[1]) ||
      !(sg->guard == shr.guard) || regMentions(shr.dsts[0].reg) != 2)
    return {};
  const bool isSigned = *t == Mod::S32 || *t == Mod::S64, w64 = *t == Mod::U64 || *t == Mod::S64;
  ModSet mods, want;
  if (!isSigned)
    want.set(Mod::U32);
  if (w64)
    want.set(Mod::W64);
  if (sg->mods != want || (*t != Mod::U32 && *t != Mod::S32 && *t != Mod::U64 && *t != Mod::S64) ||
      shr.mods.list().size() != 1)
    return {};
  const unsigned w = w64 ? 64 : 32;
  if (regBits(shr.srcs[0].reg) != w || regBits(sg->dsts[0].reg) != w)
    return {};
  return Mul24Join{fmt::format("bfe.{}{}", isSigned ? "s" : "u", w), shr.srcs[0], shr.srcs[1], 1};
}

} // namespace ori::ptx::emit_detail
