// Switch dispatch read back from Ori IR (verify/switch_extract.h) and the
// before/after check the --verify hook runs after phases 14, 30 and 80
// (pipeline/verify_phases.cpp). The pairs are hand-written .ori: an
// nvcc-style compare tree before, a jump-table, BST or bit-test lowering
// after (and nvcc's own bit tests), each with its verdict derived by hand in a
// comment. Every refutation is checked by evaluating both extracted programs
// on the counterexample selector: it must really go to two different places.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "interp/interp.h"
#include "ir/ori.h"
#include "pipeline/verify_phases.h"
#include "verify/switch_extract.h"

namespace {

using ori::Function;
using ori::Module;
using ori::verify::DispatchProgram;
using ori::verify::dispatchTarget;
using ori::verify::extractDispatch;
using ori::verify::kFaultTarget;
using ori::verify::SwitchCheckResult;
using Verdict = SwitchCheckResult::Verdict;

Module parseModule(const std::string& text) {
  ori::ParseResult r = ori::parseOri(text, "switch.ori");
  if (!r.module) throw std::runtime_error(r.error ? r.error->str() : "parse error");
  return std::move(*r.module);
}

const Function& fn(const Module& m, const std::string& name) {
  const Function* f = m.findFunction(name);
  if (!f) throw std::runtime_error("no function " + name);
  return *f;
}

// `text` with its one occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Label ids are source positions (0x10 x the index of a block's first
// instruction), so a hand-written `after` numbers its blocks differently from
// `before`, while the pass keeps every block's id. This gives `after` the ids
// the pass would have kept: the entry's and each label's from `before`;
// `kept` maps labels of `after` to unlabelled blocks of `before` (by bix); any
// other block is new and gets a fresh id.
void keepIds(const Function& before, Function& after, const std::map<std::string, uint32_t>& kept = {}) {
  for (uint32_t b = 0; b < after.blocks.size(); ++b) {
    ori::Block& blk = after.blocks[b];
    blk.labelId = 0x100000 + 0x10 * b;
    if (b == 0) blk.labelId = before.blocks[0].labelId;
    if (blk.label.empty()) continue;
    if (auto it = kept.find(blk.label); it != kept.end()) blk.labelId = before.blocks.at(it->second).labelId;
    else if (auto bb = before.findBlock(blk.label)) blk.labelId = before.blocks[*bb].labelId;
  }
}

uint32_t idOf(const Function& f, const std::string& label) {
  std::optional<uint32_t> b = f.findBlock(label);
  EXPECT_TRUE(b) << label;
  return b ? f.blocks[*b].labelId : 0;
}

DispatchProgram program(const Function& f, uint32_t head, ori::Reg sel) {
  auto r = extractDispatch(f, head, sel);
  if (auto* e = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << "not extracted: " << *e;
    DispatchProgram none; // still valid, so evaluating it does not crash the suite
    none.target(0xdeadu);
    return none;
  }
  DispatchProgram p = std::get<DispatchProgram>(r);
  EXPECT_EQ(ori::verify::validate(p), "");
  return p;
}

std::string errorOf(const Function& f, uint32_t head, ori::Reg sel, size_t maxNodes = ori::verify::kMaxDispatchNodes) {
  auto r = extractDispatch(f, head, sel, maxNodes);
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  ADD_FAILURE() << "extracted, but an error was expected";
  return {};
}

// switch (tid) { case 2: r = 20; case 3: r = 30; case 4: r = 40; case 6: r = 60;
// case 7: r = 70; default: r = 0 } out[tid] = r;  (5 is a gap)
//
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

struct Pair {
  Module before, after;
  const Function& b() const { return before.functions.at(0); }
  const Function& a() const { return after.functions.at(0); }
};

// kTree against an `after` text, with the ids the pass would have kept (case4
// of `after` is the tree's unlabelled bix4).
Pair treePair(const std::string& afterText) {
  Pair p{parseModule(kTree), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0), {{"case4", kCase4Bix}});
  return p;
}

// The one checked switch of a pair: the tree's head (bix0). The inner compare
// blocks are heads too, but `after` has no block with their ids: skipped.
SwitchCheckResult onlyResult(const Pair& p) {
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
  EXPECT_EQ(rs.size(), 1u);
  if (rs.empty()) return {};
  EXPECT_EQ(rs[0].headBix, 0u);
  EXPECT_EQ(rs[0].selector, ori::R(1));
  return rs[0];
}

// A refuted pair: the counterexample really goes to two places, and those are
// the ones reported.
void expectRealCounterexample(const Pair& p, const SwitchCheckResult& r) {
  ASSERT_EQ(r.verdict, Verdict::Refuted) << r.line;
  ASSERT_TRUE(r.counterexample);
  DispatchProgram pb = program(p.b(), 0, r.selector), pa = program(p.a(), 0, r.selector);
  uint32_t tb = dispatchTarget(pb, *r.counterexample), ta = dispatchTarget(pa, *r.counterexample);
  EXPECT_NE(tb, ta);
  EXPECT_EQ(tb, r.beforeTarget);
  EXPECT_EQ(ta, r.afterTarget);
}

// The tree extracts to the dispatch derived above, selector by selector.
TEST(SwitchExtract, CompareTreeSendsEachSelectorToItsCase) {
  Module m = parseModule(kTree);
  const Function& f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(p.nodes.size(), 12u);
  std::map<uint32_t, uint32_t> want = {{2, idOf(f, "case2")}, {3, idOf(f, "case3")},
                                       {4, f.blocks[kCase4Bix].labelId}, {6, idOf(f, "case6")},
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
  EXPECT_EQ(r.line, "switch at bix0 (L0) in sw (selector R1): refuted: selector 0x8 goes to deflt before, "
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
  EXPECT_EQ(r.line, "switch at bix0 (L0) in sw (selector R1): refuted: selector 0x5 goes to deflt before, "
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

Pair cascadePair(const std::string& afterText) {
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
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(m.functions[0], m.functions[0]);
  ASSERT_EQ(rs.size(), 6u);
  for (const SwitchCheckResult& r : rs) EXPECT_EQ(r.verdict, Verdict::Unchanged) << r.line;
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
  EXPECT_NE(errorOf(fn(m, "stale"), 0, ori::R(1)).find("not a compare of the selector"), std::string::npos);

  const Function& f = fn(m, "fresh");
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 0), idOf(f, "dflt"));
  EXPECT_EQ(dispatchTarget(p, 1), idOf(f, "a"));
  EXPECT_EQ(dispatchTarget(p, 2), idOf(f, "b"));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "dflt"));
  EXPECT_EQ(p.nodes.back().kind, ori::verify::DispatchNode::Kind::Compare);

  const Function& k = fn(m, "killed");
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
  const Function& f = m.functions[0];
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
  const Function& f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "small"));
  EXPECT_EQ(dispatchTarget(p, 0), idOf(f, "small"));
  EXPECT_EQ(dispatchTarget(p, 4), f.blocks[1].labelId);
  Module withOr = parseModule(replaced(text, "GT.U32.AND", "GT.U32.OR"));
  EXPECT_NE(errorOf(withOr.functions[0], 0, ori::R(1)).find("not a compare of the selector"), std::string::npos);
}

