// Phase 15 OriBranchOpt: the optimized half against the reference on one
// function, and the optimized half's time per block from 10k to 1M blocks
// (issue 12: at least 20x at 10k blocks; time per block within 2x up to 1M).
//
// The function: n blocks in a forward chain, each ending (by a fixed-seed
// draw) in a conditional forward branch, a BRA-only trampoline to a block
// ahead, a BRA to the next block, @PT / @!PT branches, or falling through;
// the last block exits. Every rule of the pass fires many times and branches
// skip blocks, so the erase has work too. The floor rows time one look at
// every block's last instruction, and one read of every instruction: how the
// cost of merely reaching the IR's heap grows with its size. One more row runs
// the 10k pass on copies no longer in the caches: whether the growth is the
// first touch of the function or every walk after it.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "bench/bench_timing.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

Function makeBranchy(uint32_t n) {
  Function f;
  f.name = "branchy";
  f.isEntry = true;
  f.blocks.resize(n);
  std::mt19937_64 rng(15);
  auto below = [&](uint32_t k) { return uint32_t(rng() % k); };
  auto bra = [](uint32_t target) {
    Instr in;
    in.op = Opcode::BRA;
    in.srcs.push_back(Operand::label(target));
    return in;
  };
  for (uint32_t b = 0; b < n; ++b) {
    Block &blk = f.blocks[b];
    blk.label = fmt::format("L{}", b);
    blk.labelId = 0x10u * b;
    if (b + 1 == n) {
      Instr exit;
      exit.op = Opcode::EXIT;
      blk.instrs.push_back(exit);
      break;
    }
    const uint32_t ahead = std::min(n - 1, b + 1 + below(8));
    const uint32_t r = below(100);
    if (r < 25) { // trampoline
      blk.instrs.push_back(bra(ahead));
      continue;
    }
    blk.instrs.push_back(Instr{}); // a NOP: not a trampoline
    if (r < 60) {
      Instr in = bra(ahead);
      in.guard = Operand::reg_(P(0), r & 1);
      blk.instrs.push_back(in);
    } else if (r < 70) {
      blk.instrs.push_back(bra(b + 1));
    } else if (r < 78) {
      Instr in = bra(ahead);
      in.guard = Operand::reg_(PT, r & 1);
      blk.instrs.push_back(in);
    }
  }
  f.recountRegs();
  return f;
}

const Function &branchyOf(uint32_t n) {
  static std::map<uint32_t, std::unique_ptr<Function>> cache;
  auto &slot = cache[n];
  if (!slot)
    slot = std::make_unique<Function>(makeBranchy(n));
  return *slot;
}

using bench::bestMs;

// The floor any pass over this IR pays: one look at each block's last
// instruction (its opcode, guard and first operand), nothing written.
uint64_t touchEveryBlock(const Function &f) {
  uint64_t sum = 0;
  for (const Block &b : f.blocks)
    if (!b.instrs.empty()) {
      const Instr &last = b.instrs.back();
      sum +=
          uint64_t(last.op) + (last.guard ? 1 : 0) + (last.srcs.empty() ? 0 : last.srcs[0].target);
    }
  return sum;
}

