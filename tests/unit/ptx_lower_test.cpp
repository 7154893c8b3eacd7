// The PTX lowering on the real corpus and on each PTX instruction family:
// everything lowers, verifies and round-trips through .ori; at least 99.5% of
// the corpus becomes native Ori, the rest only the families docs/ptx.md names;
// OPAQUE instructions carry exact defs and uses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "ir/ori.h"
#include "ir/verify.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    return env;
  return ORIOPT_CORPUS_DIR;
}

std::vector<fs::path> corpusFiles() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(corpusDir() + "/ptx", ec))
    if (e.path().extension() == ".ptx")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Counts {
  size_t total = 0, opaque = 0;
};

Counts count(const ori::Module &m) {
  Counts c;
  for (const ori::Function &f : m.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs) {
        ++c.total;
        c.opaque += in.op == ori::Opcode::OPAQUE;
      }
  return c;
}

class PtxCorpus : public testing::TestWithParam<fs::path> {};

TEST_P(PtxCorpus, LowersVerifiesAndRoundTrips) {
  std::string text = readFile(GetParam());
  ori::ParseResult r = ori::ptx::parseAndLower(text, GetParam().filename().string());
  ASSERT_FALSE(r.error) << r.error->str();
  std::vector<std::string> problems = ori::verifyModule(*r.module);
  EXPECT_TRUE(problems.empty()) << problems.front();
  std::string printed = ori::printModule(*r.module);
  ori::ParseResult again = ori::parseOri(printed, "printed.ori");
  ASSERT_FALSE(again.error) << again.error->str();
  EXPECT_TRUE(*again.module == *r.module) << "parse(print(lower(ptx))) differs";
  EXPECT_EQ(ori::printModule(*again.module), printed);
  EXPECT_GT(count(*r.module).total, 0u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, PtxCorpus, testing::ValuesIn(corpusFiles()),
                         [](const testing::TestParamInfo<fs::path> &info) {
                           std::string name = info.param.stem().string();
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

// The families docs/ptx.md names as staying OPAQUE ("What stays OPAQUE"), by the PTX
// instruction's leading text.
bool inNamedOpaqueFamily(const std::string &text) {
  static const std::regex family(
      // tensor cores; texture and surface; asynchronous copies
      R"(^((mma|wgmma|ldmatrix|stmatrix)\.|(tex|tld4|txq|suld|sust|sured|suq)\.|cp\.(async|reduce\.async))"
      // bulk copies, clusters, mbarriers (warpgroup and cluster machinery)
      R"(|mbarrier\.|barrier\.cluster|st\.async|red\.async|mapa\.|getctarank|fence\.(mbarrier_init|proxy\.tensormap)|(ld|st|atom|red)[a-z0-9.:]*\.shared::cluster)"
      // 32-bit generic addresses (.address_size 32 modules): cvta to/from .u32 of the windows,
      // the address of a module-scope .local variable in a 32-bit register
      R"(|cvta(\.to)?\.(shared|local|const|param)\.u32\s|mov\.[bu]32\s+\S+,\s*\$?[A-Za-z_$][\w$]*(\+\d+)?$)"
      // 128-bit values; 16-bit float atomic min/max
      R"(|(ld|st)[a-z0-9.:]*\.b128\s|(atom|red)\.[a-z0-9.:]*\b(min|max)\b[a-z0-9.:]*\.b?f16(x2)?\b|(atom|red)\.[a-z0-9.:]*\.b?f16(x2)?\.[a-z0-9.:]*\b(min|max)\b))");
  return std::regex_search(text, family);
}

// The corpus as a whole: at least 99.5% of its instructions lower to native opcodes, and
// every one that does not belongs to a family docs/ptx.md names.
TEST(PtxCorpusTotals, NativeButForTheNamedFamilies) {
  std::vector<fs::path> files = corpusFiles();
  ASSERT_FALSE(files.empty())
      << "no corpus files (PtxCorpus.HoldsExactlyTheFilesOfItsProvenance says which are missing)";
  Counts all;
  for (const fs::path &p : files) {
    ori::ParseResult r = ori::ptx::parseAndLower(readFile(p), p.filename().string());
    ASSERT_FALSE(r.error) << r.error->str();
    Counts c = count(*r.module);
    all.total += c.total;
    all.opaque += c.opaque;
    for (const ori::Function &f : r.module->functions)
      for (const ori::Block &b : f.blocks)
        for (const ori::Instr &in : b.instrs)
          if (in.op == ori::Opcode::OPAQUE) {
            EXPECT_TRUE(inNamedOpaqueFamily(in.opaqueText))
                << p.filename().string() << ": " << in.opaqueText;
          }
  }
  double native = double(all.total - all.opaque) / double(all.total);
  std::printf("corpus: %zu instructions, %zu OPAQUE, %.2f%% native\n", all.total, all.opaque,
              100 * native);
  EXPECT_GE(native, 0.995);
}

// The family filter itself, on forms in and out of the named families.
TEST(PtxCorpusTotals, NamedFamiliesAreTheDocumentedOnes) {
  EXPECT_TRUE(
      inNamedOpaqueFamily("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32\t{@d0}, {@u0}"));
  EXPECT_TRUE(inNamedOpaqueFamily("tex.2d.v4.f32.f32\t{@d0}, [tex0, {@u0}]"));
  EXPECT_TRUE(inNamedOpaqueFamily("sust.b.2d.v4.b8.trap\t[s, {@u0}], {@u1}"));
  EXPECT_TRUE(inNamedOpaqueFamily("cp.async.commit_group"));
  EXPECT_TRUE(inNamedOpaqueFamily("cvta.shared.u32\t@d0, @u0"));
  EXPECT_TRUE(inNamedOpaqueFamily("mov.b32\t@d0, $stack+2912"));
  EXPECT_TRUE(inNamedOpaqueFamily("atom.global.v2.f16.min.noftz {@d0, @d1}, [@u0], {@u1, @u2}"));
  EXPECT_TRUE(inNamedOpaqueFamily("ld.relaxed.gpu.global.b128\t@d0, [@u0]"));
  EXPECT_TRUE(inNamedOpaqueFamily("mbarrier.arrive.shared.b64\t@d0, [@u0]"));
  EXPECT_TRUE(inNamedOpaqueFamily("barrier.cluster.wait"));
  EXPECT_TRUE(inNamedOpaqueFamily("ld.shared::cluster.u32 @d0, [@u0]"));
  EXPECT_FALSE(inNamedOpaqueFamily("cvta.global.u32\t@d0, @u0"));
  EXPECT_FALSE(inNamedOpaqueFamily("atom.add.f32\t@d0, [@u0], @u1"));
  EXPECT_FALSE(inNamedOpaqueFamily("atom.global.add.noftz.f16x2\t@d0, [@u0], @u1"));
  EXPECT_FALSE(inNamedOpaqueFamily("membar.gl"));
  EXPECT_FALSE(inNamedOpaqueFamily("ld.acquire.gpu.global.u32\t@d0, [@u0]"));
  EXPECT_FALSE(inNamedOpaqueFamily("atom.add.u32\t@d0, [@u0], @u1"));
  EXPECT_FALSE(inNamedOpaqueFamily("atom.global.min.s32\t@d0, [@u0], @u1"));
  EXPECT_TRUE(inNamedOpaqueFamily("red.global.max.noftz.v4.bf16x2 [@u0], {@u1, @u2, @u3, @u4}"));
  EXPECT_FALSE(inNamedOpaqueFamily("mov.b32\t@d0, {@u0, @u1}"));
  EXPECT_FALSE(inNamedOpaqueFamily("cvta.global.u64\t@d0, @u0"));
  EXPECT_FALSE(inNamedOpaqueFamily("ex2.approx.f16\t@d0, @u0"));
  EXPECT_FALSE(inNamedOpaqueFamily("shfl.sync.idx.b32\t@d0, @u0, @u1, 31, -1"));
}

// ---- OPAQUE defs and uses, per PTX instruction family ----

// Lowers one instruction inside a kernel with the given register declarations
// and returns the single Ori instruction it became (which must be OPAQUE).
struct Lowered {
  ori::Module module;
  const ori::Function &f() const { return module.functions.back(); }
  const ori::Instr &only() const {
    for (const ori::Block &b : f().blocks)
      for (const ori::Instr &in : b.instrs)
        if (in.op != ori::Opcode::RET)
          return in;
    throw std::runtime_error("no instruction");
  }
  std::vector<std::string> names(const std::vector<ori::Operand> &ops) const {
    std::vector<std::string> out;
    for (const ori::Operand &o : ops)
      out.push_back(ori::printReg(f(), o.reg));
    return out;
  }
};

Lowered lowerOne(const std::string &decls, const std::string &instr) {
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".global .texref tex0;\n"
                     ".visible .entry k(.param .u64 p)\n{\n" +
                     decls + "\n" + instr + "\nret;\n}\n";
  ori::ParseResult r = ori::ptx::parseAndLower(text, "family.ptx");
  if (r.error)
    throw std::runtime_error(r.error->str());
  return Lowered{std::move(*r.module)};
}

const char *kDecls = ".reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .f32 %f<9>; .reg .f64 %fd<5>; .reg "
                     ".pred %p<5>; .reg .b16 %h<5>;"
                     ".shared .align 4 .b8 smem[64];";

struct Family {
  const char *name;
  const char *instr;
  std::vector<std::string> defs, uses; // derived from the PTX ISA's operand roles
};

class OpaqueFamily : public testing::TestWithParam<Family> {};

TEST_P(OpaqueFamily, DefsAndUses) {
  const Family &fam = GetParam();
  Lowered l = lowerOne(kDecls, fam.instr);
  const ori::Instr &in = l.only();
  ASSERT_EQ(in.op, ori::Opcode::OPAQUE) << ori::printInstr(l.f(), in);
  EXPECT_EQ(l.names(in.dsts), fam.defs) << in.opaqueText;
  EXPECT_EQ(l.names(in.srcs), fam.uses) << in.opaqueText;
}

// Each row: the ISA's first operand is the destination unless the
// instruction has none (st, red, bar, prefetch, ...); vectors and p|q pairs
// define every register in them; guards and addresses are uses.
const Family kFamilies[] = {
    {"PackFourBits", "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;", {"%r1"}, {"%r2", "%r3", "%r4"}},
    {"PackFourBitsImmediate", "cvt.pack.sat.s4.s32.b32 %r1, %r2, 7, %r3;", {"%r1"}, {"%r2", "%r3"}},
    // FP6/FP4/UE8M0 conversions and .rs rounding: ptxas 13.0 has them from sm_100 only.
    {"Fp6Pack", "cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;", {"%h1"}, {"%f1", "%f2"}},
    {"Ue8m0Pack", "cvt.rz.satfinite.ue8m0x2.f32 %h1, %f1, %f2;", {"%h1"}, {"%f1", "%f2"}},
    {"StochasticFp8",
     "cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r2;",
     {"%r1"},
     {"%f1", "%f2", "%f3", "%f4", "%r2"}},
    {"TextureVector",
     "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];",
     {"%f1", "%f2", "%f3", "%f4"},
     {"%f5", "%f6"}},
    {"ClusterAtomic", "atom.shared::cluster.add.u32 %r1, [%r2], %r3;", {"%r1"}, {"%r2", "%r3"}},
    {"HalfMinAtomic",
     "atom.global.v2.f16.min.noftz {%h1, %h2}, [%rd1], {%h3, %h4};",
     {"%h1", "%h2"},
     {"%rd1", "%h3", "%h4"}},
    {"ClusterReduction", "red.shared::cluster.add.u32 [%r1+8], %r2;", {}, {"%r1", "%r2"}},
    {"StoreAsync",
     "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];",
     {},
     {"%r1", "%r2", "%r3"}},
    {"MbarrierFence", "fence.mbarrier_init.release.cluster;", {}, {}},
    {"ClusterBarrier", "barrier.cluster.arrive.relaxed.aligned;", {}, {}},
    {"MbarrierArrive", "mbarrier.arrive.shared.b64 %rd1, [%r2];", {"%rd1"}, {"%r2"}},
    // ldmatrix .m8n8 and mma of the sm_90 forms are native (HMMA, LDSM ...); these sm_100a /
    // sm_120a forms are not.
    {"LoadMatrix",
     "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3];",
     {"%r1", "%r2"},
     {"%r3"}},
    {"MatrixMultiply",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 {%f1, %f2, %f3, %f4}, {%r1, "
     "%r2}, {%r3}, {%f5, %f6, %f7, %f8};",
     {"%f1", "%f2", "%f3", "%f4"},
     {"%r1", "%r2", "%r3", "%f5", "%f6", "%f7", "%f8"}},
    {"ThreeInputMin", "min.f32 %f1, %f2, %f3, %f4;", {"%f1"}, {"%f2", "%f3", "%f4"}}, // sm_100
    {"WarpReduceFloat", "redux.sync.max.abs.NaN.f32 %f1, %f2, -1;", {"%f1"}, {"%f2"}},
    // cp.async itself is native (LDGSTS); its bulk forms are not.
    {"BulkCopy",
     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];",
     {},
     {"%r1", "%rd1", "%r2"}},
    {"PerfCounter", "mov.u32 %r1, %pm0;", {"%r1"}, {}},
    {"SameRegisterTwice", "cvt.pack.sat.u4.s32.b32 %r1, %r1, %r1, %r1;", {"%r1"}, {"%r1"}},
};

INSTANTIATE_TEST_SUITE_P(Families, OpaqueFamily, testing::ValuesIn(kFamilies),
                         [](const testing::TestParamInfo<Family> &info) {
                           return std::string(info.param.name);
                         });

TEST(OpaqueFamily, GuardIsAUse) {
  Lowered l = lowerOne(kDecls, "@!%p3 cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r3;");
  const ori::Instr &in = l.only();
  ASSERT_EQ(in.op, ori::Opcode::OPAQUE);
  ASSERT_TRUE(in.guard);
  EXPECT_TRUE(in.guard->neg);
  std::vector<ori::Reg> uses = in.uses();
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(ori::printReg(l.f(), uses[0]), "%p3");
}

TEST(OpaqueFamily, TextKeepsPlaceholders) {
  Lowered l = lowerOne(kDecls, "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r2, 31;");
  EXPECT_EQ(l.only().opaqueText, "cvt.pack.sat.u4.s32.b32 @d0, @u0, @u0, 31");
}

// ---- Errors ----

// The register a name stands for is numbered when an operand first names it,
// in the order the operands are written: %c (mov) R0, then %b (add's
// destination) R1, then %a R2. Numbering on first use inside a lowering would
// follow the order the compiler evaluates a call's arguments in.
TEST(PtxLowerNumbering, RegistersInOperandOrder) {
  ori::ParseResult r = ori::ptx::parseAndLower(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
      ".reg .b32 %a, %b, %c;\nmov.u32 %c, 1;\nadd.s32 %b, %a, %c;\nret;\n}\n",
      "order.ptx");
  ASSERT_TRUE(r.module) << r.error->str();
  const ori::Function &f = r.module->functions.at(0);
  EXPECT_EQ(f.regNames.at(ori::R(0)), "%c");
  EXPECT_EQ(f.regNames.at(ori::R(1)), "%b");
  EXPECT_EQ(f.regNames.at(ori::R(2)), "%a");
}

// A lowering that declines gives back the numbers of the temporaries it made:
// cvt.pack.sat.u8 reads its third source first, moving `g` into a temporary and adding 8
// into another, before its first source (a video selector, `%r1.b0`) makes it decline and the
// instruction stays OPAQUE. The add's S2R temporary is then R2, right after %r2 and %r1, as
// if the cvt had never been tried, and %rd1 is R3.
TEST(PtxLowerNumbering, DeclinedLoweringGivesBackItsTemporaries) {
  ori::ParseResult r = ori::ptx::parseAndLower(
      ".version 8.0\n.target sm_90\n.address_size 64\n.global .b32 g;\n.visible .entry k()\n{\n"
      ".reg .b64 %rd<3>;\n.reg .b32 %r<3>;\ncvt.pack.sat.u8.s32.b32 %r2, %r1.b0, %r1, "
      "g+8;\nadd.s32 %r1, "
      "%tid.x, 1;\n"
      "st.global.u32 [%rd1], %r1;\nret;\n}\n",
      "declined.ptx");
  ASSERT_TRUE(r.module) << r.error->str();
  const ori::Function &f = r.module->functions.at(0);
  ASSERT_EQ(f.blocks.at(0).instrs.at(0).op, ori::Opcode::OPAQUE);
  EXPECT_EQ(f.regNames.at(ori::R(0)), "%r2");
  EXPECT_EQ(f.regNames.at(ori::R(1)), "%r1");
  EXPECT_EQ(f.regNames.at(ori::R(2)), "%ori_t2");
  EXPECT_EQ(f.regNames.at(ori::R(3)), "%rd1");
  EXPECT_EQ(f.nextReg[int(ori::RegFile::R)], 4u);
}

TEST(PtxLowerErrors, UndeclaredRegister) {
  ori::ParseResult r =
      ori::ptx::parseAndLower(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry "
                              "k()\n{\n.reg .b32 %r<2>;\nadd.s32 %r1, %r7, 1;\nret;\n}\n",
                              "bad.ptx");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->str(), "bad.ptx:7:14: error: undeclared register '%r7'");
}

TEST(PtxLowerErrors, BranchToUnknownLabel) {
  ori::ParseResult r =
      ori::ptx::parseAndLower(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry "
                              "k()\n{\nbra $L_nowhere;\nret;\n}\n",
                              "bad.ptx");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->str(), "bad.ptx:6:5: error: branch to unknown label '$L_nowhere'");
}

TEST(PtxLowerErrors, GuardNotAPredicate) {
  ori::ParseResult r =
      ori::ptx::parseAndLower(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry "
                              "k()\n{\n.reg .b32 %r<2>;\n@%r1 ret;\nret;\n}\n",
                              "bad.ptx");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->str(), "bad.ptx:7:2: error: guard '%r1' is not a declared predicate register");
}

} // namespace

