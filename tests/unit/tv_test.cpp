// Translation validation (verify/tv.h) on hand-written source/target pairs: changes that keep
// behaviour are proved, wrong ones refuted with a reason, and what the encoding cannot see
// (unmodelled instructions, paths beyond the unroll bound) is unknown, never proved.
#include <gtest/gtest.h>

#include <string>

#include "ir/ori.h"
#include "verify/tv.h"

namespace {

using ori::verify::TvResult;

ori::Module parse(const std::string &text) {
  ori::ParseResult r = ori::parseOri(text, "tv.ori");
  if (r.error)
    throw std::runtime_error(r.error->str());
  return std::move(*r.module);
}

// Every refutation with inputs comes with a replay (unless barriers stop it), and the replay
// is run on both sides: the runs must really differ.
TvResult check(const std::string &src, const std::string &tgt, unsigned unroll = 4,
               unsigned inlineDepth = 3) {
  ori::verify::TvOptions o;
  o.inlineDepth = inlineDepth;
  o.unroll = unroll;
  o.timeoutSeconds = 60;
  ori::Module s = parse(src), t = parse(tgt);
  TvResult r = ori::verify::validateFunction(s, t, "k", o);
  if (r.verdict == TvResult::Verdict::Refuted) {
    EXPECT_TRUE(r.replay || !r.noReplay.empty()) << r.line();
    // One thread runs these kernels in the interpreter, so only barriers stop a replay of
    // a counterexample that has inputs at all.
    bool barriers = src.find("BAR.") != std::string::npos || tgt.find("BAR.") != std::string::npos;
    if (!r.inputs.empty() && !barriers) {
      EXPECT_TRUE(r.replay) << r.line();
    }
    if (r.replay) {
      ori::RunResult a = ori::runKernel(s, *r.replay), b = ori::runKernel(t, *r.replay);
      EXPECT_NE(a.kind, ori::RunResult::Kind::Error) << a.message;
      EXPECT_TRUE(a.kind != b.kind || a.buffers != b.buffers || a.variables != b.variables)
          << "the replay does not tell the two apart: " << r.line();
    }
  }
  return r;
}

// out[tid] = a + b, with a dead computation in the source.
const char *kStore = R"(.entry k(.u32 a, .u32 b, .u64 out)
{
  S2R R0, SR_TID.X
  IADD3 R1, R0, c[0x0][0x210], RZ
  IADD3 R2, c[0x0][0x210], c[0x0][0x214], RZ
  IMAD.WIDE.U32 R4, R0, 0x4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
})";

TEST(TranslationValidation, RemovingADeadInstructionIsProved) {
  std::string tgt = kStore;
  tgt.erase(tgt.find("  IADD3 R1, R0, c[0x0][0x210], RZ\n"),
            std::string("  IADD3 R1, R0, c[0x0][0x210], RZ\n").size());
  TvResult r = check(kStore, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
}

// A warp-level matrix instruction is uninterpreted functions of its inputs (docs/verifier.md):
// a phase that keeps its inputs is proved, one that changes them is not (unknown: the
// functions allow the difference, which is no counterexample).
const char *kMma = R"(.entry k(.u64 in, .u64 out)
{
  S2R R0, SR_TID.X
  IMAD.WIDE.U32 R2, R0, 0x10, c[0x0][0x210]
  LDG.E R10, [R2]
  LDG.E R11, [R2+0x4]
  LDG.E R12, [R2+0x8]
  LDG.E R13, [R2+0xc]
  IADD3 R30, R10, R11, RZ
  IMAD.WIDE.U32 R4, R0, 0x8, c[0x0][0x218]
  HMMA.1688.F16 R20, R21, R10, R11, R12, R13, R13
  STG.E [R4], R20
  STG.E [R4+0x4], R21
  EXIT
})";

TEST(TranslationValidation, KeepingAMatrixInstructionIsProved) {
  std::string tgt = kMma;
  const std::string dead = "  IADD3 R30, R10, R11, RZ\n";
  tgt.erase(tgt.find(dead), dead.size());
  TvResult r = check(kMma, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
}

TEST(TranslationValidation, ChangingAMatrixInstructionsInputsIsNotProved) {
  std::string tgt = kMma;
  const std::string mma = "HMMA.1688.F16 R20, R21, R10, R11, R12, R13, R13";
  tgt.replace(tgt.find(mma), mma.size(), "HMMA.1688.F16 R20, R21, R11, R10, R12, R13, R13");
  TvResult r = check(kMma, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("HMMA at line"), std::string::npos) << r.reason;
}

TEST(TranslationValidation, UnchangedFunctionsAreProvedWithoutASolver) {
  TvResult r = check(kStore, kStore);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved);
  EXPECT_EQ(r.reason, "unchanged");
}

