// Timing helpers shared by the suites: thread CPU time (other processes on
// the machine do not count) and the best of several calls of a pass on fresh
// copies of a function (the copy is not timed).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <ctime>

#include "ir/ir.h"

namespace ori::bench {

inline double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

template <typename Input, typename Pass> double bestMs(const Input &input, Pass pass, int calls) {
  double best = 1e300;
  for (int k = 0; k < calls; ++k) {
    Input copy = input;
    const double t0 = threadCpuMs();
    benchmark::DoNotOptimize(pass(copy));
    best = std::min(best, threadCpuMs() - t0);
  }
  return best;
}

// The floor of a walk that reads every instruction of f once, in block order: its opcode,
// its guard and the kind of each of its operands; nothing written. The linearity benches
// time it at each size beside the pass: a pass cannot grow less from 10k to 1M than one
// read of its function, which at 10k comes from the caches and at 1M from memory
// (docs/performance.md, "What the 2x bars measure").
inline uint64_t readEveryInstruction(const Function &f) {
  uint64_t sum = 0;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      sum += uint64_t(in.op) + (in.guard ? 1 : 0);
      for (const Operand &d : in.dsts)
        sum += uint64_t(d.kind);
      for (const Operand &s : in.srcs)
        sum += uint64_t(s.kind);
    }
  return sum;
}

} // namespace ori::bench
