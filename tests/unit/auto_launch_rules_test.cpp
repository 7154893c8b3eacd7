// Issue 13's last corpus rules, each on a small kernel with hand-derived expectations:
// 32-bit shared and local addresses (LDS/STS/LDL/STL wrap modulo 2^32), TEX on a module's
// .texref (the old four-coordinate form), fields of a __constant__ array of structs indexed
// by CTA, products of integer parameters in a buffer's address, and products of __constant__
// counts in a shared address (interp/auto_launch.h, rules 4d, 5, 6 and 6b; docs/interpreter.md,
// "Automatic launches").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/auto_launch.h"
#include "interp/auto_launch_index.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "tests/unit/lower_ptx.h"

namespace ori {
namespace {

using Kind = RunResult::Kind;

uint64_t bytesAt(const std::vector<uint8_t> &b, size_t at, unsigned n) {
  uint64_t v = 0;
  for (unsigned k = 0; k < n && at + k < b.size(); ++k)
    v |= uint64_t(b[at + k]) << (8 * k);
  return v;
}

RunResult runOri(const std::string &text, const RunConfig &cfg) {
  ParseResult p = parseOri(text, "t.ori");
  if (!p.module) {
    ADD_FAILURE() << p.error->str() << "\n" << text;
    return {};
  }
  return runKernel(*p.module, cfg);
}

// LDS/STS take 32-bit addresses: a 32-bit register below the window's start plus an offset
// that brings it back (rodinia needle's [temp - 64 * tid + 68] for tid 1) is inside.
TEST(AutoLaunchRules, SharedAndLocalAddressesAre32Bit) {
  RunConfig cfg;
  cfg.entry = "k";
  cfg.buffers["out"] = std::vector<uint8_t>(16, 0);
  const std::string text = R"(.entry k(.u64 out)
{
  .shared .align 4 .b8 s[64]
  LDC.64 R20, c[0x0][0x210]
  MOV R1, 0xffffffc0
  MOV R2, 0x2a
  STS [R1+0x44], R2
  LDS R3, [RZ+0x4]
  STG.E [R20], R3
  STL [R1+0x48], R2
  LDL R4, [RZ+0x8]
  STG.E [R20+0x4], R4
  MOV R5, 0x4
  LDS R6, [R5+s]
  STG.E [R20+0x8], R6
  EXIT
}
)";
  RunResult r = runOri(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 0, 4), 42u); // 0xffffffc0 + 0x44 = 2^32 + 4 -> 4
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 4, 4), 42u); // 0xffffffc0 + 0x48 -> local 8
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 8, 4), 42u); // s is at shared 0: [4 + s] = 4

  // Wrapping does not hide an address outside the window: 0xfffffff0 + 4 is no window offset.
  RunResult f = runOri(R"(.entry k(.u64 out)
{
  MOV R1, 0xfffffff0
  LDS R3, [R1+0x4]
  EXIT
}
)",
                       cfg);
  EXPECT_EQ(f.kind, Kind::Fault);
  EXPECT_EQ(f.addr, 0xfffffff4u) << f.message;
}

const char *kTexref = R"(
.global .texref tr;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<3>;
  mov.f32 %f1, 0f40200000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000;
  tex.2d.v4.u32.f32 {%r1,%r2,%r3,%r4},[tr,{%f1,%f2,%f3,%f4}];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  st.global.u32 [%rd2+4], %r4;
  ret;
}
)";

