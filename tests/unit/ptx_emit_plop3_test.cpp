// PLOP3 through the emitter (ptx/emit_predicate.cpp): every one of the 256 tables, on three
// inputs with and without negation, printed as and/or/xor/not.pred and lowered back, gives on
// each of the 8 input combinations the bit of the table the SASS definition names (the LUT bit
// (a << 2) | (b << 1) | c of the three inputs after their `!`, as LOP3's: docs/interpreter.md).
// Expected values are computed here from that definition, not from the interpreter.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "interp/interp.h"
#include "ptx/ptx.h"
#include "ptx_emit_helpers.h"

namespace {

using namespace ptx_emit_test;

// Thread t (0..7) sets P0 = t & 1, P1 = t & 2, P2 = t & 4 and, for each table L, stores
// (P3 ? 1 : 0) | (P4 ? 2 : 0) of `PLOP3.LUT P3, P4, <inputs>, L, L ^ 0x5a` at out[t * 256 + L].
std::string allTables(const std::string &inputs) {
  std::string body = "  S2R R0, SR_TID.X\n"
                     "  LOP3.LUT R1, R0, 0x1, RZ, 0xc0\n  ISETP.NE.AND P0, PT, R1, RZ, PT\n"
                     "  LOP3.LUT R1, R0, 0x2, RZ, 0xc0\n  ISETP.NE.AND P1, PT, R1, RZ, PT\n"
                     "  LOP3.LUT R1, R0, 0x4, RZ, 0xc0\n  ISETP.NE.AND P2, PT, R1, RZ, PT\n"
                     "  IMAD.WIDE.U32 R8, R0, 0x400, c[0x0][0x210]\n";
  for (unsigned lut = 0; lut < 256; ++lut)
    body += fmt::format("  PLOP3.LUT P3, P4, {}, 0x{:x}, 0x{:x}\n"
                        "  SEL R5, 0x1, RZ, P3\n  SEL R6, 0x2, RZ, P4\n  IADD3 R7, R5, R6, RZ\n"
                        "  STG.E [R8+0x{:x}], R7\n",
                        inputs, lut, lut ^ 0x5a, lut * 4);
  return kernel(body);
}

void checkAllTables(const std::string &inputs, bool neg[3]) {
  std::string ptx = emitOk(allTables(inputs)); // ptxas accepts it (when ptxas is here)
  EXPECT_LACKS(ptx, ", -1, 0, %"); // no all-ones words (selp -1, 0): predicate operations only
  ori::ParseResult back = ori::ptx::parseAndLower(ptx, "plop3.ptx");
  ASSERT_TRUE(back.module) << back.error->str() << "\n" << ptx;
  ori::RunConfig cfg;
  cfg.entry = "k";
  cfg.threads = 8;
  cfg.buffers["out"].assign(8 * 1024, 0xee);
  cfg.params["n"] = 0;
  ori::RunResult r = ori::runKernel(*back.module, cfg);
  ASSERT_EQ(r.kind, ori::RunResult::Kind::Ok) << r.message;
  const std::vector<uint8_t> &out = r.buffers.at("out");
  for (unsigned t = 0; t < 8; ++t)
    for (unsigned lut = 0; lut < 256; ++lut) {
      unsigned a = (t & 1) ^ neg[0], b = ((t >> 1) & 1) ^ neg[1], c = ((t >> 2) & 1) ^ neg[2];
      unsigned idx = (a << 2) | (b << 1) | c;
      unsigned want = ((lut >> idx) & 1) | (((lut ^ 0x5a) >> idx) & 1) << 1;
      size_t at = (t * 256 + lut) * 4;
      uint32_t got = uint32_t(out[at]) | uint32_t(out[at + 1]) << 8 | uint32_t(out[at + 2]) << 16 |
                     uint32_t(out[at + 3]) << 24;
      EXPECT_EQ(got, want) << inputs << " table 0x" << std::hex << lut << " thread " << t;
    }
}

TEST(PtxEmitPlop3, EveryTableOnPlainInputs) {
  bool neg[3] = {false, false, false};
  checkAllTables("P0, P1, P2", neg);
}

TEST(PtxEmitPlop3, EveryTableOnNegatedInputs) {
  bool neg[3] = {true, false, true};
  checkAllTables("!P0, P1, !P2", neg);
}

// A three-input table that is one operation on an input and a two-input one prints as two
// predicate operations (phase 38's `a | b | c` of three branch conditions).
TEST(PtxEmitPlop3, ThreeInputOrIsTwoOperations) {
  std::string t = emitOk(kernel("  S2R R1, SR_TID.X\n  ISETP.EQ.AND P0, PT, R1, 0x2, PT\n"
                                "  ISETP.EQ.AND P1, PT, R1, 0x3, PT\n"
                                "  ISETP.EQ.AND P2, PT, R1, 0x4, PT\n"
                                "  PLOP3.LUT P3, PT, P0, P1, P2, 0xfe, 0x0"));
  EXPECT_HAS(t, "or.pred %ori_tp0, %ori_p1, %ori_p2;\n  or.pred %ori_p3, %ori_p0, %ori_tp0;");
}

} // namespace
