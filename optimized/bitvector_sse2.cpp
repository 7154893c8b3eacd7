// SSE2 bitvector kernels (spec/004 "SSE2 Loop Structure"): scalar words up to
// dst's next 16-byte boundary, then 4 words per _mm_load_si128 (dst, aligned)
// / _mm_loadu_si128 (sources) / _mm_store_si128 step (the loop does two steps
// per iteration, then at most one more), then a scalar epilogue of 0-3 words.
// Read-only kernels (popcount, isSubsetOf) have no dst and use unaligned
// loads throughout. SSE2 is part of x86-64, so these need no CPU check.
#include "optimized/bitvector.h"

#include <cstddef>
#include <cstdint>
#include <emmintrin.h>

namespace ori::optimized {
namespace {

constexpr uint32_t kLanes = 4;

// spec/004: align_count = (-(uintptr_t)dst >> 2) & 3, clamped to n.
inline uint32_t prologueWords(const uint32_t *dst, uint32_t n) {
  uint32_t a = uint32_t(-reinterpret_cast<uintptr_t>(dst) >> 2) & (kLanes - 1);
  return a < n ? a : n;
}

inline __m128i loadU(const uint32_t *p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
}
inline __m128i loadA(const uint32_t *p) {
  return _mm_load_si128(reinterpret_cast<const __m128i *>(p));
}
inline void storeA(uint32_t *p, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i *>(p), v); }
inline bool isZero(__m128i v) {
  return _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) == 0xFFFF;
}

// Runs word(i) / vec(i) over i in [0, n): prologue, main loop, epilogue.
// vec(i) is called only with dst + i 16-byte aligned.
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

// The first word index in [0, n) where delta(i) (the bits that would change)
// is nonzero, or n. The same prologue, then a vector scan.
template <class Word, class Vec>
inline uint32_t firstChange(const uint32_t *dst, uint32_t n, Word delta, Vec deltaVec) {
  size_t i = 0;
  size_t head = prologueWords(dst, n);
  for (; i < head; ++i)
    if (delta(i))
      return uint32_t(i);
  // Two vectors per test; a nonzero pair, or the last words, are resolved by words.
  for (; n - i >= 2 * kLanes; i += 2 * kLanes)
    if (!isZero(_mm_or_si128(deltaVec(i), deltaVec(i + kLanes))))
      break;
  for (; i < n; ++i)
    if (delta(i))
      return uint32_t(i);
  return n;
}

void orInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] |= s[i]; },
      [&](size_t i) { storeA(d + i, _mm_or_si128(loadA(d + i), loadU(s + i))); });
}

// spec/004: "Scans (~dst & src) != 0 first".
bool orIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return ~d[i] & s[i]; },
      [&](size_t i) { return _mm_andnot_si128(loadA(d + i), loadU(s + i)); });
  if (first == n)
    return false;
  orInto(d + first, s + first, n - first);
  return true;
}

void andInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] &= s[i]; },
      [&](size_t i) { storeA(d + i, _mm_and_si128(loadA(d + i), loadU(s + i))); });
}

// spec/004: "Scans (~src & dst) != 0 first".
bool andIfChanged(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return d[i] & ~s[i]; },
      [&](size_t i) { return _mm_andnot_si128(loadU(s + i), loadA(d + i)); });
  if (first == n)
    return false;
  andInto(d + first, s + first, n - first);
  return true;
}

void xorInto(uint32_t *d, const uint32_t *s, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] ^= s[i]; },
      [&](size_t i) { storeA(d + i, _mm_xor_si128(loadA(d + i), loadU(s + i))); });
}

void assignAnd(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] = a[i] & b[i]; },
      [&](size_t i) { storeA(d + i, _mm_and_si128(loadU(a + i), loadU(b + i))); });
}

// spec/004: or(or(gen, dst), andnot(kill, in)) in one pass.
void orWithAndNot(uint32_t *d, const uint32_t *gen, const uint32_t *in, const uint32_t *kill,
                  uint32_t n) {
  forEachWord(
      d, n, [&](size_t i) { d[i] |= gen[i] | (in[i] & ~kill[i]); },
      [&](size_t i) {
        __m128i r = _mm_or_si128(_mm_or_si128(loadU(gen + i), loadA(d + i)),
                                 _mm_andnot_si128(loadU(kill + i), loadU(in + i)));
        storeA(d + i, r);
      });
}

bool orWithAndNotIfChanged(uint32_t *d, const uint32_t *gen, const uint32_t *in,
                           const uint32_t *kill, uint32_t n) {
  uint32_t first = firstChange(
      d, n, [&](size_t i) { return ~d[i] & (gen[i] | (in[i] & ~kill[i])); },
      [&](size_t i) {
        __m128i add =
            _mm_or_si128(loadU(gen + i), _mm_andnot_si128(loadU(kill + i), loadU(in + i)));
        return _mm_andnot_si128(loadA(d + i), add);
      });
  if (first == n)
    return false;
  orWithAndNot(d + first, gen + first, in + first, kill + first, n - first);
  return true;
}

// Bit counts of the 16 bytes of v (SWAR: 2-, 4-, 8-bit partial sums), summed
// into the two 64-bit lanes by _mm_sad_epu8.
inline __m128i popcountBytesSummed(__m128i v) {
  const __m128i m1 = _mm_set1_epi8(0x55), m2 = _mm_set1_epi8(0x33), m4 = _mm_set1_epi8(0x0F);
  v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi64(v, 1), m1));
  v = _mm_add_epi8(_mm_and_si128(v, m2), _mm_and_si128(_mm_srli_epi64(v, 2), m2));
  v = _mm_and_si128(_mm_add_epi8(v, _mm_srli_epi64(v, 4)), m4);
  return _mm_sad_epu8(v, _mm_setzero_si128());
}

uint32_t popcount(const uint32_t *w, uint32_t n) {
  __m128i acc = _mm_setzero_si128();
  size_t i = 0;
  for (; n - i >= kLanes; i += kLanes)
    acc = _mm_add_epi64(acc, popcountBytesSummed(loadU(w + i)));
  uint64_t total =
      uint64_t(_mm_cvtsi128_si64(acc)) + uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc)));
  for (; i < n; ++i)
    total += __builtin_popcount(w[i]);
  return uint32_t(total);
}

bool isSubsetOf(const uint32_t *a, const uint32_t *b, uint32_t n) {
  size_t i = 0;
  for (; n - i >= kLanes; i += kLanes)
    if (!isZero(_mm_andnot_si128(loadU(b + i), loadU(a + i))))
      return false;
  for (; i < n; ++i)
    if (a[i] & ~b[i])
      return false;
  return true;
}

} // namespace

const BitKernels &sse2Kernels() {
  static const BitKernels k{
      "sse2",    orInto,       orIfChanged,           andInto,  andIfChanged, xorInto,
      assignAnd, orWithAndNot, orWithAndNotIfChanged, popcount, isSubsetOf};
  return k;
}

} // namespace ori::optimized
