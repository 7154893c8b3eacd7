// orifuzz: long random-testing campaigns (DESIGN.md, "Testing"; issue 4).
//
//   orifuzz --check cfg-diff --runs 100000 --seed 1 --shard 0/2 --out DIR
//
// A check is a generator of random functions and a property that returns ""
// or a message; new checks are one entry in checkTable(). Run i of a campaign
// draws its function from the RapidCheck random key (seed, i) at generation
// size i % (size + 1), so any run can be replayed alone (--replay i) and a
// shard i/N (the runs with index % N == i) needs nothing from the others. On
// a failure the case is shrunk through RapidCheck's Shrinkable tree (the first
// shrink that still fails is taken, until none does), then by removing blocks
// while it still fails, printed as .ori text on standard output and written
// to DIR/orifuzz-CHECK-SEED-RUN.ori; exit 1.
// Exit 0 when every run passes, 1 on a failure or a usage error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <rapidcheck.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "fuzz/branch_checks.h"
#include "fuzz/cfg_checks.h"
#include "fuzz/cfg_gen.h"
#include "fuzz/cuda_host_diff.h"
#include "fuzz/dce_checks.h"
#include "fuzz/general_optimize_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/liveness_checks.h"
#include "fuzz/memory_slot_checks.h"
#include "fuzz/orifuzz_report.h"
#include "fuzz/roundtrip_checks.h"
#include "fuzz/slot_kernel_gen.h"
#include "fuzz/switch_checks.h"
#include "fuzz/switch_gen.h"
#include "fuzz/tv_checks.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"

