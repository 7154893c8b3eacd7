// Models of the floating-point opcodes and conversions (docs/interpreter.md;
// PTX ISA add/mul/fma .rn .rz .rm .rp .ftz .sat, min/max, setp, cvt), on
// Z3's IEEE 754 terms. NaN results are canonical (binary32 0x7fffffff,
// binary64 0xfff8000000000000), so no result depends on which NaN Z3 picks.
#include <cmath>

#include "verify/opcode_model.h"

namespace ori::verify {
namespace models {
namespace {

constexpr uint64_t kNaN32 = 0x7fffffff, kNaN64 = 0xfff8000000000000ull, kOne32 = 0x3f800000;

Rounding roundingOf(const ModelContext& m) {
  switch (m.mod(ModGroup::FRound).value_or(Mod::RN)) {
  case Mod::RZ: return Rounding::TowardZero;
  case Mod::RM: return Rounding::Down;
  case Mod::RP: return Rounding::Up;
  default: return Rounding::NearestEven;
  }
}

// .FTZ: a denormal (exponent field 0) becomes a zero of the same sign.
z3::expr flush32(Smt& smt, const z3::expr& b) {
  return z3::ite(b.extract(30, 23) == smt.bv(0, 8), b & smt.bv(0x80000000u, 32), b);
}

ModelOutputs one(const z3::expr& d) { return ModelOutputs{{d}, std::nullopt}; }

} // namespace

std::optional<ModelOutputs> fArith(ModelContext& m) {
  Smt& smt = m.smt;
  bool ftz = m.has(Mod::FTZ), sat = m.has(Mod::SAT);
  auto in = [&](size_t i) { z3::expr b = m.f32Src(i); return smt.fromBits(ftz ? flush32(smt, b) : b); };
  Rounding r = roundingOf(m);
  std::optional<z3::expr> v;
  switch (m.in.op) {
  case Opcode::FADD: v = smt.fpAdd(r, in(0), in(1)); break;
  case Opcode::FMUL: v = smt.fpMul(r, in(0), in(1)); break;
  case Opcode::FFMA: v = smt.fpFma(r, in(0), in(1), in(2)); break;
  default: return std::nullopt;
  }
  z3::expr bits = Smt::toBits(*v);
  if (ftz) bits = flush32(smt, bits);
  if (sat) { // clamp to [0, 1]: NaN and -0.0 give +0.0 (after .FTZ)
    z3::expr x = smt.fromBits(bits);
    bits = z3::ite(!smt.fpLt(smt.floatVal(0.0, 32), x), smt.bv(0, 32),
                   z3::ite(smt.fpLt(smt.floatVal(1.0, 32), x), smt.bv(kOne32, 32), bits));
  }
  bits = z3::ite(v->mk_is_nan(), smt.bv(sat ? 0 : kNaN32, 32), bits);
  return one(m.wide(bits));
}

std::optional<ModelOutputs> dArith(ModelContext& m) {
  Smt& smt = m.smt;
  auto in = [&](size_t i) { return smt.fromBits(m.f64Src(i)); };
  Rounding r = roundingOf(m);
  std::optional<z3::expr> v;
  switch (m.in.op) {
  case Opcode::DADD: v = smt.fpAdd(r, in(0), in(1)); break;
  case Opcode::DMUL: v = smt.fpMul(r, in(0), in(1)); break;
  case Opcode::DFMA: v = smt.fpFma(r, in(0), in(1), in(2)); break;
  default: return std::nullopt;
  }
  return one(z3::ite(v->mk_is_nan(), smt.bv(kNaN64, 64), Smt::toBits(*v)));
}

// IEEE 754-2019 minimumNumber/maximumNumber with -0.0 < +0.0; the result is
// one of the (flushed) inputs bit for bit; two NaNs give the canonical NaN.
std::optional<ModelOutputs> fmnmx(ModelContext& m) {
  Smt& smt = m.smt;
  z3::expr a = m.f32Src(0), b = m.f32Src(1);
  if (m.has(Mod::FTZ)) { a = flush32(smt, a); b = flush32(smt, b); }
  z3::expr x = smt.fromBits(a), y = smt.fromBits(b);
  z3::expr aNeg = a.extract(31, 31) == smt.bv(1, 1);
  z3::expr same = smt.fpEq(x, y); // also +0.0 == -0.0
  z3::expr minTakesA = smt.fpLt(x, y) || (same && aNeg);
  z3::expr maxTakesA = smt.fpLt(y, x) || (same && !aNeg);
  z3::expr pick = z3::ite(z3::ite(m.predSrc(2), minTakesA, maxTakesA), a, b);
  z3::expr r = z3::ite(x.mk_is_nan() && y.mk_is_nan(), smt.bv(kNaN32, 32),
                       z3::ite(x.mk_is_nan(), b, z3::ite(y.mk_is_nan(), a, pick)));
  return one(m.wide(r));
}

// PTX setp on floats: ordered comparisons are false with a NaN operand, the
// U forms true; NUM/NAN test for NaNs; T and F are constant.
std::optional<ModelOutputs> fsetp(ModelContext& m) {
  Smt& smt = m.smt;
  auto cmp = m.mod(ModGroup::Cmp);
  if (!cmp) return std::nullopt;
  z3::expr x(smt.ctx()), y(smt.ctx());
  if (m.in.op == Opcode::FSETP) {
    z3::expr a = m.f32Src(0), b = m.f32Src(1);
    if (m.has(Mod::FTZ)) { a = flush32(smt, a); b = flush32(smt, b); }
    x = smt.fromBits(a);
    y = smt.fromBits(b);
  } else {
    x = smt.fromBits(m.f64Src(0));
    y = smt.fromBits(m.f64Src(1));
  }
  z3::expr un = x.mk_is_nan() || y.mk_is_nan();
  z3::expr lt = smt.fpLt(x, y), gt = smt.fpLt(y, x), eq = smt.fpEq(x, y);
  std::optional<z3::expr> r;
  switch (*cmp) {
  case Mod::F: r = smt.boolVal(false); break;
  case Mod::LT: r = lt; break;
  case Mod::EQ: r = eq; break;
  case Mod::LE: r = lt || eq; break;
  case Mod::GT: r = gt; break;
  case Mod::NE: r = lt || gt; break;
  case Mod::GE: r = gt || eq; break;
  case Mod::NUM: r = !un; break;
  case Mod::NAN_: r = un; break;
  case Mod::LTU: r = un || lt; break;
  case Mod::EQU: r = un || eq; break;
  case Mod::LEU: r = un || lt || eq; break;
  case Mod::GTU: r = un || gt; break;
  case Mod::NEU: r = un || lt || gt; break;
  case Mod::GEU: r = un || gt || eq; break;
  case Mod::T: r = smt.boolVal(true); break;
  default: return std::nullopt;
  }
  return predicatePair(m, *r, m.predSrc(2));
}

namespace {
struct IntKind {
  unsigned bits;
  bool isSigned;
};
std::optional<IntKind> intKind(const ModelContext& m) {
  switch (m.mod(ModGroup::Type).value_or(Mod::S32)) {
  case Mod::U8: return IntKind{8, false};
  case Mod::S8: return IntKind{8, true};
  case Mod::U16: return IntKind{16, false};
  case Mod::S16: return IntKind{16, true};
  case Mod::U32: return IntKind{32, false};
  case Mod::S32: return IntKind{32, true};
  case Mod::U64: return IntKind{64, false};
  case Mod::S64: return IntKind{64, true};
  default: return std::nullopt;
  }
}
} // namespace

// cvt.f32/f64 from an integer of the source type (its low 8/16/32/64 bits),
// correctly rounded in the requested direction (.RN by default).
std::optional<ModelOutputs> i2f(ModelContext& m) {
  auto k = intKind(m);
  if (!k) return std::nullopt;
  z3::expr v = Smt::low(m.intSrc(0, k->bits == 64 ? 64 : 32), k->bits);
  unsigned fw = m.has(Mod::F64) ? 64 : 32;
  return one(m.wide(Smt::toBits(m.smt.intToFp(roundingOf(m), v, k->isSigned, fw))));
}

// cvt to an integer: round (.rni by default, TRUNC .rzi, FLOOR .rmi, CEIL
// .rpi), NaN gives 0, out-of-range values saturate. 8/16-bit results are
// sign- or zero-extended to 32 bits.
std::optional<ModelOutputs> f2i(ModelContext& m) {
  Smt& smt = m.smt;
  auto k = intKind(m);
  if (!k) return std::nullopt;
  bool f64 = m.has(Mod::F64);
  if (f64 && m.has(Mod::FTZ)) return std::nullopt; // PTX: .ftz only for f32 sources
  unsigned fw = f64 ? 64 : 32;
  z3::expr bits = f64 ? m.f64Src(0) : m.f32Src(0);
  if (m.has(Mod::FTZ)) bits = flush32(smt, bits);
  z3::expr x = smt.fromBits(bits);
  Rounding r = Rounding::NearestEven;
  switch (m.mod(ModGroup::IRound).value_or(Mod::RN)) {
  case Mod::TRUNC: r = Rounding::TowardZero; break;
  case Mod::FLOOR: r = Rounding::Down; break;
  case Mod::CEIL: r = Rounding::Up; break;
  default: break;
  }
  z3::expr i = smt.fpRoundToIntegral(r, x);
  unsigned dw = k->bits == 64 ? 64 : 32;
  std::optional<z3::expr> out;
  if (k->isSigned) {
    z3::expr lim = smt.floatVal(std::ldexp(1.0, int(k->bits) - 1), fw); // 2^(bits-1)
    z3::expr maxV = smt.bv((uint64_t(1) << (k->bits - 1)) - 1, k->bits);
    z3::expr minV = smt.bv(uint64_t(1) << (k->bits - 1), k->bits);
    z3::expr inRange = smt.fpLt(i, lim) && !smt.fpLt(i, -lim);
    z3::expr v = z3::ite(inRange, smt.fpToSigned(i, k->bits), z3::ite(smt.fpLt(i, smt.floatVal(0.0, fw)), minV, maxV));
    out = Smt::sext(v, dw);
  } else {
    z3::expr lim = smt.floatVal(std::ldexp(1.0, int(k->bits)), fw); // 2^bits
    z3::expr v = z3::ite(!smt.fpLt(smt.floatVal(0.0, fw), i), smt.bv(0, k->bits),
                         z3::ite(smt.fpLt(i, lim), smt.fpToUnsigned(i, k->bits), smt.bv(~uint64_t(0), k->bits)));
    out = Smt::zext(v, dw);
  }
  return one(m.wide(z3::ite(x.mk_is_nan(), smt.bv(0, dw), *out)));
}

} // namespace models
} // namespace ori::verify
