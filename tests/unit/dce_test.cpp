// Dead-code elimination (phase 10 EarlyOriSimpleLiveDead, phases 16/33/61/84
// OriPerformLiveDead) and phase 19 OriSplitLiveRanges of both halves on small
// hand-analysed .ori functions: one typed suite, run once per half. Each
// expected output is worked out by hand in the comment above it from the
// rules (docs/liveness.md), independently of the code:
//   an instruction is dead when none of its defs is live just after it and
//   it has no effects (not SIDE_EFFECT/CONTROL/.../VOLATILE in the opcode
//   table); walking a block backwards, a kept unguarded instruction kills its
//   defs and every kept instruction makes its uses live; removal repeats
//   until nothing is dead. Phase 10 takes as live at each block's end every
//   register some instruction reads.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {
namespace {

struct ReferenceHalf {
  static uint32_t early(Function &f) { return reference::earlyOriSimpleLiveDead(f); }
  static uint32_t liveDead(Function &f) { return reference::oriPerformLiveDead(f); }
  static uint32_t split(Function &f) { return reference::oriSplitLiveRanges(f); }
};
struct OptimizedHalf {
  static uint32_t early(Function &f) { return optimized::earlyOriSimpleLiveDead(f); }
  static uint32_t liveDead(Function &f) { return optimized::oriPerformLiveDead(f); }
  static uint32_t split(Function &f) { return optimized::oriSplitLiveRanges(f); }
};

template <typename Half> class DceHalves : public ::testing::Test {};
struct HalfName {
  template <typename T> static std::string GetName(int) {
    return std::is_same_v<T, ReferenceHalf> ? "Reference" : "Optimized";
  }
};
using Halves = ::testing::Types<ReferenceHalf, OptimizedHalf>;
TYPED_TEST_SUITE(DceHalves, Halves, HalfName);

Module parse(const std::string &text) {
  ParseResult r = parseOri(text, "test.ori");
  if (!r.module) {
    ADD_FAILURE() << "parse error: " << (r.error ? r.error->str() : "?");
    return {};
  }
  return std::move(*r.module);
}

// Runs `pass` on every function of `input` and expects the module to print
// as `expected` does (both parsed, so layout and comments do not matter) and
// `pass` to report `count` in total.
template <typename Pass>
void expectPass(Pass pass, const std::string &input, const std::string &expected, uint32_t count) {
  Module m = parse(input);
  uint32_t got = 0;
  for (Function &f : m.functions)
    if (!f.isDeclaration())
      got += pass(f);
  EXPECT_EQ(printModule(m), printModule(parse(expected)));
  EXPECT_EQ(got, count);
}

// bix0 [S2R R0; MOV R1; IADD3 R2 = R1 + R0; BRA] -> bix1 [IADD3 R3 = R2 + 1;
// MOV R4 = R3; STG [R6], R0 after MOV.64 R6; EXIT]. R4 is read nowhere: MOV
// R4 is dead; then R3 is, then (global liveness recomputed: bix0's live-out
// loses R2) IADD3 R2 in bix0, then MOV R1. R0 stays (stored). 4 removed.
TYPED_TEST(DceHalves, DeadChainCascadesAcrossBlocks) {
  expectPass(TypeParam::liveDead, R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, 0x5
  IADD3 R2, R1, R0, RZ
  BRA L1
L1:
  IADD3 R3, R2, 0x1, RZ
  MOV R4, R3
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R0
  EXIT
}
)",
             R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  BRA L1
L1:
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R0
  EXIT
}
)",
             4);
}

