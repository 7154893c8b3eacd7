// Bitvector kernels (optimized/bitvector.h) at 1k..1M bits, each
// implementation (scalar, SSE2, AVX2 when the CPU has it), in bytes per
// second beside a memcpy of the same bytes measured in the same run.
//
// Bytes counted per call: every source vector read plus the destination
// written once (|= on n bytes: 2n, like memcpy's n read + n written;
// orWithAndNotIfChanged: gen, in, kill read and dst written, 4n). The
// IfChanged kernels run in two states: "first" (the first word changes, so
// the whole vector is rewritten) and "converged" (nothing changes: the scan
// alone, as in the solver's last pass), counted the same way.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "optimized/bitvector.h"

namespace {

using ori::optimized::BitKernels;
using ori::optimized::BitVector;

constexpr int64_t kMinBits = 1 << 10, kMaxBits = 1 << 20;

BitVector randomVector(uint32_t numBits, uint32_t seed) {
  BitVector v(numBits);
  uint32_t x = seed * 2654435761u + 1;
  for (uint32_t i = 0; i < v.wordCount(); ++i) {
    x = x * 1664525u + 1013904223u; // LCG (Numerical Recipes)
    v.words()[i] = x;
  }
  if (numBits % 32)
    v.words()[v.wordCount() - 1] &= (1u << (numBits % 32)) - 1;
  return v;
}

struct Vectors {
  explicit Vectors(int64_t bits)
      : n(uint32_t(bits / 32)), dst(randomVector(uint32_t(bits), 1)),
        a(randomVector(uint32_t(bits), 2)), b(randomVector(uint32_t(bits), 3)),
        c(randomVector(uint32_t(bits), 4)) {}
  uint32_t n;
  BitVector dst, a, b, c;
  int64_t bytes() const { return int64_t(n) * 4; }
};

void count(benchmark::State &state, const Vectors &v, int vectorsMoved) {
  state.SetBytesProcessed(int64_t(state.iterations()) * v.bytes() * vectorsMoved);
  state.counters["bits"] = double(v.n) * 32;
}

using Body = void (*)(benchmark::State &, const BitKernels &);

void orInto(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    k.orInto(v.dst.words(), v.a.words(), v.n);
    benchmark::ClobberMemory();
  }
  count(s, v, 2);
}
void orIfChangedFirst(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  v.a.words()[0] |= 1;
  bool changed = false;
  for (auto _ : s) {
    v.dst.words()[0] &= ~1u; // the change is in word 0: everything is rewritten
    changed |= k.orIfChanged(v.dst.words(), v.a.words(), v.n);
    benchmark::ClobberMemory();
  }
  if (!changed)
    s.SkipWithError("no change");
  count(s, v, 2);
}
void orIfChangedConverged(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  k.orInto(v.dst.words(), v.a.words(), v.n);
  bool changed = false;
  for (auto _ : s) {
    changed |= k.orIfChanged(v.dst.words(), v.a.words(), v.n);
    benchmark::ClobberMemory();
  }
  if (changed)
    s.SkipWithError("changed");
  count(s, v, 2);
}
void andInto(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    k.andInto(v.dst.words(), v.a.words(), v.n);
    benchmark::ClobberMemory();
  }
  count(s, v, 2);
}
void xorInto(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    k.xorInto(v.dst.words(), v.a.words(), v.n);
    benchmark::ClobberMemory();
  }
  count(s, v, 2);
}
void assignAnd(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    k.assignAnd(v.dst.words(), v.a.words(), v.b.words(), v.n);
    benchmark::ClobberMemory();
  }
  count(s, v, 3);
}
void orWithAndNot(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    k.orWithAndNot(v.dst.words(), v.a.words(), v.b.words(), v.c.words(), v.n);
    benchmark::ClobberMemory();
  }
  count(s, v, 4);
}
void orWithAndNotIfChangedFirst(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  v.a.words()[0] |= 1; // gen has bit 0
  bool changed = false;
  for (auto _ : s) {
    v.dst.words()[0] &= ~1u;
    changed |= k.orWithAndNotIfChanged(v.dst.words(), v.a.words(), v.b.words(), v.c.words(), v.n);
    benchmark::ClobberMemory();
  }
  if (!changed)
    s.SkipWithError("no change");
  count(s, v, 4);
}
void orWithAndNotIfChangedConverged(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  k.orWithAndNot(v.dst.words(), v.a.words(), v.b.words(), v.c.words(), v.n);
  bool changed = false;
  for (auto _ : s) {
    changed |= k.orWithAndNotIfChanged(v.dst.words(), v.a.words(), v.b.words(), v.c.words(), v.n);
    benchmark::ClobberMemory();
  }
  if (changed)
    s.SkipWithError("changed");
  count(s, v, 4);
}
void popcount(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  for (auto _ : s)
    benchmark::DoNotOptimize(k.popcount(v.a.words(), v.n));
  count(s, v, 1);
}
void isSubsetOf(benchmark::State &s, const BitKernels &k) {
  Vectors v(s.range(0));
  std::memcpy(v.b.words(), v.a.words(), size_t(v.bytes())); // a ⊆ a: the whole vector is read
  bool subset = true;
  for (auto _ : s)
    subset &= k.isSubsetOf(v.a.words(), v.b.words(), v.n);
  if (!subset)
    s.SkipWithError("not a subset");
  count(s, v, 2);
}

// The bandwidth reference: memcpy of one vector's bytes (n read + n written).
void memcpyReference(benchmark::State &s) {
  Vectors v(s.range(0));
  for (auto _ : s) {
    std::memcpy(v.dst.words(), v.a.words(), size_t(v.bytes()));
    benchmark::ClobberMemory();
  }
  count(s, v, 2);
}

const struct {
  const char *name;
  Body body;
} kOps[] = {
    {"or", orInto},
    {"orIfChanged_first", orIfChangedFirst},
    {"orIfChanged_converged", orIfChangedConverged},
    {"and", andInto},
    {"xor", xorInto},
    {"assignAnd", assignAnd},
    {"orWithAndNot", orWithAndNot},
    {"orWithAndNotIfChanged_first", orWithAndNotIfChangedFirst},
    {"orWithAndNotIfChanged_converged", orWithAndNotIfChangedConverged},
    {"popcount", popcount},
    {"isSubsetOf", isSubsetOf},
};

// BM_Bitvector/<op>/<kernels>/<bits>, and BM_Bitvector/memcpy/<bits>.
const bool kRegistered = [] {
  std::vector<const BitKernels *> sets{&ori::optimized::scalarKernels(),
                                       &ori::optimized::sse2Kernels()};
  if (const BitKernels *avx2 = ori::optimized::avx2Kernels())
    sets.push_back(avx2);
  benchmark::RegisterBenchmark("BM_Bitvector/memcpy", memcpyReference)
      ->RangeMultiplier(8)
      ->Range(kMinBits, kMaxBits);
  for (const auto &op : kOps)
    for (const BitKernels *k : sets)
      benchmark::RegisterBenchmark((std::string("BM_Bitvector/") + op.name + "/" + k->name).c_str(),
                                   [body = op.body, k](benchmark::State &s) { body(s, *k); })
          ->RangeMultiplier(8)
          ->Range(kMinBits, kMaxBits);
  return true;
}();

} // namespace
