// Switch dispatch read back from Ori IR (verify/switch_extract.h) and the
// before/after check the --verify hook runs after phases 14, 30 and 80
// (pipeline/verify_phases.cpp). The pairs are hand-written .ori: an
// nvcc-style compare tree before, a jump-table, BST or bit-test lowering
// after (and nvcc's own bit tests), each with its verdict derived by hand in a
// comment. Every refutation is checked by evaluating both extracted programs
// on the counterexample selector: it must really go to two different places.
// This file: compare trees, jump tables and BSTs; switch_bit_tests_test.cpp: bit tests;
// switch_narrow_selector_test.cpp: 16-bit selectors and the head's bound.
#include <gtest/gtest.h>

#include "switch_extract_helpers.h"

namespace {

using namespace switch_test;

// Before: the compare tree nvcc emits. bix0 splits at 4 (signed); below it an
// EQ chain: 2 -> case2, 3 -> t3 (a BRA-only trampoline to case3), != 4 ->
// deflt, and 4 falls through into bix4, the unlabelled case-4 body. Above it
// (hi): 6 -> case6, then `7 == R1` written with the constant on the left,
// @!P0 to deflt, and a trampoline block to case7. So every selector goes to:
//   2..4, 6, 7 -> their case; everything else (negatives too) -> deflt.
// Blocks: bix0 head, bix1..3 the low chain, bix4 case 4, bix5 hi, bix6, bix7
// (BRA case7), bix8 t3, then case2, case3, case6, case7, deflt, join.
// Program: 6 compares + 6 targets = 12 nodes.
const std::string kCases = R"(case2:
  MOV R2, 0x14
  BRA join
case3:
  MOV R2, 0x1e
  BRA join
case6:
  MOV R2, 0x3c
  BRA join
case7:
  MOV R2, 0x46
  BRA join
deflt:
  MOV R2, RZ
join:
  IMAD.WIDE.U32 R4, R1, 0x4, c[0x0][0x210]
  STG.E [R4], R2
  EXIT
}
)";

const std::string kTree = R"(.entry sw(.u64 out)
{
  S2R R1, SR_TID.X
  ISETP.GT.S32.AND P0, PT, R1, 0x4, PT
  @P0 BRA hi
  ISETP.EQ.S32.AND P1, PT, R1, 0x2, PT
  @P1 BRA case2
  ISETP.EQ.S32.AND P1, PT, R1, 0x3, PT
  @P1 BRA t3
  ISETP.NE.S32.AND P1, PT, R1, 0x4, PT
  @P1 BRA deflt
  MOV R2, 0x28
  BRA join
hi:
  ISETP.EQ.S32.AND P0, PT, R1, 0x6, PT
  @P0 BRA case6
  ISETP.EQ.S32.AND P0, PT, 0x7, R1, PT
  @!P0 BRA deflt
  BRA case7
t3:
  BRA case3
)" + kCases;
constexpr uint32_t kCase4Bix = 4; // the unlabelled case-4 body of kTree

// After: the jump-table lowering. R9 = tid - 2; R9 >u 5 (tid outside 2..7,
// negatives wrap to large) -> deflt; else JMX through the 6 entries 2..7, the
// gap 5 filled with deflt. Same target for every selector: proved.
// Program: the compare, the table and 6 targets = 8 nodes.
const std::string kTable = R"(.entry sw(.u64 out)
{
  .jumptable tbl = {case2, case3, case4, deflt, case6, case7}
  S2R R1, SR_TID.X
  IADD3 R9, R1, -0x2, RZ
  ISETP.GT.U32.AND P9, PT, R9, 0x5, PT
  @P9 BRA deflt
  JMX R9, tbl
case4:
  MOV R2, 0x28
  BRA join
)" + kCases;

// The wrong lowerings, and the one selector (or set) each gets wrong:
// bound 6 instead of 5: tid 8 gives R9 = 6, not > 6, and entry 6 is past the
// 6-entry table: a fault where the tree goes to deflt. Only tid 8.
const std::string kOffByOneBound = replaced(kTable, "R9, 0x5, PT", "R9, 0x6, PT");
// table one entry short (case7 missing): tid 7 passes the bound and faults
// where the tree goes to case7. Only tid 7.
const std::string kShortTable = replaced(kTable, ", case7}", "}");
// a signed bound: tid < 2 (and tid >= 0x80000002) makes R9 negative as S32,
// not > 5, and the JMX index huge: a fault where the tree goes to deflt.
const std::string kSignedBound = replaced(kTable, "ISETP.GT.U32.AND P9", "ISETP.GT.S32.AND P9");
// the gap not filled with the default: tid 5 goes to case6 instead of deflt.
const std::string kGapToCase = replaced(kTable, "case4, deflt, case6", "case4, case6, case6");