// More than kMaxSwitchHeads heads in one function: the first are checked
// (here all unchanged), the rest get one unknown line.
TEST(SwitchExtract, TooManyHeadsGetOneUnknownLine) {
  std::string text = ".entry many()\n{\n  S2R R1, SR_TID.X\n";
  const size_t n = ori::verify::kMaxSwitchHeads + 2;
  for (size_t k = 0; k < n; ++k)
    text += "  ISETP.EQ.U32.AND P0, PT, R1, " + std::to_string(k) + ", PT\n  @P0 BRA out\n  MOV R2, RZ\n";
  text += "out:\n  EXIT\n}\n";
  Module m = parseModule(text);
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(m.functions[0], m.functions[0]);
  ASSERT_EQ(rs.size(), ori::verify::kMaxSwitchHeads + 1);
  EXPECT_EQ(rs.front().verdict, Verdict::Unchanged) << rs.front().line;
  EXPECT_EQ(rs.back().verdict, Verdict::Unknown);
  EXPECT_EQ(rs.back().line, "switch: unknown: 2 more switch heads in many not checked (limit 2000)");
}

// Two blocks with the id of a leaf (deflt's id given to case2 as well): which
// block a target names is unknown, so nothing is extracted.
TEST(SwitchExtract, AmbiguousLeafIdentityIsAnError) {
  Module m = parseModule(kTree);
  Function& f = m.functions[0];
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
  const Function& f = m.functions[0];
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
    EXPECT_NE(rep.lines.find("verify phase 30 DoSwitchOptSecond: switch at bix0 (L0) in sw (selector R1): proved"),
              std::string::npos)
        << rep.lines;
    EXPECT_FALSE(rep.refuted) << rep.lines;
    ori::VerifyReport other = ori::verifyStep(p.before, p.after, "phase 15 OriBranchOpt", opts);
    EXPECT_EQ(other.lines.find("switch at"), std::string::npos) << other.lines;
  }
  {
    Pair p = treePair(kGapToCase);
    ori::VerifyReport rep = ori::verifyStep(p.before, p.after, "phase 30 DoSwitchOptSecond", opts);
    EXPECT_NE(rep.lines.find("verify phase 30 DoSwitchOptSecond: switch at bix0 (L0) in sw (selector R1): refuted: "
                             "selector 0x5 goes to deflt before, to case6 after"),
              std::string::npos)
        << rep.lines;
    EXPECT_TRUE(rep.refuted);
  }
}

// ---------------------------------------------------------------- bit tests
//
// switch (sel) { case 2, 4, 7: ta; case 3, 8: tb; default: deflt }, the
// selector a kernel parameter (so the interpreter can run any 32-bit value).
// Each body stores its number to out[0]: ta 1, tb 2, tc 3, deflt 0.
// Before: the cascade of unsigned EQ tests. After: the bit-test lowering of
// DoSwitchOpt, v = sel - 2, `v >u 7` to deflt, then bit = 1 << v tested with
// 0x25 (bits 0, 2, 5: sel 2, 4, 7) to ta and 0x42 (bits 1, 6: sel 3, 8) to
// tb, the rest (sel 5, 6, 9) to deflt. "Covered": sel 5, 6, 9 go to tc in
// the cascade too, and the last block is `BRA tc` instead of `BRA deflt`.
const std::string kBitHead = R"(.entry bt(.u32 sel, .u64 out)
{
  LDC R1, c[0x0][0x210]
)";

const std::string kBitBodies = R"(ta:
  MOV R2, 0x1
  BRA join
tb:
  MOV R2, 0x2
  BRA join
tc:
  MOV R2, 0x3
  BRA join
deflt:
  MOV R2, RZ
join:
  LDC.64 R4, c[0x0][0x218]
  STG.E [R4], R2
  EXIT
}
)";

std::string bitCascade(bool covered) {
  std::vector<std::pair<int, std::string>> cases = {{2, "ta"}, {3, "tb"}, {4, "ta"}, {7, "ta"}, {8, "tb"}};
  if (covered) cases.insert(cases.end(), {{5, "tc"}, {6, "tc"}, {9, "tc"}});
  std::string text = kBitHead;
  for (const auto& [k, to] : cases)
    text += "  ISETP.EQ.U32.AND P0, PT, R1, " + std::to_string(k) + ", PT\n  @P0 BRA " + to + "\n";
  return text + "  BRA deflt\n" + kBitBodies;
}

const std::string kBitTests = kBitHead + R"(  IADD3 R9, R1, -0x2, RZ
  ISETP.GT.U32.AND P0, PT, R9, 0x7, PT
  @P0 BRA deflt
  MOV R10, 0x1
  SHL R11, R10, R9
  LOP3.LUT R12, R11, 0x25, RZ, 0xc0
  ISETP.NE.U32.AND P1, PT, R12, RZ, PT
  @P1 BRA ta
  LOP3.LUT R13, R11, 0x42, RZ, 0xc0
  ISETP.NE.U32.AND P2, PT, R13, RZ, PT
  @P2 BRA tb
  BRA deflt
)" + kBitBodies;
const std::string kBitTestsCovered = replaced(kBitTests, "@P2 BRA tb\n  BRA deflt", "@P2 BRA tb\n  BRA tc");
// Without the range check (the IADD3 stays: the SHL shifts by v).
const std::string kNoBound = "  ISETP.GT.U32.AND P0, PT, R9, 0x7, PT\n  @P0 BRA deflt\n";

Pair bitPair(bool covered, const std::string& afterText) {
  Pair p{parseModule(bitCascade(covered)), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0));
  return p;
}

// Selectors around every mask bit and bound, and where SHL's amount is 32 or
// more: v = sel - 2 of 32 (sel 34; masked to 5 bits it would be bit 0, in
// 0x25), 64, and the wrapped negatives.
std::vector<uint32_t> probeSelectors() {
  std::vector<uint32_t> sels;
  for (uint32_t s = 0; s <= 40; ++s) sels.push_back(s);
  for (uint32_t s : {0x42u, 0x43u, 0x7fffffffu, 0x80000000u, 0x80000002u, 0x80000022u, 0xfffffffeu, 0xffffffffu})
    sels.push_back(s);
  return sels;
}

// The interpreter runs the kernel of `m` on each probe selector (parameter
// `selParam`), and what it stores to out[0] is the number of the body the
// program extracted from the kernel names: the extraction is what the code
// does, SHL's large amounts included.
void expectProgramIsWhatRuns(const Module& m, ori::Reg selector, const std::string& selParam,
                             const std::string& outParam, const std::map<std::string, int32_t>& stores) {
  const Function& f = m.functions.at(0);
  DispatchProgram p = program(f, 0, selector);
  std::map<uint32_t, int32_t> byId;
  for (const auto& [label, v] : stores) byId[idOf(f, label)] = v;
  for (uint32_t sel : probeSelectors()) {
    ori::RunConfig cfg;
    cfg.params[selParam] = sel;
    cfg.buffers[outParam] = std::vector<uint8_t>(4, 0xee);
    ori::RunResult r = ori::runKernel(m, cfg);
    ASSERT_EQ(r.kind, ori::RunResult::Kind::Ok) << r.message;
    const std::vector<uint8_t>& b = r.buffers[outParam];
    int32_t stored = int32_t(uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24);
    auto it = byId.find(dispatchTarget(p, sel));
    ASSERT_NE(it, byId.end()) << "selector " << sel << " reaches no body";
    EXPECT_EQ(it->second, stored) << "selector " << sel;
  }
}

