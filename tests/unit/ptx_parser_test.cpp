// The PTX parser on real PTX: every module of the shared corpus parses, and
// counts the parser reports agree with counts taken from the text by a
// different method (a line-oriented scan written here, sharing no code with
// the lexer); then specific structure checks on small files, nvcc 13 output
// made at test time, and a replay of the saved fuzzer crashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "ptx/ast.h"

namespace ori::ptx {
namespace {

namespace fs = std::filesystem;
using SK = Statement::Kind;
using OK = Operand::Kind;

fs::path sourceDir() {
  if (const char *env = std::getenv("ORIOPT_SOURCE_DIR"); env && *env)
    return env;
  return ORIOPT_SOURCE_DIR;
}

fs::path corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"); env && *env)
    return fs::path(env) / "ptx";
  return fs::path(ORIOPT_CORPUS_DIR) / "ptx";
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(corpusDir(), ec))
    if (e.path().extension() == ".ptx")
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Module parseOrFail(const std::string &text, const std::string &name) {
  ParseResult r = parse(text, name);
  if (r.error)
    ADD_FAILURE() << r.error->str();
  return r.module ? std::move(*r.module) : Module{};
}

// --- the independent scan -------------------------------------------------
// Blanks comments (keeping newlines), `.section ... { }` data and @@DWARF lines.
std::string stripForScan(const std::string &s) {
  std::string out = s;
  for (size_t i = 0; i < out.size();) {
    if (out[i] == '"') {
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i)
        if (out[i] == '\\')
          ++i;
      ++i;
    } else if (out.compare(i, 2, "//") == 0 || out.compare(i, 7, "@@DWARF") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i)
        out[i] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n')
          out[i] = ' ';
    } else if (out.compare(i, 8, ".section") == 0) {
      size_t open = out.find('{', i), depth = 0;
      for (size_t j = open; j < out.size(); ++j) {
        depth += out[j] == '{';
        depth -= out[j] == '}';
        if (depth == 0) {
          for (; i <= j; ++i)
            if (out[i] != '\n')
              out[i] = ' ';
          break;
        }
      }
      if (open == std::string::npos || i < open)
        break;
    } else {
      ++i;
    }
  }
  return out;
}

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

struct ScanCounts {
  size_t functions = 0, definitions = 0, instructions = 0, labels = 0;
  size_t scopeBraces = 0, regNames = 0;
};

