// Translation validation of instructions without a model (verify/tv_uninterpreted.cpp,
// docs/verifier.md "Uninterpreted instructions"): each is an uninterpreted function of its
// signature, its inputs, the memory before it and (warp-collective ones) its execution
// context. A phase that keeps them is proved; one that drops, duplicates or reorders a
// memory effect, or moves a warp-collective instruction into another block, is not proved
// (unknown, naming the instruction: a difference the functions allow is no counterexample).
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

TvResult check(const std::string &src, const std::string &tgt) {
  ori::verify::TvOptions o;
  o.timeoutSeconds = 20;
  o.budgetSeconds = 40;
  return ori::verify::validateFunction(parse(src), parse(tgt), "k", o);
}

std::string without(std::string text, const std::string &line) {
  const size_t at = text.find(line);
  EXPECT_NE(at, std::string::npos) << line;
  return at == std::string::npos ? text : text.erase(at, line.size());
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// A texture fetch and a vote whose results are stored, a surface store, and a dead IADD3.
const char *kKernel = R"(.entry k(.u64 tex, .u64 surf, .u64 out)
{
  S2R R0, SR_TID.X
  MOV.64 R10, c[0x0][0x210]
  MOV.64 R12, c[0x0][0x218]
  IADD3 R1, R0, 0x5, RZ
  IADD3 R9, R0, 0x7, RZ
  TEX.1D.U32.ICOORD R20, R21, R22, R23, R10, R0
  ISETP.NE.U32.AND P1, PT, R20, RZ, PT
  VOTE.ANY R24, P2, P1
  IMAD.WIDE.U32 R4, R0, 0x8, c[0x0][0x220]
  STG.E [R4], R21
  STG.E [R4+0x4], R24
  SUST.1D.TRAP R12, R1, R20
  EXIT
})";

const std::string kDead = "  IADD3 R9, R0, 0x7, RZ\n";
const std::string kSust = "  SUST.1D.TRAP R12, R1, R20\n";

TEST(TvUninterpreted, KeepingTexVoteAndSustIsProved) {
  TvResult r = check(kKernel, without(kKernel, kDead));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
}

TEST(TvUninterpreted, TheSameInstructionOnOtherInputsIsNotProved) {
  // the texture read at another coordinate: its results may differ
  TvResult r = check(kKernel, replaced(kKernel, "R23, R10, R0", "R23, R10, R1"));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("an uninterpreted instruction"), std::string::npos) << r.reason;
}

TEST(TvUninterpreted, ADroppedSurfaceStoreIsNotProved) {
  TvResult r = check(kKernel, without(kKernel, kSust));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("SUST at line"), std::string::npos) << r.reason;
}

TEST(TvUninterpreted, ADuplicatedSurfaceStoreIsNotProved) {
  TvResult r = check(kKernel, replaced(kKernel, kSust, kSust + kSust));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("SUST at line"), std::string::npos) << r.reason;
}

// Two surface stores, and a global store between them: their order is kept or not.
const char *kTwoStores = R"(.entry k(.u64 surf, .u64 out)
{
  S2R R0, SR_TID.X
  MOV.64 R12, c[0x0][0x210]
  MOV.64 R4, c[0x0][0x218]
  SUST.1D.TRAP R12, RZ, R0
  STG.E [R4], R0
  SUST.1D.TRAP R12, RZ, 0x7
  EXIT
})";

TEST(TvUninterpreted, SwappedSurfaceStoresAreNotProved) {
  // the last store first: the surface keeps 0x7 or tid.x
  std::string tgt = replaced(kTwoStores, "  SUST.1D.TRAP R12, RZ, R0\n", "");
  tgt = replaced(tgt, "  SUST.1D.TRAP R12, RZ, 0x7\n",
                 "  SUST.1D.TRAP R12, RZ, 0x7\n  SUST.1D.TRAP R12, RZ, R0\n");
  TvResult r = check(kTwoStores, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("SUST at line"), std::string::npos) << r.reason;
}

TEST(TvUninterpreted, AGlobalStoreMovedAcrossASurfaceStoreIsNotProved) {
  const char *tgt = R"(.entry k(.u64 surf, .u64 out)
{
  S2R R0, SR_TID.X
  MOV.64 R12, c[0x0][0x210]
  MOV.64 R4, c[0x0][0x218]
  STG.E [R4], R0
  SUST.1D.TRAP R12, RZ, R0
  SUST.1D.TRAP R12, RZ, 0x7
  EXIT
})";
  TvResult r = check(kTwoStores, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("SUST at line"), std::string::npos) << r.reason;
}

// A vote under a branch: moved above it, the lanes that take part may differ.
const char *kVoteUnderBranch = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  ISETP.GE.U32.AND P0, PT, R0, 0x10, PT
  ISETP.NE.U32.AND P1, PT, R0, 0x3, PT
  @P0 BRA L1
  VOTE.ANY R5, P2, P1
  IMAD.WIDE.U32 R4, R0, 0x4, c[0x0][0x210]
  STG.E [R4], R5
L1:
  EXIT
})";

TEST(TvUninterpreted, AVoteMovedIntoAnotherBlockIsNotProved) {
  std::string tgt = replaced(kVoteUnderBranch, "  VOTE.ANY R5, P2, P1\n", "");
  tgt = replaced(tgt, "  @P0 BRA L1\n", "  VOTE.ANY R5, P2, P1\n  @P0 BRA L1\n");
  TvResult r = check(kVoteUnderBranch, tgt);
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("VOTE at line"), std::string::npos) << r.reason;
}

// Identical OPAQUE text on the same inputs: congruent; another text is another function.
const char *kOpaque = R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  IADD3 R9, R0, 0x7, RZ
  OPAQUE "mapa.u32 %r2, %r1, 1;" def(R2) use(R0)
  IMAD.WIDE.U32 R4, R0, 0x4, c[0x0][0x210]
  STG.E [R4], R2
  EXIT
})";

TEST(TvUninterpreted, AnOpaqueInstructionKeptIsProved) {
  TvResult r = check(kOpaque, without(kOpaque, kDead));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
}

TEST(TvUninterpreted, AnotherOpaqueTextIsNotProved) {
  TvResult r = check(kOpaque, replaced(kOpaque, "%r1, 1;", "%r1, 2;"));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Unknown) << r.line();
  EXPECT_NE(r.reason.find("OPAQUE at line"), std::string::npos) << r.reason;
}

// A shuffle in a loop: each iteration is another instance (the count of warp-level
// instructions before it), proved by induction when the loop is kept.
const char *kShuffleLoop = R"(.entry k(.u32 n, .u64 out)
{
  S2R R0, SR_TID.X
  MOV R1, 0x0
  MOV R2, 0x0
L1:
  ISETP.GE.U32.AND P0, PT, R1, c[0x0][0x210], PT
  @P0 BRA L2
  SHFL.BFLY PT, R3, R2, 0x1, 0x1f
  IADD3 R2, R2, R3, RZ
  IADD3 R7, R2, 0x7, RZ
  IADD3 R1, R1, 0x1, RZ
  BRA L1
L2:
  IMAD.WIDE.U32 R4, R0, 0x4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
})";

TEST(TvUninterpreted, AShuffleInALoopKeptIsProvedByInduction) {
  TvResult r = check(kShuffleLoop, without(kShuffleLoop, "  IADD3 R7, R2, 0x7, RZ\n"));
  EXPECT_EQ(r.verdict, TvResult::Verdict::Proved) << r.line();
}

} // namespace