// Loop bix1 [IADD3 R5 = R1 * 2 (LEA); IADD3 R6 = R6 + 1; IADD3 R1 += 1;
// ISETP P0; @P0 BRA L_head]. R5 is read nowhere: dead. R6 is read only by
// its own increment, so it is live around the backedge and liveness keeps
// it (a self-sustaining cycle is beyond liveness-based DCE, docs/liveness.md);
// its init MOV R6 in bix0 stays for the same reason. R1 feeds the compare.
TYPED_TEST(DceHalves, DeadValueInALoop) {
  expectPass(TypeParam::liveDead, R"(
.entry k()
{
  MOV R1, RZ
  MOV R6, RZ
L_head:
  LEA R5, R1, RZ, 0x1
  IADD3 R6, R6, 0x1, RZ
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_head
L_exit:
  EXIT
}
)",
             R"(
.entry k()
{
  MOV R1, RZ
  MOV R6, RZ
L_head:
  IADD3 R6, R6, 0x1, RZ
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_head
L_exit:
  EXIT
}
)",
             1);
}

// STG and STS have effects; the values and addresses they read stay live, so
// nothing goes. ATOM's result R3 is dead but ATOM stays (SIDE_EFFECT), and
// with it R2, which it reads. RED likewise.
TYPED_TEST(DceHalves, StoresAndAtomicsKept) {
  const char *text = R"(
.entry k(.u64 out)
{
  MOV.64 R4, c[0x0][0x210]
  MOV R2, 0x7
  STG.E [R4], R2
  STS [R2], R2
  ATOM.E.ADD R3, [R4], R2
  RED.E.ADD [R4], R2
  EXIT
}
)";
  expectPass(TypeParam::liveDead, text, text, 0);
  expectPass(TypeParam::early, text, text, 0);
}

// `@P0 MOV R1, 0x2` may leave R1 as it was, so MOV R1, 0x1 is still read by
// the STG: both stay, and so does ISETP P0 (the guard reads P0). The guarded
// `@P0 MOV R5` is dead (R5 read nowhere) and goes, guard or not.
TYPED_TEST(DceHalves, GuardedDefDoesNotKill) {
  expectPass(TypeParam::liveDead, R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  MOV R1, 0x1
  @P0 MOV R1, 0x2
  @P0 MOV R5, 0x3
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R1
  EXIT
}
)",
             R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  MOV R1, 0x1
  @P0 MOV R1, 0x2
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R1
  EXIT
}
)",
             1);
}

// OPAQUE counts as having side effects: it stays with its dead def P0, and
// keeps R1 and R2 (its uses) alive. VOTE and SHFL (SIDE_EFFECT) too.
TYPED_TEST(DceHalves, OpaqueAndWarpOpsKept) {
  const char *text = R"(
.entry k()
{
  MOV R1, 0x1
  MOV R2, 0x2
  OPAQUE "FCHK P0, R1, R2" def(P0) use(R1, R2)
  VOTE.ANY R3, P1, PT
  SHFL.IDX P2, R4, R1, 0x0, 0x1f
  EXIT
}
)";
  expectPass(TypeParam::liveDead, text, text, 0);
}

// CALL stays (CONTROL, CALL_), and so do the ST into its argument variable
// (SIDE_EFFECT) and the value stored; the LD of its result into R6 is dead
// (R6 read nowhere; a plain load may go) and is removed. The callee's RET
// and ST stay; its LD R5 feeds the ST.
TYPED_TEST(DceHalves, CallKeptDeadResultLoadRemoved) {
  expectPass(TypeParam::liveDead, R"(
.func (.u32 r) inc(.u32 x)
{
  LD R5, [x]
  ST [r], R5
  RET
}
.entry k()
{
  .param .b32 a
  .param .b32 b
  MOV R4, 0x3
  ST [a], R4
  CALL (b), inc, (a)
  LD R6, [b]
  EXIT
}
)",
             R"(
.func (.u32 r) inc(.u32 x)
{
  LD R5, [x]
  ST [r], R5
  RET
}
.entry k()
{
  .param .b32 a
  .param .b32 b
  MOV R4, 0x3
  ST [a], R4
  CALL (b), inc, (a)
  EXIT
}
)",
             1);
}

