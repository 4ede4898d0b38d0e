// SPDX-License-Identifier: Apache-2.0
// RandomMap: every block once per pass, whatever the block count, with no per-block memory; each
// pass's order is a bijection; the order is scrambled and depends on the seed.
#include "runner/measure/random_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace storqual::runner {
namespace {

// Every block exactly once in each of `passes` passes.
void expect_permutations(std::uint64_t blocks, std::uint64_t seed, unsigned passes) {
  RandomMap map(blocks, seed);
  for (unsigned pass = 0; pass < passes; ++pass) {
    std::vector<std::uint8_t> seen(blocks, 0);
    for (std::uint64_t i = 0; i < blocks; ++i) {
      const std::uint64_t b = map.next();
      ASSERT_LT(b, blocks) << "blocks " << blocks;
      ASSERT_EQ(seen[b], 0) << "block " << b << " twice in pass " << pass << " of " << blocks;
      seen[b] = 1;
    }
    EXPECT_EQ(map.pass(), pass + 1);
  }
}

TEST(RandomMap, EveryBlockOncePerPassForAwkwardCounts) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 4ull, 5ull, 7ull, 8ull, 9ull, 100ull, 1000ull, 4095ull,
                          4096ull, 4097ull, 65535ull, 262144ull, 1000003ull})
    expect_permutations(n, 42 + n, n < 100000 ? 3 : 1);
}

// Each pass's order is a bijection of 0..2^n - 1 (checked exhaustively up to 16 bits, for
// several seeds and passes): the skip of values >= N then leaves a permutation of 0..N-1.
TEST(RandomMap, PermuteIsABijectionOfEveryWidth) {
  for (unsigned bits = 1; bits <= 16; ++bits) {
    const std::uint64_t size = std::uint64_t{1} << bits;
    for (std::uint64_t seed : {1ull, 99ull}) {
      RandomMap map(size, seed);
      ASSERT_EQ(map.width(), bits);
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::uint8_t> seen(size, 0);
        for (std::uint64_t x = 0; x < size; ++x) {
          const std::uint64_t y = map.permute(x);
          ASSERT_LT(y, size) << bits << " bits";
          ASSERT_EQ(seen[y], 0) << bits << " bits: " << y << " twice";
          seen[y] = 1;
        }
        for (std::uint64_t i = 0; i < size; ++i) (void)map.next();  // on to the next pass's keys
      }
    }
  }
}

TEST(RandomMap, WidthIsTheSmallestThatHoldsTheBlocks) {
  EXPECT_EQ(RandomMap(1, 1).width(), 1u);
  EXPECT_EQ(RandomMap(3, 1).width(), 2u);
  EXPECT_EQ(RandomMap(4, 1).width(), 2u);
  EXPECT_EQ(RandomMap(5, 1).width(), 3u);
  EXPECT_EQ(RandomMap(262144, 1).width(), 18u);  // 1 GiB at 4 KiB
  EXPECT_EQ(RandomMap(262145, 1).width(), 19u);
  EXPECT_EQ(RandomMap(~std::uint64_t{0} >> 1, 1).width(), 63u);
  EXPECT_EQ(RandomMap(std::uint64_t{1} << 40, 7).width(), 40u);
  EXPECT_EQ(RandomMap(~std::uint64_t{0}, 7).width(), 64u);
}

// Scrambled: not the identity, not a walk (few consecutive outputs are neighbours), different
// seeds give different orders, and the two halves of the region are visited evenly early on.
TEST(RandomMap, OrderIsScrambledAndSeeded) {
  const std::uint64_t n = 1u << 16;
  RandomMap a(n, 1), b(n, 2);
  std::vector<std::uint64_t> va, vb;
  for (std::uint64_t i = 0; i < n; ++i) {
    va.push_back(a.next());
    vb.push_back(b.next());
  }
  EXPECT_NE(va, vb);
  unsigned neighbours = 0, halved = 0, low_half_first_quarter = 0;
  for (std::uint64_t i = 1; i < n; ++i) {
    const std::uint64_t d = va[i] > va[i - 1] ? va[i] - va[i - 1] : va[i - 1] - va[i];
    if (d <= 1) ++neighbours;
    if (va[i] == va[i - 1] / 2 || va[i] == (va[i - 1] + 1) / 2) ++halved;
  }
  for (std::uint64_t i = 0; i < n / 4; ++i)
    if (va[i] < n / 2) ++low_half_first_quarter;
  EXPECT_LT(neighbours, n / 1000);
  EXPECT_LT(halved, n / 1000);
  EXPECT_NEAR(static_cast<double>(low_half_first_quarter), n / 8.0, n / 8.0 * 0.05);
  // A second pass is a permutation in another order.
  std::vector<std::uint64_t> second;
  for (std::uint64_t i = 0; i < n; ++i) second.push_back(a.next());
  EXPECT_NE(second, va);
}

}  // namespace
}  // namespace storqual::runner
