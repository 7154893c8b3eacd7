// Liveness (issue 5) on generated functions of 1k, 10k and 100k blocks with
// 1k and 64k registers (and 10k x 10k, the case of the speed target):
//   BM_LivenessOptimized  optimized::computeLiveness on a ready CfgFacts
//   BM_LivenessReference  reference::computeLiveness on the same CfgFacts; its
//                         counters also give the optimized time measured right
//                         after in the same run and the ratio (`speedup`), after
//                         checking that both halves give equal LivenessFacts
//   BM_LivenessSolver     the fixed-point iteration alone (optimized/
//                         liveness_solver.h) on ready gen/kill sets, in bytes
//                         per second against memcpy measured in the same run
// docs/performance.md ("Liveness") gives the command and the numbers.
//
// Shape of the generated functions (deterministic; LiveFunction below):
//  - CFG: blocks in layout order. A loop opens at a block and closes 2..64 or
//    (one in four) 2..2048 blocks later, inside its parent, with a latch
//    `@P0 BRA header`; loops nest up to 4 deep. One block in four ends in a
//    forward `@P1 BRA` 2..9 blocks ahead inside the innermost loop (ifs and
//    diamonds); the last block EXITs.
//  - Registers R0..R(regs-1), each defined somewhere: every block holds
//    D = max(4, ceil(regs / blocks)) IADD3s, the k-th of the function
//    defining R(k mod regs) and reading one register defined about W defs
//    back and one 1..W defs back, W = min(regs / 4, 1024): a window of about W
//    values is live at every point. One source in 16 instead reads a register
//    defined up to 2D defs ahead (loop-carried inside a loop, uninitialized
//    outside one), one IADD3 in 8 is guarded by @P2 (a def that does not
//    kill), and every block that branches sets its predicate with ISETP.
#include <benchmark/benchmark.h>

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
  LiveFunction(Function& f, uint32_t blocks, uint32_t regs)
      : f_(f), n_(blocks), regs_(regs), defsPerBlock_(std::max(4u, (regs + blocks - 1) / blocks)),
        window_(std::min(regs / 4, 1024u)), rng_(0x11fe0000u ^ (uint64_t(blocks) << 20) ^ regs) {}

  void build() {
    f_.blocks.resize(n_);
    struct Loop {
      uint32_t header, latch;
    };
    std::vector<Loop> loops;
    for (uint32_t b = 0; b < n_; ++b) {
      Block& block = f_.blocks[b];
      block.label = "L" + std::to_string(b);
      block.labelId = 0x10u * b;
      for (uint32_t k = 0; k < defsPerBlock_; ++k) block.instrs.push_back(iadd3());
      const uint32_t limit = loops.empty() ? n_ - 1 : loops.back().latch; // stay inside the loop
      if (b + 1 == n_) {
        block.instrs.push_back(instr(Opcode::EXIT));
      } else if (!loops.empty() && loops.back().latch == b) {
        branch(block, P(0), loops.back().header);
        loops.pop_back();
      } else if (loops.size() < 4 && b + 3 < limit && below(8) == 0) {
        const uint32_t longest = below(4) == 0 ? 2048 : 64;
        loops.push_back({b, b + 2 + below(std::min(longest, limit - b - 2))});
      } else if (b + 3 < limit && below(4) == 0) {
        branch(block, P(1), b + 2 + below(std::min(8u, limit - b - 2)));
      }
    }
    f_.name = "live";
    f_.isEntry = true;
    f_.recountRegs();
  }

