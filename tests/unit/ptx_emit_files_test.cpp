// The Ori -> PTX emitter on whole files: every .ori file of the tree that can be emitted, the
// corpus round trip, and random modules assemble with `ptxas -arch=sm_90` (or are refused with a
// reason).
#include <gtest/gtest.h>

#include "ptx_emit_helpers.h"

namespace {

using namespace ptx_emit_test;

// ---------------------------------------------------------------- every file

TEST(PtxEmitFiles, EveryEmittableOriFileAssembles) {
  if (ptxasPath().empty())
    GTEST_SKIP() << "ptxas not found (ORIOPT_PTXAS empty, not on PATH)";
  size_t parsed = 0, emitted = 0, accepted = 0;
  std::set<std::string> refused;
  for (const fs::path &p : oriFiles()) {
    ori::ParseResult r = ori::parseOri(readFile(p), p.string());
    if (!r.module)
      continue; // inputs of the parser's error tests
    ++parsed;
    ori::ptx::EmitResult e = ori::ptx::emit(*r.module);
    std::string name = p.filename().string();
    if (e.error) {
      EXPECT_TRUE(kCannotEmit.count(name)) << "cannot emit " << p << ": " << e.error->str();
      EXPECT_NE(e.error->line, 0u) << e.error->str();
      refused.insert(name);
      continue;
    }
    EXPECT_FALSE(kCannotEmit.count(name)) << name << " is listed as not emittable but emits";
    ++emitted;
    std::string errs = ptxasErrors(e.text, p.string(), callsDeclaration(*r.module));
    EXPECT_EQ(errs, "") << e.text;
    accepted += errs.empty();
  }
  for (const auto &[name, why] : kCannotEmit)
    EXPECT_TRUE(refused.count(name)) << name << " (" << why << ") was not refused";
  EXPECT_GE(parsed, 30u) << "too few .ori files under " << sourceDir();
  std::cout << "[ptxas] " << accepted << " of " << emitted << " emitted files accepted (" << parsed
            << " parsed, " << refused.size() << " without a PTX form)\n";
  RecordProperty("accepted", int(accepted));
  RecordProperty("emitted", int(emitted));
}

// PTX written by others (the shared corpus): lowered to Ori and emitted again,
// every file ptxas accepts must still be accepted.
TEST(PtxEmitFiles, CorpusRoundTripAssembles) {
  if (ptxasPath().empty())
    GTEST_SKIP() << "ptxas not found";
  std::string corpus =
      std::getenv("ORIOPT_CORPUS_DIR") ? std::getenv("ORIOPT_CORPUS_DIR") : ORIOPT_CORPUS_DIR;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(corpus) / "ptx", ec))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  if (files.empty())
    GTEST_SKIP() << "no corpus at " << corpus;
  std::sort(files.begin(), files.end());
  size_t valid = 0, accepted = 0;
  for (const fs::path &p : files) {
    std::string text = readFile(p);
    if (!ptxasErrors(text, p.string(), false).empty() &&
        !ptxasErrors(text, p.string(), true).empty())
      continue; // ptxas 13 refuses the original too
    ++valid;
    ori::ParseResult r = ori::ptx::parseAndLower(text, p.filename().string());
    ASSERT_TRUE(r.module) << r.error->str();
    ori::ptx::EmitResult e = ori::ptx::emit(*r.module);
    ASSERT_FALSE(e.error) << p << ": " << e.error->str();
    std::string errs = ptxasErrors(e.text, p.string(), callsDeclaration(*r.module));
    EXPECT_EQ(errs, "");
    accepted += errs.empty();
  }
  EXPECT_GE(valid, 20u);
  std::cout << "[ptxas] corpus: " << accepted << " of " << valid
            << " files ptxas accepts are accepted after "
            << "PTX -> Ori -> PTX (" << files.size() << " in the corpus)\n";
}

// Random well-formed modules (fuzz/ori_gen.h): emit never crashes, refuses
// only with a message, and what it emits assembles.
TEST(PtxEmitFiles, RandomModulesEmitOrExplain) {
  size_t emitted = 0, refused = 0, crashes = 0;
  bool ok = rc::check("emit(random module)", [&] {
    ori::gen::Options o;
    o.opaque = false; // arbitrary OPAQUE text is not PTX
    ori::Module m = *ori::gen::module(o);
    m.ptxDirectives.clear(); // random passthrough text is not PTX either
    for (ori::Function &f : m.functions)
      f.ptxDirectives.clear();
    ori::ptx::EmitResult e = ori::ptx::emit(m);
    if (e.error) {
      ++refused;
      RC_ASSERT(!e.error->message.empty());
      return;
    }
    ++emitted;
    if (ptxasPath().empty())
      return;
    bool compileOnly = callsDeclaration(m);
    std::string errs = ptxasErrors(e.text, "random", compileOnly);
    if (errs.starts_with("CRASH") &&
        ((compileOnly && hitsPtxasCrash(m)) || hitsPtxasLocalCrash(m))) {
      ++crashes;
      return;
    }
    if (!errs.empty())
      RC_FAIL(errs + "\n" + e.text + "\n" + ori::printModule(m));
  });
  EXPECT_TRUE(ok);
  std::cout
      << "[random] " << emitted << " emitted and assembled, " << refused << " refused, " << crashes
      << " not checked (ptxas crashes: -c on returns over 48 bytes, negative local addresses)\n";
}

} // namespace
