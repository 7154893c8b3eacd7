// RegIds (optimized/reg_index.h): ids in first-seen order, whatever the
// register numbers, checked against a std::map numbering the same sequence.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "optimized/reg_index.h"

namespace ori::optimized {
namespace {

TEST(RegIds, FirstSeenOrderAndSameIdAgain) {
  RegIds ids;
  bool added = false;
  EXPECT_EQ(ids.get(Reg{RegFile::R, 7}, &added), 0u);
  EXPECT_TRUE(added);
  added = false;
  EXPECT_EQ(ids.get(Reg{RegFile::P, 7}, &added), 1u); // another file, another register
  EXPECT_TRUE(added);
  added = false;
  EXPECT_EQ(ids.get(Reg{RegFile::R, 7}, &added), 0u);
  EXPECT_FALSE(added);
  EXPECT_EQ(ids.size(), 2u);
}

// A number far past the table goes to the hash map; when the table later grows
// past that number, the register must still get its first id, not a new one.
TEST(RegIds, SparseNumberKeepsItsIdWhenTheTableGrowsPastIt) {
  RegIds ids;
  EXPECT_EQ(ids.get(Reg{RegFile::R, 5000}), 0u);        // past max(4096, 16 x 1): hash map
  EXPECT_EQ(ids.get(Reg{RegFile::R, 0xFFFFFFF0u}), 1u); // far past anything: hash map
  for (uint32_t n = 0; n < 400; ++n)
    EXPECT_EQ(ids.get(Reg{RegFile::R, n}), n + 2);
  EXPECT_EQ(ids.get(Reg{RegFile::R, 4999}), 402u); // 16 x 403 > 4999: the table grows past 5000
  EXPECT_EQ(ids.get(Reg{RegFile::R, 5000}), 0u);
  EXPECT_EQ(ids.get(Reg{RegFile::R, 0xFFFFFFF0u}), 1u);
  EXPECT_EQ(ids.size(), 403u);
}

TEST(RegIds, AgreesWithAMapOnRandomNumbers) {
  std::mt19937 rng(20261127);
  for (int trial = 0; trial < 50; ++trial) {
    RegIds ids;
    std::map<Reg, uint32_t> expected;
    for (int k = 0; k < 3000; ++k) {
      Reg r{RegFile(rng() % kNumRegFiles), 0};
      switch (rng() % 4) { // dense, a little past the table, far past it, anywhere
      case 0:
        r.num = rng() % 200;
        break;
      case 1:
        r.num = 4000 + rng() % 20000;
        break;
      case 2:
        r.num = 0xFFFF0000u + rng() % 1000;
        break;
      default:
        r.num = uint32_t(rng());
        break;
      }
      if (r.isConst())
        continue;
      const auto [it, fresh] = expected.try_emplace(r, uint32_t(expected.size()));
      bool added = false;
      ASSERT_EQ(ids.get(r, &added), it->second) << "trial " << trial << " step " << k;
      ASSERT_EQ(added, fresh);
    }
    EXPECT_EQ(ids.size(), expected.size());
  }
}

} // namespace
} // namespace ori::optimized