ScanCounts scan(const std::string &text) {
  ScanCounts c;
  const std::string s = stripForScan(text);
  // .entry/.func keywords.
  for (size_t i = s.find('.'); i != std::string::npos; i = s.find('.', i + 1))
    for (const char *kw : {".entry", ".func"})
      if (s.compare(i, std::strlen(kw), kw) == 0 && !identChar(s[i + std::strlen(kw)]) &&
          (i == 0 || !identChar(s[i - 1])))
        ++c.functions;
  // Bodies: a '{' at brace depth 0 that does not follow '=' (an initializer).
  int depth = 0;
  char prev = ' ';
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '{') {
      if (depth == 0 && prev != '=')
        ++c.definitions;
      if (depth == 0 && prev == '=')
        depth = -1000000; // inside an initializer until its '}'
      ++depth;
    } else if (ch == '}') {
      --depth;
      if (depth == -1000000)
        depth = 0;
    }
    if (!std::isspace(static_cast<unsigned char>(ch)))
      prev = ch;
  }
  // Lines: labels, instruction starts, lone braces, .reg names.
  std::istringstream lines(s);
  std::string line;
  bool inInstr = false;
  while (std::getline(lines, line)) {
    size_t p = line.find_first_not_of(" \t\r");
    if (p == std::string::npos)
      continue;
    std::string l = line.substr(p, line.find_last_not_of(" \t\r") + 1 - p);
    if (inInstr) {
      inInstr = l.find(';') == std::string::npos;
      continue;
    }
    // Scope braces open or close a line: `{`, `}`, `{ .reg .b64 %tmp;`, `cvta... %tmp; }`.
    while (!l.empty() && (l[0] == '{' || l[0] == '}')) {
      ++c.scopeBraces;
      l.erase(0, l.find_first_not_of(" \t", 1));
    }
    if (l.empty())
      continue;
    if (l.back() == '}' && l.find_last_not_of(" \t", l.size() - 2) == l.rfind(';')) {
      ++c.scopeBraces;
      l.pop_back();
    }
    for (;;) { // leading labels: name[ ]:
      size_t e = 0;
      while (e < l.size() && (identChar(l[e]) || l[e] == '.'))
        ++e;
      size_t colon = l.find_first_not_of(" \t", e);
      if (e == 0 || colon == std::string::npos || l[colon] != ':' || l.compare(colon, 2, "::") == 0)
        break;
      l = l.substr(colon + 1);
      l.erase(0, l.find_first_not_of(" \t"));
      if (l.rfind(".callprototype", 0) != 0 && l.rfind(".branchtargets", 0) != 0)
        ++c.labels;
    }
    if (l.rfind(".reg", 0) == 0 && (l.size() == 4 || !identChar(l[4])))
      c.regNames += 1 + std::count(l.begin(), l.end(), ',');
    size_t q = 0;
    if (q < l.size() && l[q] == '@') { // guard
      ++q;
      if (q < l.size() && l[q] == '!')
        ++q;
      while (q < l.size() && identChar(l[q]))
        ++q;
      while (q < l.size() && (l[q] == ' ' || l[q] == '\t'))
        ++q;
    }
    if (q >= l.size() || !std::islower(static_cast<unsigned char>(l[q])))
      continue;
    while (q < l.size() && (std::isalnum(static_cast<unsigned char>(l[q])) || l[q] == '_'))
      ++q;
    if (q < l.size() && l[q] != '.' && l[q] != ' ' && l[q] != '\t' && l[q] != ';')
      continue;
    const size_t semis = std::count(l.begin(), l.end(), ';');
    c.instructions += std::max<size_t>(1, semis);
    inInstr = semis == 0;
  }
  return c;
}

ScanCounts count(const Module &m) {
  ScanCounts c;
  for (const TopLevel &it : m.items) {
    if (it.kind == TopLevel::Kind::Variable && it.variable.space == ".reg")
      ++c.regNames;
    if (it.kind != TopLevel::Kind::Function)
      continue;
    const Function &f = it.function;
    ++c.functions;
    c.definitions += f.hasBody;
    c.scopeBraces += f.hasBody ? 2 : 0;
    for (const Statement &s : f.body) {
      c.instructions += s.kind == SK::Instr;
      c.labels += s.kind == SK::Label;
      c.scopeBraces += s.kind == SK::Scope;
      c.regNames += s.kind == SK::Var && s.var.space == ".reg";
    }
  }
  return c;
}

// --- every corpus file ----------------------------------------------------
// The corpus directory holds exactly the PTX files its PROVENANCE.tsv lists:
// none missing (an incomplete checkout) and none without provenance.
TEST(PtxCorpus, HoldsExactlyTheFilesOfItsProvenance) {
  std::ifstream tsv(corpusDir().parent_path() / "PROVENANCE.tsv");
  ASSERT_TRUE(tsv) << "no PROVENANCE.tsv beside " << corpusDir();
  std::vector<std::string> listed;
  for (std::string line; std::getline(tsv, line);) {
    std::string file = line.substr(0, line.find('\t'));
    if (file.rfind("ptx/", 0) == 0)
      listed.push_back(file.substr(4));
  }
  std::sort(listed.begin(), listed.end());
  ASSERT_FALSE(listed.empty());
  EXPECT_EQ(corpusFiles(), listed) << "corpus directory: " << corpusDir();
}

class PtxCorpusFile : public testing::TestWithParam<std::string> {};

