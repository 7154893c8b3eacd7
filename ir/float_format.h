// IEEE 754 binary formats narrower than the host's double (binary16,
// bfloat16, binary32), decoded exactly to double and rounded from double in
// any of the four directions, in software: the interpreter's F2F and the
// packed half-precision opcodes use them, so their results do not depend on
// the host's conversion routines or rounding mode.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ori::fp {

struct Format {
  int expBits, manBits;
  // 0: IEEE 754 (the top exponent field is infinity and NaN). Otherwise the largest exponent of
  // a finite value, the top field being finite too except for the one all-ones NaN pattern
  // (OCP E4M3: no infinities).
  int maxExp = 0;
  int bias() const { return (1 << (expBits - 1)) - 1; }
  int emax() const { return maxExp ? maxExp : bias(); }
  uint64_t signBit() const { return uint64_t(1) << (expBits + manBits); }
  uint64_t expMask() const { return ((uint64_t(1) << expBits) - 1) << manBits; }
  uint64_t manMask() const { return (uint64_t(1) << manBits) - 1; }
};
inline constexpr Format kHalf{5, 10}, kBFloat16{8, 7}, kSingle{8, 23};
// PTX ISA "Alternate Floating Point Data Formats": e4m3 (bias 7, the exponent field 15 finite,
// S.1111.111 NaN, largest 448), e5m2 (IEEE-like, bias 15, largest 57344); tf32 (binary32's range
// with 10 fraction bits).
inline constexpr Format kE4M3{4, 3, 8}, kE5M2{5, 2}, kTF32{8, 10};

// NearestAway: to nearest, ties away from zero (PTX .rna).
enum class Round : uint8_t { NearestEven, TowardZero, Down, Up, NearestAway };

inline bool isNaN(uint64_t b, Format f) {
  if (f.maxExp)
    return (b & (f.expMask() | f.manMask())) == (f.expMask() | f.manMask());
  return (b & f.expMask()) == f.expMask() && (b & f.manMask()) != 0;
}
// The largest finite magnitude's bits.
inline uint64_t maxFiniteBits(Format f) {
  if (f.maxExp)
    return f.expMask() | (f.manMask() - 1);
  return (f.expMask() - (uint64_t(1) << f.manBits)) | f.manMask();
}
inline bool isSubnormal(uint64_t b, Format f) {
  return (b & f.expMask()) == 0 && (b & f.manMask()) != 0;
}
// .FTZ: a subnormal becomes a zero of the same sign.
inline uint64_t flush(uint64_t b, Format f) { return (b & f.expMask()) == 0 ? b & f.signBit() : b; }

// The value of `b` (exact: every binary16/bfloat16/binary32 value is a double).
inline double decode(uint64_t b, Format f) {
  bool neg = b & f.signBit();
  uint64_t e = (b & f.expMask()) >> f.manBits, m = b & f.manMask();
  double v;
  if (isNaN(b, f))
    v = std::numeric_limits<double>::quiet_NaN();
  else if (!f.maxExp && e == (uint64_t(1) << f.expBits) - 1)
    v = INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - f.bias() - f.manBits);
  else
    v = std::ldexp(double(m | (uint64_t(1) << f.manBits)), int(e) - f.bias() - f.manBits);
  return neg ? -v : v;
}

// `v` rounded to format f as `r` says; NaN gives `nan`. Overflow gives infinity or the
// largest finite value by the direction, as IEEE 754 says.
inline uint64_t encode(double v, Format f, Round r, uint64_t nan) {
  if (std::isnan(v))
    return nan;
  uint64_t sign = std::signbit(v) ? f.signBit() : 0;
  if (std::isinf(v))
    return sign | f.expMask();
  double a = std::fabs(v);
  if (a == 0)
    return sign;
  int emin = 1 - f.bias(), emax = f.emax();
  int e = std::ilogb(a);
  if (e < emin)
    e = emin;
  double q = std::ldexp(1.0, e - f.manBits); // the spacing of f's values at a's binade
  double scaled = a / q;                     // exact: a power-of-two scaling
  double k = std::floor(scaled), rest = scaled - k;
  bool up = false;
  bool neg = sign != 0;
  switch (r) {
  case Round::NearestEven:
    up = rest > 0.5 || (rest == 0.5 && std::fmod(k, 2.0) != 0);
    break;
  case Round::TowardZero:
    up = false;
    break;
  case Round::Down:
    up = neg && rest > 0;
    break;
  case Round::Up:
    up = !neg && rest > 0;
    break;
  case Round::NearestAway:
    up = rest >= 0.5;
    break;
  }
  if (up)
    k += 1;
  // k * q, possibly one binade up (k = 2^(manBits+1)).
  double res = k * q;
  if (res >= std::ldexp(1.0, emax + 1)) { // overflow
    bool toInf = r == Round::NearestEven || r == Round::NearestAway || (r == Round::Up && !neg) ||
                 (r == Round::Down && neg);
    return toInf ? sign | f.expMask()
                 : sign | (f.expMask() - (uint64_t(1) << f.manBits)) | f.manMask();
  }
  if (res < std::ldexp(1.0, emin))
    return sign | uint64_t(k); // subnormal (or 0): exponent field 0
  int re = std::ilogb(res);
  uint64_t m = uint64_t(std::ldexp(res, f.manBits - re)) & f.manMask();
  return sign | (uint64_t(re + f.bias()) << f.manBits) | m;
}

// PTX .satfinite then rounding (cvt): NaN gives `nan`; a magnitude at or past the largest
// finite value gives that value with the sign (every rounding of it would reach or pass it);
// otherwise `v` rounded. .relu first: a negative value (-0.0 too) is +0.0.
inline uint64_t encodeSat(double v, Format f, Round r, uint64_t nan, bool satfinite, bool relu) {
  if (std::isnan(v))
    return nan;
  if (relu && std::signbit(v))
    return 0;
  if (satfinite && std::fabs(v) >= decode(maxFiniteBits(f), f))
    return (std::signbit(v) ? f.signBit() : 0) | maxFiniteBits(f);
  return encode(v, f, r, nan);
}

// An integer of at most 64 bits (sign and magnitude) rounded once to format f: the magnitude
// rounded to odd in double (53 bits, more than two beyond any format here), then to f.
inline uint64_t encodeInt(bool negative, uint64_t magnitude, Format f, Round r, uint64_t nan) {
  int shift = 0;
  uint64_t m = magnitude;
  bool sticky = false;
  while (m >> 53) {
    sticky |= m & 1;
    m >>= 1;
    ++shift;
  }
  double d = std::ldexp(double(m | uint64_t(sticky)),
                        shift); // exact: 53 bits, the last one odd if inexact
  return encode(negative ? -d : d, f, r, nan);
}

// a * b + c for values of a format at most 24 bits wide (binary16, bfloat16), rounded once:
// the product is exact in double and TwoSum gives the sum's error, from which the exact sum
// rounds to odd in double (53 bits, more than two beyond the format's), which then rounds
// correctly to the format.
inline double fmaToOdd(double a, double b, double c) {
  double p = a * b; // exact: at most 2 * 24 significant bits
  double s = p + c;
  if (!std::isfinite(s))
    return s;
  double bb = s - p, err = (p - (s - bb)) + (c - bb); // Knuth's TwoSum: s + err == p + c
  if (err == 0)
    return s;
  if ((err > 0) != (s > 0))
    s = std::nextafter(s, 0.0);                   // toward zero: truncated
  uint64_t bits = std::bit_cast<uint64_t>(s) | 1; // sticky bit: round to odd
  return std::bit_cast<double>(bits);
}

} // namespace ori::fp