// The pass's lowering against the cascade it replaces, both layouts: proved.
// Nodes: before 5 (8) compares and 3 (4) targets; after the range compare,
// two BitTest nodes with the masks and bias 2, and 3 (4) targets.
TEST(SwitchExtract, BitTestLoweringIsProved) {
  {
    Pair p = bitPair(false, kBitTests);
    SwitchCheckResult r = onlyResult(p);
    EXPECT_EQ(r.line, "switch at bix0 (L0) in bt (selector R1): proved (8 nodes -> 6 nodes)");
    DispatchProgram pa = program(p.a(), 0, ori::R(1));
    std::vector<uint32_t> masks;
    for (const ori::verify::DispatchNode& n : pa.nodes)
      if (n.kind == ori::verify::DispatchNode::Kind::BitTest) {
        EXPECT_EQ(n.bias, 2u);
        ASSERT_EQ(n.clusters.size(), 1u);
        masks.push_back(n.clusters[0].first);
      }
    EXPECT_EQ(masks, (std::vector<uint32_t>{0x42, 0x25})); // children first
    std::map<uint32_t, std::string> want = {{2, "ta"}, {3, "tb"}, {4, "ta"}, {7, "ta"}, {8, "tb"}};
    for (uint32_t sel : probeSelectors())
      EXPECT_EQ(dispatchTarget(pa, sel), idOf(p.b(), want.count(sel) ? want[sel] : "deflt")) << sel;
  }
  {
    Pair p = bitPair(true, kBitTestsCovered);
    SwitchCheckResult r = onlyResult(p);
    EXPECT_EQ(r.line, "switch at bix0 (L0) in bt (selector R1): proved (12 nodes -> 7 nodes)");
    DispatchProgram pa = program(p.a(), 0, ori::R(1));
    EXPECT_EQ(dispatchTarget(pa, 6), idOf(p.b(), "tc"));
    EXPECT_EQ(dispatchTarget(pa, 10), idOf(p.b(), "deflt"));
  }
  expectProgramIsWhatRuns(parseModule(kBitTests), ori::R(1), "sel", "out",
                          {{"ta", 1}, {"tb", 2}, {"tc", 3}, {"deflt", 0}});
}

// The same with every source order and LUT the evaluation must see through:
// the AND written as `0x25 & (RZ | R11)` (LUT 0xe0 = a & (b | c), b = RZ),
// the test as `RZ == R12` with the branch on its negation, and B2 testing EQ
// to deflt with `BRA tb` after it. The same dispatch: proved.
TEST(SwitchExtract, BitTestInAnyOperandOrderIsProved) {
  std::string text = replaced(kBitTests,
                              "LOP3.LUT R12, R11, 0x25, RZ, 0xc0\n  ISETP.NE.U32.AND P1, PT, R12, RZ, PT\n  @P1",
                              "LOP3.LUT R12, 0x25, RZ, R11, 0xe0\n  ISETP.EQ.U32.AND P1, PT, RZ, R12, PT\n  @!P1");
  text = replaced(text, "ISETP.NE.U32.AND P2, PT, R13, RZ, PT\n  @P2 BRA tb\n  BRA deflt",
                  "ISETP.EQ.S32.AND P2, PT, R13, 0x0, PT\n  @P2 BRA deflt\n  BRA tb");
  Pair p = bitPair(false, text);
  SwitchCheckResult r = onlyResult(p);
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
}

// One bit missing from ta's mask (0x21: bit 2, sel 4, gone): sel 4 is in
// neither mask and falls to deflt. Only sel 4 goes elsewhere.
TEST(SwitchExtract, BitTestMaskMissingABitIsRefutedAtThatBit) {
  Pair p = bitPair(false, replaced(kBitTests, "R11, 0x25, RZ", "R11, 0x21, RZ"));
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 4u);
  EXPECT_EQ(r.line, "switch at bix0 (L0) in bt (selector R1): refuted: selector 0x4 goes to ta before, "
                    "to deflt after");
}

// No range check. Uncovered, the masks bound the dispatch themselves: v of 8
// to 31 has a bit in neither mask, v >= 32 (sel < 2 or sel > 33) has no bit
// (SHL gives 0), so everything outside sel 2..9 still reaches deflt: proved.
// (Were the amount taken modulo 32, sel 34 would reach ta.) Covered, the last
// block sends all of them to tc: refuted with some selector outside 2..9,
// deflt before and tc after. The interpreter agrees with both programs.
TEST(SwitchExtract, BitTestWithoutRangeCheck) {
  {
    Pair p = bitPair(false, replaced(kBitTests, kNoBound, ""));
    SwitchCheckResult r = onlyResult(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
    EXPECT_EQ(dispatchTarget(program(p.a(), 0, ori::R(1)), 34), idOf(p.b(), "deflt"));
    expectProgramIsWhatRuns(p.after, ori::R(1), "sel", "out", {{"ta", 1}, {"tb", 2}, {"tc", 3}, {"deflt", 0}});
  }
  {
    Pair p = bitPair(true, replaced(kBitTestsCovered, kNoBound, ""));
    SwitchCheckResult r = onlyResult(p);
    expectRealCounterexample(p, r);
    ASSERT_TRUE(r.counterexample);
    EXPECT_GT(*r.counterexample - 2, 7u) << *r.counterexample; // outside 2..9
    EXPECT_EQ(r.beforeTarget, idOf(p.b(), "deflt"));
    EXPECT_EQ(r.afterTarget, idOf(p.b(), "tc"));
    expectProgramIsWhatRuns(p.after, ori::R(1), "sel", "out", {{"ta", 1}, {"tb", 2}, {"tc", 3}, {"deflt", 0}});
  }
}

// A LOP3 whose LUT is not AND with the bit (0xfc: R11 | 0x25, never 0) is not
// a bit test: the block that holds it is a leaf, where every selector of 2..9
// goes. Refuted: sel 2 reaches that leaf instead of ta (the first case the
// cascade tests; any of 2..9 goes elsewhere).
TEST(SwitchExtract, Lop3ThatIsNotAndIsALeaf) {
  Pair p = bitPair(false, replaced(kBitTests, "R11, 0x25, RZ, 0xc0", "R11, 0x25, RZ, 0xfc"));
  DispatchProgram pa = program(p.a(), 0, ori::R(1));
  const uint32_t b1 = p.a().blocks[1].labelId;
  EXPECT_EQ(pa.nodes.size(), 3u); // deflt, the leaf, the range compare
  for (const ori::verify::DispatchNode& n : pa.nodes) EXPECT_NE(n.kind, ori::verify::DispatchNode::Kind::BitTest);
  for (uint32_t sel = 2; sel <= 9; ++sel) EXPECT_EQ(dispatchTarget(pa, sel), b1) << sel;
  EXPECT_EQ(dispatchTarget(pa, 10), idOf(p.b(), "deflt"));
  SwitchCheckResult r = onlyResult(p);
  expectRealCounterexample(p, r);
  EXPECT_GE(*r.counterexample, 2u);
  EXPECT_LE(*r.counterexample, 9u);
  EXPECT_EQ(r.afterTarget, b1);
}

// Facts end where a register is written again: B2 overwrites the bit R11
// with sel - 1 before masking it, so B2 is a leaf (sel 3, in tb's mask, goes
// there), while B1's test still stands (sel 2 -> ta). And a block that makes a
// constant or a bit and leaves it for later (a case body `MOV R2, 0x1; BRA
// join`, or a SHL whose bit nothing in the block reads) is a leaf, not a
// trampoline to join.
TEST(SwitchExtract, BitFactsEndWhereTheRegisterIsWritten) {
  {
    Pair p = bitPair(false, replaced(kBitTests, "  LOP3.LUT R13", "  IADD3 R11, R9, 0x1, RZ\n  LOP3.LUT R13"));
    DispatchProgram pa = program(p.a(), 0, ori::R(1));
    EXPECT_EQ(dispatchTarget(pa, 2), idOf(p.b(), "ta"));
    EXPECT_EQ(dispatchTarget(pa, 3), p.a().blocks[2].labelId);
    EXPECT_EQ(dispatchTarget(pa, 5), p.a().blocks[2].labelId);
  }
  Module m = parseModule(R"(.entry k()
{
  S2R R1, SR_TID.X
  ISETP.GT.U32.AND P0, PT, R1, 0x7, PT
  @P0 BRA shl
  MOV R2, 0x1
  BRA join
shl:
  MOV R10, 0x1
  SHL R11, R10, R1
  BRA join
join:
  EXIT
}
)");
  const Function& f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 3), f.blocks[1].labelId);
  EXPECT_EQ(dispatchTarget(p, 8), idOf(f, "shl"));
}

