// Liveness of both halves (reference/ and optimized/ liveness.cpp) on small
// hand-analysed .ori functions: one typed suite, run once per half. Every
// expected set and count is derived by hand in the comment above it from the
// definitions in ir/facts.h (LivenessFacts), independently of the code:
//   gen(B)  = registers used in B before any unguarded def of them in B
//   kill(B) = registers an unguarded instruction of B defines
//   in(B)   = gen(B) | (out(B) - kill(B)),  out(B) = union of in(successors)
//   pressure: the most registers live at one point (block entry, or just
//   after an instruction, whose defs count there even when dead).
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "ir/facts.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {
namespace {

using Regs = std::vector<Reg>;
using Sets = std::vector<Regs>;
Reg UR(uint32_t n) { return {RegFile::UR, n}; }
Reg B(uint32_t n) { return {RegFile::B, n}; }
RegCounts counts(uint32_t r, uint32_t ur = 0, uint32_t p = 0, uint32_t up = 0, uint32_t b = 0) {
  return {r, ur, p, up, b};
}

struct ReferenceHalf {
  static LivenessFacts live(const Function &f) {
    return reference::computeLiveness(f, reference::computeCfg(f));
  }
};
struct OptimizedHalf {
  static LivenessFacts live(const Function &f) {
    return optimized::computeLiveness(f, optimized::computeCfg(f));
  }
};

// The function `name` of the module `text`, and its liveness from Half.
template <typename Half>
LivenessFacts analyse(const std::string &text, const std::string &name = "k", size_t blocks = 0) {
  ParseResult r = parseOri(text, "test.ori");
  if (!r.module) {
    ADD_FAILURE() << "parse error: " << (r.error ? r.error->str() : "?");
    return {};
  }
  const Function *f = r.module->findFunction(name);
  if (!f) {
    ADD_FAILURE() << "no function " << name;
    return {};
  }
  if (blocks) {
    EXPECT_EQ(f->blocks.size(), blocks) << "the comment's block numbering is wrong";
  }
  return Half::live(*f);
}

template <typename Half> class LivenessHalves : public ::testing::Test {};
struct HalfName {
  template <typename T> static std::string GetName(int) {
    return std::is_same_v<T, ReferenceHalf> ? "Reference" : "Optimized";
  }
};
using Halves = ::testing::Types<ReferenceHalf, OptimizedHalf>;
TYPED_TEST_SUITE(LivenessHalves, Halves, HalfName);

void expectSets(const LivenessFacts &got, const Sets &in, const Sets &out) {
  LivenessFacts want = got;
  want.liveIn = in;
  want.liveOut = out;
  EXPECT_TRUE(got == want) << firstDifference(want, got);
}

// One block. Backwards from out = {}: STG reads {R1 R2}; after MOV.64 R2:
// {R1 R2} = 2; after IADD3 R1: {R1}; it reads {R0}; after MOV R0: {R0}; the
// entry: {}. Nothing live at either end; pressure R 2.
TYPED_TEST(LivenessHalves, StraightLine) {
  auto l = analyse<TypeParam>(R"(
.entry k(.u64 out)
{
  MOV R0, 0x1
  IADD3 R1, R0, R0, RZ
  MOV.64 R2, c[0x0][0x210]
  STG.E [R2], R1
  EXIT
}
)",
                              "k", 1);
  expectSets(l, {{}}, {{}});
  EXPECT_EQ(l.pressure, std::vector<RegCounts>{counts(2)});
  EXPECT_EQ(l.maxPressure, counts(2));
  EXPECT_TRUE(l.uninitialized.empty());
}

// bix0 reads R0 before defining it and reads R3; bix1 defines R3 before
// reading it. gen0 = {R0 R3}, kill0 = {R0 R1 R2}; gen1 = {R0 R1}, kill1 =
// {R3 R4}. in1 = {R0 R1} = out0; in0 = {R0 R3} | ({R0 R1} - kill0) = {R0 R3}.
// (spec/004's pseudocode, walking backwards with "r not in kill", would give
// gen0 = {R3} and gen1 = {R0 R1 R3}: docs/spec-notes.md.)
TYPED_TEST(LivenessHalves, UseBeforeDefAcrossBlocks) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  MOV R1, R0
  MOV R0, 0x1
  MOV R2, R3
  BRA L1
