// The corpus campaign of automatic launches (interp/auto_launch.h; docs/interpreter.md,
// "Automatic launches"): every .entry kernel of every PTX file of the shared corpus runs
// with the parameters autoLaunch binds (128 threads x 2 CTAs, pointers to 4 MiB buffers,
// counts of 256), and the share that ends ok having done real work (not leaving through its
// first block) must stay at the level measured. Every other outcome is counted by kind and
// reason and printed, never passed silently.
//
// ORIOPT_CORPUS_RUN_TABLE=FILE writes one line per kernel (file, kernel, verdict, warp
// instructions, lane instructions, reason), as scripts/corpus-run prints them;
// ORIOPT_CORPUS_RUN_STEPS=N changes the step budget per kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "interp/auto_launch.h"
#include "interp/interp.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    return env;
  return ORIOPT_CORPUS_DIR;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One line of text: newlines and tabs of a message become spaces.
std::string oneLine(std::string s) {
  std::replace_if(
      s.begin(), s.end(), [](char c) { return c == '\n' || c == '\t' || c == '\r'; }, ' ');
  return s;
}

// The verdict of a run (as scripts/corpus-run prints it) and its reason.
std::pair<std::string, std::string> verdictOf(const ori::Function &k, const ori::RunConfig &cfg,
                                              const ori::RunResult &r) {
  using Kind = ori::RunResult::Kind;
  switch (r.kind) {
  case Kind::Ok:
    if (ori::didRealWork(k, cfg, r))
      return {"ok", ""};
    return {"first-block", k.blocks.size() == 1 ? "one block" : "left through its first block"};
  case Kind::Timeout:
    return {"timeout", oneLine(r.message)};
  case Kind::Fault:
    return {"fault", oneLine(r.message)};
  case Kind::Unsupported:
    return {"unsupported", oneLine(r.mnemonic + ": " + r.message)};
  case Kind::Deadlock:
    return {"deadlock", oneLine(r.message)};
  case Kind::Error:
    return {"error", oneLine(r.message)};
  case Kind::Trap:
    return {"trap", oneLine(r.message)};
  }
  return {"?", ""};
}

// The group a failed run counts in: the verdict, and for an unsupported OPAQUE the PTX
// instruction without its operands, for other messages the text with numbers left out.
std::string reasonGroup(const std::string &verdict, const std::string &reason,
                        const ori::RunResult &r) {
  if (r.kind == ori::RunResult::Kind::Unsupported && r.mnemonic == "OPAQUE") {
    size_t q = r.message.find('"');
    std::string text = q == std::string::npos ? r.message : r.message.substr(q + 1);
    return "unsupported OPAQUE " + text.substr(0, text.find_first_of(" \t\""));
  }
  static const std::regex number("0x[0-9a-fA-F]+|[0-9]+");
  return verdict + ": " + std::regex_replace(reason, number, "N");
}

TEST(CorpusRun, AutoLaunchesDoRealWork) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(corpusDir()) / "ptx", ec))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  if (files.empty())
    GTEST_SKIP() << "no corpus at " << corpusDir();
  std::sort(files.begin(), files.end());

  // autoLaunch's defaults, with the budget capped at 3 million warp instructions per kernel (the
  // most an ok run takes is 2.07 million, murmur's batch_helper, except rodinia hwt's 3.13
  // million, which times out here; the other kernels that time out loop for far longer, and the
  // default 20 million would only make the test slower).
  ori::AutoLaunchOptions opts;
  opts.maxSteps = 3'000'000;
  if (const char *s = std::getenv("ORIOPT_CORPUS_RUN_STEPS"))
    opts.maxSteps = std::strtoull(s, nullptr, 0);
  std::ofstream table;
  if (const char *t = std::getenv("ORIOPT_CORPUS_RUN_TABLE"))
    table.open(t);

  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, int> verdicts;
  std::map<std::string, int> reasons; // "verdict: reason" with addresses and lines left out
  int kernels = 0;
  uint64_t warpSteps = 0;
  for (const fs::path &p : files) {
    SCOPED_TRACE(p.filename().string());
    ori::ParseResult parsed = ori::ptx::parseAndLower(readFile(p), p.filename().string());
    ASSERT_TRUE(parsed.module) << parsed.error->str();
    const ori::Module &m = *parsed.module;
    for (const ori::Function &k : m.functions) {
      if (!k.isEntry || k.isDeclaration())
        continue;
      ++kernels;
      const ori::RunConfig cfg = ori::autoLaunch(m, k, opts);
      const ori::RunResult r = ori::runKernel(m, cfg);
      auto [verdict, reason] = verdictOf(k, cfg, r);
      ++verdicts[verdict];
      if (verdict != "ok")
        ++reasons[reasonGroup(verdict, reason, r)];
      warpSteps += r.warpSteps;
      if (table.is_open())
        table << p.filename().string() << '\t' << k.name << '\t' << verdict << '\t' << r.warpSteps
              << '\t' << r.laneSteps << '\t' << reason << '\n';
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int ok = verdicts["ok"];
  std::string counts;
  for (const auto &[v, n] : verdicts) {
    counts += ' ';
    counts += std::to_string(n);
    counts += ' ';
    counts += v;
  }
  std::printf("corpus run: %zu files, %d kernels: %d ok doing real work (%.1f%%);%s; %llu warp "
              "instructions, %.1f s\n",
              files.size(), kernels, ok, 100.0 * ok / std::max(kernels, 1), counts.c_str(),
              static_cast<unsigned long long>(warpSteps), seconds);
  for (const auto &[key, n] : reasons)
    std::printf("  %4d  %s\n", n, key.c_str());
  RecordProperty("kernels", kernels);
  RecordProperty("ok", ok);
  EXPECT_GE(kernels, 300);
  // Measured: 281 of 313 (89.8%; scripts/corpus-run's 20 million warp instructions also finish
  // rodinia hwt since the rule for products of counts in a shared address: 282, 90.1%,
  // docs/corpus-run.tsv; 278, 88.8%, before 32-bit shared addresses, .texref fetches
  // and the products-of-parameters rule; 233, 74.4%, before the surface and texture model and
  // the auto-launch rules for indexed counts, stored pointers, float buffers and backward
  // pointers). The target is 90%; docs/interpreter.md ("Automatic launches") says what
  // stops the rest. The bar is the measured share minus 2 points.
  EXPECT_GE(100.0 * ok / std::max(kernels, 1), 87.8);
}

} // namespace
