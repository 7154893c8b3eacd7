// The interpreter on PTX that nvcc compiles at test time (once per option set), and on every
// kernel of the real PTX corpus (ptx parseAndLower, then runKernel). Every expected value is
// derived by hand from the CUDA source in the comment beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "interp_ptx_helpers.h"

namespace ori {
namespace {

using namespace ori::test;

std::string findNvcc() {
  for (const char *dir : {"/usr/local/cuda/bin"})
    if (fs::exists(fs::path(dir) / "nvcc"))
      return (fs::path(dir) / "nvcc").string();
  return std::system("command -v nvcc > /dev/null 2>&1") == 0 ? "nvcc" : "";
}

// CUDA compiled by nvcc at test time, once per option set.
const char *const kCudaSource = R"(
struct S { int a, b, c; };
__device__ __noinline__ S mk(int x) { S s; s.a = x; s.b = x * 2; s.c = x * 3; return s; }
__device__ __noinline__ int sum(S s) { return s.a + s.b + s.c; }
__device__ __noinline__ int rec(int n, int k) {
  int a[4];
  for (int i = 0; i < 4; ++i) a[i] = n * 10 + i;
  int r = n > 0 ? rec(n - 1, k) : 0;
  return r + a[k & 3];
}
__device__ __noinline__ void fill(int *p, int n) { for (int i = 0; i < n; ++i) p[i] = i * 10; }
__device__ int gcount = 5;
__device__ int garr[4] = {1, 2, 3, 4};
extern "C" __global__ void calls(int *out, int x) {
  out[0] = sum(mk(x));
  out[1] = rec(x, x + 1);
  int arr[5];
  fill(arr, 5);
  out[2] = arr[x & 3] + arr[4];
  __shared__ int sh[8];
  fill(sh, 8);
  out[3] = sh[7];
  gcount += x;
  out[4] = gcount;
  garr[x & 3] = 7;
  out[5] = garr[0] + garr[1] + garr[2] + garr[3];
}
extern "C" __global__ void narrow(const signed char *a, const short *b, const long long *w,
                                  unsigned char *c, int *out, long long *wout) {
  out[0] = a[0];
  out[1] = b[1];
  out[2] = (unsigned char)a[1];
  c[0] = (unsigned char)b[0];
  c[2] = (unsigned char)(b[0] >> 8);
  ((unsigned short *)c)[2] = (unsigned short)b[1];
  wout[0] = w[0] + 1;
  wout[1] = w[1] >> 4;
}
)";

class InterpNvcc : public testing::TestWithParam<std::string> {};

TEST_P(InterpNvcc, KernelsRunAsCompiled) {
  const std::string nvcc = findNvcc();
  if (nvcc.empty())
    GTEST_SKIP() << "nvcc not found";
  const std::string tag = std::to_string(std::hash<std::string>{}(GetParam()));
  const fs::path src = tempPath(tag, ".cu"), out = tempPath(tag, ".ptx");
  std::ofstream(src) << kCudaSource;
  const std::string cmd = nvcc + " -arch=sm_90 " + GetParam() + " -ptx '" + src.string() +
                          "' -o '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string text = readFile(out);
  fs::remove(src);
  fs::remove(out);
  Module m = lower(text, "nvcc.ptx");

  RunConfig cfg;
  cfg.entry = "calls";
  cfg.params["calls_param_1"] = 4;
  cfg.buffers["calls_param_0"] = std::vector<uint8_t>(24);
  RunResult r = runKernel(m, cfg);
  ASSERT_EQ(r.kind, Kind::Ok) << describe(r);
  const auto &o = r.buffers["calls_param_0"];
  EXPECT_EQ(le(o, 0, 4), 24u);  // 4 + 8 + 12
  EXPECT_EQ(le(o, 4, 4), 105u); // rec(4, 5): sum of n*10 + 1 for n = 0..4
  EXPECT_EQ(le(o, 8, 4), 40u);  // arr[0] + arr[4] = 0 + 40
  EXPECT_EQ(le(o, 12, 4), 70u); // sh[7]
  EXPECT_EQ(le(o, 16, 4), 9u);  // gcount = 5 + 4
  EXPECT_EQ(le(o, 20, 4), 16u); // garr = {7, 2, 3, 4}
  EXPECT_EQ(le(r.variables["gcount"], 0, 4), 9u);

  RunConfig n;
  n.entry = "narrow";
  n.buffers["narrow_param_0"] = {0x80, 0x7f};
  n.buffers["narrow_param_1"] = {0x01, 0x80, 0x02, 0x80};
  n.buffers["narrow_param_2"] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
  n.buffers["narrow_param_3"] = std::vector<uint8_t>(8);
  n.buffers["narrow_param_4"] = std::vector<uint8_t>(12);
  n.buffers["narrow_param_5"] = std::vector<uint8_t>(16);
  RunResult w = runKernel(m, n);
  ASSERT_EQ(w.kind, Kind::Ok) << describe(w);
  EXPECT_EQ(w.buffers["narrow_param_3"],
            (std::vector<uint8_t>{0x01, 0, 0x80, 0, 0x02, 0x80, 0, 0}));
  EXPECT_EQ(le(w.buffers["narrow_param_4"], 0, 4), 0xffffff80u); // -128
  EXPECT_EQ(le(w.buffers["narrow_param_4"], 4, 4), 0xffff8002u); // -32766
  EXPECT_EQ(le(w.buffers["narrow_param_4"], 8, 4), 0x7fu);
  EXPECT_EQ(le(w.buffers["narrow_param_5"], 0, 8), 0u);                  // -1 + 1
  EXPECT_EQ(le(w.buffers["narrow_param_5"], 8, 8), 0xf800000000000000u); // arithmetic >> 4
}

INSTANTIATE_TEST_SUITE_P(Options, InterpNvcc, testing::Values("", "-Xcicc -O0", "-G"),
                         [](const testing::TestParamInfo<std::string> &i) {
                           return i.param.empty()   ? std::string("O3")
                                  : i.param == "-G" ? std::string("G")
                                                    : std::string("O0");
                         });

// ---------------------------------------------------------------- the corpus

// Every kernel of the real PTX corpus runs to some end (any kind but a
// configuration error) without crashing, twice with identical results:
// pointer-sized parameters get a 4 KiB buffer, the others 1; one thread (so
// bar.sync is a no-op) and a small step budget keep it quick. (At the time of
// writing 178 of the 241 kernels end ok; most others stop at an OPAQUE.)
TEST(InterpPtx, CorpusKernelsRunDeterministically) {
  std::string dir = ORIOPT_CORPUS_DIR;
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    dir = env;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(dir) / "ptx", ec))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  if (files.empty())
    GTEST_SKIP() << "no corpus at " << dir;
  std::sort(files.begin(), files.end());
  size_t kernels = 0, ok = 0;
  for (const fs::path &f : files) {
    ParseResult p = ptx::parseAndLower(readFile(f), f.filename().string());
    if (!p.module)
      continue; // the lowering's own tests cover errors
    for (const Function &fn : p.module->functions) {
      if (!fn.isEntry)
        continue;
      RunConfig cfg;
      cfg.entry = fn.name;
      cfg.maxSteps = 20000;
      for (const Param &prm : fn.params) {
        if (prm.size == 8)
          cfg.buffers[prm.name] = std::vector<uint8_t>(4096);
        else
          cfg.params[prm.name] = 1;
      }
      RunResult a = runKernel(*p.module, cfg), b = runKernel(*p.module, cfg);
      ++kernels;
      ok += a.kind == Kind::Ok;
      EXPECT_EQ(formatExit(a, "x"), formatExit(b, "x")) << f << " " << fn.name;
      EXPECT_EQ(a.message, b.message) << f << " " << fn.name;
      EXPECT_EQ(a.buffers, b.buffers) << f << " " << fn.name;
      EXPECT_EQ(a.variables, b.variables) << f << " " << fn.name;
      EXPECT_NE(a.kind, Kind::Error) << f << " " << fn.name << ": " << a.message;
    }
  }
  EXPECT_GT(kernels, 0u);
  RecordProperty("kernels", int(kernels));
  RecordProperty("ok", int(ok));
}

} // namespace
} // namespace ori