L1:
  MOV R3, 0x2
  IADD3 R4, R3, R0, R1
  EXIT
}
)",
                              "k", 2);
  expectSets(l, {{R(0), R(3)}, {R(0), R(1)}}, {{R(0), R(1)}, {}});
  EXPECT_EQ(l.uninitialized, (Regs{R(0), R(3)}));
}

// bix0 -> bix1; bix1 -> {bix1 (taken), bix2}. gen1 = {R0 R1}, kill1 =
// {R0 R1 P0}. in2 = {}; out1 = in1 | in2 and in1 = {R0 R1} | (out1 - kill1)
// = {R0 R1}: both values are carried around the backedge, although R0 is
// never read after the loop. out0 = {R0 R1}, in0 = {}.
TYPED_TEST(LivenessHalves, LoopCarriedValue) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  MOV R0, RZ
  MOV R1, RZ
L_head:
  IADD3 R0, R0, R1, RZ
  IADD3 R1, R1, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA L_head
L_exit:
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{}, {R(0), R(1)}, {}}, {{R(0), R(1)}, {R(0), R(1)}, {}});
}

// bix0 -> {bix2 taken, bix1}; bix1 (defines R1) -> bix2 (reads R1).
// in2 = {R1}; in1 = {} | ({R1} - {R1}) = {}; out0 = in2 | in1 = {R1} (the
// taken side has no def); in0 = {R1} - {R0 R1 P0} = {}.
TYPED_TEST(LivenessHalves, DiamondWithADefOnOneSide) {
  auto l = analyse<TypeParam>(R"(
.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, 0x5
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  @P0 BRA L_join
L_then:
  MOV R1, 0x6
L_join:
  MOV.64 R2, c[0x0][0x210]
  STG.E [R2], R1
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{}, {}, {R(1)}}, {{R(1)}, {R(1)}, {}});
}

// bix1 starts with @P0 MOV R1: when P0 is false R1 keeps bix0's value, so
// the guarded def does not kill: gen1 = {P0 R1} (the guard is a use, STG
// reads R1 with no unguarded def before it), kill1 = {R2}; in1 = {R1 P0}
// (sorted R before P) = out0; in0 = {}. With @PT (always true: not a guard)
// the MOV kills R1 and bix1 reads nothing from outside.
TYPED_TEST(LivenessHalves, GuardedDefDoesNotKill) {
  const std::string text = R"(
.entry k(.u64 out)
{
  MOV R1, 0x5
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  BRA L1
L1:
  @GUARD MOV R1, 0x6
  MOV.64 R2, c[0x0][0x210]
  STG.E [R2], R1
  EXIT
}
)";
  auto with = [&](const std::string &guard) {
    std::string t = text;
    t.replace(t.find("GUARD"), 5, guard);
    return analyse<TypeParam>(t, "k", 2);
  };
  auto guarded = with("P0");
  expectSets(guarded, {{}, {R(1), P(0)}}, {{R(1), P(0)}, {}});
  auto negated = with("!P0");
  expectSets(negated, {{}, {R(1), P(0)}}, {{R(1), P(0)}, {}});
  auto always = with("PT");
  expectSets(always, {{}, {}}, {{}, {}});
}

// bix0 -> bix1 -> bix2 (the guarded EXIT falls through). gen1 = {P1 P2 P4}
// (PT is a constant), kill1 = {P3}; in1 = {P1 P2 P4} = out0; in0 = {P4}
// (ISETP defines P1 and P2). Pressure bix1: entry {P1 P2 P4} = 3; after
// PLOP3 {P3} = 1. bix0: after ISETP {P1 P2 P4} = 3; after S2R {R0 P4}.
TYPED_TEST(LivenessHalves, PredicateRegisters) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  S2R R0, SR_TID.X
  ISETP.GT.U32.AND P1, P2, R0, 0x3, PT
  BRA L1