// A case body that computes from the selector and jumps on (`IADD3 R5, R1,
// k, RZ; BRA join`) leaves a value for later: it is a leaf, not a trampoline
// to join. Read as trampolines, both bodies would be `join`, and swapping
// them (selector 1 now gets 1 + 0x20 where it got 1 + 0x10) would be proved.
TEST(SwitchExtract, BodyThatComputesFromTheSelectorIsALeaf) {
  const char* text = R"(.entry k()
{
  S2R R1, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R1, 0x1, PT
  @P0 BRA a
  ISETP.EQ.U32.AND P1, PT, R1, 0x2, PT
  @P1 BRA b
  BRA join
a:
  IADD3 R5, R1, 0x10, RZ
  BRA join
b:
  IADD3 R5, R1, 0x20, RZ
  BRA join
join:
  EXIT
}
)";
  Module before = parseModule(text);
  Module after = parseModule(replaced(replaced(text, "@P0 BRA a", "@P0 BRA b"), "@P1 BRA b", "@P1 BRA a"));
  const Function& f = before.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 1), idOf(f, "a"));
  EXPECT_EQ(dispatchTarget(p, 2), idOf(f, "b"));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "join"));
  bool refuted = false;
  for (const SwitchCheckResult& r : ori::verify::checkSwitchRewrites(before.functions[0], after.functions[0])) {
    EXPECT_NE(r.verdict, Verdict::Proved) << r.line;
    refuted = refuted || r.verdict == Verdict::Refuted;
  }
  EXPECT_TRUE(refuted);
}

// nvcc 13's own bit tests: sw_fewtargets.cu (examples/switches) through
// `nvcc -arch=sm_90 -ptx` and `oriopt --phases=30`, which leaves it as nvcc
// wrote it. 0x249249 has bits 0, 3, ..., 21 (-> $L__BB0_5, stores 100),
// 0x492492 bits 1, 4, ..., 22 (-> $L__BB0_4, 200); the rest of 0..23 (2, 5,
// ..., 23) reach $L__BB0_3 (300), anything >u 23 $L__BB0_6 (-1).
const std::string kNvccFewTargets = R"(.entry sw_fewtargets(.u32 sw_fewtargets_param_0, .u64 sw_fewtargets_param_1)
{
  .reg .b32 %r1 = R0
  .reg .b64 %rd2 = R1, %rd1 = R2
  .reg .b32 %r3 = R3, %r4 = R4, %r5 = R5, %r8 = R6, %r10 = R7, %r11 = R8, %r9 = R9, %r12 = R10
  .reg .pred %p1 = P0, %p2 = P1, %p3 = P2
  LDC %r1, c[0x0][0x210]
  LDC.64 %rd2, c[0x0][0x218]
  MOV.64 %rd1, %rd2
  ISETP.GT.U32.AND %p1, PT, %r1, 0x17, PT
  @%p1 BRA $L__BB0_6
  MOV %r3, 0x1
  SHL %r4, %r3, %r1
  LOP3.LUT %r5, %r4, 0x249249, RZ, 0xc0
  ISETP.NE.S32.AND %p2, PT, %r5, 0x0, PT
  @%p2 BRA $L__BB0_5
  LOP3.LUT %r8, %r4, 0x492492, RZ, 0xc0
  ISETP.NE.S32.AND %p3, PT, %r8, 0x0, PT
  @%p3 BRA $L__BB0_4
  BRA.U $L__BB0_3
$L__BB0_4:
  MOV %r10, 0xc8
  STG.E [%rd1], %r10
  BRA.U $L__BB0_7
$L__BB0_5:
  MOV %r11, 0x64
  STG.E [%rd1], %r11
  BRA.U $L__BB0_7
$L__BB0_3:
  MOV %r9, 0x12c
  STG.E [%rd1], %r9
$L__BB0_7:
  RET
$L__BB0_6:
  MOV %r12, -0x1
  STG.E [%rd1], %r12
  BRA.U $L__BB0_7
}
)";

// The compare cascade of the same switch: case k to the body of k % 3.
std::string fewTargetsCascade() {
  static const char* const body[3] = {"$L__BB0_5", "$L__BB0_4", "$L__BB0_3"};
  std::string text = R"(.entry sw_fewtargets(.u32 sw_fewtargets_param_0, .u64 sw_fewtargets_param_1)
{
  LDC R0, c[0x0][0x210]
  LDC.64 R2, c[0x0][0x218]
)";
  for (int k = 0; k <= 23; ++k)
    text += "  ISETP.EQ.U32.AND P0, PT, R0, " + std::to_string(k) + ", PT\n  @P0 BRA " + body[k % 3] + "\n";
  return text + R"(  BRA $L__BB0_6
$L__BB0_4:
  MOV R7, 0xc8
  STG.E [R2], R7
  BRA $L__BB0_7
$L__BB0_5:
  MOV R8, 0x64
  STG.E [R2], R8
  BRA $L__BB0_7
$L__BB0_3:
  MOV R9, 0x12c
  STG.E [R2], R9
$L__BB0_7:
  RET
$L__BB0_6:
  MOV R10, -0x1
  STG.E [R2], R10
  BRA $L__BB0_7
}
)";
}

Pair fewTargetsPair(const std::string& afterText) {
  Pair p{parseModule(fewTargetsCascade()), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0));
  return p;
}

const std::map<std::string, int32_t> kFewTargetsStores = {
    {"$L__BB0_5", 100}, {"$L__BB0_4", 200}, {"$L__BB0_3", 300}, {"$L__BB0_6", -1}};

// nvcc's bit tests against the cascade: proved (24 compares and 4 targets ->
// the range compare, two bit tests, 4 targets), and the interpreter stores
// what the extracted program says. Dropping bit 21 from the first mask sends
// 21 to $L__BB0_3 (it is in neither mask): refuted at 21.
TEST(SwitchExtract, NvccBitTestsAreRead) {
  {
    Pair p = fewTargetsPair(kNvccFewTargets);
    std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].line, "switch at bix0 (L0) in sw_fewtargets (selector R0): proved (28 nodes -> 7 nodes)");
    DispatchProgram pa = program(p.a(), 0, ori::R(0));
    for (uint32_t sel : probeSelectors()) {
      const char* want = sel > 23 ? "$L__BB0_6" : sel % 3 == 0 ? "$L__BB0_5" : sel % 3 == 1 ? "$L__BB0_4" : "$L__BB0_3";
      EXPECT_EQ(dispatchTarget(pa, sel), idOf(p.b(), want)) << sel;
    }
    expectProgramIsWhatRuns(p.after, ori::R(0), "sw_fewtargets_param_0", "sw_fewtargets_param_1", kFewTargetsStores);
  }
  {
    Pair p = fewTargetsPair(replaced(kNvccFewTargets, "0x249249", "0x049249"));
    std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
    ASSERT_EQ(rs.size(), 1u);
    expectRealCounterexample(p, rs[0]);
    EXPECT_EQ(rs[0].counterexample, 21u);
    EXPECT_EQ(rs[0].line, "switch at bix0 (L0) in sw_fewtargets (selector R0): refuted: selector 0x15 goes to "
                          "$L__BB0_5 before, to $L__BB0_3 after");
  }
}

