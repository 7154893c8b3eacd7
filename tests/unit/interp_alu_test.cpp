// Tests of the interpreter's integer and float instructions (interp/interp.h; semantics in
// docs/interpreter.md). Every expected value is derived by hand in the comment beside it. Float
// constants are written as their IEEE bit patterns: 0x3f800000 = 1.0f, 0x40000000 = 2.0f,
// 0xbf800000 = -1.0f, 0x7fc00000 = quiet NaN, 0x7f800000 = +inf, 0x00000001 = the smallest
// binary32 denormal (2^-149).
#include <gtest/gtest.h>

#include <cfenv>

#include "interp_test_helpers.h"

namespace ori {
namespace {

using namespace ori::test;

// ---------------------------------------------------------------- integer

TEST(InterpInteger, MovAndImmediatesTruncateToTheOperandWidth) {
  EXPECT_EQ(regAfter("MOV R3, -1"), 0xffffffffu);            // -1 truncated to 32 bits
  EXPECT_EQ(regAfter("MOV.64 R3, -1"), 0xffffffffffffffffu); // .64 keeps all 64
  EXPECT_EQ(regAfter("MOV.64 R3, 0x123456789\nMOV R3, R3"),
            0x23456789u); // 32-bit MOV clears the top
  EXPECT_EQ(regAfter("MOV R3, RZ"), 0u);
  EXPECT_EQ(regAfter("MOV RZ, 0x5\nMOV R3, RZ"), 0u); // writes to RZ are discarded
}

TEST(InterpInteger, Iadd3WrapsAndNegates) {
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIADD3 R3, R1, 0x1, RZ"), 0u); // 2^32 wraps to 0
  EXPECT_EQ(regAfter("MOV R1, 0x5\nMOV R2, 0x7\nIADD3 R3, R1, -R2, 0x1"),
            0xffffffffu);                                             // 5-7+1 = -1
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nIADD3.64 R3, R1, 0x2, RZ"), 1u); // 64-bit wrap
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIADD3.64 R3, R1, 0x1, RZ"),
            0x100000000u); // no 32-bit wrap
  // 32-bit op on a register holding 0x1_00000005: reads the low 32 bits (5).
  EXPECT_EQ(regAfter("MOV.64 R1, 0x100000005\nIADD3 R3, R1, 0x1, RZ"), 6u);
}

TEST(InterpInteger, SelPicksByPredicate) {
  EXPECT_EQ(regAfter("SEL R3, 0x1, 0x2, PT"), 1u);
  EXPECT_EQ(regAfter("SEL R3, 0x1, 0x2, !PT"), 2u);
  EXPECT_EQ(regAfter("SEL R3, 0x1, 0x2, P0"), 2u); // predicates start false
}

TEST(InterpInteger, Imad) {
  EXPECT_EQ(regAfter("MOV R1, 0x10000\nIMAD R3, R1, R1, 0x3"), 3u); // 2^32+3 -> low 32 = 3
  EXPECT_EQ(regAfter("MOV R1, 0x10000\nIMAD.64 R3, R1, R1, 0x3"), 0x100000003u);
  // WIDE (signed): -2 * 3 + 10 = 4 as a 64-bit value.
  EXPECT_EQ(regAfter("MOV R1, -2\nIMAD.WIDE R3, R1, 0x3, 0xa"), 4u);
  // WIDE.U32: 0xffffffff * 2 + 0 = 0x1_fffffffe.
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIMAD.WIDE.U32 R3, R1, 0x2, RZ"), 0x1fffffffeu);
  // WIDE: c is 64-bit: 1*1 + 0xffffffff_ffffffff = 0 (64-bit wrap).
  EXPECT_EQ(regAfter("MOV.64 R2, -1\nMOV R1, 0x1\nIMAD.WIDE R3, R1, R1, R2"), 0u);
  // HI (signed): -2 * 3 = -6 = 0xffffffff_fffffffa; high word 0xffffffff, +1 = 0.
  EXPECT_EQ(regAfter("MOV R1, -2\nIMAD.HI R3, R1, 0x3, 0x1"), 0u);
  // HI.U32: 0xffffffff^2 = 0xfffffffe_00000001; high word 0xfffffffe, +1 = 0xffffffff.
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIMAD.HI.U32 R3, R1, R1, 0x1"), 0xffffffffu);
}

TEST(InterpInteger, Lop3TruthTables) {
  // a = 0b1100, b = 0b1010, c = 0b0110.
  const std::string setup = "MOV R0, 0xc\nMOV R1, 0xa\nMOV R2, 0x6\n";
  auto lop = [&](const char *lut) { return regAfter(setup + "LOP3.LUT R3, R0, R1, R2, " + lut); };
  EXPECT_EQ(lop("0x96"), 0x0u);        // a^b^c = 1100^1010^0110 = 0000
  EXPECT_EQ(lop("0x80"), 0x0u);        // a&b&c: no bit set in all three
  EXPECT_EQ(lop("0xfe"), 0xeu);        // a|b|c = 1110
  EXPECT_EQ(lop("0xc0"), 0x8u);        // a&b = 1000
  EXPECT_EQ(lop("0xf0"), 0xcu);        // a
  EXPECT_EQ(lop("0xaa"), 0x6u);        // c
  EXPECT_EQ(lop("0xe8"), 0xeu);        // majority: bit3 (1,1,0) bit2 (1,0,1) bit1 (0,1,1) -> 1110
  EXPECT_EQ(lop("0x0f"), 0xfffffff3u); // ~a in 32 bits
  EXPECT_EQ(lop("0x00"), 0x0u);
  EXPECT_EQ(lop("0xff"), 0xffffffffu);
  EXPECT_EQ(regAfter("LOP3.LUT.64 R3, RZ, RZ, RZ, 0xff"), 0xffffffffffffffffu);
  EXPECT_EQ(regAfter("MOV.64 R0, 0xff00000000\nLOP3.LUT.64 R3, R0, RZ, RZ, 0xf0"), 0xff00000000u);
}

TEST(InterpInteger, Plop3) {
  // a = PT (1), b = P1 (0), c = !P1 (1): index 0b101 = 5. lut 0x20 has bit 5; lut2 0xdf does not.
  EXPECT_TRUE(predAfter("PLOP3.LUT P0, P2, PT, P1, !P1, 0x20, 0xdf", "P0"));
  EXPECT_FALSE(predAfter("PLOP3.LUT P0, P2, PT, P1, !P1, 0x20, 0xdf", "P2"));
  // a&b&c (0x80) on (1,1,1) is true; a^b^c (0x96) on (1,0,0) is true.
  EXPECT_TRUE(predAfter("PLOP3.LUT P0, P2, PT, PT, PT, 0x80, 0x0"));
  EXPECT_TRUE(predAfter("PLOP3.LUT P0, P2, PT, P1, P1, 0x96, 0x0"));
  EXPECT_FALSE(predAfter("PLOP3.LUT P0, P2, PT, PT, P1, 0x96, 0x0")); // 1^1^0 = 0
}

TEST(InterpInteger, Shifts) {
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL R3, R1, 0x0"), 1u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL R3, R1, 0x1f"), 0x80000000u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL R3, R1, 0x20"), 0u); // >= width gives 0
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL.64 R3, R1, 0x3f"), 0x8000000000000000u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL.64 R3, R1, 0x40"), 0u);
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR R3, R1, 0x1f"), 1u); // .U32 default: logical
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.S32 R3, R1, 0x1f"), 0xffffffffu); // arithmetic
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.S32 R3, R1, 0x20"), 0xffffffffu); // sign fill
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nSHR.S32 R3, R1, 0x40"), 0u);
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.U32 R3, R1, 0x20"), 0u);
  EXPECT_EQ(regAfter("MOV.64 R1, -0x10\nSHR.S64 R3, R1, 0x2"),
            0xfffffffffffffffcu); // -16 >> 2 = -4
  EXPECT_EQ(regAfter("MOV.64 R1, -0x10\nSHR.U64 R3, R1, 0x3c"), 0xfu);
  // A shift amount register is read as unsigned 32-bit: 0xffffffff is >= 32.
  EXPECT_EQ(regAfter("MOV R1, 0x1\nMOV R2, -1\nSHL R3, R1, R2"), 0u);
}

