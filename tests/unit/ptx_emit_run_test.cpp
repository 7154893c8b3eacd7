// For every kernel of the PTX corpus that the interpreter can run, the
// lowered original and the lowering of its re-emitted PTX (oriopt
// --emit=ptx) behave the same on random inputs: same exit, same faulting
// thread and address, same buffer contents.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

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

// Random inputs for one kernel: 64-bit parameters get a buffer of random
// bytes (they are usually pointers), the others small random integers (they
// are usually sizes and counts, and small ones keep loops short).
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

struct Tally {
  int kernels = 0, compared = 0, runs = 0, ok = 0, fault = 0, timeout = 0, unsupported = 0;
};

TEST(PtxEmitRun, ReEmittedKernelsBehaveTheSame) {
  Tally t;
  std::mt19937_64 rng(20261122);
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(corpusDir() + "/ptx"))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty())
      << "no corpus files (PtxCorpus.HoldsExactlyTheFilesOfItsProvenance says which are missing)";
  for (const fs::path &p : files) {
    SCOPED_TRACE(p.filename().string());
    ori::ParseResult orig = ori::ptx::parseAndLower(readFile(p), p.filename().string());
    ASSERT_FALSE(orig.error) << orig.error->str();
    ori::ptx::EmitResult emitted = ori::ptx::emit(*orig.module);
    ASSERT_FALSE(emitted.error) << emitted.error->str();
    ori::ParseResult again = ori::ptx::parseAndLower(emitted.text, "emitted.ptx");
    ASSERT_FALSE(again.error) << again.error->str();
    for (const ori::Function &k : orig.module->functions) {
      if (!k.isEntry || k.isDeclaration())
        continue;
      ++t.kernels;
      bool compared = false;
      for (int trial = 0; trial < 3; ++trial) {
        ori::RunConfig cfg = randomInputs(k, rng);
        ori::RunResult a = ori::runKernel(*orig.module, cfg);
        ++t.runs;
        if (a.kind == ori::RunResult::Kind::Unsupported) {
          ++t.unsupported;
          continue; // nothing to compare; the emitted kernel may stop elsewhere or not at all
        }
        if (a.kind == ori::RunResult::Kind::Timeout) {
          ++t.timeout;
          continue; // the emitted kernel has other instructions: it stops elsewhere in the same
                    // loop
        }
        // The emitted code may take several instructions for one (bridged widths, a negated
        // operand as an xor): a larger budget, so that only a real difference can make it time out.
        cfg.maxSteps *= 8;
        ori::RunResult b = ori::runKernel(*again.module, cfg);
        ASSERT_EQ(int(a.kind), int(b.kind)) << k.name << ": " << ori::formatExit(a, "orig")
                                            << " vs " << ori::formatExit(b, "emitted");
        EXPECT_EQ(a.thread, b.thread) << k.name;
        EXPECT_EQ(a.addr, b.addr) << k.name;
        EXPECT_EQ(a.buffers, b.buffers) << k.name << ": buffers differ";
        if (a.kind == ori::RunResult::Kind::Ok)
          ++t.ok;
        else
          ++t.fault;
        compared = true;
      }
      t.compared += compared;
    }
  }
  std::printf("emit/run: %d kernels, %d compared in at least one run; %d runs: %d ok, %d fault, "
              "%d timeout and %d unsupported (not compared)\n",
              t.kernels, t.compared, t.runs, t.ok, t.fault, t.timeout, t.unsupported);
  // The comparison must exercise real runs, not only unsupported ones.
  EXPECT_GE(t.ok + t.fault, 20);
  EXPECT_GE(t.ok, 10);
}

} // namespace
