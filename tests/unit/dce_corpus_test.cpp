// Dead-code elimination on every function of the PTX corpus (issue 5, "Done
// means"): phase 16 OriPerformLiveDead from both halves prints the same; its
// output (and phase 19's), emitted as PTX, assembles with ptxas wherever the
// original PTX does; and every entry kernel runs the same under the
// interpreter before and after it (fuzz/dce_checks.h compareRuns) on random
// launches. Phases 10 and 19 are held to the same: halves agree, behaviour
// kept. Runs that cannot be compared (unsupported opcodes, timeouts) are
// counted and printed, never passed silently.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fuzz/dce_checks.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    return env;
  return ORIOPT_CORPUS_DIR;
}

std::string ptxasPath() {
  std::string p = ORIOPT_PTXAS;
  if (!p.empty())
    return p;
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Whether ptxas -arch=sm_90 assembles `ptx`, as a whole program or, failing
// that, as a unit with external calls (-c).
bool ptxasAccepts(const std::string &ptx) {
  static int counter = 0;
  const fs::path file = fs::temp_directory_path() / ("oriopt_dce_" + std::to_string(::getpid()) +
                                                     "_" + std::to_string(counter++) + ".ptx");
  std::ofstream(file, std::ios::binary) << ptx;
  bool ok = false;
  for (const char *mode : {"", "-c "}) {
    const std::string cmd = ptxasPath() + " -arch=sm_90 " + mode + "'" + file.string() +
                            "' -o /dev/null > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) {
      ok = true;
      break;
    }
  }
  fs::remove(file);
  return ok;
}

// Random launches as in ptx_emit_run_test.cpp: 64-bit parameters get a
// buffer of random bytes, the others small integers.
ori::RunConfig randomInputs(const ori::Function &k, std::mt19937_64 &rng) {
  ori::RunConfig cfg;
  cfg.entry = k.name;
  cfg.threads = 1 + uint32_t(rng() % 4);
  cfg.ctas = 1 + uint32_t(rng() % 2);
  cfg.maxSteps = 200'000;
  for (const ori::Param &p : k.params) {
    if (p.size == 8 && p.count == 0) {
      std::vector<uint8_t> bytes(4096);
      for (uint8_t &b : bytes)
        b = uint8_t(rng());
      cfg.buffers[p.name] = std::move(bytes);
    } else {
      cfg.params[p.name] = rng() % 64;
    }
  }
  return cfg;
}

void runPhase(ori::Module &m, int phase) {
  for (ori::Function &f : m.functions) {
    if (f.isDeclaration())
      continue;
    if (phase == 10)
      ori::optimized::earlyOriSimpleLiveDead(f);
    else if (phase == 16)
      ori::optimized::oriPerformLiveDead(f);
    else
      ori::optimized::oriSplitLiveRanges(f);
  }
}

struct Tally {
  int files = 0, functions = 0, removed = 0, splits = 0, assembled = 0, ptxasRefusesOriginal = 0;
  int runs = 0, compared = 0, notCompared = 0, faultRemoved = 0;
};