L1:
  PLOP3.LUT P3, PT, P1, P2, P4, 0x80, 0x0
  @!P3 EXIT
L2:
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{P(4)}, {P(1), P(2), P(4)}, {}}, {{P(1), P(2), P(4)}, {}, {}});
  EXPECT_EQ(l.pressure, (std::vector<RegCounts>{counts(1, 0, 3), counts(0, 0, 3), counts(0)}));
  EXPECT_EQ(l.uninitialized, Regs{P(4)});
}

// Uniform registers and predicates. gen1 = {UR1 UR3}, kill1 = {UR2 UP1};
// in1 = {UR1 UR3} = out0; in0 = {UR3}; UR5 is dead and in no set.
// Pressure bix0, backwards from {UR1 UR3}: after MOV UR5 {UR1 UR3 UR5} = 3
// (a dead def counts); after MOV UR1 {UR1 UR3} = 2; entry {UR3}. bix1:
// entry {UR1 UR3} = 2; after IADD3 {UR2}; after ISETP {UP1}: UR 2, UP 1.
TYPED_TEST(LivenessHalves, UniformRegisters) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  MOV UR1, 0x3
  MOV UR5, 0x1
  BRA L1
L1:
  IADD3 UR2, UR1, UR3, URZ
  ISETP.EQ.AND UP1, UPT, UR2, URZ, UPT
  @UP1 EXIT
L2:
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{UR(3)}, {UR(1), UR(3)}, {}}, {{UR(1), UR(3)}, {}, {}});
  EXPECT_EQ(l.pressure, (std::vector<RegCounts>{counts(0, 3), counts(0, 2, 0, 1), counts(0)}));
  EXPECT_EQ(l.maxPressure, counts(0, 3, 0, 1));
}

// CALL passes its arguments and results through .param variables, not
// registers: R1 is stored to [a] and not live across the call; R7 is. The
// CALL ends bix0; bix1 ends with an indirect CALL R9 (a use of R9); bix2
// EXIT. gen1 = {R7 R9}, kill1 = {R2 R4}; in1 = {R7 R9} = out0; in0 = {R9}.
// The callee reads only memory: its one block has nothing live.
TYPED_TEST(LivenessHalves, Call) {
  const std::string text = R"(
.func (.u32 r) callee(.u32 x)
{
  LD R0, [x]
  ST [r], R0
  RET
}

.entry k(.u64 out)
{
  .param .b32 a
  .param .b32 res
  MOV R7, 0x1
  MOV R1, 0x5
  ST [a], R1
  CALL (res), callee, (a)
  LD R2, [res]
  IADD3 R2, R2, R7, RZ
  MOV.64 R4, c[0x0][0x210]
  STG.E [R4], R2
  CALL R9
  EXIT
}
)";
  auto l = analyse<TypeParam>(text, "k", 3);
  expectSets(l, {{R(9)}, {R(7), R(9)}, {}}, {{R(7), R(9)}, {}, {}});
  auto callee = analyse<TypeParam>(text, "callee", 1);
  expectSets(callee, {{}}, {{}});
}

// bix1 is unreachable (bix0 branches over it) and falls into bix2. in2 =
// {R0}; in1 = {R5 R6} | ({R0} - {R0}) = {R5 R6}, out1 = {R0}; out0 = {R0},
// in0 = {}. R5 and R6 are read only by unreachable code: not uninitialized.
TYPED_TEST(LivenessHalves, UnreachableBlock) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  MOV R0, 0x1
  BRA L_end
L_dead:
  IADD3 R0, R5, R6, RZ
L_end:
  MOV R1, R0
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{}, {R(5), R(6)}, {R(0)}}, {{R(0)}, {R(0)}, {}});
  EXPECT_TRUE(l.uninitialized.empty());
  EXPECT_EQ(uninitializedWarning(l, "k"), "");
}

// bix0 -> {bix2 taken, bix1}; bix1 defines R1; bix2 reads R1 and R3.
// in2 = {R1 R3}; in1 = {R3}; in0 = out0 = {R1 R3}: R3 is never defined and
// R1 only when P0 is false. ptxas's text counts them.
TYPED_TEST(LivenessHalves, UninitializedDetection) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
  @P0 BRA L_b
