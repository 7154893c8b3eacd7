// Tests of the interpreter's memory: loads, stores, atomics, windows, banks and the module's
// variables (interp/interp.h; docs/interpreter.md, "Memory"). Every expected value is derived
// by hand in the comment beside it.
#include <gtest/gtest.h>

#include "interp_test_helpers.h"

namespace ori {
namespace {

using namespace ori::test;

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
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 8), 0xffffff80u); // S8 0x80 = -128, sign-extended to 32 bits only
  EXPECT_EQ(le(out, 0x08, 8), 0xffu);       // U8
  EXPECT_EQ(le(out, 0x10, 8), 0xffff8001u); // S16 0x8001
  EXPECT_EQ(le(out, 0x18, 8), 0x8001u);     // U16
  EXPECT_EQ(le(out, 0x20, 8), 0x12345678u);
  EXPECT_EQ(le(out, 0x28, 8), 0x1122334455667788u);
  EXPECT_EQ(le(out, 0x30, 2), 0x0078u);     // U8 store: low byte, next byte untouched
  EXPECT_EQ(le(out, 0x32, 2), 0x5678u);     // U16 store: low half
  EXPECT_EQ(le(out, 0x34, 4), 0x55667788u); // 32-bit store of a 64-bit register
  EXPECT_EQ(r.buffers["in"].size(), 16u);   // every bound buffer comes back
}