namespace {

using namespace ori;
using Clock = std::chrono::steady_clock;

struct Check {
  std::string name;
  std::string help;
  bool hidden = false; // not listed: tests of orifuzz itself
  rc::Gen<Function> gen;
  std::function<std::string(const Function &)> property;
};

const std::vector<Check> &checkTable() {
  static const std::vector<Check> table = {
      {"cfg-diff",
       "random CFGs (fuzz/cfg_gen.h): reference == optimized for CfgFacts, DomFacts and LoopFacts, "
       "plus the definitional checks of fuzz/cfg_checks.h",
       false, gen::cfgFunction(), checks::cfgDiff},
      {"liveness-diff",
       "random terminating kernels (fuzz/kernel_gen.h): reference == optimized LivenessFacts, and "
       "the "
       "optimized half equals the path-search definition of fuzz/liveness_checks.h",
       false, gen::kernel(), checks::livenessDiff},
      {"dce-diff",
       "random terminating kernels (fuzz/kernel_gen.h): phases 10, 16 and 19, reference == "
       "optimized printed "
       "output; DCE deletes only effect-free instructions, leaves none dead and changes nothing "
       "run twice "
       "(fuzz/dce_checks.h)",
       false, gen::kernel(), checks::dceDiff},
      {"dce-behaviour",
       "random terminating kernels (fuzz/kernel_gen.h): after phases 10, 16, 19 and 16+19 the "
       "interpreter "
       "gives the same result on three launch inputs derived from the kernel (fuzz/dce_checks.h)",
       false, gen::kernel(), checks::dceBehaviour},
      {"branch-diff",
       "random terminating kernels (fuzz/kernel_gen.h): phase 15 OriBranchOpt, reference == "
       "optimized printed "
       "output and counts, unbounded and on a budget of 2 rewrites (fuzz/branch_checks.h)",
       false, gen::kernel(), checks::branchDiff},
      {"branch-behaviour",
       "random terminating kernels (fuzz/kernel_gen.h): the interpreter gives the same result "
       "before and after "
       "phase 15 on three launch inputs (fuzz/branch_checks.h)",
       false, gen::kernel(), checks::branchBehaviour},
      {"nested-diff",
       "random terminating kernels (fuzz/kernel_gen.h): phase 38 OptimizeNestedCondBranches, "
       "reference == "
       "optimized printed output, label ids and counts; a fixed point; one block and one BRA fewer "
       "per "
       "combination (fuzz/branch_checks.h)",
       false, gen::kernel(), checks::nestedCondDiff},
      {"nested-behaviour",
       "random terminating kernels (fuzz/kernel_gen.h): the interpreter gives the same result "
       "before and after "
       "phase 38 on three launch inputs, warps with lanes that disagree among them "
       "(fuzz/branch_checks.h)",
       false, gen::kernel(), checks::nestedCondBehaviour},
      {"nested-proof",
       "random terminating kernels (fuzz/kernel_gen.h): every combination phase 38 makes is proved "
       "when it is "
       "made (verify/nested_cond_check.h; fuzz/branch_checks.h)",
       false, gen::kernel(), checks::nestedCondProof},
      {"go-diff",
       "random kernels with cleanup work (fuzz/kernel_gen.h kCleanupKernels): phases 13 (also on a "
       "budget of 1), "
       "29 (sm_50, sm_60, sm_90; with and without limit-fold-fp) and 58 (with and without knob "
       "605), reference == "
       "optimized printed output, label ids, counts and fold marks; phase 29 a fixed point "
       "(fuzz/general_optimize_checks.h)",
       false, gen::kernel(gen::kCleanupKernels),
       [](const Function &f) { return checks::generalOptimizeDiff(f); }},
      {"go-behaviour",
       "random kernels with cleanup work (fuzz/kernel_gen.h): the interpreter gives the same "
       "result before and "
       "after phases 13, 29, 58 and 13+29+58 on three launch inputs "
       "(fuzz/general_optimize_checks.h)",
       false, gen::kernel(gen::kCleanupKernels),
       [](const Function &f) { return checks::generalOptimizeBehaviour(f); }},
      {"go-proof",
       "random one-thread kernels with cleanup work (fuzz/kernel_gen.h): the translation validator "
       "never refutes "
       "what phases 13, 29, 58 and 13+29+58 make of them (fuzz/general_optimize_checks.h)",
       false, gen::kernel(gen::kCleanupOneThreadKernels),
       [](const Function &f) { return checks::generalOptimizeProof(f); }},
      {"go-eval-diff",
       "go-diff with --fold=evaluate in phase 29, on kernels with constants and identities besides "
       "the cleanup "
       "work (fuzz/kernel_gen.h kEvaluateKernels)",
       false, gen::kernel(gen::kEvaluateKernels),
       [](const Function &f) { return checks::generalOptimizeDiff(f, true); }},
      {"go-eval-behaviour",
       "go-behaviour with --fold=evaluate: the interpreter gives the same result before and after "
       "phase 29 and "
       "13+29+58 with evaluate on, on three launch inputs (kEvaluateKernels)",
       false, gen::kernel(gen::kEvaluateKernels),
       [](const Function &f) { return checks::generalOptimizeBehaviour(f, true); }},
      {"go-eval-proof",
       "go-proof with --fold=evaluate: the translation validator never refutes phase 29 and "
       "13+29+58 with evaluate "
       "on (kEvaluateOneThreadKernels)",
       false, gen::kernel(gen::kEvaluateOneThreadKernels),
       [](const Function &f) { return checks::generalOptimizeProof(f, true); }},
      {"mid-diff",
       "random kernels with local-memory slots (fuzz/slot_kernel_gen.h): ConvertMemoryToRegister "
       "and phase 37 "
       "under three cost-model settings, reference == optimized printed output, label ids, "
       "register types and "
       "counts; every promoted slot's accesses gone; nothing left to promote "
       "(fuzz/memory_slot_checks.h)",
       false, gen::slotKernel(), checks::memToRegDiff},
      {"mid-behaviour",
       "random kernels with local-memory slots: the interpreter gives the same result before and "
       "after "
       "ConvertMemoryToRegister and phase 37 (default costs, and every slot promoted) on three "
       "launch inputs",
       false, gen::slotKernel(), [](const Function &f) { return checks::memToRegBehaviour(f); }},
      {"mid-proof",
       "random kernels with local-memory slots: the translation validator never refutes what "
       "ConvertMemoryToRegister and phase 37 make of them (fuzz/memory_slot_checks.h)",
       false, gen::slotKernel(), checks::memToRegProof},
      {"switch-diff",
       "random switch kernels (fuzz/switch_gen.h): phases 30 (also on a budget of 3 without "
       "extended matching) "
       "and 14, then 80: reference == optimized printed output, label ids and counts "
       "(fuzz/switch_checks.h)",
       false, gen::switchKernel(), [](const Function &f) { return checks::switchDiff(f); }},
      {"switch-behaviour",
       "random switch kernels (fuzz/switch_gen.h): the interpreter gives the same result before "
       "and after phases "
       "30, 30+80 and 30+15 for every case constant, its neighbours and the extremes "
       "(fuzz/switch_checks.h)",
       false, gen::switchKernel(), checks::switchBehaviour},
      {"switch-proof",
       "random switch kernels (fuzz/switch_gen.h): the switch-dispatch checker, fed from the IR "
       "before and after "
       "phase 30, proves every lowered switch and refutes none (fuzz/switch_checks.h)",
       false, gen::switchKernel(), [](const Function &f) { return checks::switchProof(f); }},
      {"switch-mutants",
       "random switch kernels (fuzz/switch_gen.h): from each jump table phase 30 makes, a bound "
       "one too loose, a "
       "signed bound and an unfilled gap are refuted by the switch-dispatch checker with a "
       "selector the two send "
       "apart (fuzz/switch_checks.h)",
       false, gen::switchKernel(), [](const Function &f) { return checks::switchMutants(f); }},
      {"tv-passes",
       "random terminating kernels (fuzz/kernel_gen.h): the translation validator never refutes "
       "what phases "
       "10, 13, 15, 16, 19, 29, 38, 58, 112 and --erase-unreachable make of them "
       "(fuzz/tv_checks.h)",
       false, gen::kernel(gen::kOneThreadKernels), checks::tvPasses},
      {"roundtrip-proof",
       "random terminating one-thread kernels (fuzz/kernel_gen.h): emitted as PTX and lowered "
       "again, each comes "
       "back equal up to register and label names, or the translation validator refutes neither "
       "direction "
       "(fuzz/roundtrip_checks.h; docs/ptx.md, \"Round trip\")",
       false, gen::kernel(gen::kOneThreadKernels), checks::roundTripProof},
      {"tv-mutants",
       "random terminating kernels (fuzz/kernel_gen.h): five wrong variants of the phases (a live "
       "instruction, "
       "a split copy, a needed BRA, a reachable block dropped, a BRA threaded to the wrong block) "
       "are never proved where the interpreter tells them "
       "apart, and every replayed counterexample differs (fuzz/tv_checks.h)",
       false, gen::kernel(gen::kOneThreadKernels), checks::tvMutants},
      // Fails on every CFG with a natural loop: its shrunk reproducer must be
      // a one-block self loop (fuzz/CMakeLists.txt tests the shrinker with it).
      {"selftest-fail-on-loop", "fails on any function with a natural loop (tests the shrinker)",
       true, gen::cfgFunction(),
       [](const Function &f) -> std::string {
         CfgFacts cfg = optimized::computeCfg(f);
         LoopFacts loops = optimized::computeLoops(f, cfg, optimized::computeDominators(f, cfg));
         return loops.loops.empty() ? "" : fmt::format("{} natural loop(s)", loops.loops.size());
       }},
  };
  return table;
}

struct Options {
  std::string check;
  uint64_t runs = 1000, seed = 1;
  std::string shard = "0/1";
  int size = rc::kNominalSize;
  std::string outDir = ".";
  std::string reportPath; // --report: JSON summary (fuzz/orifuzz_report.h)
  int64_t replay = -1;
  uint64_t from = 0; // --from: the first run index (continues a stopped campaign)
  bool listChecks = false, keepGoing = false;
  // cuda-host-diff only (fuzz/cuda_host_diff.h)
  uint32_t batch = 100;
  std::string builds = "O3,O0,G";
  bool keepWork = false, noReduce = false, hostUbsan = false, corruptHost = false;
  std::string avoid;
};

// cuda-host-diff is not a function generator plus a property: it compiles
// batches of CUDA kernels with nvcc and g++ (docs/cuda-host-diff.md).
const char *const kCudaHostDiffHelp = "random CUDA kernels (fuzz/cuda_gen.h) compiled by nvcc "
                                      "(-O3, -Xcicc -O0, -G) and run in the interpreter "
                                      "through the PTX lowering must write the bytes the same "
                                      "kernels compiled for the host by g++ write "
                                      "(fuzz/cuda_host_diff.h); exit 77 when nvcc is missing";

int runCudaCheck(const Options &o, uint64_t shardIndex, uint64_t shards) {
  ori::cudagen::DiffOptions d;
  d.seed = o.seed;
  d.runs = o.runs;
  d.shardIndex = shardIndex;
  d.shards = shards;
  d.replay = o.replay;
  d.from = o.from;
  d.batch = o.batch;
  d.outDir = o.outDir;
  d.keepGoing = o.keepGoing;
  d.reduce = !o.noReduce;
  d.keepWork = o.keepWork;
  d.hostUbsan = o.hostUbsan;
  d.corruptHost = o.corruptHost;
  if (!ori::cudagen::parseAvoid(o.avoid, d.gen)) {
    std::cerr << "orifuzz: error: --avoid: expected a comma-separated list of half, sad, mulhi64, "
                 "atomics\n";
    return 1;
  }
  d.builds.clear();
  for (size_t start = 0; start <= o.builds.size();) {
    size_t end = o.builds.find(',', start);
    if (end == std::string::npos)
      end = o.builds.size();
    if (end > start)
      d.builds.push_back(o.builds.substr(start, end - start));
    start = end + 1;
  }
  if (d.builds.empty()) {
    std::cerr << "orifuzz: error: --builds: expected a comma-separated list of O3, O0 and G\n";
    return 1;
  }
  return ori::cudagen::runCudaHostDiff(d);
}

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "orifuzz: error: " << msg << "\n";
  std::exit(1);
}

