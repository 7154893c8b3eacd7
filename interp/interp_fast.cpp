// The fast path of the SIMT runner (interp/interp_impl.h, execFast): an
// instruction of the common plain forms is decoded once per warp instead of
// once per lane, then each lane only reads its registers and computes. The
// semantics are execInteger's (interp/interp_alu.cpp); forms with anything
// else (an |abs|, a constant bank indexed by a register, a symbol, another
// modifier) return false and take that general path.
#include <algorithm>
#include <bit>

#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

// A decoded integer source: a register of file R or UR, or a value the same in every lane.
struct Source {
  bool isReg = false;
  Reg reg{};
  uint64_t value = 0;
  bool neg = false;
  uint64_t read(const Thread& t, unsigned bits) const {
    uint64_t v = isReg ? t.regs.get(reg) : value;
    return maskTo(neg ? uint64_t(0) - v : v, bits);
  }
};

bool decode(const Machine& m, const Operand& o, unsigned bits, Source& s) {
  if (o.abs) return false;
  s.neg = o.neg;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral()) return false;
    if (o.reg.isConst()) { s.isReg = false; s.value = 0; return true; }
    s.isReg = true;
    s.reg = o.reg;
    return true;
  case Operand::Kind::Imm: s.value = uint64_t(o.imm); return true;
  case Operand::Kind::CBank:
    if (o.hasReg) return false;
    s.value = m.readCBank(o, bits / 8); // may fault: as the first lane would
    return true;
  default: return false;
  }
}

bool predicate(const Operand& o, Reg& r, bool& neg) {
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate()) return false;
  r = o.reg;
  neg = o.neg;
  return true;
}

bool generalDst(const Operand& o) { return o.kind == Operand::Kind::Reg && o.reg.isGeneral(); }

bool onlyMods(const Instr& in, std::initializer_list<Mod> allowed) {
  ModSet rest = in.mods;
  for (Mod x : allowed) rest.reset(x);
  return rest.empty();
}

template <typename F>
void forLanes(Thread* lanes, uint32_t exec, F f) {
  for (uint32_t k = exec; k; k &= k - 1) f(lanes[std::countr_zero(k)]);
}

} // namespace