TEST(InterpInteger, FunnelShifts) {
  // lo = 0x80000001, hi = 0x00000003: v = 0x00000003_80000001.
  const std::string s = "MOV R1, 0x80000001\nMOV R2, 0x3\n";
  EXPECT_EQ(regAfter(s + "SHF.L.U32 R3, R1, 0x4, R2"), 0x00000010u); // low word of v << 4
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x4, R2"), 0x38u);    // high word: 0x38
  EXPECT_EQ(regAfter(s + "SHF.R.U32 R3, R1, 0x4, R2"), 0x38000000u); // v >> 4 low word
  EXPECT_EQ(regAfter(s + "SHF.R.U32.HI R3, R1, 0x4, R2"), 0x0u);
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x0, R2"), 0x3u);         // shift by 0
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x20, R2"), 0x80000001u); // by 32: hi = lo
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x25, R2"), 0x80000001u); // .U32 clamps at 32
  EXPECT_EQ(regAfter(s + "SHF.L.U64.HI R3, R1, 0x21, R2"),
            0x2u); // .U64: 33 -> lo<<1 = 0x1_00000002
  EXPECT_EQ(regAfter(s + "SHF.L.U64.HI R3, R1, 0x50, R2"), 0x0u); // clamps at 64: all out
  EXPECT_EQ(regAfter(s + "SHF.R.U32 R3, R1, 0x3f, R2"), 0x3u); // clamps at 32: low word of v >> 32
}