TEST_P(PtxCorpusFile, ParsesAndCountsMatchAnIndependentScan) {
  const std::string text = readFile(corpusDir() / GetParam());
  ASSERT_FALSE(text.empty());
  ParseResult r = parse(text, GetParam());
  ASSERT_FALSE(r.error.has_value()) << r.error->str();
  const Module &m = *r.module;
  EXPECT_FALSE(m.version.empty());
  EXPECT_EQ(m.target.rfind("sm_", 0), 0u) << m.target;
  const ScanCounts want = scan(text), got = count(m);
  EXPECT_GT(got.instructions, 0u);
  EXPECT_EQ(got.functions, want.functions);
  EXPECT_EQ(got.definitions, want.definitions);
  EXPECT_EQ(got.instructions, want.instructions);
  EXPECT_EQ(got.labels, want.labels);
  EXPECT_EQ(got.scopeBraces, want.scopeBraces);
  EXPECT_EQ(got.regNames, want.regNames);

  // Each instruction's text is in the source right at its location (after
  // its guard), and ends where the ';' follows.
  std::vector<size_t> lineStart{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      lineStart.push_back(i + 1);
  size_t checked = 0;
  for (const TopLevel &it : m.items)
    for (const Statement &s : it.function.body) {
      if (s.kind != SK::Instr)
        continue;
      const Instruction &ins = s.instr;
      ASSERT_GE(ins.loc.line, 1u);
      ASSERT_LE(ins.loc.line, lineStart.size());
      const size_t at = lineStart[ins.loc.line - 1] + ins.loc.col - 1;
      const size_t found = text.find(ins.text, at);
      ASSERT_NE(found, std::string::npos) << ins.text;
      EXPECT_LT(found - at, 48u) << "line " << ins.loc.line << ": " << ins.text;
      const size_t end = found + ins.text.size(), semi = text.find(';', end);
      EXPECT_EQ(text.find_first_not_of(" \t\r\n", end), semi) << "line " << ins.loc.line;
      EXPECT_EQ(text.compare(found, ins.opcode.size(), ins.opcode), 0);
      EXPECT_EQ(ins.guard.has_value(), text[at] == '@') << "line " << ins.loc.line;
      ++checked;
    }
  EXPECT_EQ(checked, got.instructions);
}

INSTANTIATE_TEST_SUITE_P(Corpus, PtxCorpusFile, testing::ValuesIn(corpusFiles()),
                         [](const testing::TestParamInfo<std::string> &i) {
                           std::string n = i.param.substr(0, i.param.size() - 4);
                           for (char &ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return n;
                         });

// --- structure of specific files ------------------------------------------
const Function *findFunction(const Module &m, const std::string &name) {
  for (const TopLevel &it : m.items)
    if (it.kind == TopLevel::Kind::Function && it.function.name == name)
      return &it.function;
  return nullptr;
}

std::vector<const Instruction *> instructions(const Function &f, const std::string &opcode) {
  std::vector<const Instruction *> out;
  for (const Statement &s : f.body)
    if (s.kind == SK::Instr && s.instr.opcode == opcode)
      out.push_back(&s.instr);
  return out;
}

TEST(PtxCorpusStructure, IndirectCallThroughRegisterNamesItsPrototype) {
  const Module m = parseOrFail(readFile(corpusDir() / "gpuocelot_indirectCall.ptx"), "ic.ptx");
  const Function *f = findFunction(m, "kernelEntry");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->isEntry);
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->params[0].text, ".param .u64 kernelEntry_param_0");
  const auto calls = instructions(*f, "call");
  ASSERT_EQ(calls.size(), 1u);
  const auto &ops = calls[0]->operands;
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].kind, OK::Call);
  ASSERT_EQ(ops[0].elems.size(), 1u);
  EXPECT_EQ(ops[0].elems[0].name, "retval0");
  EXPECT_EQ(ops[1].kind, OK::Name);
  EXPECT_EQ(ops[1].name, "%rl10");
  EXPECT_EQ(ops[2].kind, OK::Call);
  EXPECT_EQ(ops[3].name, "prototype_0");
  const auto proto = std::find_if(f->body.begin(), f->body.end(),
                                  [](const Statement &s) { return s.kind == SK::CallPrototype; });
  ASSERT_NE(proto, f->body.end());
  EXPECT_EQ(proto->proto.name, "prototype_0");
  EXPECT_EQ(proto->proto.text, "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _)");
  const Function *dbl = findFunction(m, "funcDouble");
  ASSERT_NE(dbl, nullptr);
  ASSERT_EQ(dbl->returns.size(), 1u);
  EXPECT_EQ(dbl->returns[0].name, "func_retval0");
  EXPECT_EQ(dbl->linkage, std::vector<std::string>{".visible"});
}

