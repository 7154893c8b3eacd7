// AVX2 bitvector kernels: the SSE2 loop structure of spec/004 ("SSE2 Loop
// Structure") widened to 8 words: scalar words up to dst's next 32-byte
// boundary, 8 words per aligned-dst step (two steps per loop iteration, then
// at most one more), a scalar epilogue of 0-7 words.
//
// Only the region between the pragmas is compiled for AVX2 (the per-function
// target attribute, applied to every function there, lambdas included; no
// global -mavx2), and avx2Kernels() hands it out only when
// __builtin_cpu_supports("avx2"). Everything in the region has internal
// linkage and uses no library templates, so no AVX2 instance of an inline
// function can be chosen by the linker for code running on other CPUs.
#include "optimized/bitvector.h"

#include <cstddef>
#include <cstdint>
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace ori::optimized {
namespace {

constexpr uint32_t kLanes = 8;

// spec/004's align_count for a 32-byte boundary, clamped to n.
inline uint32_t prologueWords(const uint32_t *dst, uint32_t n) {
  uint32_t a = uint32_t(-reinterpret_cast<uintptr_t>(dst) >> 2) & (kLanes - 1);
  return a < n ? a : n;
}

inline __m256i loadU(const uint32_t *p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}
inline __m256i loadA(const uint32_t *p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i *>(p));
}
inline void storeA(uint32_t *p, __m256i v) {
  _mm256_store_si256(reinterpret_cast<__m256i *>(p), v);
}
inline bool isZero(__m256i v) { return _mm256_testz_si256(v, v); }

// Runs word(i) / vec(i) over i in [0, n); vec(i) only with dst + i 32-byte aligned.
template <class Word, class Vec>
inline void forEachWord(uint32_t *dst, uint32_t n, Word word, Vec vec) {
  size_t i = 0;
  size_t head = prologueWords(dst, n);
  for (; i < head; ++i)
    word(i);
  for (; n - i >= 2 * kLanes; i += 2 * kLanes) { // unrolled twice: two loads+store pairs in flight
    vec(i);
    vec(i + kLanes);
  }
  if (n - i >= kLanes) {
    vec(i);
    i += kLanes;
  }
  for (; i < n; ++i)
    word(i);
}

// The first word index in [0, n) with delta(i) != 0, or n.
template <class Word, class Vec>
inline uint32_t firstChange(const uint32_t *dst, uint32_t n, Word delta, Vec deltaVec) {
  size_t i = 0;
  size_t head = prologueWords(dst, n);
  for (; i < head; ++i)
    if (delta(i))
      return uint32_t(i);
  // Two vectors per test; a nonzero pair, or the last words, are resolved by words.
  for (; n - i >= 2 * kLanes; i += 2 * kLanes)
    if (!isZero(_mm256_or_si256(deltaVec(i), deltaVec(i + kLanes))))
      break;
  for (; i < n; ++i)
    if (delta(i))
      return uint32_t(i);
  return n;
}

void orInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] |= s[i]; },
      [&](size_t i) { storeA(d + i, _mm256_or_si256(loadA(d + i), loadU(s + i))); });
}

bool orIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return ~d[i] & s[i]; },
      [&](size_t i) { return _mm256_andnot_si256(loadA(d + i), loadU(s + i)); });
  if (first == n)
    return false;
  orInto(d + first, s + first, n - first);
  return true;
}

void andInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] &= s[i]; },
      [&](size_t i) { storeA(d + i, _mm256_and_si256(loadA(d + i), loadU(s + i))); });
}

bool andIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return d[i] & ~s[i]; },
      [&](size_t i) { return _mm256_andnot_si256(loadU(s + i), loadA(d + i)); });
  if (first == n)
    return false;
  andInto(d + first, s + first, n - first);
  return true;
}

void xorInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] ^= s[i]; },
      [&](size_t i) { storeA(d + i, _mm256_xor_si256(loadA(d + i), loadU(s + i))); });
}

void assignAnd(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] = a[i] & b[i]; },
      [&](size_t i) { storeA(d + i, _mm256_and_si256(loadU(a + i), loadU(b + i))); });
}

void orWithAndNot(uint32_t *d, const uint32_t *gen, const uint32_t *in, const uint32_t *kill,
                  uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] |= gen[i] | (in[i] & ~kill[i]); },
      [&](size_t i) {
        __m256i r = _mm256_or_si256(_mm256_or_si256(loadU(gen + i), loadA(d + i)),
                                    _mm256_andnot_si256(loadU(kill + i), loadU(in + i)));
        storeA(d + i, r);
      });
}

bool orWithAndNotIfChanged(uint32_t *d, const uint32_t *gen, const uint32_t *in,
                           const uint32_t *kill, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return ~d[i] & (gen[i] | (in[i] & ~kill[i])); },
      [&](size_t i) {
        __m256i add =
            _mm256_or_si256(loadU(gen + i), _mm256_andnot_si256(loadU(kill + i), loadU(in + i)));
        return _mm256_andnot_si256(loadA(d + i), add);
      });
  if (first == n)
    return false;
  orWithAndNot(d + first, gen + first, in + first, kill + first, n - first);
  return true;
}

// Bit counts of the 32 bytes of v by a nibble lookup table (vpshufb), summed
// into the four 64-bit lanes by vpsadbw.
inline __m256i popcountBytesSummed(__m256i v) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, //
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(v, low4));
  __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4));
  return _mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256());
}

uint32_t popcount(const uint32_t *w, uint32_t n) {
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; n - i >= kLanes; i += kLanes)
    acc = _mm256_add_epi64(acc, popcountBytesSummed(loadU(w + i)));
  uint64_t total = uint64_t(_mm256_extract_epi64(acc, 0)) + uint64_t(_mm256_extract_epi64(acc, 1)) +
                   uint64_t(_mm256_extract_epi64(acc, 2)) + uint64_t(_mm256_extract_epi64(acc, 3));
  for (; i < n; ++i)
    total += uint32_t(__builtin_popcount(w[i]));
  return uint32_t(total);
}

bool isSubsetOf(const uint32_t *a, const uint32_t *b, uint32_t n) {
  size_t i = 0;
  for (; n - i >= kLanes; i += kLanes)
    if (!isZero(_mm256_andnot_si256(loadU(b + i), loadU(a + i))))
      return false;
  for (; i < n; ++i)
    if (a[i] & ~b[i])
      return false;
  return true;
}

} // namespace
} // namespace ori::optimized

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

namespace ori::optimized {

const BitKernels *avx2Kernels() {
  static const BitKernels k{
      "avx2",    orInto,       orIfChanged,           andInto,  andIfChanged, xorInto,
      assignAnd, orWithAndNot, orWithAndNotIfChanged, popcount, isSubsetOf};
  static const bool available = __builtin_cpu_supports("avx2");
  return available ? &k : nullptr;
}

} // namespace ori::optimized