TEST(InterpInteger, FunnelShiftRightArithmetic) {
  // hi = 0x80000000 (negative), lo = 0: v >> 4 arithmetic = 0xf8000000_00000000.
  const std::string s = "MOV R1, 0x0\nMOV R2, 0x80000000\n";
  EXPECT_EQ(regAfter(s + "SHF.R.S32.HI R3, R1, 0x4, R2"), 0xf8000000u);
  EXPECT_EQ(regAfter(s + "SHF.R.U32.HI R3, R1, 0x4, R2"), 0x08000000u);
  EXPECT_EQ(regAfter(s + "SHF.R.S64.HI R3, R1, 0x40, R2"), 0xffffffffu); // 64: sign fill
  EXPECT_EQ(regAfter(s + "SHF.R.S32 R3, R1, 0x20, R2"), 0x80000000u);    // v >> 32 low word = hi
}

TEST(InterpInteger, MinMaxAndLea) {
  const std::string s = "MOV R1, -1\nMOV R2, 0x1\n";            // R1 = 0xffffffff
  EXPECT_EQ(regAfter(s + "IMNMX R3, R1, R2, PT"), 0xffffffffu); // signed min(-1, 1) = -1
  EXPECT_EQ(regAfter(s + "IMNMX R3, R1, R2, !PT"), 1u);         // signed max = 1
  EXPECT_EQ(regAfter(s + "IMNMX.U32 R3, R1, R2, PT"), 1u);      // unsigned min = 1
  EXPECT_EQ(regAfter(s + "IMNMX.U32 R3, R1, R2, !PT"), 0xffffffffu);
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nIMNMX.S64 R3, R1, 0x1, PT"), 0xffffffffffffffffu);
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nIMNMX.U64 R3, R1, 0x1, PT"), 1u);
  // LEA: (a << s) + b: (3 << 4) + 5 = 53.
  EXPECT_EQ(regAfter("MOV R1, 0x3\nLEA R3, R1, 0x5, 0x4"), 53u);
  EXPECT_EQ(regAfter("MOV R1, 0x3\nLEA R3, R1, 0x0, 0x1f"), 0x80000000u); // 3<<31 truncated
  EXPECT_EQ(regAfter("MOV R1, 0x3\nLEA.64 R3, R1, 0x0, 0x1f"), 0x180000000u);
}

