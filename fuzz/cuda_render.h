// Prints generated kernels (fuzz/cuda_gen.h) as CUDA for nvcc and as C++ for
// g++ that computes what the CUDA means (docs/cuda-host-diff.md).
#pragma once

#include <string>
#include <vector>

#include "fuzz/cuda_gen.h"

namespace ori::cudagen {

// fuzz/cuda_prelude.cpp
const char *commonPrelude();
const char *devicePrelude();
const char *hostPrelude();

// "64" or "32x2": the block's shape as oriopt --threads takes it.
std::string formatLaunch(const Kernel &k);

// `extern "C" __global__ void NAME(const uint8_t* in, uint8_t* out)`.
std::string renderDeviceKernel(const Kernel &k);
// `static void NAME_host(const uint8_t* in, uint8_t* out)`: runs every CTA and
// thread of the launch in turn, segment by segment.
std::string renderHostKernel(const Kernel &k);

// A whole .cu for nvcc, and a whole .cpp for g++ whose main reads the kernels'
// inputs (kInputBytes each, in order) from argv[1] and writes their outputs
// (outputBytes() each, in order) to argv[2].
std::string deviceFile(const std::vector<const Kernel *> &ks);
std::string hostFile(const std::vector<const Kernel *> &ks);

} // namespace ori::cudagen
