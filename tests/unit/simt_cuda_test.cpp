// CUDA samples compiled by nvcc at test time and run by the SIMT interpreter
// (docs/interpreter.md, "Warps"): a block reduction with warp shuffles and
// __syncthreads, warp votes, matches and reductions, and two prefix scans. The
// expected results come from plain C++ models of the algorithms below (what
// CUDA defines the kernels to compute), not from the interpreter.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "tests/unit/words.h"

namespace ori {
namespace {

namespace fs = std::filesystem;

const char *const kSamples = R"(
extern "C" __global__ void blockReduce(const int* in, int* out, int n) {
  __shared__ int partial[32];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((tid & 31) == 0) partial[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < (blockDim.x >> 5) ? partial[tid] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

extern "C" __global__ void votes(const int* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[t];
  out[6 * t + 0] = __ballot_sync(0xffffffffu, x > 0);
  out[6 * t + 1] = __all_sync(0xffffffffu, x > -1000);
  out[6 * t + 2] = __any_sync(0xffffffffu, x > 900);
  out[6 * t + 3] = __match_any_sync(0xffffffffu, x & 3);
  out[6 * t + 4] = __reduce_add_sync(0xffffffffu, (unsigned)x);
  out[6 * t + 5] = __reduce_max_sync(0xffffffffu, x);
}

extern "C" __global__ void warpScan(const int* in, int* out, int n) {
  __shared__ int sums[32];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid, lane = tid & 31, w = tid >> 5;
  int v = i < n ? in[i] : 0;
  for (int o = 1; o < 32; o <<= 1) {
    int y = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += y;
  }
  if (lane == 31) sums[w] = v;
  __syncthreads();
  if (w == 0) {
    int s = lane < (int)(blockDim.x >> 5) ? sums[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      int y = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += y;
    }
    sums[lane] = s;
  }
  __syncthreads();
  if (w > 0) v += sums[w - 1];
  if (i < n) out[i] = v;
}

extern "C" __global__ void sharedScan(const int* in, int* out) {
  __shared__ int t[256];
  int tid = threadIdx.x, base = blockIdx.x * 256;
  t[tid] = in[base + tid];
  __syncthreads();
  for (int o = 1; o < 256; o <<= 1) {
    int x = tid >= o ? t[tid - o] : 0;
    __syncthreads();
    t[tid] += x;
    __syncthreads();
  }
  out[base + tid] = t[tid];
}
)";

std::string findNvcc() {
  if (fs::exists("/usr/local/cuda/bin/nvcc"))
    return "/usr/local/cuda/bin/nvcc";
  return std::system("command -v nvcc > /dev/null 2>&1") == 0 ? "nvcc" : "";
}

// Deterministic inputs in [-1000, 1000).
std::vector<int32_t> inputs(size_t n, uint32_t seed) { return lcgInputs(n, seed, 2000); }

class SimtCuda : public testing::TestWithParam<std::string> {
protected:
  static Module compile(const std::string &options) {
    const std::string nvcc = findNvcc();
    const fs::path dir = fs::temp_directory_path() /
                         ("oriopt-simt-" + std::to_string(std::hash<std::string>{}(options)));
    fs::create_directories(dir);
    std::ofstream(dir / "s.cu") << kSamples;
    const std::string cmd = nvcc + " -arch=sm_90 " + options + " -ptx '" + (dir / "s.cu").string() +
                            "' -o '" + (dir / "s.ptx").string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream f(dir / "s.ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    fs::remove_all(dir);
    ParseResult r = ptx::parseAndLower(ss.str(), "s.ptx");
    EXPECT_TRUE(r.module.has_value()) << (r.error ? r.error->str() : "");
    return r.module ? std::move(*r.module) : Module{};
  }
  void SetUp() override {
    if (findNvcc().empty())
      GTEST_SKIP() << "nvcc not found";
  }
};

std::string describe(const RunResult &r) { return formatExit(r, "s.ptx") + " (" + r.message + ")"; }

TEST_P(SimtCuda, BlockReductionWithShufflesAndSyncthreads) {
  Module m = compile(GetParam());
  // 3 CTAs of 256 threads over n = 700 inputs: the last CTA is partly beyond n (zeros).
  const std::vector<int32_t> in = inputs(768, 1);
  const int n = 700;
  RunConfig cfg;
  cfg.entry = "blockReduce";
  cfg.threads = 256;
  cfg.ctas = 3;
  cfg.buffers["blockReduce_param_0"] = bytesOf(in);
  cfg.buffers["blockReduce_param_1"] = std::vector<uint8_t>(12);
  cfg.params["blockReduce_param_2"] = n;
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << describe(r);
  for (int b = 0; b < 3; ++b) {
    int32_t sum = 0;
    for (int i = 256 * b; i < 256 * (b + 1) && i < n; ++i)
      sum += in[size_t(i)];
    EXPECT_EQ(wordAt(r.buffers["blockReduce_param_1"], size_t(b)), sum) << "block " << b;
  }
}

TEST_P(SimtCuda, WarpVotesMatchesAndReductions) {
  Module m = compile(GetParam());
  const std::vector<int32_t> in = inputs(64, 2);
  RunConfig cfg;
  cfg.entry = "votes";
  cfg.threads = 64;
  cfg.buffers["votes_param_0"] = bytesOf(in);
  cfg.buffers["votes_param_1"] = std::vector<uint8_t>(64 * 6 * 4);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << describe(r);
  const std::vector<uint8_t> &out = r.buffers["votes_param_1"];
  for (int w = 0; w < 2; ++w) {
    uint32_t ballot = 0, sum = 0;
    bool all = true, any = false;
    int32_t max = INT32_MIN;
    for (int l = 0; l < 32; ++l) {
      int32_t x = in[size_t(32 * w + l)];
      if (x > 0)
        ballot |= 1u << l;
      all = all && x > -1000;
      any = any || x > 900;
      sum += uint32_t(x);
      max = std::max(max, x);
    }
    for (int l = 0; l < 32; ++l) {
      const size_t t = size_t(32 * w + l);
      uint32_t peers = 0;
      for (int j = 0; j < 32; ++j)
        if ((in[size_t(32 * w + j)] & 3) == (in[t] & 3))
          peers |= 1u << j;
      EXPECT_EQ(uint32_t(wordAt(out, 6 * t + 0)), ballot) << t;
      EXPECT_EQ(wordAt(out, 6 * t + 1), all ? 1 : 0) << t;
      EXPECT_EQ(wordAt(out, 6 * t + 2), any ? 1 : 0) << t;
      EXPECT_EQ(uint32_t(wordAt(out, 6 * t + 3)), peers) << t;
      EXPECT_EQ(uint32_t(wordAt(out, 6 * t + 4)), sum) << t;
      EXPECT_EQ(wordAt(out, 6 * t + 5), max) << t;
    }
  }
}

TEST_P(SimtCuda, PrefixScans) {
  Module m = compile(GetParam());
  // Inclusive scans per block of 256: with shuffles (n = 600 of 3 x 256, the rest unwritten)
  // and the shared-memory Hillis-Steele form (2 blocks).
  const std::vector<int32_t> in = inputs(768, 3);
  const int n = 600;
  RunConfig cfg;
  cfg.entry = "warpScan";
  cfg.threads = 256;
  cfg.ctas = 3;
  cfg.buffers["warpScan_param_0"] = bytesOf(in);
  cfg.buffers["warpScan_param_1"] = std::vector<uint8_t>(768 * 4);
  cfg.params["warpScan_param_2"] = n;
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, RunResult::Kind::Ok) << describe(r);
  int32_t running = 0;
  for (int i = 0; i < 768; ++i) {
    if (i % 256 == 0)
      running = 0;
    running += i < n ? in[size_t(i)] : 0;
    EXPECT_EQ(wordAt(r.buffers["warpScan_param_1"], size_t(i)), i < n ? running : 0) << i;
  }

  RunConfig shared;
  shared.entry = "sharedScan";
  shared.threads = 256;
  shared.ctas = 2;
  shared.buffers["sharedScan_param_0"] = bytesOf(in);
  shared.buffers["sharedScan_param_1"] = std::vector<uint8_t>(512 * 4);
  RunResult s = runKernel(m, shared);
  ASSERT_EQ(s.kind, RunResult::Kind::Ok) << describe(s);
  running = 0;
  for (int i = 0; i < 512; ++i) {
    if (i % 256 == 0)
      running = 0;
    running += in[size_t(i)];
    EXPECT_EQ(wordAt(s.buffers["sharedScan_param_1"], size_t(i)), running) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Options, SimtCuda, testing::Values("-O3", "-Xcicc -O0"),
                         [](const testing::TestParamInfo<std::string> &i) {
                           return i.index == 0 ? "O3" : "O0";
                         });

} // namespace
} // namespace ori
