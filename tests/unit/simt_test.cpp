// Tests of the SIMT interpreter (interp/interp.h; docs/interpreter.md "Warps"):
// divergence and reconvergence, barriers, deadlock, and the warp-level
// instructions. Every expected value is derived by hand in the comment beside it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"

namespace ori {
namespace {

using Kind = RunResult::Kind;

RunResult run(const std::string &text, RunConfig cfg) {
  ParseResult p = parseOri(text, "t.ori");
  if (!p.module) {
    ADD_FAILURE() << p.error->str() << "\n" << text;
    return {};
  }
  return runKernel(*p.module, cfg);
}

RunConfig launch(Dim3 threads, size_t outBytes) {
  RunConfig cfg;
  cfg.threads = threads;
  cfg.buffers["out"] = std::vector<uint8_t>(outBytes, 0);
  return cfg;
}

uint32_t word(const RunResult &r, size_t k) {
  const std::vector<uint8_t> &b = r.buffers.at("out");
  uint32_t v = 0;
  for (size_t i = 0; i < 4 && 4 * k + i < b.size(); ++i)
    v |= uint32_t(b[4 * k + i]) << (8 * i);
  return v;
}

std::string describe(const RunResult &r) { return formatExit(r, "t.ori") + " (" + r.message + ")"; }

TEST(Simt, DivergenceInsideALoop) {
  // Lane l runs the loop n = l % 4 + 1 times and records the active mask of each iteration
  // in out[5l + i]; after the loop, in out[5l + 4]. Iteration i runs in the lanes with
  // l % 4 >= i: 0xffffffff, 0xeeeeeeee (l % 4 in 1..3), 0xcccccccc, 0x88888888. The lanes
  // leave the loop at different iterations and wait at its exit (the branch's immediate
  // post-dominator), so the mask after it is 0xffffffff.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_LANEID
  LOP3.LUT R1, R0, 0x3, RZ, 0xc0
  IADD3 R1, R1, 0x1, RZ
  MOV R2, RZ
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x14, R10
loop:
  VOTE.ANY R3, PT, PT
  IMAD.WIDE.U32 R12, R2, 0x4, R10
  STG.E [R12], R3
  IADD3 R2, R2, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R2, R1, PT
  @P0 BRA loop
  VOTE.ANY R3, PT, PT
  STG.E [R10+0x10], R3
  EXIT
})";
  RunResult r = run(text, launch(32, 32 * 20));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const uint32_t masks[] = {0xffffffffu, 0xeeeeeeeeu, 0xccccccccu, 0x88888888u};
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < 4; ++i)
      EXPECT_EQ(word(r, 5 * l + i), i <= l % 4 ? masks[i] : 0u) << l << " " << i;
    EXPECT_EQ(word(r, 5 * l + 4), 0xffffffffu) << l;
  }
  // Warp instructions: 6 before the loop, 6 per iteration (the longest lane runs 4), 3 after.
  EXPECT_EQ(r.warpSteps, 6u + 4 * 6 + 3);
  // Lane instructions (a warp instruction counts its active lanes): 32 * (6 + 3) outside the
  // loop; in it 6 per lane per iteration, and each group of four lanes runs 1 + 2 + 3 + 4
  // iterations, 8 groups.
  EXPECT_EQ(r.laneSteps, 32u * 9 + 6 * 8 * (1 + 2 + 3 + 4));
}