// tex on a .texref, the old form with four coordinates for a 2-D texture: the symbol is the
// handle; the interpreter reads the surface bound under its name, automatic launches bind one.
TEST(AutoLaunchRules, TexrefFetch) {
  Module m = lower(kTexref);
  ASSERT_FALSE(m.functions.empty());
  const Function &k = kernelOf(m);
  bool tex = false;
  for (const Block &b : k.blocks)
    for (const Instr &in : b.instrs)
      if (in.op == Opcode::TEX) {
        tex = true;
        ASSERT_EQ(in.srcs.size(),
                  3u); // the handle and 2 coordinates (the old form's last 2 dropped)
        EXPECT_EQ(in.srcs[0].kind, Operand::Kind::Symbol);
        EXPECT_EQ(in.srcs[0].sym, "tr");
      }
  EXPECT_TRUE(tex);
  EXPECT_EQ(formatBindings(autoBindings(m, k, {})), "out=buf[4194304] @tr=texref2d#1");
  RunConfig cfg = autoLaunch(m, k, {});
  ASSERT_TRUE(cfg.surfaces.count("tr"));
  EXPECT_FALSE(cfg.surfaces.at("tr").normalized);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  // (2.5, 1.0) in texels: texel (2, 1) of 4096-byte rows, byte 4096 + 32 = word 1032; the
  // pattern k % 17 + 1 gives 1032 - 1020 + 1 = 13 there, 16 three words on (channel 3).
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 0, 4), 13u);
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 4, 4), 16u);
  EXPECT_TRUE(didRealWork(k, cfg, r));

  // An unbound reference is a fault that names it.
  cfg.surfaces.clear();
  r = runKernel(m, cfg);
  EXPECT_EQ(r.kind, Kind::Fault);
  EXPECT_NE(r.message.find("texture reference 'tr' is not bound"), std::string::npos) << r.message;

  // Emitted back as written (docs/ptx.md, "Round trip"), and by the emitter (no instruction
  // printed as read) as tex on the reference (2 coordinates), with its declaration.
  ptx::EmitResult e = ptx::emit(m);
  ASSERT_FALSE(e.error) << e.error->str();
  EXPECT_NE(e.text.find("tex.2d.v4.u32.f32 {%r1,%r2,%r3,%r4},[tr,{%f1,%f2,%f3,%f4}];"),
            std::string::npos)
      << e.text;
  Module lowered = m;
  for (Function &f : lowered.functions)
    f.ptxOrigins.reset();
  e = ptx::emit(lowered);
  ASSERT_FALSE(e.error) << e.error->str();
  EXPECT_NE(e.text.find(".global .texref tr;"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find(", [tr, {"), std::string::npos) << e.text;

  // In .ori text the reference is a symbol a `.ptx ".global .texref tr;"` line declares; a
  // symbol nothing declares is an error at the operand.
  const std::string body = ".entry k()\n{\n  TEX.2D.U32 R1, R2, R3, R4, tr, 1.0, 1.0\n  EXIT\n}\n";
  EXPECT_TRUE(parseOri(".ptx \".global .texref tr;\"\n" + body, "t.ori").module);
  ParseResult undeclared = parseOri(body, "t.ori");
  ASSERT_FALSE(undeclared.module);
  EXPECT_NE(undeclared.error->str().find("t.ori:3:30: error: 'tr' is no .texref of the module"),
            std::string::npos)
      << undeclared.error->str();

  // A .texref in a 3-D fetch keeps its four-element vector; a coordinate count that fits no
  // form is an error at the operand; a name that is no .texref leaves the fetch OPAQUE.
  ParseResult bad = ptx::parseAndLower(R"(.version 8.0
.target sm_90
.address_size 64
.global .texref tr;
.visible .entry k()
{
  .reg .b32 %r<5>;
  .reg .f32 %f<5>;
  tex.2d.v4.u32.f32 {%r1,%r2,%r3,%r4},[tr,{%f1,%f2,%f3}];
  ret;
}
)",
                                       "t.ptx");
  ASSERT_FALSE(bad.module);
  EXPECT_NE(bad.error->str().find("a 2d texture takes 2 coordinates, not 3"), std::string::npos)
      << bad.error->str();
  Module other = lower(R"(
.global .samplerref sm;
.visible .entry k()
{
  .reg .b32 %r<5>;
  .reg .f32 %f<5>;
  tex.2d.v4.u32.f32 {%r1,%r2,%r3,%r4},[sm,{%f1,%f2}];
  ret;
}
)");
  ASSERT_FALSE(other.functions.empty());
  EXPECT_EQ(kernelOf(other).blocks[0].instrs[0].op, Opcode::OPAQUE);
}

