// Helpers shared by the float models (verify/model_float.cpp, model_convert.cpp,
// model_half.cpp): formats as Z3 sorts, canonical NaNs, .FTZ, .SAT, .RELU, comparisons and
// PTX min/max. Internal to verify/; each mirrors a helper of interp/interp_float_impl.h.
#pragma once

#include <bit>
#include <cmath>
#include <optional>

#include "ir/approx_math.h"
#include "verify/opcode_model.h"

namespace ori::verify::models {

inline constexpr uint64_t kNaN16 = 0x7fff, kNaN32 = 0x7fffffff, kNaN64 = 0xfff8000000000000ull;

inline ModelOutputs one(const z3::expr &d) { return ModelOutputs{{d}, std::nullopt}; }

inline Rounding roundingOf(const ModelContext &m) {
  switch (m.mod(ModGroup::FRound).value_or(Mod::RN)) {
  case Mod::RZ:
    return Rounding::TowardZero;
  case Mod::RM:
    return Rounding::Down;
  case Mod::RP:
    return Rounding::Up;
  case Mod::RNA:
    return Rounding::NearestAway;
  default:
    return Rounding::NearestEven;
  }
}

// .FTZ of a `width`-bit pattern with `expBits` exponent bits: a denormal (exponent field 0)
// becomes a zero of the same sign.
inline z3::expr flushBits(Smt &smt, const z3::expr &b, unsigned width, unsigned expBits) {
  uint64_t sign = uint64_t(1) << (width - 1);
  return z3::ite(b.extract(width - 2, width - 1 - expBits) == smt.bv(0, expBits),
                 b & smt.bv(sign, width), b);
}
inline z3::expr flush32(Smt &smt, const z3::expr &b) { return flushBits(smt, b, 32, 8); }
inline z3::expr flush16(Smt &smt, const z3::expr &b, unsigned expBits) {
  return flushBits(smt, b, 16, expBits);
}

// A format of Z3's: the sort (IEEE 754), the width of the pattern and its canonical NaN.
struct FloatFormat {
  z3::sort sort;
  unsigned bits, expBits;
  uint64_t nan;
};
inline FloatFormat formatOf(Smt &smt, Mod m) {
  switch (m) {
  case Mod::F16:
  case Mod::SRC_F16:
    return {smt.floatSort(5, 11), 16, 5, kNaN16};
  case Mod::BF16:
  case Mod::SRC_BF16:
    return {smt.floatSort(8, 8), 16, 8, kNaN16};
  case Mod::F32:
  case Mod::SRC_F32:
    return {smt.floatSort(8, 24), 32, 8, kNaN32};
  case Mod::TF32:
    return {smt.floatSort(8, 11), 19, 8, 0x3ffff}; // shifted into binary32's top 19 bits
  case Mod::E5M2:
  case Mod::SRC_E5M2:
    return {smt.floatSort(5, 3), 8, 5, 0x7f};
  case Mod::E4M3:
  case Mod::SRC_E4M3:
    return {smt.floatSort(5, 4), 8, 4, 0x7f}; // see encodeE4M3
  default:
    return {smt.floatSort(11, 53), 64, 11, kNaN64};
  }
}

// Clamp to [0, 1]; NaN and -0.0 give +0.0 (cvt.sat, .SAT).
inline z3::expr saturate(Smt &smt, const z3::expr &x, const z3::sort &s) {
  return z3::ite(!smt.fpLt(smt.floatVal(0.0, s), x), smt.floatVal(0.0, s),
                 z3::ite(smt.fpLt(smt.floatVal(1.0, s), x), smt.floatVal(1.0, s), x));
}

// The bits of x in its format, NaN canonical.
inline z3::expr bitsOf(const z3::expr &x, uint64_t nan, unsigned bits, Smt &smt) {
  return z3::ite(x.mk_is_nan(), smt.bv(nan, bits), Smt::toBits(x));
}

// PTX .relu on a result's bits: a negative one (-0.0 too) becomes +0.0, NaN canonical.
inline z3::expr reluBits(Smt &smt, const z3::expr &bits, const z3::expr &isNaN, unsigned width,
                         uint64_t nan) {
  z3::expr negative = bits.extract(width - 1, width - 1) == smt.bv(1, 1);
  return z3::ite(isNaN, smt.bv(nan, width), z3::ite(negative, smt.bv(0, width), bits));
}

// A float comparison of PTX setp (ordered ones false with a NaN, the U forms true).
inline std::optional<z3::expr> compareExpr(Smt &smt, Mod cmp, const z3::expr &x,
                                           const z3::expr &y) {
  z3::expr un = x.mk_is_nan() || y.mk_is_nan();
  z3::expr lt = smt.fpLt(x, y), gt = smt.fpLt(y, x), eq = smt.fpEq(x, y);
  switch (cmp) {
  case Mod::F:
    return smt.boolVal(false);
  case Mod::LT:
    return lt;
  case Mod::EQ:
    return eq;
  case Mod::LE:
    return lt || eq;
  case Mod::GT:
    return gt;
  case Mod::NE:
    return lt || gt;
  case Mod::GE:
    return gt || eq;
  case Mod::NUM:
    return !un;
  case Mod::NAN_:
    return un;
  case Mod::LTU:
    return un || lt;
  case Mod::EQU:
    return un || eq;
  case Mod::LEU:
    return un || lt || eq;
  case Mod::GTU:
    return un || gt;
  case Mod::NEU:
    return un || lt || gt;
  case Mod::GEU:
    return un || gt || eq;
  case Mod::T:
    return smt.boolVal(true);
  default:
    return std::nullopt;
  }
}

// PTX min/max of two `width`-bit patterns of sort s (interp_float_impl.h's minMaxBits):
// -0.0 < +0.0, one NaN gives the other operand, two (or, with nanWins, any) the canonical NaN;
// xorSign: min/max of the magnitudes with the XOR of the signs.
inline z3::expr minMaxExpr(Smt &smt, z3::expr a, z3::expr b, const z3::expr &takeMin, bool nanWins,
                           bool xorSign, const z3::sort &s, unsigned width, uint64_t nan) {
  z3::expr sign = smt.bv(uint64_t(1) << (width - 1), width);
  z3::expr xs = (a ^ b) & sign;
  if (xorSign) {
    a = a & ~sign;
    b = b & ~sign;
  }
  z3::expr x = smt.fromBits(a, s), y = smt.fromBits(b, s);
  z3::expr aNeg = a.extract(width - 1, width - 1) == smt.bv(1, 1);
  z3::expr same = smt.fpEq(x, y);
  z3::expr minTakesA = smt.fpLt(x, y) || (same && aNeg);
  z3::expr maxTakesA = smt.fpLt(y, x) || (same && !aNeg);
  z3::expr pick = z3::ite(z3::ite(takeMin, minTakesA, maxTakesA), a, b);
  z3::expr na = x.mk_is_nan(), nb = y.mk_is_nan();
  z3::expr r = z3::ite(na, b, z3::ite(nb, a, pick));
  if (xorSign)
    r = (r & ~sign) | xs;
  z3::expr nanOut = nanWins ? (na || nb) : (na && nb);
  return z3::ite(nanOut, smt.bv(nan, width), r);
}

// The binary32 operations ir/approx_math.h is written over, as Z3 floating-point terms
// rounded to nearest even.
struct Z3ApproxOps {
  using F = z3::expr;
  using B = z3::expr;
  Smt &smt;
  static constexpr Rounding kRne = Rounding::NearestEven;
  z3::expr c(float x) { return smt.fromBits(smt.bv(std::bit_cast<uint32_t>(x), 32)); }
  z3::expr add(const z3::expr &a, const z3::expr &b) { return smt.fpAdd(kRne, a, b); }
  z3::expr sub(const z3::expr &a, const z3::expr &b) { return smt.fpAdd(kRne, a, -b); }
  z3::expr mul(const z3::expr &a, const z3::expr &b) { return smt.fpMul(kRne, a, b); }
  z3::expr div(const z3::expr &a, const z3::expr &b) { return smt.fpDiv(kRne, a, b); }
  z3::expr fma(const z3::expr &a, const z3::expr &b, const z3::expr &c) {
    return smt.fpFma(kRne, a, b, c);
  }
  z3::expr neg(const z3::expr &a) { return -a; }
  z3::expr rint(const z3::expr &a) { return smt.fpRoundToIntegral(kRne, a); }
  z3::expr floor(const z3::expr &a) { return smt.fpRoundToIntegral(Rounding::Down, a); }
  z3::expr lt(const z3::expr &a, const z3::expr &b) { return smt.fpLt(a, b); }
  z3::expr eq(const z3::expr &a, const z3::expr &b) { return smt.fpEq(a, b); }
  z3::expr isNaN(const z3::expr &a) { return a.mk_is_nan(); }
  z3::expr isInf(const z3::expr &a) { return a.mk_is_inf(); }
  z3::expr any(const z3::expr &a, const z3::expr &b) { return a || b; }
  z3::expr select(const z3::expr &b, const z3::expr &x, const z3::expr &y) {
    return z3::ite(b, x, y);
  }
  z3::expr pow2(const z3::expr &n) {
    return smt.fromBits(z3::shl(smt.fpToSigned(n, 32) + smt.bv(127, 32), 23));
  }
  z3::expr exponent(const z3::expr &x) {
    z3::expr e = Smt::zext(Smt::toBits(x).extract(30, 23), 32) - smt.bv(127, 32);
    return smt.intToFp(kRne, e, true, 32);
  }
  z3::expr significand(const z3::expr &x) {
    return smt.fromBits((Smt::toBits(x) & smt.bv(0x807fffffu, 32)) | smt.bv(0x3f800000u, 32));
  }
};

} // namespace ori::verify::models
