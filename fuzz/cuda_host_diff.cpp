// The cuda-host-diff campaign (fuzz/cuda_host_diff.h): batches of generated
// kernels, one nvcc call per build and one g++ call per batch, every kernel
// run in the interpreter through the PTX lowering and compared byte for byte
// with the host's output; a difference is reduced (fuzz/cuda_reduce.cpp) and
// written out with its PTX, launch and a replay command.
#include "fuzz/cuda_host_diff.h"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "fuzz/cuda_diff_impl.h"
#include "fuzz/cuda_render.h"
#include "fuzz/orifuzz_report.h"

namespace ori::cudagen {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string buildFlags(const std::string &build) {
  if (build == "O3")
    return "-O3";
  if (build == "O0")
    return "-Xcicc -O0";
  if (build == "G")
    return "-G";
  return "";
}

namespace {

std::string kindName(Verdict::Kind k) {
  switch (k) {
  case Verdict::Kind::Pass:
    return "pass";
  case Verdict::Kind::Unsupported:
    return "unsupported";
  case Verdict::Kind::Differ:
    return "differ";
  case Verdict::Kind::Failed:
    return "failed";
  }
  return "";
}

// The PTX of one entry (from `.visible .entry NAME(` to its closing brace).
std::string entryText(const std::string &ptx, const std::string &name) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return "";
  size_t begin = ptx.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  size_t end = ptx.find("\n}", at);
  return ptx.substr(begin, end == std::string::npos ? std::string::npos : end + 3 - begin);
}

void writeFile(const fs::path &p, const std::string &text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::string replayCommand(const DiffOptions &o, const Kernel &k, const std::string &build) {
  std::string avoid = avoidList(o.gen);
  return fmt::format("orifuzz --check cuda-host-diff --seed {} --replay {} --builds {}{}", o.seed,
                     k.index, build, avoid.empty() ? "" : " --avoid " + avoid);
}

// Prints and saves a difference: the reduced kernel, its PTX and the bytes.
void report(const DiffOptions &o, const Tools &tools, const Kernel &original,
            const std::string &build, const Verdict &v, Stats &stats) {
  std::cerr << fmt::format("\norifuzz: cuda-host-diff: kernel {} (seed {}), build {}: {}: {}\n",
                           original.index, o.seed, build, kindName(v.kind), v.detail);
  Kernel k = original;
  Verdict final = v;
  std::string ptx;
  if (o.reduce) {
    Reduced r = reduceKernel(o, tools, original, build, v, stats);
    k = std::move(r.kernel);
    final = r.verdict;
    ptx = r.ptx;
    std::cerr << fmt::format(
        "orifuzz: reduced from {} to {} statements in {} rounds ({} compiled variants)\n",
        original.statements(), k.statements(), r.rounds, r.variants);
  }
  if (ptx.empty()) {
    BatchResult b = runBatch({&k}, {build}, o, tools, stats);
    ptx = b.ptx[build];
    if (!b.verdicts[build].empty())
      final = b.verdicts[build][0];
  }
  fs::create_directories(o.outDir);
  std::string stem = fmt::format("orifuzz-cuda-host-diff-{}-{}-{}", o.seed, k.index, build);
  fs::path dir(o.outDir);
  writeFile(dir / (stem + ".cu"), deviceFile({&k}));
  writeFile(dir / (stem + ".host.cpp"), hostFile({&k}));
  writeFile(dir / (stem + ".ptx"), ptx);
  writeFile(dir / (stem + ".in"), std::string(k.input.begin(), k.input.end()));
  std::string launch = fmt::format("oriopt --run --entry {0} --threads {1} --ctas {2} --buffer "
                                   "{0}_param_0=@{3}.in --buffer {0}_param_1={4} "
                                   "--dump-buffer {0}_param_1 {3}.ptx",
                                   k.name, formatLaunch(k), k.ctas, stem, k.outputBytes());
  std::string text = fmt::format("cuda-host-diff: seed {} kernel {} build {} (nvcc -arch=sm_90 "
                                 "-ptx -fmad=false {})\n{}: {}\n\n"
                                 "launch: {} threads x {} CTAs; parameter 0 = {}.in ({} bytes), "
                                 "parameter 1 = output ({} bytes: {} slots of 8 "
                                 "bytes per thread)\nreplay: {}\nrun the PTX: {}\n\n{}\n// the "
                                 "kernel (the whole file, with the prelude, is {}.cu):\n{}\n"
                                 "// its PTX:\n{}\n",
                                 o.seed, k.index, build, buildFlags(build), kindName(final.kind),
                                 final.detail, formatLaunch(k), k.ctas, stem, kInputBytes,
                                 k.outputBytes(), k.slots(), replayCommand(o, k, build), launch,
                                 final.report, stem, renderDeviceKernel(k), entryText(ptx, k.name));
  writeFile(dir / (stem + ".txt"), text);
  std::cout << text << std::flush;
  std::cerr << fmt::format("orifuzz: reproducer written to {}\n", (dir / (stem + ".txt")).string());
}

} // namespace

int runCudaHostDiff(const DiffOptions &o) {
  std::optional<Tools> tools = findTools(o);
  if (!tools)
    return 77;
  for (const std::string &b : o.builds)
    if (buildFlags(b).empty()) {
      std::cerr << fmt::format("orifuzz: error: --builds: unknown build '{}' (O3, O0, G)\n", b);
      return 1;
    }
  std::vector<uint64_t> indices;
  if (o.replay >= 0)
    indices.push_back(uint64_t(o.replay));
  else
    for (uint64_t i = fuzzreport::firstRunAtOrAfter(o.from, o.shardIndex, o.shards); i < o.runs;
         i += o.shards)
      indices.push_back(i);
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  Stats stats;
  std::map<std::string, std::map<std::string, uint64_t>> counts; // build -> kind -> kernels
  std::map<std::string, uint64_t> unsupported;                   // mnemonic -> kernel runs
  uint64_t failures = 0, done = 0;
  bool stop = false;
  // The counts so far (after each batch, so that a campaign stopped early still says them).
  auto summary = [&](bool final) {
    for (const auto &[b, m] : counts) {
      std::string line;
      for (const auto &[kind, n] : m)
        line += fmt::format(" {} {}", kind, n);
      std::cerr << fmt::format("orifuzz:   {}build {}:{}\n", final ? "" : "so far: ", b, line);
    }
    for (const auto &[mn, n] : unsupported)
      std::cerr << fmt::format("orifuzz:   {}skipped as unsupported: {} x {}\n",
                               final ? "" : "so far: ", n, mn);
    if (!final)
      return;
    std::cerr << fmt::format("orifuzz:   time: generate+host {:.1f} s, nvcc {:.1f} s, lower {:.1f} "
                             "s, interpreter {:.1f} "
                             "s, reduce {:.1f} s\n",
                             stats.host, stats.nvcc, stats.lower, stats.interp, stats.reduce);
  };
  for (size_t first = 0; first < indices.size() && !stop; first += o.batch) {
    std::vector<Kernel> ks;
    for (size_t i = first; i < std::min(indices.size(), first + o.batch); ++i)
      ks.push_back(generateKernel(o.seed, indices[i], o.gen));
    std::vector<const Kernel *> ptrs;
    for (const Kernel &k : ks)
      ptrs.push_back(&k);
    BatchResult r = runBatch(ptrs, o.builds, o, *tools, stats);
    if (!r.error.empty()) {
      std::cerr << fmt::format("orifuzz: cuda-host-diff: error: {}\n", r.error);
      return 1;
    }
    done += ks.size();
    for (const std::string &b : o.builds) {
      for (size_t i = 0; i < ks.size(); ++i) {
        const Verdict &v = r.verdicts[b][i];
        ++counts[b][kindName(v.kind)];
        if (v.kind == Verdict::Kind::Unsupported)
          ++unsupported[v.detail];
        if (v.kind == Verdict::Kind::Differ || v.kind == Verdict::Kind::Failed) {
          ++failures;
          report(o, *tools, ks[i], b, v, stats);
          if (!o.keepGoing) {
            stop = true;
            break;
          }
        }
      }
      if (stop)
        break;
    }
    std::cerr << fmt::format(
        "orifuzz: cuda-host-diff shard {}/{}: {}/{} kernels, {} failures, {:.0f} s\n", o.shardIndex,
        o.shards, done, indices.size(), failures, seconds());
    summary(false);
  }
  std::cerr << fmt::format(
      "orifuzz: {} cuda-host-diff: {} kernels (seed {}, shard {}/{}), {} failures, {:.1f} s\n",
      failures ? "FAILED" : "passed", done, o.seed, o.shardIndex, o.shards, failures, seconds());
  summary(true);
  return failures ? 1 : 0;
}

} // namespace ori::cudagen
