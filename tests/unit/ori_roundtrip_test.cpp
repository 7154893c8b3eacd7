// The .ori round-trip guarantee (docs/ori-format.md, "Round trip"):
//  - every .ori file under tests/ and examples/ parses, verifies, prints
//    stably (print(parse(print(parse(x)))) == print(parse(x))) and
//    parse(print(m)) == m;
//  - hand-written inputs of every operand kind print in canonical form and read back equal
//    (every modifier of every opcode, and every operand kind of every slot:
//    ori_opcode_table_roundtrip_test.cpp).
// Files that are meant to be rejected (lit tests whose RUN line starts with
// `not`, i.e. contain "RUN: not ") are skipped.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/mma.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "ori_roundtrip_helpers.h"

namespace ori {
namespace {

namespace fs = std::filesystem;
using namespace roundtrip_test;

// Every .ori file under tests/ and examples/, sorted.
std::vector<fs::path> oriFiles() {
  std::vector<fs::path> out;
  std::string root = sourceDir();
  if (root.empty())
    return out;
  for (const char *sub : {"tests", "examples"}) {
    fs::path dir = fs::path(root) / sub;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      continue;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".ori")
        out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool expectedToFail(const std::string &text) { return text.find("RUN: not ") != std::string::npos; }

TEST(OriRoundTripFiles, SourceDirectoryIsKnown) {
  ASSERT_FALSE(sourceDir().empty()) << "set ORIOPT_SOURCE_DIR (env or compile definition)";
  EXPECT_TRUE(fs::is_directory(fs::path(sourceDir()) / "examples")) << sourceDir();
}

TEST(OriRoundTripFiles, EveryFileRoundTrips) {
  std::vector<fs::path> files = oriFiles();
  ASSERT_FALSE(files.empty()) << "no .ori files under " << sourceDir() << "/{tests,examples}";
  size_t checked = 0, examples = 0;
  for (const fs::path &p : files) {
    SCOPED_TRACE(p.string());
    std::string text = readFile(p);
    if (expectedToFail(text))
      continue;
    Module m = checkRoundTrip(text, p.string());
    ++checked;
    if (p.parent_path().filename() == "examples") {
      ++examples;
      EXPECT_FALSE(m.functions.empty());
    }
  }
  EXPECT_GE(examples, 5u) << "saxpy, reduce, switch, maxabs and call are expected in examples/";
  EXPECT_GT(checked, 0u);
}

// ---------------------------------------------------------------------------
// A canonical text with every operand kind: it must print back byte for byte.

constexpr const char *kCanonical = R"(.ptx ".version 8.0"
.ptx ".target sm_90"
.global .align 16 .b32 table[4] = {0x1, 0x2, 0x3, 0xffffffff}
.const .f64 k0
.shared .u8 sbuf[3] = {0x7f}

.func (.u32 r0, .f64 r1) helper(.u8 a, .b16 b[3], .u64 cc .align 16, .f32 d[2] .align 16)
{
  .ptx ".maxntid 256, 1, 1"
  .reg %x = R10, %y = R11
  .reg .u32 ux = UR3
  .reg .pred %p = P5
  .reg up = UP1, bar = B2
  .shared .u8 buf[64]
  .local .align 8 .b32 stack[4]
  .param .b32 arg0
  .param .b32 ret0
  .jumptable tab = {one, two, one}
  S2R R0, SR_LANEID
  MOV R1, RZ
  MOV R2, URZ
  MOV ux, 0x7fffffff
  MOV R3, -0x80000000
  MOV.64 R4, -0x8000000000000000
  MOV.64 R6, 0x7fffffffffffffff
  MOV R8, c[0x0][0x210]
  MOV R9, c[0x11][0xffff]
  MOV.64 R28, table
  MOV.64 R30, helper
  LDC.64 R12, c[0x3][%x+0x10]
  LDC R13, c[0x3][ux-0x8000]
  LDC R14, c[0x3][RZ]
  FADD.RN.FTZ.SAT R15, -R1, |R2|
  FFMA.RZ %y, -|R1|, c[0x0][0x10], -c[0x0][0x14]
  FMUL R16, R1, -1.5
  FMUL R16, R1, 1e-07
  FMUL R16, R1, 3.4028234663852886e+38
  FMUL R16, R1, 0d7FF0000000000000
  FMUL R16, R1, 0dFFF0000000000000
  FMUL R16, R1, 0d7FF8000000000000
  FMUL R16, R1, -0.0
  DADD R18, R16, 5e-324
  ISETP.GE.U32.AND P0, %p, R0, 0x10, !PT
  FSETP.NEU.FTZ.XOR P1, PT, |R1|, -R2, !%p
  PLOP3.LUT P2, up, P0, !P1, UPT, 0x80, 0xff
  @!P2 SEL R19, R1, R2, P0
  @up IADD3 R20, -R1, R2, -ux
  LDG.E.64.CONSTANT R22, [R4]
  LDG.E.U8 R21, [R4+0x10]
  LDS.S16 R21, [R4-0x4]
  LDL R21, [0x100]
  STL [stack+0x8], R21
  ST.E.VOLATILE [R4+buf-0x10], R21
  STS [buf], R21
  LD R21, [a+0x1]
  LD R21, [r1]
  LDG.E R21, [table+0xc]
  ATOM.E.CAS.64 R24, [R4], R6, R8
  RED.E.ADD.S32 [R4+0x4], R1
  VOTE.ANY R25, P3, !P0
  SHFL.BFLY P4, R26, R1, 0x1, 0x1f
  MATCH.ALL.U64 R27, P4, R4
  MATCH.ANY R28, PT, R1
  REDUX.MIN.S32 R29, R1
  REDUX.SUM R29, ux
  OPAQUE "BMOV.32 B6, \"x\\y\"\t\n" def(R27, %p, bar) use(R1, UR4, P0)
  OPAQUE ""
  BSSY bar, two
  WARPSYNC 0xffffffff
  BAR.SYNC 0x0
  BAR.ARV R1, 0x40
  BAR.RED.POPC R30, 0x1, 0x40, !P0
  BAR.RED.OR %p, R1, PT
  NOP
  BRX R0, tab
one:
  CALL.REL (ret0), helper, (arg0)
two:
  BSYNC bar
  CALL.ABS ext
  @P0 BRA.U.DIV one
  CALL R6
  CALL (ret0), R6
  CALL ext, (arg0, arg0)
  @!PT RET.REL.NODEC
three:
four:
  RET.ABS
}

.func ext();

.entry k()
{
  EXIT
}
)";

TEST(OriRoundTripText, CanonicalTextPrintsBackExactly) {
  Module m = checkRoundTrip(kCanonical, "canonical.ori");
  EXPECT_EQ(printModule(m), kCanonical);
}

TEST(OriRoundTripText, CanonicalTextParsesToTheExpectedStructure) {
  ParseResult r = parseOri(kCanonical, "canonical.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  const Module &m = *r.module;
  EXPECT_EQ(m.ptxDirectives, (std::vector<std::string>{".version 8.0", ".target sm_90"}));
  ASSERT_EQ(m.variables.size(), 3u);
  EXPECT_EQ(m.variables[0].space, Space::Global);
  EXPECT_EQ(m.variables[0].align, 16u);
  EXPECT_EQ(m.variables[0].count, 4u);
  EXPECT_EQ(m.variables[0].init.size(), 16u);
  EXPECT_EQ(m.variables[1].space, Space::Const);
  EXPECT_EQ(m.variables[2].init, (std::vector<uint8_t>{0x7f}));
  ASSERT_EQ(m.functions.size(), 3u);
  const Function &f = m.functions[0];
  EXPECT_EQ(f.name, "helper");
  EXPECT_FALSE(f.isEntry);
  EXPECT_TRUE(m.functions[1].isDeclaration());
  EXPECT_TRUE(m.functions[2].isEntry);
  // Parameters of a .func are laid out from 0, naturally aligned unless .align says otherwise.
  ASSERT_EQ(f.params.size(), 4u);
  EXPECT_EQ(f.params[0].offset, 0u); // .u8 a
  EXPECT_EQ(f.params[1].offset, 2u); // .b16 b[3]: 6 bytes at 2
  EXPECT_EQ(f.params[1].size, 6u);
  EXPECT_EQ(f.params[1].count, 3u);
  EXPECT_EQ(f.params[2].offset, 16u); // .u64 cc .align 16
  EXPECT_EQ(f.params[2].align, 16u);
  EXPECT_EQ(f.params[3].offset, 32u); // .f32 d[2] .align 16
  ASSERT_EQ(f.returns.size(), 2u);
  EXPECT_EQ(f.returns[1].offset, 8u);
  EXPECT_EQ(f.ptxDirectives, (std::vector<std::string>{".maxntid 256, 1, 1"}));
  ASSERT_EQ(f.variables.size(), 4u);
  EXPECT_EQ(f.variables[1].space, Space::Local);
  EXPECT_EQ(f.variables[1].align, 8u);
  EXPECT_EQ(f.regTypes.at(Reg{RegFile::UR, 3}), "u32");
  EXPECT_EQ(f.regTypes.at(P(5)), "pred");
  EXPECT_EQ(f.regNames.at(Reg{RegFile::B, 2}), "bar");
  // Blocks: the entry (up to BRX), one (CALL), two (BSYNC, CALL), four blocks
  // each ending in one control-flow instruction, three (empty), four.
  ASSERT_EQ(f.blocks.size(), 10u);
  const char *labels[] = {"", "one", "two", "", "", "", "", "", "three", "four"};
  for (size_t b = 0; b < 10; ++b)
    EXPECT_EQ(f.blocks[b].label, labels[b]) << b;
  EXPECT_TRUE(f.blocks[8].instrs.empty());
  EXPECT_EQ(f.blocks[8].labelId, f.blocks[9].labelId);
  EXPECT_EQ(f.blocks[1].labelId, 0x10u * uint32_t(f.blocks[0].instrs.size()));
  ASSERT_EQ(f.jumpTables.size(), 1u);
  EXPECT_EQ(f.jumpTables[0].targets, (std::vector<uint32_t>{1, 2, 1}));
  // CALL (ret0), helper, (arg0): returns are dests, target and arguments sources.
  const Instr &call = f.blocks[1].instrs[0];
  EXPECT_EQ(call.dsts, (std::vector<Operand>{Operand::symbol("ret0")}));
  EXPECT_EQ(call.srcs, (std::vector<Operand>{Operand::symbol("helper"), Operand::symbol("arg0")}));
  EXPECT_EQ(f.nextReg[int(RegFile::R)], 31u);
  EXPECT_EQ(f.nextReg[int(RegFile::UR)], 5u);
  EXPECT_EQ(f.nextReg[int(RegFile::P)], 6u);
  EXPECT_EQ(f.nextReg[int(RegFile::B)], 3u);
}

// ---------------------------------------------------------------------------
// Non-canonical spellings read the same and print canonically.

struct Canon {
  const char *in;
  const char *out;
};

TEST(OriRoundTripText, NonCanonicalSpellingsPrintCanonically) {
  const Canon cases[] = {
      {"ISETP.U32.AND.GE P0, PT, R1, 16, PT", "ISETP.GE.U32.AND P0, PT, R1, 0x10, PT"},
      {"SHF.U32.HI.R R1, R2, 0X1F, R3", "SHF.R.HI.U32 R1, R2, 0x1f, R3"},
      {"MOV R1, 0x00000000000000000000000001", "MOV R1, 0x1"},
      {"MOV R1, -0", "MOV R1, 0x0"},
      {"MOV R1, 4294967295", "MOV R1, 0xffffffff"},
      {"MOV.64 R1, 0xFFFFFFFFFFFFFFFF", "MOV.64 R1, -0x1"},
      {"FADD R1, R2, 0f3F800000", "FADD R1, R2, 1.0"},
      {"FADD R1, R2, 0fBF000000", "FADD R1, R2, -0.5"},
      {"FADD R1, R2, 0f7F800000", "FADD R1, R2, 0d7FF0000000000000"},
      {"FADD R1, R2, -0d7FF0000000000000", "FADD R1, R2, 0dFFF0000000000000"},
      {"DADD R1, R2, 0d3ff0000000000000", "DADD R1, R2, 1.0"},
      {"FADD R1, R2, 1E3", "FADD R1, R2, 1000.0"},
      {"FADD R1, R2, 2.5e+10", "FADD R1, R2, 25000000000.0"},
      {"FADD R1, R2, 1e-400", "FADD R1, R2, 0.0"},
      {"MOV R1, c[0][16]", "MOV R1, c[0x0][0x10]"},
      {"MOV R1, c [0x0] [ R2 + 0 ]", "MOV R1, c[0x0][R2]"},
      {"LDG.E R1, [ R2 + 0x0 ]", "LDG.E R1, [R2]"},
      {"LDG.E R1, [0]", "LDG.E R1, [0x0]"},
      {"LDG.E R1, [sym+0]", "LDG.E R1, [sym]"},
      {"@ ! P0 MOV R1 , R2 ;", "@!P0 MOV R1, R2"},
      {"@PT MOV R1, R2", "@PT MOV R1, R2"},
      {"ATOM.E.S32.MAX R1, [R2], R3", "ATOM.E.MAX.S32 R1, [R2], R3"},
      {"MATCH.U64.ANY R1, PT, R2", "MATCH.ANY.U64 R1, PT, R2"},
      {"REDUX.S32.MIN R1, R2", "REDUX.MIN.S32 R1, R2"},
      {"BAR.AND.RED P1, 0, !P2", "BAR.RED.AND P1, 0x0, !P2"},
      {"BAR.POPC.RED R1, R2, 64, P2", "BAR.RED.POPC R1, R2, 0x40, P2"},
      {"OPAQUE \"a\\nb\" use() def(R1)", nullptr}, // use() before def(): rejected below
      {"OPAQUE \"a\\nb\" def() use()", "OPAQUE \"a\\nb\""},
      {"OPAQUE \"tab\there\" def(R1)", "OPAQUE \"tab\\there\" def(R1)"},
  };
  for (const Canon &c : cases) {
    SCOPED_TRACE(c.in);
    std::string text =
        std::string(".global .b32 sym[4]\n.entry f()\n{\n  ") + c.in + "\n  EXIT\n}\n";
    ParseResult r = parseOri(text, "canon.ori");
    if (!c.out) {
      EXPECT_TRUE(r.error);
      continue;
    }
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    ASSERT_EQ(f.blocks.size(), 1u);
    EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), c.out);
    checkRoundTrip(text, "canon.ori");
  }
}

TEST(OriRoundTripText, LayoutAndWhitespaceAreFree) {
  // Labels may share a line with an instruction, '{' may be on the header
  // line, ';' ends a statement, \r\n line ends and form feeds are blanks.
  const char *text =
      ".entry f(.u32 n,\r\n  .u64 p) {\r\n\f L1: MOV R1, R2;\r\n ;\r\n  L2:\r\n EXIT // done\r\n}";
  ParseResult r = parseOri(text, "ws.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  EXPECT_EQ(printModule(*r.module),
            ".entry f(.u32 n, .u64 p)\n{\nL1:\n  MOV R1, R2\nL2:\n  EXIT\n}\n");
  EXPECT_EQ(r.module->functions[0].params[0].offset, kParamBase);
  EXPECT_EQ(r.module->functions[0].params[1].offset, kParamBase + 8);
}

// Kernel parameters live in c[0x0][0x210 + offset], naturally aligned.
TEST(OriRoundTripText, EntryParameterLayout) {
  ParseResult r = parseOri(".entry f(.u8 a, .u32 b, .u16 c2, .f64 d, .b8 e[5], .u64 g[2], .s32 h "
                           ".align 64)\n{\n  EXIT\n}\n",
                           "params.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  std::vector<uint32_t> offsets;
  for (const Param &p : r.module->functions[0].params)
    offsets.push_back(p.offset);
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0x210, 0x214, 0x218, 0x220, 0x228, 0x230, 0x240}));
}

