// Models of the floating-point opcodes and conversions (docs/interpreter.md;
// PTX ISA add/mul/fma .rn .rz .rm .rp .ftz .sat, min/max, setp, cvt), on
// Z3's IEEE 754 terms. NaN results are canonical (binary32 0x7fffffff,
// binary64 0xfff8000000000000), so no result depends on which NaN Z3 picks.
#include <bit>
#include <cmath>

#include "ir/approx_math.h"
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

namespace {
constexpr uint64_t kNaN16 = 0x7fff; // binary16 and bfloat16

// A binary format of Z3's: the sort, its width and canonical NaN.
struct FloatFormat {
  z3::sort sort;
  unsigned bits, expBits;
  uint64_t nan;
};
FloatFormat formatOf(Smt& smt, Mod m) {
  switch (m) {
  case Mod::F16: case Mod::SRC_F16: return {smt.floatSort(5, 11), 16, 5, kNaN16};
  case Mod::BF16: case Mod::SRC_BF16: return {smt.floatSort(8, 8), 16, 8, kNaN16};
  case Mod::F32: case Mod::SRC_F32: return {smt.floatSort(8, 24), 32, 8, kNaN32};
  default: return {smt.floatSort(11, 53), 64, 11, kNaN64};
  }
}

// .FTZ of a 16-bit pattern with `expBits` exponent bits.
z3::expr flush16(Smt& smt, const z3::expr& b, unsigned expBits) {
  return z3::ite(b.extract(14, 15 - expBits) == smt.bv(0, expBits), b & smt.bv(0x8000, 16), b);
}

// Clamp to [0, 1]; NaN and -0.0 give +0.0 (cvt.sat, .SAT).
z3::expr saturate(Smt& smt, const z3::expr& x, const z3::sort& s) {
  return z3::ite(!smt.fpLt(smt.floatVal(0.0, s), x), smt.floatVal(0.0, s),
                 z3::ite(smt.fpLt(smt.floatVal(1.0, s), x), smt.floatVal(1.0, s), x));
}

// The bits of x in its format, NaN canonical.
z3::expr bitsOf(const z3::expr& x, uint64_t nan, unsigned bits, Smt& smt) {
  return z3::ite(x.mk_is_nan(), smt.bv(nan, bits), Smt::toBits(x));
}
} // namespace

std::optional<ModelOutputs> dmnmx(ModelContext& m) {
  Smt& smt = m.smt;
  z3::expr a = m.f64Src(0), b = m.f64Src(1);
  z3::expr x = smt.fromBits(a), y = smt.fromBits(b);
  z3::expr aNeg = a.extract(63, 63) == smt.bv(1, 1);
  z3::expr same = smt.fpEq(x, y);
  z3::expr minTakesA = smt.fpLt(x, y) || (same && aNeg);
  z3::expr maxTakesA = smt.fpLt(y, x) || (same && !aNeg);
  z3::expr pick = z3::ite(z3::ite(m.predSrc(2), minTakesA, maxTakesA), a, b);
  return one(z3::ite(x.mk_is_nan() && y.mk_is_nan(), smt.bv(kNaN64, 64),
                     z3::ite(x.mk_is_nan(), b, z3::ite(y.mk_is_nan(), a, pick))));
}

// F2F: the source in its format (.FTZ flushes a binary32 source), .SAT, then rounded to the
// destination's format (.FTZ flushes a binary32 result); NaN gives the destination's canonical NaN.
std::optional<ModelOutputs> f2f(ModelContext& m) {
  Smt& smt = m.smt;
  auto dm = m.mod(ModGroup::FType), sm = m.mod(ModGroup::FSrc);
  if (!dm || !sm) return std::nullopt;
  FloatFormat d = formatOf(smt, *dm), s = formatOf(smt, *sm);
  bool ftz = m.has(Mod::FTZ);
  z3::expr bits(smt.ctx());
  if (s.bits == 64) bits = m.f64Src(0);
  else if (s.bits == 32) bits = ftz ? flush32(smt, m.f32Src(0)) : m.f32Src(0);
  else {
    if (m.in.srcs.at(0).kind == Operand::Kind::FImm) return std::nullopt;
    bits = Smt::low(m.raw(0), 16);
    if (m.in.srcs[0].abs) bits = bits & smt.bv(0x7fff, 16);
    if (m.in.srcs[0].neg) bits = bits ^ smt.bv(0x8000, 16);
  }
  z3::expr x = smt.fromBits(bits, s.sort);
  if (m.has(Mod::SAT)) x = saturate(smt, x, s.sort);
  z3::expr y = s.bits == d.bits && s.expBits == d.expBits ? x : smt.fpConvert(roundingOf(m), x, d.sort);
  z3::expr out = bitsOf(y, d.nan, d.bits, smt);
  if (ftz && d.bits == 32) out = flush32(smt, out);
  return one(m.wide(out));
}

