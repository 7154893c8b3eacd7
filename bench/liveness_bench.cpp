// Liveness (issue 5) on generated functions of 1k, 10k and 100k blocks with
// 1k and 64k registers (and 10k x 10k, the case of the speed target):
//   BM_LivenessOptimized  optimized::computeLiveness on a ready CfgFacts
//   BM_LivenessReference  reference::computeLiveness on the same CfgFacts; its
//                         counters also give the optimized time measured right
//                         after (on a heap the reference left large) and the
//                         ratio (`speedup`), after checking that both halves
//                         give equal LivenessFacts
//   BM_LivenessSolver     the fixed-point iteration alone (optimized/
//                         liveness_solver.h) on ready gen/kill sets, in bytes
//                         per second against memcpy measured in the same run
// docs/performance.md ("Liveness") gives the command and the numbers.
//
// Shape of the generated functions (deterministic; LiveFunction below):
//  - CFG: blocks in layout order. A loop (do-while) opens at a block and
//    closes 2 to 65 or (one in four) 2 to 2049 blocks later, inside its parent,
//    with a latch `@P0 BRA header`; loops nest up to 4 deep. One block in four
//    outside an if ends in a forward `@P1 BRA` 2..9 blocks ahead inside the
//    innermost loop (an if; ifs do not nest or hold a loop header); the last
//    block EXITs.
//  - Registers R0..R(regs-1), each defined somewhere: every block holds
//    D = max(4, ceil(1.25 regs / blocks)) IADD3s, the k-th def of the
//    function defining R(k mod regs) and reading two earlier defs, one about
//    W back and one 1..W back, W = min(regs / 4, 512), counting only the defs
//    visible there (those in an if's body are not read after the if, as if a
//    compiler had merged them): so W to 2W values are live at every point.
//    The first reads, before W defs, read registers not defined yet: live-in
//    at the entry (uninitialized). One IADD3 in 8 is instead a guarded update
//    (@P2, a def that does not kill) of one of the last 4 registers defined.
//    Each loop has a counter (the register defined last before it) that its
//    latch increments and compares, live around the loop; every block that
//    branches sets its predicate with ISETP.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "ir/verify.h"
#include "optimized/liveness_solver.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace {

using namespace ori;

double threadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

Operand reg(Reg r) { return Operand::reg_(r); }
Instr instr(Opcode op) {
  Instr in;
  in.op = op;
  return in;
}

class LiveFunction {
public:
  LiveFunction(Function &f, uint32_t blocks, uint32_t regs)
      : f_(f), n_(blocks), regs_(regs),
        defsPerBlock_(std::max(4u, (5 * regs / 4 + blocks - 1) / blocks)),
        window_(std::min(regs / 4, 512u)), rng_(0x11fe0000u ^ (uint64_t(blocks) << 20) ^ regs) {}

  void build() {
    f_.blocks.resize(n_);
    struct Loop {
      uint32_t header, latch;
      Reg counter; // defined before the loop, incremented by the latch
    };
    std::vector<Loop> loops;
    uint32_t ifTarget = 0; // while b < ifTarget, b is in the body of an if
    size_t ifVisible = 0;  // visible_.size() at the if
    for (uint32_t b = 0; b < n_; ++b) {
      Block &block = f_.blocks[b];
      block.label = fmt::format("L{}", b);
      block.labelId = 0x10u * b;
      if (b == ifTarget)
        visible_.resize(ifVisible); // the if's defs are not read after it
      const bool inIf = b < ifTarget;
      for (uint32_t k = 0; k < defsPerBlock_; ++k)
        block.instrs.push_back(iadd3());
      const uint32_t limit = loops.empty() ? n_ - 1 : loops.back().latch; // stay inside the loop
      if (b + 1 == n_) {
        block.instrs.push_back(instr(Opcode::EXIT));
      } else if (!loops.empty() && loops.back().latch == b) {
        const Reg c = loops.back().counter;
        Instr inc = instr(Opcode::IADD3);
        inc.dsts = {reg(c)};
        inc.srcs = {reg(c), Operand::immediate(1), reg(RZ)};
        block.instrs.push_back(std::move(inc));
        branch(block, P(0), c, loops.back().header);
        loops.pop_back();
      } else if (!inIf && loops.size() < 4 && b + 3 < limit && below(8) == 0) {
        const uint32_t longest = below(4) == 0 ? 2048 : 64;
        loops.push_back({b, b + 2 + below(std::min(longest, limit - b - 2)), read(0)});
      } else if (!inIf && b + 3 < limit && below(4) == 0) {
        ifTarget = b + 2 + below(std::min(8u, limit - b - 2));
        ifVisible = visible_.size();
        branch(block, P(1), read(1), ifTarget);
      }
    }
    f_.name = "live";
    f_.isEntry = true;
    f_.recountRegs();
  }

private:
  uint32_t below(uint32_t k) { return uint32_t(rng_() % k); } // [0, k)
  Reg nth(int64_t k) { return R(uint32_t(((k % regs_) + regs_) % regs_)); }
  // The register of the visible def `back` places before the last one; past
  // the first def, registers not defined yet (uninitialized).
  Reg read(size_t back) {
    if (back < visible_.size())
      return nth(visible_[visible_.size() - 1 - back]);
    return nth(-1 - int64_t(back - visible_.size()));
  }