// nvcc's sw_ranges.cu (examples/switches), read the same way: range checks
// below 10 (IADD3 and LT.U32), and above 9 a bound `>u 20` and three bit
// tests, the last after a second MOV 1 and SHL: 0x1e0000 (17..20 -> 70),
// 0x3800 (11..13 -> 50), 0x1c000 (14..16 -> 60), then 10 -> 40 by EQ. From
// the .cu: 1..3 -> 10, 4..5 -> 20, 6..9 -> 30, anything else -> -1 (negatives
// too). Every dispatch block is read (three BitTest nodes), each selector
// reaches the body the source gives it, and the interpreter agrees.
const std::string kNvccRanges = R"(.entry sw_ranges(.u32 sw_ranges_param_0, .u64 sw_ranges_param_1)
{
  .reg .b32 %r1 = R0
  .reg .b64 %rd2 = R1, %rd1 = R2
  .reg .b32 %r12 = R3, %r13 = R4, %r21 = R5, %r3 = R6, %r4 = R7, %r5 = R8, %r8 = R9, %r9 = R10
  .reg .b32 %r10 = R11, %r11 = R12, %r16 = R13, %r19 = R14, %r15 = R15, %r14 = R16, %r20 = R17, %r17 = R18
  .reg .b32 %r18 = R19, %r22 = R20
  .reg .pred %p1 = P0, %p7 = P1, %p8 = P2, %p2 = P3, %p3 = P4, %p4 = P5, %p5 = P6, %p9 = P7
  .reg .pred %p6 = P8
  LDC %r1, c[0x0][0x210]
  LDC.64 %rd2, c[0x0][0x218]
  MOV.64 %rd1, %rd2
  ISETP.GT.S32.AND %p1, PT, %r1, 0x9, PT
  @%p1 BRA $L__BB0_5
  IADD3 %r12, %r1, -0x6, RZ
  ISETP.LT.U32.AND %p7, PT, %r12, 0x4, PT
  @%p7 BRA $L__BB0_13
  IADD3 %r13, %r1, -0x1, RZ
  ISETP.LT.U32.AND %p8, PT, %r13, 0x3, PT
  @%p8 BRA $L__BB0_14
  BRA.U $L__BB0_3
$L__BB0_14:
  MOV %r21, 0xa
  STG.E [%rd1], %r21
  BRA.U $L__BB0_16
$L__BB0_5:
  ISETP.GT.U32.AND %p2, PT, %r1, 0x14, PT
  @%p2 BRA $L__BB0_6
  MOV %r3, 0x1
  SHL %r4, %r3, %r1
  LOP3.LUT %r5, %r4, 0x1e0000, RZ, 0xc0
  ISETP.NE.S32.AND %p3, PT, %r5, 0x0, PT
  @%p3 BRA $L__BB0_17
  LOP3.LUT %r8, %r4, 0x3800, RZ, 0xc0
  ISETP.NE.S32.AND %p4, PT, %r8, 0x0, PT
  @%p4 BRA $L__BB0_12
  MOV %r9, 0x1
  SHL %r10, %r9, %r1
  LOP3.LUT %r11, %r10, 0x1c000, RZ, 0xc0
  ISETP.NE.S32.AND %p5, PT, %r11, 0x0, PT
  @%p5 BRA $L__BB0_11
  BRA.U $L__BB0_6
$L__BB0_11:
  MOV %r16, 0x3c
  STG.E [%rd1], %r16
  BRA.U $L__BB0_16
$L__BB0_13:
  MOV %r19, 0x1e
  STG.E [%rd1], %r19
  BRA.U $L__BB0_16
$L__BB0_17:
  MOV %r15, 0x46
  STG.E [%rd1], %r15
  BRA.U $L__BB0_16
$L__BB0_3:
  IADD3 %r14, %r1, -0x4, RZ
  ISETP.LT.U32.AND %p9, PT, %r14, 0x2, PT
  @%p9 BRA $L__BB0_4
  BRA.U $L__BB0_15
$L__BB0_4:
  MOV %r20, 0x14
  STG.E [%rd1], %r20
  BRA.U $L__BB0_16
$L__BB0_12:
  MOV %r17, 0x32
  STG.E [%rd1], %r17
  BRA.U $L__BB0_16
$L__BB0_6:
  ISETP.EQ.S32.AND %p6, PT, %r1, 0xa, PT
  @%p6 BRA $L__BB0_7
  BRA.U $L__BB0_15
$L__BB0_7:
  MOV %r18, 0x28
  STG.E [%rd1], %r18
  BRA.U $L__BB0_16
$L__BB0_15:
  MOV %r22, -0x1
  STG.E [%rd1], %r22
$L__BB0_16:
  RET
}
)";

TEST(SwitchExtract, NvccRangesWithTwoShiftsAreRead) {
  Module m = parseModule(kNvccRanges);
  const Function& f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(0));
  size_t bitTests = 0;
  for (const ori::verify::DispatchNode& n : p.nodes) bitTests += n.kind == ori::verify::DispatchNode::Kind::BitTest;
  EXPECT_EQ(bitTests, 3u);
  const std::map<std::string, int32_t> stores = {{"$L__BB0_14", 10}, {"$L__BB0_4", 20},  {"$L__BB0_13", 30},
                                                 {"$L__BB0_7", 40},  {"$L__BB0_12", 50}, {"$L__BB0_11", 60},
                                                 {"$L__BB0_17", 70}, {"$L__BB0_15", -1}};
  std::map<uint32_t, int32_t> byId;
  for (const auto& [label, v] : stores) byId[idOf(f, label)] = v;
  for (uint32_t sel : probeSelectors()) {
    int32_t want = -1;
    if (sel >= 1 && sel <= 3) want = 10;
    else if (sel >= 4 && sel <= 5) want = 20;
    else if (sel >= 6 && sel <= 9) want = 30;
    else if (sel == 10) want = 40;
    else if (sel >= 11 && sel <= 13) want = 50;
    else if (sel >= 14 && sel <= 16) want = 60;
    else if (sel >= 17 && sel <= 20) want = 70;
    auto it = byId.find(dispatchTarget(p, sel));
    ASSERT_NE(it, byId.end()) << "selector " << sel << " reaches no body";
    EXPECT_EQ(it->second, want) << sel;
  }
  expectProgramIsWhatRuns(m, ori::R(0), "sw_ranges_param_0", "sw_ranges_param_1", stores);
}

