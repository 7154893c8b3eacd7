// Tests of the interpreter's control flow, threads, unsupported instructions and configuration
// errors (interp/interp.h; docs/interpreter.md). Every expected value is derived by hand in the
// comment beside it.
#include <gtest/gtest.h>

#include "interp_test_helpers.h"

namespace ori {
namespace {

using namespace ori::test;

// ---------------------------------------------------------------- control flow

TEST(InterpControl, LoopsBranchesAndGuards) {
  // sum 1..10 = 55.
  EXPECT_EQ(regAfter(R"(  MOV R3, RZ
  MOV R2, 0x1
loop:
  IADD3 R3, R3, R2, RZ
  IADD3 R2, R2, 0x1, RZ
  ISETP.LE.AND P0, PT, R2, 0xa, PT
  @P0 BRA loop)"),
            55u);
  // A false guard skips the instruction; a guarded BRA falls through.
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@P0 MOV R3, 0x2\n@!P0 IADD3 R3, R3, 0x10, RZ"), 0x11u);
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@P0 BRA skip\nMOV R3, 0x2\nskip:"), 2u);
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@!P0 BRA skip\nMOV R3, 0x2\nskip:"), 1u);
  // A guarded-off OPAQUE does nothing.
  EXPECT_EQ(regAfter("MOV R3, 0x1\n@!PT OPAQUE \"FCHK P0, R1, R2\" def(P0) use(R1, R2)"), 1u);
  // Convergence and NOP are no-ops; BAR is a no-op with one thread per CTA.
  EXPECT_EQ(
      regAfter(
          "BSSY B0, join\nMOV R3, 0x5\nBSYNC B0\njoin:\nWARPSYNC 0xffffffff\nNOP\nBAR.SYNC 0x0"),
      5u);
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
  auto with = [&](const char *idx) {
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
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);   // RET with an empty call stack ends the thread
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
  const auto &out = r.buffers["out"];
  EXPECT_EQ(le(out, 0x0, 4), 0x16u);               // 3 * 5 + 7 (b's low 32 bits)
  EXPECT_EQ(le(out, 0x4, 4), 0x77u);               // the caller's R3 survives the callee's
  EXPECT_EQ(le(out, 0x8, 8), 0xffffffff00000208u); // 3 * 0xab + 7 = 0x208, high half kept
  EXPECT_EQ(le(out, 0x10, 4), 0u);                 // peek's R9 is 0, not the caller's 0x55
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
  const std::string call =
      ".func f()\n{\n  .param .b8 big[0x10000]\n  RET\n}\n.entry k()\n{\n  CALL f\n  EXIT\n}\n";
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
  const auto &out = r.buffers["out"];
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

// ---------------------------------------------------------------- unsupported

RunResult runBody(const std::string &body, uint32_t threads = 1) {
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
    const char *body;
    const char *mnemonic;
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
  for (const Case &c : cases) {
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
  RunResult r =
      run(".entry a()\n{\n  EXIT\n}\n.entry b()\n{\n  CALL a\n  EXIT\n}\n", withEntry("b"));
  EXPECT_EQ(r.kind, Kind::Unsupported);
  EXPECT_EQ(r.line, 7u);
}

// ---------------------------------------------------------------- configuration errors

TEST(InterpErrors, ParametersAndEntries) {
  const std::string text = ".entry k(.u32 n, .u64 out)\n{\n  EXIT\n}\n";
  auto err = [&](RunConfig cfg, const std::string &t) {
    RunResult r = run(t, cfg);
    EXPECT_EQ(r.kind, Kind::Error);
    return formatExit(r, "t.ori");
  };
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(4);
  EXPECT_EQ(err(cfg, text),
            "error: parameter 'n' is not bound (use --param n=VALUE)"); // .u32: no buffer
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

  const std::string two =
      ".entry a()\n{\n  EXIT\n}\n.entry b()\n{\n  EXIT\n}\n.func f()\n{\n  RET\n}\n";
  EXPECT_NE(err({}, two).find("choose one with --entry"), std::string::npos);
  EXPECT_EQ(run(two, withEntry("b")).kind, Kind::Ok);
  EXPECT_EQ(err(withEntry("f"), two), "error: 'f' is a .func, not an .entry kernel");
  EXPECT_EQ(err(withEntry("zz"), two), "error: no kernel named 'zz' in the module");
  EXPECT_NE(err({}, ".func f()\n{\n  RET\n}\n").find("no .entry"), std::string::npos);
  EXPECT_NE(err(withThreads(0), ".entry a()\n{\n  EXIT\n}\n").find("at least 1"),
            std::string::npos);
}

TEST(InterpErrors, MalformedIrIsReportedNotCrashed) {
  Module m = parse(".entry k()\n{\n  BRA end\nend:\n  EXIT\n}\n");
  ASSERT_FALSE(m.functions.empty());
  m.functions[0].blocks[0].instrs[0].srcs[0].target = 99; // a target that does not exist
  EXPECT_EQ(runKernel(m, {}).kind, Kind::Error);
  m.functions[0].blocks[0].instrs[0].srcs.clear(); // a missing operand
  EXPECT_EQ(runKernel(m, {}).kind, Kind::Error);
  Module n = parse(".entry k()\n{\n  MOV R1, 0x1\n  EXIT\n}\n");
  n.functions[0].blocks[0].instrs.pop_back(); // falls off the end
  EXPECT_EQ(runKernel(n, {}).kind, Kind::Error);
}

} // namespace
} // namespace ori