// ISETP P1 is read by nothing: dead, and R0 then only feeds the kept ISETP
// P0. FSETP defines P2 and P3, both unread: dead. Phase 10 sees the same
// (everything is in one block and P1..P3 are read nowhere).
TYPED_TEST(DceHalves, DeadPredicateCompares) {
  const char *in = R"(
.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P1, PT, R0, 0x3, PT
  FSETP.GT.AND P2, P3, R0, 1.0, PT
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  @P0 EXIT
  EXIT
}
)";
  const char *out = R"(
.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  @P0 EXIT
  EXIT
}
)";
  expectPass(TypeParam::liveDead, in, out, 2);
  expectPass(TypeParam::early, in, out, 2);
}

// A volatile load stays although R1 is dead; the plain load into R2 and the
// constant load into R3 go.
TYPED_TEST(DceHalves, VolatileLoadKeptPlainLoadsRemoved) {
  expectPass(TypeParam::liveDead, R"(
.entry k(.u64 p)
{
  MOV.64 R4, c[0x0][0x210]
  LDG.E.VOLATILE R1, [R4]
  LDG.E R2, [R4+0x4]
  LDC R3, c[0x0][0x218]
  EXIT
}
)",
             R"(
.entry k(.u64 p)
{
  MOV.64 R4, c[0x0][0x210]
  LDG.E.VOLATILE R1, [R4]
  EXIT
}
)",
             2);
}

// Phase 10 is block-local. bix0: MOV R2, 0x1 is overwritten by MOV R2, 0x2
// in the same block before any read: dead locally, removed. MOV R1, 0x1 is
// overwritten only in bix1, and R1 is read somewhere (the STG), so phase 10
// must keep it; phase 16 (global) removes it as well. 1 and 2 removed.
TYPED_TEST(DceHalves, Phase10IsBlockLocal) {
  const char *in = R"(
.entry k(.u64 out)
{
  MOV R1, 0x1
  MOV R2, 0x1
  MOV R2, 0x2
  BRA L1
L1:
  MOV R1, R2
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R1
  EXIT
}
)";
  expectPass(TypeParam::early, in, R"(
.entry k(.u64 out)
{
  MOV R1, 0x1
  MOV R2, 0x2
  BRA L1
L1:
  MOV R1, R2
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R1
  EXIT
}
)",
             1);
  expectPass(TypeParam::liveDead, in, R"(
.entry k(.u64 out)
{
  MOV R2, 0x2
  BRA L1
L1:
  MOV R1, R2
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R1
  EXIT
}
)",
             2);
}

// bix0 [ISETP P0; @P0 BRA L2] -> bix1 (no label) [MOV R7 (dead)] -> bix2 L2.
// bix1 empties and is dropped: `@P0 BRA L2` then falls through to L2 itself,
// which bix1 did. The BRX table and label operands name the same blocks.
TYPED_TEST(DceHalves, EmptyUnlabelledBlockDropped) {
  Module m = parse(R"(
.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  @P0 BRA L2
  MOV R7, 0x1
L2:
  BRA L3
L3:
  EXIT
}
)");
  Function &f = m.functions.at(0);
  ASSERT_EQ(f.blocks.size(), 4u);
  EXPECT_EQ(TypeParam::liveDead(f), 1u);
  ASSERT_EQ(f.blocks.size(), 3u);
  EXPECT_EQ(f.blocks[1].label, "L2");
  EXPECT_EQ(f.blocks[0].instrs.back().srcs[0].target, 1u); // @P0 BRA L2
  EXPECT_EQ(f.blocks[1].instrs.back().srcs[0].target, 2u); // BRA L3
}