TEST(Simt, NestedDivergenceWithEarlyExits) {
  // P0 = lane < 16 branches to `low`, so the fall-through side (lanes 16-31) runs first
  // (docs/interpreter.md: the fall-through side of a divergent branch runs first); an atomic
  // counter records the order: lanes 16-31 draw 0-15, then lanes 0-15 draw 16-31.
  // In `low`, odd lanes record their ballot (0xaaaa: the odd lanes below 16) and exit; the
  // even ones record theirs (0x5555). In the high side, lanes 24-31 exit; 16-23 record 0xff0000.
  // out[l]: first ballot, out[32 + l]: the one at `join`, out[64 + l]: the order, out[96]: the
  // counter.
  //
  // Without a BSSY region: both sides can exit, so only the function's exit post-dominates
  // the branches and nothing reconverges at `join`: lanes 16-23 record 0xff0000 there, the
  // even lanes below 16 0x5555. With `BSSY B0, join` first, the lanes reconverge at the BSYNC
  // in `join` (lanes that exited are gone): the survivors record 0x00ff5555 together.
  const std::string body = R"(
  S2R R0, SR_LANEID
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R12, R0, 0x4, R10
  ISETP.LT.U32.AND P0, PT, R0, 0x10, PT
  @P0 BRA low
  ATOM.E.ADD R5, [R10+0x180], 0x1
  STG.E [R12+0x100], R5
  ISETP.GE.U32.AND P1, PT, R0, 0x18, PT
  @P1 EXIT
  VOTE.ANY R3, PT, PT
  STG.E [R12], R3
  BRA join
low:
  ATOM.E.ADD R5, [R10+0x180], 0x1
  STG.E [R12+0x100], R5
  LOP3.LUT R1, R0, 0x1, RZ, 0xc0
  ISETP.NE.U32.AND P2, PT, R1, RZ, PT
  @!P2 BRA even
  VOTE.ANY R3, PT, PT
  STG.E [R12], R3
  EXIT
even:
  VOTE.ANY R3, PT, PT
  STG.E [R12], R3
join:
)";
  const std::string tail = "  VOTE.ANY R3, PT, PT\n  STG.E [R12+0x80], R3\n  EXIT\n}\n";
  for (bool region : {false, true}) {
    std::string text = ".entry k(.u64 out)\n{\n" + std::string(region ? "  BSSY B0, join" : "") +
                       body + (region ? "  BSYNC B0\n" : "") + tail;
    RunResult r = run(text, launch(32, 97 * 4));
    ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
    EXPECT_EQ(r.threadsRun, 32u);
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t first = l < 16 ? (l % 2 ? 0xaaaau : 0x5555u) : l < 24 ? 0xff0000u : 0u;
      bool survives = (l < 16 && l % 2 == 0) || (l >= 16 && l < 24);
      uint32_t atJoin = !survives ? 0u : region ? 0x00ff5555u : l < 16 ? 0x5555u : 0xff0000u;
      EXPECT_EQ(word(r, l), first) << l;
      EXPECT_EQ(word(r, 32 + l), atJoin) << l << (region ? " with the region" : "");
      EXPECT_EQ(word(r, 64 + l), l < 16 ? l + 16 : l - 16) << l;
    }
    EXPECT_EQ(word(r, 96), 32u);
  }
}

TEST(Simt, BsyncRegionOutlivesTheImmediatePostDominator) {
  // The two sides of the branch meet at `mid` (its immediate post-dominator), but the BSSY
  // region ends at `done`: with BSSY/BSYNC the halves reconverge only at the BSYNC, so the
  // VOTE at `mid` runs once per half (0xffff0000 for the fall-through half, which runs first,
  // then 0x0000ffff); without them, once for the whole warp.
  const std::string body = R"(
  S2R R0, SR_LANEID
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R12, R0, 0x4, R10
  ISETP.LT.U32.AND P0, PT, R0, 0x10, PT
  @P0 BRA left
  IADD3 R1, R0, 0x1, RZ
  BRA mid
left:
  IADD3 R1, R0, 0x2, RZ
mid:
  VOTE.ANY R3, PT, PT
  STG.E [R12], R3
  ATOM.E.ADD R5, [R10+0x80], 0x1
  STG.E [R12+0x100], R5
done:
)";
  const std::string withRegion =
      ".entry k(.u64 out)\n{\n  BSSY B0, done" + body + "  BSYNC B0\n  EXIT\n}\n";
  const std::string without = ".entry k(.u64 out)\n{" + body + "  EXIT\n}\n";
  RunResult a = run(withRegion, launch(32, 0x180));
  ASSERT_EQ(a.kind, Kind::Ok) << describe(a);
  RunResult b = run(without, launch(32, 0x180));
  ASSERT_EQ(b.kind, Kind::Ok) << describe(b);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(word(a, l), l < 16 ? 0x0000ffffu : 0xffff0000u) << l;
    EXPECT_EQ(word(b, l), 0xffffffffu) << l;
    // The atomic after the VOTE: with the region the high half (run first) draws 0-15;
    // reconverged, the lanes draw in lane order.
    EXPECT_EQ(word(a, 64 + l), l < 16 ? l + 16 : l - 16) << l;
    EXPECT_EQ(word(b, 64 + l), l) << l;
  }
}