TEST(InterpInteger, IsetpSignedUnsignedAndCombining) {
  const std::string s = "MOV R1, 0xffffffff\n";
  EXPECT_TRUE(predAfter(s + "ISETP.LT.AND P0, PT, R1, RZ, PT"));      // signed: -1 < 0
  EXPECT_FALSE(predAfter(s + "ISETP.LT.U32.AND P0, PT, R1, RZ, PT")); // unsigned: 0xffffffff > 0
  EXPECT_TRUE(predAfter(s + "ISETP.GT.U32.AND P0, PT, R1, RZ, PT"));
  EXPECT_FALSE(predAfter(s + "ISETP.LT.U64.AND P0, PT, R1, RZ, PT")); // 0x00000000_ffffffff > 0
  EXPECT_TRUE(predAfter("MOV.64 R1, -1\nISETP.LT.S64.AND P0, PT, R1, RZ, PT"));
  EXPECT_TRUE(predAfter(s + "ISETP.EQ P0, PT, R1, -0x1, PT")); // no bool op: .AND
  // q = !r AND c: with r true, q is false.
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.AND P0, P1, R1, R1, PT", "P1"));
  EXPECT_TRUE(predAfter(s + "ISETP.NE.AND P0, P1, R1, R1, PT", "P1"));
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.AND P0, PT, R1, R1, !PT")); // r AND false
  EXPECT_TRUE(predAfter(s + "ISETP.NE.OR P0, PT, R1, R1, PT"));    // false OR true
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.XOR P0, PT, R1, R1, PT"));  // true XOR true
  EXPECT_TRUE(predAfter("ISETP.GE.AND P0, PT, RZ, RZ, PT"));
  EXPECT_TRUE(predAfter("ISETP.LE.AND P0, PT, RZ, RZ, PT"));
  // INT_MIN < INT_MAX signed, > unsigned.
  EXPECT_TRUE(predAfter("MOV R1, 0x80000000\nISETP.LT.AND P0, PT, R1, 0x7fffffff, PT"));
  EXPECT_FALSE(predAfter("MOV R1, 0x80000000\nISETP.LT.U32.AND P0, PT, R1, 0x7fffffff, PT"));
}

// ---------------------------------------------------------------- float

TEST(InterpFloat, FsetpOrderedAndUnordered) {
  const std::string nan = "MOV R1, 0x7fc00000\nMOV R2, 0x3f800000\n"; // R1 = NaN, R2 = 1.0
  EXPECT_FALSE(predAfter(nan + "FSETP.LT.AND P0, PT, R1, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.LTU.AND P0, PT, R1, R2, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.NE.AND P0, PT, R1, R2, PT")); // ordered NE is false on NaN
  EXPECT_TRUE(predAfter(nan + "FSETP.NEU.AND P0, PT, R1, R2, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.EQ.AND P0, PT, R1, R1, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.NAN.AND P0, PT, R2, R1, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.NUM.AND P0, PT, R2, R1, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.NUM.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.T.AND P0, PT, R1, R1, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.F.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.GE.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.GT.AND P0, PT, R2, -R2, PT"));     // 1 > -1
  EXPECT_TRUE(predAfter(nan + "FSETP.EQ.AND P0, PT, -|R2|, -1.0, PT")); // -|1| = -1
  EXPECT_TRUE(predAfter("MOV R1, 0xbf800000\nFSETP.EQ.AND P0, PT, |R1|, 1.0, PT"));
}

