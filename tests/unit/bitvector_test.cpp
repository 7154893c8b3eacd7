// The optimized half's bitvector (optimized/bitvector.h, spec/004 "BitVector
// Implementation"). One typed suite runs every word-array kernel of each
// implementation (scalar, SSE2, AVX2 when the CPU has it) against a
// std::vector<bool> model that applies each operation's definition bit by bit;
// then the BitVector class API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "optimized/bitvector.h"

namespace ori::optimized {
namespace {

using Bits = std::vector<bool>;

constexpr uint32_t kCanary = 0xDEADBEEFu;
constexpr uint32_t kMaxOffset = 8; // word offsets 0..7 from a 32-byte boundary

uint32_t wordsFor(size_t numBits) { return uint32_t((numBits + 31) / 32); }

// `bits` packed into 32-bit words that start `offsetWords` words past a
// 32-byte boundary (offsets 1-3 miss SSE2's 16-byte alignment, 1-7 AVX2's
// 32), with canary words on both sides to catch out-of-bounds writes.
class WordArray {
public:
  WordArray(const Bits &bits, uint32_t offsetWords)
      : numBits_(bits.size()), n_(wordsFor(bits.size())), storage_(n_ + 40, kCanary) {
    auto addr = reinterpret_cast<uintptr_t>(storage_.data() + 8);
    p_ = reinterpret_cast<uint32_t *>((addr + 31) & ~uintptr_t(31)) + offsetWords;
    std::fill(p_, p_ + n_, 0u);
    for (size_t i = 0; i < bits.size(); ++i)
      if (bits[i])
        p_[i / 32] |= 1u << (i % 32);
  }
  uint32_t *data() { return p_; }
  uint32_t words() const { return n_; }
  Bits bits() const {
    Bits b(numBits_);
    for (size_t i = 0; i < numBits_; ++i)
      b[i] = (p_[i / 32] >> (i % 32)) & 1;
    return b;
  }
  // Canaries intact and the bits past numBits in the last word still zero.
  bool intact() const {
    for (const uint32_t *q = storage_.data(); q != storage_.data() + storage_.size(); ++q)
      if ((q < p_ || q >= p_ + n_) && *q != kCanary)
        return false;
    return numBits_ % 32 == 0 || (p_[n_ - 1] >> (numBits_ % 32)) == 0;
  }

private:
  size_t numBits_;
  uint32_t n_;
  std::vector<uint32_t> storage_;
  uint32_t *p_;
};

Bits randomBits(std::mt19937 &rng, size_t n, unsigned percentSet) {
  Bits b(n);
  std::uniform_int_distribution<unsigned> pct(0, 99);
  for (size_t i = 0; i < n; ++i)
    b[i] = pct(rng) < percentSet;
  return b;
}

std::string show(const Bits &b) {
  std::string s;
  for (bool x : b)
    s += x ? '1' : '0';
  return s;
}

// The sizes of the issue plus a few random large ones.
std::vector<size_t> testSizes(std::mt19937 &rng) {
  std::vector<size_t> sizes{0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099};
  std::uniform_int_distribution<size_t> large(130, 5000);
  for (int i = 0; i < 6; ++i)
    sizes.push_back(large(rng));
  return sizes;
}

// How the destination of an IfChanged operation relates to what is added:
// random; already containing it (converged: must return false and change
// nothing); converged except one bit (the first change is in one random word,
// anywhere in prologue, main loop or epilogue).
enum class Mode { Random, Converged, OneBitShort };
constexpr Mode kModes[] = {Mode::Random, Mode::Converged, Mode::OneBitShort};

struct ScalarSet {
  static const BitKernels *get() { return &scalarKernels(); }
};
struct Sse2Set {
  static const BitKernels *get() { return &sse2Kernels(); }
};
struct Avx2Set {
  static const BitKernels *get() { return avx2Kernels(); }
};

template <class Set> class BitKernelsTest : public ::testing::Test {
protected:
  void SetUp() override {
    k_ = Set::get();
    if (!k_)
      GTEST_SKIP() << "CPU has no AVX2";
  }
  const BitKernels *k_ = nullptr;
  std::mt19937 rng_{12345};
};
using KernelSets = ::testing::Types<ScalarSet, Sse2Set, Avx2Set>;
TYPED_TEST_SUITE(BitKernelsTest, KernelSets);

// Every (size, dst offset, mode) with sources at other offsets.
template <class F> void forEachCase(std::mt19937 &rng, F f) {
  for (size_t size : testSizes(rng))
    for (uint32_t off = 0; off < kMaxOffset; ++off)
      for (Mode mode : kModes) {
        SCOPED_TRACE("size " + std::to_string(size) + " offset " + std::to_string(off) + " mode " +
                     std::to_string(int(mode)));
        f(size, off, mode);
      }
}

size_t randomIndexWhere(std::mt19937 &rng, const Bits &b, bool value) {
  std::vector<size_t> at;
  for (size_t i = 0; i < b.size(); ++i)
    if (b[i] == value)
      at.push_back(i);
  return at.empty() ? b.size() : at[std::uniform_int_distribution<size_t>(0, at.size() - 1)(rng)];
}
// Turns a converged d (d ⊇ add) into one that misses one random set bit of add.
void dropOneBit(std::mt19937 &rng, Bits &d, const Bits &add) {
  if (size_t i = randomIndexWhere(rng, add, true); i < d.size())
    d[i] = false;
}
// Turns d ⊆ s into d with one random bit outside s.
void setOneBitOutside(std::mt19937 &rng, Bits &d, const Bits &s) {
  if (size_t i = randomIndexWhere(rng, s, false); i < d.size())
    d[i] = true;
}

// d |= s; orIfChanged returns whether d changed.
TYPED_TEST(BitKernelsTest, Or) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode mode) {
    Bits s = randomBits(this->rng_, size, 30), d = randomBits(this->rng_, size, 30);
    if (mode != Mode::Random)
      for (size_t i = 0; i < size; ++i)
        d[i] = d[i] || s[i];
    if (mode == Mode::OneBitShort)
      dropOneBit(this->rng_, d, s);
    Bits want = d;
    for (size_t i = 0; i < size; ++i)
      want[i] = d[i] || s[i];

    WordArray wd(d, off), ws(s, (off + 3) % kMaxOffset);
    this->k_->orInto(wd.data(), ws.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(want));
    EXPECT_TRUE(wd.intact() && ws.intact());

    WordArray cd(d, off), cs(s, (off + 5) % kMaxOffset);
    EXPECT_EQ(this->k_->orIfChanged(cd.data(), cs.data(), cd.words()), want != d);
    EXPECT_EQ(show(cd.bits()), show(want));
    EXPECT_TRUE(cd.intact() && cs.intact());
  });
}

