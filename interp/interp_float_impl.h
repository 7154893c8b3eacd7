// Helpers shared by the interpreter's float files (interp/interp_float.cpp, interp_half.cpp,
// interp_convert.cpp): canonical NaNs, comparisons, min/max with PTX's NaN, -0.0 and
// .xorsign.abs rules. Internal to interp/.
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "interp/interp_impl.h"
#include "ir/float_format.h"

namespace ori::interp_detail {

inline constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu; // CUDART_NAN_F (math_constants.h)
inline constexpr uint64_t kCanonicalNaN64 = 0xfff8000000000000ull; // CUDART_NAN
inline constexpr uint64_t kCanonicalNaN16 = 0x7fff; // binary16 and bfloat16 (CUDART_NAN_FP16)

inline float asF32(uint32_t b) { return std::bit_cast<float>(b); }
inline double asF64(uint64_t b) { return std::bit_cast<double>(b); }
// .FTZ: a binary32 denormal becomes a zero of the same sign.
inline uint32_t flush32(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }
inline uint64_t finish64(double r) {
  return std::isnan(r) ? kCanonicalNaN64 : std::bit_cast<uint64_t>(r);
}

// PTX setp/set comparisons: ordered ones false with a NaN operand, the U forms true.
inline bool floatCompare(Mod cmp, double x, double y) {
  bool un = std::isnan(x) || std::isnan(y);
  switch (cmp) {
  case Mod::F:
    return false;
  case Mod::LT:
    return !un && x < y;
  case Mod::EQ:
    return !un && x == y;
  case Mod::LE:
    return !un && x <= y;
  case Mod::GT:
    return !un && x > y;
  case Mod::NE:
    return !un && x != y;
  case Mod::GE:
    return !un && x >= y;
  case Mod::NUM:
    return !un;
  case Mod::NAN_:
    return un;
  case Mod::LTU:
    return un || x < y;
  case Mod::EQU:
    return un || x == y;
  case Mod::LEU:
    return un || x <= y;
  case Mod::GTU:
    return un || x > y;
  case Mod::NEU:
    return un || x != y;
  case Mod::GEU:
    return un || x >= y;
  case Mod::T:
    return true;
  default:
    unsupported(fmt::format("float comparison .{}", modText(cmp)));
  }
}

// min/max of two values of format f given as bits (PTX min/max, ISA 9.7.3.10/11, 9.7.4.7/8):
// -0.0 < +0.0; one NaN gives the other operand, two the canonical NaN; `nanWins` (.NaN): any
// NaN gives the canonical NaN; `xorSign` (.xorsign.abs): the min/max of the magnitudes, its sign
// the XOR of the operands' signs (a NaN result keeps no sign rule). The result is otherwise one
// of the operands bit for bit.
inline uint64_t minMaxBits(uint64_t a, uint64_t b, bool takeMin, bool nanWins, bool xorSign,
                           fp::Format f, uint64_t canonicalNaN) {
  uint64_t sign = f.signBit();
  uint64_t xs = (a ^ b) & sign;
  if (xorSign) {
    a &= ~sign;
    b &= ~sign;
  }
  bool na = fp::isNaN(a, f), nb = fp::isNaN(b, f);
  if ((na && nb) || (nanWins && (na || nb)))
    return canonicalNaN;
  uint64_t r;
  if (na)
    r = b;
  else if (nb)
    r = a;
  else {
    double x = fp::decode(a, f), y = fp::decode(b, f);
    if (x == y)
      r = takeMin ? a | b : a & b; // equal: only ±0 differ, and min takes the sign bit
    else
      r = (x < y) == takeMin ? a : b;
  }
  if (xorSign)
    r = (r & ~sign) | xs;
  return r;
}

// PTX cvt.sat and the .SAT of the packed opcodes: clamp to [0, 1]; NaN and -0.0 give +0.0.
inline double saturate(double v) { return !(v > 0) ? 0.0 : v > 1 ? 1.0 : v; }

// PTX .relu: a negative result (-0.0 too) becomes +0.0; NaN becomes the canonical NaN.
inline uint64_t reluBits(uint64_t r, fp::Format f, uint64_t canonicalNaN) {
  if (fp::isNaN(r, f))
    return canonicalNaN;
  return (r & f.signBit()) ? 0 : r;
}

} // namespace ori::interp_detail