private:
  uint32_t below(uint32_t k) { return uint32_t(rng_() % k); } // [0, k)
  Reg nth(int64_t k) { return R(uint32_t(((k % regs_) + regs_) % regs_)); }

  Instr iadd3() {
    const int64_t k = defs_++;
    Instr in = instr(Opcode::IADD3);
    in.dsts.push_back(reg(nth(k)));
    const int64_t far = k - window_ + below(window_ / 8 + 1);
    const int64_t near = below(16) == 0 ? k + 1 + below(2 * defsPerBlock_) : k - 1 - below(window_);
    in.srcs = {reg(nth(far)), reg(nth(near)), Operand::immediate(1)};
    if (below(8) == 0) in.guard = reg(P(2));
    return in;
  }

  void branch(Block& block, Reg pred, uint32_t target) {
    Instr isetp = instr(Opcode::ISETP);
    isetp.mods.set(Mod::LT);
    isetp.mods.set(Mod::AND);
    isetp.dsts = {reg(pred), reg(PT)};
    isetp.srcs = {reg(nth(defs_ - 1)), reg(nth(defs_ - 2)), reg(PT)};
    block.instrs.push_back(std::move(isetp));
    Instr bra = instr(Opcode::BRA);
    bra.guard = reg(pred);
    bra.srcs.push_back(Operand::label(target));
    block.instrs.push_back(std::move(bra));
  }

  Function& f_;
  const uint32_t n_, regs_, defsPerBlock_, window_;
  int64_t defs_ = 0;
  std::mt19937_64 rng_;
};

struct Case {
  Function f;
  CfgFacts cfg;
};

// Generated functions, made once per (blocks, regs).
const Case& caseOf(uint32_t blocks, uint32_t regs) {
  static std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<Case>> cache;
  auto& slot = cache[{blocks, regs}];
  if (!slot) {
    slot = std::make_unique<Case>();
    LiveFunction(slot->f, blocks, regs).build();
    slot->cfg = optimized::computeCfg(slot->f);
  }
  return *slot;
}

// The size counters, and whether the function is what the shape promises.
bool describe(benchmark::State& state, const Case& c, uint32_t regs) {
  state.counters["blocks"] = double(c.f.blocks.size());
  state.counters["regs"] = double(regs);
  state.counters["instrs"] = double(c.f.instrCount());
  if (!verifyFunction(c.f).empty() || c.f.nextReg[size_t(RegFile::R)] != regs) {
    state.SkipWithError("the generated function is malformed");
    return false;
  }
  return true;
}

double meanLiveIn(const LivenessFacts& facts) {
  double total = 0;
  for (const auto& in : facts.liveIn) total += double(in.size());
  return facts.liveIn.empty() ? 0 : total / double(facts.liveIn.size());
}

void BM_LivenessOptimized(benchmark::State& state) {
  const uint32_t blocks = uint32_t(state.range(0)), regs = uint32_t(state.range(1));
  const Case& c = caseOf(blocks, regs);
  if (!describe(state, c, regs)) return;
  double live = 0;
  for (auto _ : state) {
    LivenessFacts facts = optimized::computeLiveness(c.f, c.cfg);
    live = meanLiveIn(facts);
    benchmark::DoNotOptimize(facts);
  }
  state.counters["live"] = live;
}

#if defined(ORIOPT_HAVE_REFERENCE)
void BM_LivenessReference(benchmark::State& state) {
  const uint32_t blocks = uint32_t(state.range(0)), regs = uint32_t(state.range(1));
  const Case& c = caseOf(blocks, regs);
  if (!describe(state, c, regs)) return;
  LivenessFacts reference;
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
  LivenessFacts optimizedFacts;
  const double t0 = threadSeconds();
  for (int k = 0; k < kOptimizedRuns; ++k) optimizedFacts = optimized::computeLiveness(c.f, c.cfg);
  const double optimizedSeconds = (threadSeconds() - t0) / kOptimizedRuns;
  if (!(optimizedFacts == reference)) {
    state.SkipWithError(("the halves differ: " + firstDifference(reference, optimizedFacts)).c_str());
    return;
  }
  state.counters["live"] = meanLiveIn(reference);
  state.counters["optimized_ms"] = optimizedSeconds * 1e3;
  state.counters["speedup"] = referenceSeconds / optimizedSeconds;
}
#endif

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
