// Models of the conversions I2F, F2I, F2F, FRND and F2FP (PTX cvt, ISA 9.7.9.21), on Z3's
// IEEE 754 terms; interp/interp_convert.cpp is the interpreter's side. E4M3 has no Z3 sort of
// its own (its top exponent is finite): encodeE4M3/decodeE4M3 go through binary16-like sorts.
#include <bit>
#include <cmath>

#include "ir/float_format.h"
#include "verify/model_float_impl.h"

namespace ori::verify {
namespace models {
namespace {

struct IntKind {
  unsigned bits;
  bool isSigned;
};
std::optional<IntKind> intKind(const ModelContext &m) {
  switch (m.mod(ModGroup::Type).value_or(Mod::S32)) {
  case Mod::U8:
    return IntKind{8, false};
  case Mod::S8:
    return IntKind{8, true};
  case Mod::U16:
    return IntKind{16, false};
  case Mod::S16:
    return IntKind{16, true};
  case Mod::U32:
    return IntKind{32, false};
  case Mod::S32:
    return IntKind{32, true};
  case Mod::U64:
    return IntKind{64, false};
  case Mod::S64:
    return IntKind{64, true};
  default:
    return std::nullopt;
  }
}

z3::expr fpAbs(Smt &smt, const z3::expr &x) {
  return z3::expr(smt.ctx(), Z3_mk_fpa_abs(smt.ctx(), x));
}

// A 16-bit source: the low half of the register, `|..|` then `-` on bit 15 (nullopt for a
// float immediate, which no lowering makes).
std::optional<z3::expr> halfSrc(ModelContext &m, size_t i) {
  if (m.in.srcs.at(i).kind == Operand::Kind::FImm)
    return std::nullopt;
  z3::expr b = Smt::low(m.raw(i), 16);
  if (m.in.srcs[i].abs)
    b = b & m.smt.bv(0x7fff, 16);
  if (m.in.srcs[i].neg)
    b = b ^ m.smt.bv(0x8000, 16);
  return b;
}

// A destination format as ir/float_format.h describes it (for its largest finite value).
fp::Format hostFormat(Mod m) {
  switch (m) {
  case Mod::F16:
    return fp::kHalf;
  case Mod::BF16:
    return fp::kBFloat16;
  case Mod::TF32:
    return fp::kTF32;
  case Mod::E4M3:
    return fp::kE4M3;
  case Mod::E5M2:
    return fp::kE5M2;
  default:
    return fp::kSingle;
  }
}

// |x| (not NaN, below 448) rounded to E4M3's magnitude bits: below 2^-6 the subnormal steps of
// 2^-9 (an integer count 0..8, 8 being the smallest normal's pattern), above through the
// binary sort (5 exponent bits, 3 fraction bits), whose exponent is E4M3's plus 8.
z3::expr encodeE4M3(Smt &smt, const z3::expr &ax, Rounding r) {
  z3::sort s = ax.get_sort();
  z3::expr k =
      smt.fpRoundToIntegral(r, smt.fpMul(Rounding::NearestEven, ax, smt.floatVal(512.0, s)));
  z3::expr sub = smt.fpToUnsigned(k, 7);
  z3::expr y =
      Smt::toBits(smt.fpConvert(r, ax, smt.floatSort(5, 4))); // 9 bits: 0, exponent, fraction
  z3::expr normal = z3::concat(y.extract(7, 3) - smt.bv(8, 5), y.extract(2, 0)).extract(6, 0);
  return z3::ite(smt.fpLt(ax, smt.floatVal(0x1p-6, s)), sub, normal);
}

// The value of an E4M3 byte, as binary16 (exact).
z3::expr decodeE4M3(Smt &smt, const z3::expr &b) {
  z3::sort h = smt.floatSort(5, 11);
  z3::expr e = b.extract(6, 3), man = b.extract(2, 0);
  z3::expr normal =
      smt.fromBits(z3::concat(z3::concat(b.extract(7, 7), Smt::zext(e, 5) + smt.bv(8, 5)),
                              z3::concat(man, smt.bv(0, 7))),
                   h);
  z3::expr sub = smt.fpMul(Rounding::NearestEven, smt.intToFp(Rounding::NearestEven, man, false, h),
                           smt.floatVal(0x1p-9, h));
  sub = z3::ite(b.extract(7, 7) == smt.bv(1, 1), -sub, sub);
  z3::expr nan = smt.fromBits(smt.bv(0x7fff, 16), h);
  return z3::ite(b.extract(6, 0) == smt.bv(0x7f, 7), nan, z3::ite(e == smt.bv(0, 4), sub, normal));
}

// x converted to format `to` (F16 BF16 TF32 E4M3 E5M2 F32) as PTX cvt does: NaN canonical,
// .relu (a negative x, -0.0 too, gives +0.0), .satfinite (|x| at or past the largest finite
// value gives it, signed), else rounded (ir/float_format.h's encodeSat). The pattern's width
// is the format's (TF32: 19 bits).
z3::expr convertTo(Smt &smt, const z3::expr &x, Mod to, Rounding r, bool satfinite, bool relu) {
  FloatFormat d = formatOf(smt, to);
  z3::expr negative = Smt::toBits(x).extract(
                          x.get_sort().fpa_ebits() + x.get_sort().fpa_sbits() - 1,
                          x.get_sort().fpa_ebits() + x.get_sort().fpa_sbits() - 1) == smt.bv(1, 1);
  z3::expr ax = fpAbs(smt, x);
  z3::expr rounded(smt.ctx());
  if (to == Mod::E4M3)
    rounded = encodeE4M3(smt, ax, r);
  else
    rounded = Smt::toBits(fpAbs(smt, smt.fpConvert(r, ax, d.sort))).extract(d.bits - 2, 0);
  unsigned w = d.bits - 1; // magnitude bits
  fp::Format hf = hostFormat(to);
  uint64_t maxBits = fp::maxFiniteBits(hf);
  double maxValue = fp::decode(maxBits, hf);
  z3::expr mag = rounded;
  if (satfinite)
    mag = z3::ite(smt.fpLt(ax, smt.floatVal(maxValue, x.get_sort())), rounded, smt.bv(maxBits, w));
  z3::expr bits = z3::concat(z3::ite(negative, smt.bv(1, 1), smt.bv(0, 1)), mag);
  if (relu)
    bits = z3::ite(negative, smt.bv(0, d.bits), bits);
  return z3::ite(x.mk_is_nan(), smt.bv(d.nan, d.bits), bits);
}

} // namespace

// cvt to a float from an integer of the source type (its low 8/16/32/64 bits), correctly
// rounded in the requested direction (.RN by default): binary32 (default), binary64, or a
// 16-bit format zero-extended.
std::optional<ModelOutputs> i2f(ModelContext &m) {
  auto k = intKind(m);
  if (!k)
    return std::nullopt;
  z3::expr v = Smt::low(m.intSrc(0, k->bits == 64 ? 64 : 32), k->bits);
  Mod to = m.mod(ModGroup::FType).value_or(Mod::F32);
  if (to != Mod::F16 && to != Mod::BF16 && to != Mod::F32 && to != Mod::F64)
    return std::nullopt;
  FloatFormat f = formatOf(m.smt, to);
  return one(m.wide(Smt::toBits(m.smt.intToFp(roundingOf(m), v, k->isSigned, f.sort))));
}

// F2I's and FRND's direction (.TRUNC .FLOOR .CEIL; none: to nearest even).
static Rounding integralRounding(const ModelContext &m) {
  switch (m.mod(ModGroup::IRound).value_or(Mod::RN)) {
  case Mod::TRUNC:
    return Rounding::TowardZero;
  case Mod::FLOOR:
    return Rounding::Down;
  case Mod::CEIL:
    return Rounding::Up;
  default:
    return Rounding::NearestEven;
  }
}

// cvt to an integer: round (.rni by default, TRUNC .rzi, FLOOR .rmi, CEIL .rpi), out-of-range
// values saturate; NaN gives 0, or 1 << (width - 1) from binary64 or into 64 bits (ISA "Integer
// Notes"). 8/16-bit results are sign- or zero-extended to 32 bits.
std::optional<ModelOutputs> f2i(ModelContext &m) {
  Smt &smt = m.smt;
  auto k = intKind(m);
  if (!k)
    return std::nullopt;
  Mod from = m.mod(ModGroup::FType).value_or(Mod::F32);
  if (from != Mod::F16 && from != Mod::BF16 && from != Mod::F32 && from != Mod::F64)
    return std::nullopt;
  if (from != Mod::F32 && m.has(Mod::FTZ))
    return std::nullopt; // PTX: .ftz only for f32 sources
  FloatFormat f = formatOf(smt, from);
  z3::expr bits(smt.ctx());
  if (from == Mod::F64)
    bits = m.f64Src(0);
  else if (from == Mod::F32)
    bits = m.has(Mod::FTZ) ? flush32(smt, m.f32Src(0)) : m.f32Src(0);
  else if (auto h = halfSrc(m, 0))
    bits = *h;
  else
    return std::nullopt;
  z3::expr x = smt.fromBits(bits, f.sort);
  if (f.bits == 16) { // widened exactly to binary64, where every limit below is a value
    f = formatOf(smt, Mod::F64);
    x = smt.fpConvert(Rounding::NearestEven, x, f.sort);
  }
  const Rounding r = integralRounding(m);
  z3::expr i = smt.fpRoundToIntegral(r, x);
  unsigned dw = k->bits == 64 ? 64 : 32;
  z3::expr minV =
      smt.bv(uint64_t(1) << (k->bits - 1), k->bits); // also the NaN value (unsigned too)
  std::optional<z3::expr> out;
  if (k->isSigned) {
    z3::expr lim = smt.floatVal(std::ldexp(1.0, int(k->bits) - 1), f.sort); // 2^(bits-1)
    z3::expr maxV = smt.bv((uint64_t(1) << (k->bits - 1)) - 1, k->bits);
    z3::expr inRange = smt.fpLt(i, lim) && !smt.fpLt(i, -lim);
    z3::expr v = z3::ite(inRange, smt.fpToSigned(i, k->bits),
                         z3::ite(smt.fpLt(i, smt.floatVal(0.0, f.sort)), minV, maxV));
    out = Smt::sext(v, dw);
  } else {
    z3::expr lim = smt.floatVal(std::ldexp(1.0, int(k->bits)), f.sort); // 2^bits
    z3::expr v = z3::ite(
        !smt.fpLt(smt.floatVal(0.0, f.sort), i), smt.bv(0, k->bits),
        z3::ite(smt.fpLt(i, lim), smt.fpToUnsigned(i, k->bits), smt.bv(~uint64_t(0), k->bits)));
    out = Smt::zext(v, dw);
  }
  bool nanIsMin = from == Mod::F64 || k->bits == 64;
  z3::expr nan = !nanIsMin     ? smt.bv(0, dw)
                 : k->isSigned ? Smt::sext(minV, dw)
                               : Smt::zext(minV, dw);
  return one(m.wide(z3::ite(x.mk_is_nan(), nan, *out)));
}

// F2F: the source in its format (.FTZ flushes a binary32 source), .SAT, then converted to the
// destination's format (.RELU, .SATFINITE; .TF32 into binary32's top 19 bits; .FTZ flushes a
// binary32 result); NaN gives the destination's canonical NaN.
std::optional<ModelOutputs> f2f(ModelContext &m) {
  Smt &smt = m.smt;
  auto dm = m.mod(ModGroup::FType), sm = m.mod(ModGroup::FSrc);
  if (!dm || !sm)
    return std::nullopt;
  if (*dm == Mod::E4M3 || *dm == Mod::E5M2 || *sm == Mod::SRC_E4M3 || *sm == Mod::SRC_E5M2)
    return std::nullopt;
  if (*dm == Mod::TF32 && *sm != Mod::SRC_F32)
    return std::nullopt;
  FloatFormat d = formatOf(smt, *dm), s = formatOf(smt, *sm);
  bool ftz = m.has(Mod::FTZ), relu = m.has(Mod::RELU), satfinite = m.has(Mod::SATFINITE);
  z3::expr bits(smt.ctx());
  if (s.bits == 64)
    bits = m.f64Src(0);
  else if (s.bits == 32)
    bits = ftz ? flush32(smt, m.f32Src(0)) : m.f32Src(0);
  else if (auto h = halfSrc(m, 0))
    bits = *h;
  else
    return std::nullopt;
  z3::expr x = smt.fromBits(bits, s.sort);
  if (m.has(Mod::SAT))
    x = saturate(smt, x, s.sort);
  if (d.bits == 64) { // widening is exact
    z3::expr out = bitsOf(smt.fpConvert(Rounding::NearestEven, x, d.sort), d.nan, 64, smt);
    if (relu)
      out = reluBits(smt, out, x.mk_is_nan(), 64, d.nan);
    return one(out);
  }
  z3::expr out(smt.ctx());
  if (relu || satfinite || *dm == Mod::TF32)
    out = convertTo(smt, x, *dm, roundingOf(m), satfinite, relu);
  else {
    z3::expr y =
        s.bits == d.bits && s.expBits == d.expBits ? x : smt.fpConvert(roundingOf(m), x, d.sort);
    out = bitsOf(y, d.nan, d.bits, smt);
  }
  if (*dm == Mod::TF32)
    out = z3::concat(out, smt.bv(0, 13));
  if (ftz && out.get_sort().bv_size() == 32)
    out = flush32(smt, out);
  return one(m.wide(out));
}

// FRND: to an integral value in the same format; NaN canonical. .FTZ flushes a binary32 source.
std::optional<ModelOutputs> frnd(ModelContext &m) {
  Smt &smt = m.smt;
  auto width = m.mod(ModGroup::FType);
  if (width && *width != Mod::F64 && *width != Mod::F16 && *width != Mod::BF16)
    return std::nullopt;
  if (width && m.has(Mod::FTZ))
    return std::nullopt;
  const Rounding r = integralRounding(m);
  FloatFormat f = formatOf(smt, width.value_or(Mod::F32));
  z3::expr bits(smt.ctx());
  if (width == Mod::F64)
    bits = m.f64Src(0);
  else if (!width)
    bits = m.has(Mod::FTZ) ? flush32(smt, m.f32Src(0)) : m.f32Src(0);
  else if (auto h = halfSrc(m, 0))
    bits = *h;
  else
    return std::nullopt;
  z3::expr y = smt.fpRoundToIntegral(r, smt.fromBits(bits, f.sort));
  return one(m.wide(bitsOf(y, f.nan, f.bits, smt)));
}

// F2FP (interp_convert.cpp): .SRC_F32 d, a, b packs convert(a) above convert(b); .SRC_F16
// converts each binary16 lane into the byte of the same rank; .SRC_E4M3/.SRC_E5M2 each byte
// into the binary16 lane of the same rank.
std::optional<ModelOutputs> f2fp(ModelContext &m) {
  Smt &smt = m.smt;
  auto dm = m.mod(ModGroup::FType), sm = m.mod(ModGroup::FSrc);
  if (!dm || !sm)
    return std::nullopt;
  bool relu = m.has(Mod::RELU), satfinite = m.has(Mod::SATFINITE);
  bool eight = *dm == Mod::E4M3 || *dm == Mod::E5M2;
  if (eight && !satfinite)
    return std::nullopt;
  Rounding r = roundingOf(m);
  if (*sm == Mod::SRC_F32) {
    if (!eight && *dm != Mod::F16 && *dm != Mod::BF16)
      return std::nullopt;
    if (m.in.srcs.size() != 2)
      return std::nullopt;
    auto conv = [&](size_t i) {
      return convertTo(smt, smt.fromBits(m.f32Src(i)), *dm, r, satfinite, relu);
    };
    return one(m.wide(z3::concat(conv(0), conv(1))));
  }
  if (m.in.srcs.size() != 1)
    return std::nullopt;
  z3::expr a = m.intSrc(0, 32);
  if (*sm == Mod::SRC_F16) {
    if (!eight)
      return std::nullopt;
    z3::sort h = smt.floatSort(5, 11);
    auto conv = [&](unsigned lane) {
      return convertTo(smt, smt.fromBits(a.extract(16 * lane + 15, 16 * lane), h), *dm, r,
                       satfinite, relu);
    };
    return one(m.wide(z3::concat(conv(1), conv(0))));
  }
  if ((*sm != Mod::SRC_E4M3 && *sm != Mod::SRC_E5M2) || *dm != Mod::F16)
    return std::nullopt;
  auto conv = [&](unsigned lane) {
    z3::expr b = a.extract(8 * lane + 7, 8 * lane);
    z3::expr v = *sm == Mod::SRC_E4M3
                     ? decodeE4M3(smt, b)
                     : smt.fromBits(z3::concat(b, smt.bv(0, 8)), smt.floatSort(5, 11));
    return convertTo(smt, v, Mod::F16, r, satfinite, relu);
  };
  return one(m.wide(z3::concat(conv(1), conv(0))));
}

} // namespace models
} // namespace ori::verify