TEST(PtxCorpusStructure, RegisterNamesWithoutPercent) {
  const Module m = parseOrFail(readFile(corpusDir() / "zluda_spirv_run_vote_all.ptx"), "v.ptx");
  const Function *f = findFunction(m, "vote_all");
  ASSERT_NE(f, nullptr);
  std::vector<std::string> regs;
  for (const Statement &s : f->body)
    if (s.kind == SK::Var)
      regs.push_back(s.var.name);
  EXPECT_EQ(regs, (std::vector<std::string>{"laneid", "tid", "not_first_lane", "result_pred",
                                            "result", "out_ptr", "out_offset"}));
  const auto votes = instructions(*f, "vote");
  ASSERT_EQ(votes.size(), 1u);
  ASSERT_TRUE(votes[0]->guard.has_value());
  EXPECT_EQ(votes[0]->guard->name, "not_first_lane");
  EXPECT_FALSE(votes[0]->guard->negated);
  EXPECT_EQ(votes[0]->mods, (std::vector<std::string>{".sync", ".all", ".pred"}));
  EXPECT_EQ(votes[0]->operands.at(2).ival, int64_t{0xFFFFFFFE});
  const auto movs = instructions(*f, "mov");
  ASSERT_GE(movs.size(), 2u);
  EXPECT_EQ(movs[1]->operands.at(1).name, "%tid.x");
}

TEST(PtxCorpusStructure, DebugSectionsAreWholeDirectives) {
  for (const auto &[file, sections] :
       {std::pair{"zluda_vectorAdd_debug.ptx", 4}, std::pair{"librecuda_complex.ptx", 3}}) {
    const Module m = parseOrFail(readFile(corpusDir() / file), file);
    int n = 0;
    for (const TopLevel &it : m.items)
      if (it.kind == TopLevel::Kind::Directive && it.text.rfind(".section", 0) == 0) {
        ++n;
        EXPECT_EQ(it.text.back(), '}') << file;
      }
    EXPECT_EQ(n, sections) << file;
  }
}

TEST(PtxCorpusStructure, OldStyleDeclarationsWithoutSemicolon) {
  const Module m =
      parseOrFail(readFile(corpusDir() / "gpuocelot_sdk22_Mandelbrot_sm13.ptx"), "m.ptx");
  EXPECT_EQ(m.version, "2.1");
  EXPECT_EQ(m.target, "sm_20");
  int declarations = 0;
  for (const TopLevel &it : m.items)
    declarations += it.kind == TopLevel::Kind::Function && !it.function.hasBody;
  EXPECT_EQ(declarations, 4);
}

TEST(PtxCorpusStructure, TexturesVectorsAndNegativeOffsets) {
  const Module m =
      parseOrFail(readFile(corpusDir() / "gpuocelot_optix_zoneplate_megakernel.ptx"), "z.ptx");
  ASSERT_FALSE(m.items.empty());
  EXPECT_EQ(m.items[0].kind, TopLevel::Kind::Variable); // a module-level .reg
  EXPECT_EQ(m.items[0].variable.space, ".reg");
  bool sawNegative = false;
  for (const TopLevel &it : m.items)
    for (const Statement &s : it.function.body)
      if (s.kind == SK::Instr && s.instr.opcode == "st" && s.instr.operands.size() == 2 &&
          s.instr.operands[0].kind == OK::Address && s.instr.operands[0].ival == -8) {
        sawNegative = true;
        EXPECT_EQ(s.instr.operands[0].name, "$stack_cur");
        EXPECT_EQ(s.instr.operands[1].kind, OK::Vector);
        EXPECT_EQ(s.instr.operands[1].elems.size(), 2u);
      }
  EXPECT_TRUE(sawNegative);
  const Module t = parseOrFail(readFile(corpusDir() / "gpuocelot_rodinia_mummergpu.ptx"), "t.ptx");
  const Instruction *tex = nullptr;
  for (const TopLevel &it : t.items)
    for (const Statement &s : it.function.body)
      if (!tex && s.kind == SK::Instr && s.instr.opcode == "tex")
        tex = &s.instr;
  ASSERT_NE(tex, nullptr);
  ASSERT_EQ(tex->operands.size(), 2u);
  EXPECT_EQ(tex->operands[1].kind, OK::Address);
  ASSERT_EQ(tex->operands[1].elems.size(), 1u);
  EXPECT_EQ(tex->operands[1].elems[0].kind, OK::Vector);
  EXPECT_EQ(tex->operands[1].elems[0].elems.size(), 4u);
}