// FRND: to an integral value in the same format; NaN canonical. .FTZ flushes a binary32 source.
std::optional<ModelOutputs> frnd(ModelContext& m) {
  Smt& smt = m.smt;
  bool f64 = m.has(Mod::F64);
  if (f64 && m.has(Mod::FTZ)) return std::nullopt;
  Rounding r = Rounding::NearestEven;
  switch (m.mod(ModGroup::IRound).value_or(Mod::RN)) {
  case Mod::TRUNC: r = Rounding::TowardZero; break;
  case Mod::FLOOR: r = Rounding::Down; break;
  case Mod::CEIL: r = Rounding::Up; break;
  default: break;
  }
  z3::expr bits = f64 ? m.f64Src(0) : m.has(Mod::FTZ) ? flush32(smt, m.f32Src(0)) : m.f32Src(0);
  z3::expr y = smt.fpRoundToIntegral(r, smt.fromBits(bits));
  return one(m.wide(bitsOf(y, f64 ? kNaN64 : kNaN32, f64 ? 64 : 32, smt)));
}

// The binary32 operations ir/approx_math.h is written over, as Z3 floating-point terms
// rounded to nearest even.
struct Z3ApproxOps {
  using F = z3::expr;
  using B = z3::expr;
  Smt& smt;
  static constexpr Rounding kRne = Rounding::NearestEven;
  z3::expr c(float x) { return smt.fromBits(smt.bv(std::bit_cast<uint32_t>(x), 32)); }
  z3::expr add(const z3::expr& a, const z3::expr& b) { return smt.fpAdd(kRne, a, b); }
  z3::expr sub(const z3::expr& a, const z3::expr& b) { return smt.fpAdd(kRne, a, -b); }
  z3::expr mul(const z3::expr& a, const z3::expr& b) { return smt.fpMul(kRne, a, b); }
  z3::expr div(const z3::expr& a, const z3::expr& b) { return smt.fpDiv(kRne, a, b); }
  z3::expr fma(const z3::expr& a, const z3::expr& b, const z3::expr& c) { return smt.fpFma(kRne, a, b, c); }
  z3::expr neg(const z3::expr& a) { return -a; }
  z3::expr rint(const z3::expr& a) { return smt.fpRoundToIntegral(kRne, a); }
  z3::expr floor(const z3::expr& a) { return smt.fpRoundToIntegral(Rounding::Down, a); }
  z3::expr lt(const z3::expr& a, const z3::expr& b) { return smt.fpLt(a, b); }
  z3::expr eq(const z3::expr& a, const z3::expr& b) { return smt.fpEq(a, b); }
  z3::expr isNaN(const z3::expr& a) { return a.mk_is_nan(); }
  z3::expr isInf(const z3::expr& a) { return a.mk_is_inf(); }
  z3::expr any(const z3::expr& a, const z3::expr& b) { return a || b; }
  z3::expr select(const z3::expr& b, const z3::expr& x, const z3::expr& y) { return z3::ite(b, x, y); }
  z3::expr pow2(const z3::expr& n) { return smt.fromBits(z3::shl(smt.fpToSigned(n, 32) + smt.bv(127, 32), 23)); }
  z3::expr exponent(const z3::expr& x) {
    z3::expr e = Smt::zext(Smt::toBits(x).extract(30, 23), 32) - smt.bv(127, 32);
    return smt.intToFp(kRne, e, true, 32);
  }
  z3::expr significand(const z3::expr& x) {
    return smt.fromBits((Smt::toBits(x) & smt.bv(0x807fffffu, 32)) | smt.bv(0x3f800000u, 32));
  }
};

