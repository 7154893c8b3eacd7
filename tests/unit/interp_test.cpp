// Tests of the interpreter (interp/interp.h; semantics in docs/interpreter.md).
// Every expected value is derived by hand in the comment beside it. Float
// constants are written as their IEEE bit patterns: 0x3f800000 = 1.0f,
// 0x40000000 = 2.0f, 0xbf800000 = -1.0f, 0x7fc00000 = quiet NaN, 0x7f800000 =
// +inf, 0x00000001 = the smallest binary32 denormal (2^-149).
#include <gtest/gtest.h>

#include <cfenv>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"

namespace ori {
namespace {

using Kind = RunResult::Kind;

Module parse(const std::string& text) {
  ParseResult r = parseOri(text, "t.ori");
  if (!r.module) {
    ADD_FAILURE() << r.error->str() << "\n" << text;
    return Module{};
  }
  return std::move(*r.module);
}

RunResult run(const std::string& text, RunConfig cfg = {}) { return runKernel(parse(text), cfg); }

RunConfig withEntry(const std::string& entry) {
  RunConfig cfg;
  cfg.entry = entry;
  return cfg;
}

RunConfig withThreads(uint32_t threads) {
  RunConfig cfg;
  cfg.threads = threads;
  return cfg;
}

uint64_t le(const std::vector<uint8_t>& b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n && off + k < b.size(); ++k) v |= uint64_t(b[off + k]) << (8 * k);
  return v;
}

std::string describe(const RunResult& r) { return formatExit(r, "t.ori") + " (" + r.message + ")"; }

// Runs `body` in a one-thread kernel and returns the 64-bit container of `reg`
// afterwards (stored with STG.E.64 into an 8-byte buffer).
uint64_t regAfter(const std::string& body, const std::string& reg = "R3") {
  std::string text = ".entry k(.u64 out)\n{\n" + body +
                     "\n  MOV.64 R250, c[0x0][0x210]\n  STG.E.64 [R250], " + reg + "\n  EXIT\n}\n";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(8);
  RunResult r = runKernel(parse(text), cfg);
  EXPECT_EQ(r.kind, Kind::Ok) << describe(r) << "\n" << body;
  return le(r.buffers["out"], 0, 8);
}

bool predAfter(const std::string& body, const std::string& pred = "P0") {
  return regAfter(body + "\n  SEL R251, 0x1, RZ, " + pred, "R251") == 1;
}

// ---------------------------------------------------------------- integer

TEST(InterpInteger, MovAndImmediatesTruncateToTheOperandWidth) {
  EXPECT_EQ(regAfter("MOV R3, -1"), 0xffffffffu);                 // -1 truncated to 32 bits
  EXPECT_EQ(regAfter("MOV.64 R3, -1"), 0xffffffffffffffffu);      // .64 keeps all 64
  EXPECT_EQ(regAfter("MOV.64 R3, 0x123456789\nMOV R3, R3"), 0x23456789u); // 32-bit MOV clears the top
  EXPECT_EQ(regAfter("MOV R3, RZ"), 0u);
  EXPECT_EQ(regAfter("MOV RZ, 0x5\nMOV R3, RZ"), 0u);             // writes to RZ are discarded
}

TEST(InterpInteger, Iadd3WrapsAndNegates) {
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIADD3 R3, R1, 0x1, RZ"), 0u);        // 2^32 wraps to 0
  EXPECT_EQ(regAfter("MOV R1, 0x5\nMOV R2, 0x7\nIADD3 R3, R1, -R2, 0x1"), 0xffffffffu); // 5-7+1 = -1
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nIADD3.64 R3, R1, 0x2, RZ"), 1u);         // 64-bit wrap
  EXPECT_EQ(regAfter("MOV R1, 0xffffffff\nIADD3.64 R3, R1, 0x1, RZ"), 0x100000000u); // no 32-bit wrap
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
  auto lop = [&](const char* lut) { return regAfter(setup + "LOP3.LUT R3, R0, R1, R2, " + lut); };
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
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL R3, R1, 0x20"), 0u);  // >= width gives 0
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL.64 R3, R1, 0x3f"), 0x8000000000000000u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nSHL.64 R3, R1, 0x40"), 0u);
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR R3, R1, 0x1f"), 1u);           // .U32 default: logical
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.S32 R3, R1, 0x1f"), 0xffffffffu); // arithmetic
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.S32 R3, R1, 0x20"), 0xffffffffu); // sign fill
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nSHR.S32 R3, R1, 0x40"), 0u);
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nSHR.U32 R3, R1, 0x20"), 0u);
  EXPECT_EQ(regAfter("MOV.64 R1, -0x10\nSHR.S64 R3, R1, 0x2"), 0xfffffffffffffffcu); // -16 >> 2 = -4
  EXPECT_EQ(regAfter("MOV.64 R1, -0x10\nSHR.U64 R3, R1, 0x3c"), 0xfu);
  // A shift amount register is read as unsigned 32-bit: 0xffffffff is >= 32.
  EXPECT_EQ(regAfter("MOV R1, 0x1\nMOV R2, -1\nSHL R3, R1, R2"), 0u);
}

