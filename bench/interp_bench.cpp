// The SIMT interpreter's speed (issue 13: at least 100 million lane-instructions
// per second on one core) on a reduction kernel: each CTA of 256 threads loads
// 8 values per thread from global memory, sums them, reduces the CTA's sums in
// shared memory with BAR.SYNC between the steps (divergent: fewer lanes each
// step), and lane 0 stores the CTA's sum. Two rows:
//   simt       the interpreter as it runs every kernel: warps of 32 lanes;
//   one-thread the same number of threads as CTAs of one thread each: every
//              warp has one lane, so every instruction is decoded and
//              dispatched once per thread, as the interpreter ran kernels
//              before the SIMT model (the kernel then reduces one value per
//              CTA, fewer steps per thread: the rate is what compares).
//   simt-no-mem-fast  the simt row with the memory fast path off (every load
//              and store per lane through the general path, as before it).
// The counter lane_instr/s is lane instructions (each warp instruction times
// its active lanes) per second of thread CPU time; `ratio` in the other rows
// is the SIMT row's rate over theirs, taken in the same run.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/bench_timing.h"
#include "interp/interp.h"
#include "interp/interp_impl.h"
#include "ir/ori.h"

namespace ori {
namespace {

const char *const kReduction = R"(.entry reduce(.u64 in, .u64 out)
{
  S2R R0, SR_TID.X
  S2R R9, SR_CTAID.X
  S2R R21, SR_NTID.X
  IMAD R20, R9, R21, R0
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R22, R20, 0x20, R10
  MOV R1, RZ
  MOV R24, RZ
load:
  LDG.E R5, [R22]
  IADD3 R1, R1, R5, RZ
  IADD3.64 R22, R22, 0x4, RZ
  IADD3 R24, R24, 0x1, RZ
  ISETP.LT.U32.AND P3, PT, R24, 0x8, PT
  @P3 BRA load
  SHF.L.U32 R2, R0, 0x2, RZ
  STS [R2], R1
  BAR.SYNC 0x0
  SHF.R.U32.HI R3, RZ, 0x1, R21
step:
  ISETP.GE.U32.AND P0, PT, R0, R3, PT
  @P0 BRA skip
  IADD3 R4, R0, R3, RZ
  SHF.L.U32 R4, R4, 0x2, RZ
  LDS R5, [R4]
  LDS R6, [R2]
  IADD3 R6, R6, R5, RZ
  STS [R2], R6
skip:
  BAR.SYNC 0x0
  SHF.R.U32.HI R3, RZ, 0x1, R3
  ISETP.NE.U32.AND P1, PT, R3, RZ, PT
  @P1 BRA step
  ISETP.NE.U32.AND P2, PT, R0, RZ, PT
  @P2 EXIT
  LDS R7, [RZ]
  MOV.64 R10, c[0x0][0x218]
  IMAD.WIDE.U32 R10, R9, 0x4, R10
  STG.E [R10], R7
  EXIT
})";

constexpr uint32_t kThreads = 256, kCtas = 16;

const Module &reduction() {
  static const Module m = [] {
    ParseResult r = parseOri(kReduction, "reduce.ori");
    if (!r.module)
      throw std::runtime_error(r.error->str());
    return std::move(*r.module);
  }();
  return m;
}

RunConfig launch() {
  RunConfig cfg;
  cfg.threads = kThreads;
  cfg.ctas = kCtas;
  cfg.maxSteps = uint64_t(1) << 40;
  std::vector<uint8_t> in(size_t(kThreads) * kCtas * 32);
  for (size_t k = 0; k < in.size(); ++k)
    in[k] = uint8_t(k * 7 + 1);
  cfg.buffers["in"] = std::move(in);
  cfg.buffers["out"] = std::vector<uint8_t>(kCtas * 4);
  return cfg;
}

// Lane instructions per second of thread CPU time: the best of `runs` runs of `cfg`.
double bestRate(const RunConfig &cfg, int runs) {
  double best = 0;
  for (int k = 0; k < runs; ++k) {
    const double t0 = bench::threadCpuMs();
    RunResult r = runKernel(reduction(), cfg);
    const double ms = bench::threadCpuMs() - t0;
    if (r.kind != RunResult::Kind::Ok)
      throw std::runtime_error(r.message);
    best = std::max(best, double(r.laneSteps) / (ms * 1e-3));
  }
  return best;
}

double simtRate() { return bestRate(launch(), 5); }

double oneThreadRate() {
  RunConfig cfg = launch();
  cfg.threads = 1;
  cfg.ctas = kThreads * kCtas;
  cfg.buffers["out"] = std::vector<uint8_t>(size_t(kThreads) * kCtas * 4);
  return bestRate(cfg, 3);
}

double noMemoryFastPathRate() {
  interp_detail::fastPathsOnThisThread().memory = false;
  const double rate = simtRate();
  interp_detail::fastPathsOnThisThread() = interp_detail::FastPaths{};
  return rate;
}

void BM_InterpReduction(benchmark::State &state) {
  const int mode = int(state.range(0));
  const bool simt = mode == 0;
  double rate = 0, ratio = 0;
  for (auto _ : state) {
    rate = simt ? simtRate() : mode == 1 ? oneThreadRate() : noMemoryFastPathRate();
    if (!simt)
      ratio = simtRate() / rate;
  }
  state.SetLabel(simt ? "simt" : mode == 1 ? "one-thread" : "simt-no-mem-fast");
  state.counters["lane_instr/s"] = rate;
  if (!simt)
    state.counters["ratio"] = ratio;
}
BENCHMARK(BM_InterpReduction)->Arg(0)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
