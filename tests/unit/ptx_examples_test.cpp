// The CUDA examples (examples/*.cu) through nvcc at test time: the PTX nvcc
// makes parses, lowers, verifies, round-trips through .ori, emits PTX that
// ptxas accepts, and runs with the results worked out by hand below.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "interp/interp.h"
#include "ir/verify.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

fs::path sourceDir() {
  if (const char *env = std::getenv("ORIOPT_SOURCE_DIR"))
    return env;
  return ORIOPT_SOURCE_DIR;
}

bool haveTool(const char *tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// nvcc -arch=sm_90 -ptx; returns the PTX text.
std::string compile(const fs::path &cu) {
  // Named per process: ctest runs the tests of this file in parallel processes.
  fs::path out = fs::temp_directory_path() / ("oriopt_example_" + cu.stem().string() + "_" +
                                              std::to_string(::getpid()) + ".ptx");
  std::string cmd = "nvcc -arch=sm_90 -ptx '" + cu.string() + "' -o '" + out.string() + "' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return readFile(out);
}

ori::Module lowerExample(const std::string &name) {
  std::string ptx = compile(sourceDir() / "examples" / (name + ".cu"));
  ori::ParseResult r = ori::ptx::parseAndLower(ptx, name + ".ptx");
  if (r.error)
    ADD_FAILURE() << r.error->str();
  return r.module ? std::move(*r.module) : ori::Module{};
}

std::vector<uint8_t> u32s(std::initializer_list<uint32_t> values) {
  std::vector<uint8_t> out;
  for (uint32_t v : values)
    for (int b = 0; b < 4; ++b)
      out.push_back(uint8_t(v >> (8 * b)));
  return out;
}

std::vector<uint8_t> u64s(std::initializer_list<uint64_t> values) {
  std::vector<uint8_t> out;
  for (uint64_t v : values)
    for (int b = 0; b < 8; ++b)
      out.push_back(uint8_t(v >> (8 * b)));
  return out;
}

std::vector<uint8_t> f32s(std::initializer_list<float> values) {
  std::vector<uint8_t> out;
  for (float f : values) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    for (int b = 0; b < 4; ++b)
      out.push_back(uint8_t(v >> (8 * b)));
  }
  return out;
}

// The module as --emit=ptx prints it, read back: what a user gets after a round trip.
ori::Module reEmitted(const ori::Module &m) {
  ori::ptx::EmitResult emitted = ori::ptx::emit(m);
  if (emitted.error)
    ADD_FAILURE() << emitted.error->str();
  ori::ParseResult r = ori::ptx::parseAndLower(emitted.text, "emitted.ptx");
  if (r.error)
    ADD_FAILURE() << r.error->str();
  return r.module ? std::move(*r.module) : ori::Module{};
}

// Runs `m` and its re-emitted PTX on `cfg`; both must end ok with `buffer` equal to `expected`.
void expectRun(const ori::Module &m, const ori::RunConfig &cfg, const std::string &buffer,
               const std::vector<uint8_t> &expected) {
  for (const char *which : {"lowered", "re-emitted"}) {
    SCOPED_TRACE(which);
    ori::Module emitted;
    if (std::string(which) == "re-emitted")
      emitted = reEmitted(m);
    ori::RunResult r = ori::runKernel(emitted.functions.empty() ? m : emitted, cfg);
    ASSERT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok)) << ori::formatExit(r, which);
    EXPECT_EQ(r.buffers[buffer], expected);
  }
}

class CudaExamples : public testing::Test {
protected:
  void SetUp() override {
    if (!haveTool("nvcc"))
      GTEST_SKIP() << "nvcc not on PATH";
  }
};

TEST_F(CudaExamples, EveryExampleLowersVerifiesAndAssemblesAgain) {
  int count = 0;
  for (const auto &e : fs::directory_iterator(sourceDir() / "examples")) {
    if (e.path().extension() != ".cu")
      continue;
    ++count;
    SCOPED_TRACE(e.path().filename().string());
    ori::ParseResult r = ori::ptx::parseAndLower(compile(e.path()), e.path().filename().string());
    ASSERT_FALSE(r.error) << r.error->str();
    EXPECT_TRUE(ori::verifyModule(*r.module).empty());
    ori::ParseResult again = ori::parseOri(ori::printModule(*r.module), "printed.ori");
    ASSERT_FALSE(again.error) << again.error->str();
    EXPECT_TRUE(*again.module == *r.module);
    ori::ptx::EmitResult emitted = ori::ptx::emit(*r.module);
    ASSERT_FALSE(emitted.error) << emitted.error->str();
    if (!haveTool("ptxas"))
      continue;
    fs::path out = fs::temp_directory_path() /
                   ("oriopt_example_emitted_" + std::to_string(::getpid()) + ".ptx");
    std::ofstream(out) << emitted.text;
    std::string cmd = "ptxas -arch=sm_90 '" + out.string() + "' -o /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << emitted.text;
  }
  EXPECT_GE(count, 2);
}