bool execFast(Machine& m, const Instr& in, Thread* lanes, uint32_t exec) {
  Source a, b, c;
  switch (in.op) {
  case Opcode::MOV: case Opcode::IADD3: case Opcode::LOP3: case Opcode::SEL: case Opcode::LEA: {
    if (!onlyMods(in, {Mod::W64}) || in.dsts.size() != 1 || !generalDst(in.dsts[0])) return false;
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    const Reg d = in.dsts[0].reg;
    if (in.op == Opcode::MOV) {
      if (in.srcs.size() != 1 || !decode(m, in.srcs[0], w, a)) return false;
      forLanes(lanes, exec, [&](Thread& t) { t.regs.set(d, a.read(t, w)); });
      return true;
    }
    if (in.srcs.size() < 2 || !decode(m, in.srcs[0], w, a)) return false;
    if (in.op == Opcode::LEA) {
      if (in.srcs.size() != 3 || !decode(m, in.srcs[1], w, b) || in.srcs[2].kind != Operand::Kind::Imm) return false;
      const uint64_t s = uint64_t(in.srcs[2].imm);
      forLanes(lanes, exec, [&](Thread& t) {
        uint64_t x = a.read(t, w);
        t.regs.set(d, maskTo((s >= w ? 0 : x << s) + b.read(t, w), w));
      });
      return true;
    }
    if (in.op == Opcode::SEL) {
      Reg p;
      bool pneg = false;
      if (in.srcs.size() != 3 || !decode(m, in.srcs[1], w, b) || !predicate(in.srcs[2], p, pneg)) return false;
      forLanes(lanes, exec, [&](Thread& t) {
        t.regs.set(d, ((t.regs.get(p) & 1) != pneg) ? a.read(t, w) : b.read(t, w));
      });
      return true;
    }
    if (in.srcs.size() < 3 || !decode(m, in.srcs[1], w, b) || !decode(m, in.srcs[2], w, c)) return false;
    if (in.op == Opcode::IADD3) {
      if (in.srcs.size() != 3) return false;
      forLanes(lanes, exec, [&](Thread& t) { t.regs.set(d, maskTo(a.read(t, w) + b.read(t, w) + c.read(t, w), w)); });
      return true;
    }
    // LOP3: bit (a<<2 | b<<1 | c) of the LUT, as interp_alu.cpp's lop3.
    if (in.srcs.size() != 4 || in.srcs[3].kind != Operand::Kind::Imm || in.srcs[3].imm < 0 || in.srcs[3].imm > 0xff)
      return false;
    const uint32_t lut = uint32_t(in.srcs[3].imm);
    forLanes(lanes, exec, [&](Thread& t) {
      const uint64_t x = a.read(t, w), y = b.read(t, w), z = c.read(t, w);
      uint64_t r = 0;
      for (unsigned i = 0; i < 8; ++i)
        if ((lut >> i) & 1) r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
      t.regs.set(d, maskTo(r, w));
    });
    return true;
  }
  case Opcode::IMAD: {
    if (!onlyMods(in, {Mod::WIDE, Mod::HI, Mod::U32, Mod::S32}) || in.has(Mod::HI) || in.dsts.size() != 1 ||
        !generalDst(in.dsts[0]) || in.srcs.size() != 3)
      return false;
    const Reg d = in.dsts[0].reg;
    if (in.has(Mod::WIDE)) {
      const bool isSigned = !in.has(Mod::U32);
      if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) || !decode(m, in.srcs[2], 64, c)) return false;
      forLanes(lanes, exec, [&](Thread& t) {
        const uint64_t x = a.read(t, 32), y = b.read(t, 32);
        const uint64_t p = isSigned ? uint64_t(signExtend(x, 32) * signExtend(y, 32)) : x * y;
        t.regs.set(d, p + c.read(t, 64));
      });
      return true;
    }
    if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) || !decode(m, in.srcs[2], 32, c)) return false;
    forLanes(lanes, exec, [&](Thread& t) { t.regs.set(d, maskTo(a.read(t, 32) * b.read(t, 32) + c.read(t, 32), 32)); });
    return true;
  }
  case Opcode::SHF: { // as interp_alu.cpp: v = hi:lo, shifted by the clamped amount
    const bool left = in.has(Mod::L);
    if (!onlyMods(in, {Mod::L, Mod::R, Mod::HI, Mod::U32, Mod::S32}) || left == in.has(Mod::R) ||
        in.dsts.size() != 1 || !generalDst(in.dsts[0]) || in.srcs.size() != 3)
      return false;
    if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) || !decode(m, in.srcs[2], 32, c)) return false;
    const Reg d = in.dsts[0].reg;
    const bool arithmetic = in.has(Mod::S32), hi = in.has(Mod::HI);
    forLanes(lanes, exec, [&](Thread& t) {
      const uint64_t v = c.read(t, 32) << 32 | a.read(t, 32), n = std::min<uint64_t>(b.read(t, 32), 32);
      const uint64_t r = left ? v << n : arithmetic ? uint64_t(int64_t(v) >> n) : v >> n;
      t.regs.set(d, maskTo(hi ? r >> 32 : r, 32));
    });
    return true;
  }
  case Opcode::ISETP: {
    std::optional<Mod> cmp = modOf(in, ModGroup::Cmp);
    if (!cmp || in.dsts.size() != 2 || in.srcs.size() != 3) return false;
    const Operand &p0 = in.dsts[0], &p1 = in.dsts[1];
    if (p0.kind != Operand::Kind::Reg || !p0.reg.isPredicate() || p1.kind != Operand::Kind::Reg || !p1.reg.isPredicate())
      return false;
    const bool u = in.has(Mod::U32) || in.has(Mod::U64);
    const unsigned w = in.has(Mod::U64) || in.has(Mod::S64) ? 64 : 32;
    const Mod op = modOf(in, ModGroup::BoolOp).value_or(Mod::AND);
    Reg q;
    bool qneg = false;
    if (!decode(m, in.srcs[0], w, a) || !decode(m, in.srcs[1], w, b) || !predicate(in.srcs[2], q, qneg)) return false;
    auto combine = [op](bool r, bool k) { return op == Mod::OR ? r || k : op == Mod::XOR ? r != k : r && k; };
    const Mod cm = *cmp;
    if (cm != Mod::LT && cm != Mod::EQ && cm != Mod::LE && cm != Mod::GT && cm != Mod::NE && cm != Mod::GE) return false;
    forLanes(lanes, exec, [&](Thread& t) {
      const uint64_t x = a.read(t, w), y = b.read(t, w);
      const bool lt = u ? x < y : signExtend(x, w) < signExtend(y, w), gt = u ? y < x : signExtend(y, w) < signExtend(x, w);
      const bool r = cm == Mod::LT ? lt : cm == Mod::EQ ? x == y : cm == Mod::LE ? !gt : cm == Mod::GT ? gt : cm == Mod::NE ? x != y : !lt;
      const bool k = (t.regs.get(q) & 1) != qneg;
      t.regs.set(p0.reg, combine(r, k) ? 1 : 0);
      t.regs.set(p1.reg, combine(!r, k) ? 1 : 0);
    });
    return true;
  }
  default: return false;
  }
}

} // namespace ori::interp_detail