// kTree against an `after` text, with the ids the pass would have kept (case4
// of `after` is the tree's unlabelled bix4).
Pair treePair(const std::string &afterText) {
  Pair p{parseModule(kTree), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0), {{"case4", kCase4Bix}});
  return p;
}

// The tree extracts to the dispatch derived above, selector by selector.
TEST(SwitchExtract, CompareTreeSendsEachSelectorToItsCase) {
  Module m = parseModule(kTree);
  const Function &f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(p.nodes.size(), 12u);
  std::map<uint32_t, uint32_t> want = {{2, idOf(f, "case2")},
                                       {3, idOf(f, "case3")},
                                       {4, f.blocks[kCase4Bix].labelId},
                                       {6, idOf(f, "case6")},
                                       {7, idOf(f, "case7")}};
  for (int64_t s = -3; s <= 12; ++s) {
    uint32_t sel = uint32_t(s);
    uint32_t expect = want.count(sel) ? want[sel] : idOf(f, "deflt");
    EXPECT_EQ(dispatchTarget(p, sel), expect) << s;
  }
  EXPECT_EQ(dispatchTarget(p, 0x80000000u), idOf(f, "deflt"));
  EXPECT_EQ(dispatchTarget(p, 0x7fffffffu), idOf(f, "deflt"));
}

// The jump-table lowering with its range check and gap fill: proved.
TEST(SwitchExtract, JumpTableLoweringIsProved) {
  Pair p = treePair(kTable);
  SwitchCheckResult r = onlyResult(p);
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
  EXPECT_EQ(r.line, "switch at bix0 (L0) in sw (selector R1): proved (12 nodes -> 8 nodes)");
  DispatchProgram pa = program(p.a(), 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(pa, 4), p.b().blocks[kCase4Bix].labelId);
  EXPECT_EQ(dispatchTarget(pa, 5), idOf(p.b(), "deflt"));
}

TEST(SwitchExtract, OffByOneBoundIsRefutedAtTheFirstSelectorPastTheTable) {
  Pair p = treePair(kOffByOneBound);
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 8u);
  EXPECT_EQ(r.beforeTarget, idOf(p.b(), "deflt"));
  EXPECT_EQ(r.afterTarget, kFaultTarget);
  EXPECT_EQ(r.line,
            "switch at bix0 (L0) in sw (selector R1): refuted: selector 0x8 goes to deflt before, "
            "to a fault (past the jump table) after");
}

TEST(SwitchExtract, TableOneEntryShortIsRefutedAtTheLastCase) {
  Pair p = treePair(kShortTable);
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 7u);
  EXPECT_EQ(r.beforeTarget, idOf(p.b(), "case7"));
  EXPECT_EQ(r.afterTarget, kFaultTarget);
}

TEST(SwitchExtract, SignedBoundIsRefutedWhereTheIndexIsNegative) {
  Pair p = treePair(kSignedBound);
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_LT(int32_t(*r.counterexample - 2), 0) << *r.counterexample;
  EXPECT_EQ(r.beforeTarget, idOf(p.b(), "deflt"));
  EXPECT_EQ(r.afterTarget, kFaultTarget);
}

TEST(SwitchExtract, GapNotFilledWithTheDefaultIsRefutedAtTheGap) {
  Pair p = treePair(kGapToCase);
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 5u);
  EXPECT_EQ(r.line,
            "switch at bix0 (L0) in sw (selector R1): refuted: selector 0x5 goes to deflt before, "
            "to case6 after");
}

// A cascade `if (tid == 2) ... else if (tid == 3) ...` (unsigned EQ tests)
// against a balanced BST: signed tid < 5 goes to the low half {2, 3, 4} tested
// by EQ (and a NE to deflt then a trampoline to case4), else EQ 6, EQ 7,
// deflt. Each case selector reaches its case and everything else deflt on
// both sides: proved. Splitting at 6 instead sends 6 to the low half, where
// nothing matches: refuted with tid 6 (case6 before, deflt after).
const std::string kCascade = R"(.entry sw(.u64 out)
{
  S2R R1, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R1, 0x2, PT
  @P0 BRA case2
  ISETP.EQ.U32.AND P0, PT, R1, 0x3, PT
  @P0 BRA case3
  ISETP.EQ.U32.AND P0, PT, R1, 0x4, PT
  @P0 BRA case4
  ISETP.EQ.U32.AND P0, PT, R1, 0x6, PT
  @P0 BRA case6
  ISETP.EQ.U32.AND P0, PT, R1, 0x7, PT
  @P0 BRA case7
  BRA deflt
case4:
  MOV R2, 0x28
  BRA join
)" + kCases;

