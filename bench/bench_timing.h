// Timing helpers shared by the suites: thread CPU time (other processes on
// the machine do not count) and the best of several calls of a pass on fresh
// copies of a function (the copy is not timed).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>

namespace ori::bench {

inline double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

template <typename Input, typename Pass>
double bestMs(const Input& input, Pass pass, int calls) {
  double best = 1e300;
  for (int k = 0; k < calls; ++k) {
    Input copy = input;
    const double t0 = threadCpuMs();
    benchmark::DoNotOptimize(pass(copy));
    best = std::min(best, threadCpuMs() - t0);
  }
  return best;
}

} // namespace ori::bench
