// The whole `--pipeline=ptxas -O3` (issue 16, "Speed"), through the library's public API
// (pipeline/oriopt.h): docs/performance.md, "Pipeline: --pipeline=ptxas -O3 against ptxas".
//
//   BM_PipelineVsPtxas/<file>  on each of the three largest corpus PTX files that ptxas
//       assembles: oriopt from PTX text to PTX text (ori::parseModule, every phase of
//       ori::ptxasPhases() through ori::runPhases at -O3, ptx::emit), and `ptxas -arch=sm_90
//       -O3 FILE -o TMP.cubin` as a subprocess, in the same benchmark, alternating; the best of
//       kCalls each. Counters: both times (wall; oriopt's thread CPU time and ptxas's child
//       CPU time too) and the ratio oriopt/ptxas (the bar: at most 0.25).
//   BM_PipelineLinearity  the same phases on generated kernels of about 10k, 100k and 1M
//       instructions, phases only on an in-memory module (no parse, no emit: the module is
//       built by makeUnits and copied before each call, the copy not timed), in ns per
//       instruction, with every phase's own time (PhaseStats::seconds) at each size, so that
//       a phase that grows faster than the function shows in the table it prints. The bar:
//       time per instruction within 2x from 10k to 1M. The sizes take turns (three rounds).
//       Beside it, one read of every instruction at each size (bench::readEveryInstruction):
//       how much of the growth merely reaching the function costs.
//
// Run: build/bin/oriopt_bench --benchmark_filter='BM_Pipeline'
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_timing.h"
#include "bench/units_kernel.h"
#include "ir/verify.h"
#include "pipeline/oriopt.h"

extern char **environ;

