// Phase 38 on real compiler output: tests/ptx-inputs/nested_cond.cu compiled at test time by
// nvcc -Xcicc -O0 (NVVM unoptimized) and by clang -O1 (LLVM's NVPTX backend). Both halves
// agree; the combinations made are the ones the PTX's shape allows (read from the PTX: see
// each expectation); and the SIMT interpreter gives, before and after, what a plain C++
// model of each kernel computes, with lanes of a warp that disagree, while executing no more
// branches.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "ptx/ptx.h"
#include "reference/reference.h"
#include "tests/unit/words.h"

namespace ori {
namespace {

namespace fs = std::filesystem;

fs::path sourceFile() { return fs::path(ORIOPT_SOURCE_DIR) / "tests/ptx-inputs/nested_cond.cu"; }

bool have(const std::string &tool) {
  return std::system(("command -v " + tool + " > /dev/null 2>&1").c_str()) == 0;
}

Module compile(const std::string &cmdPrefix, const std::string &tag) {
  const fs::path dir = fs::temp_directory_path() / ("oriopt-nested-" + tag);
  fs::create_directories(dir);
  const std::string cmd = cmdPrefix + " '" + sourceFile().string() + "' -o '" +
                          (dir / "k.ptx").string() + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(dir / "k.ptx");
  std::stringstream ss;
  ss << f.rdbuf();
  fs::remove_all(dir);
  ParseResult r = ptx::parseAndLower(ss.str(), "k.ptx");
  EXPECT_TRUE(r.module.has_value()) << (r.error ? r.error->str() : "");
  return r.module ? std::move(*r.module) : Module{};
}

// Inputs in [-20, 20): small, so that the compares against 0, 5, 10, 42 and the bounds
// below split the lanes of a warp.
std::vector<int32_t> inputs(size_t n, uint32_t seed) { return lcgInputs(n, seed, 40); }

constexpr uint32_t kThreads = 64; // two warps

struct Case {
  std::string kernel;
  std::vector<std::string> inputParams; // buffers of inputs, in order
  std::vector<int32_t> scalars;         // the scalar parameters, in order
  std::function<int32_t(int32_t i, const std::vector<std::vector<int32_t>> &in)> model; // out[i]
};

const std::vector<Case> &cases() {
  static const std::vector<Case> c = {
      {"and_chain",
       {"x", "y"},
       {40},
       [](int32_t i, const auto &in) {
         return i < 40 && in[0][i] > 0 && in[1][i] < 100 ? in[0][i] + in[1][i] : 0;
       }},
      {"or_chain",
       {"x"},
       {-5, 7},
       [](int32_t i, const auto &in) {
         const int32_t v = in[0][i];
         return v < -5 || v > 7 || v == 42 ? -1 : 0;
       }},
      {"mixed",
       {"x", "y"},
       {},
       [](int32_t i, const auto &in) {
         const int32_t a = in[0][i], b = in[1][i];
         return a > 0 && (b < 5 || b > 10) ? a * b : 0;
       }},
      {"three_deep",
       {"x", "y", "z"},
       {},
       [](int32_t i, const auto &in) {
         const int32_t a = in[0][i], b = in[1][i], c = in[2][i];
         return a > 0 && b > 0 && c > 0 ? a + b + c : 0;
       }},
      {"side_effect_between",
       {"x", "y"},
       {},
       [](int32_t i, const auto &in) {
         const int32_t a = in[0][i], b = in[1][i];
         return a > 0 ? (b > 0 ? 3 : 1) : 0;
       }},
  };
  return c;
}

// The parameter names of kernel k in order (nvcc: k_param_0 ...; clang likewise).
std::vector<std::string> paramNames(const Function &k) {
  std::vector<std::string> names;
  for (const Param &p : k.params)
    names.push_back(p.name);
  return names;
}

struct Outcome {
  std::vector<int32_t> out;
  uint64_t branches = 0, divergent = 0;
};

Outcome run(const Module &m, const Case &c) {
  const Function *k = m.findFunction(c.kernel);
  EXPECT_NE(k, nullptr) << c.kernel;
  if (!k)
    return {};
  const std::vector<std::string> names = paramNames(*k);
  RunConfig cfg;
  cfg.entry = c.kernel;
  cfg.threads = kThreads;
  size_t next = 0, seed = 1, scalar = 0;
  std::vector<std::vector<int32_t>> in;
  for (size_t p = 0; p < names.size(); ++p) {
    if (next < c.inputParams.size()) {
      in.push_back(inputs(kThreads, uint32_t(seed++)));
      cfg.buffers[names[p]] = bytesOf(in.back());
      ++next;
    } else if (k->params[p].size == 8) {
      cfg.buffers[names[p]] = std::vector<uint8_t>(kThreads * 4);
    } else {
      cfg.params[names[p]] = uint64_t(int64_t(c.scalars.at(scalar++)));
    }
  }
  const RunResult r = runKernel(m, cfg);
  EXPECT_EQ(r.kind, RunResult::Kind::Ok)
      << c.kernel << ": " << formatExit(r, "k.ptx") << " " << r.message;
  Outcome o{{}, r.branches, r.divergentBranches};
  for (const auto &[name, bytes] : r.buffers) {
    if (name != names[c.inputParams.size()])
      continue; // the out buffer
    for (uint32_t i = 0; i < kThreads; ++i)
      o.out.push_back(wordAt(bytes, i));
  }
  for (uint32_t i = 0; i < kThreads && o.out.size() == kThreads; ++i)
    EXPECT_EQ(o.out[i], c.model(int32_t(i), in)) << c.kernel << " thread " << i;
  return o;
}

// `expected`: combinations per kernel, read off the PTX of that compiler. Phase 15 runs
// first, as in ptxas's order: it folds the `bra.uni` to the next block that both compilers
// put after each conditional branch, which makes the nested branches adjacent.
void checkCompiler(Module m, const std::map<std::string, uint32_t> &expected) {
  for (Function &f : m.functions)
    if (!f.isDeclaration())
      optimized::oriBranchOpt(f, -1);
  Module after = m;
  for (Function &f : after.functions) {
    if (f.isDeclaration())
      continue;
    Function r = f;
    const NestedCondCounts co = optimized::optimizeNestedCondBranches(f);
    const NestedCondCounts cr = reference::optimizeNestedCondBranches(r);
    EXPECT_EQ(printFunction(f), printFunction(r)) << f.name;
    EXPECT_TRUE(co == cr) << f.name;
    // Functions not listed (nvcc -O0 keeps threadIndex as a .func) have nothing to combine.
    const auto it = expected.find(f.name);
    EXPECT_EQ(co.combined, it == expected.end() ? 0u : it->second) << f.name;
  }
  for (const Case &c : cases()) {
    const Outcome before = run(m, c), now = run(after, c);
    EXPECT_EQ(before.out, now.out) << c.kernel;
    EXPECT_LE(now.branches, before.branches) << c.kernel;
    if (expected.at(c.kernel) > 0)
      EXPECT_LT(now.branches, before.branches) << c.kernel;
    else
      EXPECT_EQ(now.branches, before.branches) << c.kernel;
  }
}

TEST(NestedCondKernels, NvccO0) {
  if (!have("nvcc"))
    GTEST_SKIP() << "nvcc not found";
  // NVVM at -O0 writes three_deep as three nested branches on compares (each through a
  // not.pred, a one-input PLOP3 that is folded): two combinations leave one branch. It
  // writes && and || as predicate diamonds (the second compare in a block that ends in an
  // unconditional bra to a join holding mov.pred and the test), which are not nested
  // branches: and_chain, or_chain and mixed stay. side_effect_between stores between.
  checkCompiler(compile("nvcc -arch=sm_90 -ptx -Xcicc -O0", "nvcc-O0"),
                {{"and_chain", 0},
                 {"or_chain", 0},
                 {"mixed", 0},
                 {"three_deep", 2},
                 {"side_effect_between", 0}});
}

TEST(NestedCondKernels, ClangO1) {
  if (!have("clang-14") && !have("clang"))
    GTEST_SKIP() << "clang not found";
  const std::string clang = have("clang-14") ? "clang-14" : "clang";
  // LLVM at -O1 folds && into and.pred, but keeps or_chain's first test as its own branch
  // (@%p1 bra to the store) in front of `v > hi || v == 42` as an and.pred of the negations
  // and a branch over the store: one combination (three inputs). The rest have one branch.
  checkCompiler(
      compile(clang +
                  " -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib -O1 -S",
              "clang-O1"),
      {{"and_chain", 0},
       {"or_chain", 1},
       {"mixed", 0},
       {"three_deep", 0},
       {"side_effect_between", 0}});
}

} // namespace
} // namespace ori