TEST(InterpInteger, FunnelShifts) {
  // lo = 0x80000001, hi = 0x00000003: v = 0x00000003_80000001.
  const std::string s = "MOV R1, 0x80000001\nMOV R2, 0x3\n";
  EXPECT_EQ(regAfter(s + "SHF.L.U32 R3, R1, 0x4, R2"), 0x00000010u);    // low word of v << 4
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x4, R2"), 0x38u);       // high word: 0x38
  EXPECT_EQ(regAfter(s + "SHF.R.U32 R3, R1, 0x4, R2"), 0x38000000u);    // v >> 4 low word
  EXPECT_EQ(regAfter(s + "SHF.R.U32.HI R3, R1, 0x4, R2"), 0x0u);
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x0, R2"), 0x3u);        // shift by 0
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x20, R2"), 0x80000001u); // by 32: hi = lo
  EXPECT_EQ(regAfter(s + "SHF.L.U32.HI R3, R1, 0x25, R2"), 0x80000001u); // .U32 clamps at 32
  EXPECT_EQ(regAfter(s + "SHF.L.U64.HI R3, R1, 0x21, R2"), 0x2u);        // .U64: 33 -> lo<<1 = 0x1_00000002
  EXPECT_EQ(regAfter(s + "SHF.L.U64.HI R3, R1, 0x50, R2"), 0x0u);        // clamps at 64: all out
  EXPECT_EQ(regAfter(s + "SHF.R.U32 R3, R1, 0x3f, R2"), 0x3u);           // clamps at 32: low word of v >> 32
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
  const std::string s = "MOV R1, -1\nMOV R2, 0x1\n"; // R1 = 0xffffffff
  EXPECT_EQ(regAfter(s + "IMNMX R3, R1, R2, PT"), 0xffffffffu);     // signed min(-1, 1) = -1
  EXPECT_EQ(regAfter(s + "IMNMX R3, R1, R2, !PT"), 1u);             // signed max = 1
  EXPECT_EQ(regAfter(s + "IMNMX.U32 R3, R1, R2, PT"), 1u);          // unsigned min = 1
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
  EXPECT_TRUE(predAfter(s + "ISETP.EQ P0, PT, R1, -0x1, PT"));         // no bool op: .AND
  // q = !r AND c: with r true, q is false.
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.AND P0, P1, R1, R1, PT", "P1"));
  EXPECT_TRUE(predAfter(s + "ISETP.NE.AND P0, P1, R1, R1, PT", "P1"));
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.AND P0, PT, R1, R1, !PT"));     // r AND false
  EXPECT_TRUE(predAfter(s + "ISETP.NE.OR P0, PT, R1, R1, PT"));        // false OR true
  EXPECT_FALSE(predAfter(s + "ISETP.EQ.XOR P0, PT, R1, R1, PT"));      // true XOR true
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
  EXPECT_FALSE(predAfter(nan + "FSETP.NE.AND P0, PT, R1, R2, PT"));  // ordered NE is false on NaN
  EXPECT_TRUE(predAfter(nan + "FSETP.NEU.AND P0, PT, R1, R2, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.EQ.AND P0, PT, R1, R1, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.NAN.AND P0, PT, R2, R1, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.NUM.AND P0, PT, R2, R1, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.NUM.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.T.AND P0, PT, R1, R1, PT"));
  EXPECT_FALSE(predAfter(nan + "FSETP.F.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.GE.AND P0, PT, R2, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "FSETP.GT.AND P0, PT, R2, -R2, PT"));  // 1 > -1
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
  EXPECT_EQ(regAfter("MOV R1, 0x3f800000\nFADD R3, R1, 2.0"), 0x40400000u);           // 1+2 = 3
  EXPECT_EQ(regAfter("MOV R1, 0x3f800000\nFADD R3, R1, -R1"), 0x0u);                  // 1-1 = +0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFADD R3, R1, R1"), 0x80000000u);            // -0 + -0 = -0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFADD R3, R1, RZ"), 0x0u);                   // -0 + +0 = +0
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nFMUL R3, R1, 1.5"), 0x40400000u);           // 2*1.5 = 3
  EXPECT_EQ(regAfter("MOV R1, 0xc0000000\nFMUL R3, |R1|, -R1"), 0x40800000u);         // |-2| * 2 = 4
  EXPECT_EQ(regAfter("MOV R1, 0x40000000\nFFMA R3, R1, R1, -1.0"), 0x40400000u);      // 2*2-1 = 3
  // FFMA rounds once: a = 1+2^-12, a*a = 1+2^-11+2^-24 (FMUL would round it to
  // 1+2^-11); minus (1+2^-11) leaves exactly 2^-24 = 0x33800000.
  EXPECT_EQ(regAfter("MOV R1, 0x3f800800\nMOV R2, 0xbf801000\nFFMA R3, R1, R1, R2"), 0x33800000u);
  EXPECT_EQ(regAfter("MOV R1, 0x3f800800\nFMUL R4, R1, R1\nMOV R2, 0xbf801000\nFADD R3, R4, R2"), 0x0u);
  // Results are zero-extended 32-bit patterns even over a 64-bit register.
  EXPECT_EQ(regAfter("MOV.64 R3, -1\nFADD R3, RZ, 1.0"), 0x3f800000u);
}

TEST(InterpFloat, NaNsAreCanonical) {
  EXPECT_EQ(regAfter("MOV R1, 0x7fc00001\nFADD R3, R1, 1.0"), 0x7fffffffu);
  EXPECT_EQ(regAfter("MOV R1, 0xffc00000\nFMUL R3, 2.0, R1"), 0x7fffffffu);
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFADD R3, R1, -R1"), 0x7fffffffu); // inf - inf
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFFMA R3, R1, RZ, 1.0"), 0x7fffffffu); // inf * 0
  EXPECT_EQ(regAfter("MOV.64 R1, 0x7ff0000000000000\nDADD R3, R1, -R1"), 0xfff8000000000000u);
}

TEST(InterpFloat, FtzAndSaturate) {
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFADD R3, R1, RZ"), 0x1u);               // denormal kept
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFADD.FTZ R3, R1, RZ"), 0x0u);           // input flushed
  EXPECT_EQ(regAfter("MOV R1, 0x80000001\nFMUL.FTZ R3, R1, 1.0"), 0x80000000u); // sign kept
  // 2^-126 * 0.5 = 2^-127 is denormal (0x00400000); .FTZ flushes the output.
  EXPECT_EQ(regAfter("MOV R1, 0x800000\nFMUL R3, R1, 0.5"), 0x400000u);
  EXPECT_EQ(regAfter("MOV R1, 0x800000\nFMUL.FTZ R3, R1, 0.5"), 0x0u);
  EXPECT_EQ(regAfter("MOV R1, 0x3f400000\nFADD.SAT R3, R1, 0.5"), 0x3f800000u); // 1.25 -> 1
  EXPECT_EQ(regAfter("MOV R1, 0x3f400000\nFADD.SAT R3, R1, -0.5"), 0x3e800000u); // 0.25 stays
  EXPECT_EQ(regAfter("FADD.SAT R3, RZ, -0.5"), 0x0u);                          // -0.5 -> +0
  EXPECT_EQ(regAfter("MOV R1, 0x80000000\nFMUL.SAT R3, R1, 1.0"), 0x0u);       // -0 -> +0
  EXPECT_EQ(regAfter("MOV R1, 0x7f800000\nFADD.SAT R3, R1, -R1"), 0x0u);       // NaN -> +0
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
  EXPECT_EQ(regAfter("MOV.64 R1, 0x3ff0000000000000\nDADD R3, R1, 2.0"), 0x4008000000000000u); // 1+2
  EXPECT_EQ(regAfter("MOV.64 R1, 0x3ff8000000000000\nDMUL R3, R1, -2.0"), 0xc008000000000000u); // -3
  // DFMA rounds once: a = 1+2^-27, a*a = 1+2^-26+2^-54; minus (1+2^-26) = 2^-54.
  EXPECT_EQ(regAfter("MOV.64 R1, 0x3ff0000002000000\nMOV.64 R2, 0xbff0000004000000\nDFMA R3, R1, R1, R2"),
            0x3c90000000000000u);
  const std::string nan = "MOV.64 R1, 0x7ff8000000000000\nMOV.64 R2, 0x3ff0000000000000\n";
  EXPECT_FALSE(predAfter(nan + "DSETP.GE.AND P0, PT, R1, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "DSETP.GEU.AND P0, PT, R1, R2, PT"));
  EXPECT_TRUE(predAfter(nan + "DSETP.LT.AND P0, PT, -R2, R2, PT"));
  // A 32-bit value in the low half is a tiny positive double, not 1.0f.
  EXPECT_TRUE(predAfter("MOV R1, 0x3f800000\nDSETP.LT.AND P0, PT, R1, 1.0, PT"));
}

TEST(InterpFloat, Fmnmx) {
  const std::string s = "MOV R1, 0x7fc00000\nMOV R2, 0x40000000\nMOV R4, 0x80000000\n"; // NaN, 2, -0
  EXPECT_EQ(regAfter(s + "FMNMX R3, R1, R2, PT"), 0x40000000u);  // min(NaN, 2) = 2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, R1, !PT"), 0x40000000u); // max(2, NaN) = 2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R1, R1, PT"), 0x7fffffffu);  // both NaN: canonical
  EXPECT_EQ(regAfter(s + "FMNMX R3, R4, RZ, PT"), 0x80000000u);  // min(-0, +0) = -0
  EXPECT_EQ(regAfter(s + "FMNMX R3, RZ, R4, PT"), 0x80000000u);
  EXPECT_EQ(regAfter(s + "FMNMX R3, R4, RZ, !PT"), 0x0u);        // max(-0, +0) = +0
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, -R2, PT"), 0xc0000000u); // min(2, -2) = -2
  EXPECT_EQ(regAfter(s + "FMNMX R3, R2, 3.0, !PT"), 0x40400000u);
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFMNMX.FTZ R3, R1, RZ, !PT"), 0x0u);  // flushed denormal
  EXPECT_EQ(regAfter("MOV R1, 0x1\nFMNMX R3, R1, RZ, !PT"), 0x1u);
}

TEST(InterpFloat, I2f) {
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F R3, R1"), 0xbf800000u);                 // S32 default: -1.0
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32 R3, R1"), 0x4f800000u);             // 2^32-1 -> 2^32 (RN)
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RZ R3, R1"), 0x4f7fffffu);          // -> 2^32-256
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RM R3, R1"), 0x4f7fffffu);
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.U32.RP R3, R1"), 0x4f800000u);
  // -(2^24+1) is between -(2^24) and -(2^24+2): RZ -> -2^24 (0xcb800000), RM -> 0xcb800001.
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RZ R3, R1"), 0xcb800000u);
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RM R3, R1"), 0xcb800001u);
  EXPECT_EQ(regAfter("MOV R1, -0x1000001\nI2F.RP R3, R1"), 0xcb800000u);
  EXPECT_EQ(regAfter("MOV R1, 0x80\nI2F.S8 R3, R1"), 0xc3000000u);            // (int8)0x80 = -128
  EXPECT_EQ(regAfter("MOV R1, 0x12345\nI2F.U16 R3, R1"), 0x460d1400u);        // 0x2345 = 9029.0
  EXPECT_EQ(regAfter("MOV R1, -1\nI2F.F64 R3, R1"), 0xbff0000000000000u);
  // 2^53+1 to double: RN ties to even 2^53 (0x4340000000000000), RP 2^53+2.
  EXPECT_EQ(regAfter("MOV.64 R1, 0x20000000000001\nI2F.F64.S64 R3, R1"), 0x4340000000000000u);
  EXPECT_EQ(regAfter("MOV.64 R1, 0x20000000000001\nI2F.F64.S64.RP R3, R1"), 0x4340000000000001u);
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nI2F.F64.U64 R3, R1"), 0x43f0000000000000u);    // 2^64
  EXPECT_EQ(regAfter("MOV.64 R1, -1\nI2F.F64.U64.RZ R3, R1"), 0x43efffffffffffffu);
  EXPECT_EQ(regAfter("I2F.F64.S64 R3, -0x8000000000000000"), 0xc3e0000000000000u); // -2^63 exact
}

TEST(InterpFloat, F2i) {
  auto f2i = [](const char* bits, const char* op) {
    return regAfter(std::string("MOV R1, ") + bits + "\n" + op + " R3, R1");
  };
  EXPECT_EQ(f2i("0x40200000", "F2I"), 2u);                   // 2.5 -> 2 (to even)
  EXPECT_EQ(f2i("0x40600000", "F2I"), 4u);                   // 3.5 -> 4
  EXPECT_EQ(f2i("0xc0200000", "F2I"), 0xfffffffeu);          // -2.5 -> -2
  EXPECT_EQ(f2i("0xc02ccccd", "F2I.TRUNC"), 0xfffffffeu);    // -2.7 -> -2
  EXPECT_EQ(f2i("0xc0133333", "F2I.FLOOR"), 0xfffffffdu);    // -2.3 -> -3
  EXPECT_EQ(f2i("0x40066666", "F2I.CEIL"), 3u);              // 2.1 -> 3
  EXPECT_EQ(f2i("0x7fc00000", "F2I"), 0u);                   // NaN -> 0
  EXPECT_EQ(f2i("0x4f32d05e", "F2I"), 0x7fffffffu);          // 3e9 saturates to INT_MAX
  EXPECT_EQ(f2i("0xcf32d05e", "F2I"), 0x80000000u);          // -3e9 -> INT_MIN
  EXPECT_EQ(f2i("0x7f800000", "F2I"), 0x7fffffffu);          // +inf -> INT_MAX
  EXPECT_EQ(f2i("0xbf800000", "F2I.U32"), 0u);               // -1 -> 0
  EXPECT_EQ(f2i("0x4f9502f9", "F2I.U32"), 0xffffffffu);      // 5e9 -> UINT_MAX
  EXPECT_EQ(f2i("0x43960000", "F2I.S8"), 0x7fu);             // 300 -> 127
  EXPECT_EQ(f2i("0xc3960000", "F2I.S8"), 0xffffff80u);       // -300 -> -128, sign-extended to 32
  EXPECT_EQ(f2i("0x43960000", "F2I.U8"), 0xffu);
  EXPECT_EQ(f2i("0x4f32d05e", "F2I.S64"), 3000000000u);
  EXPECT_EQ(f2i("0xbf800000", "F2I.S64"), 0xffffffffffffffffu);
  EXPECT_EQ(f2i("0x1", "F2I.CEIL"), 1u);                     // ceil(2^-149) = 1
  EXPECT_EQ(f2i("0x1", "F2I.CEIL.FTZ"), 0u);                 // flushed to 0 first
  EXPECT_EQ(f2i("0x80000001", "F2I.FLOOR"), 0xffffffffu);    // floor(-2^-149) = -1
  EXPECT_EQ(regAfter("MOV.64 R1, 0x43e0000000000000\nF2I.F64.S64 R3, R1"), 0x7fffffffffffffffu); // 2^63
  EXPECT_EQ(regAfter("MOV.64 R1, 0xc3e0000000000000\nF2I.F64.S64 R3, R1"), 0x8000000000000000u); // -2^63
  EXPECT_EQ(regAfter("MOV.64 R1, 0x43f0000000000000\nF2I.F64.U64 R3, R1"), 0xffffffffffffffffu); // 2^64
  EXPECT_EQ(regAfter("MOV.64 R1, 0x4008000000000000\nF2I.F64.U32 R3, -R1"), 0u);                 // -3 -> 0
}

// ---------------------------------------------------------------- memory

TEST(InterpMemory, GlobalLoadsExtendAndStoresTruncate) {
  const std::string text = R"(.entry k(.u64 in, .u64 out)
{
  MOV.64 R10, c[0x0][0x210]
  MOV.64 R11, c[0x0][0x218]
  LDG.E.S8 R1, [R10]
  LDG.E.U8 R2, [R10+0x1]
  LDG.E.S16 R3, [R10+0x2]
  LDG.E.U16 R4, [R10+0x2]
  LDG.E R5, [R10+0x4]
  LD.E.64 R6, [R10+0x8]
  STG.E.64 [R11], R1
  STG.E.64 [R11+0x8], R2
  STG.E.64 [R11+0x10], R3
  STG.E.64 [R11+0x18], R4
  STG.E.64 [R11+0x20], R5
  ST.E.64 [R11+0x28], R6
  STG.E.U8 [R11+0x30], R5
  STG.E.U16 [R11+0x32], R5
  STG.E [R11+0x34], R6
  EXIT
})";
  RunConfig cfg;
  // in = 80 ff 01 80 | 78 56 34 12 | 88 77 66 55 44 33 22 11
  cfg.buffers["in"] = {0x80, 0xff, 0x01, 0x80, 0x78, 0x56, 0x34, 0x12,
                       0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  cfg.buffers["out"] = std::vector<uint8_t>(0x38);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 8), 0xffffff80u);          // S8 0x80 = -128, sign-extended to 32 bits only
  EXPECT_EQ(le(out, 0x08, 8), 0xffu);                // U8
  EXPECT_EQ(le(out, 0x10, 8), 0xffff8001u);          // S16 0x8001
  EXPECT_EQ(le(out, 0x18, 8), 0x8001u);              // U16
  EXPECT_EQ(le(out, 0x20, 8), 0x12345678u);
  EXPECT_EQ(le(out, 0x28, 8), 0x1122334455667788u);
  EXPECT_EQ(le(out, 0x30, 2), 0x0078u);              // U8 store: low byte, next byte untouched
  EXPECT_EQ(le(out, 0x32, 2), 0x5678u);              // U16 store: low half
  EXPECT_EQ(le(out, 0x34, 4), 0x55667788u);          // 32-bit store of a 64-bit register
  EXPECT_EQ(r.buffers["in"].size(), 16u);            // every bound buffer comes back
}

TEST(InterpMemory, SharedAndLocalWindows) {
  EXPECT_EQ(regAfter("MOV R1, 0x1234\nSTS [0x37ffc], R1\nLDS R3, [0x37ffc]"), 0x1234u);
  EXPECT_EQ(regAfter("MOV.64 R1, -0x2\nSTL.64 [0x7fff8], R1\nLDL.64 R3, [0x7fff8]"), 0xfffffffffffffffeu);
  EXPECT_EQ(regAfter("MOV R1, 0x80\nSTL.U8 [0x10], R1\nLDL.S8 R3, [0x10]"), 0xffffff80u);
  EXPECT_EQ(regAfter("LDS R3, [0x100]"), 0u); // zero-initialised
  EXPECT_EQ(regAfter("MOV R2, 0x100\nMOV R1, 0x7\nSTS [R2-0x4], R1\nLDS R3, [0xfc]"), 7u);
  auto faultAt = [](const std::string& body) {
    RunResult r = run(".entry k()\n{\n" + body + "\nEXIT\n}\n");
    EXPECT_EQ(r.kind, Kind::Fault) << describe(r);
    return r.addr;
  };
  EXPECT_EQ(faultAt("STS [0x38000], RZ"), 0x38000u);
  EXPECT_EQ(faultAt("LDS.64 R1, [0x37ffc]"), 0x37ffcu);  // misaligned 8-byte access
  EXPECT_EQ(faultAt("LDL R1, [0x80000]"), 0x80000u);
  EXPECT_EQ(faultAt("MOV R2, 0x2\nLDL R1, [R2]"), 0x2u);  // misaligned
  EXPECT_EQ(faultAt("STS [RZ-0x4], RZ"), 0xfffffffcu); // 32-bit: below 0 wraps to 2^32 - 4, past the window
}

TEST(InterpMemory, ConstantBank) {
  // a at 0x210 (4 bytes), b at 0x214 (2 bytes), out at 0x218 (8 bytes).
  const std::string text = R"(.entry k(.u32 a, .u16 b, .u64 out)
{
  LDC R1, c[0x0][0x210]
  LDC.U16 R2, c[0x0][0x214]
  LDC.S16 R3, c[0x0][0x214]
  MOV R4, 0x4
  LDC R5, c[0x0][R4+0x210]
  LDC R6, c[0x2][0x0]
  LDC.64 R7, c[0x0][0x300]
  IADD3 R8, R1, c[0x0][0x210], RZ
  MOV.64 R11, c[0x0][0x218]
  STG.E [R11], R1
  STG.E [R11+0x4], R2
  STG.E [R11+0x8], R3
  STG.E [R11+0xc], R5
  STG.E [R11+0x10], R6
  STG.E.64 [R11+0x18], R7
  STG.E [R11+0x20], R8
  EXIT
})";
  RunConfig cfg;
  cfg.params["a"] = 0xdeadbeef;
  cfg.params["b"] = 0x18001; // truncated to the parameter's 2 bytes: 0x8001
  cfg.buffers["out"] = std::vector<uint8_t>(0x24, 0xaa);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 0xdeadbeefu);
  EXPECT_EQ(le(out, 0x4, 4), 0x8001u);
  EXPECT_EQ(le(out, 0x8, 4), 0xffff8001u);
  EXPECT_EQ(le(out, 0xc, 4), 0x8001u);   // c[0][0x214] as 4 bytes: b then 2 padding zeros
  EXPECT_EQ(le(out, 0x10, 4), 0u);       // other banks read 0
  EXPECT_EQ(le(out, 0x18, 8), 0u);       // beyond the parameters reads 0
  EXPECT_EQ(le(out, 0x20, 4), 0xbd5b7ddeu); // 0xdeadbeef * 2 mod 2^32
  RunResult mis = run(".entry k()\n{\nLDC R1, c[0x0][0x212]\nEXIT\n}\n");
  EXPECT_EQ(mis.kind, Kind::Fault);
  EXPECT_EQ(mis.addr, 0x212u);
}

