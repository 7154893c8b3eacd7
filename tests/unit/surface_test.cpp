// Surface memory in the interpreter (SULD, SUST; docs/interpreter.md, "Surfaces"), the PTX
// reader's suld.b/sust.b, and what automatic launches bind for surfaces, indexed counts and
// pointers stored in buffers (interp/auto_launch.h). Expected values are derived by hand in
// the comments beside them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/auto_launch.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "tests/unit/lower_ptx.h"

namespace ori {
namespace {

using Kind = RunResult::Kind;

RunResult run(const std::string &text, const RunConfig &cfg) {
  ParseResult p = parseOri(text, "t.ori");
  if (!p.module) {
    ADD_FAILURE() << p.error->str() << "\n" << text;
    return {};
  }
  return runKernel(*p.module, cfg);
}

// A surface whose byte i holds i.
Surface counting(uint64_t handle, uint32_t w, uint32_t h, uint32_t d) {
  Surface s;
  s.handle = handle;
  s.widthBytes = w, s.height = h, s.depth = d;
  for (uint32_t i = 0; i < w * h * d; ++i)
    s.bytes.push_back(uint8_t(i));
  return s;
}

uint64_t bytesAt(const std::vector<uint8_t> &b, size_t at, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= uint64_t(b.at(at + i)) << (8 * i);
  return v;
}

RunConfig oneThread(size_t outBytes) {
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(outBytes, 0);
  return cfg;
}

TEST(Surface, LoadsAndStoresIn2D) {
  // A 16-byte x 2-row surface, byte i = i, handle 7.
  RunConfig cfg = oneThread(20);
  cfg.surfaces["s"] = counting(7, 16, 2, 1);
  RunResult r = run(R"(.entry k(.u64 out)
{
  MOV.64 R10, 0x7
  LDC.64 R20, c[0x0][0x210]
  SULD.2D.TRAP R1, R10, 0x4, 0x1
  SULD.2D.V2.CLAMP R2, R3, R10, 0x28, 0x5
  SULD.2D.ZERO R4, R10, -0x4, 0x0
  SULD.2D.U8.TRAP R5, R10, 0xf, 0x1
  SUST.2D.U8.TRAP R10, 0x3, 0x0, 0xab
  SUST.2D.ZERO R10, 0x10, 0x0, R1
  SUST.2D.CLAMP R10, 0x20, 0x5, R1
  STG.E [R20], R1
  STG.E [R20+0x4], R2
  STG.E [R20+0x8], R3
  STG.E [R20+0xc], R4
  STG.E [R20+0x10], R5
  EXIT
}
)",
                    cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  const std::vector<uint8_t> &out = r.buffers.at("out");
  EXPECT_EQ(bytesAt(out, 0, 4), 0x17161514u); // row 1 byte 4: offset 16 + 4 = 20
  EXPECT_EQ(bytesAt(out, 4, 4),
            0x1b1a1918u); // (40, 5) clamped to the last 8-byte element (8, 1): 24
  EXPECT_EQ(bytesAt(out, 8, 4), 0x1f1e1d1cu); // ... its second word: 28
  EXPECT_EQ(bytesAt(out, 12, 4), 0u);         // x = -4 is outside: .ZERO reads 0
  EXPECT_EQ(bytesAt(out, 16, 4), 0x1fu);      // one byte at 16 + 15 = 31, zero-extended
  std::vector<uint8_t> want;
  for (int i = 0; i < 32; ++i)
    want.push_back(uint8_t(i));
  want[3] = 0xab; // the byte store at (3, 0)
  want[28] = 0x14, want[29] = 0x15, want[30] = 0x16,
  want[31] = 0x17;                     // (32, 5) clamped to (12, 1) = 28
  EXPECT_EQ(r.surfaces.at("s"), want); // the .ZERO store at x = 16 (16 + 4 > 16) was dropped
}

TEST(Surface, ThreeDimensionsWideElementsAndVectors) {
  RunConfig cfg = oneThread(24);
  cfg.surfaces["cube"] = counting(9, 8, 2, 2); // 8 bytes x 2 rows x 2 slices
  cfg.surfaces["line"] = counting(11, 16, 1, 1);
  RunResult r = run(R"(.entry k(.u64 out)
{
  MOV.64 R10, 0x9
  MOV.64 R12, 0xb
  LDC.64 R20, c[0x0][0x210]
  SULD.3D.64.TRAP R1, R10, 0x0, 0x1, 0x1
  SULD.1D.V4.TRAP R2, R3, R4, R5, R12, 0x0
  STG.E.64 [R20], R1
  STG.E [R20+0x8], R2
  STG.E [R20+0xc], R3
  STG.E [R20+0x10], R4
  STG.E [R20+0x14], R5
  SUST.1D.V2.64.CLAMP R12, 0x0, R1, RZ
  EXIT
}
)",
                    cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  const std::vector<uint8_t> &out = r.buffers.at("out");
  EXPECT_EQ(bytesAt(out, 0, 8), 0x1f1e1d1c1b1a1918u); // slice 1, row 1: (1 * 2 + 1) * 8 = 24
  EXPECT_EQ(bytesAt(out, 8, 4), 0x03020100u);
  EXPECT_EQ(bytesAt(out, 12, 4), 0x07060504u);
  EXPECT_EQ(bytesAt(out, 16, 4), 0x0b0a0908u);
  EXPECT_EQ(bytesAt(out, 20, 4), 0x0f0e0d0cu);
  const std::vector<uint8_t> &line = r.surfaces.at("line"); // 16 bytes: R1 then RZ
  EXPECT_EQ(bytesAt(line, 0, 8), 0x1f1e1d1c1b1a1918u);
  EXPECT_EQ(bytesAt(line, 8, 8), 0u);
}

TEST(Surface, FaultsAndErrors) {
  auto runOne = [](const std::string &instr, uint64_t handle) {
    RunConfig cfg = oneThread(4);
    cfg.surfaces["s"] = counting(7, 16, 2, 1);
    return run(".entry k(.u64 out)\n{\n  MOV.64 R10, " + std::to_string(handle) + "\n  " + instr +
                   "\n  EXIT\n}\n",
               cfg);
  };
  RunResult r = runOne("SULD.2D.TRAP R1, R10, 0x10, 0x0", 7); // x + 4 > 16
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.addr, 0x10u);
  EXPECT_NE(r.message.find("outside surface 's' (16x2x1 bytes)"), std::string::npos) << r.message;
  r = runOne("SULD.2D R1, R10, 0x0, 0x2", 7); // no mode: .TRAP; row 2 of 2
  EXPECT_EQ(r.kind, Kind::Fault);
  r = runOne("SUST.2D.TRAP R10, -0x4, 0x0, R1", 7);
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.addr, 0xfffffffffffffffcu);
  r = runOne("SULD.2D.CLAMP R1, R10, 0x2, 0x0", 7); // 2 is no multiple of 4, even when clamping
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_NE(r.message.find("not a multiple of the 4-byte access"), std::string::npos) << r.message;
  r = runOne("SULD.2D.ZERO R1, R10, 0x0, 0x0", 8); // no surface has handle 8
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_EQ(r.addr, 8u);
  // Configuration errors.
  RunConfig cfg = oneThread(4);
  cfg.surfaces["a"] = counting(0, 4, 1, 1);
  r = run(".entry k(.u64 out)\n{\n  EXIT\n}\n", cfg);
  EXPECT_EQ(r.kind, Kind::Error);
  EXPECT_EQ(r.message, "surface 'a' has handle 0 (a handle must not be 0)");
  cfg.surfaces["a"] = counting(3, 4, 1, 1);
  cfg.surfaces["b"] = counting(3, 4, 1, 1);
  r = run(".entry k(.u64 out)\n{\n  EXIT\n}\n", cfg);
  EXPECT_EQ(r.message, "surfaces 'a' and 'b' have the same handle 0x3");
  cfg.surfaces.erase("b");
  cfg.surfaces["a"].bytes.resize(5);
  r = run(".entry k(.u64 out)\n{\n  EXIT\n}\n", cfg);
  EXPECT_EQ(r.message, "surface 'a' holds 4 bytes, 5 given");
}

