// Bit-test dispatch read back from Ori IR (verify/switch_extract.h): DoSwitchOpt's bit-test
// lowering and nvcc's own bit tests, each pair's verdict derived by hand in a comment, and the
// extracted program checked against what the interpreter runs.
#include <gtest/gtest.h>

#include "switch_extract_helpers.h"

namespace {

using namespace switch_test;

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
  std::vector<std::pair<int, std::string>> cases = {
      {2, "ta"}, {3, "tb"}, {4, "ta"}, {7, "ta"}, {8, "tb"}};
  if (covered)
    cases.insert(cases.end(), {{5, "tc"}, {6, "tc"}, {9, "tc"}});
  std::string text = kBitHead;
  for (const auto &[k, to] : cases)
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
const std::string kBitTestsCovered =
    replaced(kBitTests, "@P2 BRA tb\n  BRA deflt", "@P2 BRA tb\n  BRA tc");
// Without the range check (the IADD3 stays: the SHL shifts by v).
const std::string kNoBound = "  ISETP.GT.U32.AND P0, PT, R9, 0x7, PT\n  @P0 BRA deflt\n";

Pair bitPair(bool covered, const std::string &afterText) {
  Pair p{parseModule(bitCascade(covered)), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0));
  return p;
}

// Selectors around every mask bit and bound, and where SHL's amount is 32 or
// more: v = sel - 2 of 32 (sel 34; masked to 5 bits it would be bit 0, in
// 0x25), 64, and the wrapped negatives.
std::vector<uint32_t> probeSelectors() {
  std::vector<uint32_t> sels;
  for (uint32_t s = 0; s <= 40; ++s)
    sels.push_back(s);
  for (uint32_t s :
       {0x42u, 0x43u, 0x7fffffffu, 0x80000000u, 0x80000002u, 0x80000022u, 0xfffffffeu, 0xffffffffu})
    sels.push_back(s);
  return sels;
}