  // The next def, or (one in 8) a guarded update of one of the last 4
  // registers defined.
  Instr iadd3() {
    Instr in = instr(Opcode::IADD3);
    const bool guarded = !visible_.empty() && below(8) == 0;
    const Reg dst = guarded ? read(below(4)) : nth(defs_);
    in.srcs = {reg(read(window_ - 1 - below(window_ / 8 + 1))), reg(read(below(window_))),
               Operand::immediate(1)};
    in.dsts.push_back(reg(dst));
    if (guarded) {
      in.guard = reg(P(2));
    } else {
      visible_.push_back(defs_++);
    }
    return in;
  }

  // ISETP of `pred`, reading `counter` and the last def, then @pred BRA target.
  void branch(Block &block, Reg pred, Reg counter, uint32_t target) {
    Instr isetp = instr(Opcode::ISETP);
    isetp.mods.set(Mod::LT);
    isetp.mods.set(Mod::AND);
    isetp.dsts = {reg(pred), reg(PT)};
    isetp.srcs = {reg(counter), reg(read(0)), reg(PT)};
    block.instrs.push_back(std::move(isetp));
    Instr bra = instr(Opcode::BRA);
    bra.guard = reg(pred);
    bra.srcs.push_back(Operand::label(target));
    block.instrs.push_back(std::move(bra));
  }

  Function &f_;
  const uint32_t n_, regs_, defsPerBlock_, window_;
  int64_t defs_ = 0;
  std::vector<int64_t> visible_; // the defs later code may read, oldest first
  std::mt19937_64 rng_;
};

struct Case {
  Function f;
  CfgFacts cfg;
};

// Generated functions, made once per (blocks, regs).
const Case &caseOf(uint32_t blocks, uint32_t regs) {
  static std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<Case>> cache;
  auto &slot = cache[{blocks, regs}];
  if (!slot) {
    slot = std::make_unique<Case>();
    LiveFunction(slot->f, blocks, regs).build();
    slot->cfg = optimized::computeCfg(slot->f);
  }
  return *slot;
}

// The size counters, and whether the function is what the shape promises.
bool describe(benchmark::State &state, const Case &c, uint32_t regs) {
  state.counters["blocks"] = double(c.f.blocks.size());
  state.counters["regs"] = double(regs);
  state.counters["instrs"] = double(c.f.instrCount());
  if (!verifyFunction(c.f).empty() || c.f.nextReg[size_t(RegFile::R)] != regs) {
    state.SkipWithError("the generated function is malformed");
    return false;
  }
  return true;
}

// Warm-up: every timed analysis runs once untimed first, in both halves. The
// first call at a size pays for fresh heap memory: the result of 100k blocks x
// 1k registers is 550 MB of register vectors, and on the project's VM page
// faults and malloc (on a heap the generator left fragmented) made that call
// take 2.2 s against 0.3 s for the next ones.

// The mean size of LiveIn over the blocks.
double meanLiveIn(const LivenessFacts &facts) {
  double total = 0;
  for (const auto &in : facts.liveIn)
    total += double(in.size());
  return facts.liveIn.empty() ? 0 : total / double(facts.liveIn.size());
}

void BM_LivenessOptimized(benchmark::State &state) {
  const uint32_t blocks = uint32_t(state.range(0)), regs = uint32_t(state.range(1));
  const Case &c = caseOf(blocks, regs);
  if (!describe(state, c, regs))
    return;
  double live = meanLiveIn(optimized::computeLiveness(c.f, c.cfg)); // warm-up (see Warm-up above)
  for (auto _ : state) {
    LivenessFacts facts = optimized::computeLiveness(c.f, c.cfg);
    live = meanLiveIn(facts);
    benchmark::DoNotOptimize(facts);
  }
  state.counters["live"] = live;
}