// ---------------------------------------------------------------- 16-bit selectors (SGXT) and the head's bound
//
// examples/switch16.cu through `nvcc -arch=sm_90 -ptx` and `oriopt --phases=30`
// (which leaves it as nvcc wrote it), trimmed to the head (made the entry: the
// `i >= n` exit and the address arithmetic are gone, the load reads in[0])
// and the dispatch blocks and bodies. switch (in[0] & 15): case k (0..11)
// stores 10 + 11k, anything else -1. nvcc narrows the selector to 16 bits:
// the head makes S = %rs1 = LDG.U16 & 0xf (LOP3 0xc0 = a & b: S <= 0xf), and
// presets r = 10 (case 0, which branches straight to the join $L__BB0_28).
// The range splits compare SGXT(S, 16) (signed > 5, > 2, > 8), the leaves S
// itself (unsigned EQ; the last one NE 11 to the default $L__BB0_27, falling
// through into the unlabelled case-11 body, kS16Case11Bix). SGXT(S, 16) = S
// for S < 2^15, so with U = 15 every split is read as a compare of S:
//   head: S >s 5 -> $L__BB0_11, else bix1: S >s 2 -> $L__BB0_7, else
//   0 -> $L__BB0_28, 1 -> 26, 2 -> 6, else (bix5, BRA.U) 27;
//   $L__BB0_7: 3 -> 25, 4 -> 24, 5 -> 10, else 27;
//   $L__BB0_11: S >s 8 -> $L__BB0_16, else 6 -> 23, 7 -> 22, 8 -> 15, else 27;
//   $L__BB0_16: 9 -> 21, 10 -> 20, != 11 -> 27, else the case-11 body.
// Program: 15 compares + 13 targets (12 case blocks and $L__BB0_27) = 28 nodes.
const std::string kS16Regs = R"(
  .reg .b64 %rd6 = R9, %rd7 = R18
  .reg .b16 %rs2 = R11
  .reg .b32 %ori_t12 = R12
  .reg .b16 %rs1 = R13
  .reg .b32 %r20 = R14, %ori_t15 = R15, %ori_t16 = R16, %ori_t17 = R17
  .reg .pred %p2 = P1, %p10 = P2, %p14 = P3, %p15 = P4, %p16 = P5, %p3 = P6, %p7 = P7
  .reg .pred %p8 = P8, %p9 = P9, %p11 = P10, %p12 = P11, %p13 = P12, %p4 = P13, %p5 = P14, %p6 = P15
)";

// The head's selector computation (replaced by the variants below).
const std::string kS16Select = R"(  LDG.E.U16 %rs2, [%rd6]
  LOP3.LUT %ori_t12, %rs2, 0xf, RZ, 0xc0
  MOV %rs1, %ori_t12
)";

const std::string kS16HeadStart = ".entry switch16(.u64 in, .u64 out, .u32 sel)\n{" + kS16Regs +
                                  "  LDC.64 %rd6, c[0x0][0x210]\n" + kS16Select + "  MOV %r20, 0xa\n";

// Every body but case 11's (unlabelled in the tree, labelled case11 in the
// lowerings), the default and the join.
const std::string kS16Bodies = R"($L__BB0_6:
  MOV %r20, 0x20
  BRA.U $L__BB0_28
$L__BB0_15:
  MOV %r20, 0x62
  BRA.U $L__BB0_28
$L__BB0_10:
  MOV %r20, 0x41
  BRA.U $L__BB0_28
$L__BB0_26:
  MOV %r20, 0x15
  BRA.U $L__BB0_28
$L__BB0_23:
  MOV %r20, 0x4c
  BRA.U $L__BB0_28
$L__BB0_22:
  MOV %r20, 0x57
  BRA.U $L__BB0_28
$L__BB0_25:
  MOV %r20, 0x2b
  BRA.U $L__BB0_28
$L__BB0_24:
  MOV %r20, 0x36
  BRA.U $L__BB0_28
$L__BB0_21:
  MOV %r20, 0x6d
  BRA.U $L__BB0_28
$L__BB0_20:
  MOV %r20, 0x78
  BRA.U $L__BB0_28
$L__BB0_27:
  MOV %r20, -0x1
$L__BB0_28:
  LDC.64 %rd7, c[0x0][0x218]
  STG.E [%rd7], %r20
  RET
}
)";

const std::string kS16Tree = kS16HeadStart + R"(  SGXT %ori_t15, %rs1, 0x10
  ISETP.GT.S32.AND %p2, PT, %ori_t15, 0x5, PT
  @%p2 BRA $L__BB0_11
  SGXT %ori_t16, %rs1, 0x10
  ISETP.GT.S32.AND %p10, PT, %ori_t16, 0x2, PT
  @%p10 BRA $L__BB0_7
  ISETP.EQ.U32.AND %p14, PT, %rs1, 0x0, PT
  @%p14 BRA $L__BB0_28
  ISETP.EQ.U32.AND %p15, PT, %rs1, 0x1, PT
  @%p15 BRA $L__BB0_26
  ISETP.EQ.U32.AND %p16, PT, %rs1, 0x2, PT
  @%p16 BRA $L__BB0_6
  BRA.U $L__BB0_27
$L__BB0_11:
  SGXT %ori_t17, %rs1, 0x10
  ISETP.GT.S32.AND %p3, PT, %ori_t17, 0x8, PT
  @%p3 BRA $L__BB0_16
  ISETP.EQ.U32.AND %p7, PT, %rs1, 0x6, PT
  @%p7 BRA $L__BB0_23
  ISETP.EQ.U32.AND %p8, PT, %rs1, 0x7, PT
  @%p8 BRA $L__BB0_22
  ISETP.EQ.U32.AND %p9, PT, %rs1, 0x8, PT
  @%p9 BRA $L__BB0_15
  BRA.U $L__BB0_27
$L__BB0_7:
  ISETP.EQ.U32.AND %p11, PT, %rs1, 0x3, PT
  @%p11 BRA $L__BB0_25
  ISETP.EQ.U32.AND %p12, PT, %rs1, 0x4, PT
  @%p12 BRA $L__BB0_24
  ISETP.EQ.U32.AND %p13, PT, %rs1, 0x5, PT
  @%p13 BRA $L__BB0_10
  BRA.U $L__BB0_27
$L__BB0_16:
  ISETP.EQ.U32.AND %p4, PT, %rs1, 0x9, PT
  @%p4 BRA $L__BB0_21
  ISETP.EQ.U32.AND %p5, PT, %rs1, 0xa, PT
  @%p5 BRA $L__BB0_20
  ISETP.NE.U32.AND %p6, PT, %rs1, 0xb, PT
  @%p6 BRA $L__BB0_27
  MOV %r20, 0x83
  BRA.U $L__BB0_28
)" + kS16Bodies;
// The unlabelled block after `@%p6 BRA $L__BB0_27`: bix0 head, 1..5 the low
// chain (bix5 `BRA.U`), 6..10 $L__BB0_11's, 11..14 $L__BB0_7's, 15..17
// $L__BB0_16's, then the case-11 body.
constexpr uint32_t kS16Case11Bix = 18;

// The jump-table lowering, written by hand: bias 0, `S >u 0xb` -> the default,
// else BRX through the 12 entries of cases 0..11 (12..15 go to the default by
// the bound check). Program: the compare, the table, 12 entry targets and
// $L__BB0_27 = 15 nodes.
const std::string kS16Table = kS16HeadStart + R"(  ISETP.GT.U32.AND %p2, PT, %rs1, 0xb, PT
  @%p2 BRA $L__BB0_27
  BRX %rs1, tbl
case11:
  MOV %r20, 0x83
  BRA.U $L__BB0_28
)" + kS16Bodies;
const std::string kS16Entries = "$L__BB0_28, $L__BB0_26, $L__BB0_6, $L__BB0_25, $L__BB0_24, $L__BB0_10, $L__BB0_23, "
                                "$L__BB0_22, $L__BB0_15, $L__BB0_21, $L__BB0_20, case11";

// `after` with its jump table: `entries`, one per line of `.jumptable`.
std::string s16Lowering(const std::string& after, const std::string& entries) {
  return replaced(after, "{\n  .reg .b64 %rd6", "{\n  .jumptable tbl = {" + entries + "}\n  .reg .b64 %rd6");
}

Pair s16Pair(const std::string& beforeText, const std::string& afterText) {
  Pair p{parseModule(beforeText), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0), {{"case11", kS16Case11Bix}});
  return p;
}