TEST(Surface, TextureFetches) {
  // Texture 5: 32 bytes (two 16-byte texels) x 2 rows, byte i = i, coordinates in texels;
  // texture 6: the same bytes, normalized coordinates. Texel (i, j) starts at byte 32j + 16i,
  // channel c at 4c more.
  RunConfig cfg = oneThread(40);
  cfg.surfaces["t"] = counting(5, 32, 2, 1);
  cfg.surfaces["n"] = counting(6, 32, 2, 1);
  cfg.surfaces["n"].normalized = true;
  RunResult r = run(R"(.entry k(.u64 out)
{
  MOV.64 R10, 0x5
  MOV.64 R11, 0x6
  LDC.64 R20, c[0x0][0x210]
  TEX.2D.U32 R1, R2, R3, R4, R10, 1.5, 0.0
  STG.E [R20], R1
  STG.E [R20+0x4], R2
  STG.E [R20+0x8], R3
  STG.E [R20+0xc], R4
  TEX.2D.ICOORD R1, R2, R3, R4, R10, 0x7, 0x7
  STG.E [R20+0x10], R1
  TEX.2D.F32 R1, R2, R3, R4, R11, 0.75, 0.25
  STG.E [R20+0x14], R1
  MOV R5, 0x7fc00000
  TEX.2D.LOD R1, R2, R3, R4, R10, R5, -3.0, 2.0
  STG.E [R20+0x18], R1
  TEX.1D.GRAD R1, R2, R3, R4, R11, 1.0, 0.5, 0.5
  STG.E [R20+0x1c], R4
  TEX.3D R1, R2, R3, R4, R10, 0.0, 1.0, 5.0
  STG.E [R20+0x20], R2
  EXIT
}
)",
                    cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  const std::vector<uint8_t> &out = r.buffers.at("out");
  EXPECT_EQ(bytesAt(out, 0, 4), 0x13121110u); // (1.5, 0.0) rounds down to texel (1, 0): byte 16
  EXPECT_EQ(bytesAt(out, 4, 4), 0x17161514u);
  EXPECT_EQ(bytesAt(out, 8, 4), 0x1b1a1918u);
  EXPECT_EQ(bytesAt(out, 12, 4), 0x1f1e1d1cu);
  EXPECT_EQ(bytesAt(out, 16, 4), 0x33323130u); // (7, 7) clamped to (1, 1): byte 48
  EXPECT_EQ(bytesAt(out, 20, 4),
            0x13121110u); // normalized (0.75, 0.25) x (2, 2) = (1.5, 0.5): texel (1, 0)
  EXPECT_EQ(bytesAt(out, 24, 4), 0x03020100u); // (NaN, -3) -> (0, 0); the level changes nothing
  EXPECT_EQ(bytesAt(out, 28, 4),
            0x1f1e1d1cu); // normalized 1.0 x 2 = 2, clamped to texel 1; channel 3
  EXPECT_EQ(bytesAt(out, 32, 4),
            0x27262524u); // (0, 1, 5): slice 5 clamped to 0, row 1: byte 32, channel 1
}