// Phase 19. bix0 [S2R R0; MOV R1; MOV R2] (preheader, falls into the header)
// -> loop bix1 [IADD3 R2 += R1; IADD3 R1 += 1; ISETP; @P0 BRA L_head] ->
// exit bix2 [IADD3 R3 = R2 + R0; STG R3]. live-in(bix1) = {R0 R1 R2}; R0 is
// neither read nor written in the loop: liveThrough(R0) holds bix1, which is
// the whole body; the only exit bix2 has R0 live-in and only bix1 as
// predecessor. R1, R2 are touched in the loop. One split, fresh register R7
// (nextReg: R6 is the highest in use): MOV.64 R7, R0 at the end of bix0,
// MOV.64 R0, R7 at the start of bix2.
TYPED_TEST(DceHalves, SplitValueLiveThroughALoop) {
  expectPass(TypeParam::split, R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, RZ
  MOV R2, RZ
L_head:
  IADD3 R2, R2, R1, RZ
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_head
L_exit:
  IADD3 R3, R2, R0, RZ
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)",
             R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, RZ
  MOV R2, RZ
  MOV.64 R7, R0
L_head:
  IADD3 R2, R2, R1, RZ
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_head
L_exit:
  MOV.64 R0, R7
  IADD3 R3, R2, R0, RZ
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)",
             1);
}

// Not split: R0 is read in the loop (bix1), R5 is live through it but its
// exit L_exit is also entered from bix0 (the guarded branch around the
// loop), where the copy back would be wrong on that path. No copies.
TYPED_TEST(DceHalves, NoSplitWhenTouchedOrExitSharedWithOutside) {
  const char *text = R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R5, 0x9
  MOV R1, RZ
  ISETP.EQ.U32.AND P1, PT, R0, RZ, PT
  @P1 BRA L_exit
L_pre:
  BRA L_head
L_head:
  IADD3 R1, R1, R0, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x40, PT
  @P0 BRA L_head
L_exit:
  IADD3 R3, R5, R1, RZ
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)";
  expectPass(TypeParam::split, text, text, 0);
}

// Nested loops: outer bix1..bix3 (header bix1 L_outer, inner loop bix2
// L_inner, latch bix3), preheader bix0, exit bix4. Registers from the
// highest: R9 is read in bix3, so touched in the outer loop, but live through
// the inner loop (bix2) untouched; the inner preheader bix1 has bix2 as its
// only successor and the inner exit bix3 only bix2 as predecessor: split,
// fresh R10 (R9 is the highest in use), copy at the end of bix1 and back at
// the start of bix3. R2 is touched in both loops. R1 (defined in bix3) is
// touched in the outer loop, live through the inner one: split, R11, the copy
// back also at the start of bix3, before R9's. R0 is live through both and
// touched in neither: split once, at the outer loop (outermost first), R12;
// not again at the inner one, where R0 is then dead. 3 splits.
TYPED_TEST(DceHalves, NestedLoopsSplitOutermost) {
  expectPass(TypeParam::split, R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, RZ
  MOV R9, 0x1
L_outer:
  MOV R2, RZ
L_inner:
  IADD3 R2, R2, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R2, 0x3, PT
  @P0 BRA L_inner
L_latch:
  IADD3 R1, R1, R9, RZ
  ISETP.LT.U32.AND P1, PT, R1, 0x3, PT
  @P1 BRA L_outer
L_exit:
  IADD3 R3, R1, R0, RZ
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)",
             R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, RZ
  MOV R9, 0x1
  MOV.64 R12, R0
L_outer:
  MOV R2, RZ
  MOV.64 R10, R9
  MOV.64 R11, R1
L_inner:
  IADD3 R2, R2, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R2, 0x3, PT
  @P0 BRA L_inner
L_latch:
  MOV.64 R1, R11
  MOV.64 R9, R10
  IADD3 R1, R1, R9, RZ
  ISETP.LT.U32.AND P1, PT, R1, 0x3, PT
  @P1 BRA L_outer
L_exit:
  MOV.64 R0, R12
  IADD3 R3, R1, R0, RZ
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)",
             3);
}

} // namespace
} // namespace ori