// y[i] = a * x[i] + y[i] with a = 2: {1,2,3,4} and {10,20,30,40} give {12,24,36,48}.
TEST_F(CudaExamples, SaxpyRuns) {
  ori::Module m = lowerExample("saxpy");
  ori::RunConfig cfg;
  cfg.threads = 4;
  cfg.params["saxpy_param_0"] = 4;
  cfg.params["saxpy_param_1"] = 0x40000000; // 2.0f
  cfg.buffers["saxpy_param_2"] = f32s({1, 2, 3, 4});
  cfg.buffers["saxpy_param_3"] = f32s({10, 20, 30, 40});
  ori::RunResult r = ori::runKernel(m, cfg);
  ASSERT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok)) << ori::formatExit(r, "saxpy");
  EXPECT_EQ(r.buffers["saxpy_param_3"], f32s({12, 24, 36, 48}));
}

// Mode 1 buckets by (v >> 3) & 7: of 0..15, eight land in bucket 0 and eight
// in bucket 1. Mode 0 buckets by v & 7: two in each. One thread, so
// __syncthreads is a no-op.
TEST_F(CudaExamples, HistogramRuns) {
  ori::Module m = lowerExample("histogram");
  for (auto [mode, expected] : {std::pair{1u, u32s({8, 8, 0, 0, 0, 0, 0, 0})},
                                std::pair{0u, u32s({2, 2, 2, 2, 2, 2, 2, 2})}}) {
    ori::RunConfig cfg;
    cfg.params["histogram_param_1"] = 16;
    cfg.params["histogram_param_2"] = mode;
    cfg.buffers["histogram_param_0"] = u32s({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    cfg.buffers["histogram_param_3"] = std::vector<uint8_t>(32, 0);
    ori::RunResult r = ori::runKernel(m, cfg);
    ASSERT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok)) << ori::formatExit(r, "histogram");
    EXPECT_EQ(r.buffers["histogram_param_3"], expected) << "mode " << mode;
  }
}

// out = {5, 0, 0}, v = 3: with bit 0 or bit 20 of flags set, x = 5 + 3 = 8 goes to
// out[1] and out[2]; with neither (0x200 has bit 9 only), out[2] = 5 and out[1] stays 0.
TEST_F(CudaExamples, BitTestRuns) {
  ori::Module m = lowerExample("bit_test");
  for (auto [flags, expected] :
       {std::pair{0x1u, u32s({5, 8, 8})}, std::pair{0x100000u, u32s({5, 8, 8})},
        std::pair{0x200u, u32s({5, 0, 5})}, std::pair{0u, u32s({5, 0, 5})}}) {
    SCOPED_TRACE(flags);
    ori::RunConfig cfg;
    cfg.params["_Z12bit_test_addPiji_param_1"] = flags;
    cfg.params["_Z12bit_test_addPiji_param_2"] = 3;
    cfg.buffers["_Z12bit_test_addPiji_param_0"] = u32s({5, 0, 0});
    expectRun(m, cfg, "_Z12bit_test_addPiji_param_0", expected);
  }
}

