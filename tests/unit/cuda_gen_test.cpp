// The CUDA kernel generator of cuda-host-diff (fuzz/cuda_gen.h, docs/cuda-host-diff.md): the
// same (seed, index) gives the same kernel, and the guarantees the host model relies on hold.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/cuda_gen.h"
#include "fuzz/cuda_render.h"

namespace {

using namespace ori::cudagen;

size_t occurrences(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// No barrier or warp operation below a statement whose threads may disagree.
bool syncOnlyWhereUniform(const std::vector<Stmt> &v, bool uniform) {
  for (const Stmt &s : v) {
    bool sync = s.kind == Stmt::Kind::Barrier || s.kind == Stmt::Kind::Warp;
    if (sync && !uniform)
      return false;
    bool inner = uniform && (s.kind == Stmt::Kind::UFor || s.kind == Stmt::Kind::UIf);
    if (!syncOnlyWhereUniform(s.body, inner) || !syncOnlyWhereUniform(s.els, inner))
      return false;
    for (const Stmt::Case &c : s.cases)
      if (!syncOnlyWhereUniform(c.body, false))
        return false;
  }
  return true;
}

TEST(CudaGen, SameSeedAndIndexGiveTheSameKernel) {
  for (uint64_t i = 0; i < 20; ++i) {
    Kernel a = generateKernel(5, i), b = generateKernel(5, i);
    EXPECT_EQ(renderDeviceKernel(a), renderDeviceKernel(b));
    EXPECT_EQ(renderHostKernel(a), renderHostKernel(b));
    EXPECT_EQ(a.input, b.input);
  }
  EXPECT_NE(renderDeviceKernel(generateKernel(5, 1)), renderDeviceKernel(generateKernel(5, 2)));
  EXPECT_NE(renderDeviceKernel(generateKernel(5, 1)), renderDeviceKernel(generateKernel(6, 1)));
}

TEST(CudaGen, LaunchesAndStatementsKeepTheHostModelsAssumptions) {
  size_t warpOps = 0, barriers = 0, uniformLoops = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    Kernel k = generateKernel(1, i);
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.threads % 32, 0u); // whole warps only
    EXPECT_LE(k.threads, kMaxThreads);
    EXPECT_GE(k.ctas, 1u);
    EXPECT_EQ(k.input.size(), kInputBytes);
    EXPECT_TRUE(syncOnlyWhereUniform(k.body, true));
    std::string dev = renderDeviceKernel(k);
    // The epilogue stores every slot once.
    EXPECT_EQ(occurrences(dev, "st_out("), k.slots());
    EXPECT_EQ(k.slotTypes().size(), k.slotNames().size());
    warpOps += occurrences(dev, "_sync(FULL");
    barriers += occurrences(dev, "__syncthreads");
    uniformLoops += occurrences(dev, "for (int u");
  }
  // The generator does make them (so the checks above are not vacuous).
  EXPECT_GT(warpOps, 100u);
  EXPECT_GT(barriers, 100u);
  EXPECT_GT(uniformLoops, 10u);
}

TEST(CudaGen, AvoidLeavesTheFeaturesOut) {
  GenOptions o;
  ASSERT_TRUE(parseAvoid("half,sad,mulhi64,atomics", o));
  EXPECT_EQ(avoidList(o), "half,sad,mulhi64,atomics");
  EXPECT_FALSE(parseAvoid("half,bogus", o));
  GenOptions all;
  ASSERT_TRUE(parseAvoid("half,sad,mulhi64,atomics", all));
  size_t halves = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    std::string avoided = renderDeviceKernel(generateKernel(3, i, all));
    EXPECT_EQ(avoided.find("__half"), std::string::npos);
    EXPECT_EQ(avoided.find("__sad("), std::string::npos);
    EXPECT_EQ(avoided.find("__usad("), std::string::npos);
    EXPECT_EQ(avoided.find("64hi("), std::string::npos);
    EXPECT_EQ(avoided.find("atomic"), std::string::npos);
    halves += occurrences(renderDeviceKernel(generateKernel(3, i)), "__half ");
  }
  EXPECT_GT(halves, 10u); // and without --avoid they are there
}

TEST(CudaGen, BatchFilesHoldEveryKernelAndTheHostMain) {
  Kernel a = generateKernel(2, 0), b = generateKernel(2, 1);
  std::string dev = deviceFile({&a, &b}), host = hostFile({&a, &b});
  EXPECT_NE(dev.find("extern \"C\" __global__ void __launch_bounds__(128) k0("), std::string::npos);
  EXPECT_NE(dev.find("k1(const uint8_t*"), std::string::npos);
  EXPECT_NE(host.find("k0_host(in.data(), out.data())"), std::string::npos);
  EXPECT_NE(host.find("k1_host(in.data(), out.data())"), std::string::npos);
  EXPECT_EQ(host.find("__global__"), std::string::npos);
  EXPECT_EQ(host.find("$"), std::string::npos); // every variable placeholder was printed
  EXPECT_EQ(dev.find("$"), std::string::npos);
}

} // namespace