// The interpreter runs the kernel of `m` on each probe selector (parameter
// `selParam`), and what it stores to out[0] is the number of the body the
// program extracted from the kernel names: the extraction is what the code
// does, SHL's large amounts included.
void expectProgramIsWhatRuns(const Module &m, ori::Reg selector, const std::string &selParam,
                             const std::string &outParam,
                             const std::map<std::string, int32_t> &stores) {
  const Function &f = m.functions.at(0);
  DispatchProgram p = program(f, 0, selector);
  std::map<uint32_t, int32_t> byId;
  for (const auto &[label, v] : stores)
    byId[idOf(f, label)] = v;
  for (uint32_t sel : probeSelectors()) {
    ori::RunConfig cfg;
    cfg.params[selParam] = sel;
    cfg.buffers[outParam] = std::vector<uint8_t>(4, 0xee);
    ori::RunResult r = ori::runKernel(m, cfg);
    ASSERT_EQ(r.kind, ori::RunResult::Kind::Ok) << r.message;
    const std::vector<uint8_t> &b = r.buffers[outParam];
    int32_t stored =
        int32_t(uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24);
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
    for (const ori::verify::DispatchNode &n : pa.nodes)
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
  std::string text = replaced(
      kBitTests, "LOP3.LUT R12, R11, 0x25, RZ, 0xc0\n  ISETP.NE.U32.AND P1, PT, R12, RZ, PT\n  @P1",
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
  EXPECT_EQ(r.line,
            "switch at bix0 (L0) in bt (selector R1): refuted: selector 0x4 goes to ta before, "
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
    expectProgramIsWhatRuns(p.after, ori::R(1), "sel", "out",
                            {{"ta", 1}, {"tb", 2}, {"tc", 3}, {"deflt", 0}});
  }
  {
    Pair p = bitPair(true, replaced(kBitTestsCovered, kNoBound, ""));
    SwitchCheckResult r = onlyResult(p);
    expectRealCounterexample(p, r);
    ASSERT_TRUE(r.counterexample);
    EXPECT_GT(*r.counterexample - 2, 7u) << *r.counterexample; // outside 2..9
    EXPECT_EQ(r.beforeTarget, idOf(p.b(), "deflt"));
    EXPECT_EQ(r.afterTarget, idOf(p.b(), "tc"));
    expectProgramIsWhatRuns(p.after, ori::R(1), "sel", "out",
                            {{"ta", 1}, {"tb", 2}, {"tc", 3}, {"deflt", 0}});
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
  for (const ori::verify::DispatchNode &n : pa.nodes)
    EXPECT_NE(n.kind, ori::verify::DispatchNode::Kind::BitTest);
  for (uint32_t sel = 2; sel <= 9; ++sel)
    EXPECT_EQ(dispatchTarget(pa, sel), b1) << sel;
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
    Pair p = bitPair(
        false, replaced(kBitTests, "  LOP3.LUT R13", "  IADD3 R11, R9, 0x1, RZ\n  LOP3.LUT R13"));
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
  const Function &f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 3), f.blocks[1].labelId);
  EXPECT_EQ(dispatchTarget(p, 8), idOf(f, "shl"));
}

// A case body that computes from the selector and jumps on (`IADD3 R5, R1,
// k, RZ; BRA join`) leaves a value for later: it is a leaf, not a trampoline
// to join. Read as trampolines, both bodies would be `join`, and swapping
// them (selector 1 now gets 1 + 0x20 where it got 1 + 0x10) would be proved.
TEST(SwitchExtract, BodyThatComputesFromTheSelectorIsALeaf) {
  const char *text = R"(.entry k()
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
  Module after =
      parseModule(replaced(replaced(text, "@P0 BRA a", "@P0 BRA b"), "@P1 BRA b", "@P1 BRA a"));
  const Function &f = before.functions[0];
  DispatchProgram p = program(f, 0, ori::R(1));
  EXPECT_EQ(dispatchTarget(p, 1), idOf(f, "a"));
  EXPECT_EQ(dispatchTarget(p, 2), idOf(f, "b"));
  EXPECT_EQ(dispatchTarget(p, 3), idOf(f, "join"));
  bool refuted = false;
  for (const SwitchCheckResult &r :
       ori::verify::checkSwitchRewrites(before.functions[0], after.functions[0])) {
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
const std::string kNvccFewTargets =
    R"(.entry sw_fewtargets(.u32 sw_fewtargets_param_0, .u64 sw_fewtargets_param_1)
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
  static const char *const body[3] = {"$L__BB0_5", "$L__BB0_4", "$L__BB0_3"};
  std::string text = R"(.entry sw_fewtargets(.u32 sw_fewtargets_param_0, .u64 sw_fewtargets_param_1)
{
  LDC R0, c[0x0][0x210]
  LDC.64 R2, c[0x0][0x218]
)";
  for (int k = 0; k <= 23; ++k)
    text += "  ISETP.EQ.U32.AND P0, PT, R0, " + std::to_string(k) + ", PT\n  @P0 BRA " +
            body[k % 3] + "\n";
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

Pair fewTargetsPair(const std::string &afterText) {
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
    EXPECT_EQ(rs[0].line,
              "switch at bix0 (L0) in sw_fewtargets (selector R0): proved (28 nodes -> 7 nodes)");
    DispatchProgram pa = program(p.a(), 0, ori::R(0));
    for (uint32_t sel : probeSelectors()) {
      const char *want = sel > 23       ? "$L__BB0_6"
                         : sel % 3 == 0 ? "$L__BB0_5"
                         : sel % 3 == 1 ? "$L__BB0_4"
                                        : "$L__BB0_3";
      EXPECT_EQ(dispatchTarget(pa, sel), idOf(p.b(), want)) << sel;
    }
    expectProgramIsWhatRuns(p.after, ori::R(0), "sw_fewtargets_param_0", "sw_fewtargets_param_1",
                            kFewTargetsStores);
  }
  {
    Pair p = fewTargetsPair(replaced(kNvccFewTargets, "0x249249", "0x049249"));
    std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
    ASSERT_EQ(rs.size(), 1u);
    expectRealCounterexample(p, rs[0]);
    EXPECT_EQ(rs[0].counterexample, 21u);
    EXPECT_EQ(rs[0].line,
              "switch at bix0 (L0) in sw_fewtargets (selector R0): refuted: selector 0x15 goes to "
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
  const Function &f = m.functions[0];
  DispatchProgram p = program(f, 0, ori::R(0));
  size_t bitTests = 0;
  for (const ori::verify::DispatchNode &n : p.nodes)
    bitTests += n.kind == ori::verify::DispatchNode::Kind::BitTest;
  EXPECT_EQ(bitTests, 3u);
  const std::map<std::string, int32_t> stores = {
      {"$L__BB0_14", 10}, {"$L__BB0_4", 20},  {"$L__BB0_13", 30}, {"$L__BB0_7", 40},
      {"$L__BB0_12", 50}, {"$L__BB0_11", 60}, {"$L__BB0_17", 70}, {"$L__BB0_15", -1}};
  std::map<uint32_t, int32_t> byId;
  for (const auto &[label, v] : stores)
    byId[idOf(f, label)] = v;
  for (uint32_t sel : probeSelectors()) {
    int32_t want = -1;
    if (sel >= 1 && sel <= 3)
      want = 10;
    else if (sel >= 4 && sel <= 5)
      want = 20;
    else if (sel >= 6 && sel <= 9)
      want = 30;
    else if (sel == 10)
      want = 40;
    else if (sel >= 11 && sel <= 13)
      want = 50;
    else if (sel >= 14 && sel <= 16)
      want = 60;
    else if (sel >= 17 && sel <= 20)
      want = 70;
    auto it = byId.find(dispatchTarget(p, sel));
    ASSERT_NE(it, byId.end()) << "selector " << sel << " reaches no body";
    EXPECT_EQ(it->second, want) << sel;
  }
  expectProgramIsWhatRuns(m, ori::R(0), "sw_ranges_param_0", "sw_ranges_param_1", stores);
}

} // namespace