// --- hand-written inputs ----------------------------------------------------
TEST(PtxSyntax, BranchTargetsAndBrxIdx) {
  const fs::path file = sourceDir() / "tests/ptx-inputs/branchtargets.ptx";
  const Module m = parseOrFail(readFile(file), "bt.ptx");
  const Function *f = findFunction(m, "jump_table");
  ASSERT_NE(f, nullptr);
  const auto t = std::find_if(f->body.begin(), f->body.end(),
                              [](const Statement &s) { return s.kind == SK::BranchTargets; });
  ASSERT_NE(t, f->body.end());
  EXPECT_EQ(t->targets.name, "$L__tab0");
  EXPECT_EQ(t->targets.labels, (std::vector<std::string>{"$L__BB0_case0", "$L__BB0_case1",
                                                         "$L__BB0_case2", "$L__BB0_case3"}));
  const auto brx = instructions(*f, "brx");
  ASSERT_EQ(brx.size(), 1u);
  EXPECT_EQ(brx[0]->operands.at(1).name, "$L__tab0");
  std::vector<int64_t> values;
  for (const Instruction *mov : instructions(*f, "mov"))
    values.push_back(mov->operands.at(1).ival);
  EXPECT_EQ(values, (std::vector<int64_t>{11, 0x16, 041, 0b101100, -1}));
  const std::string ptxas = ORIOPT_PTXAS;
  if (!ptxas.empty()) { // the hand-written module is real PTX
    const fs::path out =
        fs::temp_directory_path() / ("oriopt_ptx_bt_" + std::to_string(::getpid()) + ".cubin");
    const std::string cmd =
        ptxas + " -arch=sm_90 '" + file.string() + "' -o '" + out.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    fs::remove(out);
  }
}

