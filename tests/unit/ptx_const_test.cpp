// The .const state space through registers (ptx/lower_mem.cpp): ld.const at a
// register address becomes LDC c[0x3][R+off] (bank 3 is the module's .const
// data), cvta.const and cvta.to.const go through SR_CWINBASE, and ldu of a
// generic address is LD.CONSTANT. Each kernel runs lowered and again after
// --emit=ptx; the expected values are the table entries the code picks.
#include <gtest/gtest.h>

#include <string>

#include "ptx_kernel_runner.h"

namespace {

const char *kTable = R"(.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b32 tab[4] = {11, 22, 33, 44};
.visible .entry k(.param .u64 out, .param .u32 i)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd0, %rd0;
  ld.param.u32 %r1, [i];
  mov.u64 %rd1, tab;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.const.u32 %r2, [%rd3];
  ld.const.u32 %r3, [%rd3+4];
  cvta.const.u64 %rd4, %rd3;
  ld.u32 %r4, [%rd4];
  ldu.global.u32 %r5, [%rd0];
  cvta.to.const.u64 %rd5, %rd4;
  ld.const.u32 %r6, [%rd5];
  st.global.u32 [%rd0], %r2;
  st.global.u32 [%rd0+4], %r3;
  st.global.u32 [%rd0+8], %r4;
  st.global.u32 [%rd0+12], %r6;
  ret;
}
)";

TEST(PtxConst, LoadsThroughRegistersAndTheGenericWindow) {
  ptxtest::Kernel k = ptxtest::lowerAndReEmit(kTable);
  for (const ori::Function &f : k.lowered.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        EXPECT_NE(in.op, ori::Opcode::OPAQUE) << "not lowered natively";
  for (uint64_t i : {0, 2}) {
    ori::RunConfig cfg;
    cfg.params = {{"i", i}};
    cfg.buffers["out"] = std::vector<uint8_t>(24, 0xee); // le64 reads 8 bytes at each word
    // tab[i], tab[i+1], tab[i] through the generic window, tab[i] back in the const space.
    uint32_t want[] = {uint32_t(11 * (i + 1)), uint32_t(11 * (i + 2)), uint32_t(11 * (i + 1)),
                       uint32_t(11 * (i + 1))};
    for (const std::vector<uint8_t> &out : ptxtest::runBoth(k, cfg, "out"))
      for (unsigned w = 0; w < 4; ++w)
        EXPECT_EQ(uint32_t(ptxtest::le64(out, 4 * w)), want[w]) << "word " << w;
  }
  if (ptxtest::havePtxas()) {
    EXPECT_EQ(ptxtest::ptxasErrors(k.emittedPtx), "") << k.emittedPtx;
  }
}

TEST(PtxConst, ReadingPastTheConstDataFaults) {
  ptxtest::Kernel k = ptxtest::lowerAndReEmit(kTable);
  ori::RunConfig cfg;
  cfg.params = {{"i", 3}}; // tab[4] is one past the end
  cfg.buffers["out"] = std::vector<uint8_t>(16, 0xee);
  ori::RunResult r = ori::runKernel(k.lowered, cfg);
  EXPECT_EQ(int(r.kind), int(ori::RunResult::Kind::Fault)) << r.message;
  EXPECT_EQ(r.addr, 16u);
}

} // namespace