TEST(InterpFloat, FsetpZerosDenormalsAndFtz) {
  // -0.0 == +0.0.
  EXPECT_TRUE(predAfter("MOV R1, 0x80000000\nFSETP.EQ.AND P0, PT, R1, RZ, PT"));
  // A denormal is not zero, unless .FTZ flushes it.
  EXPECT_FALSE(predAfter("MOV R1, 0x1\nFSETP.EQ.AND P0, PT, R1, RZ, PT"));
  EXPECT_TRUE(predAfter("MOV R1, 0x1\nFSETP.EQ.FTZ.AND P0, PT, R1, RZ, PT"));
  // Float immediates: 1.5 > 1.0.
  EXPECT_TRUE(predAfter("MOV R1, 0x3fc00000\nFSETP.GT.AND P0, PT, R1, 1.0, PT"));
  EXPECT_TRUE(predAfter("MOV R1, 0x3fc00000\nFSETP.EQ.AND P0, PT, R1, 1.5, PT"));
}

TEST(InterpFloat, AddMulFmaBasics) {
  EXPECT_EQ(regAfter("MOV R1, 0x3f800000\nFADD R3, R1, 2.0"), 0x40400000u);      // 1+2 = 3
  EXPECT_EQ(regAfter("MOV R1, 0x3f800000\nFADD R3, R1, -R1"), 0x0u);             // 1-1 = +0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFADD R3, R1, R1"), 0x80000000u);       // -0 + -0 = -0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFADD R3, R1, RZ"), 0x0u);              // -0 + +0 = +0
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nFMUL R3, R1, 1.5"), 0x40400000u);      // 2*1.5 = 3
  EXPECT_EQ(regAfter("MOV R1, 0xc0000000\nFMUL R3, |R1|, -R1"), 0x40800000u);    // |-2| * 2 = 4
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nFFMA R3, R1, R1, -1.0"), 0x40400000u); // 2*2-1 = 3
  // FFMA rounds once: a = 1+2^-12, a*a = 1+2^-11+2^-24 (FMUL would round it to
  // 1+2^-11); minus (1+2^-11) leaves exactly 2^-24 = 0x33800000.
  EXPECT_EQ(regAfter("MOV R1, 0x3f800800\nMOV R2, 0xbf801000\nFFMA R3, R1, R1, R2"), 0x33800000u);
  EXPECT_EQ(regAfter("MOV R1, 0x3f800800\nFMUL R4, R1, R1\nMOV R2, 0xbf801000\nFADD R3, R4, R2"),
            0x0u);
  // Results are zero-extended 32-bit patterns even over a 64-bit register.
  EXPECT_EQ(regAfter("MOV.64 R3, -1\nFADD R3, RZ, 1.0"), 0x3f800000u);
}

TEST(InterpFloat, NaNsAreCanonical) {
  EXPECT_EQ(regAfter("MOV R1, 0x7fc00001\nFADD R3, R1, 1.0"), 0x7fffffffu);
  EXPECT_EQ(regAfter("MOV R1, 0xffc00000\nFMUL R3, 2.0, R1"), 0x7fffffffu);
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFADD R3, R1, -R1"), 0x7fffffffu);     // inf - inf
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFFMA R3, R1, RZ, 1.0"), 0x7fffffffu); // inf * 0
  EXPECT_EQ(regAfter("MOV.64 R1, 0x7ff0000000000000\nDADD R3, R1, -R1"), 0xfff8000000000000u);
}

TEST(InterpFloat, FtzAndSaturate) {
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFADD R3, R1, RZ"), 0x1u);                    // denormal kept
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFADD.FTZ R3, R1, RZ"), 0x0u);                // input flushed
  EXPECT_EQ(regAfter("MOV R1, 0x80000001\nFMUL.FTZ R3, R1, 1.0"), 0x80000000u); // sign kept
  // 2^-126 * 0.5 = 2^-127 is denormal (0x00400000); .FTZ flushes the output.
  EXPECT_EQ(regAfter("MOV R1, 0x800000\nFMUL R3, R1, 0.5"), 0x400000u);
  EXPECT_EQ(regAfter("MOV R1, 0x800000\nFMUL.FTZ R3, R1, 0.5"), 0x0u);
  EXPECT_EQ(regAfter("MOV R1, 0x3f400000\nFADD.SAT R3, R1, 0.5"), 0x3f800000u);  // 1.25 -> 1
  EXPECT_EQ(regAfter("MOV R1, 0x3f400000\nFADD.SAT R3, R1, -0.5"), 0x3e800000u); // 0.25 stays
  EXPECT_EQ(regAfter("FADD.SAT R3, RZ, -0.5"), 0x0u);                            // -0.5 -> +0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFMUL.SAT R3, R1, 1.0"), 0x0u);         // -0 -> +0
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFADD.SAT R3, R1, -R1"), 0x0u);         // NaN -> +0
}