TEST(TranslationValidation, RemovingALiveInstructionIsRefuted) {
  std::string tgt = kStore;
  std::string live = "  IADD3 R2, c[0x0][0x210], c[0x0][0x214], RZ\n";
  tgt.erase(tgt.find(live), live.size());
  TvResult r = check(kStore, tgt);
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
  EXPECT_NE(r.reason.find("memory at"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.inputs.empty());
  EXPECT_NE(r.replayArgs.find("--param a="), std::string::npos) << r.replayArgs;
}

TEST(TranslationValidation, ADifferentValueStoredIsRefuted) {
  std::string tgt = kStore;
  tgt.replace(tgt.find("c[0x0][0x214], RZ"), std::string("c[0x0][0x214], RZ").size(),
              "c[0x0][0x214], 0x1");
  EXPECT_EQ(check(kStore, tgt).verdict, TvResult::Verdict::Refuted);
}

TEST(TranslationValidation, ATargetThatAddsAFaultIsRefuted) {
  std::string tgt = kStore;
  // a load from an address the source never touches may fault where the source does not
  tgt.replace(tgt.find("  EXIT"), 6, "  LDG.E R9, [R4+0x100]\n  EXIT");
  TvResult r = check(kStore, tgt);
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
  EXPECT_NE(r.reason.find("faults"), std::string::npos) << r.reason;
}

TEST(TranslationValidation, ATargetMayRemoveAFaultOfTheSource) {
  std::string src = kStore;
  src.replace(src.find("  EXIT"), 6, "  LDG.E R9, [R4+0x100]\n  EXIT");
  EXPECT_EQ(check(src, kStore).verdict, TvResult::Verdict::Proved);
}

// An instruction without a model is an uninterpreted function of its text and inputs
// (verify/tv_uninterpreted.cpp; more in tv_uninterpreted_test.cpp): the same OPAQUE kept is
// proved, another one in its place is unknown, never proved.
TEST(TranslationValidation, AnUninterpretedInstructionKeptIsProvedChangedIsUnknown) {
  std::string src = kStore, tgt = kStore;
  src.replace(src.find("  EXIT"), 6, "  OPAQUE \"trap\"\n  EXIT");
  tgt.replace(tgt.find("  EXIT"), 6, "  OPAQUE \"trap\"\n  EXIT");
  std::string dead = "  IADD3 R1, R0, c[0x0][0x210], RZ\n";
  tgt.erase(tgt.find(dead), dead.size());
  TvResult r = check(src, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
  tgt.replace(tgt.find("\"trap\""), 6, "\"exit\"");
  r = check(src, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("OPAQUE"), std::string::npos) << r.reason;
}

// A loop whose trip count is a parameter: within the bound the two agree, but inputs need
// more back edges, so the verdict is unknown.
const char *kLoop = R"(.entry k(.u32 n, .u64 out)
{
  MOV R1, 0x0
  MOV R2, 0x0
L1:
  ISETP.GE.U32.AND P0, PT, R1, c[0x0][0x210], PT
  @P0 BRA L2
  IADD3 R2, R2, R1, RZ
  IADD3 R3, R2, 0x7, RZ
  IADD3 R1, R1, 0x1, RZ
  BRA L1
L2:
  MOV.64 R4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
})";

// Beyond the bound (n is any value), removing a dead instruction from the loop is proved by
// induction: at the loop header the two states keep equal registers and memory.
TEST(TranslationValidation, ALoopBeyondTheUnrollBoundIsProvedByInduction) {
  std::string tgt = kLoop;
  std::string dead = "  IADD3 R3, R2, 0x7, RZ\n";
  tgt.erase(tgt.find(dead), dead.size());
  TvResult r = check(kLoop, tgt, 3);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
  EXPECT_NE(r.reason.find("induction"), std::string::npos) << r.reason;
}

// A correct change whose proof needs R2(target) = R2(source) + 1 at the header: no
// relation of equal registers carries it, and the bound cannot see the end: unknown.
TEST(TranslationValidation, ALoopNeedingAnotherRelationIsUnknown) {
  std::string tgt = kLoop;
  tgt.replace(tgt.find("  MOV R2, 0x0"), std::string("  MOV R2, 0x0").size(), "  MOV R2, 0x1");
  tgt.replace(tgt.find("  STG.E [R4], R2"), std::string("  STG.E [R4], R2").size(),
              "  IADD3 R6, R2, -0x1, RZ\n  STG.E [R4], R6");
  TvResult r = check(kLoop, tgt, 3);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("unroll bound"), std::string::npos) << r.reason;
}