TEST(PtxSyntax, LiteralsOperandsAndDeclarations) {
  const std::string text =
      ".version 1.4\n.target sm_13, texmode_independent\n"
      "\t@@DWARF .byte 0x5c, 0x02 // old debug data\n"
      ".global .align 4 .f32 fs[3] = {0f3F800000, -0f3F800000, 1.5};\n"
      ".const .b32 m[2][2] = {{1, 2}, {3, 4}};\n"
      ".global .u64 p = sym+8, q = generic(g)+-4;\n"
      ".visible .func (.param .b32 r) f(.param .u64 .ptr .global .align 4 a,\n"
      "\t.param .align 8 .b8 b[16])\n"
      ".noreturn;\n"
      ".entry k .maxntid 256, 1, 1 .minnctapersm 2 .pragma \"nounroll\";\n{\n"
      "\t.reg .pred %p<3>, %q;\n\t.reg .v2 .f32 %v<2>;\n"
      "\tmov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;\n\tmov.u32 %r1, 017U;\n"
      "\tmov.f64 %fd1, 0d3FF0000000000000;\n"
      "\tmov.f32 %f1, -0f7F800001;\n\tld.global.f32 %f2, [0x100];\n\tld.global.f32 %f3, [fs+4];\n"
      "\tsetp.lt.and.s32 %p1|%p2, %r1, -2, !%q;\n"
      "\t@!%p1 st.global.v4.b32 [%rd1+-16], {%r1, _, %r2, %r3};\n"
      "\tmov.u32 %r4, %v1.y;\n\t{ { } }\n\tcall.uni;\n\tret;\n}\n";
  const Module m = parseOrFail(text, "lit.ptx");
  EXPECT_EQ(m.target, "sm_13, texmode_independent");
  ASSERT_EQ(m.items.size(), 7u);
  EXPECT_EQ(m.items[0].text, "@@DWARF .byte 0x5c, 0x02 // old debug data");
  const Variable &fs = m.items[1].variable;
  ASSERT_EQ(fs.init.size(), 3u);
  EXPECT_TRUE(fs.init[0].floatIsF32);
  EXPECT_EQ(fs.init[0].fval, 1.0);
  EXPECT_EQ(fs.init[1].ival, int64_t{0xBF800000});
  EXPECT_EQ(fs.init[2].fval, 1.5);
  EXPECT_FALSE(fs.init[2].floatIsF32);
  EXPECT_EQ(m.items[2].variable.dims, (std::vector<std::optional<uint64_t>>{2, 2}));
  EXPECT_EQ(m.items[2].variable.init.size(), 4u);
  EXPECT_EQ(m.items[3].variable.init.at(0).name, "sym");
  EXPECT_EQ(m.items[3].variable.init.at(0).ival, 8);
  EXPECT_EQ(m.items[4].variable.name, "q");
  EXPECT_EQ(m.items[4].variable.text, ".global .u64 q = generic(g)+-4");
  EXPECT_TRUE(m.items[4].variable.init.at(0).generic);
  EXPECT_EQ(m.items[4].variable.init.at(0).ival, -4);
  const Function &f = m.items[5].function;
  EXPECT_FALSE(f.hasBody);
  EXPECT_EQ(f.params.at(0).attrs, (std::vector<std::string>{".ptr", ".global"}));
  EXPECT_EQ(f.params.at(0).align, 4u);
  EXPECT_EQ(f.params.at(1).dims.size(), 1u);
  EXPECT_EQ(f.performanceDirectives, std::vector<std::string>{".noreturn"});
  const Function &k = m.items[6].function;
  EXPECT_EQ(
      k.performanceDirectives,
      (std::vector<std::string>{".maxntid 256, 1, 1", ".minnctapersm 2", ".pragma \"nounroll\";"}));
  ASSERT_EQ(k.body.size(), 18u);
  EXPECT_EQ(k.body[0].var.rangeCount, 3u);
  EXPECT_EQ(k.body[1].var.text, ".reg .pred %q");
  EXPECT_EQ(k.body[2].var.vectorMod, ".v2");
  EXPECT_EQ(k.body[3].instr.operands[1].ival, -1);
  EXPECT_EQ(k.body[4].instr.operands[1].ival, 15);
  EXPECT_EQ(k.body[5].instr.operands[1].fval, 1.0);
  EXPECT_EQ(k.body[6].instr.operands[1].ival, int64_t{0xFF800001}); // NaN payload kept
  EXPECT_EQ(k.body[7].instr.operands[1].kind, OK::Address);
  EXPECT_EQ(k.body[7].instr.operands[1].name, "");
  EXPECT_EQ(k.body[7].instr.operands[1].ival, 0x100);
  EXPECT_EQ(k.body[8].instr.operands[1].name, "fs");
  const Instruction &setp = k.body[9].instr;
  EXPECT_EQ(setp.operands[0].kind, OK::Pair);
  EXPECT_EQ(setp.operands[0].elems.at(1).name, "%p2");
  EXPECT_EQ(setp.operands[2].ival, -2);
  EXPECT_TRUE(setp.operands[3].negated);
  const Instruction &st = k.body[10].instr;
  EXPECT_TRUE(st.guard->negated);
  EXPECT_EQ(st.text, "st.global.v4.b32 [%rd1+-16], {%r1, _, %r2, %r3}");
  EXPECT_EQ(st.operands[0].ival, -16);
  EXPECT_EQ(st.operands[1].elems.at(1).kind, OK::Sink);
  EXPECT_EQ(k.body[11].instr.operands[1].name, "%v1.y");
  for (int i = 12; i < 16; ++i)
    EXPECT_EQ(k.body[i].kind, SK::Scope) << i;
  EXPECT_TRUE(k.body[13].scope.open);
  EXPECT_FALSE(k.body[14].scope.open);
  EXPECT_EQ(k.body[16].instr.text, "call.uni");
}

