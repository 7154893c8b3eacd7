// BitVector (spec/004 "BitVector Implementation", Layout and Core Operations)
// and the scalar kernels, the fallback and the model the SIMD kernels are
// tested against. See bitvector.h for the size rules.
#include "optimized/bitvector.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <new>
#include <utility>

namespace ori::optimized {
namespace {

// ---- scalar kernels --------------------------------------------------------

void orInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    d[i] |= s[i];
}
bool orIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t i = 0;
  while (i < n && (~d[i] & s[i]) == 0)
    ++i;
  if (i == n)
    return false;
  orInto(d + i, s + i, n - i);
  return true;
}
void andInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    d[i] &= s[i];
}
bool andIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t i = 0;
  while (i < n && (d[i] & ~s[i]) == 0)
    ++i;
  if (i == n)
    return false;
  andInto(d + i, s + i, n - i);
  return true;
}
void xorInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    d[i] ^= s[i];
}
void assignAnd(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    d[i] = a[i] & b[i];
}
void orWithAndNot(uint32_t *d, const uint32_t *gen, const uint32_t *in, const uint32_t *kill,
                  uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    d[i] |= gen[i] | (in[i] & ~kill[i]);
}
bool orWithAndNotIfChanged(uint32_t *d, const uint32_t *gen, const uint32_t *in,
                           const uint32_t *kill, uint32_t n) {
  uint32_t i = 0;
  while (i < n && (~d[i] & (gen[i] | (in[i] & ~kill[i]))) == 0)
    ++i;
  if (i == n)
    return false;
  orWithAndNot(d + i, gen + i, in + i, kill + i, n - i);
  return true;
}
uint32_t popcount(const uint32_t *w, uint32_t n) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; ++i)
    total += uint32_t(std::popcount(w[i]));
  return total;
}
bool isSubsetOf(const uint32_t *a, const uint32_t *b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (a[i] & ~b[i])
      return false;
  return true;
}

// ---- storage -----------------------------------------------------------------

constexpr std::align_val_t kAlign{32};   // an AVX2 vector
constexpr uint32_t kCapacityQuantum = 8; // words per kAlign

uint32_t wordsFor(uint32_t numBits) { return uint32_t((uint64_t(numBits) + 31) >> 5); }
// At most 2^27 words, so rounding up cannot overflow.
uint32_t roundedCapacity(uint32_t words) {
  return (words + kCapacityQuantum - 1) / kCapacityQuantum * kCapacityQuantum;
}

uint32_t *allocateWords(uint32_t n) {
  return static_cast<uint32_t *>(::operator new(size_t(n) * sizeof(uint32_t), kAlign));
}
void freeWords(uint32_t *p) {
  if (p)
    ::operator delete(p, kAlign);
}

// `src` as a vector of `numBits` bits (truncated or zero-extended) in `tmp`,
// for binary operations on operands of unequal size (release builds only).
const uint32_t *conformed(const BitVector &src, uint32_t numBits, BitVector &tmp) {
  if (src.size() == numBits)
    return src.words();
  tmp = BitVector(numBits);
  uint32_t n = std::min(src.wordCount(), tmp.wordCount());
  if (n)
    std::memcpy(tmp.words(), src.words(), n * sizeof(uint32_t));
  if (numBits & 31)
    tmp.words()[tmp.wordCount() - 1] &= (1u << (numBits & 31)) - 1;
  return tmp.words();
}

const BitKernels &kernels() {
  static const BitKernels &best = bestKernels();
  return best;
}

} // namespace

const BitKernels &scalarKernels() {
  static const BitKernels k{
      "scalar",  orInto,       orIfChanged,           andInto,  andIfChanged, xorInto,
      assignAnd, orWithAndNot, orWithAndNotIfChanged, popcount, isSubsetOf};
  return k;
}

// AVX2 moves about twice the bytes of SSE2 per cycle on the large sizes where
// it matters (docs/performance.md "Bitvectors").
const BitKernels &bestKernels() {
  if (const BitKernels *avx2 = avx2Kernels())
    return *avx2;
  return sse2Kernels();
}

// ---- BitVector ---------------------------------------------------------------

BitVector::BitVector(uint32_t numBits) { allocate(numBits); }

BitVector::~BitVector() { freeWords(data_); }

BitVector::BitVector(const BitVector &other) { *this = other; }

BitVector &BitVector::operator=(const BitVector &other) {
  if (this == &other)
    return *this;
  // spec/004: "Reallocation occurs only when the new word count exceeds the
  // current capacity".
  if (other.wordCount_ > capacity_) {
    uint32_t cap = roundedCapacity(other.wordCount_);
    uint32_t *fresh = allocateWords(cap);
    freeWords(data_);
    data_ = fresh;
    capacity_ = cap;
  }
  if (other.wordCount_)
    std::memcpy(data_, other.data_, other.wordCount_ * sizeof(uint32_t));
  wordCount_ = other.wordCount_;
  bitCount_ = other.bitCount_;
  return *this;
}

BitVector::BitVector(BitVector &&other) noexcept
    : data_(std::exchange(other.data_, nullptr)), wordCount_(std::exchange(other.wordCount_, 0)),
      capacity_(std::exchange(other.capacity_, 0)), bitCount_(std::exchange(other.bitCount_, 0)) {}

