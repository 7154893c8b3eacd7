// The translation validator against planted bugs (fuzz/tv_checks.h): each of five wrong
// variants of the phases (phase 16 dropping a live instruction, phase 19 forgetting a copy,
// phase 112 dropping a needed BRA, the erase of unreachable blocks emptying a reachable one,
// phase 15 threading a BRA to the wrong block)
// is planted at three places in the phase's real output on random kernels (fuzz/kernel_gen.h, fixed
// seeds) and on small entry kernels of the PTX corpus. No mutant the interpreter tells apart may be
// proved, every replayed counterexample must differ in the interpreter, and each variant must
// be refuted with a counterexample a replay confirms.
//
// ORIOPT_TV_MUTANTS_VERBOSE=1 prints every verdict; ORIOPT_TV_MUTANTS_KERNELS=N takes N
// generated and N corpus kernels (default 6 and 4); ORIOPT_TV_MUTANTS_DUMP=DIR writes each pair
// as DIR/mutantNNN.{src,tgt}.ori; ORIOPT_TV_MUTANTS_FIRST=K starts at generated kernel K
// (default 6). The default takes generated kernels 6..11 of the 12 this test drew until
// 2026-11-26: with kernels 0..11 it took 320 s of the CI's 30 minutes, most of it in 3-second
// solver timeouts, and every refutation a replay confirmed, for each of the five variants, came
// from kernels 6..11 (and kernel 3, for phase 112 only). ORIOPT_TV_MUTANTS_FIRST=0
// ORIOPT_TV_MUTANTS_KERNELS=12 runs the old sample.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/tv_checks.h"
#include "ir/ori.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;
using ori::checks::WrongVariant;
using ori::verify::TvResult;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    return env;
  return ORIOPT_CORPUS_DIR;
}

int kernelCount(int fallback) {
  const char *env = std::getenv("ORIOPT_TV_MUTANTS_KERNELS");
  return env ? std::max(0, std::atoi(env)) : fallback;
}

// Small entry kernels the validator can encode whole: no OPAQUE, no calls.
bool suitable(const ori::Function &f) {
  if (!f.isEntry || f.isDeclaration())
    return false;
  size_t n = 0;
  for (const ori::Block &b : f.blocks)
    for (const ori::Instr &in : b.instrs) {
      if (in.op == ori::Opcode::OPAQUE || in.info().is(ori::CALL_))
        return false;
      ++n;
    }
  return n >= 8 && n <= 120;
}

struct Tally {
  int mutants = 0, proved = 0, unknown = 0, refuted = 0, replayed = 0, interpreterDiffers = 0;
  double slowest = 0; // the slowest refutation, seconds
};

