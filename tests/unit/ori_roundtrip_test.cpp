// The .ori round-trip guarantee (docs/ori-format.md, "Round trip"):
//  - every .ori file under tests/ and examples/ parses, verifies, prints
//    stably (print(parse(print(parse(x)))) == print(parse(x))) and
//    parse(print(m)) == m;
//  - hand-written inputs of every operand kind and every modifier of every
//    opcode print in canonical form and read back equal.
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

namespace ori {
namespace {

namespace fs = std::filesystem;

std::string sourceDir() {
  if (const char *env = std::getenv("ORIOPT_SOURCE_DIR"); env && *env)
    return env;
#ifdef ORIOPT_SOURCE_DIR
  return ORIOPT_SOURCE_DIR;
#else
  return "";
#endif
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

// Checks the whole guarantee for one text; returns the parsed module.
Module checkRoundTrip(const std::string &text, const std::string &name) {
  ParseResult r = parseOri(text, name);
  if (!r.module) {
    ADD_FAILURE() << name << ": does not parse: " << (r.error ? r.error->str() : "?");
    return {};
  }
  const Module &m = *r.module;
  std::vector<std::string> problems = verifyModule(m);
  EXPECT_TRUE(problems.empty()) << name
                                << ": verifyModule: " << (problems.empty() ? "" : problems[0]);
  std::string printed = printModule(m);
  ParseResult r2 = parseOri(printed, name + ".printed");
  if (!r2.module) {
    ADD_FAILURE() << name << ": printed text does not parse: " << r2.error->str() << "\n"
                  << printed;
    return m;
  }
  EXPECT_TRUE(*r2.module == m) << name << ": parse(print(m)) != m\n" << printed;
  EXPECT_EQ(printModule(*r2.module), printed) << name << ": print is not stable";
  EXPECT_TRUE(verifyModule(*r2.module).empty()) << name;
  return m;
}

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
// Every modifier of every opcode, and every operand kind of every slot,
// generated from the opcode table.

// A representative operand text of one kind.
std::string sample(uint16_t kind, bool isDst) {
  switch (kind) {
  case K_REG:
    return isDst ? "R1" : "R2";
  case K_PRED:
    return isDst ? "P1" : "!P2";
  case K_BAR:
    return "B1";
  case K_IMM:
    return "0x1";
  case K_FIMM:
    return "1.5";
  case K_CBANK:
    return "c[0x0][0x10]";
  case K_SREG:
    return "SR_CTAID.Y";
  case K_MEM:
    return "[R4+0x8]";
  case K_LABEL:
    return "L1";
  case K_JTAB:
    return "tab";
  case K_SYM:
    return "callee";
  }
  return "?";
}

uint16_t firstKind(uint16_t kinds) {
  for (uint16_t bit = 1; bit; bit = uint16_t(bit << 1))
    if (kinds & bit)
      return bit;
  return 0;
}

// "OP.MODS a, b, c" with the first accepted kind in every slot except
// `slot` (an index over dests then sources), which gets `kind`.
std::string instrText(const OpInfo &info, const std::string &mods, size_t slot, uint16_t kind,
                      bool withOptional) {
  std::string out = std::string(info.name) + mods;
  size_t k = 0;
  bool first = true;
  for (int pass = 0; pass < 2; ++pass) {
    const auto &slots = pass == 0 ? info.dsts : info.srcs;
    for (const OperandSlot &s : slots) {
      if (s.optional && !withOptional) {
        ++k;
        continue;
      }
      out += first ? " " : ", ";
      first = false;
      out += sample(k == slot ? kind : firstKind(s.kinds), pass == 0);
      ++k;
    }
  }
  return out;
}

bool isSurfaceOp(Opcode op) {
  return op == Opcode::SULD || op == Opcode::SUST || op == Opcode::TEX;
}
// Opcodes whose operands or required modifiers their modifiers decide (checkShape): tested in
// MatrixShapesRoundTrip below.
bool isMatrixOp(Opcode op) {
  return isMma(op) || op == Opcode::LDSM || op == Opcode::STSM || op == Opcode::MOVM ||
         op == Opcode::SETMAXREG;
}
// Loads, stores and atomics whose operand counts their modifiers decide (.HINT, .CAS, .128:
// checkShape, ir/ori_parser.cpp): MemoryShapesRoundTrip below.
bool isMemoryShapeOp(Opcode op) {
  return isAtomic(op) || op == Opcode::LD || op == Opcode::LDG || op == Opcode::ST ||
         op == Opcode::STG;
}

std::string wrap(const std::string &instr) {
  return ".entry f()\n{\n  .jumptable tab = {L1}\n  " + instr +
         "\nL1:\n  EXIT\n}\n.func callee();\n";
}

TEST(OriRoundTripTable, EveryModifierOfEveryOpcode) {
  size_t checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    // OPAQUE has no modifiers; BAR's shape depends on them (BarShapesRoundTrip below), and so
    // does that of SULD, SUST and TEX (SurfaceShapesRoundTrip).
    if (info.op == Opcode::OPAQUE || info.op == Opcode::BAR || isSurfaceOp(info.op) ||
        isMatrixOp(info.op) || isMemoryShapeOp(info.op))
      continue;
    for (Mod m : info.allowedMods.list()) {
      std::string mods = "." + std::string(modText(m));
      // CALL's optional lists have a syntax of their own (tested above).
      std::string instr = instrText(info, mods, SIZE_MAX, 0, info.op != Opcode::CALL);
      SCOPED_TRACE(instr);
      ParseResult r = parseOri(wrap(instr), "mods.ori");
      ASSERT_TRUE(r.module) << r.error->str();
      const Function &f = r.module->functions[0];
      const Instr &in = f.blocks[0].instrs[0];
      EXPECT_EQ(in.op, info.op);
      ModSet expected;
      expected.set(m);
      EXPECT_TRUE(in.mods == expected);
      EXPECT_EQ(printInstr(f, in), instr);
      checkRoundTrip(wrap(instr), "mods.ori");
      ++checked;
    }
  }
  EXPECT_GT(checked, 150u);
}

// Within one opcode, two allowed modifiers are spelled the same only in different groups,
// the earlier group's first in print order (IMMA's A and B types: IMMA.16832.S8.U8); the
// parser gives a spelling the first of its modifiers whose group is still free, so what
// prints reads back (MatrixShapesRoundTrip). checkShape never lets the later group stand
// without the earlier one.
// SULD, SUST and TEX in the shapes their modifiers give (checkShape, ir/ori.h), every modifier
// of theirs at least once, each kind their slots take.
TEST(OriRoundTripTable, SurfaceShapesRoundTrip) {
  const char *forms[] = {
      "SULD.1D.TRAP R1, R2, R3",
      "SULD.U8.2D.CLAMP R1, R2, R3, 0x4",
      "SULD.U16.3D.V2.ZERO R1, R5, R2, 0x1, R3, R4",
      "SULD.U16.2D.V4.TRAP R1, R5, R6, R7, R2, R3, R4",
      "SUST.1D.TRAP R2, R3, R4",
      "SUST.64.3D.V2.CLAMP R2, 0x10, R3, R4, R5, R6",
      "SUST.2D.V4.ZERO R2, R3, R4, R5, R6, R7, 0x1",
      "TEX.F32.1D R1, R5, R6, R7, R2, 1.5",
      "TEX.U32.2D.ICOORD R1, R5, R6, R7, R2, R3, 0x2",
      "TEX.S32.3D.LOD R1, R5, R6, R7, R2, R3, R4, R8, 0.5",
      "TEX.2D.GRAD R1, R5, R6, R7, R2, R3, R4, R8, R9, R10, R11",
  };
  for (const char *instr : forms) {
    SCOPED_TRACE(instr);
    ParseResult r = parseOri(wrap(instr), "surf.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
    checkRoundTrip(wrap(instr), "surf.ori");
  }
}

// Loads, stores and atomics: every modifier of theirs in the shape it gives (a cache policy
// last with .HINT; CAS's second value; .128's two halves per value and two results, with .CAS
// or .EXCH; .U16 with .CAS), and the operand kinds their value slots take.
TEST(OriRoundTripTable, MemoryShapesRoundTrip) {
  size_t checked = 0;
  for (Opcode op : {Opcode::LD, Opcode::LDG, Opcode::ST, Opcode::STG, Opcode::ATOM, Opcode::ATOMG,
                    Opcode::ATOMS, Opcode::RED, Opcode::REDG}) {
    const OpInfo &info = opInfo(op);
    for (Mod m : info.allowedMods.list()) {
      ModSet mods;
      mods.set(m);
      if ((m == Mod::W128 || m == Mod::U16) && isAtomic(op))
        mods.set(op == Opcode::RED || op == Opcode::REDG ? Mod::ADD : Mod::CAS);
      std::string text = std::string(info.name);
      for (Mod k : mods.list())
        text += "." + std::string(modText(k));
      const bool cas = mods.test(Mod::CAS), wide = mods.test(Mod::W128);
      if (wide && (op == Opcode::RED || op == Opcode::REDG))
        continue; // no RED.128
      std::string ops;
      for (size_t d = 0; d < dstCount(op, mods); ++d)
        ops += d ? ", R1" : " R0";
      ops += ops.empty() ? " [R4+0x8]" : ", [R4+0x8]";
      const bool load = op == Opcode::LD || op == Opcode::LDG;
      const size_t values = load ? 0 : !isAtomic(op) ? 1 : (wide ? 2 : 1) * (cas ? 2 : 1);
      for (size_t k = 0; k < values; ++k)
        ops += k == 1 ? ", 0x1" : fmt::format(", R{}", 10 + k); // an immediate too
      if (m == Mod::HINT)
        ops += ", R20";
      const std::string instr = text + ops;
      SCOPED_TRACE(instr);
      ParseResult r = parseOri(wrap(instr), "mem.ori");
      ASSERT_TRUE(r.module) << r.error->str();
      const Function &f = r.module->functions[0];
      EXPECT_TRUE(f.blocks[0].instrs[0].mods == mods);
      EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
      checkRoundTrip(wrap(instr), "mem.ori");
      ++checked;
    }
  }
  EXPECT_GT(checked, 200u);
  // Shapes the modifiers rule out are errors that say which shape they want.
  for (const char *bad :
       {"LD.E R1, [R4+0x8], R2", "ST.E [R4+0x8], R2, R3", "ATOM.E.ADD R1, [R4], R2, R3",
        "ATOM.E.CAS.HINT R1, [R4], R2, R3, R5", "ATOM.E.ADD.128 R1, R2, [R4], R5, R6",
        "ATOM.E.EXCH.128 R1, R2, [R4], R5", "RED.E.ADD.U16 [R4], R2"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parseOri(wrap(bad), "bad.ori").module);
  }
}

TEST(OriRoundTripTable, ModifierSpellingsAreUnambiguousPerOpcode) {
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    std::map<std::string_view, ModGroup> seen;
    for (Mod m : info.allowedMods.list()) {
      auto [it, fresh] = seen.emplace(modText(m), modGroup(m));
      if (fresh)
        continue;
      EXPECT_NE(it->second, modGroup(m)) << info.name << " ." << modText(m);
      EXPECT_TRUE(info.op == Opcode::IMMA || info.op == Opcode::HMMA)
          << info.name << " ." << modText(m);
    }
  }
}

TEST(OriRoundTripTable, EveryKindOfEverySlot) {
  size_t checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    if (info.op == Opcode::OPAQUE || info.op == Opcode::CALL)
      continue; // own syntax, tested above
    if (info.op == Opcode::BAR || isSurfaceOp(info.op) || isMatrixOp(info.op) ||
        isMemoryShapeOp(info.op))
      continue; // shape by modifiers: below
    size_t nslots = info.dsts.size() + info.srcs.size();
    for (size_t slot = 0; slot < nslots; ++slot) {
      bool isDst = slot < info.dsts.size();
      const OperandSlot &s = isDst ? info.dsts[slot] : info.srcs[slot - info.dsts.size()];
      for (uint16_t bit = 1; bit; bit = uint16_t(bit << 1)) {
        if (!(s.kinds & bit))
          continue;
        std::string instr = instrText(info, "", slot, bit, true);
        SCOPED_TRACE(instr);
        ParseResult r = parseOri(wrap(instr), "kinds.ori");
        ASSERT_TRUE(r.module) << r.error->str();
        const Function &f = r.module->functions[0];
        const Instr &in = f.blocks[0].instrs[0];
        const Operand &got = isDst ? in.dsts[slot] : in.srcs[slot - info.dsts.size()];
        EXPECT_EQ(got.kindBit(), bit);
        EXPECT_EQ(printInstr(f, in), instr);
        checkRoundTrip(wrap(instr), "kinds.ori");
        ++checked;
      }
      // A kind the slot does not accept is rejected.
      for (uint16_t bit : {uint16_t(K_IMM), uint16_t(K_MEM), uint16_t(K_SREG)}) {
        if (s.kinds & bit)
          continue;
        std::string instr = instrText(info, "", slot, bit, true);
        ParseResult r = parseOri(wrap(instr), "kinds.ori");
        EXPECT_TRUE(r.error) << instr;
      }
    }
    // Optional slots may be left out.
    std::string shortest = instrText(info, "", SIZE_MAX, 0, false);
    SCOPED_TRACE(shortest);
    checkRoundTrip(wrap(shortest), "kinds.ori");
  }
  EXPECT_GT(checked, 100u);
}

// The matrix instructions in the shapes their modifiers give (ir/mma.h, checkShape): every MMA
// form with as many registers as it has, the LDSM/STSM/MOVM/SETMAXREG forms; wrong counts and
// modifier sets that name no form are errors.
TEST(OriRoundTripTable, MatrixShapesRoundTrip) {
  std::vector<std::string> good;
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA})
    for (const ModSet &mods : mmaForms(op)) {
      const MmaForm f = std::get<MmaForm>(mmaForm(op, mods));
      std::string text(opInfo(op).name);
      for (Mod m : mods.list())
        text += "." + std::string(modText(m));
      const unsigned n = f.dRegs + f.aRegs + f.bRegs + f.cRegs;
      for (unsigned k = 0; k < n; ++k)
        text += fmt::format("{}R{}", k ? ", " : " ", k + 1);
      good.push_back(text);
    }
  // HMMA 34 (m8n8k4 10, m16n8k4 1, m16n8k8 4, m16n8k16 11, m16n8k32 8), IMMA 48, DMMA 20, BMMA 6
  EXPECT_EQ(good.size(), 108u);
  good.insert(good.end(), {"LDSM.M88 R1, [R5]", "LDSM.MT88.2 R1, R2, [R5+0x10]",
                           "LDSM.M88.4 R1, R2, R3, R4, [sv+0x20]", "STSM.MT88 [R5], R1",
                           "STSM.M88.4 [R5+0x30], R1, R2, R3, RZ", "MOVM.MT88 R1, R2",
                           "ELECT R1, P1, R2", "ELECT RZ, PT, 0xffffffff", "ACQBULK", "PREEXIT",
                           "SETMAXREG.INC 0x40", "SETMAXREG.DEC 0x18"});
  std::set<Mod> seen;
  for (const std::string &instr : good) {
    SCOPED_TRACE(instr);
    const std::string text = ".entry f()\n{\n  .shared .b8 sv[64]\n  " + instr + "\n  EXIT\n}\n";
    ParseResult r = parseOri(text, "mma.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
    EXPECT_EQ(verifyFunction(f), std::vector<std::string>{});
    for (Mod m : f.blocks[0].instrs[0].mods.list())
      seen.insert(m);
    checkRoundTrip(text, "mma.ori");
  }
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA, Opcode::LDSM,
                    Opcode::MOVM, Opcode::SETMAXREG})
    for (Mod m : opInfo(op).allowedMods.list())
      EXPECT_TRUE(seen.count(m)) << opInfo(op).name << " ." << modText(m);
  const char *bad[] = {
      "HMMA.16816.F32 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13", // one source short
      "HMMA.16816 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10", // no accumulator type
      "HMMA.16816.F32.CF16 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // .CF16
                                                                                         // off
                                                                                         // m8n8k4
      "HMMA.1684.F16.TF32 R1, R2, R3, R4, R5, R6, R7, R8",                // tf32 into f16
      "HMMA.16816.F32.E4M3 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11", // FP8 A without B's type
      "HMMA.16816.F32.ACOL R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // layouts:
                                                                                         // m8n8k4
                                                                                         // only
      "IMMA.16832.S8 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // no B type
      "IMMA.8816.S4.S4 R1, R2, R3, R4, R5, R6", // 4-bit on an 8-bit shape
      "IMMA.16832.S8.U8.U8 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // three
                                                                                         // types
      "DMMA.8832 R1, R2, R3, R4, R5, R6",  // not a DMMA shape
      "BMMA.88128 R1, R2, R3, R4, R5, R6", // no operation
      "LDSM.M88.4 R1, R2, [R5]",           // two of four
      "LDSM.4 R1, R2, R3, R4, [R5]",       // no .M88/.MT88
      "STSM.M88.2 [R5], R1",
      "MOVM R1, R2",
      "SETMAXREG 0x40",
  };
  for (const char *instr : bad)
    EXPECT_TRUE(parseOri(wrap(instr), "mma.ori").error) << instr;
}