TEST(Simt, SharedMemoryTreeReductionWithBarriers) {
  // 128 threads (4 warps) sum tid + 1 into shared[0]: 1 + ... + 128 = 8256. Every step
  // reads what other warps wrote (stride 64, 32: across warps), so a missing barrier would
  // read zeros; thread 0 stores the sum. The CTA runs twice (2 CTAs) with fresh shared memory.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  S2R R9, SR_CTAID.X
  IADD3 R1, R0, 0x1, RZ
  SHF.L.U32 R2, R0, 0x2, RZ
  STS [R2], R1
  BAR.SYNC 0x0
  MOV R3, 0x40
step:
  ISETP.GE.U32.AND P0, PT, R0, R3, PT
  @P0 BRA skip
  IADD3 R4, R0, R3, RZ
  SHF.L.U32 R4, R4, 0x2, RZ
  LDS R5, [R4]
  LDS R6, [R2]
  IADD3 R6, R6, R5, RZ
  STS [R2], R6
skip:
  BAR.SYNC 0x0
  SHF.R.U32.HI R3, RZ, 0x1, R3
  ISETP.NE.U32.AND P1, PT, R3, RZ, PT
  @P1 BRA step
  ISETP.NE.U32.AND P2, PT, R0, RZ, PT
  @P2 EXIT
  LDS R7, [RZ]
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R9, 0x4, R10
  STG.E [R10], R7
  EXIT
})";
  RunConfig cfg = launch(128, 8);
  cfg.ctas = 2;
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(word(r, 0), 8256u);
  EXPECT_EQ(word(r, 1), 8256u);
  EXPECT_EQ(r.threadsRun, 256u);
}

TEST(Simt, BarrierReductions) {
  // BAR.RED over 64 threads (2 warps) with the predicate tid % 3 == 0: 22 of them (0, 3, ...,
  // 63). POPC gives 22 to every thread, AND false, OR true. out[tid] = popc | and << 8 | or << 9.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  IMAD.HI.U32 R1, R0, 0xaaaaaaab, RZ
  SHF.R.U32.HI R1, RZ, 0x1, R1
  IMAD R1, R1, -0x3, R0
  ISETP.EQ.U32.AND P0, PT, R1, RZ, PT
  BAR.RED.POPC R2, 0x0, P0
  BAR.RED.AND P1, 0x1, P0
  BAR.RED.OR P2, 0x2, P0
  SEL R3, RZ, 0x100, !P1
  SEL R4, RZ, 0x200, !P2
  LOP3.LUT R2, R2, R3, R4, 0xfe
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  STG.E [R10], R2
  EXIT
})";
  RunResult r = run(text, launch(64, 64 * 4));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  for (uint32_t t = 0; t < 64; ++t)
    EXPECT_EQ(word(r, t), 22u | 0u << 8 | 1u << 9) << t;
}

TEST(Simt, ABarrierOneWarpSkipsDeadlocks) {
  // Warp 0 waits at barrier 0 for all 64 threads; warp 1 skips it and waits at barrier 1,
  // which warp 0 can reach only after barrier 0: neither barrier can complete.
  const std::string text = R"(.entry k()
{
  S2R R0, SR_TID.X
  ISETP.GE.U32.AND P0, PT, R0, 0x20, PT
  @P0 BRA skip
  BAR.SYNC 0x0
  BAR.SYNC 0x1
  EXIT
skip:
  BAR.SYNC 0x1
  EXIT
})";
  RunConfig cfg;
  cfg.threads = 64;
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Deadlock) << describe(r);
  EXPECT_EQ(r.thread, 0u); // the first waiting warp's first lane
  EXPECT_EQ(r.mnemonic, "BAR.SYNC");
  EXPECT_EQ(r.line, 6u);
  EXPECT_EQ(formatExit(r, "t.ori"), "exit: deadlock thread=0");
  EXPECT_NE(r.message.find("warp 0 waits at barrier 0 (line 6: 32 of 64 threads arrived)"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("warp 1 waits at barrier 1 (line 10: 32 of 64 threads arrived)"),
            std::string::npos)
      << r.message;

  // If warp 1 exits instead, barrier 0 is released (PTX: exiting threads that hold up a
  // barrier for all the CTA's threads release it); with a thread count of 64 it is not.
  const std::string exits =
      ".entry k()\n{\n  S2R R0, SR_TID.X\n  ISETP.GE.U32.AND P0, PT, R0, 0x20, PT\n"
      "  @P0 EXIT\n  BAR.SYNC 0x0\n  EXIT\n}\n";
  EXPECT_EQ(run(exits, cfg).kind, Kind::Ok);
  const std::string counted =
      ".entry k()\n{\n  S2R R0, SR_TID.X\n  ISETP.GE.U32.AND P0, PT, R0, 0x20, PT\n"
      "  @P0 EXIT\n  BAR.SYNC 0x0, 0x40\n  EXIT\n}\n";
  RunResult c = run(counted, cfg);
  EXPECT_EQ(c.kind, Kind::Deadlock) << describe(c);
  EXPECT_EQ(c.threadsRun, 32u);
}