#if defined(ORIOPT_HAVE_REFERENCE)
void BM_LivenessReference(benchmark::State &state) {
  const uint32_t blocks = uint32_t(state.range(0)), regs = uint32_t(state.range(1));
  const Case &c = caseOf(blocks, regs);
  if (!describe(state, c, regs))
    return;
  LivenessFacts reference = reference::computeLiveness(c.f, c.cfg); // warm-up (see Warm-up above)
  double spent = 0;
  for (auto _ : state) {
    const double t0 = threadSeconds();
    reference = reference::computeLiveness(c.f, c.cfg);
    spent += threadSeconds() - t0;
    benchmark::DoNotOptimize(reference);
  }
  const double referenceSeconds = spent / double(state.iterations());
  // The optimized half on the same function right after, a few times.
  constexpr int kOptimizedRuns = 5;
  LivenessFacts optimizedFacts = optimized::computeLiveness(c.f, c.cfg); // warm-up
  const double t0 = threadSeconds();
  for (int k = 0; k < kOptimizedRuns; ++k)
    optimizedFacts = optimized::computeLiveness(c.f, c.cfg);
  const double optimizedSeconds = (threadSeconds() - t0) / kOptimizedRuns;
  if (!(optimizedFacts == reference)) {
    state.SkipWithError(
        ("the halves differ: " + firstDifference(reference, optimizedFacts)).c_str());
    return;
  }
  state.counters["live"] = meanLiveIn(reference);
  state.counters["optimized_ms"] = optimizedSeconds * 1e3;
  state.counters["speedup"] = referenceSeconds / optimizedSeconds;
}
#endif

// ---- the solver alone ----------------------------------------------------------
using optimized::BitKernels;
using optimized::LivenessSets;

// Words read and written by the solver's kernel calls, counted by a run with
// counting kernels: an IfChanged call reads each of its arrays once (dst and
// src: 2n words; dst, gen, in, kill: 4n), the scan up to the first changing
// word and the update from there on (the at most 16 words the AVX2 scan reads
// past it and the update reads again are not counted), and writes the words
// from the first changing one to the end, or none.
struct Traffic {
  uint64_t readWords = 0, writtenWords = 0;
  uint64_t bytes() const { return (readWords + writtenWords) * sizeof(uint32_t); }
};
Traffic gTraffic;

bool countingOrIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t first = 0;
  while (first < n && (~d[first] & s[first]) == 0)
    ++first;
  gTraffic.readWords += 2 * uint64_t(n);
  gTraffic.writtenWords += n - first;
  return optimized::bestKernels().orIfChanged(d, s, n);
}
bool countingOrWithAndNotIfChanged(uint32_t *d, const uint32_t *gen, const uint32_t *in,
                                   const uint32_t *kill, uint32_t n) {
  uint32_t first = 0;
  while (first < n && (~d[first] & (gen[first] | (in[first] & ~kill[first]))) == 0)
    ++first;
  gTraffic.readWords += 4 * uint64_t(n);
  gTraffic.writtenWords += n - first;
  return optimized::bestKernels().orWithAndNotIfChanged(d, gen, in, kill, n);
}

// gen and kill of the R file (the generated functions' R registers are
// numbered densely from 0, so a register's bit is its number), by the
// definitions: backwards through each block, an unguarded def clears gen and
// sets kill, a use sets gen.
void buildGenKill(LivenessSets &sets, const Function &f) {
  auto set = [](uint32_t *w, uint32_t i) { w[i / 32] |= 1u << (i % 32); };
  auto clear = [](uint32_t *w, uint32_t i) { w[i / 32] &= ~(1u << (i % 32)); };
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (auto it = f.blocks[b].instrs.rbegin(); it != f.blocks[b].instrs.rend(); ++it) {
      if (!it->isGuarded())
        for (Reg r : it->defs())
          if (r.file == RegFile::R)
            clear(sets.gen(b), r.num), set(sets.kill(b), r.num);
      for (Reg r : it->uses())
        if (r.file == RegFile::R)
          set(sets.gen(b), r.num);
    }
}