TEST(InterpFloat, DirectedRounding) {
  // 1 + 2^-30 (0x30800000) lies strictly between 1.0 and 1+2^-23 (0x3f800001).
  const std::string p = "MOV R1, 0x3f800000\nMOV R2, 0x30800000\n";
  EXPECT_EQ(regAfter(p + "FADD R3, R1, R2"), 0x3f800000u);
  EXPECT_EQ(regAfter(p + "FADD.RN R3, R1, R2"), 0x3f800000u);
  EXPECT_EQ(regAfter(p + "FADD.RP R3, R1, R2"), 0x3f800001u);
  EXPECT_EQ(regAfter(p + "FADD.RM R3, R1, R2"), 0x3f800000u);
  EXPECT_EQ(regAfter(p + "FADD.RZ R3, R1, R2"), 0x3f800000u);
  // Negated: -(1 + 2^-30) between -1.0 and -(1+2^-23).
  EXPECT_EQ(regAfter(p + "FADD.RP R3, -R1, -R2"), 0xbf800000u);
  EXPECT_EQ(regAfter(p + "FADD.RM R3, -R1, -R2"), 0xbf800001u);
  EXPECT_EQ(regAfter(p + "FADD.RZ R3, -R1, -R2"), 0xbf800000u);
  // (1+2^-23)^2 = 1 + 2^-22 + 2^-46: RN/RZ/RM give 1+2^-22 (0x3f800002), RP the next float.
  const std::string m = "MOV R1, 0x3f800001\n";
  EXPECT_EQ(regAfter(m + "FMUL R3, R1, R1"), 0x3f800002u);
  EXPECT_EQ(regAfter(m + "FMUL.RP R3, R1, R1"), 0x3f800003u);
  EXPECT_EQ(regAfter(m + "FMUL.RZ R3, R1, R1"), 0x3f800002u);
  EXPECT_EQ(regAfter(m + "FFMA.RP R3, R1, R1, RZ"), 0x3f800003u);
  EXPECT_EQ(regAfter(m + "FFMA.RM R3, R1, R1, RZ"), 0x3f800002u);
  EXPECT_EQ(regAfter(m + "FFMA.RM R3, R1, -R1, RZ"), 0xbf800003u);
  // binary64: 1 + 2^-60 (0x3c30000000000000).
  const std::string d = "MOV.64 R1, 0x3ff0000000000000\nMOV.64 R2, 0x3c30000000000000\n";
  EXPECT_EQ(regAfter(d + "DADD R3, R1, R2"), 0x3ff0000000000000u);
  EXPECT_EQ(regAfter(d + "DADD.RP R3, R1, R2"), 0x3ff0000000000001u);
  EXPECT_EQ(regAfter(d + "DADD.RM R3, -R1, -R2"), 0xbff0000000000001u);
  EXPECT_EQ(regAfter(d + "DADD.RZ R3, -R1, -R2"), 0xbff0000000000000u);
  // After a directed operation the next default one rounds to nearest again.
  EXPECT_EQ(regAfter(p + "FADD.RP R4, R1, R2\nFADD R3, R1, R2"), 0x3f800000u);
}

TEST(InterpFloat, IndependentOfTheCallersRoundingMode) {
  // The caller's mode does not leak into default (round-to-nearest) operations
  // and is restored afterwards.
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  uint64_t r = regAfter("MOV R1, 0x3f800000\nMOV R2, 0x30800000\nFADD R3, R1, R2");
  EXPECT_EQ(std::fegetround(), FE_UPWARD);
  std::fesetround(FE_TONEAREST);
  EXPECT_EQ(r, 0x3f800000u); // 1 + 2^-30 rounds to 1.0, not up
}

