// The optimized half's FNV-1a hash map (optimized/fnv_map.h, spec/000 "CFG
// Edge Hash Maps").
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "optimized/fnv_map.h"

namespace ori::optimized {
namespace {

// Expected values computed independently with Python, FNV-1a 32-bit over the
// key's 4 bytes, least significant first:
//   def h(k):
//     x = 0x811C9DC5
//     for i in range(4): x = ((x ^ ((k >> 8*i) & 0xFF)) * 16777619) & 0xFFFFFFFF
//     return x
// By hand for the first byte of key 0: 0x811C9DC5 * 0x01000193 mod 2^32 =
// 0x050C5D1F (the well-known FNV-1a of the single byte 0x00); four zero bytes
// give 0x4B95F515.
TEST(FnvMap, HashOfKnownKeys) {
  EXPECT_EQ(fnv1a(0u), 0x4B95F515u);
  EXPECT_EQ(fnv1a(1u), 0xFB69B604u);
  EXPECT_EQ(fnv1a(2u), 0xEBEE7337u);
  EXPECT_EQ(fnv1a(7u), 0x5B1137E2u);
  EXPECT_EQ(fnv1a(0xFFu), 0xC38FB6DAu);
  EXPECT_EQ(fnv1a(0x100u), 0x0CAF41CAu);
  EXPECT_EQ(fnv1a(0x12345678u), 0xA3649785u);
  EXPECT_EQ(fnv1a(0xFFFFFFFFu), 0xE3160FB1u);
  static_assert(fnv1a(0u) == 0x4B95F515u, "fnv1a is constexpr");
}

TEST(FnvMap, KeysLandInTheirHashBucket) {
  // With 8 buckets: h(0) & 7 = 5, h(1) & 7 = 4, h(7) & 7 = 2, h(0xFF) & 7 = 2.
  FnvMap<int> m;
  m[7] = 1;
  m[0xFF] = 2; // collides with 7
  m[0] = 3;
  EXPECT_EQ(m.bucketCount(), 8u);
  EXPECT_EQ(m.bucketSize(2), 2u);
  EXPECT_EQ(m.bucketSize(5), 1u);
  EXPECT_EQ(m.bucketSize(4), 0u);
  EXPECT_EQ(*m.find(7), 1);
  EXPECT_EQ(*m.find(0xFF), 2);
  EXPECT_EQ(*m.find(0), 3);
  EXPECT_EQ(m.find(1), nullptr);
}

TEST(FnvMap, InsertOrFindReportsInsertion) {
  FnvMap<std::vector<uint32_t>> m;
  auto [v, inserted] = m.insertOrFind(42);
  ASSERT_TRUE(inserted);
  v->push_back(1);
  auto [v2, inserted2] = m.insertOrFind(42);
  EXPECT_FALSE(inserted2);
  EXPECT_EQ(v2, v);
  EXPECT_EQ(*v2, (std::vector<uint32_t>{1}));
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.uniqueKeys(), 1);
}

TEST(FnvMap, GrowsByFourWhenKeysExceedBuckets) {
  FnvMap<int> m;
  for (uint32_t k = 0; k < 8; ++k)
    m[k] = int(k);
  EXPECT_EQ(m.bucketCount(), 8u); // 8 keys in 8 buckets: load factor 1.0, no growth
  m[8] = 8;
  EXPECT_EQ(m.bucketCount(), 32u);
  for (uint32_t k = 9; k < 32; ++k)
    m[k] = int(k);
  EXPECT_EQ(m.bucketCount(), 32u);
  m[32] = 32;
  EXPECT_EQ(m.bucketCount(), 128u);
  for (uint32_t k = 0; k <= 32; ++k)
    ASSERT_EQ(*m.find(k), int(k)) << k;
  size_t total = 0;
  for (size_t b = 0; b < m.bucketCount(); ++b)
    total += m.bucketSize(b);
  EXPECT_EQ(total, 33u);
}

TEST(FnvMap, FreeListReusesErasedNodes) {
  FnvMap<std::vector<uint32_t>> m;
  for (uint32_t k = 0; k < 5; ++k)
    m[k].push_back(k);
  EXPECT_EQ(m.nodePoolSize(), 5u);
  EXPECT_TRUE(m.erase(3));
  EXPECT_TRUE(m.erase(1));
  EXPECT_FALSE(m.erase(1));
  EXPECT_EQ(m.freeNodes(), 2u);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.find(3), nullptr);
  // Two new keys take the two free nodes; the pool does not grow, and a reused
  // node starts with a default (empty) value.
  EXPECT_TRUE(m[100].empty());
  m[100].push_back(7);
  EXPECT_TRUE(m[200].empty());
  EXPECT_EQ(m.freeNodes(), 0u);
  EXPECT_EQ(m.nodePoolSize(), 5u);
  m[300];
  EXPECT_EQ(m.nodePoolSize(), 6u);
  EXPECT_EQ(*m.find(100), (std::vector<uint32_t>{7}));
  EXPECT_EQ(*m.find(4), (std::vector<uint32_t>{4}));
}

TEST(FnvMap, EraseKeepsChainsIntact) {
  // 7 and 0xFF share bucket 2 at 8 buckets: erase the head, the tail, re-add.
  FnvMap<int> m;
  m[7] = 1;
  m[0xFF] = 2;
  EXPECT_TRUE(m.erase(7));
  EXPECT_EQ(*m.find(0xFF), 2);
  m[7] = 3; // appended after 0xFF: the tail pointer must be right
  EXPECT_TRUE(m.erase(7));
  EXPECT_EQ(m.bucketSize(2), 1u);
  m[7] = 4;
  EXPECT_EQ(*m.find(7), 4);
  EXPECT_EQ(*m.find(0xFF), 2);
  EXPECT_EQ(m.bucketSize(2), 2u);
}

TEST(FnvMap, ManyKeysMatchStdMap) {
  FnvMap<uint32_t> m;
  std::map<uint32_t, uint32_t> ref;
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245u + 12345u;
    uint32_t key = (x >> 8) % 50000u;
    if ((x & 3) == 0) {
      EXPECT_EQ(m.erase(key), ref.erase(key) == 1);
    } else {
      m[key] = uint32_t(i);
      ref[key] = uint32_t(i);
    }
  }
  ASSERT_EQ(m.size(), ref.size());
  for (auto [k, v] : ref)
    ASSERT_EQ(*m.find(k), v) << k;
  size_t seen = 0;
  m.forEach([&](uint32_t k, uint32_t v) {
    ++seen;
    EXPECT_EQ(ref.at(k), v);
  });
  EXPECT_EQ(seen, ref.size());
  // Load factor stays at most 1 and the bucket count is 8 * 4^k.
  EXPECT_LE(m.size(), m.bucketCount());
  size_t b = 8;
  while (b < m.bucketCount())
    b *= 4;
  EXPECT_EQ(b, m.bucketCount());
  // The node pool never exceeds the peak number of live keys.
  EXPECT_LE(m.nodePoolSize(), 50000u);
}

} // namespace
} // namespace ori::optimized