// Wrong only from the 11th iteration on: the bound (3) cannot see it, and induction must
// not prove it.
TEST(TranslationValidation, AnErrorBeyondTheBoundIsNeverProved) {
  std::string tgt = kLoop;
  tgt.replace(tgt.find("  IADD3 R1, R1, 0x1, RZ"), std::string("  IADD3 R1, R1, 0x1, RZ").size(),
              "  ISETP.EQ.U32.AND P1, PT, R1, 0xa, PT\n  @P1 IADD3 R2, R2, 0x1, RZ\n  IADD3 R1, "
              "R1, 0x1, RZ");
  TvResult r = check(kLoop, tgt, 3);
  EXPECT_NE(r.verdict, TvResult::Verdict::Proved) << r.line();
  // with a bound that reaches it, it is refuted
  EXPECT_EQ(check(kLoop, tgt, 12).verdict, TvResult::Verdict::Refuted);
}

TEST(TranslationValidation, AWrongLoopBodyIsRefutedWithinTheBound) {
  std::string tgt = kLoop;
  tgt.replace(tgt.find("IADD3 R2, R2, R1, RZ"), std::string("IADD3 R2, R2, R1, RZ").size(),
              "IADD3 R2, R2, 0x1, RZ");
  TvResult r = check(kLoop, tgt, 3);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
}

// A loop with a constant trip count (3): proved whatever the bound (induction first).
TEST(TranslationValidation, ABoundedLoopIsProved) {
  std::string src = kLoop;
  src.replace(src.find("R1, c[0x0][0x210], PT"), std::string("R1, c[0x0][0x210], PT").size(),
              "R1, 0x3, PT");
  std::string tgt = src;
  std::string dead = "  IADD3 R3, R2, 0x7, RZ\n";
  tgt.erase(tgt.find(dead), dead.size());
  EXPECT_EQ(check(src, tgt, 3).verdict, TvResult::Verdict::Proved);
  EXPECT_EQ(check(src, tgt, 0).verdict, TvResult::Verdict::Proved);
}

// When induction finds no relation, the unrolling still refutes a difference it can reach.
TEST(TranslationValidation, AWrongResultAfterTheLoopIsRefutedByUnrolling) {
  std::string src = kLoop;
  src.replace(src.find("R1, c[0x0][0x210], PT"), std::string("R1, c[0x0][0x210], PT").size(),
              "R1, 0x3, PT");
  std::string tgt = src;
  tgt.replace(tgt.find("  STG.E [R4], R2"), std::string("  STG.E [R4], R2").size(),
              "  STG.E [R4], R3");
  TvResult r = check(src, tgt, 4);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
}

// Shared memory across a barrier: other threads read what is there at BAR.SYNC.
const char *kBarrier = R"(.entry k(.u64 out)
{
  .shared .u32 buf[64]
  S2R R0, SR_TID.X
  SHL R1, R0, 0x2
  STS [R1+buf], R0
  BAR.SYNC 0x0
  LDS R2, [RZ+buf]
  MOV.64 R4, c[0x0][0x210]
  STG.E [R4], R2
  EXIT
})";

TEST(TranslationValidation, AStoreMovedAcrossABarrierIsRefuted) {
  std::string tgt = kBarrier;
  std::string st = "  STS [R1+buf], R0\n";
  tgt.erase(tgt.find(st), st.size());
  tgt.replace(tgt.find("  LDS R2"), 0, st);
  TvResult r = check(kBarrier, tgt);
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
}

