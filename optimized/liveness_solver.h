// The fixed-point solver of optimized/liveness.cpp on ready gen and kill sets,
// apart so that bench/liveness_bench.cpp can time it alone. Internal to
// optimized/ (not part of optimized.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/facts.h"
#include "optimized/bitvector.h"

namespace ori::optimized {

// gen, kill, LiveIn and LiveOut of every block for one register file, in one
// zeroed arena: block b's four sets lie side by side, `words()` words each
// (a set of 8 words or more is rounded up to a multiple of 8, and the arena
// is 64-byte aligned, so the kernels' vector loops start aligned with no
// prologue; padding bits stay zero).
class LivenessSets {
public:
  LivenessSets(uint32_t blocks, uint32_t bits);
  ~LivenessSets();
  LivenessSets(const LivenessSets &) = delete;
  LivenessSets &operator=(const LivenessSets &) = delete;
  uint32_t blocks() const { return blocks_; }
  uint32_t bits() const { return bits_; }
  uint32_t words() const { return words_; }
  size_t bytes() const { return size_t(blocks_) * 4 * words_ * sizeof(uint32_t); }

  uint32_t *gen(uint32_t b) { return set(b, 0); }
  uint32_t *kill(uint32_t b) { return set(b, 1); }
  uint32_t *in(uint32_t b) { return set(b, 2); }
  uint32_t *out(uint32_t b) { return set(b, 3); }
  const uint32_t *in(uint32_t b) const { return set(b, 2); }
  const uint32_t *out(uint32_t b) const { return set(b, 3); }

  void clearSolution(); // every LiveIn and LiveOut back to empty

private:
  uint32_t *set(uint32_t b, uint32_t k) const { return arena_ + (size_t(b) * 4 + k) * words_; }
  uint32_t blocks_, bits_, words_;
  void *storage_ = nullptr;
  size_t mapped_ = 0; // bytes mapped with mmap, or 0: storage_ is from calloc
  uint32_t *arena_ = nullptr;
};

// Bit i of a set in a LivenessSets arena (32-bit words).
inline void setBit(uint32_t *w, uint32_t i) { w[i >> 5] |= 1u << (i & 31); }
inline void clearBit(uint32_t *w, uint32_t i) { w[i >> 5] &= ~(1u << (i & 31)); }
inline bool testBit(const uint32_t *w, uint32_t i) { return (w[i >> 5] >> (i & 31)) & 1; }

// The solver's visiting order: postorder (the reversed CfgFacts::rpo), then
// the unreachable blocks from the last bix down.
std::vector<uint32_t> solverOrder(const CfgFacts &cfg);

// Grows every LiveIn and LiveOut of `sets` (empty on entry) to the least
// fixed point of the liveness equations; returns the number of rounds.
uint32_t solveLiveness(LivenessSets &sets, const CfgFacts &cfg, const std::vector<uint32_t> &order,
                       const BitKernels &kernels = bestKernels());

} // namespace ori::optimized