const std::string kBst = R"(.entry sw(.u64 out)
{
  S2R R1, SR_TID.X
  ISETP.LT.S32.AND P0, PT, R1, 0x5, PT
  @P0 BRA lo
  ISETP.EQ.S32.AND P1, PT, R1, 0x6, PT
  @P1 BRA case6
  ISETP.EQ.S32.AND P1, PT, R1, 0x7, PT
  @P1 BRA case7
  BRA deflt
lo:
  ISETP.EQ.S32.AND P1, PT, R1, 0x2, PT
  @P1 BRA case2
  ISETP.EQ.S32.AND P1, PT, R1, 0x3, PT
  @P1 BRA case3
  ISETP.NE.S32.AND P1, PT, R1, 0x4, PT
  @P1 BRA deflt
  BRA case4
case4:
  MOV R2, 0x28
  BRA join
)" + kCases;

Pair cascadePair(const std::string &afterText) {
  Pair p{parseModule(kCascade), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0));
  return p;
}

TEST(SwitchExtract, BstLoweringIsProved) {
  Pair p = cascadePair(kBst);
  SwitchCheckResult r = onlyResult(p);
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
}

TEST(SwitchExtract, BstSplitOnTheWrongSideIsRefuted) {
  Pair p = cascadePair(replaced(kBst, "R1, 0x5, PT", "R1, 0x7, PT"));
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 6u);
  EXPECT_EQ(r.beforeTarget, idOf(p.b(), "case6"));
  EXPECT_EQ(r.afterTarget, idOf(p.b(), "deflt"));
}

// A function checked against itself: every head (bix0, the three low
// compares, hi and the block after it) is unchanged, and none is a check.
TEST(SwitchExtract, UnchangedSwitchesAreNotChecks) {
  Module m = parseModule(kTree);
  std::vector<SwitchCheckResult> rs =
      ori::verify::checkSwitchRewrites(m.functions[0], m.functions[0]);
  ASSERT_EQ(rs.size(), 6u);
  for (const SwitchCheckResult &r : rs)
    EXPECT_EQ(r.verdict, Verdict::Unchanged) << r.line;
}

// After the phase the head dispatches through a LOP3 of the selector, which is
// not a dispatch the extractor reads: unknown, never proved.
TEST(SwitchExtract, AfterThatDoesNotExtractIsUnknown) {
  Pair p = treePair(replaced(kTable, "IADD3 R9, R1, -0x2, RZ", "LOP3.LUT R9, R1, 0x7, RZ, 0xc0"));
  SwitchCheckResult r = onlyResult(p);
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.line;
  EXPECT_NE(r.line.find("not a dispatch after the phase"), std::string::npos) << r.line;
}

// Heads whose selector is written in the head's own code. The dispatch reads
// the selector's last value:
//  stale: R9 and P0 are computed from the old R1, then S2R rewrites R1: P0 is
//         no longer a compare of the selector -> not a dispatch.
//  fresh: the same with R9 and P0 recomputed after the S2R, with unrelated
//         code between: the compare R9 = tid - 1 >u 1 -> dflt, else the table
//         {a, b}: tid 1 -> a, 2 -> b, anything else -> dflt.
//  killed: R9 is overwritten after the compare (MOV R9, RZ): the head's
//         compare still stands (P0 keeps its value), but the JMX block no
//         longer indexes by the selector: it is a leaf.
const std::string kPrefix = R"(
.entry stale()
{
  .jumptable tbl = {a, b}
  S2R R1, SR_TID.X
  IADD3 R9, R1, -0x1, RZ
  ISETP.GT.U32.AND P0, PT, R9, 0x1, PT
  S2R R1, SR_TID.Y
  @P0 BRA dflt
  JMX R9, tbl
a:
  EXIT
b:
  EXIT
dflt:
  EXIT
}
.entry fresh()
{
  .jumptable tbl = {a, b}
  S2R R1, SR_TID.X
  IADD3 R9, R1, -0x1, RZ
  S2R R1, SR_TID.Y
  IADD3 R9, R1, -0x1, RZ
  MOV R5, 0x7
  ISETP.GT.U32.AND P0, PT, R9, 0x1, PT
  MOV R6, R5
  @P0 BRA dflt
  JMX R9, tbl
a:
  EXIT
b:
  EXIT
dflt:
  EXIT
}
.entry killed()
{
  .jumptable tbl = {a, b}
  S2R R1, SR_TID.X
  IADD3 R9, R1, -0x1, RZ
  ISETP.GT.U32.AND P0, PT, R9, 0x1, PT
  MOV R9, RZ
  @P0 BRA dflt
  JMX R9, tbl
a:
  EXIT
b:
  EXIT
dflt:
  EXIT
}
)";