// Block formation: a label starts a block, control flow ends one, two labels
// in a row make an empty block; label ids are 0x10 x the index of the
// block's first instruction.
TEST(OriRoundTripText, BlockFormationAndLabelIds) {
  const char *text = R"(.entry f()
{
  .jumptable t = {A, C}
  NOP
  @P0 BRA A
  NOP
  CALL g
  NOP
A:
B:
  NOP
C:
  BRX R1, t
  EXIT
}

.func g();
)";
  ParseResult r = parseOri(text, "blocks.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  const Function &f = r.module->functions[0];
  ASSERT_EQ(f.blocks.size(), 7u);
  const char *labels[] = {"", "", "", "A", "B", "C", ""};
  uint32_t ids[] = {0x0, 0x20, 0x40, 0x50, 0x50, 0x60, 0x70};
  size_t sizes[] = {2, 2, 1, 0, 1, 1, 1};
  for (size_t b = 0; b < 7; ++b) {
    SCOPED_TRACE(b);
    EXPECT_EQ(f.blocks[b].label, labels[b]);
    EXPECT_EQ(f.blocks[b].labelId, ids[b]);
    EXPECT_EQ(f.blocks[b].instrs.size(), sizes[b]);
  }
  EXPECT_EQ(f.blocks[0].instrs[1].srcs[0], Operand::label(3));
  EXPECT_EQ(f.blocks[5].instrs[0].srcs[1], Operand::jumpTable(0));
  EXPECT_EQ(f.jumpTables[0].targets, (std::vector<uint32_t>{3, 5}));
  // Source positions are kept (not part of equality).
  EXPECT_EQ(f.blocks[1].instrs[0].loc.line, 6u);
  EXPECT_EQ(f.blocks[1].instrs[0].loc.col, 3u);
  checkRoundTrip(text, "blocks.ori");
}