// Only the barrier tells these apart: after BAR.SYNC shared and global memory are what the
// other threads left, so the end state is the same whether or not the store happened.
TEST(TranslationValidation, AStoreOnlyOtherThreadsSeeIsObservedAtTheBarrier) {
  const char *src = R"(.entry k()
{
  .shared .u32 buf[64]
  S2R R0, SR_TID.X
  SHL R1, R0, 0x2
  STS [R1+buf], R0
  BAR.SYNC 0x0
  EXIT
})";
  std::string tgt = src;
  std::string st = "  STS [R1+buf], R0\n";
  tgt.erase(tgt.find(st), st.size());
  TvResult r = check(src, tgt);
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
  EXPECT_NE(r.reason.find("at barrier 0"), std::string::npos) << r.reason;
  // a store to the thread's own local memory is not observable: removing it is fine
  std::string local = src;
  local.replace(local.find("STS [R1+buf], R0"), std::string("STS [R1+buf], R0").size(),
                "STL [R1], R0");
  std::string none = local;
  none.erase(none.find("  STL [R1], R0\n"), std::string("  STL [R1], R0\n").size());
  EXPECT_EQ(check(local, none).verdict, TvResult::Verdict::Proved);
}

TEST(TranslationValidation, BarrierKernelsWithAnEquivalentChangeAreProved) {
  std::string tgt = kBarrier; // a copy, as live-range splitting inserts
  tgt.replace(tgt.find("  STS [R1+buf], R0"), std::string("  STS [R1+buf], R0").size(),
              "  MOV R9, R0\n  STS [R1+buf], R9");
  EXPECT_EQ(check(kBarrier, tgt).verdict, TvResult::Verdict::Proved);
}

// Block order and branches: moving a block and adding the BRA that keeps control flow.
TEST(TranslationValidation, ReorderedBlocksWithTheirBranchesAreProved) {
  const char *src = R"(.entry k(.u32 a, .u64 out)
{
  ISETP.GT.AND P0, PT, c[0x0][0x210], 0x5, PT
  @P0 BRA L2
L1:
  MOV R2, 0x1
  BRA L3
L2:
  MOV R2, 0x2
L3:
  MOV.64 R4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
})";
  const char *good = R"(.entry k(.u32 a, .u64 out)
{
  ISETP.GT.AND P0, PT, c[0x0][0x210], 0x5, PT
  @!P0 BRA L1
L2:
  MOV R2, 0x2
  BRA L3
L1:
  MOV R2, 0x1
L3:
  MOV.64 R4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
})";
  EXPECT_EQ(check(src, good).verdict, TvResult::Verdict::Proved);
  std::string bad = good;
  bad.replace(bad.find("  BRA L3\n"), std::string("  BRA L3\n").size(), ""); // falls into L1
  TvResult r = check(src, bad);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
}

TEST(TranslationValidation, MissingFunctionsAndSignaturesAreRefuted) {
  ori::Module src = parse(kStore);
  ori::Module other = parse(R"(.entry j()
{
  EXIT
})");
  EXPECT_EQ(ori::verify::validateFunction(src, other, "k").verdict, TvResult::Verdict::Refuted);
  std::string sig = kStore;
  sig.replace(sig.find(".u32 b"), 6, ".u64 b");
  EXPECT_EQ(check(kStore, sig).verdict, TvResult::Verdict::Refuted);
}

// out[tid] = inc(tid), inc a .func of the module called with PTX's .param conventions.
const char *kCall = R"(.func (.u32 r) inc(.u32 x)
{
  .local .b32 scratch
  LD R5, [x]
  IADD3 R5, R5, 0x1, RZ
  ST [scratch], R5
  LD R7, [scratch]
  ST [r], R7
  RET
}
.entry k(.u64 out)
{
  .param .b32 a
  .param .b32 b
  S2R R4, SR_TID.X
  ST [a], R4
  CALL (b), inc, (a)
  LD R6, [b]
  IMAD.WIDE.U32 R2, R4, 0x4, c[0x0][0x210]
  STG.E [R2], R6
  EXIT
})";

std::string replaceCall(const std::string &with) {
  std::string t = kCall, call = "  CALL (b), inc, (a)\n  LD R6, [b]\n";
  return t.replace(t.find(call), call.size(), with);
}

