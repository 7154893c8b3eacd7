// The dataflow bitvector (spec/004 "BitVector Implementation", lines 117-180):
// 32-bit words, word_count = (bit_count + 31) >> 5, grow-only storage
// (reallocated only when the new word count exceeds the capacity), and the
// bulk operations of spec/004's table. The bulk operations run on word-array
// kernels (BitKernels) in several implementations chosen at run time: scalar,
// SSE2 (spec/004 "SSE2 Loop Structure": a scalar alignment prologue up to a
// 16-byte boundary of dst, a 4-word SSE2 main loop, a scalar epilogue) and
// AVX2 (the same with 8 words and a 32-byte boundary) when the CPU has it.
//
// Invariant: bits at positions >= size() in the last word are always zero.
//
// Sizes: binary operations expect operands of equal size() (asserted in
// debug builds). In release builds an operand of another size is read as if
// truncated or zero-extended to the size of `this` (bits it does not have
// are 0; bits beyond size() of `this` are dropped). So `a &= shorter` clears
// a's bits beyond shorter's size (ptxas's &= "zeroes tail"), `a |= shorter`
// leaves them, and a.isSubsetOf(shorter) requires them to be 0.
// operator== is true only for equal sizes and equal bits.
#pragma once

#include <cstdint>

namespace ori::optimized {

// Word-array kernels: n words each; dst may alias a source exactly (same
// pointer), never partially. IfChanged kernels find the first word that
// would change before writing, write only from there on, and return whether
// any bit changed.
struct BitKernels {
  const char *name;
  void (*orInto)(uint32_t *dst, const uint32_t *src, uint32_t n);
  bool (*orIfChanged)(uint32_t *dst, const uint32_t *src, uint32_t n);
  void (*andInto)(uint32_t *dst, const uint32_t *src, uint32_t n);
  bool (*andIfChanged)(uint32_t *dst, const uint32_t *src, uint32_t n);
  void (*xorInto)(uint32_t *dst, const uint32_t *src, uint32_t n);
  void (*assignAnd)(uint32_t *dst, const uint32_t *a, const uint32_t *b, uint32_t n);
  // dst |= gen | (in & ~kill)
  void (*orWithAndNot)(uint32_t *dst, const uint32_t *gen, const uint32_t *in, const uint32_t *kill,
                       uint32_t n);
  bool (*orWithAndNotIfChanged)(uint32_t *dst, const uint32_t *gen, const uint32_t *in,
                                const uint32_t *kill, uint32_t n);
  uint32_t (*popcount)(const uint32_t *w, uint32_t n);
  // (a & ~b) == 0
  bool (*isSubsetOf)(const uint32_t *a, const uint32_t *b, uint32_t n);
};

const BitKernels &scalarKernels();
const BitKernels &sse2Kernels();
const BitKernels *avx2Kernels(); // nullptr when the CPU has no AVX2
// What BitVector uses: AVX2 when available (it measures faster, see
// docs/performance.md "Bitvectors"), else SSE2.
const BitKernels &bestKernels();

class BitVector {
public:
  BitVector() = default;
  explicit BitVector(uint32_t numBits); // all clear
  ~BitVector();
  BitVector(const BitVector &other);
  BitVector &operator=(const BitVector &other); // reallocates only when capacity is short
  BitVector(BitVector &&other) noexcept;
  BitVector &operator=(BitVector &&other) noexcept;

  // Grow-only (spec/004: "no shrink"): a smaller numBits does nothing; new bits are clear.
  void allocate(uint32_t numBits);
  uint32_t size() const { return bitCount_; }
  uint32_t wordCount() const { return wordCount_; }
  uint32_t capacity() const { return capacity_; } // allocated words
  const uint32_t *words() const { return data_; }
  uint32_t *words() { return data_; }

  // Index must be < size() (asserted in debug; ignored / false in release).
  void setBit(uint32_t i);
  void clearBit(uint32_t i);
  bool testBit(uint32_t i) const;

  BitVector &operator|=(const BitVector &src);
  bool orIfChanged(const BitVector &src);
  BitVector &operator&=(const BitVector &src);
  bool andIfChanged(const BitVector &src);
  BitVector &operator^=(const BitVector &src);
  void assignAnd(const BitVector &a, const BitVector &b); // this = a & b
  // this |= gen | (in & ~kill): the liveness transfer function (spec/004).
  void orWithAndNot(const BitVector &gen, const BitVector &in, const BitVector &kill);
  bool orWithAndNotIfChanged(const BitVector &gen, const BitVector &in, const BitVector &kill);

  // Bits [start, end) packed into out from bit 0 (out needs (end-start+31)/32
  // words; bits of its last word past end-start are zeroed). Requires
  // start <= end <= size() (asserted; clamped in release).
  void extractBits(uint32_t *out, uint32_t start, uint32_t end) const;
  uint32_t popcount() const;
  void clear();                              // all bits 0, size kept
  bool isSubsetOf(const BitVector &b) const; // (this & ~b) == 0

  friend bool operator==(const BitVector &a, const BitVector &b);

private:
  void clearTailBits();

  uint32_t *data_ = nullptr;
  uint32_t wordCount_ = 0;
  uint32_t capacity_ = 0;
  uint32_t bitCount_ = 0;
};

} // namespace ori::optimized
