// 16-bit selectors (SGXT) and the head's bound in the switch extraction (verify/switch_extract.h),
// from examples/switch16.cu; each verdict derived by hand in a comment.
#include <gtest/gtest.h>

#include "switch_extract_helpers.h"

namespace {

using namespace switch_test;

// ---------------------------------------------------------------- 16-bit selectors (SGXT) and the
// head's bound
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
                                  "  LDC.64 %rd6, c[0x0][0x210]\n" + kS16Select +
                                  "  MOV %r20, 0xa\n";

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
const std::string kS16Entries =
    "$L__BB0_28, $L__BB0_26, $L__BB0_6, $L__BB0_25, $L__BB0_24, $L__BB0_10, $L__BB0_23, "
    "$L__BB0_22, $L__BB0_15, $L__BB0_21, $L__BB0_20, case11";

// `after` with its jump table: `entries`, one per line of `.jumptable`.
std::string s16Lowering(const std::string &after, const std::string &entries) {
  return replaced(after, "{\n  .reg .b64 %rd6",
                  "{\n  .jumptable tbl = {" + entries + "}\n  .reg .b64 %rd6");
}

Pair s16Pair(const std::string &beforeText, const std::string &afterText) {
  Pair p{parseModule(beforeText), parseModule(afterText)};
  keepIds(p.b(), p.after.functions.at(0), {{"case11", kS16Case11Bix}});
  return p;
}

// The one result of a switch16 pair: the head, bix0.
SwitchCheckResult s16Result(const Pair &p) {
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
  EXPECT_EQ(rs.size(), 1u);
  if (rs.empty())
    return {};
  EXPECT_EQ(rs[0].headBix, 0u);
  for (const SwitchCheckResult &r : rs)
    EXPECT_NE(r.verdict, Verdict::Unchanged) << r.line;
  return rs[0];
}

const ori::Reg kS16Sel = ori::R(13); // %rs1

// The tree read under U = 15 is the dispatch derived above, and the
// interpreter, run on in[0] = v, stores what the body the program names for
// v & 15 stores: 10 + 11 (v & 15) for v & 15 <= 11, else -1 (v of 16 bits
// and more too: the LDG.U16 and the mask cut them).
TEST(SwitchExtract, Switch16TreeIsReadUnderTheHeadsBound) {
  Module m = parseModule(kS16Tree);
  const Function &f = m.functions[0];
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
  std::map<uint32_t, int32_t> stores = {{f.blocks[kS16Case11Bix].labelId, 131},
                                        {idOf(f, "$L__BB0_27"), -1}};
  for (size_t k = 0; k < body.size(); ++k)
    stores[idOf(f, body[k])] = int32_t(10 + 11 * k);
  for (uint32_t sel = 0; sel <= 15; ++sel) {
    uint32_t want = sel == 11  ? f.blocks[kS16Case11Bix].labelId
                    : sel < 11 ? idOf(f, body[sel])
                               : idOf(f, "$L__BB0_27");
    EXPECT_EQ(dispatchTarget(p, sel), want) << sel;
  }
  for (uint32_t v : {0u, 1u, 5u, 6u, 9u, 11u, 12u, 15u, 16u, 0x1bu, 0x7fffu, 0x8005u, 0xfffbu,
                     0xffffu, 0x1000au, 0xfffffff1u}) {
    ori::RunConfig cfg;
    cfg.params["sel"] = 0; // not read
    cfg.buffers["in"] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    cfg.buffers["out"] = std::vector<uint8_t>(4, 0xee);
    ori::RunResult r = ori::runKernel(m, cfg);
    ASSERT_EQ(r.kind, ori::RunResult::Kind::Ok) << r.message;
    const std::vector<uint8_t> &o = r.buffers["out"];
    int32_t stored =
        int32_t(uint32_t(o[0]) | uint32_t(o[1]) << 8 | uint32_t(o[2]) << 16 | uint32_t(o[3]) << 24);
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
  EXPECT_EQ(r.line, "switch at bix0 (L0) in switch16 (selector %rs1): proved for selectors <= 0xf "
                    "(the head's LOP3 "
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
  EXPECT_NE(r.line.find("(selector %ori_t15): unknown: not a dispatch after the phase"),
            std::string::npos)
      << r.line;
  // The same with the mask 0xffff: U = 0xffff is not below 2^15, so SGXT is
  // not S for S = 0x8000: not read either.
  const std::string wide = replaced(kS16Select, "0xf, RZ", "0xffff, RZ");
  Module m = parseModule(replaced(kS16Tree, kS16Select, wide));
  EXPECT_EQ(ori::verify::selectorBound(m.functions[0], 0, kS16Sel).max, 0xffffu);
  EXPECT_NE(errorOf(m.functions[0], 0, kS16Sel).find("is not a compare of the selector"),
            std::string::npos);
  // 0x7fff is the largest mask that still lets SGXT(S, 16) read as S.
  Module m7 =
      parseModule(replaced(kS16Tree, kS16Select, replaced(kS16Select, "0xf, RZ", "0x7fff, RZ")));
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
  EXPECT_EQ(r.line.rfind("switch at bix0 (L0) in switch16 (selector %rs1): refuted for selectors "
                         "<= 0xf (the head's "
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
  const std::string entries =
      kS16Entries + ", $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_26";
  {
    Pair p = s16Pair(kS16Tree, s16Lowering(above, entries));
    SwitchCheckResult r = s16Result(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.line;
    EXPECT_EQ(dispatchTarget(program(p.a(), 0, kS16Sel), 16), idOf(p.b(), "$L__BB0_26"));
    EXPECT_EQ(
        r.line,
        "switch at bix0 (L0) in switch16 (selector %rs1): proved for selectors <= 0xf (the head's "
        "LOP3 bounds it) (28 nodes -> 15 nodes)"); // its entries name no new block
  }
  {
    const std::string mask = replaced(kS16Select, "0xf, RZ", "0xff, RZ");
    Pair p = s16Pair(replaced(kS16Tree, kS16Select, mask),
                     s16Lowering(replaced(above, kS16Select, mask), entries));
    SwitchCheckResult r = s16Result(p);
    expectRealCounterexample(p, r);
    EXPECT_EQ(r.maxSelector, 0xffu);
    EXPECT_EQ(r.counterexample, 16u);
    EXPECT_EQ(r.line,
              "switch at bix0 (L0) in switch16 (selector %rs1): refuted for selectors <= 0xff (the "
              "head's "
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
  const std::string entries =
      kS16Entries + ", $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_27, $L__BB0_26";
  const std::string noMask = "  LDG.E %rs1, [%rd6]\n";
  Pair p = s16Pair(kS16Tree, s16Lowering(replaced(above, kS16Select, noMask), entries));
  SwitchCheckResult r = s16Result(p);
  expectRealCounterexample(p, r);
  EXPECT_EQ(r.maxSelector, ori::verify::kAllSelectors);
  EXPECT_EQ(r.counterexample, 16u);
  EXPECT_EQ(
      r.line,
      "switch at bix0 (L0) in switch16 (selector %rs1): refuted: selector 0x10 goes to $L__BB0_27 "
      "before, to $L__BB0_26 after");
}

// The bound rules, on the head `... ISETP.GT.U32 P0, R3, 0x5; @P0 BRA out`:
// a LOP3 AND through a MOV chain, the MOV chain reading each register's
// value before the MOV (a later write of R1 does not matter, an earlier one
// is not the LOP3's), at most 8 MOVs, MOV of a constant, the zero-extending
// loads (.U8, .U16, not .S16, not .64), and no bound for an OR LUT or a
// guarded writer.
TEST(SwitchExtract, SelectorBoundRules) {
  auto bound = [](const std::string &body) {
    Module m = parseModule(
        ".entry b(.u64 p)\n{\n  LDC.64 R8, c[0x0][0x210]\n  LDG.E R0, [R8]\n" + body +
        "  ISETP.GT.U32.AND P0, PT, R3, 0x5, PT\n  @P0 BRA out\n  EXIT\nout:\n  EXIT\n}\n");
    return ori::verify::selectorBound(m.functions[0], 0, ori::R(3));
  };
  const std::string lop3 = "  LOP3.LUT R1, R0, 0x3f, RZ, 0xc0\n";
  ori::verify::SelectorBound b = bound(lop3 + "  MOV R2, R1\n  MOV R3, R2\n");
  EXPECT_EQ(b.max, 0x3fu);
  EXPECT_EQ(b.by, "LOP3");
  EXPECT_EQ(bound("  LOP3.LUT R3, 0x3f, RZ, R0, 0x88\n").max, 0x3fu); // b & c in another order
  EXPECT_EQ(bound(lop3 + "  MOV R2, R1\n  S2R R1, SR_TID.X\n  MOV R3, R2\n").max, 0x3fu);
  EXPECT_EQ(bound(lop3 + "  S2R R1, SR_TID.X\n  MOV R2, R1\n  MOV R3, R2\n").max,
            ori::verify::kAllSelectors);
  std::string chain = lop3 + "  MOV R10, R1\n";
  for (int k = 10; k < 16; ++k)
    chain += "  MOV R" + std::to_string(k + 1) + ", R" + std::to_string(k) + "\n";
  EXPECT_EQ(bound(chain + "  MOV R3, R16\n").max, 0x3fu); // 8 MOVs
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
  EXPECT_EQ(bound("  LOP3.LUT R3, R0, 0x3f, RZ, 0xfc\n").max,
            ori::verify::kAllSelectors); // R0 | 0x3f
  EXPECT_EQ(bound("  LOP3.LUT R3, R0, 0x3f, R0, 0xc0\n").max, ori::verify::kAllSelectors); // no RZ
  EXPECT_EQ(
      bound("  ISETP.EQ.U32.AND P1, PT, R0, RZ, PT\n  @P1 LOP3.LUT R3, R0, 0x3f, RZ, 0xc0\n").max,
      ori::verify::kAllSelectors);
  EXPECT_EQ(bound(lop3 + "  ISETP.EQ.U32.AND P1, PT, R0, RZ, PT\n  @P1 MOV R3, R1\n").max,
            ori::verify::kAllSelectors);
  EXPECT_EQ(bound("").max, ori::verify::kAllSelectors); // not written in the head
}

} // namespace