BitVector &BitVector::operator=(BitVector &&other) noexcept {
  if (this == &other)
    return *this;
  freeWords(data_);
  data_ = std::exchange(other.data_, nullptr);
  wordCount_ = std::exchange(other.wordCount_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  bitCount_ = std::exchange(other.bitCount_, 0);
  return *this;
}

void BitVector::allocate(uint32_t numBits) {
  if (numBits <= bitCount_)
    return; // grow-only (spec/004)
  uint32_t words = wordsFor(numBits);
  if (words > capacity_) {
    uint32_t cap = roundedCapacity(words);
    uint32_t *fresh = allocateWords(cap);
    if (wordCount_)
      std::memcpy(fresh, data_, wordCount_ * sizeof(uint32_t));
    freeWords(data_);
    data_ = fresh;
    capacity_ = cap;
  }
  // Words past the old word count may hold stale bits from a longer copy.
  if (words > wordCount_)
    std::memset(data_ + wordCount_, 0, (words - wordCount_) * sizeof(uint32_t));
  wordCount_ = words;
  bitCount_ = numBits;
}

void BitVector::clearTailBits() {
  if (bitCount_ & 31)
    data_[wordCount_ - 1] &= (1u << (bitCount_ & 31)) - 1;
}

void BitVector::setBit(uint32_t i) {
  assert(i < bitCount_);
  if (i < bitCount_)
    data_[i >> 5] |= 1u << (i & 31);
}
void BitVector::clearBit(uint32_t i) {
  assert(i < bitCount_);
  if (i < bitCount_)
    data_[i >> 5] &= ~(1u << (i & 31));
}
bool BitVector::testBit(uint32_t i) const {
  assert(i < bitCount_);
  return i < bitCount_ && ((data_[i >> 5] >> (i & 31)) & 1);
}

BitVector &BitVector::operator|=(const BitVector &src) {
  assert(src.size() == size());
  BitVector tmp;
  kernels().orInto(data_, conformed(src, bitCount_, tmp), wordCount_);
  return *this;
}
bool BitVector::orIfChanged(const BitVector &src) {
  assert(src.size() == size());
  BitVector tmp;
  return kernels().orIfChanged(data_, conformed(src, bitCount_, tmp), wordCount_);
}
BitVector &BitVector::operator&=(const BitVector &src) {
  assert(src.size() == size());
  BitVector tmp;
  kernels().andInto(data_, conformed(src, bitCount_, tmp), wordCount_);
  return *this;
}
bool BitVector::andIfChanged(const BitVector &src) {
  assert(src.size() == size());
  BitVector tmp;
  return kernels().andIfChanged(data_, conformed(src, bitCount_, tmp), wordCount_);
}
BitVector &BitVector::operator^=(const BitVector &src) {
  assert(src.size() == size());
  BitVector tmp;
  kernels().xorInto(data_, conformed(src, bitCount_, tmp), wordCount_);
  return *this;
}
void BitVector::assignAnd(const BitVector &a, const BitVector &b) {
  assert(a.size() == size() && b.size() == size());
  BitVector ta, tb;
  kernels().assignAnd(data_, conformed(a, bitCount_, ta), conformed(b, bitCount_, tb), wordCount_);
}
void BitVector::orWithAndNot(const BitVector &gen, const BitVector &in, const BitVector &kill) {
  assert(gen.size() == size() && in.size() == size() && kill.size() == size());
  BitVector tg, ti, tk;
  kernels().orWithAndNot(data_, conformed(gen, bitCount_, tg), conformed(in, bitCount_, ti),
                         conformed(kill, bitCount_, tk), wordCount_);
}
bool BitVector::orWithAndNotIfChanged(const BitVector &gen, const BitVector &in,
                                      const BitVector &kill) {
  assert(gen.size() == size() && in.size() == size() && kill.size() == size());
  BitVector tg, ti, tk;
  return kernels().orWithAndNotIfChanged(data_, conformed(gen, bitCount_, tg),
                                         conformed(in, bitCount_, ti),
                                         conformed(kill, bitCount_, tk), wordCount_);
}

// spec/004 "Cross-word boundary handling": output word k is bits
// [start + 32k, start + 32k + 32), the high part of one source word joined
// with the low part of the next.
void BitVector::extractBits(uint32_t *out, uint32_t start, uint32_t end) const {
  assert(start <= end && end <= bitCount_);
  end = std::min(end, bitCount_);
  if (start >= end)
    return;
  uint32_t count = end - start;
  for (uint32_t k = 0, outWords = wordsFor(count); k < outWords; ++k) {
    uint32_t pos = start + 32 * k, w = pos >> 5, shift = pos & 31;
    uint32_t value = data_[w] >> shift;
    if (shift && w + 1 < wordCount_)
      value |= data_[w + 1] << (32 - shift);
    uint32_t remaining = count - 32 * k;
    if (remaining < 32)
      value &= (1u << remaining) - 1;
    out[k] = value;
  }
}

uint32_t BitVector::popcount() const { return kernels().popcount(data_, wordCount_); }

void BitVector::clear() {
  if (wordCount_)
    std::memset(data_, 0, wordCount_ * sizeof(uint32_t));
}

bool BitVector::isSubsetOf(const BitVector &b) const {
  assert(b.size() == size());
  BitVector tmp;
  return kernels().isSubsetOf(data_, conformed(b, bitCount_, tmp), wordCount_);
}

bool operator==(const BitVector &a, const BitVector &b) {
  return a.bitCount_ == b.bitCount_ &&
         (a.wordCount_ == 0 || std::memcmp(a.data_, b.data_, a.wordCount_ * sizeof(uint32_t)) == 0);
}

} // namespace ori::optimized
