// The MUFU.EX2/LG2/SIN/COS/TANH definition of ir/approx_math.h, on host floats (the
// interpreter's backend), against the exact functions (libm in binary64, whose error is far
// below the bounds checked here) on dense samples: the bounds are the PTX ISA's for the
// .approx instructions (ex2: 2 ulp; lg2: 2^-22 absolute on [1/2, 2], 2 ulp elsewhere;
// sin/cos: 2^-20.5 absolute on [-pi, pi]). The Z3 backend is checked against this one by
// `oriverify --crosscheck` (the MUFU combinations).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "ir/approx_math.h"

namespace {

using ori::approx::HostOps;

// The spacing of binary32 values at |v| (the subnormal spacing below 2^-126).
double ulpOf(double v) {
  v = std::fabs(v);
  int e = v == 0 ? -126 : std::max(std::ilogb(v), -126);
  return std::ldexp(1.0, e - 23);
}

TEST(ApproxMath, Ex2IsWithinTwoUlpOverItsWholeRange) {
  HostOps o;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-149.0f, 128.0f);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    float x = d(rng);
    double exact = std::exp2(double(x));
    if (exact >= 0x1p128)
      continue; // overflows: checked below
    worst = std::max(worst, std::fabs(double(ori::approx::ex2(o, x)) - exact) / ulpOf(exact));
  }
  EXPECT_LE(worst, 2.0);
  EXPECT_GT(worst, 0.0); // the samples reach inexact results
}

TEST(ApproxMath, Lg2MeetsThePtxBounds) {
  HostOps o;
  std::mt19937 rng(8);
  double worstAbs = 0, worstUlp = 0;
  for (int i = 0; i < 400000; ++i) {
    float x = std::bit_cast<float>(uint32_t(rng() % 0x7f800000u)); // every positive finite value
    if (i % 2)
      x = std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
    double exact = std::log2(double(x)), got = ori::approx::lg2(o, x);
    if (x >= 0.5f && x <= 2.0f)
      worstAbs = std::max(worstAbs, std::fabs(got - exact));
    else
      worstUlp = std::max(worstUlp, std::fabs(got - exact) / ulpOf(exact));
  }
  EXPECT_LE(worstAbs, 0x1p-22);
  EXPECT_LE(worstUlp, 2.0);
  EXPECT_GT(worstAbs, 0.0);
}

TEST(ApproxMath, SinAndCosMeetThePtxBoundOnOneTurn) {
  HostOps o;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-3.14159265f, 3.14159265f);
  double worstSin = 0, worstCos = 0;
  for (int i = 0; i < 400000; ++i) {
    float x = d(rng);
    worstSin = std::max(worstSin,
                        std::fabs(double(ori::approx::sinCos(o, x, false)) - std::sin(double(x))));
    worstCos = std::max(worstCos,
                        std::fabs(double(ori::approx::sinCos(o, x, true)) - std::cos(double(x))));
  }
  EXPECT_LE(worstSin, 0x1.6a09e6p-21); // 2^-20.5
  EXPECT_LE(worstCos, 0x1.6a09e6p-21);
}