TEST(InterpFloat, Double) {
  EXPECT_EQ(regAfter("MOV.64 R1, 0x3ff0000000000000\nDADD R3, R1, 2.0"),
            0x4008000000000000u); // 1+2
  EXPECT_EQ(regAfter("MOV.64 R1, 0x3ff8000000000000\nDMUL R3, R1, -2.0"),
            0xc008000000000000u); // -3
  // DFMA rounds once: a = 1+2^-27, a*a = 1+2^-26+2^-54; minus (1+2^-26) = 2^-54.
  EXPECT_EQ(
      regAfter("MOV.64 R1, 0x3ff0000002000000\nMOV.64 R2, 0xbff0000004000000\nDFMA R3, R1, R1, R2"),
      0x3c90000000000000u);
  const std::string nan = "MOV.64 R1, 0x7ff8000000000000\nMOV.64 R2, 0x3ff0000000000000\n";
  EXPECT_FALSE(predAfter(nan + "DSETP.GE.AND P0, PT, R1, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "DSETP.GEU.AND P0, PT, R1, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "DSETP.LT.AND P0, PT, -R2, R2, PT"));
  // A 32-bit value in the low half is a tiny positive double, not 1.0f.
  EXPECT_TRUE(predAfter("MOV R1, 0x3f800000\nDSETP.LT.AND P0, PT, R1, 1.0, PT"));
}

TEST(InterpFloat, Fmnmx) {
  const std::string s =
      "MOV R1, 0x7fc00000\nMOV R2, 0x40000000\nMOV R4, 0x80000000\n"; // NaN, 2, -0
  EXPECT_EQ(regAfter(s + "FMNMX R3, R1, R2, PT"), 0x40000000u);       // min(NaN, 2) = 2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, R1, !PT"), 0x40000000u);      // max(2, NaN) = 2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R1, R1, PT"), 0x7fffffffu);       // both NaN: canonical
  EXPECT_EQ(regAfter(s + "FMNMX R3, R4, RZ, PT"), 0x80000000u);       // min(-0, +0) = -0
  EXPECT_EQ(regAfter(s + "FMNMX R3, RZ, R4, PT"), 0x80000000u);
  EXPECT_EQ(regAfter(s + "FMNMX R3, R4, RZ, !PT"), 0x0u);        // max(-0, +0) = +0
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, -R2, PT"), 0xc0000000u); // min(2, -2) = -2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, 3.0, !PT"), 0x40400000u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFMNMX.FTZ R3, R1, RZ, !PT"), 0x0u); // flushed denormal
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFMNMX R3, R1, RZ, !PT"), 0x1u);
}

TEST(InterpFloat, I2f) {
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F R3, R1"), 0xbf800000u);        // S32 default: -1.0
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32 R3, R1"), 0x4f800000u);    // 2^32-1 -> 2^32 (RN)
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RZ R3, R1"), 0x4f7fffffu); // -> 2^32-256
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RM R3, R1"), 0x4f7fffffu);
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RP R3, R1"), 0x4f800000u);
  // -(2^24+1) is between -(2^24) and -(2^24+2): RZ -> -2^24 (0xcb800000), RM -> 0xcb800001.
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RZ R3, R1"), 0xcb800000u);
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RM R3, R1"), 0xcb800001u);
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RP R3, R1"), 0xcb800000u);
  EXPECT_EQ(regAfter("MOV R1, 0x80\nI2F.S8 R3, R1"), 0xc3000000u);     // (int8)0x80 = -128
  EXPECT_EQ(regAfter("MOV R1, 0x12345\nI2F.U16 R3, R1"), 0x460d1400u); // 0x2345 = 9029.0
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.F64 R3, R1"), 0xbff0000000000000u);
  // 2^53+1 to double: RN ties to even 2^53 (0x4340000000000000), RP 2^53+2.
  EXPECT_EQ(regAfter("MOV.64 R1, 0x20000000000001\nI2F.F64.S64 R3, R1"), 0x4340000000000000u);
  EXPECT_EQ(regAfter("MOV.64 R1, 0x20000000000001\nI2F.F64.S64.RP R3, R1"), 0x4340000000000001u);
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nI2F.F64.U64 R3, R1"), 0x43f0000000000000u); // 2^64
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nI2F.F64.U64.RZ R3, R1"), 0x43efffffffffffffu);
  EXPECT_EQ(regAfter("I2F.F64.S64 R3, -0x8000000000000000"), 0xc3e0000000000000u); // -2^63 exact
}

