// PTX to Ori (parse + lower) throughput on the largest corpus module, in
// bytes of PTX per second; compare with BM_PtxParse (parse only) in the same run.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

std::string largestPtx() {
  const char *env = std::getenv("ORIOPT_CORPUS_DIR");
  fs::path dir = fs::path(env && *env ? env : ORIOPT_CORPUS_DIR) / "ptx";
  fs::path best;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".ptx" && (best.empty() || e.file_size() > fs::file_size(best)))
      best = e.path();
  std::ifstream in(best, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_PtxParseAndLower(benchmark::State &state) {
  static const std::string text = largestPtx();
  for (auto _ : state) {
    ori::ParseResult r = ori::ptx::parseAndLower(text, "bench.ptx");
    if (r.error)
      state.SkipWithError(r.error->str().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}
BENCHMARK(BM_PtxParseAndLower)->Unit(benchmark::kMillisecond);

} // namespace