// Bank 3 is the module's .const data (where SASS reads __constant__ variables); a register
// index counts as unsigned 32-bit, and a read outside the data faults.
TEST(InterpMemory, ConstantBankThreeIsTheConstData) {
  const std::string text = R"(.const .b32 ct[2] = {0x7, 0x9}
.entry k(.u64 out)
{
  MOV R2, ct
  LDC R3, c[0x3][R2+0x4]
  LDC R4, c[0x3][0x0]
  S2R R9, SR_CWINBASE
  IADD3.64 R12, R9, 0x4, RZ
  LD.E R5, [R12]
  MOV.64 R11, c[0x0][0x210]
  STG.E [R11], R3
  STG.E [R11+0x4], R4
  STG.E [R11+0x8], R5
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(12, 0xaa);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(le(r.buffers["out"], 0x0, 4), 0x9u);
  EXPECT_EQ(le(r.buffers["out"], 0x4, 4), 0x7u);
  EXPECT_EQ(le(r.buffers["out"], 0x8, 4), 0x9u); // generic address in the const window
  RunResult past = run(".const .b32 ct[2] = {0x7, 0x9}\n.entry k()\n{\nLDC R1, c[0x3][0x8]\nEXIT\n}\n");
  EXPECT_EQ(past.kind, Kind::Fault) << describe(past);
  EXPECT_EQ(past.addr, 0x8u);
  RunResult store = run(".const .b32 ct[2] = {0x7, 0x9}\n.entry k()\n{\nS2R R2, SR_CWINBASE\nST.E [R2], RZ\nEXIT\n}\n");
  EXPECT_EQ(store.kind, Kind::Fault) << describe(store);
}

TEST(InterpMemory, Atomics) {
  const std::string text = R"(.entry k(.u64 buf, .u64 out)
{
  MOV.64 R10, c[0x0][0x210]
  ATOM.E.ADD R1, [R10], 0x5
  ATOM.E.MIN R2, [R10+0x4], 0x3
  ATOM.E.MIN.S32 R3, [R10+0x8], 0x3
  ATOM.E.INC R4, [R10+0xc], 0x5
  ATOM.E.INC R12, [R10+0xc], 0x5
  ATOM.E.DEC R5, [R10+0x10], 0x9
  ATOM.E.CAS R6, [R10+0x14], 0x7, 0x63
  ATOM.E.CAS R7, [R10+0x14], 0x7, 0x1
  ATOM.E.ADD.64 R8, [R10+0x18], 0x1
  RED.E.XOR [R10+0x4], 0xf
  ATOM.E.EXCH R9, [R10], 0x2a
  ATOM.E.MAX R13, [R10+0x8], 0x3
  MOV.64 R11, c[0x0][0x218]
  STG.E [R11], R1
  STG.E [R11+0x4], R2
  STG.E [R11+0x8], R3
  STG.E [R11+0xc], R4
  STG.E [R11+0x10], R12
  STG.E [R11+0x14], R5
  STG.E [R11+0x18], R6
  STG.E [R11+0x1c], R7
  STG.E.64 [R11+0x20], R8
  STG.E [R11+0x28], R9
  EXIT
})";
  RunConfig cfg;
  // buf words: 10, 20, 0xfffffffe, 5, 0, 7, then the 64-bit 0x00000000_ffffffff.
  cfg.buffers["buf"] = {10, 0, 0, 0, 20, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 5, 0, 0, 0,
                        0,  0, 0, 0, 7,  0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
  cfg.buffers["out"] = std::vector<uint8_t>(0x2c);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& buf = r.buffers["buf"];
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 10u);           // ADD returns the old value
  EXPECT_EQ(le(out, 0x28, 4), 15u);          // EXCH saw 10+5
  EXPECT_EQ(le(buf, 0x0, 4), 0x2au);
  EXPECT_EQ(le(out, 0x4, 4), 20u);
  EXPECT_EQ(le(buf, 0x4, 4), 3u ^ 0xfu);     // unsigned min(20, 3) = 3, then RED.XOR 0xf
  EXPECT_EQ(le(out, 0x8, 4), 0xfffffffeu);   // signed min(-2, 3) keeps -2 ...
  EXPECT_EQ(le(buf, 0x8, 4), 0xfffffffeu);   // ... and unsigned max(0xfffffffe, 3) keeps it too
  EXPECT_EQ(le(out, 0xc, 4), 5u);            // INC: old 5 >= 5 -> 0
  EXPECT_EQ(le(out, 0x10, 4), 0u);           // INC: old 0 < 5 -> 1
  EXPECT_EQ(le(buf, 0xc, 4), 1u);
  EXPECT_EQ(le(out, 0x14, 4), 0u);           // DEC: old 0 -> 9
  EXPECT_EQ(le(buf, 0x10, 4), 9u);
  EXPECT_EQ(le(out, 0x18, 4), 7u);           // CAS hit: 7 -> 0x63
  EXPECT_EQ(le(out, 0x1c, 4), 0x63u);        // CAS miss: stays 0x63
  EXPECT_EQ(le(buf, 0x14, 4), 0x63u);
  EXPECT_EQ(le(out, 0x20, 8), 0xffffffffu);  // 64-bit ADD: no 32-bit wrap
  EXPECT_EQ(le(buf, 0x18, 8), 0x100000000u);
}