TEST(InterpMemory, SharedAndLocalWindows) {
  EXPECT_EQ(regAfter("MOV R1, 0x1234\nSTS [0x37ffc], R1\nLDS R3, [0x37ffc]"), 0x1234u);
  EXPECT_EQ(regAfter("MOV.64 R1, -0x2\nSTL.64 [0x7fff8], R1\nLDL.64 R3, [0x7fff8]"),
            0xfffffffffffffffeu);
  EXPECT_EQ(regAfter("MOV R1, 0x80\nSTL.U8 [0x10], R1\nLDL.S8 R3, [0x10]"), 0xffffff80u);
  EXPECT_EQ(regAfter("LDS R3, [0x100]"), 0u); // zero-initialised
  EXPECT_EQ(regAfter("MOV R2, 0x100\nMOV R1, 0x7\nSTS [R2-0x4], R1\nLDS R3, [0xfc]"), 7u);
  auto faultAt = [](const std::string &body) {
    RunResult r = run(".entry k()\n{\n" + body + "\nEXIT\n}\n");
    EXPECT_EQ(r.kind, Kind::Fault) << describe(r);
    return r.addr;
  };
  EXPECT_EQ(faultAt("STS [0x38000], RZ"), 0x38000u);
  EXPECT_EQ(faultAt("LDS.64 R1, [0x37ffc]"), 0x37ffcu); // misaligned 8-byte access
  EXPECT_EQ(faultAt("LDL R1, [0x80000]"), 0x80000u);
  EXPECT_EQ(faultAt("MOV R2, 0x2\nLDL R1, [R2]"), 0x2u); // misaligned
  EXPECT_EQ(faultAt("STS [RZ-0x4], RZ"),
            0xfffffffcu); // 32-bit: below 0 wraps to 2^32 - 4, past the window
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
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 0xdeadbeefu);
  EXPECT_EQ(le(out, 0x4, 4), 0x8001u);
  EXPECT_EQ(le(out, 0x8, 4), 0xffff8001u);
  EXPECT_EQ(le(out, 0xc, 4), 0x8001u);      // c[0][0x214] as 4 bytes: b then 2 padding zeros
  EXPECT_EQ(le(out, 0x10, 4), 0u);          // other banks read 0
  EXPECT_EQ(le(out, 0x18, 8), 0u);          // beyond the parameters reads 0
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
  RunResult past =
      run(".const .b32 ct[2] = {0x7, 0x9}\n.entry k()\n{\nLDC R1, c[0x3][0x8]\nEXIT\n}\n");
  EXPECT_EQ(past.kind, Kind::Fault) << describe(past);
  EXPECT_EQ(past.addr, 0x8u);
  RunResult store = run(".const .b32 ct[2] = {0x7, 0x9}\n.entry k()\n{\nS2R R2, SR_CWINBASE\nST.E "
                        "[R2], RZ\nEXIT\n}\n");
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
  const auto &buf = r.buffers["buf"];
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 10u);  // ADD returns the old value
  EXPECT_EQ(le(out, 0x28, 4), 15u); // EXCH saw 10+5
  EXPECT_EQ(le(buf, 0x0, 4), 0x2au);
  EXPECT_EQ(le(out, 0x4, 4), 20u);
  EXPECT_EQ(le(buf, 0x4, 4), 3u ^ 0xfu);   // unsigned min(20, 3) = 3, then RED.XOR 0xf
  EXPECT_EQ(le(out, 0x8, 4), 0xfffffffeu); // signed min(-2, 3) keeps -2 ...
  EXPECT_EQ(le(buf, 0x8, 4), 0xfffffffeu); // ... and unsigned max(0xfffffffe, 3) keeps it too
  EXPECT_EQ(le(out, 0xc, 4), 5u);          // INC: old 5 >= 5 -> 0
  EXPECT_EQ(le(out, 0x10, 4), 0u);         // INC: old 0 < 5 -> 1
  EXPECT_EQ(le(buf, 0xc, 4), 1u);
  EXPECT_EQ(le(out, 0x14, 4), 0u); // DEC: old 0 -> 9
  EXPECT_EQ(le(buf, 0x10, 4), 9u);
  EXPECT_EQ(le(out, 0x18, 4), 7u);    // CAS hit: 7 -> 0x63
  EXPECT_EQ(le(out, 0x1c, 4), 0x63u); // CAS miss: stays 0x63
  EXPECT_EQ(le(buf, 0x14, 4), 0x63u);
  EXPECT_EQ(le(out, 0x20, 8), 0xffffffffu); // 64-bit ADD: no 32-bit wrap
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
  RunResult mis =
      run(".entry k(.u64 out)\n{\nMOV.64 R1, c[0x0][0x210]\nLDG.E R2, [R1+0x2]\nEXIT\n}\n", cfg2);
  EXPECT_EQ(mis.kind, Kind::Fault);
  EXPECT_EQ(mis.addr, 0x10000002u);
  RunConfig empty;
  empty.buffers["out"] = {};
  RunResult e =
      run(".entry k(.u64 out)\n{\nMOV.64 R1, c[0x0][0x210]\nLDG.E.U8 R2, [R1]\nEXIT\n}\n", empty);
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
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 4), 0x13u);       // thread 0: g[2] = 3 + 0x10
  EXPECT_EQ(le(out, 0x18, 4), 0x13u);       // thread 1, in the same warp: also 3 + 0x10
  EXPECT_EQ(le(out, 32 * 0x18, 4), 0x23u);  // thread 32 sees the first warp's store
  EXPECT_EQ(le(out, 0x04, 4), 2u);          // g[1] through its generic address
  EXPECT_EQ(le(out, 0x08, 8), 0x10000000u); // MOV.64 R, g: g's generic address
  EXPECT_EQ(le(out, 0x10, 8), 0x10002000u); // h
  ASSERT_EQ(r.variables.count("g"), 1u);
  EXPECT_EQ(r.variables["g"],
            (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 0x23, 0, 0, 0, 4, 0, 0, 0}));
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
  EXPECT_EQ(st.kind, Kind::Fault) << describe(st); // the const space is read-only
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
  const auto &out = r.buffers["out"];
  for (size_t c : {0u, 0x18u}) {
    EXPECT_EQ(le(out, c + 0x0, 4), 8u);       // fs
    EXPECT_EQ(le(out, c + 0x4, 4), 0x10u);    // kb
    EXPECT_EQ(le(out, c + 0x8, 4), 0x12u);    // kh
    EXPECT_EQ(le(out, c + 0xc, 4), 0x14u);    // si
    EXPECT_EQ(le(out, c + 0x10, 4), 0x2au);   // si's initial value again in the second CTA
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
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x00, 4), 0u);    // lb[1] on the first call
  EXPECT_EQ(le(out, 0x08, 8), 0x10u); // MOV.64 R, lb: f's frame base + 0
  EXPECT_EQ(le(out, 0x10, 4), 0u);    // lb[1] on the second call: zeroed at frame entry
  EXPECT_EQ(le(out, 0x14, 4), 0x63u); // what the second call left behind
  EXPECT_EQ(le(out, 0x18, 4), 0u);    // MOV R, la
  EXPECT_EQ(le(out, 0x1c, 4), 0x11u); // la[2] through its generic address
  EXPECT_EQ(le(out, 0x20, 4), 0x22u); // a generic store at LWINBASE + 0xc is local 0xc
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
  EXPECT_EQ(regAfter("S2R R1, SR_SWINBASE\nIADD3.64 R2, R1, 0x1234, RZ\nIADD3.64 R3, R2, -R1, RZ"),
            0x1234u);
  auto faultAt = [](const std::string &body) {
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
  EXPECT_EQ(formatExit(r, "t.ori"),
            "error: state space mismatch: LDS at line 7 addresses 'g', a .global variable");
  cfg.params["which"] = 1;
  EXPECT_EQ(run(text, cfg).message,
            "state space mismatch: STL at line 9 addresses 's', a .shared variable");
  cfg.params["which"] = 2;
  EXPECT_EQ(run(text, cfg).message,
            "state space mismatch: LDG.E at line 10 addresses 'l', a .local variable");
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
  EXPECT_EQ(
      run(".entry k()\n{\n  .local .b8 x[0x80000]\n  STL.U8 [x+0x7ffff], RZ\n  EXIT\n}\n").kind,
      Kind::Ok);
}

TEST(InterpVariables, ConfigurationLimits) {
  auto err = [](const std::string &text) {
    RunResult r = run(text);
    EXPECT_EQ(r.kind, Kind::Error) << describe(r);
    return r.message;
  };
  EXPECT_NE(err(".shared .b8 s[0x38001]\n.entry k()\n{\n  EXIT\n}\n").find("shared window"),
            std::string::npos);
  // The other kernel's shared variables do not count.
  EXPECT_EQ(run(".entry a()\n{\n  .shared .b8 s[0x38000]\n  EXIT\n}\n.entry b()\n{\n  .shared .b8 "
                "t[0x38000]\n  EXIT\n}\n",
                withEntry("b"))
                .kind,
            Kind::Ok);
  std::string big;
  for (int i = 0; i < 5; ++i)
    big += ".const .b8 c" + std::to_string(i) + "[0x1000000]\n"; // 5 x 16 MiB
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
  Instr &call = m.functions[1].blocks[0].instrs[0];
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

} // namespace
} // namespace ori