// The call replaced by what the callee computes: only the callee's body tells that the
// two agree, so it is proved with the call inlined and unknown with it uninterpreted.
TEST(TranslationValidation, CallsToModuleFunctionsAreInlined) {
  std::string tgt = replaceCall("  IADD3 R6, R4, 0x1, RZ\n");
  TvResult r = check(kCall, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
  TvResult flat = check(kCall, tgt, 4, 0);
  EXPECT_EQ(flat.verdict, TvResult::Verdict::Unknown) << flat.line();
  EXPECT_NE(flat.reason.find("the call to inc at line"), std::string::npos) << flat.reason;
}

// A wrong value through an inlined call is refuted, and the replay (whose .param and .local
// addresses of the callee's frame are the interpreter's) tells the two apart.
TEST(TranslationValidation, AWrongResultOfAnInlinedCallIsRefutedWithAReplay) {
  TvResult r = check(kCall, replaceCall("  IADD3 R6, R4, 0x2, RZ\n"));
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
  EXPECT_TRUE(r.replay) << r.line();
  // The other way round: the target calls, the source computes.
  TvResult back = check(replaceCall("  IADD3 R6, R4, 0x2, RZ\n"), kCall);
  ASSERT_EQ(back.verdict, TvResult::Verdict::Refuted) << back.line();
  EXPECT_TRUE(back.replay) << back.line();
}

// EXIT inside a callee ends the thread: the store after the call never happens.
TEST(TranslationValidation, AnExitInACalleeEndsTheThread) {
  std::string src = kCall;
  src.replace(src.find("  ST [r], R7\n  RET"), std::string("  ST [r], R7\n  RET").size(), "  EXIT");
  std::string tgt = src;
  std::string store = "  STG.E [R2], R6\n";
  tgt.erase(tgt.find(store), store.size());
  EXPECT_EQ(check(src, tgt).verdict, TvResult::Verdict::Proved);
  EXPECT_EQ(check(kCall, tgt).verdict, TvResult::Verdict::Refuted);
}

// A callee whose frame is larger than the validator zeroes at a call (4 KiB) is not inlined:
// a change the callee's body does not matter to is still proved, one that needs it is unknown.
TEST(TranslationValidation, ACalleeWithALargeFrameIsNotInlined) {
  std::string src = kCall;
  src.replace(src.find(".local .b32 scratch"), std::string(".local .b32 scratch").size(),
              ".local .b32 scratch[2048]");
  std::string inlined = src, call = "  CALL (b), inc, (a)\n  LD R6, [b]\n";
  inlined.replace(inlined.find(call), call.size(), "  IADD3 R6, R4, 0x1, RZ\n");
  TvResult r = check(src, inlined);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("a frame larger than 4096 bytes"), std::string::npos) << r.reason;
  std::string dead = src;
  dead.replace(dead.find("  EXIT"), 6, "  IADD3 R9, R4, 0x5, RZ\n  EXIT");
  EXPECT_EQ(check(dead, src).verdict, TvResult::Verdict::Proved);
}

// A recursive function is inlined to the depth and no further: what the deeper calls do is
// unknown, so a change that needs it is never proved nor refuted.
TEST(TranslationValidation, RecursionBeyondTheInlineDepthIsUnknown) {
  std::string src = R"(.func (.u32 r) down(.u32 x)
{
  .param .b32 a
  .param .b32 b
  LD R1, [x]
  ISETP.EQ.U32.AND P0, PT, R1, RZ, PT
  @P0 BRA DONE
  IADD3 R2, R1, -0x1, RZ
  ST [a], R2
  CALL (b), down, (a)
  LD R3, [b]
  ST [r], R3
  RET
DONE:
  ST [r], RZ
  RET
}
.entry k(.u32 n, .u64 out)
{
  .param .b32 a
  .param .b32 b
  MOV R4, c[0x0][0x210]
  ST [a], R4
  CALL (b), down, (a)
  LD R6, [b]
  MOV.64 R2, c[0x0][0x214]
  STG.E [R2], R6
  EXIT
})";
  // down(n) is 0 for every n, but only the first calls are inlined.
  std::string tgt = src;
  tgt.replace(tgt.find("  LD R6, [b]\n"), std::string("  LD R6, [b]\n").size(), "  MOV R6, RZ\n");
  TvResult r = check(src, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("beyond the inline depth"), std::string::npos) << r.reason;
}

} // namespace