// Special values, from the definition's case analysis (each also what the exact function
// gives): NaN in, NaN out; ex2 saturates to 0 and +inf; lg2 of 0, of negatives, of +inf;
// sin keeps the sign of zero.
TEST(ApproxMath, SpecialValues) {
  HostOps o;
  constexpr float kInf = INFINITY;
  EXPECT_TRUE(std::isnan(ori::approx::ex2(o, NAN)));
  EXPECT_EQ(ori::approx::ex2(o, -kInf), 0.0f);
  EXPECT_EQ(ori::approx::ex2(o, kInf), kInf);
  EXPECT_EQ(ori::approx::ex2(o, 128.0f), kInf);
  EXPECT_EQ(ori::approx::ex2(o, -149.0f), 0x1p-149f); // the smallest subnormal, exactly
  EXPECT_EQ(ori::approx::ex2(o, -151.0f), 0.0f);
  EXPECT_EQ(ori::approx::ex2(o, 127.0f), 0x1p127f);
  EXPECT_EQ(ori::approx::lg2(o, 0.0f), -kInf);
  EXPECT_EQ(ori::approx::lg2(o, -0.0f), -kInf);
  EXPECT_TRUE(std::isnan(ori::approx::lg2(o, -1.0f)));
  EXPECT_TRUE(std::isnan(ori::approx::lg2(o, -kInf)));
  EXPECT_EQ(ori::approx::lg2(o, kInf), kInf);
  EXPECT_EQ(ori::approx::lg2(o, 1.0f), 0.0f);
  EXPECT_EQ(ori::approx::lg2(o, 0x1p-149f), -149.0f);
  EXPECT_EQ(ori::approx::lg2(o, 0x1p127f), 127.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(ori::approx::sinCos(o, -0.0f, false)), 0x80000000u);
  EXPECT_EQ(ori::approx::sinCos(o, 0.0f, true), 1.0f);
  EXPECT_TRUE(std::isnan(ori::approx::sinCos(o, kInf, false)));
  EXPECT_TRUE(std::isnan(ori::approx::sinCos(o, -kInf, true)));
}

// tanh.approx.f32 (ISA 9.7.3.22): relative error at most 2^-11 over the whole range; the
// definition is well inside it. Samples: every magnitude from subnormals to 2^7 (past ~9.01
// the result is 1), both signs.
TEST(ApproxMath, TanhMeetsThePtxBound) {
  HostOps o;
  std::mt19937 rng(10);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    float x = std::bit_cast<float>(uint32_t(rng() % 0x43000000u)); // 0 .. 128
    if (i % 3 == 0)
      x = std::uniform_real_distribution<float>(0.0f, 3.0f)(rng);
    if (i % 2)
      x = -x;
    double exact = std::tanh(double(x));
    if (exact == 0)
      continue;
    worst = std::max(worst, std::fabs(double(ori::approx::tanh(o, x)) - exact) / std::fabs(exact));
  }
  EXPECT_LE(worst, 0x1p-11);
  EXPECT_LE(worst, 0x1p-20); // the definition's own accuracy (docs/interpreter.md)
  EXPECT_GT(worst, 0.0);
}

TEST(ApproxMath, TanhSpecialValues) {
  HostOps o;
  // ISA 9.7.3.22's table: -inf -> -1, -0 -> -0, +0 -> +0, +inf -> 1, NaN -> NaN; subnormals
  // pass through.
  EXPECT_EQ(ori::approx::tanh(o, -INFINITY), -1.0f);
  EXPECT_EQ(ori::approx::tanh(o, INFINITY), 1.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(ori::approx::tanh(o, -0.0f)), 0x80000000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(ori::approx::tanh(o, 0.0f)), 0u);
  EXPECT_TRUE(std::isnan(ori::approx::tanh(o, NAN)));
  EXPECT_EQ(ori::approx::tanh(o, 0x1p-140f), 0x1p-140f);
  EXPECT_EQ(ori::approx::tanh(o, -0x1p-126f), -0x1p-126f);
  EXPECT_EQ(ori::approx::tanh(o, 20.0f), 1.0f);
  EXPECT_EQ(ori::approx::tanh(o, -100.0f), -1.0f);
}

// Every power of two in range is exact: 2^n for integral n, and lg2 of 2^n is n.
TEST(ApproxMath, PowersOfTwoAreExact) {
  HostOps o;
  for (int n = -149; n <= 127; ++n) {
    EXPECT_EQ(ori::approx::ex2(o, float(n)), std::ldexp(1.0f, n)) << n;
    EXPECT_EQ(ori::approx::lg2(o, std::ldexp(1.0f, n)), float(n)) << n;
  }
}

} // namespace
