// What the emitter's tests share (tests/unit/ptx_emit_test.cpp, ptx_emit_files_test.cpp): ptxas,
// parsing, emitting, and the .ori files of the tree.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <rapidcheck.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/ori_gen.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"

namespace ptx_emit_test {

namespace fs = std::filesystem;

inline std::string sourceDir() {
  if (const char *env = std::getenv("ORIOPT_SOURCE_DIR"); env && *env)
    return env;
  return ORIOPT_SOURCE_DIR;
}

inline std::string ptxasPath() {
  std::string p = ORIOPT_PTXAS;
  if (!p.empty())
    return p;
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

inline std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs ptxas on `ptx`; returns "" when it assembles, else its messages. A
// module that calls (or takes the address of) a function it only declares is
// assembled with -c.
inline std::string ptxasErrors(const std::string &ptx, const std::string &name, bool compileOnly) {
  static int counter = 0;
  fs::path dir = fs::temp_directory_path();
  fs::path file = dir / ("oriopt_emit_" + std::to_string(::getpid()) + "_" +
                         std::to_string(counter++) + ".ptx");
  fs::path log = file;
  log += ".log";
  {
    std::ofstream out(file, std::ios::binary);
    out << ptx;
  }
  std::string cmd = ptxasPath() + " -arch=sm_90 " + (compileOnly ? "-c " : "") + "'" +
                    file.string() + "' -o /dev/null > '" + log.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::string msg = readFile(log);
  fs::remove(file);
  fs::remove(log);
  if (rc == 0)
    return "";
  if (WIFSIGNALED(rc) ||
      (WIFEXITED(rc) && WEXITSTATUS(rc) > 128 && WEXITSTATUS(rc) < 160)) // the shell's 128 + signal
    return "CRASH " + name + ": ptxas crashed:\n" + msg;
  return name + ": ptxas failed:\n" + msg;
}

// ptxas 13.0 itself crashes (SIGSEGV) in ABI (-c) mode on any call whose
// return value is larger than 48 bytes; such modules cannot be checked.
inline bool hitsPtxasCrash(const ori::Module &m) {
  for (const ori::Function &f : m.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        if (in.op == ori::Opcode::CALL && !in.srcs.empty() &&
            in.srcs[0].kind == ori::Operand::Kind::Symbol)
          if (const ori::Function *g = m.findFunction(in.srcs[0].sym))
            for (const ori::Param &r : g->returns)
              if (r.size > 48)
                return true;
  return false;
}

// ptxas 13.0 also crashes (SIGSEGV) on a local access that constant propagation shows to land at
// a negative address, in a function that declares a .local variable smaller than the access
// (docs/spec-notes.md, "ptxas findings"). Such an access faults in the interpreter anyway.
inline bool hitsPtxasLocalCrash(const ori::Module &m) {
  for (const ori::Function &f : m.functions) {
    bool smallLocal = false;
    for (const ori::Variable &v : f.variables)
      smallLocal |= v.space == ori::Space::Local && v.elemSize < 8;
    if (!smallLocal)
      continue;
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        for (const ori::Operand &o : in.srcs)
          if (o.kind == ori::Operand::Kind::Mem && o.imm < 0)
            return true;
  }
  return false;
}

inline bool callsDeclaration(const ori::Module &m) {
  for (const ori::Function &f : m.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        if ((in.op == ori::Opcode::CALL || in.op == ori::Opcode::MOV) && !in.srcs.empty() &&
            in.srcs[0].kind == ori::Operand::Kind::Symbol)
          if (const ori::Function *g = m.findFunction(in.srcs[0].sym); g && g->isDeclaration())
            return true;
  return false;
}

inline ori::Module parse(const std::string &text, const std::string &name = "t.ori") {
  ori::ParseResult r = ori::parseOri(text, name);
  if (!r.module)
    throw std::runtime_error(r.error->str());
  return std::move(*r.module);
}

// Emits `text` (an .ori module), checks that ptxas accepts the result and returns it.
inline std::string emitOk(const std::string &text) {
  ori::Module m = parse(text);
  ori::ptx::EmitResult e = ori::ptx::emit(m);
  EXPECT_FALSE(e.error) << e.error->str();
  if (!ptxasPath().empty()) {
    EXPECT_EQ(ptxasErrors(e.text, "emitted", callsDeclaration(m)), "") << e.text;
  }
  return e.text;
}

// The diagnostic of emitting `text`, which must fail.
inline std::string emitError(const std::string &text) {
  ori::ptx::EmitResult e = ori::ptx::emit(parse(text, "bad.ori"));
  EXPECT_TRUE(e.error) << "expected an error, got:\n" << e.text;
  return e.error ? e.error->str() : "";
}

#define EXPECT_HAS(text, piece)                                                                    \
  EXPECT_NE((text).find(piece), std::string::npos) << "missing: " << (piece) << "\n" << (text)
#define EXPECT_LACKS(text, piece)                                                                  \
  EXPECT_EQ((text).find(piece), std::string::npos) << "unexpected: " << (piece) << "\n" << (text)

// A kernel around `body` (with an out pointer at c[0x0][0x210] and n at 0x218).
inline std::string kernel(const std::string &body) {
  return ".entry k(.u64 out, .u32 n)\n{\n" + body + "\n  EXIT\n}\n";
}

inline std::vector<fs::path> oriFiles() {
  std::vector<fs::path> out;
  for (const char *dir : {"examples", "tests"}) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(fs::path(sourceDir()) / dir, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".ori")
        out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Files that legitimately have no PTX form, by file name, with the reason.
inline const std::map<std::string, std::string> kCannotEmit = {
    {"params.ori", "c[0x2][..] (another bank than the parameters') has no PTX form"},
    {"unsupported_opaque.ori", "its OPAQUE text is SASS (FCHK), not PTX"},
    {"no_ptx_form.ori", "the emitter's own error test: MATCH.ANY with a predicate result"},
    {"report.ori", "the report's escaping test: a function named odd$1%x.y is no PTX identifier"},
    {"emit_refused.ori",
     "the round trip's test of an emit error: LDC c[0x0][R2+0x210] (register-indexed) in a .func"},
    {"fault_place.ori",
     "the fault-place test of an unsupported instruction: its OPAQUE text is SASS (NANOSLEEP)"},
};

} // namespace ptx_emit_test
