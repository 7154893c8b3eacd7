// The instruction-level rules of DoSwitchOpt (rules/do_switch_opt.h), once for both halves.
#include "rules/do_switch_opt.h"

#include <algorithm>
#include <map>

namespace ori {

namespace {

bool writes(const Instr &in, Reg r) {
  for (const Operand &d : in.dsts)
    if (d.isReg() && d.reg == r)
      return true;
  return false;
}

} // namespace

std::optional<SwitchOffset> offsetOf(const Instr &in) {
  if (in.op != Opcode::IADD3 || in.guard || !in.mods.empty() || in.dsts.size() != 1 ||
      in.srcs.size() != 3)
    return std::nullopt;
  const Operand &d = in.dsts[0], &a = in.srcs[0], &k = in.srcs[1], &z = in.srcs[2];
  const bool ok = d.isReg() && d.reg.file == RegFile::R && !d.reg.isConst() && a.isReg() &&
                  a.reg.file == RegFile::R && !a.reg.isConst() && !a.neg && !a.abs &&
                  a.reg != d.reg && k.kind == Operand::Kind::Imm && z.isReg() && z.reg == RZ &&
                  !z.neg;
  if (!ok)
    return std::nullopt;
  return SwitchOffset{d.reg, a.reg, uint32_t(k.imm)};
}

namespace {
// A plain 32-bit general register operand (no negation or absolute value).
bool plainR(const Operand &o) {
  return o.isReg() && o.reg.file == RegFile::R && !o.reg.isConst() && !o.neg && !o.abs;
}

// boundOf, through at most 8 ANDs and shifts (`depth`) and 8 MOVs each.
uint32_t boundAt(const std::vector<Instr> &ins, Reg r, size_t at, int depth) {
  if (depth > 8)
    return UINT32_MAX;
  for (int step = 0; step < 8; ++step) {
    size_t j = at;
    while (j > 0 && !writes(ins[j - 1], r))
      --j;
    if (j == 0)
      return UINT32_MAX;
    const Instr &in = ins[j - 1];
    if (in.guard || in.dsts.size() != 1 || in.has(Mod::W64))
      return UINT32_MAX;
    if (in.op == Opcode::MOV && in.srcs.size() == 1) {
      const Operand &src = in.srcs[0];
      if (src.kind == Operand::Kind::Imm)
        return uint32_t(src.imm);
      if (src.isReg() && src.reg == RZ && !src.neg)
        return 0;
      if (!src.isReg() || src.reg.file != RegFile::R || src.reg.isConst() || src.neg || src.abs)
        return UINT32_MAX;
      r = src.reg;
      at = j - 1;
      continue;
    }
    if (in.op == Opcode::LOP3 && in.srcs.size() == 4 && in.srcs[3].kind == Operand::Kind::Imm) {
      // Sources a, b, c are bits 2, 1, 0 of the LUT's index. With x the
      // register, M the immediate and RZ the third, every result bit where M
      // has 0 must be 0, whatever x's bit.
      std::optional<int> x, m, z;
      for (int k = 0; k < 3; ++k) {
        const Operand &o = in.srcs[size_t(k)];
        if (o.kind == Operand::Kind::Imm)
          m = k;
        else if (o.isReg() && o.reg == RZ && !o.neg)
          z = k;
        else if (o.isReg() && o.reg.file == RegFile::R && !o.reg.isConst() && !o.neg && !o.abs)
          x = k;
      }
      if (!x || !m || !z)
        return UINT32_MAX;
      const uint32_t lut = uint32_t(in.srcs[3].imm) & 0xff;
      for (uint32_t xbit : {0u, 1u})
        if ((lut >> (xbit << (2 - *x))) & 1)
          return UINT32_MAX;
      const uint32_t mask = uint32_t(in.srcs[size_t(*m)].imm);
      // x AND M (the result bit is 1 where both are, the LUT's bit at index x|m only): the
      // result is at most x too, so x's own bound tightens it (switch.bound-and proves
      // x <= bx implies (x & M) <= min(bx, M)). nvcc's `cvt.u16.u32` of `insn >> 25`.
      bool isAnd = true;
      for (uint32_t i = 0; i < 8; ++i) {
        if ((i >> (2 - *z)) & 1)
          continue; // the RZ source is 1 there: never read
        const bool both = ((i >> (2 - *x)) & 1) && ((i >> (2 - *m)) & 1);
        isAnd = isAnd && (((lut >> i) & 1) != 0) == both;
      }
      if (isAnd)
        return std::min(mask, boundAt(ins, in.srcs[size_t(*x)].reg, j - 1, depth + 1));
      return mask;
    }
    // SHR.U32 d, x, k (k < 32): at most x's bound >> k (switch.bound-shr proves it). nvcc's
    // `insn >> 25` in a byte-code dispatcher: at most 127.
    if (in.op == Opcode::SHR && in.has(Mod::U32) && in.srcs.size() == 2 && plainR(in.srcs[0]) &&
        in.srcs[1].kind == Operand::Kind::Imm && uint64_t(in.srcs[1].imm) < 32)
      return boundAt(ins, in.srcs[0].reg, j - 1, depth + 1) >> uint32_t(in.srcs[1].imm);
    const bool load =
        in.op == Opcode::LD || in.op == Opcode::LDG || in.op == Opcode::LDS || in.op == Opcode::LDL;
    if (load && in.has(Mod::U8))
      return 0xff;
    if (load && in.has(Mod::U16))
      return 0xffff;
    return UINT32_MAX;
  }
  return UINT32_MAX;
}
} // namespace

uint32_t boundOf(const std::vector<Instr> &ins, Reg r, size_t at) { return boundAt(ins, r, at, 0); }

std::optional<Reg> sgxtIdentity(const Instr &in, uint32_t bound) {
  if (in.op != Opcode::SGXT || in.guard || in.has(Mod::W64) || in.dsts.size() != 1 ||
      in.srcs.size() != 2)
    return std::nullopt;
  const Operand &a = in.srcs[0], &k = in.srcs[1];
  if (!a.isReg() || a.reg.file != RegFile::R || a.reg.isConst() || a.neg || a.abs ||
      a.reg == in.dsts[0].reg || k.kind != Operand::Kind::Imm)
    return std::nullopt;
  const uint64_t bits = uint64_t(uint32_t(k.imm)), limit = in.has(Mod::U32) ? bits : bits - 1;
  if (bits == 0)
    return std::nullopt;
  if (bits >= 32 || uint64_t(bound) < (uint64_t(1) << limit))
    return a.reg;
  return std::nullopt;
}

std::optional<SwitchCompare> selectorCompare(const Instr &in) {
  if (in.op != Opcode::ISETP || in.guard || in.dsts.size() != 2 || in.srcs.size() < 2 ||
      in.srcs.size() > 3)
    return std::nullopt;
  if (!in.dsts[0].isReg() || in.dsts[0].reg.file != RegFile::P || in.dsts[0].reg.isConst())
    return std::nullopt;
  if (!in.dsts[1].isReg() || !in.dsts[1].reg.isConst())
    return std::nullopt;
  if (in.has(Mod::U32) == in.has(Mod::S32) || in.has(Mod::U64) || in.has(Mod::S64) ||
      in.has(Mod::OR) || in.has(Mod::XOR))
    return std::nullopt;
  if (in.srcs.size() == 3 && !(in.srcs[2].isReg() && in.srcs[2].reg == PT && !in.srcs[2].neg))
    return std::nullopt;
  std::optional<Mod> cmp;
  for (Mod m : {Mod::LT, Mod::LE, Mod::GT, Mod::GE, Mod::EQ, Mod::NE})
    if (in.has(m))
      cmp = m;
  if (!cmp)
    return std::nullopt;
  auto isRegister = [](const Operand &o) {
    return o.isReg() && o.reg.file == RegFile::R && !o.reg.isConst() && !o.neg && !o.abs;
  };
  auto isConstant = [](const Operand &o) {
    return o.kind == Operand::Kind::Imm || (o.isReg() && o.reg == RZ && !o.neg && !o.abs);
  };
  auto value = [](const Operand &o) { return o.kind == Operand::Kind::Imm ? uint32_t(o.imm) : 0u; };
  const Operand &a = in.srcs[0], &b = in.srcs[1];
  if (isRegister(a) && isConstant(b))
    return SwitchCompare{a.reg, in.dsts[0].reg, *cmp, in.has(Mod::S32), value(b)};
  if (isRegister(b) && isConstant(a)) {
    // c < S is S > c, and so on.
    static const std::map<Mod, Mod> mirror = {{Mod::LT, Mod::GT}, {Mod::GT, Mod::LT},
                                              {Mod::LE, Mod::GE}, {Mod::GE, Mod::LE},
                                              {Mod::EQ, Mod::EQ}, {Mod::NE, Mod::NE}};
    return SwitchCompare{b.reg, in.dsts[0].reg, mirror.at(*cmp), in.has(Mod::S32), value(a)};
  }
  return std::nullopt;
}

bool compareHolds(const SwitchCompare &c, uint32_t selector) {
  const uint32_t v = selector - c.bias;
  if (c.isBitTest) { // SHL gives 0 for a shift of 32 or more
    const bool hit = v < 32 && ((c.mask >> v) & 1);
    return c.cmp == Mod::NE ? hit : !hit;
  }
  const int32_t sv = int32_t(v), sc = int32_t(c.constant);
  switch (c.cmp) {
  case Mod::LT:
    return c.isSigned ? sv < sc : v < c.constant;
  case Mod::LE:
    return c.isSigned ? sv <= sc : v <= c.constant;
  case Mod::GT:
    return c.isSigned ? sv > sc : v > c.constant;
  case Mod::GE:
    return c.isSigned ? sv >= sc : v >= c.constant;
  case Mod::EQ:
    return v == c.constant;
  default:
    return v != c.constant;
  }
}

std::optional<BitTestShape> bitTestShape(const std::vector<Instr> &ins, Reg selector) {
  if (ins.size() != 3 && ins.size() != 5)
    return std::nullopt;
  const Instr &bra = ins.back();
  if (bra.op != Opcode::BRA || !bra.isGuarded() || bra.guard->reg.isConst())
    return std::nullopt;
  auto plainR = [](const Operand &o) {
    return o.isReg() && o.reg.file == RegFile::R && !o.reg.isConst() && !o.neg && !o.abs;
  };
  auto plain = [](const Instr &in, Opcode op, size_t srcs) {
    return in.op == op && !in.guard && in.dsts.size() == 1 && in.srcs.size() == srcs &&
           in.dsts[0].isReg() && in.dsts[0].reg.file == RegFile::R && !in.dsts[0].reg.isConst();
  };
  BitTestShape t{};
  size_t k = 0;
  if (ins.size() == 5) {
    const Instr &mov = ins[0], &shl = ins[1];
    if (!plain(mov, Opcode::MOV, 1) || !mov.mods.empty() ||
        mov.srcs[0].kind != Operand::Kind::Imm || mov.srcs[0].imm != 1)
      return std::nullopt;
    if (!plain(shl, Opcode::SHL, 2) || !shl.mods.empty() || !plainR(shl.srcs[0]) ||
        !plainR(shl.srcs[1]))
      return std::nullopt;
    const Reg one = mov.dsts[0].reg, bit = shl.dsts[0].reg;
    if (shl.srcs[0].reg != one || shl.srcs[1].reg != selector || bit == one || bit == selector ||
        one == selector)
      return std::nullopt;
    t.one = one;
    t.bit = bit;
    k = 2;
  }
  const Instr &lop = ins[k], &setp = ins[k + 1];
  if (!plain(lop, Opcode::LOP3, 4) || !lop.has(Mod::LUT) || lop.has(Mod::W64) ||
      lop.srcs[3].kind != Operand::Kind::Imm)
    return std::nullopt;
  std::optional<size_t> r, m, z;
  for (size_t i = 0; i < 3; ++i) {
    const Operand &o = lop.srcs[i];
    if (o.kind == Operand::Kind::Imm)
      m = i;
    else if (o.isReg() && o.reg == RZ && !o.neg)
      z = i;
    else if (plainR(o))
      r = i;
  }
  if (!r || !m || !z)
    return std::nullopt;
  const Reg bit = lop.srcs[*r].reg, x = lop.dsts[0].reg;
  if ((t.one && bit != t.bit) || bit == selector || x == selector)
    return std::nullopt;
  const uint32_t lut = uint32_t(lop.srcs[3].imm), constant = uint32_t(lop.srcs[*m].imm);
  auto lutAt = [&](uint32_t bitBit, uint32_t maskBit) { // source i is bit 2 - i of the index
    return (lut >> ((bitBit << (2 - *r)) | (maskBit << (2 - *m)))) & 1;
  };
  if (lutAt(0, 0) || lutAt(0, 1))
    return std::nullopt;
  uint32_t mask = 0;
  for (uint32_t i = 0; i < 32; ++i)
    mask |= lutAt(1, (constant >> i) & 1) << i;
  // ISETP.{NE,EQ}.{U32,S32}.AND P, PT, x, 0 or RZ (either side)[, PT]
  if (setp.op != Opcode::ISETP || setp.guard || setp.dsts.size() != 2 || setp.srcs.size() < 2 ||
      setp.srcs.size() > 3)
    return std::nullopt;
  if (!setp.dsts[0].isReg() || setp.dsts[0].reg.file != RegFile::P || setp.dsts[0].reg.isConst() ||
      !setp.dsts[1].isReg() || !setp.dsts[1].reg.isConst())
    return std::nullopt;
  if (setp.has(Mod::U32) == setp.has(Mod::S32) || setp.has(Mod::OR) || setp.has(Mod::XOR) ||
      setp.has(Mod::U64) || setp.has(Mod::S64) || !(setp.has(Mod::NE) || setp.has(Mod::EQ)))
    return std::nullopt;
  if (setp.srcs.size() == 3 &&
      !(setp.srcs[2].isReg() && setp.srcs[2].reg == PT && !setp.srcs[2].neg))
    return std::nullopt;
  auto isZero = [](const Operand &o) {
    return (o.kind == Operand::Kind::Imm && o.imm == 0) ||
           (o.isReg() && o.reg == RZ && !o.neg && !o.abs);
  };
  auto isX = [&](const Operand &o) { return plainR(o) && o.reg == x; };
  if (!((isX(setp.srcs[0]) && isZero(setp.srcs[1])) || (isZero(setp.srcs[0]) && isX(setp.srcs[1]))))
    return std::nullopt;
  const Reg p = setp.dsts[0].reg;
  if (p != bra.guard->reg)
    return std::nullopt;
  t.cmp = SwitchCompare{selector, p, setp.has(Mod::NE) ? Mod::NE : Mod::EQ, false, 0};
  t.cmp.isBitTest = true;
  t.cmp.mask = mask;
  t.bit = bit;
  t.x = x;
  t.isetpIndex = uint32_t(k + 1);
  return t;
}

uint32_t expandJmxComputation(Function &f) {
  uint32_t n = 0;
  for (Block &b : f.blocks)
    for (Instr &in : b.instrs)
      if (in.op == Opcode::JMX)
        in.op = Opcode::BRX, ++n;
  return n;
}

} // namespace ori