TEST(Simt, ShuffleReductions) {
  // v = lane + 1. BFLY by 16, 8, 4, 2, 1 leaves every lane with 1 + ... + 32 = 528. DOWN by
  // the same offsets leaves lane 0 with 528 (it only ever reads lanes whose partial sums are
  // complete). A lane whose source is out of range reads its own value, so v + v doubles it:
  // lane 31 never has a source in range (31 + k > 31): 32 * 2^5 = 1024; lane 30 doubles four
  // times (31 * 16 = 496) and then reads lane 31's 512 at offset 1: 1008. out[l]: bfly,
  // out[32 + l]: down, out[64 + l]: IDX from lane 5 (6), out[96 + l]: UP by 1 (lane l - 1's
  // value l, lane 0 its own 1) with its predicate in bit 8 (false for lane 0 only).
  std::string text =
      ".entry k(.u64 out)\n{\n  S2R R0, SR_LANEID\n  IADD3 R1, R0, 0x1, RZ\n  MOV R2, R1\n";
  for (const char *k : {"0x10", "0x8", "0x4", "0x2", "0x1"})
    text += std::string("  SHFL.BFLY PT, R3, R1, ") + k + ", 0x1f\n  IADD3 R1, R1, R3, RZ\n" +
            "  SHFL.DOWN PT, R4, R2, " + k + ", 0x1f\n  IADD3 R2, R2, R4, RZ\n";
  text += R"(  IADD3 R5, R0, 0x1, RZ
  SHFL.IDX PT, R6, R5, 0x5, 0x1f
  SHFL.UP P0, R7, R5, 0x1, 0x0
  SEL R8, RZ, 0x100, !P0
  IADD3 R7, R7, R8, RZ
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  STG.E [R10], R1
  STG.E [R10+0x80], R2
  STG.E [R10+0x100], R6
  STG.E [R10+0x180], R7
  EXIT
}
)";
  RunResult r = run(text, launch(32, 128 * 4));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(word(r, l), 528u) << l;
    EXPECT_EQ(word(r, 96 + l), l == 0 ? 1u : l | 0x100u) << l;
    EXPECT_EQ(word(r, 64 + l), 6u) << l;
  }
  EXPECT_EQ(word(r, 32 + 0), 528u);
  EXPECT_EQ(word(r, 32 + 31), 1024u);
  EXPECT_EQ(word(r, 32 + 30), 1008u);
}

TEST(Simt, ShuffleSegmentsAndInactiveLanes) {
  // c = 0x181f, CUDA's __shfl_sync(m, v, 2, 8): segment mask 0x18 (bits 12..8: segments of
  // 8 lanes), clamp 0x1f. IDX 2: j = (lane & 0x18) | 2, within the segment's bound
  // (lane & 0x18) | 7, so each lane reads lane 2 of its segment: (lane & ~7) + 2 + 1.
  // Then only lanes 0-15 remain (the others exit) and shuffle DOWN by 16.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_LANEID
  IADD3 R1, R0, 0x1, RZ
  SHFL.IDX PT, R2, R1, 0x2, 0x181f
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  STG.E [R10], R2
  ISETP.GE.U32.AND P0, PT, R0, 0x10, PT
  @P0 EXIT
  SHFL.DOWN P1, R3, R1, 0x10, 0x1f
  SEL R4, RZ, 0x100, !P1
  IADD3 R3, R3, R4, RZ
  STG.E [R10+0x80], R3
  EXIT
})";
  RunResult r = run(text, launch(32, 64 * 4));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(word(r, l), (l & ~7u) + 3) << l;
  // Lane l < 16: j = l + 16 <= 31, so the predicate is true (bit 8), but lane j has exited:
  // the lane reads its own value.
  for (uint32_t l = 0; l < 16; ++l)
    EXPECT_EQ(word(r, 32 + l), (l + 1) | 0x100u) << l;
}

