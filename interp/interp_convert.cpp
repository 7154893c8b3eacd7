// Conversions of the interpreter: I2F, F2I, F2F, FRND and the packing F2FP (PTX cvt, ISA
// 9.7.9.21; docs/interpreter.md has the table). Every rounding is done in software or exactly
// (ir/float_format.h), so no result depends on the host's conversion routines.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "interp/interp_float_impl.h"
#include "ir/float_format.h"

namespace ori::interp_detail {
namespace {

__extension__ typedef __int128 I128;

struct IntKind {
  unsigned bits = 32;
  bool isSigned = true;
};
// The integer type of I2F's source or F2I's result; .S32 when absent.
IntKind intKind(const Instr &in) {
  auto t = modOf(in, ModGroup::Type);
  switch (t.value_or(Mod::S32)) {
  case Mod::U8:
    return {8, false};
  case Mod::S8:
    return {8, true};
  case Mod::U16:
    return {16, false};
  case Mod::S16:
    return {16, true};
  case Mod::U32:
    return {32, false};
  case Mod::U64:
    return {64, false};
  case Mod::S64:
    return {64, true};
  case Mod::S32:
    return {32, true};
  default:
    unsupported(fmt::format("integer type .{}", modText(*t)));
  }
}

// x (exactly an integer of 64 bits or fewer) rounded to F as `round` says.
template <typename F> F intToFloat(I128 x, Mod round) {
  F r = x < 0 ? F(int64_t(x)) : F(uint64_t(x)); // the host rounds to nearest even
  I128 rv = I128(r);                            // exact: |r| <= 2^64
  constexpr F inf = std::numeric_limits<F>::infinity();
  switch (round) {
  case Mod::RZ:
    if ((x >= 0 && rv > x) || (x < 0 && rv < x))
      r = std::nextafter(r, F(0));
    break;
  case Mod::RM:
    if (rv > x)
      r = std::nextafter(r, -inf);
    break;
  case Mod::RP:
    if (rv < x)
      r = std::nextafter(r, inf);
    break;
  default:
    break;
  }
  return r;
}

// v rounded to an integer as `round` says (round to nearest even when absent), saturated to
// the type's range (PTX cvt). NaN gives 0, or 1 << (width - 1) (INT_MIN for signed types) when
// the source is binary64 or the result 64-bit (ISA 9.7.9.21, "Integer Notes").
uint64_t floatToInt(double v, std::optional<Mod> round, IntKind k, bool nanIsMin) {
  if (std::isnan(v)) {
    if (!nanIsMin)
      return 0;
    uint64_t m = uint64_t(1) << (k.bits - 1);
    if (k.isSigned && k.bits < 32)
      m |= ~uint64_t(0) << k.bits; // sign-extended to 32 bits
    return maskTo(m, k.bits == 64 ? 64 : 32);
  }
  double r = !round ? std::nearbyint(v) // the host mode is round-to-nearest-even here
             : *round == Mod::TRUNC ? std::trunc(v)
             : *round == Mod::FLOOR ? std::floor(v)
                                    : std::ceil(v);
  if (k.isSigned) {
    double lim = std::ldexp(1.0, int(k.bits) - 1);
    int64_t x = r >= lim   ? int64_t((uint64_t(1) << (k.bits - 1)) - 1)
                : r < -lim ? int64_t(uint64_t(0) - (uint64_t(1) << (k.bits - 1)))
                           : int64_t(r);
    return maskTo(uint64_t(x), k.bits == 64 ? 64 : 32); // 8/16-bit results sign-extended to 32
  }
  double lim = std::ldexp(1.0, int(k.bits));
  if (r >= lim)
    return maskTo(~uint64_t(0), k.bits);
  if (!(r > 0))
    return 0;
  return uint64_t(r);
}

fp::Round fpRound(const Instr &in) {
  switch (modOf(in, ModGroup::FRound).value_or(Mod::RN)) {
  case Mod::RZ:
    return fp::Round::TowardZero;
  case Mod::RM:
    return fp::Round::Down;
  case Mod::RP:
    return fp::Round::Up;
  case Mod::RNA:
    return fp::Round::NearestAway;
  default:
    return fp::Round::NearestEven;
  }
}

// The formats F2F, FRND and F2FP convert between; 64 bits is the host's double.
struct FloatKind {
  unsigned bits;     // of the register value: 16 (also the 8-bit formats' 16-bit pairs), 32, 64
  fp::Format format; // unused for 64 bits
  uint64_t nan;
};
FloatKind floatKind(Mod m) {
  switch (m) {
  case Mod::F16:
  case Mod::SRC_F16:
    return {16, fp::kHalf, kCanonicalNaN16};
  case Mod::BF16:
  case Mod::SRC_BF16:
    return {16, fp::kBFloat16, kCanonicalNaN16};
  case Mod::E4M3:
  case Mod::SRC_E4M3:
    return {8, fp::kE4M3, 0x7f};
  case Mod::E5M2:
  case Mod::SRC_E5M2:
    return {8, fp::kE5M2, 0x7f};
  case Mod::TF32:
    return {32, fp::kTF32, 0x3ffff}; // then shifted into binary32's top 19 bits
  case Mod::F32:
  case Mod::SRC_F32:
    return {32, fp::kSingle, kCanonicalNaN32};
  default:
    return {64, fp::kSingle, kCanonicalNaN64};
  }
}

// The source's value (exact), a 16-bit format read from the low half, .FTZ flushing binary32.
double readFloat(Machine &m, const Instr &in, size_t i, FloatKind k, bool ftz) {
  if (k.bits == 64)
    return asF64(m.readF64Bits(in, i));
  if (k.bits == 32) {
    uint32_t b = m.readF32Bits(in, i);
    return asF32(ftz ? flush32(b) : b);
  }
  return fp::decode(m.readHalfBits(in, i, k.format), k.format);
}

} // namespace

bool Machine::execConvert(const Instr &in) {
  switch (in.op) {
  case Opcode::I2F: {
    IntKind k = intKind(in);
    uint64_t raw = readInt(in, 0, k.bits == 64 ? 64 : 32);
    I128 x = k.isSigned ? I128(signExtend(raw, k.bits)) : I128(maskTo(raw, k.bits));
    Mod round = modOf(in, ModGroup::FRound).value_or(Mod::RN);
    auto to = modOf(in, ModGroup::FType).value_or(Mod::F32);
    if (to == Mod::F64)
      writeInt(in, 0, std::bit_cast<uint64_t>(intToFloat<double>(x, round)), 64);
    else if (to == Mod::F32)
      writeInt(in, 0, std::bit_cast<uint32_t>(intToFloat<float>(x, round)), 32);
    else if (to == Mod::F16 || to == Mod::BF16) {
      uint64_t mag = x < 0 ? uint64_t(-x) : uint64_t(x);
      writeInt(in, 0, fp::encodeInt(x < 0, mag, floatKind(to).format, fpRound(in), kCanonicalNaN16),
               32);
    } else
      unsupported(fmt::format("I2F.{}", modText(to)));
    return true;
  }
  case Opcode::F2I: {
    bool ftz = in.has(Mod::FTZ);
    auto from = modOf(in, ModGroup::FType).value_or(Mod::F32);
    if (from != Mod::F32 && from != Mod::F64 && from != Mod::F16 && from != Mod::BF16)
      unsupported(fmt::format("F2I.{}", modText(from)));
    if (ftz && from != Mod::F32)
      unsupported(fmt::format("F2I.{}.FTZ: .FTZ applies to binary32 sources only (PTX cvt)",
                              modText(from)));
    IntKind k = intKind(in);
    double v = readFloat(*this, in, 0, floatKind(from), ftz);
    bool nanIsMin = from == Mod::F64 || k.bits == 64;
    writeInt(in, 0, floatToInt(v, modOf(in, ModGroup::IRound), k, nanIsMin),
             k.bits == 64 ? 64 : 32);
    return true;
  }
  case Opcode::F2F: {
    auto dm = modOf(in, ModGroup::FType), sm = modOf(in, ModGroup::FSrc);
    if (!dm || !sm)
      malformed(fmt::format("F2F at line {} needs a destination (.F16 .BF16 .F32 .F64 .TF32) and a "
                            "source format (.SRC_F16 ...)",
                            in.loc.line));
    FloatKind dk = floatKind(*dm), sk = floatKind(*sm);
    if (dk.bits == 8 || sk.bits == 8)
      unsupported("F2F with an 8-bit format (F2FP converts those)");
    if (*dm == Mod::TF32 && *sm != Mod::SRC_F32)
      unsupported("F2F.TF32 from a format other than binary32");
    bool ftz = in.has(Mod::FTZ), relu = in.has(Mod::RELU), satfinite = in.has(Mod::SATFINITE);
    double v = readFloat(*this, in, 0, sk, ftz);
    if (in.has(Mod::SAT))
      v = saturate(v);
    if (dk.bits == 64) {
      // Widening is exact; binary64 to binary64 is the value itself (canonical NaN).
      if (relu && !std::isnan(v) && std::signbit(v))
        v = 0.0;
      writeInt(in, 0, finish64(v), 64);
      return true;
    }
    uint64_t r = fp::encodeSat(v, dk.format, fpRound(in), dk.nan, satfinite, relu);
    if (*dm == Mod::TF32)
      r <<= 13;
    if (ftz && dk.bits == 32)
      r = flush32(uint32_t(r));
    writeInt(in, 0, r, 32); // a 16-bit result zero-extended in its register
    return true;
  }
  case Opcode::FRND: {
    Mod m = modOf(in, ModGroup::IRound).value_or(Mod::RN);
    auto integral = [&](double v) {
      return m == Mod::TRUNC   ? std::trunc(v)
             : m == Mod::FLOOR ? std::floor(v)
             : m == Mod::CEIL  ? std::ceil(v)
                               : std::nearbyint(v);
    };
    auto width = modOf(in, ModGroup::FType);
    if (width == Mod::F64) {
      if (in.has(Mod::FTZ))
        unsupported("FRND.F64.FTZ: .FTZ applies to binary32 only");
      writeInt(in, 0, finish64(integral(asF64(readF64Bits(in, 0)))), 64);
    } else if (width == Mod::F16 || width == Mod::BF16) {
      if (in.has(Mod::FTZ))
        unsupported("FRND.F16/.BF16.FTZ: .FTZ applies to binary32 only");
      fp::Format f = floatKind(*width).format;
      double v = integral(
          fp::decode(readHalfBits(in, 0, f), f)); // exact in f: an integer of f's precision
      writeInt(in, 0, fp::encode(v, f, fp::Round::NearestEven, kCanonicalNaN16), 32);
    } else if (!width) {
      uint32_t b = readF32Bits(in, 0);
      if (in.has(Mod::FTZ))
        b = flush32(b);
      float r = float(integral(asF32(b)));
      writeInt(in, 0, std::isnan(r) ? kCanonicalNaN32 : std::bit_cast<uint32_t>(r), 32);
    } else {
      unsupported(fmt::format("FRND.{}", modText(*width)));
    }
    return true;
  }
  case Opcode::F2FP: {
    auto dm = modOf(in, ModGroup::FType), sm = modOf(in, ModGroup::FSrc);
    if (!dm || !sm)
      malformed(fmt::format("F2FP at line {} needs a destination (.F16 .BF16 .E4M3 .E5M2) and a "
                            "source format (.SRC_F32 .SRC_F16 .SRC_E4M3 .SRC_E5M2)",
                            in.loc.line));
    FloatKind dk = floatKind(*dm), sk = floatKind(*sm);
    bool relu = in.has(Mod::RELU), satfinite = in.has(Mod::SATFINITE);
    if (dk.bits == 8 && !satfinite)
      unsupported(fmt::format("F2FP.{} without .SATFINITE (PTX requires it)", modText(*dm)));
    fp::Round rnd = fpRound(in);
    auto convert = [&](double v) {
      return fp::encodeSat(v, dk.format, rnd, dk.nan, satfinite, relu);
    };
    uint64_t r;
    if (*sm == Mod::SRC_F32) { // d = {convert(a), convert(b)}: a into the upper part
      if (dk.bits != 16 && dk.bits != 8)
        unsupported(fmt::format("F2FP.{}.SRC_F32", modText(*dm)));
      if (in.srcs.size() != 2)
        malformed(fmt::format("F2FP.SRC_F32 at line {} takes two sources", in.loc.line));
      uint64_t hi = convert(asF32(readF32Bits(in, 0))), lo = convert(asF32(readF32Bits(in, 1)));
      r = hi << dk.bits | lo;
    } else {
      if (in.srcs.size() != 1)
        malformed(fmt::format("F2FP.{} at line {} takes one source", modText(*sm), in.loc.line));
      // A packed pair: binary16 lanes into bytes, or bytes into binary16 lanes.
      bool narrowing = *sm == Mod::SRC_F16;
      if (narrowing ? dk.bits != 8 : (sk.bits != 8 || *dm != Mod::F16))
        unsupported(fmt::format("F2FP.{}.{}", modText(*dm), modText(*sm)));
      unsigned inBits = narrowing ? 16 : 8, outBits = narrowing ? 8 : 16;
      uint64_t a = readInt(in, 0, 32);
      r = 0;
      for (unsigned lane = 0; lane < 2; ++lane) {
        double v = fp::decode((a >> (inBits * lane)) & ((uint64_t(1) << inBits) - 1), sk.format);
        r |= convert(v) << (outBits * lane);
      }
    }
    writeInt(in, 0, r, 32);
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::interp_detail