TEST(SwitchExtract, SelectorRedefinedInTheHeadStartsTheFactsAfresh) {
  Module m = parseModule(kPrefix);
  EXPECT_NE(errorOf(fn(m, "stale"), 0, ori::R(1)).find("not a compare of the selector"),
            std::string::npos);

  const Function &f = fn(m, "fresh");
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 0), idOf(f, "dflt"));
  EXPECT_EQ(dispatchTarget(p, 1), idOf(f, "a"));
  EXPECT_EQ(dispatchTarget(p, 2), idOf(f, "b"));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "dflt"));
  EXPECT_EQ(p.nodes.back().kind, ori::verify::DispatchNode::Kind::Compare);

  const Function &k = fn(m, "killed");
  DispatchProgram q = program(k, 0, ori::R(1));
  EXPECT_EQ(q.nodes.size(), 3u); // dflt, the JMX block as a leaf, the compare
  EXPECT_EQ(dispatchTarget(q, 1), k.blocks[1].labelId);
  EXPECT_EQ(dispatchTarget(q, 5), idOf(k, "dflt"));
}

// Constants on either side and RZ, facts that flow into a later block, and a
// table entry (chk) that tests the selector again, which becomes
// `v == 1 ? (that test) : table`. R9 = tid - 1 (immediate first); `1 <u tid`
// sends tid > 1 to dflt; the table by tid: 0 -> a, 1 -> chk, where R9 (known
// from the head) is tested with RZ on the left: 0 != R9 is false for tid 1,
// so it goes on to b. So: 0 -> a, 1 -> b, anything else -> dflt.
const std::string kForms = R"(.entry forms()
{
  .jumptable t2 = {a, chk}
  S2R R1, SR_TID.X
  IADD3 R9, -0x1, R1, RZ
  ISETP.LT.U32.AND P0, PT, 0x1, R1, PT
  @P0 BRA dflt
  BRX R1, t2
chk:
  ISETP.NE.U32.AND P1, PT, RZ, R9, PT
  @P1 BRA dflt
  BRA b
a:
  EXIT
b:
  EXIT
dflt:
  EXIT
}
)";

TEST(SwitchExtract, ConstantsOnEitherSideAndFurtherDispatchBehindATable) {
  Module m = parseModule(kForms);
  const Function &f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 0), idOf(f, "a"));
  EXPECT_EQ(dispatchTarget(p, 1), idOf(f, "b"));
  EXPECT_EQ(dispatchTarget(p, 2), idOf(f, "dflt"));
  EXPECT_EQ(dispatchTarget(p, 0xffffffffu), idOf(f, "dflt"));
}

// ISETP's second destination holds the negated compare: P1 = !(tid >u 3),
// so tid <= 3 -> small and tid > 3 falls through into bix1. With OR as the
// combine, `(tid >u 3) OR PT` is always true: not a compare.
TEST(SwitchExtract, SecondIsetpDestinationIsTheNegatedCompare) {
  const std::string text = R"(.entry neg()
{
  S2R R1, SR_TID.X
  ISETP.GT.U32.AND PT, P1, R1, 0x3, PT
  @P1 BRA small
  EXIT
small:
  EXIT
}
)";
  Module m = parseModule(text);
  const Function &f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "small"));
  EXPECT_EQ(dispatchTarget(p, 0), idOf(f, "small"));
  EXPECT_EQ(dispatchTarget(p, 4), f.blocks[1].labelId);
  Module withOr = parseModule(replaced(text, "GT.U32.AND", "GT.U32.OR"));
  EXPECT_NE(errorOf(withOr.functions[0], 0, ori::R(1)).find("not a compare of the selector"),
            std::string::npos);
}