// The one result of a switch16 pair: the head, bix0.
SwitchCheckResult s16Result(const Pair& p) {
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
  EXPECT_EQ(rs.size(), 1u);
  if (rs.empty()) return {};
  EXPECT_EQ(rs[0].headBix, 0u);
  for (const SwitchCheckResult& r : rs) EXPECT_NE(r.verdict, Verdict::Unchanged) << r.line;
  return rs[0];
}

const ori::Reg kS16Sel = ori::R(13); // %rs1

// The tree read under U = 15 is the dispatch derived above, and the
// interpreter, run on in[0] = v, stores what the body the program names for
// v & 15 stores: 10 + 11 (v & 15) for v & 15 <= 11, else -1 (v of 16 bits
// and more too: the LDG.U16 and the mask cut them).
TEST(SwitchExtract, Switch16TreeIsReadUnderTheHeadsBound) {
  Module m = parseModule(kS16Tree);
  const Function& f = m.functions[0];
  EXPECT_EQ(f.blocks[kS16Case11Bix].instrs.size(), 2u);
  EXPECT_TRUE(f.blocks[kS16Case11Bix].label.empty());
  ori::verify::SelectorBound b = ori::verify::selectorBound(f, 0, kS16Sel);
  EXPECT_EQ(b.max, 0xfu);
  EXPECT_EQ(b.by, "LOP3");
  DispatchProgram p = program(f, 0, kS16Sel);
  EXPECT_EQ(p.nodes.size(), 28u);
  const std::vector<std::string> body = {"$L__BB0_28", "$L__BB0_26", "$L__BB0_6",  "$L__BB0_25",
                                         "$L__BB0_24", "$L__BB0_10", "$L__BB0_23", "$L__BB0_22",
                                         "$L__BB0_15", "$L__BB0_21", "$L__BB0_20"};
  std::map<uint32_t, int32_t> stores = {{f.blocks[kS16Case11Bix].labelId, 131}, {idOf(f, "$L__BB0_27"), -1}};
  for (size_t k = 0; k < body.size(); ++k) stores[idOf(f, body[k])] = int32_t(10 + 11 * k);
  for (uint32_t sel = 0; sel <= 15; ++sel) {
    uint32_t want = sel == 11 ? f.blocks[kS16Case11Bix].labelId : sel < 11 ? idOf(f, body[sel]) : idOf(f, "$L__BB0_27");
    EXPECT_EQ(dispatchTarget(p, sel), want) << sel;
  }
  for (uint32_t v : {0u, 1u, 5u, 6u, 9u, 11u, 12u, 15u, 16u, 0x1bu, 0x7fffu, 0x8005u, 0xfffbu, 0xffffu, 0x1000au,
                     0xfffffff1u}) {
    ori::RunConfig cfg;
    cfg.params["sel"] = 0; // not read
    cfg.buffers["in"] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    cfg.buffers["out"] = std::vector<uint8_t>(4, 0xee);
    ori::RunResult r = ori::runKernel(m, cfg);
    ASSERT_EQ(r.kind, ori::RunResult::Kind::Ok) << r.message;
    const std::vector<uint8_t>& o = r.buffers["out"];
    int32_t stored = int32_t(uint32_t(o[0]) | uint32_t(o[1]) << 8 | uint32_t(o[2]) << 16 | uint32_t(o[3]) << 24);
    const uint32_t sel = v & 15;
    EXPECT_EQ(stored, sel <= 11 ? int32_t(10 + 11 * sel) : -1) << v;
    EXPECT_EQ(stores.at(dispatchTarget(p, sel)), stored) << v;
  }
}

// The tree against the hand-written jump table: proved, under U = 15 (the
// same LOP3 in both heads).
TEST(SwitchExtract, Switch16JumpTableIsProvedUnderTheBound) {
  Pair p = s16Pair(kS16Tree, s16Lowering(kS16Table, kS16Entries));
  SwitchCheckResult r = s16Result(p);
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
  EXPECT_EQ(r.selector, kS16Sel);
  EXPECT_EQ(r.maxSelector, 0xfu);
  EXPECT_EQ(r.line, "switch at bix0 (L0) in switch16 (selector %rs1): proved for selectors <= 0xf (the head's LOP3 "
                    "bounds it) (28 nodes -> 15 nodes)");
}

// No LOP3: S comes straight from the parameter `sel` (LDC, 32 bits: no
// bound), before and after. SGXT(S, 16) is then not S for every S (0x8000
// gives 0xffff8000), so the head's split is not read as a compare of S and
// the tree does not extract on S. The checker falls back to the SGXT's
// result %ori_t15 as the head's selector: before is read as the one split
// `%ori_t15 >s 5` between two leaves (the next blocks start with an SGXT of
// S, which is not dispatch on %ori_t15), but the jump table's head compares
// S, not %ori_t15: not a dispatch after the phase. Unknown, not refuted:
// the tree is in fact right for every S (its leaves test S exactly, so any S
// outside 0..11 reaches $L__BB0_27 whichever way the splits go), so no
// selector separates the two; and not proved, because proving it needs the
// splits read, which the missing bound forbids.
TEST(SwitchExtract, Switch16WithoutTheMaskIsNotRead) {
  const std::string noMask = "  LDC %rs1, c[0x0][0x220]\n";
  Pair p = s16Pair(replaced(kS16Tree, kS16Select, noMask),
                   s16Lowering(replaced(kS16Table, kS16Select, noMask), kS16Entries));
  EXPECT_EQ(ori::verify::selectorBound(p.b(), 0, kS16Sel).max, ori::verify::kAllSelectors);
  EXPECT_NE(errorOf(p.b(), 0, kS16Sel).find("is not a compare of the selector"), std::string::npos);
  SwitchCheckResult r = s16Result(p);
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.line;
  EXPECT_EQ(r.selector, ori::R(15)); // %ori_t15
  EXPECT_EQ(r.beforeNodes, 3u);
  EXPECT_NE(r.line.find("(selector %ori_t15): unknown: not a dispatch after the phase"), std::string::npos) << r.line;
  // The same with the mask 0xffff: U = 0xffff is not below 2^15, so SGXT is
  // not S for S = 0x8000: not read either.
  const std::string wide = replaced(kS16Select, "0xf, RZ", "0xffff, RZ");
  Module m = parseModule(replaced(kS16Tree, kS16Select, wide));
  EXPECT_EQ(ori::verify::selectorBound(m.functions[0], 0, kS16Sel).max, 0xffffu);
  EXPECT_NE(errorOf(m.functions[0], 0, kS16Sel).find("is not a compare of the selector"), std::string::npos);
  // 0x7fff is the largest mask that still lets SGXT(S, 16) read as S.
  Module m7 = parseModule(replaced(kS16Tree, kS16Select, replaced(kS16Select, "0xf, RZ", "0x7fff, RZ")));
  EXPECT_EQ(program(m7.functions[0], 0, kS16Sel).nodes.size(), 28u);
}

// Case 11 sent to the default (the table's last entry $L__BB0_27): wrong at
// exactly selector 11, which is <= 15: refuted there, the case-11 body (no
// label: L + its id) before, $L__BB0_27 after.
TEST(SwitchExtract, Switch16CaseSentToTheDefaultIsRefuted) {
  Pair p = s16Pair(kS16Tree, s16Lowering(kS16Table, replaced(kS16Entries, "case11", "$L__BB0_27")));
  SwitchCheckResult r = s16Result(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.counterexample, 11u);
  EXPECT_EQ(r.beforeTarget, p.b().blocks[kS16Case11Bix].labelId);
  EXPECT_EQ(r.afterTarget, idOf(p.b(), "$L__BB0_27"));
  EXPECT_EQ(r.line.rfind("switch at bix0 (L0) in switch16 (selector %rs1): refuted for selectors <= 0xf (the head's "
                         "LOP3 bounds it): selector 0xb goes to L",
                         0),
            0u)
      << r.line;
  EXPECT_NE(r.line.find(" before, to $L__BB0_27 after"), std::string::npos) << r.line;
}