// ---------------------------------------------------------------------------
// Operands: the parsed structure of each kind.

struct OperandCase {
  const char *instr; // its last operand is the one checked
  Operand expected;
  const char *printed; // printOperand of it
};

Operand negated(Operand o) {
  o.neg = true;
  return o;
}
Operand absolute(Operand o) {
  o.abs = true;
  return o;
}
Operand indexedBank(uint32_t bank, Reg r, int64_t off) {
  Operand o = Operand::cbank(bank, off);
  o.hasReg = true;
  o.reg = r;
  return o;
}

TEST(OriRoundTripText, EveryOperandKindParsesToTheRightOperand) {
  const Reg ur3{RegFile::UR, 3}, up1{RegFile::UP, 1}, b2{RegFile::B, 2};
  const OperandCase cases[] = {
      {"MOV R1, R7", Operand::reg_(R(7)), "R7"},
      {"MOV R1, RZ", Operand::reg_(RZ), "RZ"},
      {"MOV R1, UR3", Operand::reg_(ur3), "UR3"},
      {"MOV R1, URZ", Operand::reg_(Reg{RegFile::UR, Reg::kConst}), "URZ"},
      {"SEL R1, R2, R3, P6", Operand::reg_(P(6)), "P6"},
      {"SEL R1, R2, R3, !P6", Operand::reg_(P(6), true), "!P6"},
      {"SEL R1, R2, R3, PT", Operand::reg_(PT), "PT"},
      {"SEL R1, R2, R3, !UPT", Operand::reg_(Reg{RegFile::UP, Reg::kConst}, true), "!UPT"},
      {"SEL R1, R2, R3, UP1", Operand::reg_(up1), "UP1"},
      {"BSYNC B2", Operand::reg_(b2), "B2"},
      {"IADD3 R1, R2, R3, -R4", negated(Operand::reg_(R(4))), "-R4"},
      {"FADD R1, R2, |R4|", absolute(Operand::reg_(R(4))), "|R4|"},
      {"FADD R1, R2, -|R4|", negated(absolute(Operand::reg_(R(4)))), "-|R4|"},
      {"MOV R1, 0x10", Operand::immediate(16), "0x10"},
      {"MOV R1, 10", Operand::immediate(10), "0xa"},
      {"MOV R1, -0x10", Operand::immediate(-16), "-0x10"},
      {"MOV R1, 0xffffffff", Operand::immediate(0xffffffff), "0xffffffff"},
      {"MOV R1, -0x80000000", Operand::immediate(INT32_MIN), "-0x80000000"},
      {"MOV.64 R1, 0x8000000000000000", Operand::immediate(INT64_MIN), "-0x8000000000000000"},
      {"FADD R1, R2, 0.5", Operand::floatImm(0.5), "0.5"},
      {"FADD R1, R2, -2.0", Operand::floatImm(-2.0), "-2.0"},
      {"FADD R1, R2, 0f40490FDB", Operand::floatImm(double(std::bit_cast<float>(0x40490FDBu))),
       "3.1415927410125732"},
      {"DADD R1, R2, 0d400921FB54442D18", Operand::floatImm(3.141592653589793),
       "3.141592653589793"},
      {"FADD R1, R2, -0.0", Operand::floatImm(-0.0), "-0.0"},
      {"FADD R1, R2, 0d7FF0000000000000", Operand::floatImm(HUGE_VAL), "0d7FF0000000000000"},
      {"MOV R1, c[0x2][0x18]", Operand::cbank(2, 0x18), "c[0x2][0x18]"},
      {"MOV R1, c[0x2][R5+0x18]", indexedBank(2, R(5), 0x18), "c[0x2][R5+0x18]"},
      {"MOV R1, c[0x2][UR5-0x8]", indexedBank(2, Reg{RegFile::UR, 5}, -8), "c[0x2][UR5-0x8]"},
      {"FADD R1, R2, -c[0x0][0x0]", negated(Operand::cbank(0, 0)), "-c[0x0][0x0]"},
      {"FADD R1, R2, |c[0x0][0x4]|", absolute(Operand::cbank(0, 4)), "|c[0x0][0x4]|"},
      {"S2R R1, SR_TID.Z", Operand::special(SpecialReg::TID_Z), "SR_TID.Z"},
      {"S2R R1, SR_LANEMASK_GE", Operand::special(SpecialReg::LANEMASK_GE), "SR_LANEMASK_GE"},
      {"LDG.E R1, [R2]", Operand::mem(R(2), 0), "[R2]"},
      {"LDG.E R1, [R2+0x10]", Operand::mem(R(2), 16), "[R2+0x10]"},
      {"LDG.E R1, [UR2-0x10]", Operand::mem(Reg{RegFile::UR, 2}, -16), "[UR2-0x10]"},
      {"LDG.E R1, [0x100]", Operand::mem(std::nullopt, 0x100), "[0x100]"},
      {"LDG.E R1, [0xffffffff]", Operand::mem(std::nullopt, 0xffffffff), "[0xffffffff]"},
      {"LDS R1, [sym+8]", Operand::mem(std::nullopt, 8, "sym"), "[sym+0x8]"},
      {"LDS R1, [sym]", Operand::mem(std::nullopt, 0, "sym"), "[sym]"},
      {"LDS R1, [R3+sym-0x4]", Operand::mem(R(3), -4, "sym"), "[R3+sym-0x4]"},
      {"CALL.ABS callee", Operand::symbol("callee"), "callee"},
      {"CALL R6", Operand::reg_(R(6)), "R6"},
      {"CALL (arg), callee, (arg, arg)", Operand::symbol("arg"), "arg"},
      {"MOV R1, sym", Operand::symbol("sym"), "sym"},
      {"MOV R1, callee", Operand::symbol("callee"), "callee"},
      {"BAR.ARV 0x1, 0x40", Operand::immediate(0x40), "0x40"},
  };
  for (const OperandCase &c : cases) {
    SCOPED_TRACE(c.instr);
    std::string text = std::string(".global .b32 sym[4]\n.entry f()\n{\n  .param .b32 arg\n  ") +
                       c.instr + "\n  EXIT\n}\n.func callee();\n";
    ParseResult r = parseOri(text, "op.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    const Instr &in = f.blocks[0].instrs[0];
    ASSERT_FALSE(in.srcs.empty());
    EXPECT_TRUE(in.srcs.back() == c.expected);
    EXPECT_EQ(printOperand(f, in.srcs.back()), c.printed);
    checkRoundTrip(text, "op.ori");
  }
}

TEST(OriRoundTripText, LabelsAndJumpTablesResolveToIndices) {
  const char *text = ".entry f()\n{\n  .jumptable t0 = {X}\n  .jumptable t1 = {Y, X}\n  BSSY B0, "
                     "Y\n  BRX R1, t1\nX:\n  BSYNC B0\n  EXIT\nY:\n  BRA X\n}\n";
  ParseResult r = parseOri(text, "lt.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  const Function &f = r.module->functions[0];
  EXPECT_EQ(f.blocks[0].instrs[0].srcs[0], Operand::label(2));
  EXPECT_EQ(f.blocks[0].instrs[1].srcs[1], Operand::jumpTable(1));
  EXPECT_EQ(f.blocks[2].instrs[0].srcs[0], Operand::label(1));
  checkRoundTrip(text, "lt.ori");
}

// ---------------------------------------------------------------------------
// docs/ori-format.md holds the opcode table; every row must match ori::opInfo.

std::string slotText(const std::vector<OperandSlot> &slots) {
  static const std::pair<uint16_t, char> kLetters[] = {
      {K_REG, 'R'},  {K_PRED, 'P'}, {K_BAR, 'B'},   {K_IMM, 'I'},  {K_FIMM, 'F'}, {K_CBANK, 'C'},
      {K_SREG, 'S'}, {K_MEM, 'M'},  {K_LABEL, 'L'}, {K_JTAB, 'J'}, {K_SYM, 'Y'},
  };
  std::string out;
  for (const OperandSlot &s : slots) {
    std::string letters;
    for (auto [bit, c] : kLetters)
      if (s.kinds & bit)
        letters += c;
    letters += s.repeat ? "*" : s.optional ? "?" : "";
    out += (out.empty() ? "`" : " `") + letters + "`";
  }
  return out.empty() ? "—" : out;
}

std::string flagText(const OpInfo &info) {
  static const std::pair<uint32_t, const char *> kFlags[] = {
      {CONTROL, "CONTROL"},
      {TERMINATOR, "TERMINATOR"},
      {BRANCH, "BRANCH"},
      {CALL_, "CALL"},
      {SIDE_EFFECT, "SIDE_EFFECT"},
      {MEMORY, "MEMORY"},
      {BARRIER, "BARRIER"},
      {CONVERGENCE, "CONVERGENCE"},
      {COMMUTATIVE, "COMMUTATIVE"},
      {INEG, "INEG"},
      {FNEG, "FNEG"},
      {VARIADIC, "VARIADIC"},
  };
  std::string out;
  for (auto [bit, name] : kFlags)
    if (info.is(bit))
      out += (out.empty() ? "" : " ") + std::string(name);
  return out.empty() ? "—" : out;
}

std::string modifierText(const OpInfo &info) {
  std::string out;
  std::optional<ModGroup> group;
  for (Mod m : info.allowedMods.list()) {
    if (group)
      out += modGroup(m) == *group ? " " : "; ";
    group = modGroup(m);
    out += "." + std::string(modText(m));
  }
  return out.empty() ? "—" : out;
}

TEST(OriFormatDoc, OpcodeTableMatchesTheOpcodeTable) {
  std::string doc = readFile(fs::path(sourceDir()) / "docs" / "ori-format.md");
  ASSERT_FALSE(doc.empty()) << "docs/ori-format.md not found under " << sourceDir();
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    std::string row = "| " + std::string(info.name) + " | " + slotText(info.dsts) + " | " +
                      slotText(info.srcs) + " | " + flagText(info) + " | " + modifierText(info) +
                      " |\n";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/ori-format.md lacks the row\n" << row;
  }
}

// ---------------------------------------------------------------------------
// Regressions: inputs the parser once accepted whose printed form did not
// read back to the same module. Each must be rejected or round-trip.

void expectRejectedOrRoundTrips(const std::string &text) {
  ParseResult r = parseOri(text, "bug.ori");
  if (!r.module)
    return; // rejected: fine
  std::string printed = printModule(*r.module);
  ParseResult r2 = parseOri(printed, "bug.ori");
  ASSERT_TRUE(r2.module) << "accepted, but its print does not parse: " << r2.error->str() << "\n"
                         << printed;
  EXPECT_TRUE(*r2.module == *r.module) << "accepted, but parse(print(m)) != m:\n" << printed;
}

// `CALL foo` reads foo as a symbol; a later `.reg foo = R1` makes the printed
// text (where .reg comes first) read it as register R1: the meaning changes.
TEST(OriRoundTripRegression, CallTargetLaterDeclaredAsRegisterName) {
  expectRejectedOrRoundTrips(
      ".func foo();\n.entry f()\n{\n  CALL foo\n  .reg foo = R1\n  EXIT\n}\n");
}

// Same with MOV's symbol operand.
TEST(OriRoundTripRegression, MovSymbolLaterDeclaredAsRegisterName) {
  expectRejectedOrRoundTrips(
      ".shared .b32 buf[4]\n.entry f()\n{\n  MOV R1, buf\n  .reg buf = R9\n  EXIT\n}\n");
}

// Same with a label: `BRA x` + `x:` + `.reg x = R1` parses, its print does not.
TEST(OriRoundTripRegression, LabelLaterDeclaredAsRegisterName) {
  expectRejectedOrRoundTrips(".entry f()\n{\n  BRA x\nx:\n  .reg x = R1\n  EXIT\n}\n");
}

// A memory symbol named like a register name declared later.
TEST(OriRoundTripRegression, MemorySymbolLaterDeclaredAsRegisterName) {
  expectRejectedOrRoundTrips(
      ".shared .b32 buf[4]\n.entry f()\n{\n  LDS R1, [buf+0x4]\n  .reg buf = R9\n  EXIT\n}\n");
}

// A constant-bank offset above INT64_MAX wraps negative and is accepted.
TEST(OriRoundTripRegression, HugeConstantBankOffset) {
  expectRejectedOrRoundTrips(".entry f()\n{\n  MOV R1, c[0x0][0x8000000000000000]\n  EXIT\n}\n");
}

} // namespace
} // namespace ori
