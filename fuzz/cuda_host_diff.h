// cuda-host-diff: the oracle for the PTX reader and lowering that shares no
// code with them (docs/cuda-host-diff.md). Random CUDA kernels
// (fuzz/cuda_gen.h) are compiled by nvcc to PTX in several builds and run in
// the interpreter, and compiled for the host by g++ (fuzz/cuda_render.h); the
// bytes each writes must be the same. Run by `orifuzz --check cuda-host-diff`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/cuda_gen.h"

namespace ori::cudagen {

struct DiffOptions {
  uint64_t seed = 1, runs = 100;
  uint64_t shardIndex = 0, shards = 1;
  int64_t replay = -1;  // only this kernel index
  uint64_t from = 0;    // the first kernel index (continues a stopped campaign)
  uint32_t batch = 100; // kernels per nvcc and g++ call
  std::vector<std::string> builds = {"O3", "O0", "G"};
  std::string outDir = ".";
  std::string workDir; // empty: a fresh directory under the system's temporary directory
  bool keepGoing = false, reduce = true, keepWork = false;
  bool hostUbsan = false; // compile the host side with -fsanitize=undefined (checks the generator)
  bool corruptHost =
      false; // flip bit 0 of the host's output of each batch (a test that the check can fail)
  GenOptions gen;
};

// The nvcc flags of a build name ("O3", "O0", "G"), or "" for an unknown one.
std::string buildFlags(const std::string &build);

// Exit status: 0 every kernel agrees (or is skipped as unsupported), 1 a
// difference or an error, 77 nvcc or g++ is missing (skipped).
int runCudaHostDiff(const DiffOptions &o);

} // namespace ori::cudagen