TEST(Surface, ShapeChecks) {
  auto error = [](const std::string &instr) {
    ParseResult p = parseOri(".entry k()\n{\n  " + instr + "\n  EXIT\n}\n", "t.ori");
    return p.module ? std::string("parsed") : p.error->str();
  };
  EXPECT_EQ(error("SULD.TRAP R1, R2, R3"), "t.ori:3:3: error: SULD needs .1D, .2D or .3D");
  EXPECT_EQ(error("SULD.2D.TRAP R1, R2, R3"),
            "t.ori:3:3: error: SULD.2D takes a handle and 2 coordinates");
  EXPECT_EQ(error("SUST.1D.V2.TRAP R2, R3, R4"),
            "t.ori:3:3: error: SUST.1D takes a handle, 1 coordinate and 2 values");
  EXPECT_EQ(error("SULD.1D.V4.64.TRAP R1, R2, R3, R4, R5, R6"),
            "t.ori:3:3: error: SULD has no .V4 of .64 elements");
  EXPECT_EQ(error("SULD.3D.V2.ZERO R1, R2, R5, R6, R7, R8"), "parsed");
  EXPECT_EQ(error("TEX.F32 R1, R2, R3, R4, R5, R6"), "t.ori:3:3: error: TEX needs .1D, .2D or .3D");
  EXPECT_EQ(error("TEX.2D.LOD R1, R2, R3, R4, R5, R6, R7"),
            "t.ori:3:3: error: TEX.2D.LOD takes 4 sources (a handle, 2 coordinates, a level)");
  EXPECT_EQ(error("TEX.3D.GRAD R1, R2, R3, R4, R5, R6, R7, R8"),
            "t.ori:3:3: error: TEX.GRAD takes 1D or 2D coordinates");
  EXPECT_EQ(error("TEX.1D.F32.U32 R1, R2, R3, R4, R5, R6"),
            "t.ori:3:3: error: TEX takes one result type: .F32, .U32 or .S32");
}