// d &= s; andIfChanged returns whether d changed.
TYPED_TEST(BitKernelsTest, And) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode mode) {
    Bits s = randomBits(this->rng_, size, 70), d = randomBits(this->rng_, size, 70);
    // Converged for AND: d ⊆ s. One bit short: one bit of d outside s.
    if (mode != Mode::Random)
      for (size_t i = 0; i < size; ++i)
        d[i] = d[i] && s[i];
    if (mode == Mode::OneBitShort)
      setOneBitOutside(this->rng_, d, s);
    Bits want = d;
    for (size_t i = 0; i < size; ++i)
      want[i] = d[i] && s[i];

    WordArray wd(d, off), ws(s, (off + 1) % kMaxOffset);
    this->k_->andInto(wd.data(), ws.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(want));
    EXPECT_TRUE(wd.intact() && ws.intact());

    WordArray cd(d, off), cs(s, (off + 6) % kMaxOffset);
    EXPECT_EQ(this->k_->andIfChanged(cd.data(), cs.data(), cd.words()), want != d);
    EXPECT_EQ(show(cd.bits()), show(want));
    EXPECT_TRUE(cd.intact() && cs.intact());
  });
}

// d ^= s; and d ^= d (exact aliasing) clears d.
TYPED_TEST(BitKernelsTest, Xor) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode) {
    Bits s = randomBits(this->rng_, size, 50), d = randomBits(this->rng_, size, 50);
    Bits want(size);
    for (size_t i = 0; i < size; ++i)
      want[i] = d[i] != s[i];
    WordArray wd(d, off), ws(s, (off + 2) % kMaxOffset);
    this->k_->xorInto(wd.data(), ws.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(want));
    EXPECT_TRUE(wd.intact() && ws.intact());
    this->k_->xorInto(wd.data(), wd.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(Bits(size)));
  });
}