// Whether the solved LiveIn sets hold the R registers of `facts`.
bool sameLiveIn(const LivenessSets &sets, const LivenessFacts &facts) {
  for (uint32_t b = 0; b < sets.blocks(); ++b) {
    std::vector<uint32_t> want(sets.words(), 0);
    for (Reg r : facts.liveIn[b])
      if (r.file == RegFile::R)
        want[r.num / 32] |= 1u << (r.num % 32);
    if (std::memcmp(want.data(), sets.in(b), want.size() * sizeof(uint32_t)) != 0)
      return false;
  }
  return true;
}

void BM_LivenessSolver(benchmark::State &state) {
  const uint32_t blocks = uint32_t(state.range(0)), regs = uint32_t(state.range(1));
  const Case &c = caseOf(blocks, regs);
  if (!describe(state, c, regs))
    return;
  LivenessSets sets(blocks, regs);
  buildGenKill(sets, c.f);
  const std::vector<uint32_t> order = optimized::solverOrder(c.cfg);

  BitKernels counting = optimized::bestKernels();
  counting.orIfChanged = countingOrIfChanged;
  counting.orWithAndNotIfChanged = countingOrWithAndNotIfChanged;
  gTraffic = {};
  const uint32_t rounds = optimized::solveLiveness(sets, c.cfg, order, counting);
  const Traffic moved = gTraffic;
  // The sets must be those of the whole analysis (not on 100k blocks: memory).
  if (blocks <= 10000 && !sameLiveIn(sets, optimized::computeLiveness(c.f, c.cfg))) {
    state.SkipWithError("the solver's LiveIn differs from computeLiveness");
    return;
  }

  // memcpy in the same run, interleaved with the solves: as many bytes as a
  // solve moves (a copy counts its bytes read plus written), through a buffer
  // as large as the sets up to 256 MB (so it is in cache or memory as they are).
  const size_t copyBytes = std::min<size_t>(sets.bytes(), size_t(256) << 20);
  std::vector<char> from(copyBytes, 1), to(copyBytes, 0);
  double solveSeconds = 0, copySeconds = 0, copiedBytes = 0;
  for (auto _ : state) {
    sets.clearSolution();
    double t0 = threadSeconds();
    benchmark::DoNotOptimize(optimized::solveLiveness(sets, c.cfg, order));
    benchmark::ClobberMemory();
    const double solve = threadSeconds() - t0;
    state.SetIterationTime(solve);
    solveSeconds += solve;
    t0 = threadSeconds();
    for (double copied = 0; copied < double(moved.bytes()); copied += 2.0 * double(copyBytes)) {
      std::memcpy(to.data(), from.data(), copyBytes);
      benchmark::ClobberMemory();
      copiedBytes += 2.0 * double(copyBytes);
    }
    copySeconds += threadSeconds() - t0;
  }
  state.SetBytesProcessed(int64_t(moved.bytes()) * int64_t(state.iterations()));
  const double solverRate = double(moved.bytes()) * double(state.iterations()) / solveSeconds;
  const double copyRate = copiedBytes / copySeconds;
  state.counters["rounds"] = rounds;
  state.counters["set_KB"] = double(sets.words()) * 4 / 1024;
  state.counters["moved_MB"] = double(moved.bytes()) / 1e6;
  state.counters["solver_GBps"] = solverRate / 1e9;
  state.counters["memcpy_GBps"] = copyRate / 1e9;
  state.counters["vs_memcpy"] = solverRate / copyRate;
}

} // namespace

// 1k/10k/100k blocks x 1k/64k registers, and 10k x 10k.
BENCHMARK(BM_LivenessOptimized)
    ->ArgNames({"blocks", "regs"})
    ->ArgsProduct({{1000, 10000, 100000}, {1024, 65536}})
    ->Args({10000, 10000})
    ->Unit(benchmark::kMillisecond);
#if defined(ORIOPT_HAVE_REFERENCE)
// Not on 100k blocks: minutes, and gigabytes of std::set nodes.
BENCHMARK(BM_LivenessReference)
    ->ArgNames({"blocks", "regs"})
    ->ArgsProduct({{1000, 10000}, {1024, 65536}})
    ->Args({10000, 10000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
#endif
BENCHMARK(BM_LivenessSolver)
    ->ArgNames({"blocks", "regs"})
    ->ArgsProduct({{1000, 10000, 100000}, {1024, 65536}})
    ->Args({10000, 10000})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
