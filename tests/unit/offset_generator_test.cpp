// SPDX-License-Identifier: Apache-2.0
// OffsetGenerator: a sequential mix walks the region once per direction, each from its own
// cursor (fio's last_pos[ddir]), so reads and writes are each a sequential stream; a random one
// shares one map; an interleaved job owns every jobs-th block.
#include "runner/measure/offset_generator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace storqual::runner {
namespace {
using engines::Direction;

constexpr std::uint64_t kBs = 4096;

OffsetGenerator::Layout layout(RwMode mode, std::uint64_t blocks) {
  return {.mode = mode, .region_offset = 1 << 20, .region_blocks = blocks, .block_size = kBs};
}

// rw=rw as fio issues it: reads at 0, 1, 2 ... and writes at 0, 1, 2 ..., however the two
// directions interleave; each wraps at the end of the region on its own.
TEST(OffsetGenerator, SequentialMixKeepsACursorPerDirection) {
  Random rng(7);
  OffsetGenerator g(layout(RwMode::ReadWrite, 5), rng);
  const Direction R = Direction::Read, W = Direction::Write;
  std::vector<std::uint64_t> reads, writes;
  for (Direction d : {R, R, W, R, W, W, R, R, R, W, R})
    (d == R ? reads : writes).push_back((g.next(d) - (1 << 20)) / kBs);
  EXPECT_EQ(reads, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 0, 1}));
  EXPECT_EQ(writes, (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

TEST(OffsetGenerator, SequentialJobOwnsEveryJobsthBlock) {
  Random rng(7);
  OffsetGenerator::Layout l = layout(RwMode::Write, 10);
  l.jobs = 3;
  l.job = 1;
  OffsetGenerator g(l, rng);
  EXPECT_EQ(g.blocks(), 3u);  // blocks 1, 4, 7
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 4; ++i) got.push_back((g.next(Direction::Write) - (1 << 20)) / kBs);
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 4, 7, 1}));
}

// A random mix draws reads and writes from one random map: a pass covers every block once,
// whichever direction drew it.
TEST(OffsetGenerator, RandomMixSharesOnePass) {
  Random rng(11);
  OffsetGenerator g(layout(RwMode::RandRW, 64), rng);
  std::vector<int> seen(64, 0);
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t off = g.next(i % 3 ? Direction::Read : Direction::Write);
    ASSERT_EQ(off % kBs, 0u);
    ++seen[(off - (1 << 20)) / kBs];
  }
  for (int b = 0; b < 64; ++b) EXPECT_EQ(seen[b], 1) << "block " << b;
}

}  // namespace
}  // namespace storqual::runner