// d = a & b, whatever d held before.
TYPED_TEST(BitKernelsTest, AssignAnd) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode) {
    Bits a = randomBits(this->rng_, size, 50), b = randomBits(this->rng_, size, 50);
    Bits d = randomBits(this->rng_, size, 50), want(size);
    for (size_t i = 0; i < size; ++i)
      want[i] = a[i] && b[i];
    WordArray wd(d, off), wa(a, (off + 1) % kMaxOffset), wb(b, (off + 7) % kMaxOffset);
    this->k_->assignAnd(wd.data(), wa.data(), wb.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(want));
    EXPECT_TRUE(wd.intact() && wa.intact() && wb.intact());
  });
}

// d |= gen | (in & ~kill) (spec/004's transfer function); the IfChanged
// variant returns whether d changed.
TYPED_TEST(BitKernelsTest, OrWithAndNot) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode mode) {
    Bits gen = randomBits(this->rng_, size, 10), in = randomBits(this->rng_, size, 40);
    Bits kill = randomBits(this->rng_, size, 50), d = randomBits(this->rng_, size, 20);
    Bits add(size);
    for (size_t i = 0; i < size; ++i)
      add[i] = gen[i] || (in[i] && !kill[i]);
    if (mode != Mode::Random)
      for (size_t i = 0; i < size; ++i)
        d[i] = d[i] || add[i];
    if (mode == Mode::OneBitShort)
      dropOneBit(this->rng_, d, add);
    Bits want(size);
    for (size_t i = 0; i < size; ++i)
      want[i] = d[i] || add[i];

    WordArray wd(d, off), wg(gen, (off + 1) % kMaxOffset), wi(in, (off + 2) % kMaxOffset),
        wk(kill, (off + 3) % kMaxOffset);
    this->k_->orWithAndNot(wd.data(), wg.data(), wi.data(), wk.data(), wd.words());
    EXPECT_EQ(show(wd.bits()), show(want));
    EXPECT_TRUE(wd.intact() && wg.intact() && wi.intact() && wk.intact());

    WordArray cd(d, off), cg(gen, (off + 4) % kMaxOffset), ci(in, (off + 5) % kMaxOffset),
        ck(kill, (off + 6) % kMaxOffset);
    EXPECT_EQ(
        this->k_->orWithAndNotIfChanged(cd.data(), cg.data(), ci.data(), ck.data(), cd.words()),
        want != d);
    EXPECT_EQ(show(cd.bits()), show(want));
    EXPECT_TRUE(cd.intact() && cg.intact() && ci.intact() && ck.intact());
  });
}

TYPED_TEST(BitKernelsTest, Popcount) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode mode) {
    unsigned pct = mode == Mode::Random ? 50 : mode == Mode::Converged ? 100 : 3;
    Bits b = randomBits(this->rng_, size, pct);
    WordArray w(b, off);
    EXPECT_EQ(this->k_->popcount(w.data(), w.words()),
              uint32_t(std::count(b.begin(), b.end(), true)));
  });
}

// isSubsetOf(a, b) is "no i with a[i] && !b[i]".
TYPED_TEST(BitKernelsTest, IsSubsetOf) {
  forEachCase(this->rng_, [&](size_t size, uint32_t off, Mode mode) {
    Bits b = randomBits(this->rng_, size, 60), a = randomBits(this->rng_, size, 30);
    if (mode != Mode::Random)
      for (size_t i = 0; i < size; ++i)
        a[i] = a[i] && b[i];
    if (mode == Mode::OneBitShort)
      setOneBitOutside(this->rng_, a, b);
    bool want = true;
    for (size_t i = 0; i < size; ++i)
      want = want && !(a[i] && !b[i]);
    WordArray wa(a, off), wb(b, (off + 3) % kMaxOffset);
    EXPECT_EQ(this->k_->isSubsetOf(wa.data(), wb.data(), wa.words()), want);
  });
}