TEST(InterpMemory, BufferLayoutAndFaults) {
  const std::string text = R"(.entry k(.u64 a, .u64 b, .u64 out)
{
  MOV.64 R11, c[0x0][0x220]
  MOV.64 R1, c[0x0][0x210]
  MOV.64 R2, c[0x0][0x218]
  STG.E.64 [R11], R1
  STG.E.64 [R11+0x8], R2
  STG.E.64 [R11+0x10], R11
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["a"] = std::vector<uint8_t>(0x1001);
  cfg.buffers["b"] = std::vector<uint8_t>(4);
  cfg.buffers["out"] = std::vector<uint8_t>(24);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  // a at 0x10000000 ends at 0x10001001 -> page 0x10002000 + a gap page -> b at 0x10003000;
  // b ends at 0x10003004 -> 0x10004000 + gap -> out at 0x10005000.
  EXPECT_EQ(le(r.buffers["out"], 0, 8), 0x10000000u);
  EXPECT_EQ(le(r.buffers["out"], 8, 8), 0x10003000u);
  EXPECT_EQ(le(r.buffers["out"], 16, 8), 0x10005000u);

  const std::string bad = R"(.entry k(.u64 out)
{
  MOV.64 R11, c[0x0][0x210]
  MOV R1, 0x7
  STG.E [R11], R1
  STG.E [R11+0x10], R1
  EXIT
})";
  RunConfig cfg2;
  cfg2.buffers["out"] = std::vector<uint8_t>(16);
  RunResult f = run(bad, cfg2);
  EXPECT_EQ(f.kind, Kind::Fault);
  EXPECT_EQ(f.addr, 0x10000010u); // one past the 16-byte buffer
  EXPECT_EQ(formatExit(f, "t.ori"), "exit: fault thread=0 addr=0x10000010");
  EXPECT_EQ(le(f.buffers["out"], 0, 4), 7u); // writes before the fault are kept
  RunResult mis = run(".entry k(.u64 out)\n{\nMOV.64 R1, c[0x0][0x210]\nLDG.E R2, [R1+0x2]\nEXIT\n}\n", cfg2);
  EXPECT_EQ(mis.kind, Kind::Fault);
  EXPECT_EQ(mis.addr, 0x10000002u);
  RunConfig empty;
  empty.buffers["out"] = {};
  RunResult e = run(".entry k(.u64 out)\n{\nMOV.64 R1, c[0x0][0x210]\nLDG.E.U8 R2, [R1]\nEXIT\n}\n", empty);
  EXPECT_EQ(e.kind, Kind::Fault);
  EXPECT_EQ(e.addr, 0x10000000u); // an empty buffer has an address but no bytes
  RunResult z = run(".entry k()\n{\nLDG.E R2, [RZ]\nEXIT\n}\n");
  EXPECT_EQ(z.kind, Kind::Fault);
  EXPECT_EQ(z.addr, 0u);
  // An access just past a .global variable faults like one past a buffer.
  RunResult sym = run(".global .b32 gvar[4]\n.entry k()\n{\nNOP\nLDG.E R2, [gvar+0x10]\nEXIT\n}\n");
  EXPECT_EQ(sym.kind, Kind::Fault) << describe(sym);
  EXPECT_EQ(sym.addr, 0x10000010u); // gvar is at 0x10000000
}

// ---------------------------------------------------------------- control flow

TEST(InterpControl, LoopsBranchesAndGuards) {
  // sum 1..10 = 55.
  EXPECT_EQ(regAfter(R"(  MOV R3, RZ
  MOV R2, 0x1
loop:
  IADD3 R3, R3, R2, RZ
  IADD3 R2, R2, 0x1, RZ
  ISETP.LE.AND P0, PT, R2, 0xa, PT
  @P0 BRA loop)"), 55u);
  // A false guard skips the instruction; a guarded BRA falls through.
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@P0 MOV R3, 0x2\n@!P0 IADD3 R3, R3, 0x10, RZ"), 0x11u);
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@P0 BRA skip\nMOV R3, 0x2\nskip:"), 2u);
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@!P0 BRA skip\nMOV R3, 0x2\nskip:"), 1u);
  // A guarded-off OPAQUE does nothing.
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@!PT OPAQUE \"FCHK P0, R1, R2\" def(P0) use(R1, R2)"), 1u);
  // Convergence and NOP are no-ops; BAR is a no-op with one thread per CTA.
  EXPECT_EQ(regAfter("BSSY B0, join\nMOV R3, 0x5\nBSYNC B0\njoin:\nWARPSYNC 0xffffffff\nNOP\nBAR.SYNC 0x0"), 5u);
}

TEST(InterpControl, Brx) {
  const std::string body = R"(  .jumptable T = {c0, c1, c2}
  MOV R1, IDX
  BRX R1, T
c0:
  MOV R3, 0xa
  BRA done
c1:
  MOV R3, 0xb
  BRA done
c2:
  MOV R3, 0xc
  BRA done
done:)";
  auto with = [&](const char* idx) {
    std::string b = body;
    b.replace(b.find("IDX"), 3, idx);
    return b;
  };
  EXPECT_EQ(regAfter(with("0x0")), 0xau);
  EXPECT_EQ(regAfter(with("0x2")), 0xcu);
  std::string text = ".entry k()\n{\n" + with("0x5") + "\n  EXIT\n}\n";
  RunResult r = run(text);
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.addr, 5u);
  EXPECT_NE(r.message.find("BRX index out of range"), std::string::npos) << r.message;
  // The index is unsigned 32-bit: -1 is 0xffffffff.
  RunResult neg = run(".entry k()\n{\n" + with("-1") + "\n  EXIT\n}\n");
  EXPECT_EQ(neg.addr, 0xffffffffu);
}

