// MUFU.EX2, MUFU.LG2, MUFU.SIN, MUFU.COS and MUFU.TANH (PTX ex2/lg2/sin/cos/tanh .approx.f32,
// and through binary32 the .f16/.bf16 ex2 and tanh): one
// deterministic definition, written once over a backend of binary32 operations each
// rounded to nearest even. The interpreter instantiates it with host floats
// (interp/interp_float.cpp), the Z3 model with floating-point terms (verify/model_float.cpp),
// so the two agree by construction and `oriverify --crosscheck` checks that they do.
//
// The hardware's tables are not published; these are textbook approximations within a few
// units in the last place of the exact function on the ranges the PTX ISA quotes
// (docs/interpreter.md gives the definition and the measured error). They are not
// bit-exact with a GPU. Coefficients are Taylor coefficients, derived from ln 2 and
// factorials below, rounded once to binary32.
//
// A backend `O` provides: types F (a binary32 value) and B (a condition); c(float);
// add sub mul div fma (rounded to nearest even); neg; rint (to an integral value, ties to
// even); floor; lt eq (IEEE comparisons: false on NaN); isNaN; isInf; any (B or B);
// select(B, F, F); pow2(n) for an integral n in [-126, 127]; and, for a positive normal x,
// exponent(x) (its unbiased exponent as an integral F) and significand(x) (x scaled into
// [1, 2)).
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace ori::approx {

inline constexpr double kLn2 = 0.69314718055994530942;
inline constexpr double kPi = 3.14159265358979323846;

// 2^f = e^(f ln 2) = sum (ln 2)^k / k! f^k; to degree 7 on |f| <= 1/2 the next term is
// below 6e-9 relative.
constexpr std::array<float, 8> ex2Coefficients() {
  std::array<float, 8> c{};
  double t = 1;
  for (size_t k = 0; k < c.size(); ++k) {
    c[k] = float(t);
    t = t * kLn2 / double(k + 1);
  }
  return c;
}

// log2 m = 2/ln 2 * atanh s with s = (m - 1)/(m + 1) = 2/ln 2 * (s + s^3/3 + s^5/5 + ...);
// for m in [sqrt(1/2), sqrt 2], |s| <= 0.1716 and the terms to s^9 leave below 2e-9 relative.
// Entry k multiplies s^(2k+1).
constexpr std::array<float, 5> lg2Coefficients() {
  std::array<float, 5> c{};
  for (size_t k = 0; k < c.size(); ++k)
    c[k] = float(2 / (kLn2 * double(2 * k + 1)));
  return c;
}

// sin a = sum (-1)^k a^(2k+1)/(2k+1)!, cos a = sum (-1)^k a^(2k)/(2k)!, to a^9 and a^10:
// on |a| <= pi/4 the next terms are below 2e-9.
constexpr std::array<float, 5> sinCoefficients() {
  std::array<float, 5> c{};
  double t = 1; // 1/(2k+1)! with its sign
  for (size_t k = 0; k < c.size(); ++k) {
    c[k] = float(t);
    t = -t / double((2 * k + 2) * (2 * k + 3));
  }
  return c;
}
constexpr std::array<float, 6> cosCoefficients() {
  std::array<float, 6> c{};
  double t = 1; // 1/(2k)! with its sign
  for (size_t k = 0; k < c.size(); ++k) {
    c[k] = float(t);
    t = -t / double((2 * k + 1) * (2 * k + 2));
  }
  return c;
}

// sum c[k] y^k by Horner's rule with fused multiply-adds.
template <class O, size_t N>
typename O::F horner(O &o, const typename O::F &y, const std::array<float, N> &c) {
  typename O::F p = o.c(c[N - 1]);
  for (size_t k = N - 1; k-- > 0;)
    p = o.fma(p, y, o.c(c[k]));
  return p;
}

// 2^x. x is clamped to [-150, 128] (beyond, the result is 0 or infinity either way);
// n = rint(x), f = x - n (exact, |f| <= 1/2), 2^f by the polynomial, then scaled by 2^n in
// two exact-or-once-rounded steps so that 2^n need not be representable. NaN gives NaN.
template <class O> typename O::F ex2(O &o, const typename O::F &x) {
  using F = typename O::F;
  F xc =
      o.select(o.lt(x, o.c(-150.0f)), o.c(-150.0f), o.select(o.lt(x, o.c(128.0f)), x, o.c(128.0f)));
  F n = o.rint(xc);
  F f = o.sub(xc, n);
  F p = horner(o, f, ex2Coefficients());
  F n1 = o.floor(o.mul(n, o.c(0.5f)));
  F n2 = o.sub(n, n1); // n1, n2 in [-75, 64]
  F r = o.mul(o.mul(p, o.pow2(n1)), o.pow2(n2));
  return o.select(o.isNaN(x), x, r);
}

// log2 x. NaN and x < 0 give NaN, ±0 gives -infinity, +infinity gives +infinity. Otherwise
// x = m 2^e with m in [sqrt(1/2), sqrt 2] (a subnormal is first scaled by 2^24), and
// log2 x = e + log2 m with log2 m by the atanh series.
template <class O> typename O::F lg2(O &o, const typename O::F &x) {
  using F = typename O::F;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  typename O::B special =
      o.any(o.any(o.isNaN(x), o.isInf(x)), o.any(o.lt(x, o.c(0.0f)), o.eq(x, o.c(0.0f))));
  F xs = o.select(special, o.c(1.0f), x);
  typename O::B tiny = o.lt(xs, o.c(0x1p-126f));
  xs = o.select(tiny, o.mul(xs, o.c(0x1p24f)), xs);
  F e = o.exponent(xs), m = o.significand(xs);
  typename O::B high = o.lt(o.c(1.41421356f), m);
  m = o.select(high, o.mul(m, o.c(0.5f)), m);
  e = o.add(e, o.select(high, o.c(1.0f), o.c(0.0f)));
  e = o.sub(e, o.select(tiny, o.c(24.0f), o.c(0.0f)));
  F s = o.div(o.sub(m, o.c(1.0f)), o.add(m, o.c(1.0f)));
  F l = o.mul(horner(o, o.mul(s, s), lg2Coefficients()), s);
  F r = o.add(e, l);
  F nan = o.c(std::numeric_limits<float>::quiet_NaN());
  return o.select(o.any(o.isNaN(x), o.lt(x, o.c(0.0f))), nan,
                  o.select(o.eq(x, o.c(0.0f)), o.c(-kInf), o.select(o.isInf(x), x, r)));
}

// sin x and cos x. NaN and infinities give NaN. t = x/(2 pi) in turns (one rounding),
// k = rint(4t) quarter turns, a = 2 pi (t - k/4) in [-pi/4, pi/4], and the quadrant
// k mod 4 picks ±sin a or ±cos a. Precision falls as |x| grows, as on the hardware;
// sin(±0) is ±0.
template <class O> typename O::F sinCos(O &o, const typename O::F &x, bool cosine) {
  using F = typename O::F;
  typename O::B bad = o.any(o.isNaN(x), o.isInf(x));
  F xs = o.select(bad, o.c(0.0f), x);
  F t = o.mul(xs, o.c(float(1 / (2 * kPi))));
  F k = o.rint(o.mul(t, o.c(4.0f)));
  F a = o.mul(o.fma(k, o.c(-0.25f), t), o.c(float(2 * kPi)));
  F a2 = o.mul(a, a);
  F s = o.mul(horner(o, a2, sinCoefficients()), a);
  F c = horner(o, a2, cosCoefficients());
  F q = o.sub(k, o.mul(o.floor(o.mul(k, o.c(0.25f))), o.c(4.0f))); // 0, 1, 2 or 3
  auto quadrant = [&](const F &q0, const F &q1, const F &q2, const F &q3) {
    return o.select(o.eq(q, o.c(0.0f)), q0,
                    o.select(o.eq(q, o.c(1.0f)), q1, o.select(o.eq(q, o.c(2.0f)), q2, q3)));
  };
  F r = cosine ? quadrant(c, o.neg(s), o.neg(c), s) : quadrant(s, c, o.neg(s), o.neg(c));
  if (!cosine)
    r = o.select(o.eq(x, o.c(0.0f)), x, r);
  return o.select(bad, o.c(std::numeric_limits<float>::quiet_NaN()), r);
}

// tanh x = x - x^3/3 + 2x^5/15 - ...: the odd Taylor coefficients (Bernoulli numbers) to
// x^13, exact rationals rounded once to binary32. On |x| < 0.55 the next term is below 2^-21
// relative.
constexpr std::array<float, 7> tanhCoefficients() {
  return {float(1.0),         float(-1.0 / 3),         float(2.0 / 15),         float(-17.0 / 315),
          float(62.0 / 2835), float(-1382.0 / 155925), float(21844.0 / 6081075)};
}

// The coefficients after the first (x^3, x^5, ...), for x + x^3 Q(x^2).
constexpr std::array<float, 6> tanhCoefficientsTail() {
  std::array<float, 6> c{};
  for (size_t k = 0; k < c.size(); ++k)
    c[k] = tanhCoefficients()[k + 1];
  return c;
}

// tanh x. NaN gives NaN, ±infinity ±1, ±0 ±0. |x| < 0.55: x * P(x^2) (a subnormal x comes
// through as itself); otherwise 1 - 2/(e^(2|x|) + 1) with e^(2|x|) = ex2(2|x| log2 e), the sign
// of x put back. Exact to about 2^-21 relative (PTX bound: 2^-11).
template <class O> typename O::F tanh(O &o, const typename O::F &x) {
  using F = typename O::F;
  typename O::B negative = o.lt(x, o.c(0.0f));
  F ax = o.select(negative, o.neg(x), x);
  F x2 = o.mul(x, x);
  F small = o.fma(o.mul(x2, x), horner(o, x2, tanhCoefficientsTail()), x);
  F t = ex2(o, o.mul(ax, o.c(float(2 / kLn2))));
  F large = o.sub(o.c(1.0f), o.div(o.c(2.0f), o.add(t, o.c(1.0f))));
  F r = o.select(o.lt(ax, o.c(0.55f)), small, o.select(negative, o.neg(large), large));
  // ±0 is itself (the polynomial's -0 * Q(0) + -0 would be +0: Q(0) = -1/3 is negative).
  return o.select(o.any(o.isNaN(x), o.eq(x, o.c(0.0f))), x, r);
}

// The backend on host floats (the interpreter's), rounded to
// nearest even (each result passes through a volatile, so no two are fused or kept wider).
struct HostOps {
  using F = float;
  using B = bool;
  static float keep(float r) {
    volatile float v = r;
    return v;
  }
  float c(float x) { return x; }
  float add(float a, float b) { return keep(a + b); }
  float sub(float a, float b) { return keep(a - b); }
  float mul(float a, float b) { return keep(a * b); }
  float div(float a, float b) { return keep(a / b); }
  float fma(float a, float b, float c) { return keep(std::fma(a, b, c)); }
  float neg(float a) { return -a; }
  float rint(float a) { return keep(std::nearbyint(a)); }
  float floor(float a) { return std::floor(a); }
  bool lt(float a, float b) { return a < b; }
  bool eq(float a, float b) { return a == b; }
  bool isNaN(float a) { return std::isnan(a); }
  bool isInf(float a) { return std::isinf(a); }
  bool any(bool a, bool b) { return a || b; }
  float select(bool b, float x, float y) { return b ? x : y; }
  float pow2(float n) { return std::bit_cast<float>(uint32_t(int(n) + 127) << 23); }
  float exponent(float x) { return float(int(std::bit_cast<uint32_t>(x) >> 23 & 0xff) - 127); }
  float significand(float x) {
    return std::bit_cast<float>((std::bit_cast<uint32_t>(x) & 0x807fffffu) | 0x3f800000u);
  }
};

} // namespace ori::approx
