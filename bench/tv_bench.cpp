// Translation validation (verify/tv.h, issue 11) on generated loop-free kernels of 250, 500,
// 1,000 and 2,000 instructions: BM_TvDeadCodeRemoved validates phase 16's output (a dead
// instruction in every eight removed) against the input, and reports as counters the
// instructions per second and the ratio to phase 16 itself on the same function (measured in
// the same run). The target of the issue: a 1,000-instruction loop-free function in under 10 s.
// docs/performance.md ("Translation validation") gives the command and the numbers.
//
// Shape (deterministic): `.entry k(.u32 a, .u32 b, .u64 out)`; groups of eight instructions,
// each a diamond: arithmetic on R1..R3 from the parameters and the previous group, one
// IADD3 into R9 that nothing reads (dead), a compare, a guarded branch over one IMAD, and a
// store of R2 to out + 4 * (group mod 64).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "ir/ori.h"
#include "optimized/optimized.h"
#include "verify/tv.h"

namespace {

using namespace ori;

Module loopFreeKernel(int instrs) {
  std::string text = ".entry k(.u32 a, .u32 b, .u64 out)\n{\n  MOV.64 R4, c[0x0][0x218]\n  MOV R1, "
                     "c[0x0][0x210]\n";
  for (int g = 0; 8 * g + 2 < instrs; ++g) {
    text += fmt::format("  IADD3 R1, R1, c[0x0][0x214], 0x{:x}\n", g + 1);
    text += fmt::format("  LOP3.LUT R2, R1, R3, 0x{:x}, 0x96\n", 3 * g + 5);
    text += fmt::format("  IADD3 R9, R1, 0x{:x}, RZ\n", g);
    text += "  ISETP.GT.U32.AND P0, PT, R2, R1, PT\n";
    text += fmt::format("  @P0 BRA L{}\n", g);
    text += "  IMAD R3, R2, 0x3, R1\n";
    text += fmt::format("L{}:\n  STG.E [R4+0x{:x}], R2\n", g, 4 * (g % 64));
    text += "  SHF.L.U32 R3, R3, 0x1, RZ\n";
  }
  text += "  EXIT\n}\n";
  ParseResult r = parseOri(text, "tv_bench.ori");
  if (r.error)
    throw std::runtime_error(r.error->str());
  return std::move(*r.module);
}

void BM_TvDeadCodeRemoved(benchmark::State &state) {
  const Module src = loopFreeKernel(int(state.range(0)));
  Module tgt = src;
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t removed = optimized::oriPerformLiveDead(tgt.functions[0]);
  const double phaseSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t n = 0;
  for (const Block &b : src.functions[0].blocks)
    n += b.instrs.size();
  verify::TvOptions opts;
  opts.timeoutSeconds = 600;
  opts.budgetSeconds = 600;
  double tvSeconds = 0;
  for (auto _ : state) {
    const auto t = std::chrono::steady_clock::now();
    verify::TvResult r = verify::validateFunction(src, tgt, "k", opts);
    tvSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (r.verdict != verify::TvResult::Verdict::Proved)
      state.SkipWithError(r.line().c_str());
  }
  state.counters["instructions"] = double(n);
  state.counters["removed"] = removed;
  state.counters["instr/s"] =
      benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["tv/phase16"] =
      tvSeconds / double(state.iterations()) / std::max(phaseSeconds, 1e-9);
}

// The same kernels with their blocks first laid out backwards (bix0 first, then the others
// from last to first, BRAs added where a block no longer falls through), validated against
// phase 112's output: the two sides reach their blocks in other orders, so their merged states
// are different terms and Z3 has to show them equal (the dead-code case above is mostly
// terms the two sides share).
void BM_TvBlocksPlacedInSourceOrder(benchmark::State &state) {
  Module src = loopFreeKernel(int(state.range(0)));
  Function &f = src.functions[0];
  std::vector<uint32_t> order{0};
  for (uint32_t b = uint32_t(f.blocks.size()); b-- > 1;)
    order.push_back(b);
  if (!optimized::reorderBlocks(f, order))
    throw std::runtime_error("reorderBlocks refused");
  Module tgt = src;
  const auto t0 = std::chrono::steady_clock::now();
  optimized::placeBlocksInSourceOrder(tgt.functions[0]);
  const double phaseSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t n = 0;
  for (const Block &b : f.blocks)
    n += b.instrs.size();
  verify::TvOptions opts;
  opts.timeoutSeconds = 600;
  opts.budgetSeconds = 600;
  double tvSeconds = 0;
  for (auto _ : state) {
    const auto t = std::chrono::steady_clock::now();
    verify::TvResult r = verify::validateFunction(src, tgt, "k", opts);
    tvSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (r.verdict != verify::TvResult::Verdict::Proved)
      state.SkipWithError(r.line().c_str());
  }
  state.counters["instructions"] = double(n);
  state.counters["instr/s"] =
      benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["tv/phase112"] =
      tvSeconds / double(state.iterations()) / std::max(phaseSeconds, 1e-9);
}

BENCHMARK(BM_TvDeadCodeRemoved)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(BM_TvBlocksPlacedInSourceOrder)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

} // namespace