TEST(InterpControl, CallGetsAFreshRegisterFile) {
  // PTX registers are per function: the callee starts with every register 0
  // and its writes do not reach the caller. add1 and add2 each see R3 = 0,
  // set R3 and return; the caller's R3 stays 0x10.
  const std::string text = R"(.func add1()
{
  IADD3 R3, R3, 0x1, RZ
  CALL add2
  RET
}
.func add2()
{
  IADD3 R3, R3, 0x2, RZ
  MOV.64 R250, 0x10000000
  STG.E [R250+0x4], R3
  RET
}
.entry k(.u64 out)
{
  MOV R3, 0x10
  CALL add1
  CALL add2
  MOV.64 R250, c[0x0][0x210]
  STG.E [R250], R3
  RET
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(8);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r); // RET with an empty call stack ends the thread
  EXPECT_EQ(le(r.buffers["out"], 0, 4), 0x10u); // the caller's R3 is untouched
  EXPECT_EQ(le(r.buffers["out"], 4, 4), 2u);    // add2 saw R3 = 0 both times (out is at 0x10000000)
}

TEST(InterpControl, CallCopiesParamArgumentsAndResults) {
  // addmul(a, b) = 3a + b (32-bit). Arguments are copied from the caller's
  // .param variables into the callee's parameters, the result back at RET.
  // Sizes differ: the 1-byte `small` fills 1 byte of the 4-byte a (the rest
  // is 0); the 8-byte `rbig` receives the 4-byte result in its low half and
  // keeps its high half.
  const std::string text = R"(.func (.u32 r) addmul(.u32 a, .u64 b)
{
  LD R1, [a]
  LD.64 R2, [b]
  IMAD R3, R1, 0x3, R2
  ST [r], R3
  RET
}
.func (.u32 r) peek()
{
  ST [r], R9
  RET
}
.entry k(.u64 out)
{
  .param .b32 pa
  .param .b64 pb
  .param .b32 pr
  .param .b8 small
  .param .b64 rbig
  MOV R1, 0x5
  ST [pa], R1
  MOV.64 R2, 0x100000007
  ST.64 [pb], R2
  MOV R3, 0x77
  MOV R9, 0x55
  CALL (pr), addmul, (pa, pb)
  LD R4, [pr]
  MOV R5, 0x1ab
  ST.U8 [small], R5
  MOV.64 R6, -1
  ST.64 [rbig], R6
  CALL (rbig), addmul, (small, pb)
  LD.64 R7, [rbig]
  CALL (pr), peek
  LD R8, [pr]
  MOV.64 R250, c[0x0][0x210]
  STG.E [R250], R4
  STG.E [R250+0x4], R3
  STG.E.64 [R250+0x8], R7
  STG.E [R250+0x10], R8
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(0x14);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 0x16u);                  // 3 * 5 + 7 (b's low 32 bits)
  EXPECT_EQ(le(out, 0x4, 4), 0x77u);                  // the caller's R3 survives the callee's
  EXPECT_EQ(le(out, 0x8, 8), 0xffffffff00000208u);    // 3 * 0xab + 7 = 0x208, high half kept
  EXPECT_EQ(le(out, 0x10, 4), 0u);                    // peek's R9 is 0, not the caller's 0x55
}

TEST(InterpControl, CallDepthLimit) {
  // rec(n): n == 0 ? return : rec(n - 1). The entry's call and n recursive
  // calls make n+1 live frames above the kernel's own.
  const std::string text = R"(.func rec(.u32 n)
{
  .param .b32 a
  LD R1, [n]
  ISETP.EQ.AND P0, PT, R1, RZ, PT
  @P0 RET
  IADD3 R1, R1, -0x1, RZ
  ST [a], R1
  CALL rec, (a)
  RET
}
.entry k(.u32 n)
{
  .param .b32 a
  MOV R1, c[0x0][0x210]
  ST [a], R1
  CALL rec, (a)
  EXIT
})";
  RunConfig cfg;
  cfg.params["n"] = 1023; // 1024 frames: fine
  EXPECT_EQ(run(text, cfg).kind, Kind::Ok);
  cfg.params["n"] = 1024; // 1025 frames: overflow
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.addr, 0u);
  EXPECT_EQ(r.message, "call stack overflow");
}

TEST(InterpControl, StepBudget) {
  RunConfig cfg;
  cfg.maxSteps = 100;
  RunResult r = run(".entry k()\n{\nloop:\n  BRA loop\n}\n", cfg);
  EXPECT_EQ(r.kind, Kind::Timeout);
  EXPECT_EQ(formatExit(r, "t.ori"), "exit: timeout thread=0");
  // Exactly maxSteps instructions are allowed; a false guard counts too.
  const std::string three = ".entry k()\n{\n  MOV R1, 0x1\n  @!PT NOP\n  EXIT\n}\n";
  cfg.maxSteps = 3;
  EXPECT_EQ(run(three, cfg).kind, Kind::Ok);
  cfg.maxSteps = 2;
  EXPECT_EQ(run(three, cfg).kind, Kind::Timeout);
  // A CALL also counts one step per full 4 KiB of the callee's parameter
  // area (64 KiB here: 16): CALL 1 + 16, RET 1, EXIT 1 = 19.
  const std::string call = ".func f()\n{\n  .param .b8 big[0x10000]\n  RET\n}\n.entry k()\n{\n  CALL f\n  EXIT\n}\n";
  cfg.maxSteps = 19;
  EXPECT_EQ(run(call, cfg).kind, Kind::Ok);
  cfg.maxSteps = 18;
  EXPECT_EQ(run(call, cfg).kind, Kind::Timeout);
}

// ---------------------------------------------------------------- threads

TEST(InterpThreads, IndexingAndPerThreadState) {
  // out[ctaid*ntid + tid] = tid | ctaid<<8 | ntid<<16 | nctaid<<24, plus checks
  // that registers and local memory start at 0 in every thread and shared
  // memory is per CTA: each thread reads shared[0], then stores tid+1 there.
  const std::string text = R"(.entry k(.u64 out)
{
  ISETP.NE.AND P1, PT, R5, RZ, PT
  LDL R6, [0x0]
  ISETP.NE.OR P1, PT, R6, RZ, P1
  @P1 EXIT
  S2R R0, SR_TID.X
  S2R R1, SR_CTAID.X
  S2R R2, SR_NTID.X
  S2R R3, SR_NCTAID.X
  S2R R7, SR_TID.Y
  S2R R8, SR_NTID.Z
  LEA R4, R1, R0, 0x8
  LEA R4, R2, R4, 0x10
  LEA R4, R3, R4, 0x18
  IMAD R9, R1, R2, R0
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R9, 0x10, R10
  STG.E [R10], R4
  LDS R12, [0x0]
  STG.E [R10+0x4], R12
  IADD3 R12, R0, 0x1, RZ
  STS [0x0], R12
  STG.E [R10+0x8], R7
  STG.E [R10+0xc], R8
  MOV R5, 0x7
  STL [0x0], R5
  EXIT
})";
  RunConfig cfg;
  cfg.threads = 3;
  cfg.ctas = 2;
  cfg.buffers["out"] = std::vector<uint8_t>(6 * 16, 0xaa);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(r.threadsRun, 6u);
  EXPECT_EQ(formatExit(r, "t.ori"), "exit: ok threads=6");
  const auto& out = r.buffers["out"];
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t t = 0; t < 3; ++t) {
      size_t i = (c * 3 + t) * 16;
      EXPECT_EQ(le(out, i, 4), t | c << 8 | 3u << 16 | 2u << 24) << c << " " << t;
      // The CTA's three threads are lanes 0-2 of one warp: the LDS runs in all three before
      // the STS, so each reads the CTA's fresh shared[0], 0.
      EXPECT_EQ(le(out, i + 4, 4), 0u) << "shared[0] before the warp's STS";
      EXPECT_EQ(le(out, i + 8, 4), 0u);  // tid.y
      EXPECT_EQ(le(out, i + 12, 4), 1u); // ntid.z
    }
}

TEST(InterpThreads, LaneAndWarp) {
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  S2R R1, SR_LANEID
  S2R R2, SR_WARPID
  LEA R3, R2, R1, 0x8
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  STG.E [R10], R3
  EXIT
})";
  RunConfig cfg;
  cfg.threads = 34;
  cfg.buffers["out"] = std::vector<uint8_t>(34 * 4);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(le(r.buffers["out"], 31 * 4, 4), 31u);        // lane 31, warp 0
  EXPECT_EQ(le(r.buffers["out"], 33 * 4, 4), 0x100u | 1); // lane 1, warp 1
}

TEST(InterpThreads, FirstFailingThreadIsReported) {
  const std::string text = R"(.entry k()
{
  S2R R0, SR_TID.X
  S2R R1, SR_CTAID.X
  ISETP.EQ.AND P0, PT, R0, 0x1, PT
  ISETP.EQ.AND P0, PT, R1, 0x1, P0
  @P0 BRA bad
  EXIT
bad:
  STG.E [RZ+0x40], R0
  EXIT
})";
  RunConfig cfg;
  cfg.threads = 4;
  cfg.ctas = 2;
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.thread, 5u); // ctaid 1 * 4 + tid 1
  // CTA 0's four threads exit; in CTA 1 the branch diverges, the fall-through side (lanes 0,
  // 2, 3) runs first and exits, then lane 1 faults: 4 + 3 threads ran to completion.
  EXPECT_EQ(r.threadsRun, 7u);
  EXPECT_EQ(formatExit(r, "t.ori"), "exit: fault thread=5 addr=0x40");
}