// Hand-derived single-word cases: 0b0011 | 0b0101 = 0b0111 (changed);
// 0b0111 | 0b0101 unchanged; 0b0111 & 0b0101 = 0b0101; gen 0b1000 |
// (in 0b0110 & ~kill 0b0010 = 0b0100) into 0b0001 gives 0b1101.
TYPED_TEST(BitKernelsTest, HandDerivedWords) {
  uint32_t d = 0b0011, s = 0b0101;
  EXPECT_TRUE(this->k_->orIfChanged(&d, &s, 1));
  EXPECT_EQ(d, 0b0111u);
  EXPECT_FALSE(this->k_->orIfChanged(&d, &s, 1));
  EXPECT_TRUE(this->k_->andIfChanged(&d, &s, 1));
  EXPECT_EQ(d, 0b0101u);
  uint32_t x = 0b0001, gen = 0b1000, in = 0b0110, kill = 0b0010;
  EXPECT_TRUE(this->k_->orWithAndNotIfChanged(&x, &gen, &in, &kill, 1));
  EXPECT_EQ(x, 0b1101u);
  EXPECT_FALSE(this->k_->orWithAndNotIfChanged(&x, &gen, &in, &kill, 1));
  // 0xFFFFFFFF has 32 set bits, 0x80000001 two: 34.
  uint32_t w[2] = {0xFFFFFFFFu, 0x80000001u};
  EXPECT_EQ(this->k_->popcount(w, 2), 34u);
}

// ---- BitVector ----------------------------------------------------------------

Bits bitsOf(const BitVector &v) {
  Bits b(v.size());
  for (uint32_t i = 0; i < v.size(); ++i)
    b[i] = v.testBit(i);
  return b;
}
BitVector vectorOf(const Bits &b) {
  BitVector v(uint32_t(b.size()));
  for (size_t i = 0; i < b.size(); ++i)
    if (b[i])
      v.setBit(uint32_t(i));
  return v;
}
// Bits past size() in the last word are zero (bitvector.h's invariant).
bool tailClear(const BitVector &v) {
  return v.size() % 32 == 0 || (v.words()[v.wordCount() - 1] >> (v.size() % 32)) == 0;
}

TEST(BitVector, SizesAndWordCounts) {
  // word_count = (bit_count + 31) >> 5 (spec/004 Layout).
  EXPECT_EQ(BitVector().wordCount(), 0u);
  EXPECT_EQ(BitVector(0).wordCount(), 0u);
  EXPECT_EQ(BitVector(1).wordCount(), 1u);
  EXPECT_EQ(BitVector(32).wordCount(), 1u);
  EXPECT_EQ(BitVector(33).wordCount(), 2u);
  EXPECT_EQ(BitVector(129).wordCount(), 5u);
  EXPECT_EQ(BitVector(129).size(), 129u);
  EXPECT_EQ(BitVector(129).popcount(), 0u);
}

TEST(BitVector, SetClearTestBit) {
  BitVector v(70);
  v.setBit(0);
  v.setBit(31);
  v.setBit(32);
  v.setBit(69);
  // Bit i is bit i%32 of word i/32: word0 = 1 | 1<<31, word1 = 1, word2 = 1<<5.
  EXPECT_EQ(v.words()[0], 0x80000001u);
  EXPECT_EQ(v.words()[1], 0x00000001u);
  EXPECT_EQ(v.words()[2], 0x00000020u);
  EXPECT_TRUE(v.testBit(31));
  EXPECT_FALSE(v.testBit(30));
  v.clearBit(31);
  EXPECT_EQ(v.words()[0], 0x00000001u);
  EXPECT_EQ(v.popcount(), 3u);
  v.clear();
  EXPECT_EQ(v.popcount(), 0u);
  EXPECT_EQ(v.size(), 70u);
}

TEST(BitVector, AllocateIsGrowOnlyAndClearsNewBits) {
  BitVector v(40);
  v.setBit(39);
  v.allocate(10); // no shrink
  EXPECT_EQ(v.size(), 40u);
  EXPECT_TRUE(v.testBit(39));
  v.allocate(1000);
  EXPECT_EQ(v.size(), 1000u);
  EXPECT_EQ(v.wordCount(), 32u); // (1000 + 31) >> 5
  EXPECT_TRUE(v.testBit(39));
  EXPECT_EQ(v.popcount(), 1u);
}