TEST(PtxSyntax, LargeBodiesKeepEveryStatementInOrder) {
  // Past a few thousand statements the parser stops gathering a body in its
  // scratch vector and grows Function::body in place; both paths keep order.
  for (int n : {10, 4095, 4096, 4097, 20000}) {
    std::string text = ".version 7.0\n.target sm_90\n.entry f()\n{\n";
    for (int i = 0; i < n; ++i)
      text += "\tmov.u32 %r1, " + std::to_string(i) + ";\n";
    text += "}\n.entry g()\n{\n\tret;\n}\n";
    const Module m = parseOrFail(text, "big.ptx");
    ASSERT_EQ(m.items.size(), 2u) << n;
    const Function &f = m.items[0].function;
    ASSERT_EQ(f.body.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(f.body[i].instr.operands.at(1).ival, i) << n;
    EXPECT_EQ(m.items[1].function.body.size(), 1u) << n;
  }
}

TEST(PtxSyntax, DeepNestingIsBoundedOrIterative) {
  const std::string head = ".version 7.0\n.target sm_90\n";
  const std::string deep(1 << 20, '{');
  const std::string closed = deep + std::string(1 << 20, '}');
  EXPECT_TRUE(parse(head + ".section .debug_info " + closed + "\n", "s.ptx").module.has_value());
  EXPECT_EQ(parse(head + ".entry f()\n{\n" + deep, "b.ptx").error->str(),
            "b.ptx:5:257: error: scopes nested more than 256 deep");
  EXPECT_TRUE(parse(head + ".global .u32 x = " + deep, "i.ptx").error.has_value());
}

// --- nvcc 13 output, made at test time -------------------------------------
std::string findNvcc() {
#ifdef ORIOPT_NVCC
  if (std::string(ORIOPT_NVCC).size())
    return ORIOPT_NVCC;
#endif
  for (const char *dir : {"/usr/local/cuda/bin"})
    if (fs::exists(fs::path(dir) / "nvcc"))
      return (fs::path(dir) / "nvcc").string();
  return std::system("command -v nvcc > /dev/null 2>&1") == 0 ? "nvcc" : "";
}

class PtxFromNvcc : public testing::TestWithParam<std::string> {};

TEST_P(PtxFromNvcc, FeaturesKernelParses) {
  const std::string nvcc = findNvcc();
  if (nvcc.empty())
    GTEST_SKIP() << "nvcc not found";
  const fs::path src = sourceDir() / "tests/ptx-inputs/features.cu";
  const fs::path out =
      fs::temp_directory_path() / ("oriopt_ptx_features_" + std::to_string(::getpid()) + "_" +
                                   std::to_string(std::hash<std::string>{}(GetParam())) + ".ptx");
  const std::string cmd = nvcc + " -arch=sm_90 " + GetParam() + " -ptx '" + src.string() +
                          "' -o '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string text = readFile(out);
  fs::remove(out);
  const Module m = parseOrFail(text, "features.ptx");
  const ScanCounts want = scan(text), got = count(m);
  EXPECT_EQ(got.functions, want.functions);
  EXPECT_EQ(got.instructions, want.instructions);
  EXPECT_EQ(got.labels, want.labels);
  EXPECT_EQ(got.scopeBraces, want.scopeBraces);
  const Function *k = findFunction(m, "_Z1kPfPiPKfi");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->performanceDirectives.at(0), ".maxntid 256, 1, 1");
  size_t pairs = 0, vectors = 0, scopes = 0, calls = 0;
  for (const TopLevel &it : m.items)
    for (const Statement &s : it.function.body) {
      scopes += s.kind == SK::Scope;
      if (s.kind != SK::Instr)
        continue;
      calls += s.instr.opcode == "call";
      for (const Operand &o : s.instr.operands) {
        pairs += o.kind == OK::Pair;
        vectors += o.kind == OK::Vector;
      }
    }
  EXPECT_EQ(pairs, 1u); // shfl.sync.down.b32 %r|%p
  if (GetParam() != "-G") {
    EXPECT_GE(vectors, 1u); // st.local.v2 [..], {..}
  }
  EXPECT_GE(calls, 3u);         // helper, mk, vprintf (and with -G the intrinsics' wrappers)
  EXPECT_GE(scopes, 2 * calls); // each call in its `{ // callseq N ... }`
  bool sawGeneric = false;
  for (const TopLevel &it : m.items)
    if (it.kind == TopLevel::Kind::Variable && it.variable.name == "gptr") {
      sawGeneric = true;
      ASSERT_EQ(it.variable.init.size(), 1u);
      EXPECT_TRUE(it.variable.init[0].generic);
      EXPECT_EQ(it.variable.init[0].name, "gvar");
      EXPECT_EQ(it.variable.init[0].ival, 4);
    }
  EXPECT_TRUE(sawGeneric);
}