// Surface handles in a parameter and in a __constant__ variable get surfaces of their own,
// shaped by the most coordinates their accesses use.
TEST(Surface, AutoLaunchBindsSurfaces) {
  Module m = lower(R"(
.const .align 8 .b8 lut[8];
.visible .entry k(.param .u64 img, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [img];
  ld.const.u64 %rd2, [lut];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  suld.b.2d.v4.b32.trap {%r3, %r4, %r5, %r6}, [%rd1, {%r2, 0}];
  suld.b.3d.b32.clamp {%r7}, [%rd2, {%r2, %r1, %r1, %r1}];
  add.s32 %r3, %r3, %r7;
  sust.b.2d.v4.b32.trap [%rd1, {%r2, 1}], {%r3, %r4, %r5, %r6};
  cvta.to.global.u64 %rd4, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)");
  EXPECT_EQ(formatBindings(autoBindings(m, kernelOf(m), {})),
            "img={+0:surf2d#1} out=buf[4194304] @lut={+0:surf3d#2}");
  RunConfig cfg = autoLaunch(m, kernelOf(m), {});
  ASSERT_EQ(cfg.surfaces.size(), 2u);
  const Surface &img = cfg.surfaces.at("img+0x0");
  EXPECT_EQ(img.handle, 1u);
  EXPECT_EQ(img.widthBytes, 4096u);
  EXPECT_EQ(img.height, 256u);
  EXPECT_EQ(img.depth, 1u);
  const Surface &lut = cfg.surfaces.at("@lut+0x0");
  EXPECT_EQ(lut.handle, 2u);
  EXPECT_EQ(lut.widthBytes * lut.height * lut.depth, 1u << 20);
  EXPECT_EQ(lut.depth, 16u);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  // Thread t (256 of them, x = 16t < 4096) copies texel (t, 0) of img to (t, 1), its first word
  // plus lut at (16t clamped to 1020, t clamped to 63, t clamped to 15). The surfaces hold the
  // buffer pattern: word k is k % 17 + 1. Thread 1: img word 4 = 5; lut (16, 1, 1): byte
  // (1 * 64 + 1) * 1024 + 16 = 66576, word 16644 (16644 = 17 * 979 + 1): 2; 5 + 2 = 7 at row 1,
  // byte 4096 + 16. Its next word is img word 5 copied: 5 % 17 + 1 = 6.
  const std::vector<uint8_t> &s = r.surfaces.at("img+0x0");
  EXPECT_EQ(bytesAt(s, 4096 + 16, 4), 7u);
  EXPECT_EQ(bytesAt(s, 4096 + 20, 4), 6u);
}

// An integer parameter that indexes a module variable stays inside it; the element read there
// and compared is a count (another kernel's output); pointers stored in buffers get buffers.
TEST(Surface, AutoLaunchIndexBoundsCountsAndStoredPointers) {
  Module m = lower(R"(
.global .align 4 .b8 sizes[64];
.visible .entry k(.param .u32 bounce, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [bounce];
  mul.wide.s32 %rd1, %r1, 4;
  mov.u64 %rd2, sizes;
  add.s64 %rd3, %rd2, %rd1;
  ld.global.u32 %r2, [%rd3+16];
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r4, %r4, %r5, %tid.x;
  setp.ge.s32 %p1, %r4, %r2;
  @%p1 bra done;
  atom.global.add.u32 %r3, [%rd3+32], 1;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd5, %rd4;
  mul.wide.s32 %rd6, %r4, 4;
  add.s64 %rd7, %rd5, %rd6;
  st.global.u32 [%rd7], %r3;
done:
  ret;
}
)");
  // bounce * 4 + 16 + 4 <= 64: at most 11; bounce * 4 + 32 + 4 <= 64: at most 7. The count at
  // 7 * 4 + 16 = 44 is the launch's 256 threads.
  EXPECT_EQ(formatBindings(autoBindings(m, kernelOf(m), {})),
            "bounce=7 out=buf[4194304] @sizes={+44:256}");
  RunConfig cfg = autoLaunch(m, kernelOf(m), {});
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  EXPECT_TRUE(didRealWork(kernelOf(m), cfg, r));
  // Every thread passes (index < 256) and takes the next counter value, in launch order.
  for (uint32_t t : {0u, 1u, 100u, 255u})
    EXPECT_EQ(bytesAt(r.buffers.at("out"), 4 * t, 4), t);
  EXPECT_EQ(bytesAt(r.variables.at("sizes"), 60, 4), 256u); // the counter at 7 * 4 + 32

  Module m2 = lower(R"(
.const .align 8 .u64 mats;
.visible .entry k2(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.const.u64 %rd1, [mats];
  and.b64 %rd2, %rd1, -2;
  ld.u64 %rd3, [%rd2+8];
  ld.u32 %r1, [%rd3+4];
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd5, %rd4;
  st.global.u32 [%rd5], %r1;
  ret;
}
)");
  EXPECT_EQ(formatBindings(autoBindings(m2, kernelOf(m2), {})),
            "out=buf[4194304] @mats={+0:buf[4194304]{+8:buf[4194304]}}");
  cfg = autoLaunch(m2, kernelOf(m2), {});
  r = runKernel(m2, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 0, 4), 2u); // word 1 of the inner buffer: 1 % 17 + 1
}