// Copy reallocates only when the capacity is short (spec/004 Layout); words
// left past a shorter copy must not reappear when the vector grows again.
TEST(BitVector, CopyKeepsCapacityAndGrowthClearsStaleWords) {
  BitVector big(1000);
  for (uint32_t i = 0; i < 1000; ++i)
    big.setBit(i);
  BitVector v(1000);
  const uint32_t *storage = v.words();
  BitVector small(10);
  small.setBit(3);
  v = small;
  EXPECT_EQ(v.words(), storage); // no reallocation
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v, small);
  v = big;
  EXPECT_EQ(v.words(), storage);
  v = small;
  v.allocate(1000); // within capacity: words 1.. held big's bits
  EXPECT_EQ(v.words(), storage);
  EXPECT_EQ(v.popcount(), 1u);
  EXPECT_TRUE(v.testBit(3));
  BitVector copy(big);
  EXPECT_EQ(copy, big);
  EXPECT_NE(copy.words(), big.words());
}

TEST(BitVector, MoveLeavesSourceEmpty) {
  BitVector a(100);
  a.setBit(99);
  const uint32_t *storage = a.words();
  BitVector b(std::move(a));
  EXPECT_EQ(b.words(), storage);
  EXPECT_TRUE(b.testBit(99));
  EXPECT_EQ(a.size(), 0u); // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(a.words(), nullptr);
  BitVector c(5);
  c = std::move(b);
  EXPECT_EQ(c.words(), storage);
  EXPECT_EQ(c.size(), 100u);
}

TEST(BitVector, EqualityNeedsSameSizeAndBits) {
  BitVector a(40), b(40), c(41);
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a == c);
  a.setBit(7);
  EXPECT_FALSE(a == b);
  b.setBit(7);
  EXPECT_EQ(a, b);
}

// extractBits(out, start, end): out bit j = bit start + j for j < end - start,
// 0 after. Hand case: bits 30..33 set in 70 bits; [30, 34) = 0b1111;
// [31, 65) has 34 bits: bits 31,32,33 -> out bits 0,1,2 = 0b111 in word 0, word 1 = 0.
TEST(BitVector, ExtractBitsHandCase) {
  BitVector v(70);
  for (uint32_t i = 30; i < 34; ++i)
    v.setBit(i);
  uint32_t out[3] = {kCanary, kCanary, kCanary};
  v.extractBits(out, 30, 34);
  EXPECT_EQ(out[0], 0xFu);
  EXPECT_EQ(out[1], kCanary);
  v.extractBits(out, 31, 65);
  EXPECT_EQ(out[0], 0x7u);
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], kCanary);
}

TEST(BitVector, ExtractBitsMatchesModel) {
  std::mt19937 rng(777);
  for (size_t size : testSizes(rng)) {
    Bits b = randomBits(rng, size, 50);
    BitVector v = vectorOf(b);
    for (int trial = 0; trial < 40; ++trial) {
      uint32_t start = std::uniform_int_distribution<uint32_t>(0, uint32_t(size))(rng);
      uint32_t end = std::uniform_int_distribution<uint32_t>(start, uint32_t(size))(rng);
      uint32_t count = end - start;
      std::vector<uint32_t> out(wordsFor(count) + 1, kCanary);
      v.extractBits(out.data(), start, end);
      SCOPED_TRACE(std::to_string(size) + " [" + std::to_string(start) + "," + std::to_string(end) +
                   ")");
      for (uint32_t j = 0; j < 32 * wordsFor(count); ++j)
        ASSERT_EQ((out[j / 32] >> (j % 32)) & 1, j < count && b[start + j] ? 1u : 0u)
            << "bit " << j;
      EXPECT_EQ(out.back(), kCanary);
    }
  }
}