L_a:
  MOV R1, 0x1
L_b:
  IADD3 R2, R1, R3, RZ
  EXIT
}
)",
                              "k", 3);
  expectSets(l, {{R(1), R(3)}, {R(3)}, {R(1), R(3)}}, {{R(1), R(3)}, {R(1), R(3)}, {}});
  EXPECT_EQ(l.uninitialized, (Regs{R(1), R(3)}));
  EXPECT_EQ(uninitializedWarning(l, "k"),
            "Found 2 potentially uninitialized register(s) in function k");
}

// One block, backwards from {}: STG reads {R3 R6} = 2; after MOV.64 R6 2;
// IADD3 reads {R0 R1 R2} = 3; after the dead MOV R4 {R0 R1 R2 R4} = 4; after
// MOV R2 3, MOV R1 2, MOV R0 1; entry 0. Maximum 4, all in R.
TYPED_TEST(LivenessHalves, PressureCountsDeadDefs) {
  auto l = analyse<TypeParam>(R"(
.entry k(.u64 out)
{
  MOV R0, 0x1
  MOV R1, 0x2
  MOV R2, 0x3
  MOV R4, 0x9
  IADD3 R3, R0, R1, R2
  MOV.64 R6, c[0x0][0x210]
  STG.E [R6], R3
  EXIT
}
)",
                              "k", 1);
  EXPECT_EQ(l.pressure, std::vector<RegCounts>{counts(4)});
  EXPECT_EQ(l.maxPressure, counts(4));
}

// An empty labelled block passes its live-out through: bix0 [MOV R0] ->
// bix1 [] -> bix2 [MOV R1, R0; OPAQUE def(R2) use(R3, B1); EXIT]. OPAQUE's
// listed uses are uses: gen2 = {R0 R3 B1}, kill2 = {R1 R2}; in2 = {R0 R3 B1}
// = in1 = out1 = out0; in0 = {R3 B1}. Pressure bix1 = its entry {R0 R3 B1}.
TYPED_TEST(LivenessHalves, EmptyBlockAndOpaque) {
  auto l = analyse<TypeParam>(R"(
.entry k()
{
  MOV R0, 0x1
L_empty:
L_use:
  MOV R1, R0
  OPAQUE "FOO R2, R3, B1" def(R2) use(R3, B1)
  EXIT
}
)",
                              "k", 3);
  const Regs all{R(0), R(3), B(1)};
  expectSets(l, {{R(3), B(1)}, all, all}, {all, all, {}});
  EXPECT_EQ(l.pressure[1], counts(2, 0, 0, 0, 1));
  EXPECT_EQ(l.uninitialized, (Regs{R(3), B(1)}));
}

// A declaration has no blocks: no sets, no pressure.
TYPED_TEST(LivenessHalves, Declaration) {
  auto l = analyse<TypeParam>(".func (.u32 r) ext(.u32 x);\n.entry k()\n{\n  EXIT\n}\n", "ext");
  EXPECT_TRUE(l.liveIn.empty() && l.liveOut.empty() && l.pressure.empty() &&
              l.uninitialized.empty());
  EXPECT_EQ(l.maxPressure, counts(0));
}

// firstDifference names the first differing set.
TEST(LivenessFacts, FirstDifferenceNamesTheSet) {
  LivenessFacts a;
  a.liveIn = {{R(1)}, {}};
  a.liveOut = {{}, {}};
  a.pressure = {counts(1), counts(0)};
  LivenessFacts b = a;
  EXPECT_EQ(firstDifference(a, b), "");
  b.liveIn[0] = {R(1), P(2)};
  EXPECT_EQ(firstDifference(a, b), "live-in of bix0: reference {R1}, optimized {R1 P2}");
  b = a;
  b.pressure[1] = counts(0, 0, 1);
  EXPECT_EQ(firstDifference(a, b),
            "pressure of bix1: reference [0, 0, 0, 0, 0], optimized [0, 0, 1, 0, 0]");
}

} // namespace
} // namespace ori