// A buffer every load of which is used only as a float holds 1.0 words (a sample in [0, 1) or a
// cumulative distribution then keeps its invariants); a pointer used below itself (a reverse
// iterator) points into the middle of its buffer.
TEST(Surface, AutoLaunchFloatBuffersAndBackwardPointers) {
  Module m = lower(R"(
.visible .entry k(.param .u64 cdf, .param .u64 ints, .param .align 8 .b8 rev[8], .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [cdf];
  ld.param.u64 %rd2, [ints];
  ld.param.u64 %rd3, [rev];
  ld.param.u64 %rd4, [out];
  ld.global.f32 %f1, [%rd1+8];
  setp.ge.f32 %p1, %f1, 0f3F000000;
  ld.global.u32 %r1, [%rd2+8];
  ld.global.u32 %r2, [%rd3+-4];
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd4], %r3;
  st.global.u32 [%rd4+4], %r1;
  st.global.u32 [%rd4+8], %r2;
  ret;
}
)");
  EXPECT_EQ(
      formatBindings(autoBindings(m, kernelOf(m), {})),
      "cdf=buf[4194304]:f32 ints=buf[4194304] rev={+0:buf[4194304]+2097152} out=buf[4194304]");
  RunConfig cfg = autoLaunch(m, kernelOf(m), {});
  EXPECT_EQ(bytesAt(cfg.buffers.at("cdf"), 8, 4), 0x3f800000u); // 1.0f
  EXPECT_EQ(bytesAt(cfg.buffers.at("ints"), 8, 4), 3u);         // word 2: 2 % 17 + 1
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  const std::vector<uint8_t> &out = r.buffers.at("out");
  EXPECT_EQ(bytesAt(out, 0, 4), 1u); // 1.0 >= 0.5
  EXPECT_EQ(bytesAt(out, 4, 4), 3u);
  // rev points at byte 2097152 = word 524288 of its buffer; word 524287 below it holds
  // 524287 % 17 + 1 (524287 = 17 * 30840 + 7): 8.
  EXPECT_EQ(bytesAt(out, 8, 4), 8u);
}

} // namespace
} // namespace ori
