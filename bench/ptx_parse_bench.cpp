// PTX parser throughput on the largest module of the shared corpus
// (gpuocelot_thrust_histogram.ptx, 1 MB), in bytes per second, beside a memcpy
// of the same bytes (the ceiling) and the lexer alone (tokens without a tree).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/ast.h"
#include "ptx/lexer.h"

namespace {

namespace fs = std::filesystem;

// The largest .ptx file of the corpus (ORIOPT_CORPUS_DIR env var or compile definition).
const std::string &largestCorpusPtx() {
  static const std::string text = [] {
    const char *env = std::getenv("ORIOPT_CORPUS_DIR");
    const fs::path dir = fs::path(env && *env ? env : ORIOPT_CORPUS_DIR) / "ptx";
    fs::path best;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".ptx" && (best.empty() || e.file_size() > fs::file_size(best)))
        best = e.path();
    std::ifstream in(best, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

void setBytes(benchmark::State &state, const std::string &text) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

// The parse alone (the tree is freed with the clock stopped), then parse and free.
void BM_PtxParse(benchmark::State &state) {
  const std::string &text = largestCorpusPtx();
  if (text.empty())
    return state.SkipWithError("no corpus .ptx file found");
  for (auto _ : state) {
    ori::ptx::ParseResult r = ori::ptx::parse(text, "bench.ptx");
    if (!r.module)
      return state.SkipWithError(r.error->str().c_str());
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    r = {};
    state.ResumeTiming();
  }
  setBytes(state, text);
}
BENCHMARK(BM_PtxParse)->Unit(benchmark::kMillisecond);

void BM_PtxParseAndFree(benchmark::State &state) {
  const std::string &text = largestCorpusPtx();
  if (text.empty())
    return state.SkipWithError("no corpus .ptx file found");
  for (auto _ : state) {
    ori::ptx::ParseResult r = ori::ptx::parse(text, "bench.ptx");
    if (!r.module)
      return state.SkipWithError(r.error->str().c_str());
    benchmark::DoNotOptimize(r);
  }
  setBytes(state, text);
}
BENCHMARK(BM_PtxParseAndFree)->Unit(benchmark::kMillisecond);

void BM_PtxLexOnly(benchmark::State &state) {
  const std::string &text = largestCorpusPtx();
  if (text.empty())
    return state.SkipWithError("no corpus .ptx file found");
  size_t tokens = 0;
  for (auto _ : state) {
    ori::ptx::Lexer lx(text, "bench.ptx");
    while (lx.next().kind != ori::ptx::Tok::End)
      ++tokens;
    benchmark::DoNotOptimize(tokens);
  }
  setBytes(state, text);
}
BENCHMARK(BM_PtxLexOnly)->Unit(benchmark::kMillisecond);

void BM_PtxMemcpyReference(benchmark::State &state) {
  const std::string &text = largestCorpusPtx();
  std::vector<char> dst(text.size() + 1);
  for (auto _ : state) {
    std::memcpy(dst.data(), text.data(), text.size());
    benchmark::ClobberMemory();
  }
  setBytes(state, text);
}
BENCHMARK(BM_PtxMemcpyReference)->Unit(benchmark::kMillisecond);

} // namespace