// A lowering wrong only above 15: the bound check is `S >u 0x10` and the
// table has 17 entries, 12..15 the default and 16 $L__BB0_26 (the tree sends
// 16 to $L__BB0_27, as every S outside 0..11). Under U = 15 no selector
// reaches entry 16: proved. With the mask 0xff in both heads (U = 0xff, still
// below 2^15, so the tree is read the same way) S = 16 can occur and is the
// only selector <= 0xff (indeed the only one) that goes elsewhere: refuted at
// 0x10, $L__BB0_27 before, $L__BB0_26 after.
TEST(SwitchExtract, Switch16LoweringWrongAboveTheBound) {
  const std::string above = replaced(kS16Table, "%rs1, 0xb, PT", "%rs1, 0x10, PT");
  const std::string entries = kS16Entries + ", $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_26";
  {
    Pair p = s16Pair(kS16Tree, s16Lowering(above, entries));
    SwitchCheckResult r = s16Result(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
    EXPECT_EQ(dispatchTarget(program(p.a(), 0, kS16Sel), 16), idOf(p.b(), "$L__BB0_26"));
    EXPECT_EQ(r.line, "switch at bix0 (L0) in switch16 (selector %rs1): proved for selectors <= 0xf (the head's "
                      "LOP3 bounds it) (28 nodes -> 15 nodes)"); // its entries name no new block
  }
  {
    const std::string mask = replaced(kS16Select, "0xf, RZ", "0xff, RZ");
    Pair p = s16Pair(replaced(kS16Tree, kS16Select, mask), s16Lowering(replaced(above, kS16Select, mask), entries));
    SwitchCheckResult r = s16Result(p);
    expectRealCounterexample(p, r);
    EXPECT_EQ(r.maxSelector, 0xffu);
    EXPECT_EQ(r.counterexample, 16u);
    EXPECT_EQ(r.line, "switch at bix0 (L0) in switch16 (selector %rs1): refuted for selectors <= 0xff (the head's "
                      "LOP3 bounds it): selector 0x10 goes to $L__BB0_27 before, to $L__BB0_26 after");
  }
}

// The bound is read from the head on each side and the larger one is the
// precondition: the lowering of the test above with no LOP3 in its head
// (S = in[0] & 0xf moved to a MOV of the LDG result: no bound after) must
// hold for every selector, and 16 goes elsewhere: refuted at 0x10, with no
// bound in the line.
TEST(SwitchExtract, Switch16BoundIsTheLargerOfTheTwoHeads) {
  const std::string above = replaced(kS16Table, "%rs1, 0xb, PT", "%rs1, 0x10, PT");
  const std::string entries = kS16Entries + ", $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_26";
  const std::string noMask = "  LDG.E %rs1, [%rd6]\n";
  Pair p = s16Pair(kS16Tree, s16Lowering(replaced(above, kS16Select, noMask), entries));
  SwitchCheckResult r = s16Result(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.maxSelector, ori::verify::kAllSelectors);
  EXPECT_EQ(r.counterexample, 16u);
  EXPECT_EQ(r.line, "switch at bix0 (L0) in switch16 (selector %rs1): refuted: selector 0x10 goes to $L__BB0_27 "
                    "before, to $L__BB0_26 after");
}

// The bound rules, on the head `... ISETP.GT.U32 P0, R3, 0x5; @P0 BRA out`:
// a LOP3 AND through a MOV chain, the MOV chain reading each register's
// value before the MOV (a later write of R1 does not matter, an earlier one
// is not the LOP3's), at most 8 MOVs, MOV of a constant, the zero-extending
// loads (.U8, .U16, not .S16, not .64), and no bound for an OR LUT or a
// guarded writer.
TEST(SwitchExtract, SelectorBoundRules) {
  auto bound = [](const std::string& body) {
    Module m = parseModule(".entry b(.u64 p)\n{\n  LDC.64 R8, c[0x0][0x210]\n  LDG.E R0, [R8]\n" + body +
                           "  ISETP.GT.U32.AND P0, PT, R3, 0x5, PT\n  @P0 BRA out\n  EXIT\nout:\n  EXIT\n}\n");
    return ori::verify::selectorBound(m.functions[0], 0, ori::R(3));
  };
  const std::string lop3 = "  LOP3.LUT R1, R0, 0x3f, RZ, 0xc0\n";
  ori::verify::SelectorBound b = bound(lop3 + "  MOV R2, R1\n  MOV R3, R2\n");
  EXPECT_EQ(b.max, 0x3fu);
  EXPECT_EQ(b.by, "LOP3");
  EXPECT_EQ(bound("  LOP3.LUT R3, 0x3f, RZ, R0, 0x88\n").max, 0x3fu);      // b & c in another order
  EXPECT_EQ(bound(lop3 + "  MOV R2, R1\n  S2R R1, SR_TID.X\n  MOV R3, R2\n").max, 0x3fu);
  EXPECT_EQ(bound(lop3 + "  S2R R1, SR_TID.X\n  MOV R2, R1\n  MOV R3, R2\n").max, ori::verify::kAllSelectors);
  std::string chain = lop3 + "  MOV R10, R1\n";
  for (int k = 10; k < 16; ++k) chain += "  MOV R" + std::to_string(k + 1) + ", R" + std::to_string(k) + "\n";
  EXPECT_EQ(bound(chain + "  MOV R3, R16\n").max, 0x3fu);                     // 8 MOVs
  EXPECT_EQ(bound(chain + "  MOV R17, R16\n  MOV R3, R17\n").max, ori::verify::kAllSelectors); // 9
  b = bound("  MOV R3, 0x9\n");
  EXPECT_EQ(b.max, 9u);
  EXPECT_EQ(b.by, "MOV");
  b = bound("  LDG.E.U16 R3, [R8]\n");
  EXPECT_EQ(b.max, 0xffffu);
  EXPECT_EQ(b.by, "LDG.U16");
  EXPECT_EQ(bound("  LDG.E.U16 R2, [R8]\n  MOV R3, R2\n").max, 0xffffu);
  b = bound("  LDC.U8 R3, c[0x0][0x210]\n");
  EXPECT_EQ(b.max, 0xffu);
  EXPECT_EQ(b.by, "LDC.U8");
  EXPECT_EQ(bound("  LDG.E.S16 R3, [R8]\n").max, ori::verify::kAllSelectors);
  EXPECT_EQ(bound("  LDG.E R3, [R8]\n").max, ori::verify::kAllSelectors);
  EXPECT_EQ(bound("  LOP3.LUT R3, R0, 0x3f, RZ, 0xfc\n").max, ori::verify::kAllSelectors); // R0 | 0x3f
  EXPECT_EQ(bound("  LOP3.LUT R3, R0, 0x3f, R0, 0xc0\n").max, ori::verify::kAllSelectors); // no RZ
  EXPECT_EQ(bound("  ISETP.EQ.U32.AND P1, PT, R0, RZ, PT\n  @P1 LOP3.LUT R3, R0, 0x3f, RZ, 0xc0\n").max,
            ori::verify::kAllSelectors);
  EXPECT_EQ(bound(lop3 + "  ISETP.EQ.U32.AND P1, PT, R0, RZ, PT\n  @P1 MOV R3, R1\n").max,
            ori::verify::kAllSelectors);
  EXPECT_EQ(bound("").max, ori::verify::kAllSelectors); // not written in the head
}

} // namespace