// ---------------------------------------------------------------- variables

TEST(InterpVariables, GlobalVariables) {
  // g at 0x10000000 (16 bytes: the next region starts a page and a gap page
  // later), h at 0x10002000, then the buffer out at 0x10004000. Global
  // variables are shared by all threads: each thread adds 0x10 to g[2]. Threads 0-31 are one
  // warp, in lockstep: all load g[2] = 3 before any stores, so all store 0x13. Thread 32, the
  // second warp, runs after the first has finished (warps take turns only at barriers and
  // exits): it loads 0x13 and stores 0x23.
  const std::string text = R"(.global .b32 g[4] = {0x1, 0x2, 0x3, 0x4}
.global .align 8 .b64 h
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  LDG.E R1, [g+0x8]
  IADD3 R1, R1, 0x10, RZ
  STG.E [g+0x8], R1
  LD.E R2, [g+0xc]
  MOV.64 R4, g
  MOV.64 R5, h
  MOV.64 R10, c[0x0][0x210]
  ST.E.64 [h], R10
  MOV.64 R11, R4
  LDG.E R6, [R11+0x4]
  IMAD.WIDE.U32 R10, R0, 0x18, R10
  STG.E [R10], R1
  STG.E [R10+0x4], R2
  STG.E.64 [R10+0x8], R4
  STG.E.64 [R10+0x10], R5
  STG.E [R10+0x4], R6
  EXIT
})";
  RunConfig cfg;
  cfg.threads = 33;
  cfg.buffers["out"] = std::vector<uint8_t>(33 * 0x18);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 4), 0x13u);        // thread 0: g[2] = 3 + 0x10
  EXPECT_EQ(le(out, 0x18, 4), 0x13u);        // thread 1, in the same warp: also 3 + 0x10
  EXPECT_EQ(le(out, 32 * 0x18, 4), 0x23u);   // thread 32 sees the first warp's store
  EXPECT_EQ(le(out, 0x04, 4), 2u);           // g[1] through its generic address
  EXPECT_EQ(le(out, 0x08, 8), 0x10000000u);  // MOV.64 R, g: g's generic address
  EXPECT_EQ(le(out, 0x10, 8), 0x10002000u);  // h
  ASSERT_EQ(r.variables.count("g"), 1u);
  EXPECT_EQ(r.variables["g"], (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 0x23, 0, 0, 0, 4, 0, 0, 0}));
  EXPECT_EQ(le(r.variables["h"], 0, 8), 0x10004000u); // the address of out, as stored
  EXPECT_EQ(r.buffers.count("g"), 0u);                // variables are not buffers
}

TEST(InterpVariables, ConstVariables) {
  // ct at const offset 0 (8 bytes), cb at 8. Loads read them; stores fault.
  const std::string text = R"(.const .b32 ct[2] = {0x7, 0x9}
.const .b8 cb = {0x80}
.entry k(.u64 out, .u32 what)
{
  LD R1, [ct+0x4]
  LD.S8 R2, [cb]
  MOV R3, ct
  MOV R4, cb
  MOV.64 R10, c[0x0][0x210]
  STG.E [R10], R1
  STG.E [R10+0x4], R2
  STG.E [R10+0x8], R3
  STG.E [R10+0xc], R4
  ISETP.EQ.AND P0, PT, RZ, c[0x0][0x218], PT
  @P0 EXIT
  ISETP.EQ.AND P0, PT, c[0x0][0x218], 0x1, PT
  @P0 ST [ct+0x4], R1
  LD.U8 R5, [cb+0x1]
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(16);
  cfg.params["what"] = 0;
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(le(r.buffers["out"], 0x0, 4), 9u);
  EXPECT_EQ(le(r.buffers["out"], 0x4, 4), 0xffffff80u); // .S8 sign-extends
  EXPECT_EQ(le(r.buffers["out"], 0x8, 4), 0u);          // MOV R, ct: its offset in the const space
  EXPECT_EQ(le(r.buffers["out"], 0xc, 4), 8u);
  EXPECT_TRUE(r.variables.empty()); // only .global variables are reported
  cfg.params["what"] = 1;
  RunResult st = run(text, cfg);
  EXPECT_EQ(st.kind, Kind::Fault) << describe(st);   // the const space is read-only
  EXPECT_EQ(st.addr, 4u);
  EXPECT_EQ(st.line, 17u);
  cfg.params["what"] = 2;
  RunResult past = run(text, cfg);
  EXPECT_EQ(past.kind, Kind::Fault) << describe(past); // the const data ends at 9
  EXPECT_EQ(past.addr, 9u);
}

TEST(InterpVariables, SharedVariablesLayoutAndWindows) {
  // Shared layout: module ms at 0 (8 bytes); then the functions in module
  // order: f's fs at 8 (align 8); `other` is another kernel: skipped; k's kb
  // at 0x10, kh at 0x12. si (initialised) at 0x14. Every CTA starts from
  // zeros plus the initial bytes: each thread reads si, then overwrites it.
  const std::string text = R"(.shared .b32 ms[2]
.func (.u32 r) f()
{
  .shared .align 8 .b64 fs
  MOV R1, fs
  ST [r], R1
  RET
}
.entry other()
{
  .shared .b8 big[0x30000]
  EXIT
}
.entry k(.u64 out)
{
  .shared .b8 kb
  .shared .b16 kh
  .shared .b32 si = {0x2a}
  .param .b32 pr
  CALL (pr), f
  LD R1, [pr]
  MOV R2, kb
  MOV R3, kh
  MOV R4, si
  LDS R5, [si]
  MOV R6, 0x99
  STS [si], R6
  MOV R7, 0xbeef
  STS.U16 [kh], R7
  LDS.U16 R8, [0x12]
  S2R R12, SR_CTAID.X
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R12, 0x18, R10
  STG.E [R10], R1
  STG.E [R10+0x4], R2
  STG.E [R10+0x8], R3
  STG.E [R10+0xc], R4
  STG.E [R10+0x10], R5
  STG.E [R10+0x14], R8
  EXIT
})";
  RunConfig cfg;
  cfg.entry = "k";
  cfg.ctas = 2;
  cfg.buffers["out"] = std::vector<uint8_t>(0x30);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  for (size_t c : {0u, 0x18u}) {
    EXPECT_EQ(le(out, c + 0x0, 4), 8u);     // fs
    EXPECT_EQ(le(out, c + 0x4, 4), 0x10u);  // kb
    EXPECT_EQ(le(out, c + 0x8, 4), 0x12u);  // kh
    EXPECT_EQ(le(out, c + 0xc, 4), 0x14u);  // si
    EXPECT_EQ(le(out, c + 0x10, 4), 0x2au); // si's initial value again in the second CTA
    EXPECT_EQ(le(out, c + 0x14, 4), 0xbeefu); // STS [kh] seen at raw offset 0x12
  }
}

TEST(InterpVariables, LocalVariablesPerCallFrame) {
  // The kernel's frame holds la (12 bytes) at local offset 0; f's frame
  // starts at 0x10 (its lb is 16-aligned). Each frame's local area starts at
  // zero: f reads lb[1] = 0 on both calls though the first call left 0x63 at
  // local 0x14. The generic address of la[2] is SR_LWINBASE + 8.
  const std::string text = R"(.func (.u32 r0, .u64 r1) f()
{
  .local .align 16 .b32 lb[2]
  LDL R1, [lb+0x4]
  MOV R2, 0x63
  STL [lb+0x4], R2
  MOV.64 R3, lb
  ST [r0], R1
  ST.64 [r1], R3
  RET
}
.entry k(.u64 out)
{
  .local .b32 la[3]
  .param .b32 p0
  .param .b64 p1
  MOV R5, 0x11
  STL [la+0x8], R5
  CALL (p0, p1), f
  LD R6, [p0]
  LD.64 R7, [p1]
  CALL (p0, p1), f
  LD R8, [p0]
  LDL R9, [0x14]
  MOV R11, la
  S2R R12, SR_LWINBASE
  IADD3.64 R13, R12, 0x8, RZ
  LD R14, [R13]
  MOV R15, 0x22
  ST [R13+0x4], R15
  LDL R16, [0xc]
  MOV.64 R10, c[0x0][0x210]
  STG.E [R10], R6
  STG.E.64 [R10+0x8], R7
  STG.E [R10+0x10], R8
  STG.E [R10+0x14], R9
  STG.E [R10+0x18], R11
  STG.E [R10+0x1c], R14
  STG.E [R10+0x20], R16
  STG.E.64 [R10+0x28], R12
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(0x30);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto& out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 4), 0u);      // lb[1] on the first call
  EXPECT_EQ(le(out, 0x08, 8), 0x10u);   // MOV.64 R, lb: f's frame base + 0
  EXPECT_EQ(le(out, 0x10, 4), 0u);      // lb[1] on the second call: zeroed at frame entry
  EXPECT_EQ(le(out, 0x14, 4), 0x63u);   // what the second call left behind
  EXPECT_EQ(le(out, 0x18, 4), 0u);      // MOV R, la
  EXPECT_EQ(le(out, 0x1c, 4), 0x11u);   // la[2] through its generic address
  EXPECT_EQ(le(out, 0x20, 4), 0x22u);   // a generic store at LWINBASE + 0xc is local 0xc
  EXPECT_EQ(le(out, 0x28, 8), 0x7f0000000000u);
}