namespace ori {
namespace {

namespace fs = std::filesystem;
constexpr int kCalls = 3;

double wallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ptxas -arch=sm_90 -O3 FILE -o OUT, its output discarded: the exit status, the wall time
// and the child's CPU time (user + system, from wait4) in ms.
struct PtxasRun {
  int status = -1;
  double wall = 0, cpu = 0;
};
PtxasRun runPtxas(const std::string &file, const std::string &out) {
  std::vector<std::string> args = {"ptxas", "-arch=sm_90", "-O3", file, "-o", out};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  PtxasRun r;
  const double t0 = wallMs();
  pid_t pid = 0;
  if (posix_spawnp(&pid, "ptxas", &fa, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    return r;
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r.wall = wallMs() - t0;
  posix_spawn_file_actions_destroy(&fa);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.cpu = (double(ru.ru_utime.tv_sec) + double(ru.ru_stime.tv_sec)) * 1e3 +
          (double(ru.ru_utime.tv_usec) + double(ru.ru_stime.tv_usec)) * 1e-3;
  return r;
}

std::string tmpCubin() { return fmt::format("/tmp/oriopt-pipeline-bench-{}.cubin", getpid()); }

// oriopt --pipeline=ptxas -O3 --emit=ptx, as the library does it: the emitted text's size, or
// an error.
struct OrioptRun {
  std::string error;
  size_t instrs = 0, outBytes = 0;
};
OrioptRun pipelinePtxToPtx(const std::string &text, const std::string &name) {
  OrioptRun r;
  ParseResult p = parseModule(text, name, InputKind::Ptx);
  if (p.error)
    return {p.error->str()};
  Module &m = *p.module;
  r.instrs = moduleSize(m).instrs;
  PassContext ctx;
  ctx.optLevel = 3;
  ctx.arch = findArch("sm_90");
  const std::vector<PhaseStats> stats = runPhases(m, ptxasPhases(), ctx);
  if (!ctx.error.empty())
    return {ctx.error};
  ptx::EmitResult e = ptx::emit(m);
  if (e.error)
    return {e.error->str()};
  r.outBytes = e.text.size();
  benchmark::DoNotOptimize(stats);
  return r;
}

// The three largest corpus PTX files ptxas assembles (checked once, untimed).
const std::vector<fs::path> &largestAssembled() {
  static const std::vector<fs::path> files = [] {
    const char *env = std::getenv("ORIOPT_CORPUS_DIR");
    fs::path dir = fs::path(env && *env ? env : ORIOPT_CORPUS_DIR) / "ptx";
    std::vector<fs::path> all;
    for (const auto &e : fs::directory_iterator(dir))
      if (e.path().extension() == ".ptx")
        all.push_back(e.path());
    std::sort(all.begin(), all.end(), [](const fs::path &a, const fs::path &b) {
      return fs::file_size(a) != fs::file_size(b) ? fs::file_size(a) > fs::file_size(b) : a < b;
    });
    std::vector<fs::path> out;
    for (const fs::path &p : all) {
      if (out.size() == 3)
        break;
      if (runPtxas(p.string(), tmpCubin()).status == 0)
        out.push_back(p);
      else
        std::fprintf(stderr,
                     "pipeline_bench: ptxas -O3 does not assemble %s; the next largest instead\n",
                     p.c_str());
    }
    std::remove(tmpCubin().c_str());
    return out;
  }();
  return files;
}

void BM_PipelineVsPtxas(benchmark::State &state) {
  const std::vector<fs::path> &files = largestAssembled();
  if (size_t(state.range(0)) >= files.size())
    return state.SkipWithError("fewer corpus files ptxas assembles");
  const fs::path &file = files[size_t(state.range(0))];
  const std::string text = readFile(file);
  state.SetLabel(file.filename().string());
  double oWall = 1e300, oCpu = 1e300, pWall = 1e300, pCpu = 1e300;
  OrioptRun last;
  for (auto _ : state) {
    for (int k = 0; k < kCalls; ++k) {
      const double w0 = wallMs(), c0 = bench::threadCpuMs();
      last = pipelinePtxToPtx(text, file.filename().string());
      oCpu = std::min(oCpu, bench::threadCpuMs() - c0);
      oWall = std::min(oWall, wallMs() - w0);
      if (!last.error.empty())
        return state.SkipWithError(last.error.c_str());
      PtxasRun p = runPtxas(file.string(), tmpCubin());
      if (p.status != 0)
        return state.SkipWithError("ptxas failed");
      pWall = std::min(pWall, p.wall);
      pCpu = std::min(pCpu, p.cpu);
    }
  }
  std::remove(tmpCubin().c_str());
  std::printf("\n%s: %zu bytes of PTX, %zu instructions after lowering: oriopt PTX->PTX %.1f ms "
              "wall (%.1f ms CPU), "
              "ptxas -O3 %.1f ms wall (%.1f ms CPU): oriopt/ptxas %.3f wall, %.3f CPU\n",
              file.filename().c_str(), text.size(), last.instrs, oWall, oCpu, pWall, pCpu,
              oWall / pWall, oCpu / pCpu);
  state.counters["instrs"] = double(last.instrs);
  state.counters["oriopt_ms"] = oWall;
  state.counters["ptxas_ms"] = pWall;
  state.counters["oriopt/ptxas"] = oWall / pWall;
  state.counters["oriopt/ptxas_cpu"] = oCpu / pCpu;
}
BENCHMARK(BM_PipelineVsPtxas)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kMillisecond);

// bench/units_kernel.h's units with registers reused across 64 sets, as real code reuses them:
// about 12 instructions in two blocks per unit.
Function makeUnits(uint32_t units) { return bench::makeUnits(units, false); }

void BM_PipelineLinearity(benchmark::State &state) {
  const std::vector<const PipelineEntry *> phases = ptxasPhases();
  struct Row {
    size_t instrs = 0, blocks = 0, after = 0;
    double best = 1e300;
    double readFloor = 1e300; // ms: one read of every instruction (bench::readEveryInstruction)
    std::map<int, double> phaseMs; // each phase's PhaseStats::seconds (wall), best over the calls
    std::map<int, double>
        phaseCpuMs; // each phase's thread CPU time (beforePhase to afterPhase), best
  };
  std::map<uint32_t, Row> rows;
  for (auto _ : state) {
    // 833, 8333 and 83333 units: about 10k, 100k and 1M instructions.
    std::map<uint32_t, Module> modules;
    for (uint32_t units : {833u, 8333u, 83333u}) {
      Module &m = modules[units];
      m.functions.push_back(makeUnits(units));
      if (!verifyFunction(m.functions[0]).empty())
        return state.SkipWithError("the generated function is malformed");
      rows[units].instrs = moduleSize(m).instrs;
      rows[units].blocks = moduleSize(m).blocks;
    }
    // The sizes take turns, three rounds of each, and each figure is the best of its calls:
    // the machine's speed drifts by up to 1.5x from minute to minute, and measuring one size
    // after the other put that drift into the ratio. A 10k call takes about 10 ms and the
    // first calls of a process are slower (the heap grows, caches and predictors warm up), so
    // the small sizes get more calls (15 at 10k, 6 at 100k, 3 at 1M in all).
    for (int round = 0; round < 3; ++round)
      for (auto &[units, m] : modules) {
        Row &row = rows[units];
        const int calls = units < 1000 ? 5 : units < 10000 ? 2 : 1;
        for (int k = 0; k < calls; ++k) {
          Module copy = m;
          PassContext ctx;
          ctx.optLevel = 3;
          ctx.arch = findArch("sm_90");
          std::map<int, double> cpu;
          double phaseStart = 0;
          RunOptions opts;
          opts.beforePhase = [&](const PipelineEntry &, const Module &) {
            phaseStart = bench::threadCpuMs();
          };
          opts.afterPhase = [&](const PipelineEntry &e, const Module *, const Module &) {
            cpu[e.phase] = bench::threadCpuMs() - phaseStart;
            return true;
          };
          const double t0 = bench::threadCpuMs();
          const std::vector<PhaseStats> stats = runPhases(copy, phases, ctx, opts);
          const double ms = bench::threadCpuMs() - t0;
          if (!ctx.error.empty())
            return state.SkipWithError(ctx.error.c_str());
          row.best = std::min(row.best, ms);
          row.after = moduleSize(copy).instrs;
          for (const PhaseStats &s : stats) {
            auto [it, fresh] = row.phaseMs.emplace(s.phase, s.seconds * 1e3);
            if (!fresh)
              it->second = std::min(it->second, s.seconds * 1e3);
            auto [jt, first] = row.phaseCpuMs.emplace(s.phase, cpu[s.phase]);
            if (!first)
              jt->second = std::min(jt->second, cpu[s.phase]);
          }
        }
        row.readFloor = std::min(
            row.readFloor,
            bench::bestMs(
                m.functions[0], [](Function &g) { return bench::readEveryInstruction(g); }, calls));
      }
  }
  std::string table =
      "\n--pipeline=ptxas -O3, phases only, on makeUnits kernels: ms (ns per instruction)\n";
  for (const auto &[units, row] : rows)
    table += fmt::format(
        "  {} units: {} instructions, {} blocks ({} instructions after): {:.1f} ms ({:.0f} ns)\n",
        units, row.instrs, row.blocks, row.after, row.best, row.best * 1e6 / double(row.instrs));
  {
    const Row &small = rows.begin()->second;
    const Row &mid = std::next(rows.begin())->second;
    const Row &big = rows.rbegin()->second;
    auto perInstr = [](const Row &r, double ms) { return ms * 1e6 / double(r.instrs); };
    table += fmt::format("  1M/10k {:.2f}x, 1M/100k {:.2f}x; floor (one read of every "
                         "instruction): {:.1f} / {:.1f} / "
                         "{:.1f} ns, 1M/10k {:.2f}x, 1M/100k {:.2f}x\n",
                         perInstr(big, big.best) / perInstr(small, small.best),
                         perInstr(big, big.best) / perInstr(mid, mid.best),
                         perInstr(small, small.readFloor), perInstr(mid, mid.readFloor),
                         perInstr(big, big.readFloor),
                         perInstr(big, big.readFloor) / perInstr(small, small.readFloor),
                         perInstr(big, big.readFloor) / perInstr(mid, mid.readFloor));
  }
  table += "  per phase, ns per instruction, best of the calls: wall (PhaseStats::seconds) | "
           "thread CPU\n  phase";
  table += fmt::format("{:>29}", "");
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto &[units, row] : rows)
      table += fmt::format(" {:>8}", row.instrs);
    table += fmt::format(" {:>7} |", "1M/10k");
  }
  table += "\n";
  const Row &lo = rows.begin()->second;
  const Row &hi = rows.rbegin()->second;
  for (const PipelineEntry *e : phases) {
    const PhaseInfo *info = findPhase(std::to_string(e->phase));
    table += fmt::format("  {:>3} {:<30}", e->phase, info ? info->name : "");
    for (const std::map<int, double> Row::*times : {&Row::phaseMs, &Row::phaseCpuMs}) {
      for (const auto &[units, row] : rows)
        table += fmt::format(" {:>8.1f}", (row.*times).at(e->phase) * 1e6 / double(row.instrs));
      const double a = (lo.*times).at(e->phase) / double(lo.instrs),
                   b = (hi.*times).at(e->phase) / double(hi.instrs);
      table += fmt::format(" {:>6.2f}x |", a > 0 ? b / a : 0.0);
    }
    table += "\n";
  }
  std::fputs(table.c_str(), stdout);
  for (const auto &[units, row] : rows)
    state.counters[fmt::format("ns_per_instr_{}", row.instrs)] =
        row.best * 1e6 / double(row.instrs);
  state.counters["ns_per_instr_1M_over_10k"] =
      (hi.best / double(hi.instrs)) / (lo.best / double(lo.instrs));
  state.counters["read_floor_1M_over_10k"] =
      (hi.readFloor / double(hi.instrs)) / (lo.readFloor / double(lo.instrs));
}
BENCHMARK(BM_PipelineLinearity)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