TEST(Simt, VoteBallotUnderDivergence) {
  // Lanes with lane % 3 == 0 (0, 3, ..., 30: mask 0x49249249) take the branch; the others
  // (0xb6db6db6) run first. Fall-through side: VOTE.ALL of lane < 31 is false (lane 31 is
  // there); its ballot is the lanes below 31: 0x36db6db6. Taken side: VOTE.ANY of lane < 10
  // has ballot {0, 3, 6, 9} = 0x249, true. VOTE.EQ of lane < 10 on the taken side: false.
  // out[l] = ballot, out[32 + l] = predicate (ALL/ANY) | EQ << 1.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_LANEID
  IMAD.HI.U32 R1, R0, 0xaaaaaaab, RZ
  SHF.R.U32.HI R1, RZ, 0x1, R1
  IMAD R1, R1, -0x3, R0
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  ISETP.EQ.U32.AND P0, PT, R1, RZ, PT
  @P0 BRA three
  ISETP.LT.U32.AND P1, PT, R0, 0x1f, PT
  VOTE.ALL R3, P2, P1
  VOTE.EQ RZ, P3, P1
  BRA done
three:
  ISETP.LT.U32.AND P1, PT, R0, 0xa, PT
  VOTE.ANY R3, P2, P1
  VOTE.EQ RZ, P3, P1
done:
  SEL R4, RZ, 0x1, !P2
  SEL R5, RZ, 0x2, !P3
  IADD3 R4, R4, R5, RZ
  STG.E [R10], R3
  STG.E [R10+0x80], R4
  EXIT
})";
  RunResult r = run(text, launch(32, 64 * 4));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  for (uint32_t l = 0; l < 32; ++l) {
    bool taken = l % 3 == 0;
    EXPECT_EQ(word(r, l), taken ? 0x249u : 0x36db6db6u) << l;
    EXPECT_EQ(word(r, 32 + l), taken ? 1u : 0u) << l;
  }
}

TEST(Simt, MatchAndRedux) {
  // 32 lanes, a = lane % 4. MATCH.ANY: the lanes with the same a: 0x11111111 << (lane % 4).
  // MATCH.ALL on a: not all equal, so 0 and false; on a constant 7: all 32 lanes and true.
  // REDUX.SUM of lane + 1: 528. REDUX.MIN.S32 of lane - 16: -16; REDUX.MAX (unsigned) of
  // lane - 16: lane 15's 0xffffffff. REDUX.XOR of lane: 0 (each bit is set in 16 lanes).
  // REDUX.AND of lane | 0x100: 0x100. Then lanes 16-31 exit and REDUX.OR of 1 << lane over
  // the other 16: 0xffff.
  // out[9 * lane + k] for the nine results; out[9 * lane + 7] = the two MATCH.ALL
  // predicates: false | true << 1 = 2; out[9 * lane + 8] = the REDUX.AND.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_LANEID
  LOP3.LUT R1, R0, 0x3, RZ, 0xc0
  MATCH.ANY R2, PT, R1
  MATCH.ALL R3, P0, R1
  MOV R20, 0x7
  MATCH.ALL R4, P1, R20
  IADD3 R5, R0, 0x1, RZ
  REDUX.SUM R6, R5
  IADD3 R7, R0, -0x10, RZ
  REDUX.MIN.S32 R8, R7
  REDUX.MAX R9, R7
  REDUX.XOR R12, R0
  LOP3.LUT R13, R0, 0x100, RZ, 0xfc
  REDUX.AND R14, R13
  SEL R15, RZ, 0x1, !P0
  SEL R16, RZ, 0x2, !P1
  IADD3 R15, R15, R16, RZ
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x24, R10
  STG.E [R10+0x20], R14
  STG.E [R10], R2
  STG.E [R10+0x4], R3
  STG.E [R10+0x8], R4
  STG.E [R10+0xc], R6
  STG.E [R10+0x10], R8
  STG.E [R10+0x14], R9
  STG.E [R10+0x18], R12
  STG.E [R10+0x1c], R15
  ISETP.GE.U32.AND P2, PT, R0, 0x10, PT
  @P2 EXIT
  MOV R18, 0x1
  SHF.L.U32 R18, R18, R0, RZ
  REDUX.OR R19, R18
  STG.E [R10+0x1c], R19
  EXIT
})";
  RunResult r = run(text, launch(32, 32 * 36));
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(word(r, 9 * l + 0), 0x11111111u << (l % 4)) << l;
    EXPECT_EQ(word(r, 9 * l + 1), 0u) << l;
    EXPECT_EQ(word(r, 9 * l + 2), 0xffffffffu) << l;
    EXPECT_EQ(word(r, 9 * l + 3), 528u) << l;
    EXPECT_EQ(word(r, 9 * l + 4), 0xfffffff0u) << l;
    EXPECT_EQ(word(r, 9 * l + 5), 0xffffffffu) << l;
    EXPECT_EQ(word(r, 9 * l + 6), 0u) << l;
    // Lanes below 16 overwrite the predicates' word with the REDUX.OR.
    EXPECT_EQ(word(r, 9 * l + 7), l < 16 ? 0xffffu : 2u) << l;
    EXPECT_EQ(word(r, 9 * l + 8), 0x100u) << l;
  }
}

