// The binding rules of automatic launches (interp/auto_launch.h; docs/interpreter.md,
// "Automatic launches"), each on a small PTX kernel, and the "real work" measure.
#include <gtest/gtest.h>

#include <string>

#include "interp/auto_launch.h"
#include "interp/interp.h"
#include "ptx/ptx.h"
#include "tests/unit/lower_ptx.h"

namespace ori {
namespace {

std::string bindings(const Module &m, AutoLaunchOptions o = {}) {
  return formatBindings(autoBindings(m, kernelOf(m), o));
}

TEST(AutoLaunch, BufferPattern) {
  std::vector<uint8_t> b = autoBufferBytes(70);
  ASSERT_EQ(b.size(), 70u);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[1], 0);
  EXPECT_EQ(b[4], 2);
  EXPECT_EQ(b[4 * 16], 17);
  EXPECT_EQ(b[4 * 17], 1); // word 17 wraps to 1; its first byte is the 69th
}

// A pointer is what becomes an address; a count added to a loaded value is not one, even with
// 8 bytes; a count scaled into an offset is not one either.
TEST(AutoLaunch, PointersCountsFloats) {
  Module m = lower(R"(
.visible .entry k(.param .u64 p, .param .u64 q, .param .u64 m, .param .u32 n, .param .f32 a,
                  .param .f64 d, .param .u8 flag, .param .u16 h)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [q];
  ld.param.u64 %rd3, [m];
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [a];
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r2, [%rd6];
  cvt.u64.u32 %rd7, %r2;
  add.s64 %rd8, %rd7, %rd3;
  shl.b64 %rd9, %rd3, 2;
  add.s64 %rd10, %rd2, %rd9;
  st.global.u64 [%rd10], %rd8;
  ret;
}
)");
  EXPECT_EQ(bindings(m), "p=buf[4194304] q=buf[4194304] m=256 n=256 a=1:f32 d=1:f64 flag=1 h=256");
  AutoLaunchOptions o;
  o.threads = 64;
  o.ctas = 3;
  o.bufferBytes = 4096;
  EXPECT_EQ(bindings(m, o), "p=buf[4096] q=buf[4096] m=192 n=192 a=1:f32 d=1:f64 flag=1 h=192");
  o.count = 70000; // truncated to a 16-bit parameter's width by the interpreter, given whole here
  EXPECT_EQ(bindings(m, o),
            "p=buf[4096] q=buf[4096] m=70000 n=70000 a=1:f32 d=1:f64 flag=1 h=70000");
}

// Through a call's .param copy into a function of the module, and into one without a body.
TEST(AutoLaunch, PointersThroughCalls) {
  Module m = lower(R"(
.extern .func ext(.param .b64 x);
.func put(.param .b64 put_p, .param .b32 put_v)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [put_p];
  ld.param.u32 %r1, [put_v];
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry k(.param .u64 p, .param .u64 u, .param .u64 c)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [u];
  ld.param.u64 %rd3, [c];
  cvt.u32.u64 %r1, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r1;
  call.uni put, (param0, param1);
  }
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  call.uni ext, (param0);
  }
  ret;
}
)");
  EXPECT_EQ(bindings(m), "p=buf[4194304] u=buf[4194304](unsure call) c=256");
}