// The property's verdict; an exception is a failure like any other.
std::string evaluate(const Check &c, const Function &f) {
  try {
    return c.property(f);
  } catch (const std::exception &e) {
    return fmt::format("exception: {}", e.what());
  } catch (...) {
    return "unknown exception";
  }
}

// The run being executed, for the crash handler (a crash cannot be shrunk,
// but it can be replayed).
std::atomic<uint64_t> gCurrentRun{0}; // lock-free, so the handler may read it

void writeNumber(uint64_t v) {
  char buf[24];
  int n = 0;
  do
    buf[n++] = char('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0)
    (void)!::write(2, &buf[--n], 1);
}

extern "C" void onCrash(int sig) {
  static const char kMsg[] = "\norifuzz: crashed in run ";
  (void)!::write(2, kMsg, sizeof kMsg - 1);
  writeNumber(gCurrentRun.load(std::memory_order_relaxed));
  static const char kHint[] =
      "; reproduce it alone with --replay RUN (same --check, --seed, --size)\n";
  (void)!::write(2, kHint, sizeof kHint - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// The shrunk failure message of the last reportFailure call (for --report).
std::string lastShrunkMessage;

struct Shrunk {
  Function f;
  std::string message;
  size_t steps = 0; // property evaluations
  size_t taken = 0; // shrinks that still failed
};

// How big a case is: blocks, then instructions, then jump table entries.
std::tuple<size_t, size_t, size_t> measure(const Function &f) {
  size_t tableEntries = 0;
  for (const JumpTable &t : f.jumpTables)
    tableEntries += t.targets.size();
  return {f.blocks.size(), f.instrCount(), tableEntries};
}

// The shrinking budget: property evaluations and time.
struct Budget {
  size_t steps = 0;
  static constexpr size_t kMaxSteps = 20000;
  Clock::time_point deadline = Clock::now() + std::chrono::seconds(120);
  bool spent() const { return steps >= kMaxSteps || Clock::now() >= deadline; }
};

// Greedy descent of the shrink tree: take the first shrink that still fails
// and is no bigger, until none is (or the budget runs out). "No bigger"
// matters: a generator's shrinks need not be smaller (cfg_gen's occasional
// long chain is chosen by a number that shrinks towards choosing it).
Shrunk shrinkTree(const Check &c, rc::Shrinkable<Function> current, Function f, std::string message,
                  Budget &budget) {
  Shrunk out{std::move(f), std::move(message)};
  for (bool progress = true; progress && !budget.spent();) {
    progress = false;
    rc::Seq<rc::Shrinkable<Function>> candidates = current.shrinks();
    while (rc::Maybe<rc::Shrinkable<Function>> next = candidates.next()) {
      if (budget.spent())
        break;
      ++budget.steps;
      Function g;
      try {
        g = next->value();
      } catch (const std::exception &) {
        continue; // a shrink the generator cannot make
      }
      if (measure(g) > measure(out.f))
        continue;
      std::string m = evaluate(c, g);
      if (!m.empty()) {
        current = std::move(*next);
        out.f = std::move(g);
        out.message = std::move(m);
        ++out.taken;
        progress = true;
        break;
      }
    }
  }
  return out;
}

// f without blocks [lo, hi): branches and table entries to a removed block go
// to the block after the range, later ones move down. Nothing when the range
// ends the function and something branches into it.
std::optional<Function> withoutBlocks(const Function &f, uint32_t lo, uint32_t hi) {
  auto remap = [&](uint32_t t) { return t < lo ? t : t < hi ? lo : t - (hi - lo); };
  if (hi == f.blocks.size()) {
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs)
        for (const Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label && o.target >= lo)
            return std::nullopt;
    for (const JumpTable &t : f.jumpTables)
      for (uint32_t x : t.targets)
        if (x >= lo)
          return std::nullopt;
  }
  Function g = f;
  g.blocks.erase(g.blocks.begin() + lo, g.blocks.begin() + hi);
  for (Block &b : g.blocks)
    for (Instr &in : b.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          o.target = remap(o.target);
  for (JumpTable &t : g.jumpTables)
    for (uint32_t &x : t.targets)
      x = remap(x);
  return g;
}

// Then blocks are removed, runs of them first (halves, quarters, ... single
// blocks, as delta debugging does), keeping every removal after which the
// function still verifies and still fails: this is what shrinks a case the
// tree cannot, such as a long chain.
void removeBlocks(const Check &c, Shrunk &out, Budget &budget) {
  for (size_t run = std::max<size_t>(out.f.blocks.size() / 2, 1); !budget.spent();
       run = std::max<size_t>(run / 2, 1)) {
    bool removed = false;
    for (uint32_t lo = 0;
         lo + run <= out.f.blocks.size() && out.f.blocks.size() > run && !budget.spent();) {
      std::optional<Function> g = withoutBlocks(out.f, lo, lo + uint32_t(run));
      ++budget.steps;
      std::string m = g && verifyFunction(*g).empty() ? evaluate(c, *g) : "";
      if (m.empty()) {
        lo += uint32_t(run);
        continue;
      }
      out.f = std::move(*g);
      out.message = std::move(m);
      ++out.taken;
      removed = true;
    }
    if (run == 1 && !removed)
      break;
  }
}

Shrunk shrink(const Check &c, const rc::Shrinkable<Function> &s, Function f, std::string message) {
  Budget budget;
  Shrunk out = shrinkTree(c, s, std::move(f), std::move(message), budget);
  removeBlocks(c, out, budget);
  out.steps = budget.steps;
  return out;
}

std::string commentLines(const std::string &text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    out += "// " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// Shrinks, prints and saves a failing run; returns the reproducer's path.
std::string reportFailure(const Options &o, const Check &c, uint64_t run, int size,
                          const rc::Shrinkable<Function> &s, const Function &f,
                          const std::string &message) {
  std::cerr << fmt::format("\norifuzz: {}: run {} (seed {}, size {}) failed: {}\n", c.name, run,
                           o.seed, size, message);
  Shrunk r = shrink(c, s, f, message);
  lastShrunkMessage = r.message;
  std::cerr << fmt::format(
      "orifuzz: shrunk from {} to {} blocks in {} steps ({} evaluations): {}\n", f.blocks.size(),
      r.f.blocks.size(), r.taken, r.steps, r.message);
  std::string text = printFunction(r.f);
  if (!text.empty() && text.back() != '\n')
    text += '\n';
  std::cout << text << std::flush;
  std::string header = fmt::format(
      "orifuzz --check {} --seed {} --size {} --replay {}\n{} blocks shrunk to {}; failure:\n{}",
      c.name, o.seed, o.size, run, f.blocks.size(), r.f.blocks.size(), r.message);
  std::filesystem::path dir(o.outDir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path path = dir / fmt::format("orifuzz-{}-{}-{}.ori", c.name, o.seed, run);
  std::ofstream out(path, std::ios::binary);
  out << commentLines(header) << text;
  out.close();
  if (!out) {
    std::cerr << fmt::format("orifuzz: error: cannot write {}\n", path.string());
    return "";
  }
  std::cerr << fmt::format("orifuzz: reproducer written to {}\n", path.string());
  return path.string();
}

// The replay command of run `run` (what the reproducer's first line says).
std::string replayCommand(const Options &o, const Check &c, uint64_t run) {
  return fmt::format("orifuzz --check {} --seed {} --size {} --replay {}", c.name, o.seed, o.size,
                     run);
}

int runCampaign(const Options &o, const Check &c, uint64_t shardIndex, uint64_t shards) {
  std::signal(SIGSEGV, onCrash);
  std::signal(SIGABRT, onCrash);
  std::signal(SIGFPE, onCrash);
  std::signal(SIGBUS, onCrash);
  const bool tty = ::isatty(2);
  const auto start = Clock::now();
  auto lastProgress = start;
  uint64_t done = 0, failures = 0;
  size_t blocks = 0, maxBlocks = 0; // of the generated functions
  uint64_t first = o.replay >= 0 ? uint64_t(o.replay)
                                 : fuzzreport::firstRunAtOrAfter(o.from, shardIndex, shards);
  uint64_t end = o.replay >= 0 ? uint64_t(o.replay) + 1 : o.runs;
  uint64_t step = o.replay >= 0 ? 1 : shards;
  const uint64_t total = first < end ? (end - first + step - 1) / step : 0;
  fuzzreport::Report report{c.name, o.seed, o.runs,      shardIndex, shards, o.size,
                            0,      total,  o.keepGoing, 0,          {}};
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  auto progress = [&](const char *ending) {
    double s = seconds();
    std::cerr << fmt::format(
        "{}orifuzz: {} shard {}/{}: {}/{} runs, {:.0f} runs/s, {} failures, {:.0f} s{}",
        tty ? "\r" : "", c.name, shardIndex, shards, done, total, s > 0 ? double(done) / s : 0.0,
        failures, s, ending);
  };
  for (uint64_t run = first; run < end; run += step) {
    gCurrentRun.store(run, std::memory_order_relaxed);
    const int size = o.size == 0 ? 0 : int(run % uint64_t(o.size + 1));
    rc::Random random(rc::Random::Key{o.seed, run, 0, 0});
    rc::Shrinkable<Function> s = c.gen(random, size);
    Function f;
    std::string message;
    try {
      f = s.value();
      message = evaluate(c, f);
    } catch (const std::exception &e) {
      message = fmt::format("the generator failed: {}", e.what());
    }
    ++done;
    blocks += f.blocks.size();
    maxBlocks = std::max(maxBlocks, f.blocks.size());
    if (!message.empty()) {
      ++failures;
      std::string path = reportFailure(o, c, run, size, s, f, message);
      report.failures.push_back(
          {run, size, message, lastShrunkMessage, path, replayCommand(o, c, run)});
      if (!o.keepGoing)
        break;
    }
    if (auto now = Clock::now(); now - lastProgress >= std::chrono::seconds(1)) {
      lastProgress = now;
      progress(tty ? "" : "\n");
    }
  }
  progress("\n");
  std::cerr << fmt::format("orifuzz: {} {}: {} runs (seed {}, shard {}/{}, size {}; {:.1f} blocks "
                           "on average, at most {}), {} failures, "
                           "{:.1f} s\n",
                           failures ? "FAILED" : "passed", c.name, done, o.seed, shardIndex, shards,
                           o.size, done ? double(blocks) / double(done) : 0.0, maxBlocks, failures,
                           seconds());
  if (!o.reportPath.empty()) {
    report.done = done;
    report.seconds = seconds();
    if (!fuzzreport::write(report, o.reportPath)) {
      std::cerr << fmt::format("orifuzz: error: cannot write the report {}\n", o.reportPath);
      return 1;
    }
  }
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "orifuzz: random-testing campaigns over the oriopt analyses, with shrunk .ori reproducers"};
  app.footer(R"(Examples:
  orifuzz --list-checks
  orifuzz --check cfg-diff --runs 100000 --seed 1 --shard 0/2 --out /tmp/repro &
  orifuzz --check cfg-diff --runs 100000 --seed 1 --shard 1/2 --out /tmp/repro
  orifuzz --check cfg-diff --seed 1 --replay 4711      run 4711 of seed 1 alone

Exit status: 0 when every run passes, 1 on a failure (reproducer written) or a usage error.)");
  Options o;
  app.add_option("--check", o.check, "The check to run (see --list-checks)");
  app.add_option("--runs", o.runs, "Runs in the whole campaign (default 1000)");
  app.add_option("--seed", o.seed,
                 "Campaign seed (default 1): run i uses the random key (seed, i)");
  app.add_option("--shard", o.shard, "Do only the runs with index % N == i (default 0/1)")
      ->option_text("i/N");
  app.add_option("--size", o.size,
                 "Largest generation size: run i uses size i % (K + 1) (default 100)")
      ->check(CLI::Range(0, 100000))
      ->option_text("K");
  app.add_option("--out", o.outDir, "Directory for reproducers (default .)")->option_text("DIR");
  app.add_option("--from", o.from,
                 "Start at run index N: the shard's runs below N are left out (continues a "
                 "campaign that was stopped; the runs' keys do not change)")
      ->option_text("N");
  app.add_option("--replay", o.replay, "Run only this run index of the campaign")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--report", o.reportPath,
                 "Write a JSON summary (runs done, failing runs with reproducer and replay "
                 "command) to FILE "
                 "(docs/campaigns.md)")
      ->option_text("FILE");
  app.add_flag("--keep-going", o.keepGoing,
               "Report every failing run instead of stopping at the first");
  app.add_flag("--list-checks", o.listChecks, "List the checks and exit");
  app.add_option("--batch", o.batch, "cuda-host-diff: kernels per nvcc and g++ call (default 100)")
      ->check(CLI::Range(1, 2000));
  app.add_option(
      "--builds", o.builds,
      "cuda-host-diff: nvcc builds, comma-separated among O3, O0, G (default all three)");
  app.add_option("--avoid", o.avoid,
                 "cuda-host-diff: leave out of the kernels, comma-separated: half, sad, mulhi64, "
                 "atomics (what the "
                 "interpreter does not run yet)");
  app.add_flag("--selftest-corrupt-host", o.corruptHost,
               "cuda-host-diff: flip a bit of the host's output (tests the check)")
      ->group("");
  app.add_flag("--keep-work", o.keepWork,
               "cuda-host-diff: keep the generated .cu, .cpp and .ptx files of every batch");
  app.add_flag("--no-reduce", o.noReduce,
               "cuda-host-diff: report a difference without reducing the kernel");
  app.add_flag("--host-ubsan", o.hostUbsan,
               "cuda-host-diff: build the host side with -fsanitize=undefined (checks that the "
               "generator writes "
               "defined C++)");
  app.set_version_flag("--version", std::string("orifuzz ") + ORIOPT_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "orifuzz: error: " << e.what() << " (see --help)\n";
    return 1;
  }
  if (o.listChecks) {
    for (const Check &c : checkTable())
      if (!c.hidden)
        std::cout << fmt::format("{:<16} {}\n", c.name, c.help);
    std::cout << fmt::format("{:<16} {}\n", "cuda-host-diff", kCudaHostDiffHelp);
    return 0;
  }
  if (o.check.empty())
    usageError("--check NAME is required (see --list-checks)");
  const bool cuda = o.check == "cuda-host-diff";
  const Check *check = nullptr;
  for (const Check &c : checkTable())
    if (c.name == o.check)
      check = &c;
  if (!check && !cuda)
    usageError(fmt::format("--check {}: no such check (see --list-checks)", o.check));
  uint64_t shardIndex = 0, shards = 1;
  {
    unsigned long long i = 0, n = 0;
    int used = 0;
    if (std::sscanf(o.shard.c_str(), "%llu/%llu%n", &i, &n, &used) != 2 ||
        size_t(used) != o.shard.size() || n == 0 || i >= n || o.shard[0] == '-' ||
        o.shard.find("/-") != std::string::npos)
      usageError(fmt::format("--shard {}: expected i/N with 0 <= i < N", o.shard));
    shardIndex = i;
    shards = n;
  }
  if (cuda && !o.reportPath.empty())
    usageError("--report is not supported by cuda-host-diff");
  try {
    if (cuda)
      return runCudaCheck(o, shardIndex, shards);
    return runCampaign(o, *check, shardIndex, shards);
  } catch (const std::bad_alloc &) {
    std::cerr << "orifuzz: error: out of memory\n";
    return 1;
  }
}
