// Test support: 32-bit little-endian words in run buffers, and deterministic inputs.
#pragma once

#include <cstdint>
#include <vector>

namespace ori {

// n deterministic values in [-span/2, span/2) from an LCG started at `seed`.
inline std::vector<int32_t> lcgInputs(size_t n, uint32_t seed, uint32_t span) {
  std::vector<int32_t> v(n);
  uint32_t x = seed;
  for (int32_t &e : v) {
    x = x * 1664525u + 1013904223u;
    e = int32_t((x >> 8) % span) - int32_t(span / 2);
  }
  return v;
}

inline std::vector<uint8_t> bytesOf(const std::vector<int32_t> &v) {
  std::vector<uint8_t> b(v.size() * 4);
  for (size_t k = 0; k < v.size(); ++k)
    for (int i = 0; i < 4; ++i)
      b[4 * k + size_t(i)] = uint8_t(uint32_t(v[k]) >> (8 * i));
  return b;
}

// Word k of a buffer.
inline int32_t wordAt(const std::vector<uint8_t> &b, size_t k) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(b[4 * k + size_t(i)]) << (8 * i);
  return int32_t(v);
}

} // namespace ori