// Every bulk operation through the class on random vectors of the test
// sizes, against the model; sources aliased with the destination included.
TEST(BitVector, BulkOperationsMatchModel) {
  std::mt19937 rng(4242);
  for (size_t size : testSizes(rng)) {
    SCOPED_TRACE("size " + std::to_string(size));
    Bits a = randomBits(rng, size, 40), b = randomBits(rng, size, 40),
         c = randomBits(rng, size, 40);
    Bits d = randomBits(rng, size, 40);
    BitVector va = vectorOf(a), vb = vectorOf(b), vc = vectorOf(c), vd = vectorOf(d);
    auto apply = [&](auto f) {
      Bits r(size);
      for (size_t i = 0; i < size; ++i)
        r[i] = f(i);
      return r;
    };
    BitVector x = vd;
    x |= va;
    EXPECT_EQ(bitsOf(x), apply([&](size_t i) { return d[i] || a[i]; }));
    x = vd;
    x &= va;
    EXPECT_EQ(bitsOf(x), apply([&](size_t i) { return d[i] && a[i]; }));
    x = vd;
    x ^= va;
    EXPECT_EQ(bitsOf(x), apply([&](size_t i) { return d[i] != a[i]; }));
    x.assignAnd(va, vb);
    EXPECT_EQ(bitsOf(x), apply([&](size_t i) { return a[i] && b[i]; }));
    x = vd;
    x.orWithAndNot(va, vb, vc);
    Bits live = apply([&](size_t i) { return d[i] || a[i] || (b[i] && !c[i]); });
    EXPECT_EQ(bitsOf(x), live);
    x = vd;
    EXPECT_EQ(x.orWithAndNotIfChanged(va, vb, vc), live != d);
    EXPECT_EQ(bitsOf(x), live);
    EXPECT_FALSE(x.orWithAndNotIfChanged(va, vb, vc));
    x = vd;
    EXPECT_EQ(x.orIfChanged(va), apply([&](size_t i) { return d[i] || a[i]; }) != d);
    EXPECT_FALSE(x.orIfChanged(va));
    x = vd;
    EXPECT_EQ(x.andIfChanged(va), apply([&](size_t i) { return d[i] && a[i]; }) != d);
    EXPECT_FALSE(x.andIfChanged(va));
    EXPECT_TRUE(x.isSubsetOf(va));
    EXPECT_TRUE(x.isSubsetOf(vd));
    EXPECT_EQ(va.isSubsetOf(vb), apply([&](size_t i) { return a[i] && !b[i]; }) == Bits(size));
    EXPECT_EQ(va.popcount(), uint32_t(std::count(a.begin(), a.end(), true)));
    // Aliasing: x |= x changes nothing; x.assignAnd(x, x) is x.
    x = va;
    EXPECT_FALSE(x.orIfChanged(x));
    x.assignAnd(x, x);
    EXPECT_EQ(x, va);
    EXPECT_TRUE(tailClear(x));
  }
}

// Release-build rule for unequal sizes (bitvector.h): the other operand is
// read truncated or zero-extended to this one's size.
TEST(BitVector, UnequalSizesReadZeroExtendedOrTruncated) {
#ifndef NDEBUG
  GTEST_SKIP() << "unequal sizes assert in debug builds";
#endif
  BitVector full(100);
  for (uint32_t i = 0; i < 100; ++i)
    full.setBit(i);
  BitVector shortOnes(40);
  for (uint32_t i = 0; i < 40; ++i)
    shortOnes.setBit(i);

  BitVector x = full;
  x &= shortOnes; // bits 40..99 are 0 in the zero-extended operand: cleared
  EXPECT_EQ(x.popcount(), 40u);
  EXPECT_TRUE(x.testBit(39));
  EXPECT_FALSE(x.testBit(40));

  BitVector y(40);
  y |= full; // truncated to 40 bits: all 40 set, nothing past bit 39
  EXPECT_EQ(y.popcount(), 40u);
  EXPECT_TRUE(tailClear(y));
  BitVector z(40);
  EXPECT_TRUE(z.orIfChanged(full));
  EXPECT_FALSE(z.orIfChanged(full)); // bits 40..63 of full's word 1 do not count

  EXPECT_FALSE(full.isSubsetOf(shortOnes)); // bits 40..99 outside
  EXPECT_TRUE(shortOnes.isSubsetOf(full));
  BitVector w(100);
  w.orWithAndNot(shortOnes, full, BitVector(7)); // 40 gen bits | (100 in bits & ~0)
  EXPECT_EQ(w.popcount(), 100u);
}

TEST(BitVector, BestKernelsPreferAvx2WhenAvailable) {
  const BitKernels *avx2 = avx2Kernels();
  EXPECT_EQ(std::string(bestKernels().name), avx2 ? "avx2" : "sse2");
  EXPECT_EQ(std::string(scalarKernels().name), "scalar");
  EXPECT_EQ(std::string(sse2Kernels().name), "sse2");
  EXPECT_EQ(avx2 != nullptr, bool(__builtin_cpu_supports("avx2")));
}

} // namespace
} // namespace ori::optimized