// Fields of a __constant__ array of structs (32 bytes: two pointers and a count) indexed by
// the CTA: each of the 2 CTAs' elements gets buffers and a count of its own.
TEST(AutoLaunchRules, ConstStructArrayIndexedByCta) {
  Module m = lower(R"(
.const .align 8 .b8 tab[96];
.visible .entry k()
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<12>;
  mov.u64 %rd1, tab;
  mov.u32 %r1, %ctaid.x;
  mul.wide.s32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  ld.const.u64 %rd4, [%rd3];
  ld.const.u64 %rd5, [%rd3+8];
  ld.const.u32 %r2, [%rd3+16];
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd6, %r3, 4;
  add.s64 %rd7, %rd4, %rd6;
  ld.global.u32 %r4, [%rd7];
  add.s32 %r5, %r4, %r2;
  add.s64 %rd8, %rd5, %rd6;
  st.global.u32 [%rd8], %r5;
  ret;
}
)");
  ASSERT_FALSE(m.functions.empty());
  const Function &k = kernelOf(m);
  // Elements 0 and 1 (ctaid 0..1): fields at 32e + 0, 8 (pointers) and 16 (a count).
  EXPECT_EQ(
      formatBindings(autoBindings(m, k, {})),
      "@tab={+0:buf[4194304] +8:buf[4194304] +16:256 +32:buf[4194304] +40:buf[4194304] +48:256}");
  RunConfig cfg = autoLaunch(m, k, {});
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  // Thread t of CTA 1 writes word t of element 1's out buffer: in's word t (t % 17 + 1) + 256.
  const std::vector<uint8_t> &out1 = r.buffers.at("@tab+0x28");
  EXPECT_EQ(bytesAt(out1, 0, 4), 257u);
  EXPECT_EQ(bytesAt(out1, 4 * 20, 4), 20u % 17 + 1 + 256);
  EXPECT_EQ(bytesAt(r.buffers.at("@tab+0x8"), 4 * 127, 4), 127u % 17 + 1 + 256);
}

// Products of integer parameters in a buffer's address: 64 * cols * rows bytes is 4 MiB with
// 256 each, past the buffer; cols (the first of the two equal ones) halves to 128, which keeps
// 64 * 128 * 256 + 4 * 127 + 4 = 2 MiB + 512 inside. A product that fits keeps 256.
TEST(AutoLaunchRules, ProductsOfParametersStayInTheBuffer) {
  Module m = lower(R"(
.visible .entry k(.param .u64 p, .param .u32 cols, .param .u32 rows)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [cols];
  ld.param.u32 %r2, [rows];
  shl.b32 %r3, %r1, 4;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r3, %r2, %r4;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)");
  ASSERT_FALSE(m.functions.empty());
  const Function &k = kernelOf(m);
  EXPECT_EQ(formatBindings(autoBindings(m, k, {})), "p=buf[4194304] cols=128 rows=256");
  RunConfig cfg = autoLaunch(m, k, {});
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  EXPECT_EQ(bytesAt(r.buffers.at("p"), 64 * 128 * 256 + 4 * 127, 4), 127u);
  // A bigger buffer holds the product of 256 and 256: nothing halves.
  AutoLaunchOptions big;
  big.bufferBytes = uint64_t(8) << 20;
  EXPECT_EQ(formatBindings(autoBindings(m, k, big)), "p=buf[8388608] cols=256 rows=256");
  // Never below one CTA's threads: with a 64 KiB buffer both stop at 128.
  AutoLaunchOptions small;
  small.bufferBytes = 65536;
  EXPECT_EQ(formatBindings(autoBindings(m, k, small)), "p=buf[65536] cols=128 rows=128");
}

