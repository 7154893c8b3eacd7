// The LOP3/PLOP3 truth-table algebra (rules/lut.h) on plain integers, the
// form the passes use; the lop3.* obligations prove the same functions for
// all LUTs (tests/unit/z3_obligations_test.cpp). Expected LUTs are derived
// by hand from the convention LUT(F) = F(0xF0, 0xCC, 0xAA).
#include <gtest/gtest.h>

#include <random>

#include "rules/lut.h"
#include "verify/crosscheck.h"

namespace ori {
namespace {

using lut::kA, lut::kB, lut::kC;

TEST(Z3Lut, ApplyOnTheCanonicalInputsGivesTheLut) {
  for (unsigned l = 0; l < 256; ++l)
    EXPECT_EQ(lut::apply<uint8_t>(uint8_t(l), kA, kB, kC), l) << l;
  // a & b & c selects only minterm 7: 0x80; a ^ b ^ c: 0xF0 ^ 0xCC ^ 0xAA = 0x96.
  EXPECT_EQ(lut::apply<uint32_t>(0x80, 0xffff0000u, 0xff00ff00u, 0xf0f0f0f0u), 0xf0000000u);
  EXPECT_EQ(lut::apply<uint32_t>(0x96, 0x12345678u, 0x0f0f0f0fu, 0xffffffffu),
            ~(0x12345678u ^ 0x0f0f0f0fu));
}

TEST(Z3Lut, Compose) {
  // outer x & y fed by a and b: a & b = 0xF0 & 0xCC = 0xC0.
  EXPECT_EQ(lut::compose<uint8_t>(0xC0, kA, kB, kC), 0xC0);
  // outer x & y fed by (a | b) and c: (0xF0 | 0xCC) & 0xAA = 0xFC & 0xAA = 0xA8.
  EXPECT_EQ(lut::compose<uint8_t>(0xC0, 0xFC, kC, 0x00), 0xA8);
  // outer x ^ y ^ z fed by a & b, b & c, a & c: (0xC0 ^ 0x88 ^ 0xA0) = 0xE8, the majority.
  EXPECT_EQ(lut::compose<uint8_t>(0x96, 0xC0, 0x88, 0xA0), 0xE8);
}

TEST(Z3Lut, NegatePermuteFold) {
  EXPECT_EQ(lut::negateOutput<uint8_t>(0xC0), 0x3F);   // NAND
  EXPECT_EQ(lut::negateInput<uint8_t>(0xC0, 0), 0x0C); // ~a & b = 0x0F & 0xCC
  EXPECT_EQ(lut::negateInput<uint8_t>(0xC0, 1), 0x30); // a & ~b = 0xF0 & 0x33
  EXPECT_EQ(lut::negateInput<uint8_t>(0x80, 2), 0x40); // a & b & ~c = 0xC0 & 0x55
  // G(a, b, c) = F(b, a, c) with F = "first input": G = b = 0xCC.
  EXPECT_EQ(lut::permute<uint8_t>(kA, {1, 0, 2}), kB);
  // F = a & ~b (0x30); G(a, b, c) = F(c, a, b) = c & ~a = 0xAA & 0x0F = 0x0A.
  EXPECT_EQ(lut::permute<uint8_t>(0x30, {2, 0, 1}), 0x0A);
  EXPECT_EQ(lut::foldConstant<uint8_t>(0x80, 2, false), 0x00); // a & b & 0
  EXPECT_EQ(lut::foldConstant<uint8_t>(0x80, 2, true), 0xC0);  // a & b & 1
  EXPECT_EQ(lut::foldConstant<uint8_t>(0xE8, 0, true), 0xEE);  // majority(1, b, c) = b | c
  EXPECT_EQ(lut::foldConstant<uint8_t>(0xE8, 0, false), 0x88); // majority(0, b, c) = b & c
}

// The library's evaluation is what the interpreter computes for LOP3.
TEST(Z3Lut, ApplyAgreesWithTheInterpreter) {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 64; ++k) {
    verify::ConcreteInputs x;
    x.srcs = {rng(), rng(), rng(), rng() & 0xff};
    x.oldDsts = {0};
    ModSet mods;
    mods.set(Mod::LUT);
    Instr in = verify::makeSubject(Opcode::LOP3, mods, 0, x);
    std::string error;
    auto out = verify::interpretOne(in, x, &error);
    ASSERT_TRUE(out) << error;
    uint32_t expect = lut::apply<uint32_t>(uint32_t(x.srcs[3]), uint32_t(x.srcs[0]),
                                           uint32_t(x.srcs[1]), uint32_t(x.srcs[2]));
    EXPECT_EQ(out->dsts[0], expect) << k;
  }
}

} // namespace
} // namespace ori