void BM_BranchOptRatios(benchmark::State &state) {
  const Function &f10k = branchyOf(10000);
  if (!verifyFunction(f10k).empty())
    return state.SkipWithError("the generated function is malformed");
  Function check = f10k;
  const BranchOptCounts counts = optimized::oriBranchOpt(check, -1);
  double opt10k = 0, ref10k = 0;
  std::map<uint32_t, double> perBlockNs, floorNs, readNs;
  double fromMemory10k = 1e300; // ns per block: the pass on 10k-block copies not in the caches
  for (auto _ : state) {
    opt10k = bestMs(
        f10k, [](Function &g) { return optimized::oriBranchOpt(g, -1).rewrites(); }, 9);
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f10k;
    if (reference::oriBranchOpt(r, -1) != counts || r != check)
      return state.SkipWithError("the halves disagree on the benchmark function");
    ref10k = bestMs(
        f10k, [](Function &g) { return reference::oriBranchOpt(g, -1).rewrites(); }, 1);
#endif
    // The sizes in interleaved rounds, the best of each kept: a change of the shared
    // machine's speed during the run then reaches every size's best time, not one size's.
    for (int round = 0; round < 3; ++round)
      for (uint32_t n : {10000u, 100000u, 1000000u}) {
        const Function &f = branchyOf(n);
        const double ns =
            bestMs(
                f, [](Function &g) { return optimized::oriBranchOpt(g, -1).rewrites(); },
                n >= 1000000 ? 1 : 3) *
            1e6 / n;
        perBlockNs[n] = round == 0 ? ns : std::min(perBlockNs[n], ns);
        const double floor = bestMs(
                                 f, [](Function &g) { return touchEveryBlock(g); }, 3) *
                             1e6 / n;
        floorNs[n] = round == 0 ? floor : std::min(floorNs[n], floor);
        const double read = bestMs(
                                f, [](Function &g) { return bench::readEveryInstruction(g); }, 3) *
                            1e6 / n;
        readNs[n] = round == 0 ? read : std::min(readNs[n], read);
      }
    // The 10k pass starting from memory, as the 1M one does: on each of 20 copies made in a
    // row (about 100 MB, three times the L3), the first copy made is the first run, so each
    // copy's blocks have left the caches when the pass starts on it. The mean per copy.
    for (int round = 0; round < 3; ++round) {
      std::vector<Function> copies(20, f10k);
      const double t0 = bench::threadCpuMs();
      for (Function &g : copies)
        benchmark::DoNotOptimize(optimized::oriBranchOpt(g, -1).rewrites());
      fromMemory10k = std::min(fromMemory10k, (bench::threadCpuMs() - t0) / 20 * 1e6 / 10000);
    }
  }
  std::string table = fmt::format(
      "\nOriBranchOpt (phase 15) on a 10k-block function ({} rewrites: {} constant, {} identical, "
      "{} threaded, "
      "{} folded; {} blocks erased)\n"
      "  optimized {:.2f} ms, reference {:.2f} ms: reference/optimized {:.1f}x\n"
      "  optimized, ns per block:",
      counts.rewrites(), counts.constantConditions, counts.identicalTargets, counts.threaded,
      counts.folded, counts.erasedBlocks, opt10k, ref10k, ref10k > 0 ? ref10k / opt10k : 0.0);
  auto growth = [](std::map<uint32_t, double> &ns) {
    return fmt::format("  (1M/10k: {:.2f}x, 1M/100k: {:.2f}x)\n", ns[1000000] / ns[10000],
                       ns[1000000] / ns[100000]);
  };
  for (const auto &[n, ns] : perBlockNs)
    table += fmt::format("  {}: {:.0f}", n, ns);
  table += growth(perBlockNs);
  table += fmt::format(
      "  optimized at 10k, each call starting from memory (20 copies made in a row): {:.0f} ns "
      "per block (1M/that: {:.2f}x)\n",
      fromMemory10k, perBlockNs[1000000] / fromMemory10k);
  table += "  floor (a look at each block's last instruction), ns per block:";
  for (const auto &[n, ns] : floorNs)
    table += fmt::format("  {}: {:.1f}", n, ns);
  table += growth(floorNs) + "  floor (one read of every instruction), ns per block:";
  for (const auto &[n, ns] : readNs)
    table += fmt::format("  {}: {:.1f}", n, ns);
  table += growth(readNs);
  std::fputs(table.c_str(), stdout);
  state.counters["ref/opt_10k"] = ref10k > 0 ? ref10k / opt10k : 0.0;
  state.counters["ns_per_block_1M/10k"] = perBlockNs[1000000] / perBlockNs[10000];
  state.counters["ns_per_block_1M/100k"] = perBlockNs[1000000] / perBlockNs[100000];
  state.counters["read_floor_1M/10k"] = readNs[1000000] / readNs[10000];
}
BENCHMARK(BM_BranchOptRatios)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
