// The Ori -> PTX emitter (ori::ptx::emit): every .ori file of the tree that
// can be emitted assembles with `ptxas -arch=sm_90`; each opcode family emits
// what the PTX ISA says means the interpreter's semantics; and emitting then
// lowering back (ori::ptx::parseAndLower) gives the same run results.
// (Whole files: ptx_emit_files_test.cpp.)
#include <cctype>
#include <gtest/gtest.h>
#include <optional>

#include "ptx_emit_helpers.h"

namespace {

using namespace ptx_emit_test;

// ---------------------------------------------------------------- module level

TEST(PtxEmitModule, DefaultHeaderAndVariables) {
  std::string t = emitOk(".global .align 4 .b32 tab[4] = {1, 2, -1, 7}\n"
                         ".global .align 8 .f64 one = {0x3ff0000000000000}\n"
                         ".const .align 4 .s16 small[2] = {-2, 3}\n"
                         ".shared .align 16 .b8 buf[64]\n" +
                         kernel("  MOV R0, 0x1"));
  EXPECT_HAS(t, ".version 9.0\n.target sm_90\n.address_size 64\n");
  EXPECT_HAS(t, ".global .align 4 .b32 tab[4] = {1, 2, 0xFFFFFFFF, 7};");
  EXPECT_HAS(t, ".global .align 8 .f64 one = 0d3FF0000000000000;");
  EXPECT_HAS(t, ".const .align 4 .s16 small[2] = {-2, 3};");
  EXPECT_HAS(t, ".shared .align 16 .b8 buf[64];");
  EXPECT_HAS(t, ".visible .entry k(.param .u64 out, .param .u32 n)");
}

TEST(PtxEmitModule, VersionFollowsTargetAndFeatures) {
  // The original words stay; .version rises to what the instructions need.
  std::string t =
      emitOk(".ptx \".version 7.0\"\n.ptx \".target sm_70\"\n.ptx \".address_size 64\"\n" +
             kernel("  LOP3.LUT R1, R1, R2, R3, 0x96"));
  EXPECT_HAS(t, ".version 7.0\n.target sm_70\n");
  EXPECT_HAS(t, "lop3.b32");
  t = emitOk(".ptx \".version 6.0\"\n.ptx \".target sm_90\"\n" + kernel("  MOV R1, 0x1"));
  EXPECT_HAS(t, ".version 7.8\n.target sm_90\n"); // sm_90 needs PTX 7.8
  // Before sm_50 there is no lop3: and/or/xor/not instead; sm_1x becomes sm_20.
  t = emitOk(".ptx \".version 1.4\"\n.ptx \".target sm_13\"\n" +
             kernel("  LOP3.LUT R1, R1, R2, R3, 0xe8"));
  EXPECT_HAS(t, ".version 2.3\n.target sm_20\n");
  EXPECT_LACKS(t, "lop3");
  EXPECT_HAS(t, "xor.b32");
  t = emitOk(".ptx \".version 7.0\"\n.ptx \".target sm_80, debug\"\n" + kernel("  MOV R1, 0x1"));
  EXPECT_HAS(t, ".target sm_80\n");
}

TEST(PtxEmitModule, BitwiseTemporariesInStatementOrder) {
  // Before sm_50, table 0x08 is !a & (b & c): the Shannon expansion on a makes
  // g = b & c first, then !a, then their AND. Each temporary is made in a
  // statement of its own, so the names and the order of the lines are the same
  // whichever order the compiler evaluates a call's arguments in (it made
  // !a first under Clang and g first under GCC).
  std::string t = emitOk(".ptx \".version 6.0\"\n.ptx \".target sm_35\"\n" +
                         kernel("  LOP3.LUT R1, R1, R2, R3, 0x8"));
  EXPECT_HAS(t, "and.b32 %ori_tr0, %ori_r2, %ori_r3;\n  not.b32 %ori_tr1, %ori_r1;\n  and.b32 "
                "%ori_tr2, %ori_tr1, %ori_tr0;");
}

TEST(PtxEmitModule, DeclarationsAndPerformanceDirectives) {
  std::string t = emitOk(
      ".func (.u32 r) ext(.u32 x);\n"
      ".func helper()\n{\n  RET\n}\n"
      ".entry k(.u64 out)\n{\n  .ptx \".maxntid 128, 1, 1\"\n  .ptx \".pragma \\\"nounroll\\\"\"\n"
      "  .param .b32 a\n  .param .b32 r\n  CALL (r), ext, (a)\n  CALL helper\n  EXIT\n}\n");
  EXPECT_HAS(t, ".extern .func (.param .u32 r) ext(.param .u32 x);");
  EXPECT_HAS(t, ".func helper();");
  EXPECT_HAS(t, ".visible .entry k(.param .u64 out)\n.maxntid 128, 1, 1\n{");
  EXPECT_HAS(t, ".pragma \"nounroll\";");
  EXPECT_HAS(t, "call (r), ext, (a);");
  EXPECT_HAS(t, "call helper;");
}

// ---------------------------------------------------------------- integer

TEST(PtxEmitInteger, Iadd3FormsAndNegation) {
  std::string t = emitOk(kernel("  S2R R2, SR_TID.X\n  S2R R3, SR_CTAID.X\n"
                                "  IADD3 R1, R2, -R3, RZ\n"
                                "  IADD3 R4, -R2, RZ, RZ\n"
                                "  IADD3 R5, R2, R3, 0x10\n"
                                "  IADD3 R6, -R2, -R3, RZ\n"
                                "  IADD3.64 R8, R8, -0x1, RZ"));
  EXPECT_HAS(t, "sub.s32 %ori_r1, %ori_r2, %ori_r3;");
  EXPECT_HAS(t, "neg.s32 %ori_r4, %ori_r2;");
  EXPECT_HAS(
      t,
      "add.s32 %ori_tr0, %ori_r2, %ori_r3;\n  add.s32 %ori_r5, %ori_tr0, 0x10;"); // via a temporary
  EXPECT_HAS(t, "neg.s32 %ori_tr0, %ori_r2;\n  sub.s32 %ori_r6, %ori_tr0, %ori_r3;");
  EXPECT_HAS(t, "add.s64 %ori_r8, %ori_r8, 0xffffffffffffffff;");
}

TEST(PtxEmitInteger, MadSelMovAndSpecialRegisters) {
  std::string t =
      emitOk(kernel("  S2R R0, SR_TID.X\n  S2R R1, SR_WARPID\n  S2R R10, SR_SWINBASE\n"
                    "  IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x210]\n"
                    "  IMAD.HI R4, R0, R1, RZ\n  IMAD R5, R0, R1, R0\n"
                    "  ISETP.GT.AND P0, PT, R0, 0x3, PT\n  SEL R6, R0, R1, !P0\n  MOV R7, R6"));
  EXPECT_HAS(t, "mov.u32 %ori_r0, %tid.x;");
  EXPECT_HAS(t, "shr.u32 %ori_r1, %ori_tr0, 5;"); // WARPID = tid.x / 32, as the interpreter has it
  EXPECT_HAS(t, "cvta.shared.u64 %ori_r10, 0;");
  EXPECT_HAS(t, "ld.param.b64 %ori_td0, [out];\n  mad.wide.u32 %ori_r2, %ori_r0, 4, %ori_td0;");
  EXPECT_HAS(t, "mul.hi.s32 %ori_r4, %ori_r0, %ori_r1;"); // a zero addend: mul
  EXPECT_HAS(t, "mad.lo.s32 %ori_r5, %ori_r0, %ori_r1, %ori_r0;");
  EXPECT_HAS(t, "selp.b32 %ori_r6, %ori_r1, %ori_r0, %ori_p0;"); // !P0 swaps the operands
  EXPECT_HAS(t, ".reg .b64 %ori_r2;");
  EXPECT_HAS(t, ".reg .b32 %ori_r0;");
}

// A LOP3 that is a plain function of at most two sources (its constant sources put in) prints
// as that instruction: ptxas 13.0 crashes on some lop3 forms of them (docs/spec-notes.md).
TEST(PtxEmitInteger, Lop3PlainFormsPrintAsTheirInstruction) {
  std::string t = emitOk(kernel("  S2R R1, SR_TID.X\n  S2R R2, SR_CTAID.X\n"
                                "  LOP3.LUT R3, R1, 0x200, RZ, 0xc0\n" // a & b
                                "  LOP3.LUT R4, 0x7, R1, RZ, 0xc0\n"   // immediate first: swapped
                                "  LOP3.LUT R5, R1, R2, RZ, 0xfc\n"    // a | b
                                "  LOP3.LUT R6, R1, R2, RZ, 0x3c\n"    // a ^ b
                                "  LOP3.LUT R7, R1, RZ, RZ, 0xf\n"     // ~a
                                "  LOP3.LUT R8, R1, R2, 0xffffffff, 0x80\n" // a & b & ~0 = a & b
                                "  LOP3.LUT R9, RZ, R2, RZ, 0xf0\n"         // a with a = 0: 0
                                "  LOP3.LUT R10, R1, R2, R3, 0xaa\n"        // c
                                "  LOP3.LUT R11, R1, R2, RZ, 0x30\n"        // a & ~b: not plain
                                "  LOP3.LUT R12, R1, R2, R3, 0x80")); // a & b & c: three sources
  EXPECT_HAS(t, "and.b32 %ori_r3, %ori_r1, 0x200;");
  EXPECT_HAS(t, "and.b32 %ori_r4, %ori_r1, 7;");
  EXPECT_HAS(t, "or.b32 %ori_r5, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "xor.b32 %ori_r6, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "not.b32 %ori_r7, %ori_r1;");
  EXPECT_HAS(t, "and.b32 %ori_r8, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "mov.b32 %ori_r9, 0;");
  EXPECT_HAS(t, "mov.b32 %ori_r10, %ori_r3;");
  EXPECT_HAS(t, "lop3.b32 %ori_r11, %ori_r1, %ori_r2, 0, 0x30;");
  EXPECT_HAS(t, "lop3.b32 %ori_r12, %ori_r1, %ori_r2, %ori_r3, 0x80;");
}

TEST(PtxEmitInteger, Lop3SixtyFourBits) {
  std::string t = emitOk(kernel("  MOV.64 R2, c[0x0][0x210]\n  MOV.64 R3, c[0x0][0x210]\n"
                                "  LOP3.LUT.64 R4, R2, 0xff000000ff, RZ, 0xc0\n"
                                "  LOP3.LUT.64 R5, R2, R3, R4, 0x80"));
  EXPECT_HAS(t, "and.b64 %ori_r4, %ori_r2, 0xff000000ff;"); // plain: one instruction
  // No lop3.b64 in PTX: a three-source table on both 32-bit halves.
  EXPECT_HAS(t, "mov.b64 {%ori_tr0, %ori_tr1}, %ori_r2;");
  EXPECT_HAS(t, "lop3.b32 %ori_tr6, %ori_tr0, %ori_tr2, %ori_tr4, 0x80;");
  EXPECT_HAS(t, "lop3.b32 %ori_tr7, %ori_tr1, %ori_tr3, %ori_tr5, 0x80;");
  EXPECT_HAS(t, "mov.b64 %ori_r5, {%ori_tr6, %ori_tr7};");
}

TEST(PtxEmitInteger, ShfForms) {
  std::string t = emitOk(kernel("  S2R R1, SR_TID.X\n  S2R R2, SR_CTAID.X\n"
                                "  SHF.L.U32.HI R3, R1, R2, R1\n"
                                "  SHF.R.U32 R4, R1, R2, R1\n"
                                "  SHF.L.U32 R5, R1, R2, R1\n"
                                "  SHF.R.S32.HI R6, R1, R2, R1\n"
                                "  SHF.R.U64.HI R7, R1, R2, R1"));
  // PTX shf.l gives the high word of hi:lo << n, shf.r the low word of hi:lo >> n.
  EXPECT_HAS(t, "shf.l.clamp.b32 %ori_r3, %ori_r1, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "shf.r.clamp.b32 %ori_r4, %ori_r1, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "shl.b32 %ori_r5, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "shr.s32 %ori_r6, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "mov.b64 %ori_td0, {%ori_r1, %ori_r1};\n  shr.u64 %ori_td1, %ori_td0, %ori_r2;");
  EXPECT_HAS(t, "mov.b32 %ori_r7, %ori_tr1;");
}

TEST(PtxEmitInteger, ShiftsLeaAndMinMax) {
  std::string t = emitOk(kernel("  S2R R1, SR_TID.X\n  S2R R2, SR_CTAID.X\n"
                                "  SHL R3, R1, R2\n  SHR.S32 R4, R1, 0x3\n  LEA R5, R1, R2, 0x2\n"
                                "  IMNMX.U32 R6, R1, R2, PT\n  IMNMX R7, R1, R2, !PT\n"
                                "  ISETP.LT.AND P1, PT, R1, R2, PT\n  IMNMX R8, R1, R2, P1"));
  EXPECT_HAS(t, "shl.b32 %ori_r3, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "shr.s32 %ori_r4, %ori_r1, 3;");
  EXPECT_HAS(t, "shl.b32 %ori_tr0, %ori_r1, 2;\n  add.s32 %ori_r5, %ori_tr0, %ori_r2;");
  EXPECT_HAS(t, "min.u32 %ori_r6, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "max.s32 %ori_r7, %ori_r1, %ori_r2;");
  // A predicate known only at run time: both, then selp.
  EXPECT_HAS(t, "min.s32 %ori_tr0, %ori_r1, %ori_r2;\n  max.s32 %ori_tr1, %ori_r1, %ori_r2;\n"
                "  selp.b32 %ori_r8, %ori_tr0, %ori_tr1, %ori_p1;");
}

TEST(PtxEmitInteger, WidthBridging) {
  std::string t = emitOk(kernel("  S2R R0, SR_TID.X\n"
                                "  IMAD.WIDE.U32 R2, R0, 0x4, c[0x0][0x210]\n" // R2 is 64-bit
                                "  IADD3 R3, R2, 0x1, RZ\n"   // a 32-bit read of it
                                "  IADD3.64 R4, R0, R2, RZ\n" // a 64-bit read of a 32-bit one
                                "  MOV R2, 0x5\n"             // a 32-bit write into it
                                "  STG.E [R2], R3"));
  EXPECT_HAS(t, "cvt.u32.u64 %ori_tr0, %ori_r2;\n  add.s32 %ori_r3, %ori_tr0, 1;");
  EXPECT_HAS(t, "cvt.u64.u32 %ori_td0, %ori_r0;\n  add.s64 %ori_r4, %ori_td0, %ori_r2;");
  EXPECT_HAS(t, "mov.b32 %ori_tr0, 5;\n  cvt.u64.u32 %ori_r2, %ori_tr0;"); // zero-extended, like
                                                                           // the container
}

// ---------------------------------------------------------------- predicates

TEST(PtxEmitPredicate, IsetpBoolOpsAndConstants) {
  std::string t =
      emitOk(kernel("  S2R R1, SR_TID.X\n  MOV.64 R4, c[0x0][0x210]\n  IADD3.64 R6, R4, 0x8, RZ\n"
                    "  ISETP.GE.U32.AND P0, PT, R1, c[0x0][0x218], PT\n"
                    "  ISETP.LT.S64.OR P1, P2, R4, R6, !P0\n"
                    "  ISETP.EQ.XOR P3, P4, R1, 0x2, PT\n"
                    "  ISETP.NE.AND P5, P6, R1, RZ, !PT"));
  EXPECT_HAS(t, "setp.ge.u32 %ori_p0, %ori_r1, %ori_tr0;");
  EXPECT_HAS(t, "setp.lt.or.s64 %ori_p1|%ori_p2, %ori_r4, %ori_r6, !%ori_p0;");
  EXPECT_HAS(t, "setp.eq.s32 %ori_p4|%ori_p3, %ori_r1, 2;");     // XOR with true negates r
  EXPECT_HAS(t, "mov.pred %ori_p5, 0;\n  mov.pred %ori_p6, 0;"); // AND with false
}

TEST(PtxEmitPredicate, Plop3CommonAndGeneralTables) {
  std::string t =
      emitOk(kernel("  S2R R1, SR_TID.X\n  ISETP.NE.AND P0, PT, R1, RZ, PT\n"
                    "  ISETP.GT.AND P1, PT, R1, 0x4, PT\n  ISETP.LT.AND P2, PT, R1, 0x9, PT\n"
                    "  PLOP3.LUT P3, PT, P0, P1, PT, 0x80, 0x0\n"   // a & b
                    "  PLOP3.LUT P4, P5, P0, !P1, PT, 0xfc, 0x3c\n" // a | !b, a ^ !b
                    "  PLOP3.LUT P6, PT, P0, P1, P2, 0xe8, 0x0"));  // majority
  EXPECT_HAS(t, "and.pred %ori_p3, %ori_p0, %ori_p1;");
  EXPECT_HAS(t, "or.pred %ori_p4, %ori_p0, !%ori_p1;");
  EXPECT_HAS(t, "xor.pred %ori_p5, %ori_p0, !%ori_p1;");
  // Majority: a ? b | c : b & c, and b & c implies b | c: (a & (b | c)) | (b & c).
  EXPECT_HAS(t, "or.pred %ori_tp1, %ori_p1, %ori_p2;\n  and.pred %ori_tp0, %ori_p0, %ori_tp1;\n"
                "  and.pred %ori_tp2, %ori_p1, %ori_p2;\n  or.pred %ori_p6, %ori_tp0, %ori_tp2;");
  EXPECT_LACKS(t, "selp.b32");
}

// ---------------------------------------------------------------- floating point

TEST(PtxEmitFloat, ArithmeticRoundingAndModifiers) {
  std::string t =
      emitOk(kernel("  MOV R1, c[0x0][0x218]\n"
                    "  FADD R2, R1, -|R1|\n  FMUL.RZ.FTZ R3, R1, 2.0\n  FFMA.SAT R4, R1, R2, R3\n"
                    "  FMNMX R5, R1, R2, !PT\n  DADD.RM R6, R6, 1.0\n"
                    "  FSETP.GTU.FTZ.AND P0, PT, R1, R2, PT\n  DSETP.T.AND P1, P2, R6, R6, P0"));
  EXPECT_HAS(t,
             "and.b32 %ori_tr0, %ori_r1, 0x7fffffff;\n  xor.b32 %ori_tr1, %ori_tr0, 0x80000000;\n"
             "  add.rn.f32 %ori_r2, %ori_r1, %ori_tr1;"); // |x| and -x are sign-bit operations
  EXPECT_HAS(t, "mul.rz.ftz.f32 %ori_r3, %ori_r1, 0f40000000;");
  // .SAT: the interpreter's -0.0 becomes +0.0; adding +0.0 does that and changes nothing else.
  EXPECT_HAS(t, "fma.rn.sat.f32 %ori_tr0, %ori_r1, %ori_r2, %ori_r3;\n  add.rn.f32 %ori_r4, "
                "%ori_tr0, 0f00000000;");
  EXPECT_HAS(t, "max.f32 %ori_r5, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "add.rm.f64 %ori_td0, %ori_r6, 0d3FF0000000000000;\n  setp.nan.f64 %ori_tp0, "
                "%ori_td0, %ori_td0;\n"
                "  selp.b64 %ori_r6, 0xfff8000000000000, %ori_td0, %ori_tp0;");
  EXPECT_HAS(t, "setp.gtu.ftz.f32 %ori_p0, %ori_r1, %ori_r2;");
  EXPECT_HAS(t, "mov.pred %ori_p1, %ori_p0;\n  mov.pred %ori_p2, 0;"); // T: p = c, q = false
}

TEST(PtxEmitFloat, Conversions) {
  std::string t = emitOk(kernel("  MOV R1, c[0x0][0x218]\n  MOV.64 R6, c[0x0][0x210]\n"
                                "  I2F.U8.RZ R2, R1\n  I2F.S64.F64 R4, R6\n  F2I.FLOOR.U16 R3, R2\n"
                                "  F2I.F64.S32 R5, R4\n  F2I.U64.TRUNC.FTZ R8, R2\n  F2I R9, R2"));
  EXPECT_HAS(t, "cvt.rz.f32.u8 %ori_r2, %ori_r1;");
  EXPECT_HAS(t, "cvt.rn.f64.s64 %ori_r4, %ori_r6;");
  EXPECT_HAS(t, "cvt.rmi.u16.f32 %ori_r3, %ori_r2;");
  EXPECT_HAS(t, "cvt.rni.s32.f32 %ori_r9, %ori_r2;"); // the default rounding is to nearest even
  // PTX maps NaN to 0 only for non-.f64 sources and results of 32 bits or fewer, else to
  // 1 << (width - 1): F2I does the same (ISA 9.7.9.21), so a bare cvt is exact.
  EXPECT_HAS(t, "cvt.rni.s32.f64 %ori_r5, %ori_r4;");
  EXPECT_HAS(t, "cvt.rzi.ftz.u64.f32 %ori_r8, %ori_r2;");
  EXPECT_EQ(t.find("setp.nan"), std::string::npos);
  EXPECT_TRUE(emitError(kernel("  F2I.F64.FTZ R1, R2")).find(".FTZ") != std::string::npos);
}

// ---------------------------------------------------------------- memory

TEST(PtxEmitMemory, SpacesWidthsAndSymbols) {
  std::string t = emitOk(
      ".global .align 4 .b32 g[8]\n.shared .align 4 .b32 s[8]\n" +
      kernel("  .local .align 4 .b32 l[4]\n  MOV.64 R2, c[0x0][0x210]\n"
             "  LDG.E.S8 R4, [R2-0x4]\n  LDG.E.CONSTANT R5, [R2]\n  LD.VOLATILE.64 R6, [R2]\n"
             "  LDS.U16 R8, [0x100]\n  LDL R9, [0x10]\n  LD R10, [g+0x8]\n  STS [s+0x4], R10\n"
             "  STL.U8 [l], R10\n  MOV R11, s\n  STG.E.64 [R2], RZ\n  LDC.S16 R12, c[0x0][0x218]"));
  EXPECT_HAS(t, "ld.global.s8 %ori_r4, [%ori_r2+-4];");
  EXPECT_HAS(t, "ld.global.nc.b32 %ori_r5, [%ori_r2];");
  EXPECT_HAS(t, "ld.volatile.b64 %ori_r6, [%ori_r2];"); // generic
  EXPECT_HAS(t, "mov.b64 %ori_td0, 0x100;\n  ld.shared.u16 %ori_r8, [%ori_td0];");
  EXPECT_HAS(t, "ld.local.b32 %ori_r9, [16];");
  EXPECT_HAS(t, "ld.global.b32 %ori_r10, [g+8];"); // the variable's own space
  EXPECT_HAS(t, "st.shared.b32 [s+4], %ori_r10;");
  EXPECT_HAS(t, "st.local.b8 [l], %ori_r10;");
  EXPECT_HAS(t, "mov.u64 %ori_r11, s;");
  EXPECT_HAS(t, "st.global.b64 [%ori_r2], 0;");
  EXPECT_HAS(t, "ld.param.s16 %ori_r12, [n];");
  EXPECT_HAS(t, ".local .align 4 .b32 l[4];");
  // Accesses the interpreter always stops at: trap.
  t = emitOk(".const .align 4 .b32 c0 = {1}\n.global .align 4 .b32 g0\n" +
             kernel("  LDS R1, [g0]\n  ST [c0], R1\n  ATOM.E.ADD R2, [g0], 0x1"));
  EXPECT_HAS(t, "// LDS R1, [g0] addresses .global variable 'g0' (a state space mismatch): the "
                "interpreter stops here\n  trap;");
  EXPECT_HAS(t, "stores to .const variable 'c0' (a fault): the interpreter stops here\n  trap;");
  EXPECT_HAS(t, "atom.global.add.u32 %ori_r2, [g0], 1;");
}

TEST(PtxEmitMemory, AtomicsAndReductions) {
  std::string t = emitOk(kernel("  MOV.64 R2, c[0x0][0x210]\n  MOV.64 R8, R2\n  MOV.64 R10, R2\n"
                                "  ATOM.E.ADD R4, [R2], 0x1\n"
                                "  ATOM.E.CAS.64 R6, [R2], R8, R10\n  ATOM.E.MIN.S32 R5, [R2], R4\n"
                                "  ATOM.E.INC RZ, [R2], 0x10\n  RED.E.XOR.64 [R2], R8"));
  // The interpreter's atomics take generic addresses.
  EXPECT_HAS(t, "atom.add.u32 %ori_r4, [%ori_r2], 1;");
  EXPECT_HAS(t, "atom.cas.b64 %ori_r6, [%ori_r2], %ori_r8, %ori_r10;");
  EXPECT_HAS(t, "atom.min.s32 %ori_r5, [%ori_r2], %ori_r4;");
  EXPECT_HAS(t, "atom.inc.u32 %ori_tr0, [%ori_r2], 0x10;"); // RZ: the old value is dropped
  EXPECT_HAS(t, "red.xor.b64 [%ori_r2], %ori_r8;");
  EXPECT_TRUE(
      emitError(kernel("  MOV.64 R2, c[0x0][0x210]\n  ATOM.E.INC.64 R4, [R2], R6")).find("u32") !=
      std::string::npos);
}

TEST(PtxEmitMemory, ConstantBankParameters) {
  std::string t =
      emitOk(".entry p(.u8 a, .s16 b, .u32 k, .u64 d, .f32 e)\n{\n"
             "  LDC.U8 R1, c[0x0][0x210]\n  LDC.S16 R2, c[0x0][0x212]\n  LDC.64 R4, c[0x0][0x218]\n"
             "  FADD R6, c[0x0][0x220], 1.0\n  LDC R7, c[0x0][0x230]\n  LDC R8, c[0x0][0x21c]\n  "
             "EXIT\n}\n");
  EXPECT_HAS(t, "ld.param.u8 %ori_r1, [a];");
  EXPECT_HAS(t, "ld.param.s16 %ori_r2, [b];");
  EXPECT_HAS(t, "ld.param.b64 %ori_r4, [d];");
  EXPECT_HAS(t, "ld.param.b32 %ori_tr0, [e];\n  add.rn.f32 %ori_r6, %ori_tr0, 0f3F800000;");
  EXPECT_HAS(t, "mov.b32 %ori_r7, 0;"); // past every parameter: 0, as in the interpreter
  EXPECT_HAS(t, "ld.param.b32 %ori_r8, [d+4];");
  EXPECT_HAS(emitError(kernel("  LDC R1, c[0x3][0x0]")),
             "bad.ori:3:3: error: c[0x3][0x0]: constant bank 3");
  // A register-indexed read in a kernel: ld.param through a register holding a parameter's
  // address (`mov.u64 R2, p`); in a .func it has no PTX form.
  EXPECT_HAS(emitOk(kernel("  MOV.64 R2, RZ\n  LDC R1, c[0x0][R2+0x218]")),
             "ld.param.b32 %ori_r1, [%ori_r2+8];");
  EXPECT_HAS(emitError(kernel("  LDC R1, c[0x0][R2+0x8]")), "register-indexed");
  EXPECT_HAS(emitError(".func f()\n{\n  LDC R1, c[0x0][R2+0x218]\n  RET\n}\n" + kernel("  CALL f")),
             "register-indexed");
  EXPECT_HAS(emitError(".func f()\n{\n  LDC R1, c[0x0][0x210]\n  RET\n}\n" + kernel("  CALL f")),
             "in .func 'f'");
}

// ---------------------------------------------------------------- control flow

TEST(PtxEmitControl, BrxBranchTargetsAndGuards) {
  std::string t =
      emitOk(".entry k(.u64 out)\n{\n  .jumptable cases = {a, b, a}\n"
             "  S2R R0, SR_TID.X\n  ISETP.EQ.AND P0, PT, R0, RZ, PT\n  @!P0 BRA b\n"
             "  @P0 BRX R0, cases\na:\n  @!PT MOV R1, 0x1\n  EXIT\nb:\n  @P0 EXIT\n  RET\n}\n");
  EXPECT_HAS(t, "cases: .branchtargets a, b, a;");
  EXPECT_HAS(t, "@!%ori_p0 bra b;");
  // An index past the table faults at that address, as in the interpreter.
  EXPECT_HAS(t, "setp.ge.and.u32 %ori_tp0, %ori_r0, 3, %ori_p0;");
  EXPECT_HAS(t, "@%ori_tp0 ld.volatile.global.u8");
  EXPECT_HAS(t, "@%ori_p0 brx.idx %ori_r0, cases;");
  EXPECT_HAS(t, "// never runs: @!PT MOV R1, 0x1");
  EXPECT_HAS(t, "@%ori_p0 exit;");
  EXPECT_HAS(t, "\n  ret;");
}

TEST(PtxEmitControl, GuardCopiedWhenTheExpansionWritesIt) {
  // PLOP3 writes P0 first, then P1 from the guard P0: the guard is copied.
  std::string t = emitOk(kernel("  S2R R0, SR_TID.X\n  ISETP.EQ.AND P0, PT, R0, RZ, PT\n"
                                "  @P0 PLOP3.LUT P0, P1, P0, PT, PT, 0x0f, 0xf0"));
  EXPECT_HAS(t, "mov.pred %ori_tp1, %ori_p0;");
  EXPECT_HAS(t, "@%ori_tp1 not.pred %ori_p0, %ori_tp0;");
}

TEST(PtxEmitControl, CallsWithParamVariables) {
  std::string t =
      emitOk(".func (.u32 r) twice(.u32 x)\n{\n  LD R1, [x]\n  IADD3 R1, R1, R1, RZ\n  ST [r], "
             "R1\n  RET\n}\n" +
             kernel("  .param .b32 a\n  .param .b32 res\n  S2R R0, SR_TID.X\n  ST [a], R0\n"
                    "  CALL (res), twice, (a)\n  LD R2, [res]\n  CALL twice"));
  EXPECT_HAS(t, ".func (.param .u32 r) twice(.param .u32 x)\n{");
  EXPECT_HAS(t, "ld.param.b32 %ori_r1, [x];");
  EXPECT_HAS(t, "st.param.b32 [r], %ori_r1;");
  EXPECT_HAS(t, "st.param.b32 [a], %ori_r0;");
  EXPECT_HAS(t, "call (res), twice, (a);");
  // A CALL without lists copies nothing: PTX gets unset slots.
  EXPECT_HAS(t, "{\n    .param .u32 __ori_arg;\n    .param .u32 __ori_ret;\n    call (__ori_ret), "
                "twice, (__ori_arg);\n  }");
}

TEST(PtxEmitControl, LocalInitializersAreStoredOnEntry) {
  std::string t =
      emitOk(kernel("  .local .align 4 .u16 tab[3] = {7, 0x1234, 9}\n  LDL.U16 R1, [tab+0x2]"));
  EXPECT_HAS(t, ".local .align 4 .u16 tab[3];");
  EXPECT_HAS(t,
             "st.local.b16 [tab], 7;\n  st.local.b16 [tab+2], 0x1234;\n  st.local.b16 [tab+4], 9;");
  EXPECT_HAS(emitError(".shared .align 4 .b32 s = {5}\n" + kernel("  MOV R1, 0x1")),
             "per-CTA initial value");
}

TEST(PtxEmitControl, ParamVariablesThatAreNoPlainCallSlots) {
  // `a` is read back and passed with another size: ptxas allows (and survives)
  // only plain call slots, so `a` lives in .local and is copied into a slot of
  // the callee's type (min(size) bytes, as the interpreter copies).
  std::string t =
      emitOk(".func (.u32 r) f(.u32 x)\n{\n  LD R1, [x]\n  ST [r], R1\n  RET\n}\n" +
             kernel("  .param .align 8 .b64 a\n  .param .b32 res\n  S2R R0, SR_TID.X\n"
                    "  ST.64 [a], R0\n  LD R2, [a]\n  CALL (res), f, (a)\n  LD R3, [res]"));
  EXPECT_HAS(t, ".local .align 8 .b64 a;");
  EXPECT_HAS(t, ".param .b32 res;");
  EXPECT_HAS(t, "st.local.b64 [a], %ori_td0;");
  EXPECT_HAS(t, "ld.local.b32 %ori_r2, [a];");
  EXPECT_HAS(t, "{\n    .param .u32 __ori_arg;\n    ld.local.b32 %ori_tr0, [a];\n    st.param.b32 "
                "[__ori_arg], %ori_tr0;\n"
                "    call (res), f, (__ori_arg);\n  }");
  EXPECT_HAS(t, "ld.param.b32 %ori_r3, [res];");
}

TEST(PtxEmitControl, LiveInRegistersStartAtZero) {
  // R1 is read before it is written (the loop's first iteration): 0, as in the interpreter.
  std::string t = emitOk(
      kernel("loop:\n  IADD3 R1, R1, 0x1, RZ\n  ISETP.LT.AND P0, PT, R1, 0x4, PT\n  @P0 BRA loop"));
  EXPECT_HAS(t, "mov.b32 %ori_r1, 0;\nloop:");
}

TEST(PtxEmitControl, OpaquePlaceholdersAndNames) {
  std::string t =
      emitOk(".entry k(.u64 out)\n{\n  .reg .f32 %f1 = R1, %f2 = R2\n  .reg .pred %p9 = P3\n"
             "  MOV %f1, 0x3f800000\n  OPAQUE \"sqrt.rn.f32 @d0, @u0\" def(%f2) use(%f1)\n"
             "  @%p9 OPAQUE \"div.rn.f32 @d0, @u1, @u0;\" def(R3) use(%f2, %f1)\n  EXIT\n}\n");
  EXPECT_HAS(t, ".reg .b32 %f1;");
  EXPECT_HAS(t, "sqrt.rn.f32 %f2, %f1;");
  EXPECT_HAS(t, "@%p9 div.rn.f32 %ori_r3, %f1, %f2;");
}

TEST(PtxEmitErrors, NoPtxFormGivesADiagnostic) {
  EXPECT_HAS(emitError(kernel("  MATCH.ANY R1, P0, R2")),
             "bad.ori:3:3: error: MATCH.ANY R1, P0, R2: MATCH.ANY has no predicate result in PTX");
  EXPECT_HAS(emitError(".ptx \".target sm_75\"\n" + kernel("  REDUX.SUM R1, R2")),
             "PTX has redux.sync from sm_80");
  EXPECT_HAS(emitError(kernel("  BAR.ARV 0x1")), "PTX bar.arrive needs a thread count");
  EXPECT_HAS(emitError(kernel("  BAR.RED.POPC R1, 0x10, P0")), "PTX has barriers 0 to 15");
  EXPECT_HAS(emitError(kernel("  OPAQUE \"FCHK P0, R1, R2\" def(P0) use(R1, R2)")), "not PTX text");
  EXPECT_HAS(emitError(kernel("  SHF R1, R2, R3, R4")), "without .L or .R");
  EXPECT_HAS(
      emitError(".func g()\n{\n  RET\n}\n" + kernel("  MOV.64 R2, c[0x0][0x210]\n  CALL R2, (R3)")),
      "only a call to a function outside the module passes registers");
}

// ---------------------------------------------------------------- semantics

std::string describe(const ori::RunResult &r) {
  std::string s = ori::formatExit(r, "f") + " (" + r.message + ")";
  for (const auto &[name, bytes] : r.buffers) {
    s += "\n  " + name + ":";
    for (size_t i = 0; i < bytes.size() && i < 64; ++i) {
      static const char *hex = "0123456789abcdef";
      s += std::string{' ', hex[bytes[i] >> 4], hex[bytes[i] & 15]};
    }
  }
  return s;
}

// Random well-formed kernels that emit: lowering the PTX back gives the same
// run (kind, buffers, fault address) whenever both sides can run it.
TEST(PtxEmitSemantics, RandomKernelsRunTheSameAfterARoundTrip) {
  size_t compared = 0, skipped = 0;
  bool ok = rc::check("run(lower(emit(random module))) == run(random module)", [&] {
    ori::gen::Options o;
    o.opaque = false;
    o.maxFunctions = 2;
    ori::Module m = *ori::gen::module(o);
    m.ptxDirectives.clear();
    for (ori::Function &f : m.functions)
      f.ptxDirectives.clear();
    ori::ptx::EmitResult e = ori::ptx::emit(m);
    if (e.error)
      return;
    ori::ParseResult back = ori::ptx::parseAndLower(e.text, "random.ptx");
    if (!back.module)
      RC_FAIL("the emitted PTX does not lower: " + back.error->str() + "\n" + e.text);
    for (const ori::Function &k : m.functions) {
      if (!k.isEntry)
        continue;
      ori::RunConfig cfg;
      cfg.entry = k.name;
      cfg.threads = *rc::gen::inRange<uint32_t>(1, 3);
      for (const ori::Param &p : k.params) {
        if (p.size == 8)
          cfg.buffers[p.name].assign(64, uint8_t(*rc::gen::arbitrary<uint8_t>()));
        else
          cfg.params[p.name] = *rc::gen::arbitrary<uint64_t>();
      }
      cfg.maxSteps = 2'000;
      ori::RunResult want = ori::runKernel(m, cfg);
      if (want.kind == ori::RunResult::Kind::Timeout ||
          want.kind == ori::RunResult::Kind::Unsupported ||
          want.kind == ori::RunResult::Kind::Error) {
        ++skipped;
        continue;
      }
      cfg.maxSteps = 100'000;
      ori::RunResult got = ori::runKernel(*back.module, cfg);
      if (got.kind == ori::RunResult::Kind::Unsupported && got.mnemonic == "OPAQUE") {
        ++skipped;
        continue;
      }
      ++compared;
      bool same = want.kind == got.kind && want.buffers == got.buffers &&
                  (want.kind != ori::RunResult::Kind::Fault ||
                   (want.thread == got.thread && want.addr == got.addr));
      if (!same)
        RC_FAIL("original: " + describe(want) + "\nemitted: " + describe(got) + "\n" + e.text);
    }
  });
  EXPECT_TRUE(ok);
  std::cout << "[random] " << compared << " runs compared, " << skipped << " not comparable\n";
}

// Run configurations of a kernel: those of the file's RUN lines (--threads,
// --ctas, --param, --buffer SIZE) and random ones (random buffer bytes and
// parameter values), all with the same buffer sizes.
struct Config {
  ori::RunConfig cfg;
  std::string what;
};

std::vector<Config> configsFor(const ori::Module &m, const std::string &text,
                               std::mt19937_64 &rng) {
  std::vector<Config> out;
  std::regex run(R"(RUN:.*--run(.*)%s)");
  for (std::sregex_iterator it(text.begin(), text.end(), run), end; it != end; ++it) {
    std::istringstream args((*it)[1].str());
    std::string a;
    Config c;
    bool ok = true;
    while (ok && args >> a) {
      std::string v;
      // A number as the whole word (a form this reader does not know leaves the RUN line out).
      auto number = [&](const std::string &w) -> std::optional<uint64_t> {
        const bool negative = !w.empty() && w[0] == '-';
        if (w.size() <= size_t(negative) || !std::isdigit(static_cast<unsigned char>(w[negative])))
          return std::nullopt;
        size_t used = 0;
        uint64_t n = negative ? uint64_t(std::stoll(w, &used, 0)) : std::stoull(w, &used, 0);
        if (used != w.size())
          return std::nullopt;
        return n;
      };
      if ((a == "--threads" || a == "--ctas") && args >> v) {
        std::optional<uint64_t> n = number(v);
        if (!n)
          ok = false;
        else
          (a == "--threads" ? c.cfg.threads : c.cfg.ctas) = uint32_t(*n);
      } else if (a == "--entry" && args >> v)
        c.cfg.entry = v;
      else if ((a == "--param" || a == "--buffer") && args >> v) {
        size_t eq = v.find('=');
        std::string name = v.substr(0, eq), val = eq == std::string::npos ? "" : v.substr(eq + 1);
        if (a == "--buffer" && val.starts_with("hex:") && val.size() % 2 == 0) {
          std::vector<uint8_t> &bytes = c.cfg.buffers[name];
          for (size_t k = 4; k + 1 < val.size(); k += 2)
            bytes.push_back(uint8_t(std::stoul(val.substr(k, 2), nullptr, 16)));
        } else if (std::optional<uint64_t> n = number(val); !n) {
          ok = false; // @FILE, float text, typed values: not read here
        } else if (a == "--param") {
          c.cfg.params[name] = *n;
        } else {
          c.cfg.buffers[name].assign(*n, 0);
        }
      } else if (a == "--dump-buffer" || a == "--max-steps")
        args >> v;
    }
    if (ok) {
      c.what = "RUN line: --run" + (*it)[1].str();
      out.push_back(c);
    }
  }
  // Random inputs for the file's single kernel (or the one its RUN lines name).
  const ori::Function *k = nullptr;
  for (const ori::Function &f : m.functions)
    if (f.isEntry && (!k || (!out.empty() && out[0].cfg.entry == f.name)))
      k = &f;
  if (!k)
    return out;
  std::vector<Config> base = out;
  if (base.empty()) {
    Config c;
    for (const ori::Param &p : k->params) {
      if (p.size == 8)
        c.cfg.buffers[p.name].assign(256, 0);
      else
        c.cfg.params[p.name] = 0;
    }
    base.push_back(c);
  }
  for (int r = 0; r < 3; ++r) {
    Config c = base[size_t(r) % base.size()];
    for (auto &[name, bytes] : c.cfg.buffers)
      for (uint8_t &b : bytes)
        b = uint8_t(rng());
    for (auto &[name, v] : c.cfg.params)
      v = r == 0 ? rng() % 8 : rng();
    if (out.empty())
      c.cfg.threads = uint32_t(1 + rng() % 4);
    c.what = "random inputs #" + std::to_string(r);
    out.push_back(c);
  }
  return out;
}

// .ori kernels, and PTX kernels lowered to Ori (tests/filetests/ptx-run).
TEST(PtxEmitSemantics, EmitThenLowerRunsTheSame) {
  std::mt19937_64 rng(20260522);
  size_t compared = 0, files = 0;
  std::set<std::string> notLowered;
  std::vector<fs::path> paths;
  for (const char *dir :
       {"examples", "tests/filetests/interp", "tests/filetests/emit", "tests/filetests/ptx-run"}) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(fs::path(sourceDir()) / dir, ec))
      if (e.path().extension() == ".ori" || e.path().extension() == ".ptx")
        paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path &p : paths) {
    std::string text = readFile(p);
    ori::ParseResult r = p.extension() == ".ptx" ? ori::ptx::parseAndLower(text, p.string())
                                                 : ori::parseOri(text, p.string());
    if (!r.module)
      continue;
    ori::ptx::EmitResult e = ori::ptx::emit(*r.module);
    if (e.error)
      continue; // files without a PTX form (EveryEmittableOriFileAssembles lists them)
    ori::ParseResult back = ori::ptx::parseAndLower(e.text, p.filename().string() + ".ptx");
    ASSERT_TRUE(back.module) << p << ": the emitted PTX does not lower back: " << back.error->str()
                             << "\n"
                             << e.text;
    ++files;
    for (Config &c : configsFor(*r.module, text, rng)) {
      c.cfg.maxSteps = 200'000;
      ori::RunResult want = ori::runKernel(*r.module, c.cfg);
      // Nothing to compare when the original cannot run to an end.
      if (want.kind == ori::RunResult::Kind::Timeout ||
          want.kind == ori::RunResult::Kind::Unsupported)
        continue;
      c.cfg.maxSteps = 4'000'000; // the emitted code takes more instructions
      ori::RunResult got = ori::runKernel(*back.module, c.cfg);
      if (got.kind == ori::RunResult::Kind::Unsupported && got.mnemonic == "OPAQUE") {
        // The lowering kept an emitted instruction OPAQUE: not comparable here.
        notLowered.insert(got.message);
        continue;
      }
      ++compared;
      // An access the interpreter always stops at, which PTX has no instruction for (a store
      // to .const faults, a state space mismatch is an error), is emitted as a trap
      // (ptx/emit_mem.cpp, abortsAlways): the same end, in the same thread.
      const bool stopAsTrap =
          got.kind == ori::RunResult::Kind::Trap &&
          ((want.kind == ori::RunResult::Kind::Fault && want.thread == got.thread) ||
           (want.kind == ori::RunResult::Kind::Error &&
            want.message.starts_with("state space mismatch")));
      bool same = (want.kind == got.kind || stopAsTrap) && want.buffers == got.buffers &&
                  (want.kind != ori::RunResult::Kind::Ok || want.threadsRun == got.threadsRun) &&
                  (want.kind != ori::RunResult::Kind::Fault || stopAsTrap ||
                   (want.thread == got.thread && want.addr == got.addr));
      EXPECT_TRUE(same) << p << " (" << c.what << ")\n original: " << describe(want)
                        << "\n emitted:  " << describe(got) << "\n"
                        << e.text;
    }
  }
  EXPECT_GE(files, 20u);
  EXPECT_GE(compared, 60u);
  std::cout << "[semantics] " << compared << " runs compared over " << files << " files\n";
  for (const std::string &m : notLowered)
    std::cout << "[semantics] not comparable, the PTX lowering keeps it OPAQUE: " << m << "\n";
}

} // namespace
