// BRX through the emitter (ptx/emit_mem.cpp, boundChecked): an index past the table faults in
// the interpreter, so the emitter guards brx.idx with a check (setp, ld.volatile, trap) unless
// DoSwitchOpt's bound check already sent every such index elsewhere on each path into it.
#include <gtest/gtest.h>

#include "ptx_emit_helpers.h"

namespace {

using namespace ptx_emit_test;

// The check in `q`, then `BRA sw` to the BRX block placed last (PlaceBlocksInSourceOrder's
// shape); `extra` adds code to the block after the hop.
std::string moved(const std::string &extra) {
  return ".entry k(.u64 out)\n{\n  .jumptable cases = {a, b, a}\n"
         "  S2R R0, SR_TID.X\n  ISETP.GT.U32.AND P0, PT, R0, 0x2, PT\n  @P0 BRA b\n"
         "hop:\n  BRA sw\na:\n" +
         extra + "  EXIT\nb:\n  RET\nsw:\n  BRX R0, cases\n}\n";
}

TEST(PtxEmitBrx, BoundCheckBeforeAMovedTable) {
  std::string t = emitOk(moved(""));
  EXPECT_HAS(t, "\n  brx.idx %ori_r0, cases;");
  EXPECT_LACKS(t, "ld.volatile"); // R0 > 2 went to b: nothing past the table reaches sw
}

TEST(PtxEmitBrx, MovedTableReachedFromElsewhereKeepsItsCheck) {
  // hop is reached from a too (with any R0 < 2^32): the check stays.
  std::string t = emitOk(moved("  ISETP.EQ.AND P1, PT, R0, 0x7, PT\n  @P1 BRA hop\n"));
  EXPECT_HAS(t, "ld.volatile.global.u8");
  EXPECT_HAS(t, "@%ori_tp0 trap;");
}

TEST(PtxEmitBrx, BoundTooLargeKeepsItsCheck) {
  // R0 > 3 leaves R0 == 3 (past the 3 entries) to the table.
  std::string s = moved("");
  s.replace(s.find("0x2, PT"), 3, "0x3");
  EXPECT_HAS(emitOk(s), "ld.volatile.global.u8");
}

} // namespace
