// Internals of cuda-host-diff shared by the campaign (cuda_host_diff.cpp),
// the batch runner (cuda_batch.cpp) and the reducer (cuda_reduce.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/cuda_gen.h"
#include "fuzz/cuda_host_diff.h"

namespace ori::cudagen {

struct Tools {
  std::string nvcc, gxx, cudaInclude;
};
// nvcc and g++ from PATH; nothing (after saying so on stderr) when one is missing.
std::optional<Tools> findTools(const DiffOptions &o);

struct Verdict {
  enum class Kind { Pass, Unsupported, Differ, Failed };
  Kind kind = Kind::Pass;
  std::string detail; // one line (Unsupported: the mnemonic)
  std::string report; // the differing bytes, for the reproducer
};

struct Stats {
  double host = 0, nvcc = 0, lower = 0, interp = 0, reduce = 0; // seconds
};

struct BatchResult {
  std::string error; // nvcc or g++ rejected the batch, or the host program failed: a generator bug
  std::map<std::string, std::vector<Verdict>> verdicts; // build -> one per kernel
  std::map<std::string, std::string> ptx;               // build -> nvcc's output
};

// Compiles and runs the kernels in `builds` and on the host, compares.
BatchResult runBatch(const std::vector<const Kernel *> &ks, const std::vector<std::string> &builds,
                     const DiffOptions &o, const Tools &tools, Stats &stats);

struct Reduced {
  Kernel kernel;
  Verdict verdict;
  std::string ptx;
  int rounds = 0;
  size_t variants = 0;
};

// Deletes statements (and replaces ifs by a branch) while `build` still
// fails the same way.
Reduced reduceKernel(const DiffOptions &o, const Tools &tools, const Kernel &k,
                     const std::string &build, const Verdict &v, Stats &stats);

} // namespace ori::cudagen