// MUFU, as docs/interpreter.md defines its results: RCP = RN(1/x), SQRT = RN(sqrt x),
// RSQ = RN(1/RN(sqrt x)), EX2/LG2/SIN/COS as ir/approx_math.h computes them; .FTZ flushes
// the source and the result.
std::optional<ModelOutputs> mufu(ModelContext& m) {
  Smt& smt = m.smt;
  auto fn = m.mod(ModGroup::MufuOp);
  if (!fn) return std::nullopt;
  bool ftz = m.has(Mod::FTZ);
  z3::expr x = smt.fromBits(ftz ? flush32(smt, m.f32Src(0)) : m.f32Src(0));
  z3::expr one32 = smt.floatVal(1.0, 32);
  std::optional<z3::expr> y;
  switch (*fn) {
  case Mod::RCP: y = smt.fpDiv(Rounding::NearestEven, one32, x); break;
  case Mod::SQRT: y = smt.fpSqrt(Rounding::NearestEven, x); break;
  case Mod::RSQ: y = smt.fpDiv(Rounding::NearestEven, one32, smt.fpSqrt(Rounding::NearestEven, x)); break;
  case Mod::EX2: { Z3ApproxOps o{smt}; y = approx::ex2(o, x); break; }
  case Mod::LG2: { Z3ApproxOps o{smt}; y = approx::lg2(o, x); break; }
  case Mod::SIN: case Mod::COS: { Z3ApproxOps o{smt}; y = approx::sinCos(o, x, *fn == Mod::COS); break; }
  default: return std::nullopt;
  }
  z3::expr out = ftz ? flush32(smt, Smt::toBits(*y)) : Smt::toBits(*y);
  return one(m.wide(z3::ite(y->mk_is_nan(), smt.bv(kNaN32, 32), out)));
}

// FDIV and FSQRT: IEEE division and square root in the requested direction.
std::optional<ModelOutputs> fdivSqrt(ModelContext& m) {
  Smt& smt = m.smt;
  bool div = m.in.op == Opcode::FDIV, f64 = m.has(Mod::F64), ftz = m.has(Mod::FTZ);
  if (f64 && ftz) return std::nullopt;
  auto in = [&](size_t i) {
    if (f64) return smt.fromBits(m.f64Src(i));
    return smt.fromBits(ftz ? flush32(smt, m.f32Src(i)) : m.f32Src(i));
  };
  Rounding r = roundingOf(m);
  z3::expr y = div ? smt.fpDiv(r, in(0), in(1)) : smt.fpSqrt(r, in(0));
  if (f64) return one(bitsOf(y, kNaN64, 64, smt));
  z3::expr out = ftz ? flush32(smt, Smt::toBits(y)) : Smt::toBits(y);
  return one(m.wide(z3::ite(y.mk_is_nan(), smt.bv(kNaN32, 32), out)));
}

// HADD2/HMUL2/HFMA2: each 16-bit lane on its own, rounded to nearest even; .FTZ flushes
// sources and result, .SAT clamps to [0, 1].
std::optional<ModelOutputs> half2(ModelContext& m) {
  Smt& smt = m.smt;
  FloatFormat f = formatOf(smt, m.has(Mod::BF16) ? Mod::BF16 : Mod::F16);
  bool ftz = m.has(Mod::FTZ), sat = m.has(Mod::SAT);
  size_t n = m.in.op == Opcode::HFMA2 ? 3 : 2;
  std::optional<z3::expr> result;
  for (unsigned lane = 0; lane < 2; ++lane) {
    std::vector<z3::expr> v;
    for (size_t i = 0; i < n; ++i) {
      z3::expr b = m.intSrc(i, 32).extract(16 * lane + 15, 16 * lane);
      v.push_back(smt.fromBits(ftz ? flush16(smt, b, f.expBits) : b, f.sort));
    }
    z3::expr y = m.in.op == Opcode::HADD2   ? smt.fpAdd(Rounding::NearestEven, v[0], v[1])
                 : m.in.op == Opcode::HMUL2 ? smt.fpMul(Rounding::NearestEven, v[0], v[1])
                                            : smt.fpFma(Rounding::NearestEven, v[0], v[1], v[2]);
    if (sat) y = saturate(smt, y, f.sort);
    z3::expr bits = bitsOf(y, kNaN16, 16, smt);
    if (ftz) bits = flush16(smt, bits, f.expBits);
    result = result ? z3::concat(bits, *result) : bits;
  }
  return one(m.wide(*result));
}

} // namespace models
} // namespace ori::verify