// More than kMaxSwitchHeads heads in one function: the first are checked
// (here all unchanged), the rest get one unknown line.
TEST(SwitchExtract, TooManyHeadsGetOneUnknownLine) {
  std::string text = ".entry many()\n{\n  S2R R1, SR_TID.X\n";
  const size_t n = ori::verify::kMaxSwitchHeads + 2;
  for (size_t k = 0; k < n; ++k)
    text += "  ISETP.EQ.U32.AND P0, PT, R1, " + std::to_string(k) +
            ", PT\n  @P0 BRA out\n  MOV R2, RZ\n";
  text += "out:\n  EXIT\n}\n";
  Module m = parseModule(text);
  std::vector<SwitchCheckResult> rs =
      ori::verify::checkSwitchRewrites(m.functions[0], m.functions[0]);
  ASSERT_EQ(rs.size(), ori::verify::kMaxSwitchHeads + 1);
  EXPECT_EQ(rs.front().verdict, Verdict::Unchanged) << rs.front().line;
  EXPECT_EQ(rs.back().verdict, Verdict::Unknown);
  EXPECT_EQ(rs.back().line,
            "switch: unknown: 2 more switch heads in many not checked (limit 2000)");
}

// Two blocks with the id of a leaf (deflt's id given to case2 as well): which
// block a target names is unknown, so nothing is extracted.
TEST(SwitchExtract, AmbiguousLeafIdentityIsAnError) {
  Module m = parseModule(kTree);
  Function &f = m.functions[0];
  f.blocks[*f.findBlock("case2")].labelId = idOf(f, "deflt");
  EXPECT_NE(errorOf(f, 0, ori::R(1)).find("ambiguous block identity"), std::string::npos);
}

// loop: tid == 1 -> one, else a trampoline back to loop: a cycle of dispatch
// blocks (the program would not be a DAG). Also from bix0, which falls
// through into loop.
TEST(SwitchExtract, CycleOfDispatchBlocksIsAnError) {
  Module m = parseModule(R"(.entry cyc()
{
  S2R R1, SR_TID.X
loop:
  ISETP.EQ.U32.AND P0, PT, R1, 0x1, PT
  @P0 BRA one
  BRA loop
one:
  EXIT
}
)");
  const Function &f = m.functions[0];
  EXPECT_NE(errorOf(f, *f.findBlock("loop"), ori::R(1)).find("cycle"), std::string::npos);
  EXPECT_NE(errorOf(f, 0, ori::R(1)).find("cycle"), std::string::npos);
}

TEST(SwitchExtract, NodeBoundIsAnError) {
  Module m = parseModule(kTree);
  EXPECT_NE(errorOf(m.functions[0], 0, ori::R(1), 5).find("too large"), std::string::npos);
}

// The --verify hook: after phase 30 each changed switch gets its own line
// beside the function's translation-validation line; a refuted one fails the
// step. Other phases get no switch line.
TEST(SwitchExtract, VerifyHookReportsEachChangedSwitch) {
  ori::verify::TvOptions opts;
  opts.timeoutSeconds = 30;
  opts.budgetSeconds = 60;
  {
    Pair p = treePair(kTable);
    ori::VerifyReport rep = ori::verifyStep(p.before, p.after, "phase 30 DoSwitchOptSecond", opts);
    EXPECT_NE(
        rep.lines.find(
            "verify phase 30 DoSwitchOptSecond: switch at bix0 (L0) in sw (selector R1): proved"),
        std::string::npos)
        << rep.lines;
    EXPECT_FALSE(rep.refuted) << rep.lines;
    ori::VerifyReport other = ori::verifyStep(p.before, p.after, "phase 15 OriBranchOpt", opts);
    EXPECT_EQ(other.lines.find("switch at"), std::string::npos) << other.lines;
  }
  {
    Pair p = treePair(kGapToCase);
    ori::VerifyReport rep = ori::verifyStep(p.before, p.after, "phase 30 DoSwitchOptSecond", opts);
    EXPECT_NE(
        rep.lines.find(
            "verify phase 30 DoSwitchOptSecond: switch at bix0 (L0) in sw (selector R1): refuted: "
            "selector 0x5 goes to deflt before, to case6 after"),
        std::string::npos)
        << rep.lines;
    EXPECT_TRUE(rep.refuted);
  }
}

} // namespace