class Mutants {
public:
  // Every variant at (up to) three places of function fi of m: the first, the middle and the last.
  void plant(const ori::Module &m, size_t fi, const std::string &where) {
    const ori::Function &f = m.functions[fi];
    const auto inputs =
        ori::checks::oneThreadInputs(ori::checks::inputsFor(f, 4, ori::gen::kLaunchBufferBytes));
    for (WrongVariant v : ori::checks::kWrongVariants) {
      const size_t n = ori::checks::wrongVariantPlaces(f, v);
      std::vector<size_t> picks;
      if (n > 0)
        picks.push_back(0);
      if (n > 2)
        picks.push_back(n / 2);
      if (n > 1)
        picks.push_back(n - 1);
      for (size_t pick : picks) {
        ori::checks::MutantOutcome o;
        std::string d = ori::checks::tvMutantCheck(m, fi, v, pick, inputs, opts_, &o);
        EXPECT_EQ(d, "") << where;
        Tally &t = tally_[v];
        ++t.mutants;
        t.proved += o.tv.verdict == TvResult::Verdict::Proved;
        t.unknown += o.tv.verdict == TvResult::Verdict::Unknown;
        t.refuted += o.tv.verdict == TvResult::Verdict::Refuted;
        if (o.tv.verdict == TvResult::Verdict::Refuted) {
          // Refutations first (verify/tv_quick.cpp): each in seconds. The budget is 6 s; Z3
          // sometimes overruns a query's timeout, hence 10.
          t.slowest = std::max(t.slowest, o.tv.seconds);
          EXPECT_LE(o.tv.seconds, 10.0) << where << ": " << o.tv.line();
        }
        t.replayed += o.replayConfirmed;
        t.interpreterDiffers += o.interpreterDiffers;
        if (const char *dir = std::getenv("ORIOPT_TV_MUTANTS_DUMP")) {
          // the pair, for oriverify --tv by hand
          const std::string stem = fmt::format("{}/mutant{:03}", dir, dumped_++);
          ori::Module t = m;
          t.functions[fi] = ori::checks::wrongVariant(f, v, pick);
          std::ofstream(stem + ".src.ori") << ori::printModule(m);
          std::ofstream(stem + ".tgt.ori") << ori::printModule(t);
          std::printf("%s: %s, %s at %zu\n", stem.c_str(), where.c_str(),
                      ori::checks::variantName(v), pick);
        }
        if (std::getenv("ORIOPT_TV_MUTANTS_VERBOSE")) {
          std::string line = o.tv.line();
          if (line.size() > 600)
            line = line.substr(0, 200) + " ... " + line.substr(line.size() - 300);
          std::printf("%s, %s at %zu: %s [%.1f s]\n", where.c_str(), ori::checks::variantName(v),
                      pick, line.c_str(), o.tv.seconds);
        }
      }
    }
  }

  void report() {
    for (WrongVariant v : ori::checks::kWrongVariants) {
      const Tally &t = tally_[v];
      std::printf(
          "%-48s %2d mutants: %2d refuted (%2d replayed and confirmed, the slowest in %.1f s), "
          "%2d unknown, %2d proved; the interpreter tells %2d apart\n",
          ori::checks::variantName(v), t.mutants, t.refuted, t.replayed, t.slowest, t.unknown,
          t.proved, t.interpreterDiffers);
      EXPECT_GE(t.refuted, 1) << ori::checks::variantName(v) << ": never refuted";
      EXPECT_GE(t.replayed, 1) << ori::checks::variantName(v)
                               << ": no refutation confirmed by a replay";
    }
  }

private:
  ori::verify::TvOptions opts_{4, 3, 6};
  std::map<WrongVariant, Tally> tally_;
  int dumped_ = 0;
};

TEST(TvMutants, PlantedBugsAreRefutedAndReplayed) {
  Mutants mutants;
  // Random kernels, as orifuzz draws them (seed 11, run k, size 10).
  const int generated = kernelCount(6);
  const int first = std::getenv("ORIOPT_TV_MUTANTS_FIRST")
                        ? std::atoi(std::getenv("ORIOPT_TV_MUTANTS_FIRST"))
                        : 6;
  for (int k = first; k < first + generated; ++k) {
    rc::Random random(rc::Random::Key{11, uint64_t(k), 0, 0});
    ori::Module m;
    m.functions.push_back(ori::gen::kernel(ori::gen::kOneThreadKernels)(random, 10).value());
    mutants.plant(m, 0, "generated kernel " + std::to_string(k));
  }
  // Corpus kernels, in file order.
  if (fs::is_directory(corpusDir() + "/ptx")) {
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(corpusDir() + "/ptx"))
      if (e.path().extension() == ".ptx")
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    int taken = 0;
    const int wanted = kernelCount(4);
    for (const fs::path &p : files) {
      std::ifstream in(p);
      std::stringstream ss;
      ss << in.rdbuf();
      ori::ParseResult parsed = ori::ptx::parseAndLower(ss.str(), p.filename().string());
      if (parsed.error)
        continue;
      for (size_t fi = 0; fi < parsed.module->functions.size() && taken < wanted; ++fi)
        if (suitable(parsed.module->functions[fi])) {
          ++taken;
          mutants.plant(*parsed.module, fi,
                        p.filename().string() + " " + parsed.module->functions[fi].name);
        }
    }
  }
  mutants.report();
}

} // namespace