TEST(InterpVariables, ParamAreaLayout) {
  // A .func's parameter area: a at 0, b at 8, the return value r from 16
  // (after the parameters, aligned to the largest return alignment), then
  // its .param variables: v at 20. MOV R, sym gives these offsets.
  const std::string text = R"(.func (.u32 r) f(.u32 a, .u64 b)
{
  .param .b32 v
  MOV R1, a
  MOV R2, b
  MOV R3, r
  MOV R4, v
  LEA R5, R2, R1, 0x8
  LEA R5, R3, R5, 0x10
  LEA R5, R4, R5, 0x18
  ST [r], R5
  RET
}
.entry k(.u64 out)
{
  .param .b32 pa
  .param .b64 pb
  .param .b32 pr
  CALL (pr), f, (pa, pb)
  LD R1, [pr]
  MOV.64 R10, c[0x0][0x210]
  STG.E [R10], R1
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(4);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(le(r.buffers["out"], 0, 4), 0x14100800u); // v=0x14, r=0x10, b=8, a=0
}

TEST(InterpVariables, GenericAddressingRoundTrips) {
  // cvta.shared: S2R t, SR_SWINBASE; IADD3.64 d, a, t, RZ. cvta.to.shared:
  // IADD3.64 d, g, -t, RZ. Generic LD/ST/ATOM reach the shared window.
  const std::string body = R"(  .shared .b32 sv[0x20]
  S2R R0, SR_SWINBASE
  MOV R2, 0x40
  IADD3.64 R4, R2, R0, RZ
  MOV R6, 0x5a
  ST.E [R4], R6
  LDS R7, [0x40]
  ATOM.E.ADD R8, [R4], 0x1
  ATOM.E.ADD R9, [sv+0x40], 0x2
  LDS R11, [sv+0x40]
  IADD3.64 R12, R4, -R0, RZ
  MOV.64 R3, R4
  LEA R3, R7, R3, 0x8
  LEA R3, R8, R3, 0x10
  LEA R3, R11, R3, 0x18
  LEA R3, R9, R3, 0x0
  LEA R3, R12, R3, 0x0)";
  // R3 = low 32 of (R4 + R7<<8 + R8<<16 + R11<<24 + R9 + R12)
  //    = 0x40 + 0x5a00 + 0x5a0000 + 0x5d000000 + 0x5b + 0x40
  EXPECT_EQ(regAfter(body) & 0xffffffffu, 0x5d5a5adbu);
  EXPECT_EQ(regAfter("S2R R3, SR_SWINBASE"), 0x7e0000000000u);
  EXPECT_EQ(regAfter("S2R R3, SR_LWINBASE"), 0x7f0000000000u);
  EXPECT_EQ(regAfter("S2R R1, SR_SWINBASE\nIADD3.64 R2, R1, 0x1234, RZ\nIADD3.64 R3, R2, -R1, RZ"), 0x1234u);
  auto faultAt = [](const std::string& body) {
    RunResult r = run(".entry k()\n{\n" + body + "\nEXIT\n}\n");
    EXPECT_EQ(r.kind, Kind::Fault) << describe(r);
    return r.addr;
  };
  // Past the shared window is no window at all: a global fault at the generic address.
  EXPECT_EQ(faultAt("S2R R1, SR_SWINBASE\nLD.E R2, [R1+0x38000]"), 0x7e0000038000u);
  EXPECT_EQ(faultAt("S2R R1, SR_LWINBASE\nST.E [R1+0x2], RZ"), 0x7f0000000002u); // misaligned
  EXPECT_EQ(faultAt("S2R R1, SR_LWINBASE\nLD.E R2, [R1+0x80000]"), 0x7f0000080000u);
  // LDS/LDL/LDG take window offsets and global addresses, never generic ones.
  EXPECT_EQ(faultAt("S2R R1, SR_SWINBASE\nLDS R2, [R1]"), 0x7e0000000000u);
}

TEST(InterpVariables, LdcInAFuncReadsTheLaunchConstantBank) {
  // Constant bank 0 belongs to the launch: a .func reads the kernel's parameters there.
  const std::string text = R"(.func (.u32 r) f()
{
  LDC R1, c[0x0][0x210]
  ST [r], R1
  RET
}
.entry k(.u32 n, .u64 out)
{
  .param .b32 pr
  CALL (pr), f
  LD R1, [pr]
  MOV.64 R10, c[0x0][0x218]
  STG.E [R10], R1
  EXIT
})";
  RunConfig cfg;
  cfg.params["n"] = 0x1234;
  cfg.buffers["out"] = std::vector<uint8_t>(4);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(le(r.buffers["out"], 0, 4), 0x1234u);
}

TEST(InterpVariables, StateSpaceMismatchIsAnError) {
  const std::string text = R"(.global .b32 g
.shared .b32 s
.entry k(.u32 which)
{
  .local .b32 l
  ISETP.EQ.AND P0, PT, RZ, c[0x0][0x210], PT
  @P0 LDS R1, [g]
  ISETP.EQ.AND P0, PT, c[0x0][0x210], 0x1, PT
  @P0 STL [s], RZ
  LDG.E R1, [l]
  EXIT
})";
  RunConfig cfg;
  cfg.params["which"] = 0;
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Error);
  EXPECT_EQ(formatExit(r, "t.ori"), "error: state space mismatch: LDS at line 7 addresses 'g', a .global variable");
  cfg.params["which"] = 1;
  EXPECT_EQ(run(text, cfg).message, "state space mismatch: STL at line 9 addresses 's', a .shared variable");
  cfg.params["which"] = 2;
  EXPECT_EQ(run(text, cfg).message, "state space mismatch: LDG.E at line 10 addresses 'l', a .local variable");
}

TEST(InterpVariables, FrameOverflowsFault) {
  // The kernel's local area (0x10 bytes) leaves 0x7fff0 of the 0x80000-byte
  // window: f's 0x80000 bytes do not fit at 0x10.
  const std::string local = R"(.func f()
{
  .local .b8 big[0x80000]
  RET
}
.entry k()
{
  .local .b8 x[0x10]
  CALL f
  EXIT
})";
  RunResult l = run(local);
  EXPECT_EQ(l.kind, Kind::Fault) << describe(l);
  EXPECT_EQ(l.addr, 0x10u);
  EXPECT_NE(l.message.find("local memory overflow"), std::string::npos) << l.message;
  // The kernel's 4 bytes of .param variables plus f's 1 MiB exceed the 1 MiB parameter stack.
  const std::string param = R"(.func f()
{
  .param .b8 big[0x100000]
  RET
}
.entry k()
{
  .param .b32 p
  CALL f
  EXIT
})";
  RunResult p = run(param);
  EXPECT_EQ(p.kind, Kind::Fault) << describe(p);
  EXPECT_EQ(p.addr, 0u);
  EXPECT_NE(p.message.find("param stack overflow"), std::string::npos) << p.message;
  // A kernel alone with exactly the window's size of local variables runs.
  EXPECT_EQ(run(".entry k()\n{\n  .local .b8 x[0x80000]\n  STL.U8 [x+0x7ffff], RZ\n  EXIT\n}\n").kind, Kind::Ok);
}

TEST(InterpVariables, ConfigurationLimits) {
  auto err = [](const std::string& text) {
    RunResult r = run(text);
    EXPECT_EQ(r.kind, Kind::Error) << describe(r);
    return r.message;
  };
  EXPECT_NE(err(".shared .b8 s[0x38001]\n.entry k()\n{\n  EXIT\n}\n").find("shared window"), std::string::npos);
  // The other kernel's shared variables do not count.
  EXPECT_EQ(run(".entry a()\n{\n  .shared .b8 s[0x38000]\n  EXIT\n}\n.entry b()\n{\n  .shared .b8 t[0x38000]\n  EXIT\n}\n",
                withEntry("b")).kind, Kind::Ok);
  std::string big;
  for (int i = 0; i < 5; ++i) big += ".const .b8 c" + std::to_string(i) + "[0x1000000]\n"; // 5 x 16 MiB
  EXPECT_NE(err(big + ".entry k()\n{\n  EXIT\n}\n").find("64 MiB"), std::string::npos);
  // Alignment padding counts too (the PTX parser accepts .align up to 2^30).
  Module padded = parse(".const .b8 a\n.const .b8 b\n.entry k()\n{\n  EXIT\n}\n");
  ASSERT_EQ(padded.variables.size(), 2u);
  padded.variables[1].align = 1u << 30;
  RunResult pr = runKernel(padded, {});
  EXPECT_EQ(pr.kind, Kind::Error);
  EXPECT_NE(pr.message.find("64 MiB"), std::string::npos) << pr.message;
  // Module variables in .local or .param (hand-built IR; neither parser makes them).
  Module m = parse(".global .b32 g\n.entry k()\n{\n  EXIT\n}\n");
  ASSERT_EQ(m.variables.size(), 1u);
  m.variables[0].space = Space::Local;
  RunResult r = runKernel(m, {});
  EXPECT_EQ(r.kind, Kind::Error);
  EXPECT_EQ(r.message, "malformed IR: module variable 'g' is in the .local space");
}