TEST(InterpFloat, F2i) {
  auto f2i = [](const char *bits, const char *op) {
    return regAfter(std::string("MOV R1, ") + bits + "\n" + op + " R3, R1");
  };
  EXPECT_EQ(f2i("0x40200000", "F2I"), 2u);                // 2.5 -> 2 (to even)
  EXPECT_EQ(f2i("0x40600000", "F2I"), 4u);                // 3.5 -> 4
  EXPECT_EQ(f2i("0xc0200000", "F2I"), 0xfffffffeu);       // -2.5 -> -2
  EXPECT_EQ(f2i("0xc02ccccd", "F2I.TRUNC"), 0xfffffffeu); // -2.7 -> -2
  EXPECT_EQ(f2i("0xc0133333", "F2I.FLOOR"), 0xfffffffdu); // -2.3 -> -3
  EXPECT_EQ(f2i("0x40066666", "F2I.CEIL"), 3u);           // 2.1 -> 3
  EXPECT_EQ(f2i("0x7fc00000", "F2I"), 0u);                // NaN -> 0
  EXPECT_EQ(f2i("0x4f32d05e", "F2I"), 0x7fffffffu);       // 3e9 saturates to INT_MAX
  EXPECT_EQ(f2i("0xcf32d05e", "F2I"), 0x80000000u);       // -3e9 -> INT_MIN
  EXPECT_EQ(f2i("0x7f800000", "F2I"), 0x7fffffffu);       // +inf -> INT_MAX
  EXPECT_EQ(f2i("0xbf800000", "F2I.U32"), 0u);            // -1 -> 0
  EXPECT_EQ(f2i("0x4f9502f9", "F2I.U32"), 0xffffffffu);   // 5e9 -> UINT_MAX
  EXPECT_EQ(f2i("0x43960000", "F2I.S8"), 0x7fu);          // 300 -> 127
  EXPECT_EQ(f2i("0xc3960000", "F2I.S8"), 0xffffff80u);    // -300 -> -128, sign-extended to 32
  EXPECT_EQ(f2i("0x43960000", "F2I.U8"), 0xffu);
  EXPECT_EQ(f2i("0x4f32d05e", "F2I.S64"), 3000000000u);
  EXPECT_EQ(f2i("0xbf800000", "F2I.S64"), 0xffffffffffffffffu);
  EXPECT_EQ(f2i("0x1", "F2I.CEIL"), 1u);                  // ceil(2^-149) = 1
  EXPECT_EQ(f2i("0x1", "F2I.CEIL.FTZ"), 0u);              // flushed to 0 first
  EXPECT_EQ(f2i("0x80000001", "F2I.FLOOR"), 0xffffffffu); // floor(-2^-149) = -1
  EXPECT_EQ(regAfter("MOV.64 R1, 0x43e0000000000000\nF2I.F64.S64 R3, R1"),
            0x7fffffffffffffffu); // 2^63
  EXPECT_EQ(regAfter("MOV.64 R1, 0xc3e0000000000000\nF2I.F64.S64 R3, R1"),
            0x8000000000000000u); // -2^63
  EXPECT_EQ(regAfter("MOV.64 R1, 0x43f0000000000000\nF2I.F64.U64 R3, R1"),
            0xffffffffffffffffu);                                                // 2^64
  EXPECT_EQ(regAfter("MOV.64 R1, 0x4008000000000000\nF2I.F64.U32 R3, -R1"), 0u); // -3 -> 0
}

} // namespace
} // namespace ori