// Whether some instruction of `m` has source line `line`.
bool hasLine(const ori::Module &m, uint32_t line) {
  for (const ori::Function &f : m.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        if (in.loc.line == line)
          return true;
  return false;
}

TEST(DceCorpus, HalvesAgreeAssembleAndBehaveTheSame) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(corpusDir()) / "ptx", ec))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  if (files.empty())
    GTEST_SKIP() << "no corpus at " << corpusDir();
  std::sort(files.begin(), files.end());
  const bool havePtxas = !ptxasPath().empty();
  Tally t;
  std::mt19937_64 rng(20261205);
  for (const fs::path &p : files) {
    SCOPED_TRACE(p.filename().string());
    const std::string text = readFile(p);
    ori::ParseResult parsed = ori::ptx::parseAndLower(text, p.filename().string());
    ASSERT_TRUE(parsed.module) << parsed.error->str();
    const ori::Module &orig = *parsed.module;
    ++t.files;
    for (const ori::Function &f : orig.functions) {
      if (f.isDeclaration())
        continue;
      ++t.functions;
      for (int phase : {10, 16, 19})
        EXPECT_EQ(ori::checks::dcePhaseHalvesAgree(f, phase), "") << f.name;
    }
    ori::Module dce = orig, split = orig;
    runPhase(dce, 16);
    runPhase(split, 19);
    for (size_t i = 0; i < orig.functions.size(); ++i) {
      t.removed += int(orig.functions[i].instrCount() - dce.functions[i].instrCount());
      t.splits += int(split.functions[i].instrCount() - orig.functions[i].instrCount());
    }
    if (havePtxas) {
      bool refusesOriginal = false;
      for (const ori::Module *out : {&dce, &split}) {
        ori::ptx::EmitResult e = ori::ptx::emit(*out);
        ASSERT_FALSE(e.error) << e.error->str();
        if (ptxasAccepts(e.text)) {
          ++t.assembled;
        } else if (refusesOriginal || !ptxasAccepts(text)) {
          refusesOriginal = true; // nothing to compare with
        } else {
          ADD_FAILURE() << "ptxas refuses the PTX of phase " << (out == &dce ? 16 : 19)
                        << "'s output, and accepts the original";
        }
      }
      t.ptxasRefusesOriginal += refusesOriginal;
    }
    // Each instruction gets a line of its own, so a run's stop names the very instruction:
    // a source run that faults in a load the phase removed (a dead load, which docs/liveness.md
    // allows to go: PTX leaves the faulting access undefined) has nothing to compare.
    ori::Module numbered = orig;
    uint32_t line = 0;
    for (ori::Function &f : numbered.functions)
      for (ori::Block &b : f.blocks)
        for (ori::Instr &in : b.instrs)
          in.loc.line = ++line;
    ori::Module early = numbered;
    runPhase(early, 10);
    dce = numbered;
    runPhase(dce, 16);
    split = numbered;
    runPhase(split, 19);
    for (const ori::Function &k : orig.functions) {
      if (!k.isEntry || k.isDeclaration())
        continue;
      for (int trial = 0; trial < 2; ++trial) {
        const ori::RunConfig cfg = randomInputs(k, rng);
        const ori::RunResult before = ori::runKernel(numbered, cfg);
        for (const ori::Module *after : {&early, &dce, &split}) {
          bool compared = false;
          ++t.runs;
          if (before.kind == ori::RunResult::Kind::Fault && !hasLine(*after, before.line)) {
            EXPECT_TRUE(before.mnemonic.starts_with("LD"))
                << k.name << ": the phase removed a faulting " << before.mnemonic;
            ++t.faultRemoved;
            ++t.notCompared;
            continue;
          }
          EXPECT_EQ(ori::checks::compareRuns(before, ori::runKernel(*after, cfg), &compared), "")
              << k.name << " after phase "
              << (after == &early ? 10
                  : after == &dce ? 16
                                  : 19);
          compared ? ++t.compared : ++t.notCompared;
        }
      }
    }
  }
  std::printf("dce corpus: %d files, %d functions; phase 16 removed %d instructions, phase 19 "
              "added %d copies; "
              "ptxas: %d outputs of 16 and 19 assembled, %d files skipped (ptxas refuses the "
              "original); interpreter: %d runs, %d compared, "
              "%d not comparable (unsupported or timeout before the phase; %d faulted in a load "
              "the phase removed)\n",
              t.files, t.functions, t.removed, t.splits, t.assembled, t.ptxasRefusesOriginal,
              t.runs, t.compared, t.notCompared, t.faultRemoved);
  RecordProperty("removed", t.removed);
  RecordProperty("compared", t.compared);
  EXPECT_GE(t.files, 30);
  EXPECT_GT(t.removed, 0);
  EXPECT_GE(t.compared, 30); // the comparison must see real runs
  if (havePtxas) {
    EXPECT_GE(t.assembled, 40);
  }
}

} // namespace
