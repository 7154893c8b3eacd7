// Models of the integer, logic, predicate and special-register opcodes
// (docs/interpreter.md, "Semantics table"; PTX ISA: add, mad, lop3, shl/shr,
// shf, min/max, setp). Written from those definitions, not from the
// interpreter's code: the cross-check compares the two.
#include "rules/lut.h"
#include "verify/opcode_model.h"
#include "verify/z3_lut_ops.h"

namespace ori::verify {
namespace models {
namespace {

unsigned widthOf(const ModelContext &m) { return m.has(Mod::W64) ? 64 : 32; }

struct IntType {
  unsigned bits;
  bool isSigned;
};
// .U32 .S32 .U64 .S64 (.64: 64-bit with the default signedness).
IntType intType(const ModelContext &m, bool defaultSigned) {
  if (m.has(Mod::U32))
    return {32, false};
  if (m.has(Mod::S32))
    return {32, true};
  if (m.has(Mod::U64))
    return {64, false};
  if (m.has(Mod::S64))
    return {64, true};
  return {m.has(Mod::W64) ? 64u : 32u, defaultSigned};
}

z3::expr less(const z3::expr &a, const z3::expr &b, bool isSigned) {
  return isSigned ? z3::slt(a, b) : z3::ult(a, b);
}

ModelOutputs one(const z3::expr &d) { return ModelOutputs{{d}, std::nullopt}; }

} // namespace

std::optional<ModelOutputs> mov(ModelContext &m) {
  if (m.in.srcs.empty() || m.in.srcs[0].kind == Operand::Kind::Symbol)
    return std::nullopt; // addresses: not a value
  return one(m.wide(m.intSrc(0, widthOf(m))));
}

std::optional<ModelOutputs> iadd3(ModelContext &m) {
  unsigned w = widthOf(m);
  return one(m.wide(m.intSrc(0, w) + m.intSrc(1, w) + m.intSrc(2, w)));
}

std::optional<ModelOutputs> sel(ModelContext &m) {
  unsigned w = widthOf(m);
  return one(m.wide(z3::ite(m.predSrc(2), m.intSrc(0, w), m.intSrc(1, w))));
}

// mad.lo (.64: 64-bit), mad.wide (32 x 32 -> 64, plus a 64-bit addend), mad.hi
// (the high half of the 64-bit product, plus a 32-bit addend); signed unless .U32.
std::optional<ModelOutputs> imad(ModelContext &m) {
  if (m.has(Mod::WIDE) || m.has(Mod::HI)) {
    bool isSigned = !m.has(Mod::U32);
    auto ext = [&](const z3::expr &v) { return isSigned ? Smt::sext(v, 64) : Smt::zext(v, 64); };
    z3::expr product = ext(m.intSrc(0, 32)) * ext(m.intSrc(1, 32));
    if (m.has(Mod::WIDE))
      return one(product + m.intSrc(2, 64));
    return one(m.wide(product.extract(63, 32) + m.intSrc(2, 32)));
  }
  unsigned w = widthOf(m);
  return one(m.wide(m.intSrc(0, w) * m.intSrc(1, w) + m.intSrc(2, w)));
}

// The LUT algebra's own evaluation (rules/lut.h) on the operation's width;
// the LUT is the immediate's low 8 bits (the parser allows 0..255 only).
std::optional<ModelOutputs> lop3(ModelContext &m) {
  unsigned w = widthOf(m);
  z3::expr lut = Smt::zext(Smt::low(m.raw(3), 8), w);
  return one(m.wide(lut::apply(lut, m.intSrc(0, w), m.intSrc(1, w), m.intSrc(2, w))));
}

// Each destination is bit (a<<2 | b<<1 | c) of its LUT: a LOP3 on 1-bit values.
std::optional<ModelOutputs> plop3(ModelContext &m) {
  z3::expr a = m.smt.bit(m.predSrc(0)), b = m.smt.bit(m.predSrc(1)), c = m.smt.bit(m.predSrc(2));
  z3::expr p = lut::apply(Smt::low(m.raw(3), 8), Smt::zext(a, 8), Smt::zext(b, 8), Smt::zext(c, 8));
  z3::expr q = lut::apply(Smt::low(m.raw(4), 8), Smt::zext(a, 8), Smt::zext(b, 8), Smt::zext(c, 8));
  return ModelOutputs{{m.smt.isSet(p.extract(0, 0)), m.smt.isSet(q.extract(0, 0))}, std::nullopt};
}

// PTX shl/shr: the amount is unsigned 32-bit and clamps (>= width gives 0 or
// the sign fill), which is exactly SMT-LIB's bvshl/bvlshr/bvashr.
std::optional<ModelOutputs> shl(ModelContext &m) {
  unsigned w = widthOf(m);
  return one(m.wide(z3::shl(m.intSrc(0, w), Smt::zext(m.intSrc(1, 32), w))));
}

std::optional<ModelOutputs> shr(ModelContext &m) {
  IntType t = intType(m, false);
  z3::expr a = m.intSrc(0, t.bits), s = Smt::zext(m.intSrc(1, 32), t.bits);
  return one(m.wide(t.isSigned ? z3::ashr(a, s) : z3::lshr(a, s)));
}

// Our IR's funnel shift: v = hi:lo, shifted by min(s, 32) (.U32/.S32, also
// untyped) or min(s, 64) (.U64/.S64), or with .W by s modulo that width (PTX
// shf .wrap); the low or (.HI) high 32 bits.
std::optional<ModelOutputs> shf(ModelContext &m) {
  auto dir = m.mod(ModGroup::Dir);
  if (!dir)
    return std::nullopt;
  IntType t = intType(m, false);
  z3::expr v = z3::concat(m.intSrc(2, 32), m.intSrc(0, 32));
  z3::expr s = Smt::zext(m.intSrc(1, 32), 64), limit = m.smt.bv(t.bits, 64);
  z3::expr n =
      m.has(Mod::W) ? (s & m.smt.bv(t.bits - 1, 64)) : z3::ite(z3::ult(s, limit), s, limit);
  z3::expr r = *dir == Mod::L ? z3::shl(v, n) : t.isSigned ? z3::ashr(v, n) : z3::lshr(v, n);
  return one(m.wide(m.has(Mod::HI) ? r.extract(63, 32) : r.extract(31, 0)));
}

std::optional<ModelOutputs> imnmx(ModelContext &m) {
  IntType t = intType(m, true);
  z3::expr a = m.intSrc(0, t.bits), b = m.intSrc(1, t.bits);
  z3::expr lt = less(a, b, t.isSigned);
  z3::expr mn = z3::ite(lt, a, b), mx = z3::ite(lt, b, a);
  return one(m.wide(z3::ite(m.predSrc(2), mn, mx)));
}

// d = (a << s) + b with an immediate s taken as unsigned (s >= width: a << s = 0).
std::optional<ModelOutputs> lea(ModelContext &m) {
  unsigned w = widthOf(m);
  z3::expr s = m.raw(2);
  z3::expr shifted =
      z3::ite(z3::uge(s, m.smt.bv(w, 64)), m.smt.bv(0, w), z3::shl(m.intSrc(0, w), Smt::low(s, w)));
  return one(m.wide(shifted + m.intSrc(1, w)));
}

std::optional<ModelOutputs> isetp(ModelContext &m) {
  auto cmp = m.mod(ModGroup::Cmp);
  if (!cmp)
    return std::nullopt;
  IntType t = intType(m, true);
  z3::expr a = m.intSrc(0, t.bits), b = m.intSrc(1, t.bits);
  std::optional<z3::expr> r;
  switch (*cmp) {
  case Mod::LT:
    r = less(a, b, t.isSigned);
    break;
  case Mod::EQ:
    r = a == b;
    break;
  case Mod::LE:
    r = !less(b, a, t.isSigned);
    break;
  case Mod::GT:
    r = less(b, a, t.isSigned);
    break;
  case Mod::NE:
    r = a != b;
    break;
  case Mod::GE:
    r = !less(a, b, t.isSigned);
    break;
  default:
    return std::nullopt; // the float-only comparisons
  }
  return predicatePair(m, *r, m.predSrc(2));
}

// SGXT: a with its bits from b up replaced by bit b-1 (.U32: by zeros); b = 0
// gives 0 and b >= the width gives a (b read as unsigned 32-bit).
std::optional<ModelOutputs> sgxt(ModelContext &m) {
  unsigned w = widthOf(m);
  z3::expr a = m.intSrc(0, w), b = Smt::zext(m.intSrc(1, 32), 64);
  z3::expr up = Smt::low(m.smt.bv(w, 64) - b, w); // w - b bits above the field, when b < w
  z3::expr field = z3::shl(a, up);
  z3::expr extended = m.has(Mod::U32) ? z3::lshr(field, up) : z3::ashr(field, up);
  z3::expr r = z3::ite(b == m.smt.bv(0, 64), m.smt.bv(0, w),
                       z3::ite(z3::ult(b, m.smt.bv(w, 64)), extended, a));
  return one(m.wide(r));
}

// PTX prmt: byte i of d is byte k_i of the 64-bit {b, a}. Without a mode k_i
// is nibble i of the selector (its bit 3: the byte's sign replicated); the
// modes pick k_i from s = sel[1:0]: f4e s+i, b4e s-i (mod 8), rc8 s,
// ecl max(i, s), ecr min(i, s), rc16 2*s[0] + i[0].
std::optional<ModelOutputs> prmt(ModelContext &m) {
  z3::expr bytes = z3::concat(m.intSrc(2, 32), m.intSrc(0, 32)), sel = m.intSrc(1, 32);
  auto mode = m.mod(ModGroup::PrmtMode);
  z3::expr s = Smt::zext(sel.extract(1, 0), 3);
  std::optional<z3::expr> r;
  for (unsigned i = 0; i < 4; ++i) {
    z3::expr k = m.smt.bv(0, 3), iv = m.smt.bv(i, 3);
    std::optional<z3::expr> sign;
    if (!mode) {
      k = sel.extract(4 * i + 2, 4 * i);
      sign = sel.extract(4 * i + 3, 4 * i + 3) == m.smt.bv(1, 1);
    } else {
      switch (*mode) {
      case Mod::F4E:
        k = s + iv;
        break;
      case Mod::B4E:
        k = s - iv;
        break;
      case Mod::RC8:
        k = s;
        break;
      case Mod::ECL:
        k = z3::ite(z3::ult(iv, s), s, iv);
        break;
      case Mod::ECR:
        k = z3::ite(z3::ult(iv, s), iv, s);
        break;
      default:
        k = z3::concat(sel.extract(0, 0), m.smt.bv(i & 1, 1));
        k = Smt::zext(k, 3);
        break; // RC16
      }
    }
    z3::expr byte = z3::lshr(bytes, Smt::zext(k, 64) * m.smt.bv(8, 64)).extract(7, 0);
    if (sign)
      byte = z3::ite(
          *sign, z3::ite(byte.extract(7, 7) == m.smt.bv(1, 1), m.smt.bv(0xff, 8), m.smt.bv(0, 8)),
          byte);
    r = r ? z3::concat(byte, *r) : byte;
  }
  return one(m.wide(*r));
}

// The number of set bits of the 32- or 64-bit source, as a 32-bit result.
std::optional<ModelOutputs> popc(ModelContext &m) {
  unsigned w = widthOf(m);
  z3::expr a = m.intSrc(0, w), n = m.smt.bv(0, 32);
  for (unsigned i = 0; i < w; ++i)
    n = n + Smt::zext(a.extract(i, i), 32);
  return one(m.wide(n));
}

std::optional<ModelOutputs> brev(ModelContext &m) {
  unsigned w = widthOf(m);
  z3::expr a = m.intSrc(0, w), r = a.extract(0, 0);
  for (unsigned i = 1; i < w; ++i)
    r = z3::concat(r, a.extract(i, i));
  return one(m.wide(r));
}

// PTX bfind: the position of the most significant non-sign bit (signed: of ~a
// when a < 0), 0xffffffff when there is none; .SH: width - 1 - position.
std::optional<ModelOutputs> flo(ModelContext &m) {
  IntType t = intType(m, false);
  z3::expr a = m.intSrc(0, t.bits);
  if (t.isSigned)
    a = z3::ite(z3::slt(a, m.smt.bv(0, t.bits)), ~a, a);
  z3::expr r = m.smt.bv(0xffffffff, 32);
  for (unsigned i = 0; i < t.bits; ++i) // the last bit set wins: the highest
    r = z3::ite(a.extract(i, i) == m.smt.bv(1, 1),
                m.smt.bv(m.has(Mod::SH) ? t.bits - 1 - i : i, 32), r);
  return one(m.wide(r));
}

// div/rem (docs/ptx.md): x / 0 and x % 0 are all ones; signed operations
// divide the magnitudes, negate the quotient when the signs differ and give
// the remainder the dividend's sign.
std::optional<ModelOutputs> idivRem(ModelContext &m) {
  IntType t = intType(m, false);
  bool rem = m.in.op == Opcode::IREM;
  z3::expr a = m.intSrc(0, t.bits), b = m.intSrc(1, t.bits), zero = m.smt.bv(0, t.bits);
  z3::expr r = zero;
  if (!t.isSigned) {
    r = rem ? z3::urem(a, b) : z3::udiv(a, b);
  } else {
    z3::expr negA = z3::slt(a, zero), negB = z3::slt(b, zero);
    z3::expr ma = z3::ite(negA, -a, a), mb = z3::ite(negB, -b, b);
    z3::expr q = rem ? z3::urem(ma, mb) : z3::udiv(ma, mb);
    r = z3::ite(rem ? negA : negA != negB, -q, q);
  }
  return one(m.wide(z3::ite(b == zero, ~zero, r)));
}

std::optional<ModelOutputs> s2r(ModelContext &m) {
  if (m.in.srcs.empty() || m.in.srcs[0].kind != Operand::Kind::SReg)
    return std::nullopt;
  const ModelInputs &x = m.x;
  switch (m.in.srcs[0].sreg) {
  case SpecialReg::TID_X:
    return one(m.wide(x.tid));
  case SpecialReg::CTAID_X:
    return one(m.wide(x.ctaid));
  case SpecialReg::NTID_X:
    return one(m.wide(x.ntid));
  case SpecialReg::NCTAID_X:
    return one(m.wide(x.nctaid));
  case SpecialReg::TID_Y:
  case SpecialReg::TID_Z:
  case SpecialReg::CTAID_Y:
  case SpecialReg::CTAID_Z:
    return one(m.smt.bv(0, 64));
  case SpecialReg::NTID_Y:
  case SpecialReg::NTID_Z:
  case SpecialReg::NCTAID_Y:
  case SpecialReg::NCTAID_Z:
    return one(m.smt.bv(1, 64));
  case SpecialReg::LANEID:
    return one(m.wide(z3::urem(x.tid, m.smt.bv(32, 32))));
  case SpecialReg::WARPID:
    return one(m.wide(z3::udiv(x.tid, m.smt.bv(32, 32))));
  case SpecialReg::SWINBASE:
    return one(m.smt.bv(0x7e0000000000, 64)); // docs/interpreter.md, generic windows
  case SpecialReg::LWINBASE:
    return one(m.smt.bv(0x7f0000000000, 64));
  case SpecialReg::CWINBASE:
    return one(m.smt.bv(0x7c0000000000, 64));
  default:
    return std::nullopt; // clocks, SM ids, lane masks: not deterministic one thread at a time
  }
}

// VOTE in a warp of one thread (the interpreter's only case, docs/interpreter.md): the
// ballot is the source's bit at the lane (tid mod 32); ALL and ANY give the source, EQ true.
std::optional<ModelOutputs> vote(ModelContext &m) {
  Smt &smt = m.smt;
  auto mode = m.mod(ModGroup::VoteOp);
  if (!mode)
    return std::nullopt;
  z3::expr a = m.predSrc(0);
  z3::expr lane = m.x.tid & smt.bv(31, 32);
  z3::expr ballot = z3::ite(a, z3::shl(smt.bv(1, 32), lane), smt.bv(0, 32));
  return ModelOutputs{{m.wide(ballot), *mode == Mod::EQ_V ? smt.boolVal(true) : a}, std::nullopt};
}

} // namespace models

ModelOutputs predicatePair(ModelContext &m, const z3::expr &r, const z3::expr &c) {
  Mod op = m.mod(ModGroup::BoolOp).value_or(Mod::AND);
  auto combine = [&](const z3::expr &v) {
    return op == Mod::OR ? (v || c) : op == Mod::XOR ? (v != c) : (v && c);
  };
  return ModelOutputs{{combine(r), combine(!r)}, std::nullopt};
}

} // namespace ori::verify