// ---- .target sm_1x: binary32 arithmetic is .ftz (ptxas 13.0 gives it the SASS of the .ftz
// form for sm_20: docs/spec-notes.md, "ptxas findings") ----

std::string lowerBody(const std::string &target, const std::string &body) {
  std::string text = ".version 3.0\n.target " + target +
                     "\n.address_size 64\n"
                     ".visible .entry k(.param .u64 p)\n{\n"
                     ".reg .f32 %f<6>; .reg .f64 %fd<3>; .reg .b32 %r<3>; .reg .pred %p<2>;\n" +
                     body + "\nret;\n}\n";
  ori::ParseResult r = ori::ptx::parseAndLower(text, "sm1x.ptx");
  if (r.error)
    throw std::runtime_error(r.error->str());
  return ori::printModule(*r.module);
}

TEST(PtxSm1x, BinaryThirtyTwoArithmeticIsFlushToZero) {
  std::string sm13 = lowerBody("sm_13", "add.f32 %f1, %f2, %f3;\nmad.f32 %f4, %f1, %f2, %f3;\n"
                                        "setp.lt.f32 %p1, %f1, %f2;\ncvt.rn.f32.f64 %f5, %fd1;");
  EXPECT_NE(sm13.find("FADD.FTZ %f1, %f2, %f3"), std::string::npos) << sm13;
  EXPECT_NE(sm13.find("FFMA.FTZ %f4, %f1, %f2, %f3"), std::string::npos) << sm13;
  EXPECT_NE(sm13.find("FSETP.LT.FTZ"), std::string::npos) << sm13;
  EXPECT_NE(sm13.find("F2F.F32.SRC_F64.FTZ"), std::string::npos) << sm13;
  // the same body for sm_20 keeps subnormals
  std::string sm20 = lowerBody("sm_20", "add.f32 %f1, %f2, %f3;\nsetp.lt.f32 %p1, %f1, %f2;");
  EXPECT_EQ(sm20.find(".FTZ"), std::string::npos) << sm20;
}

TEST(PtxSm1x, IntegerAndBinary64InstructionsAreUnchanged) {
  std::string sm13 =
      lowerBody("sm_10, map_f64_to_f32", "cvt.rn.f32.s32 %f1, %r1;\nadd.f64 %fd1, %fd2, %fd2;\n"
                                         "add.s32 %r1, %r2, %r2;");
  EXPECT_EQ(sm13.find("OPAQUE"), std::string::npos) << sm13;
  EXPECT_EQ(sm13.find(".FTZ"), std::string::npos) << sm13;
}