// Structs by value slot by slot; a 32-bit pointer; module variables: a .const one without an
// initializer is bound whole, a .global one only in its pointer slots, initialized ones kept.
TEST(AutoLaunch, StructsVariablesAndNarrowPointers) {
  Module m = lower(R"(
.const .align 8 .b8 cfg[24];
.const .align 4 .u32 init = 5;
.global .align 8 .b8 dev[16];
.visible .entry k(.param .align 8 .b8 s[24], .param .u32 p32, .param .align 4 .b8 unread[8])
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  ld.param.u32 %r1, [s];
  ld.param.f32 %f1, [s+4];
  ld.param.u64 %rd1, [s+16];
  ld.param.u32 %r2, [p32];
  ld.global.u32 %r3, [%r2];
  ld.global.u32 %r4, [%rd1];
  ld.const.u32 %r5, [cfg];
  ld.const.f32 %f2, [cfg+4];
  ld.const.u64 %rd2, [cfg+8];
  ld.const.u32 %r6, [init];
  ld.global.u32 %r7, [dev];
  ld.global.u64 %rd3, [dev+8];
  ld.global.u32 %r8, [%rd2];
  ld.global.u32 %r9, [%rd3];
  add.s32 %r10, %r1, %r3;
  add.s32 %r10, %r10, %r5;
  add.s32 %r10, %r10, %r7;
  add.f32 %f2, %f1, %f2;
  cvt.rzi.s32.f32 %r11, %f2;
  add.s32 %r10, %r10, %r11;
  st.global.u32 [%rd1], %r10;
  ret;
}
)");
  const std::vector<AutoBinding> b = autoBindings(m, kernelOf(m), {});
  EXPECT_EQ(formatBindings(b),
            "s={+0:256 +4:1:f32 +16:buf[4194304]} p32={+0:buf[4194304]} unread=zero[8] "
            "@cfg={+0:256 +4:1:f32 +8:buf[4194304]} @dev={+8:buf[4194304]}");
  // The launch: the pointer slots hold addresses of extra buffers, below 4 GiB.
  RunConfig cfg = autoLaunch(m, kernelOf(m), {});
  EXPECT_EQ(cfg.extraBuffers.size(), 4u);
  EXPECT_TRUE(cfg.extraBuffers.count("s+0x10"));
  EXPECT_TRUE(cfg.extraBuffers.count("@cfg+0x8"));
  ASSERT_EQ(cfg.paramBytes.at("p32").size(), 4u);
  ASSERT_EQ(cfg.variableBytes.at("cfg").size(), 24u);
  EXPECT_EQ(cfg.variableBytes.count("init"), 0u);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << r.message;
  // s.x + p32[0] + cfg.x + dev.x + (int)(s.f + cfg.f) = 256 + 1 + 256 + 0 + 2, stored at s.p[0].
  const std::vector<uint8_t> &out = r.buffers.at("s+0x10");
  EXPECT_EQ(out[0] | out[1] << 8, 515);
}

// "Real work": more warp instructions than every warp leaving through the first block (and the
// block it branches to that only exits).
TEST(AutoLaunch, RealWork) {
  Module m = lower(R"(
.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $L_exit;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
$L_exit:
  ret;
}
)");
  const Function &k = kernelOf(m);
  EXPECT_EQ(firstBlockExitSteps(k), k.blocks[0].instrs.size() + 1);
  RunConfig cfg = autoLaunch(m, k, {});
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << r.message;
  EXPECT_TRUE(didRealWork(k, cfg, r));
  cfg.params["n"] = 0; // every thread leaves at the bounds check
  r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << r.message;
  EXPECT_EQ(r.warpSteps, firstBlockExitSteps(k) * 8);
  EXPECT_FALSE(didRealWork(k, cfg, r));
}

// A straight-line kernel that stores runs all of itself whatever its inputs: real work. One
// without a store, or one that may leave early through a guarded EXIT, is not.
TEST(AutoLaunch, StraightLineKernels) {
  auto kernel = [](const std::string &body) {
    return lower(".visible .entry k(.param .u64 p)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n  "
                 ".reg .b64 %rd<4>;\n"
                 "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, %tid.x;\n" +
                 body + "  ret;\n}\n");
  };
  Module store = kernel("  st.global.u32 [%rd1], %r1;\n");
  Module none = kernel("  add.s32 %r2, %r1, 1;\n");
  Module guarded =
      kernel("  setp.eq.u32 %p1, %r1, 0;\n  @%p1 exit;\n  st.global.u32 [%rd1], %r1;\n");
  Module guardedStore = kernel("  setp.eq.u32 %p1, %r1, 0;\n  @%p1 st.global.u32 [%rd1], %r1;\n");
  EXPECT_TRUE(isStraightLine(kernelOf(store)));
  EXPECT_FALSE(isStraightLine(kernelOf(none)));
  EXPECT_FALSE(isStraightLine(kernelOf(guarded)));
  EXPECT_FALSE(isStraightLine(kernelOf(guardedStore)));
  for (Module *m : {&store, &none}) {
    RunConfig cfg = autoLaunch(*m, kernelOf(*m), {});
    RunResult r = runKernel(*m, cfg);
    ASSERT_EQ(r.kind, RunResult::Kind::Ok) << r.message;
    EXPECT_EQ(didRealWork(kernelOf(*m), cfg, r), m == &store);
  }
}

// bindAuto leaves what the configuration binds already.
TEST(AutoLaunch, ExplicitBindingsWin) {
  Module m = lower(R"(
.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  RunConfig cfg;
  cfg.buffers["p"] = std::vector<uint8_t>(8, 0);
  std::vector<AutoBinding> used = bindAuto(m, kernelOf(m), autoBindings(m, kernelOf(m), {}), cfg);
  EXPECT_EQ(formatBindings(used), "n=256");
  EXPECT_EQ(cfg.buffers.at("p").size(), 8u);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << r.message;
  EXPECT_EQ(r.buffers.at("p")[1], 1); // 256
}

} // namespace
} // namespace ori