TEST(InterpVariables, MalformedCallsAndSymbols) {
  const std::string text = R"(.func f(.u32 a, .u32 b)
{
  RET
}
.entry k()
{
  .param .b32 p
  .local .b32 l
  CALL f, (p)
  EXIT
})";
  RunResult r = run(text);
  EXPECT_EQ(r.kind, Kind::Error) << describe(r);
  EXPECT_EQ(r.message, "malformed IR: CALL at line 9 passes 1 arguments to 'f', which takes 2");
  Module m = parse(text);
  ASSERT_EQ(m.functions.size(), 2u);
  Instr& call = m.functions[1].blocks[0].instrs[0];
  call.srcs.push_back(call.srcs[1]);
  call.srcs[2].sym = "l"; // a .local variable as an argument
  RunResult l = runKernel(m, {});
  EXPECT_EQ(l.kind, Kind::Error);
  EXPECT_EQ(l.message, "malformed IR: CALL at line 9: 'l' is not a .param variable");
  call.srcs[2].sym = "nowhere";
  RunResult u = runKernel(m, {});
  EXPECT_EQ(u.kind, Kind::Error);
  EXPECT_EQ(u.message, "malformed IR: undefined symbol 'nowhere' in function 'k'");
}

// ---------------------------------------------------------------- unsupported

RunResult runBody(const std::string& body, uint32_t threads = 1) {
  RunConfig cfg;
  cfg.threads = threads;
  return run(".entry k()\n{\n" + body + "\n  EXIT\n}\n", cfg);
}

TEST(InterpUnsupported, NamesMnemonicAndLine) {
  RunResult r = runBody("  MOV R1, 0x1\n  OPAQUE \"FCHK P0, R1, R2\" def(P0) use(R1, R2)");
  EXPECT_EQ(r.kind, Kind::Unsupported);
  EXPECT_EQ(r.mnemonic, "OPAQUE");
  EXPECT_EQ(r.line, 4u);
  EXPECT_EQ(formatExit(r, "dir/x.ori"), "exit: unsupported \"OPAQUE\" at dir/x.ori:4");
  EXPECT_NE(r.message.find("FCHK"), std::string::npos);
  struct Case {
    const char* body;
    const char* mnemonic;
    uint32_t threads;
  };
  const Case cases[] = {
      {"S2R R1, SR_CLOCKLO", "S2R", 1},
      {"S2R R1, SR_GLOBALTIMERHI", "S2R", 1},
      {"S2R R1, SR_SMID", "S2R", 1},
      {"ISETP.AND P0, PT, R1, R2, PT", "ISETP.AND", 1},
      {"FSETP P0, PT, R1, R2, PT", "FSETP", 1},
      {"SHF.U32 R1, R2, 0x1, R3", "SHF.U32", 1},
      {"ATOM.E R1, [R2], 0x1", "ATOM.E", 1},
      {"F2I.F64.FTZ R1, R2", "F2I.F64.FTZ", 1},
  };
  for (const Case& c : cases) {
    RunResult u = runBody(std::string("  ") + c.body, c.threads);
    EXPECT_EQ(u.kind, Kind::Unsupported) << c.body << ": " << describe(u);
    EXPECT_EQ(u.mnemonic, c.mnemonic) << c.body;
    EXPECT_EQ(u.line, 3u) << c.body;
  }
}

TEST(InterpUnsupported, CallsTheInterpreterCannotFollow) {
  // The parser rejects calls to undefined functions; IR built otherwise may have them.
  Module m = parse(".func f()\n{\n  RET\n}\n.entry k()\n{\n  CALL f\n  EXIT\n}\n");
  ASSERT_EQ(m.functions.size(), 2u);
  m.functions[1].blocks[0].instrs[0].srcs[0].sym = "nowhere";
  RunResult r = runKernel(m, {});
  EXPECT_EQ(r.kind, Kind::Unsupported) << describe(r);
  EXPECT_EQ(r.line, 7u);
  EXPECT_NE(r.message.find("nowhere"), std::string::npos);
}

// A CALL to a declaration (PTX vprintf, __assertfail, OptiX runtime functions) is
// unsupported; a function's address (MOV R, f) is a value, and an indirect CALL runs the
// function it names, or faults at an address that names none.
TEST(InterpUnsupported, FunctionAddressesAndDeclarations) {
  const std::string text = R"(.func ext(.u64 fmt);
.func (.u32 r) f(.u32 a)
{
  LD R1, [a]
  IADD3 R1, R1, 0x1, RZ
  ST [r], R1
  RET
}
.entry k(.u32 which, .u64 out)
{
  .param .b32 pa
  .param .b32 pr
  ISETP.EQ.AND P0, PT, RZ, c[0x0][0x210], PT
  @P0 CALL ext, (pa)
  MOV.64 R1, f
  ISETP.EQ.AND P1, PT, c[0x0][0x210], 0x2, PT
  @P1 IADD3.64 R1, R1, 0x8, RZ
  MOV R2, 0x29
  ST [pa], R2
  CALL (pr), R1, (pa)
  LD R3, [pr]
  MOV.64 R4, c[0x0][0x218]
  STG.E [R4], R3
  EXIT
})";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(4, 0);
  cfg.params["which"] = 0;
  RunResult call = run(text, cfg);
  EXPECT_EQ(call.kind, Kind::Unsupported) << describe(call);
  EXPECT_EQ(call.mnemonic, "CALL");
  EXPECT_EQ(call.line, 14u);
  EXPECT_EQ(call.message, "call to external function ext");
  cfg.params["which"] = 1; // f(0x29) = 0x2a through the function pointer
  RunResult ind = run(text, cfg);
  ASSERT_EQ(ind.kind, Kind::Ok) << describe(ind);
  EXPECT_EQ(ind.buffers["out"], (std::vector<uint8_t>{0x2a, 0, 0, 0}));
  cfg.params["which"] = 2; // 8 bytes past f's address: no function there
  RunResult bad = run(text, cfg);
  EXPECT_EQ(bad.kind, Kind::Fault) << describe(bad);
  EXPECT_NE(bad.message.find("not the address of a function"), std::string::npos) << bad.message;
}

TEST(InterpUnsupported, CallToAnEntryKernel) {
  RunResult r = run(".entry a()\n{\n  EXIT\n}\n.entry b()\n{\n  CALL a\n  EXIT\n}\n", withEntry("b"));
  EXPECT_EQ(r.kind, Kind::Unsupported);
  EXPECT_EQ(r.line, 7u);
}

// ---------------------------------------------------------------- configuration errors

TEST(InterpErrors, ParametersAndEntries) {
  const std::string text = ".entry k(.u32 n, .u64 out)\n{\n  EXIT\n}\n";
  auto err = [&](RunConfig cfg, const std::string& t) {
    RunResult r = run(t, cfg);
    EXPECT_EQ(r.kind, Kind::Error);
    return formatExit(r, "t.ori");
  };
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(4);
  EXPECT_EQ(err(cfg, text), "error: parameter 'n' is not bound (use --param n=VALUE)"); // .u32: no buffer
  cfg.params["n"] = 1;
  cfg.params["q"] = 2;
  EXPECT_EQ(err(cfg, text), "error: kernel 'k' has no parameter 'q'");
  cfg.params.erase("q");
  EXPECT_EQ(run(text, cfg).kind, Kind::Ok);
  cfg.buffers["n"] = std::vector<uint8_t>(4);
  EXPECT_NE(err(cfg, text).find("bound twice"), std::string::npos);
  cfg.params.erase("n");
  EXPECT_EQ(err(cfg, text), "error: parameter 'n' holds 4 bytes, a buffer address needs 8");
  cfg.buffers.erase("n");
  cfg.params["n"] = 1;
  cfg.params["out"] = 0x1234; // a pointer parameter may be bound to a plain value
  cfg.buffers.erase("out");
  EXPECT_EQ(run(text, cfg).kind, Kind::Ok);

  const std::string two = ".entry a()\n{\n  EXIT\n}\n.entry b()\n{\n  EXIT\n}\n.func f()\n{\n  RET\n}\n";
  EXPECT_NE(err({}, two).find("choose one with --entry"), std::string::npos);
  EXPECT_EQ(run(two, withEntry("b")).kind, Kind::Ok);
  EXPECT_EQ(err(withEntry("f"), two), "error: 'f' is a .func, not an .entry kernel");
  EXPECT_EQ(err(withEntry("zz"), two), "error: no kernel named 'zz' in the module");
  EXPECT_NE(err({}, ".func f()\n{\n  RET\n}\n").find("no .entry"), std::string::npos);
  EXPECT_NE(err(withThreads(0), ".entry a()\n{\n  EXIT\n}\n").find("at least 1"), std::string::npos);
}

TEST(InterpErrors, MalformedIrIsReportedNotCrashed) {
  Module m = parse(".entry k()\n{\n  BRA end\nend:\n  EXIT\n}\n");
  ASSERT_FALSE(m.functions.empty());
  m.functions[0].blocks[0].instrs[0].srcs[0].target = 99; // a target that does not exist
  EXPECT_EQ(runKernel(m, {}).kind, Kind::Error);
  m.functions[0].blocks[0].instrs[0].srcs.clear();        // a missing operand
  EXPECT_EQ(runKernel(m, {}).kind, Kind::Error);
  Module n = parse(".entry k()\n{\n  MOV R1, 0x1\n  EXIT\n}\n");
  n.functions[0].blocks[0].instrs.pop_back();             // falls off the end
  EXPECT_EQ(runKernel(n, {}).kind, Kind::Error);
}

} // namespace
} // namespace ori