// Rule 6b on rodinia hwt's shape: a shared index (j * rows + tid) whose factors grow with
// __constant__ counts, j a loop variable (cols - 1 down to 1: two definitions, no polynomial).
// j comes from cols (+4), rows is +0; +8 is a count outside any product. With 256 each the
// largest address is 4 * 256 * 256 = 256 KiB, past the 0x38000-byte (224 KiB) window: of the
// two equal largest counts the first factor's (j's: cols) halves to 128 (4 * 128 * 256 + 4 =
// 128 KiB + 4 fits). Run: j goes 127 down to 1, thread t stores t at word j * 256 + t and
// reads word 256 + t back (j = 1), plus the count at +8: out[t] = t + 256.
TEST(AutoLaunchRules, ConstCountProductsStayInTheSharedWindow) {
  Module m = lower(R"(
.const .align 4 .b8 dc[12];
.shared .align 4 .b8 tmp[1024];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.const.u32 %r1, [dc];
  ld.const.u32 %r2, [dc+4];
  ld.const.u32 %r9, [dc+8];
  mov.u32 %r3, %tid.x;
  mov.u32 %r6, tmp;
  mov.u32 %r4, %r2;
$L:
  add.s32 %r4, %r4, -1;
  mul.lo.s32 %r5, %r4, %r1;
  add.s32 %r5, %r5, %r3;
  shl.b32 %r7, %r5, 2;
  add.s32 %r8, %r6, %r7;
  st.shared.u32 [%r8], %r3;
  setp.gt.s32 %p1, %r4, 1;
  @%p1 bra $L;
  add.s32 %r10, %r1, %r3;
  shl.b32 %r11, %r10, 2;
  add.s32 %r12, %r6, %r11;
  ld.shared.u32 %r13, [%r12];
  add.s32 %r14, %r13, %r9;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r14;
  ret;
}
)");
  ASSERT_FALSE(m.functions.empty());
  const Function &k = kernelOf(m);
  EXPECT_EQ(formatBindings(autoBindings(m, k, {})), "out=buf[4194304] @dc={+0:256 +4:128 +8:256}");
  RunConfig cfg = autoLaunch(m, k, {});
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << r.message;
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 4 * 5, 4), 261u);
  EXPECT_EQ(bytesAt(r.buffers.at("out"), 4 * 127, 4), 383u);
  EXPECT_TRUE(didRealWork(k, cfg, r));
  // A product that fits keeps its counts: 4 * 200 * 200 + 4 = 160004 bytes.
  AutoLaunchOptions fits;
  fits.count = 200;
  EXPECT_EQ(formatBindings(autoBindings(m, k, fits)),
            "out=buf[4194304] @dc={+0:200 +4:200 +8:200}");
  // Never below one CTA's threads: 256 threads make the counts 512; cols halves to 256
  // (4 * 256 * 512 = 512 KiB still passes), then rows to 256 (256 KiB still passes, but both
  // are at the floor).
  AutoLaunchOptions wide;
  wide.threads = 256;
  EXPECT_EQ(formatBindings(autoBindings(m, k, wide)),
            "out=buf[4194304] @dc={+0:256 +4:256 +8:512}");
}

// The polynomial forms behind the rules: needle's index 16 * cols * (i + ~ctaid) + 16 * ctaid.
TEST(AutoLaunchRules, PolynomialForms) {
  Module m = lower(R"(
.visible .entry k(.param .u64 p, .param .u32 cols, .param .u32 i)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [cols];
  ld.param.u32 %r2, [i];
  mov.u32 %r3, %ctaid.x;
  not.b32 %r4, %r3;
  add.s32 %r5, %r4, %r2;
  shl.b32 %r6, %r1, 4;
  shl.b32 %r7, %r3, 4;
  mad.lo.s32 %r0, %r6, %r5, %r7;
  mul.wide.s32 %rd2, %r0, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)");
  ASSERT_FALSE(m.functions.empty());
  const Function &k = kernelOf(m);
  auto_detail::PolyFlow flow(m, k);
  const Instr *st = nullptr;
  for (const Block &b : k.blocks)
    for (const Instr &in : b.instrs)
      if (in.op == Opcode::STG)
        st = &in;
  ASSERT_NE(st, nullptr);
  std::optional<auto_detail::Poly> a = flow.address(st->srcs[0]);
  ASSERT_TRUE(a);
  // 4 * (16 cols (i - ctaid - 1) + 16 ctaid) + p = p + 64 cols i - 64 cols ctaid - 64 cols + 64
  // ctaid.
  const int64_t p = 0x210, cols = 0x218, i = 0x21c,
                ctaid = auto_detail::sregAtom(SpecialReg::CTAID_X);
  const int64_t none = auto_detail::kNoAtom;
  std::map<std::pair<int64_t, int64_t>, int64_t> want{{{p, none}, 1},
                                                      {{cols, i}, 64},
                                                      {{ctaid, cols}, -64},
                                                      {{cols, none}, -64},
                                                      {{ctaid, none}, 64}};
  EXPECT_EQ(a->terms, want);
  EXPECT_EQ(a->disp, 0);
  // cols = i = 256, ctaid in [0, 1], p = 0, each term bounded alone (interval arithmetic):
  // 64 * 256 * 256 + [-64 * 256, 0] - 64 * 256 + [0, 64].
  a->terms.erase({p, none});
  auto range =
      auto_detail::polyRange(*a, [&](int64_t atom) -> std::optional<std::pair<int64_t, int64_t>> {
        if (atom == ctaid)
          return std::pair<int64_t, int64_t>{0, 1};
        return std::pair<int64_t, int64_t>{256, 256};
      });
  ASSERT_TRUE(range);
  EXPECT_EQ(range->second, 64 * 256 * 256 - 64 * 256 + 64);
  EXPECT_EQ(range->first, 64 * 256 * 256 - 64 * 256 - 64 * 256);
}

} // namespace
} // namespace ori