INSTANTIATE_TEST_SUITE_P(Nvcc, PtxFromNvcc, testing::Values("-O3", "-G", "-lineinfo"),
                         [](const testing::TestParamInfo<std::string> &i) {
                           return i.param == "-O3" ? std::string("O3") : i.param.substr(1);
                         });

TEST(PtxFromNvccSm90, ClusterTextureHalfAndManagedFeaturesParse) {
  const std::string nvcc = findNvcc();
  if (nvcc.empty())
    GTEST_SKIP() << "nvcc not found";
  const fs::path src = sourceDir() / "tests/ptx-inputs/features2.cu";
  const fs::path out =
      fs::temp_directory_path() / ("oriopt_ptx_features2_" + std::to_string(::getpid()) + ".ptx");
  const std::string cmd =
      nvcc + " -arch=sm_90a -ptx '" + src.string() + "' -o '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string text = readFile(out);
  fs::remove(out);
  const Module m = parseOrFail(text, "features2.ptx");
  const ScanCounts want = scan(text), got = count(m);
  EXPECT_EQ(got.functions, want.functions);
  EXPECT_EQ(got.definitions, want.definitions);
  EXPECT_EQ(got.instructions, want.instructions);
  EXPECT_EQ(got.labels, want.labels);
  const Function *clus = findFunction(m, "_Z4clusPf3Bigyy");
  ASSERT_NE(clus, nullptr);
  EXPECT_EQ(clus->performanceDirectives,
            (std::vector<std::string>{".explicitcluster", ".reqnctapercluster 2, 1, 1"}));
  ASSERT_EQ(clus->params.size(), 4u);
  EXPECT_EQ(clus->params[1].dims, (std::vector<std::optional<uint64_t>>{32}));
  for (const char *op : {"tex", "suld"}) {
    const auto ins = instructions(*clus, op);
    ASSERT_EQ(ins.size(), 1u) << op;
    const Operand &addr = ins[0]->operands.at(1);
    EXPECT_EQ(addr.kind, OK::Address) << op;
    ASSERT_EQ(addr.elems.size(), 1u) << op;
    EXPECT_EQ(addr.elems[0].kind, OK::Vector) << op;
  }
  EXPECT_EQ(instructions(*clus, "alloca").size(), 1u);
  EXPECT_EQ(instructions(*clus, "trap").size(), 1u);
  const Function *lb = findFunction(m, "_Z2lbPdPx");
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->performanceDirectives.back(), ".maxclusterrank 2");
  bool managed = false, dynamic = false;
  for (const TopLevel &it : m.items) {
    if (it.kind != TopLevel::Kind::Variable)
      continue;
    managed |= it.variable.name == "managedCounter" &&
               it.variable.attrs == std::vector<std::string>{".attribute(.managed)"};
    dynamic |= it.variable.name == "dyn" && it.variable.space == ".shared" &&
               it.variable.dims == std::vector<std::optional<uint64_t>>{std::nullopt};
  }
  EXPECT_TRUE(managed);
  EXPECT_TRUE(dynamic);
}

// --- saved fuzzer crashes ---------------------------------------------------
TEST(PtxFuzzCrashes, ReplayDoesNotCrash) {
  const fs::path dir = sourceDir() / "fuzz/corpus/ptx-crashes";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  size_t n = 0;
  for (const auto &e : fs::directory_iterator(dir)) {
    if (e.path().filename() == "README")
      continue;
    ParseResult r = parse(readFile(e.path()), e.path().filename().string());
    EXPECT_NE(r.module.has_value(), r.error.has_value()) << e.path();
    if (r.error) {
      EXPECT_FALSE(r.error->message.empty()) << e.path();
    }
    ++n;
  }
  RecordProperty("replayed", static_cast<int>(n));
}

} // namespace
} // namespace ori::ptx
