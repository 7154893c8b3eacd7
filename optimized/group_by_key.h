// Pairs (key, value) grouped by key, each key's values in the order given: a
// counting sort into CSR rows (key k's values are values[start[k], start[k + 1])).
// Used where a vector per key would cost an allocation each on a big function.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ori::optimized {

inline void groupByKey(const std::vector<std::pair<uint32_t, uint32_t>> &pairs, uint32_t keys,
                       std::vector<uint32_t> &start, std::vector<uint32_t> &values) {
  start.assign(size_t(keys) + 1, 0);
  for (const auto &[key, value] : pairs)
    ++start[key + 1];
  for (uint32_t k = 0; k < keys; ++k)
    start[k + 1] += start[k];
  values.resize(pairs.size());
  std::vector<uint32_t> at(start.begin(), start.end() - 1);
  for (const auto &[key, value] : pairs)
    values[at[key]++] = value;
}

} // namespace ori::optimized