TEST(Simt, SpecialRegistersOfA3dLaunch) {
  // --threads 8x4x2 --ctas 2x3: thread (x, y, z) has index x + 8y + 32z; warp = index / 32
  // = z, lane = x + 8y. out[index + 64 * cta] = tid.x | tid.y << 4 | tid.z << 8 | warp << 12
  // | lane << 16 | ctaid.y << 24 | nwarpid << 28; cta = ctaid.x + 2 * ctaid.y.
  // out[768 + lane] holds LANEMASK_LT (every CTA stores the same): lane 5's is 0x1f.
  const std::string text = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  S2R R1, SR_TID.Y
  S2R R2, SR_TID.Z
  S2R R3, SR_WARPID
  S2R R4, SR_LANEID
  S2R R5, SR_CTAID.Y
  S2R R6, SR_NWARPID
  S2R R7, SR_CTAID.X
  S2R R8, SR_LANEMASK_LT
  LEA R9, R1, R0, 0x4
  LEA R9, R2, R9, 0x8
  LEA R9, R3, R9, 0xc
  LEA R9, R4, R9, 0x10
  LEA R9, R5, R9, 0x18
  LEA R9, R6, R9, 0x1c
  LEA R12, R5, R7, 0x1
  IMAD R13, R2, 0x20, R4
  LEA R13, R12, R13, 0x6
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R14, R13, 0x4, R10
  STG.E [R14], R9
  IMAD.WIDE.U32 R14, R4, 0x4, R10
  STG.E [R14+0xc00], R8
  EXIT
})";
  RunConfig cfg = launch(Dim3(8, 4, 2), (768 + 32) * 4);
  cfg.ctas = Dim3(2, 3, 1);
  RunResult r = run(text, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(r.threadsRun, 6u * 64);
  for (uint32_t cy = 0; cy < 3; ++cy)
    for (uint32_t cx = 0; cx < 2; ++cx)
      for (uint32_t z = 0; z < 2; ++z)
        for (uint32_t y = 0; y < 4; ++y)
          for (uint32_t x = 0; x < 8; ++x) {
            uint32_t index = x + 8 * y + 32 * z, lane = x + 8 * y, cta = cx + 2 * cy;
            EXPECT_EQ(word(r, index + 64 * cta),
                      x | y << 4 | z << 8 | z << 12 | lane << 16 | cy << 24 | 2u << 28);
          }
  EXPECT_EQ(word(r, 768 + 5), 0x1fu);
  EXPECT_EQ(word(r, 768 + 0), 0u);
}

TEST(Simt, LaunchBounds) {
  const std::string text = ".entry k()\n{\n  EXIT\n}\n";
  RunConfig cfg;
  cfg.threads = 1025;
  EXPECT_EQ(run(text, cfg).kind, Kind::Error);
  cfg.threads = Dim3(1, 1, 65);
  EXPECT_EQ(run(text, cfg).kind, Kind::Error);
  cfg.threads = Dim3(32, 32, 1);
  EXPECT_EQ(run(text, cfg).kind, Kind::Ok);
  cfg.ctas = Dim3(1u << 20, 1, 1); // 2^30 threads in all
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Error);
  EXPECT_NE(r.message.find("at most"), std::string::npos) << r.message;
}

TEST(Simt, StepBudgetCountsWarpInstructions) {
  // 64 threads run 3 instructions each: 2 warps x 3 = 6 warp instructions, 192 lane ones.
  const std::string text = ".entry k()\n{\n  MOV R0, 0x1\n  MOV R1, 0x2\n  EXIT\n}\n";
  RunConfig cfg;
  cfg.threads = 64;
  cfg.maxSteps = 6;
  RunResult r = run(text, cfg);
  EXPECT_EQ(r.kind, Kind::Ok) << describe(r);
  EXPECT_EQ(r.warpSteps, 6u);
  EXPECT_EQ(r.laneSteps, 192u);
  cfg.maxSteps = 5;
  EXPECT_EQ(run(text, cfg).kind, Kind::Timeout);
}

} // namespace
} // namespace ori