// switch (v & 15) with cases 0..11 giving 10 + 11 * case, else -1. nvcc narrows the selector
// to 16 bits; the lowered kernel has no OPAQUE left. Inputs 0..15 and 0x1f3 (& 15 = 3, 43).
TEST_F(CudaExamples, Switch16Runs) {
  ori::Module m = lowerExample("switch16");
  for (const ori::Function &f : m.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        EXPECT_NE(in.op, ori::Opcode::OPAQUE) << ori::printInstr(f, in);
  ori::RunConfig cfg;
  cfg.threads = 17;
  cfg.params["_Z8switch16PKjPii_param_2"] = 17;
  cfg.buffers["_Z8switch16PKjPii_param_0"] =
      u32s({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x1f3});
  cfg.buffers["_Z8switch16PKjPii_param_1"] = std::vector<uint8_t>(17 * 4, 0);
  uint32_t m1 = 0xffffffffu;
  expectRun(m, cfg, "_Z8switch16PKjPii_param_1",
            u32s({10, 21, 32, 43, 54, 65, 76, 87, 98, 109, 120, 131, m1, m1, m1, m1, 43}));
}

// a / b and unsigned(a) % unsigned(b) on 32 bits, c / d and unsigned(c) % unsigned(d) on 64 bits,
// per thread. By hand (docs/ptx.md: x / 0 and x % 0 are all ones; INT_MIN / -1 wraps):
//   a, b          7, 2     -7, 2            INT_MIN, -1          100, 0        9, -2
//   a / b         3        -3               INT_MIN              -1            -4
//   a % b (u32)   1        0xfffffff9 % 2=1 0x80000000 % ~0 =    100 % 0 =     9 % 0xfffffffe = 9
//                                           0x80000000           0xffffffff
// nvcc divides 64-bit values whose high words are both zero with div.u32/rem.u32 and
// zero-extends the result, so 100 / 0 as 64 bits gives 0x00000000ffffffff; 2^40 / 0 takes
// div.s64 and gives all ones.
//   c, d          7, 2     -7, 2            INT64_MIN, -1        100, 0        2^40, 0
//   c / d         3        -3               INT64_MIN            0xffffffff    -1
//   c % d (u64)   1        1                0x8000000000000000   0xffffffff    ~0
TEST_F(CudaExamples, DivideRuns) {
  ori::Module m = lowerExample("divide");
  const std::string p = "_Z6dividePKiS0_PKxS2_PiPjPxPy_param_";
  const uint32_t intMin = 0x80000000u;
  const uint64_t int64Min = 0x8000000000000000ull, ones = ~uint64_t(0);
  ori::RunConfig cfg;
  cfg.threads = 5;
  cfg.buffers[p + "0"] = u32s({7, uint32_t(-7), intMin, 100, 9});
  cfg.buffers[p + "1"] = u32s({2, 2, 0xffffffffu, 0, uint32_t(-2)});
  cfg.buffers[p + "2"] = u64s({7, uint64_t(-7), int64Min, 100, uint64_t(1) << 40});
  cfg.buffers[p + "3"] = u64s({2, 2, ones, 0, 0});
  for (int k = 4; k < 8; ++k)
    cfg.buffers[p + std::to_string(k)] = std::vector<uint8_t>(k < 6 ? 20 : 40, 0);
  expectRun(m, cfg, p + "4", u32s({3, uint32_t(-3), intMin, 0xffffffffu, uint32_t(-4)}));
  expectRun(m, cfg, p + "5", u32s({1, 1, intMin, 0xffffffffu, 9}));
  expectRun(m, cfg, p + "6", u64s({3, uint64_t(-3), int64Min, 0xffffffffull, ones}));
  expectRun(m, cfg, p + "7", u64s({1, 1, int64Min, 0xffffffffull, ones}));
}

// half_math: c = a*a + a on a = {x, y} as binary16 lanes; sum = c.lo + c.hi in binary32.
//   t0: x=1, y=2: c = {2, 6}: 0x4000, 0x4600; sum 8 (0x41000000); 1/2 = 0.5; sqrt 1 = 1.
//   t1: x=3, y=0.5: c = {12 (0x4a00), 0.75 (0x3a00)}; sum 12.75 (0x414c0000); 3/0.5 = 6;
//       sqrt 3 = 0x3fddb3d7 (1.7320508 rounded to nearest, from the exact square comparison).
//   t2: x=2049 rounds to 2048 (a tie, even); 2048^2 overflows binary16 to +inf, + 2048 = inf
//       (0x7c00); y=-1: 1 + -1 = +0; sum inf; 2049/-1 = -2049 (0xc5001000); sqrt 2049 =
//       0x42351043 (45.26588...).
//   t3: x=0.1f rounds to binary16 0x2e66 (0.0999755859375, 614.4 -> 614 in the significand);
//       its square 0.0099951177... rounds to 0x211e (286.08 -> 286), + x = 0.10997009...
//       rounds to 0x2f0a (777.75 -> 778) = 1802/16384; y=3: 9 + 3 = 12 (0x4a00);
//       sum 12 + 1802/16384 = 198410/16384 (0x4141c280, exact: fraction 0.51374816... * 2^23);
//       0.1f/3 = 0x3d088889 and sqrt(0.1f) = 0x3ea1e89b (rounded to nearest from the exact quotient
//       and square root).
TEST_F(CudaExamples, HalfRuns) {
  ori::Module m = lowerExample("half");
  const std::string p = "_Z9half_mathPKfS0_PfPjS1_S1__param_";
  ori::RunConfig cfg;
  cfg.threads = 4;
  cfg.buffers[p + "0"] = u32s({0x3f800000, 0x40400000, 0x45001000, 0x3dcccccd}); // 1, 3, 2049, 0.1f
  cfg.buffers[p + "1"] = u32s({0x40000000, 0x3f000000, 0xbf800000, 0x40400000}); // 2, 0.5, -1, 3
  for (int k = 2; k < 6; ++k)
    cfg.buffers[p + std::to_string(k)] = std::vector<uint8_t>(16, 0);
  expectRun(m, cfg, p + "2", u32s({0x41000000, 0x414c0000, 0x7f800000, 0x4141c280}));
  expectRun(m, cfg, p + "3", u32s({0x46004000, 0x3a004a00, 0x00007c00, 0x4a002f0a}));
  expectRun(m, cfg, p + "4", u32s({0x3f000000, 0x40c00000, 0xc5001000, 0x3d088889}));
  expectRun(m, cfg, p + "5", u32s({0x3f800000, 0x3fddb3d7, 0x42351043, 0x3ea1e89b}));
}

} // namespace