// BAR's destination and predicate depend on its modifiers (ori::dstCount, ori::checkShape):
// every form, every modifier and every operand kind it takes round-trips; the shapes
// checkShape rejects are errors (ori_errors_test.cpp has their messages).
TEST(OriRoundTripTable, BarShapesRoundTrip) {
  const char *good[] = {
      "BAR 0x0",
      "BAR.SYNC 0x0",
      "BAR.SYNC R2",
      "BAR.SYNC 0xf, 0x40",
      "BAR.SYNC R2, R3",
      "BAR.ARV 0x1, 0x20",
      "BAR.ARV R2, R3",
      "BAR.RED.POPC R1, 0x0, P2",
      "BAR.RED.POPC RZ, R2, 0x40, !P2",
      "BAR.RED.AND P1, 0x1, PT",
      "BAR.RED.OR PT, R2, R3, !P2",
      "BAR.RED.OR UP1, 0x1, UP2",
  };
  for (const char *instr : good) {
    SCOPED_TRACE(instr);
    ParseResult r = parseOri(wrap(instr), "bar.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    const Instr &in = f.blocks[0].instrs[0];
    EXPECT_EQ(in.dsts.size(), dstCount(Opcode::BAR, in.mods));
    EXPECT_EQ(in.dsts.size(), in.has(Mod::RED) ? 1u : 0u);
    EXPECT_EQ(printInstr(f, in), instr);
    EXPECT_EQ(verifyFunction(f), std::vector<std::string>{});
    checkRoundTrip(wrap(instr), "bar.ori");
  }
  const char *bad[] = {
      "BAR.RED 0x0, P1",              // no operation
      "BAR.RED.POPC P1, 0x0, P2",     // a count into a predicate
      "BAR.RED.AND R1, 0x0, P2",      // a predicate into a register
      "BAR.RED.POPC R1, 0x0",         // no predicate
      "BAR.RED.POPC R1, 0x0, P1, P2", // the predicate not last
      "BAR.RED.POPC R1, 0x0, 0x40, 0x1",
      "BAR.SYNC 0x0, P1",            // a predicate without .RED
      "BAR.SYNC.AND 0x0",            // an operation without .RED
      "BAR.ARV.RED.AND P1, 0x0, P2", // .ARV and .RED exclude each other
      "BAR.RED.POPC",
  };
  for (const char *instr : bad)
    EXPECT_TRUE(parseOri(wrap(instr), "bar.ori").error) << instr;
  // verifyFunction holds the same rules for modules built in memory.
  Module m = *parseOri(wrap("BAR.RED.POPC R1, 0x0, P2"), "bar.ori").module;
  Instr &in = m.functions[0].blocks[0].instrs[0];
  in.mods.reset(Mod::RED);
  in.mods.set(Mod::SYNC);
  EXPECT_FALSE(verifyFunction(m.functions[0]).empty());
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
