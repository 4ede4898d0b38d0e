// SPDX-License-Identifier: Apache-2.0
// fio's LFSR (runner/measure/fio_lfsr.hpp, random_generator=lfsr): the blocks fio 3.33 issues for
// the same region and job, captured from `fio --name=j --filename=FILE --rw=randread --bs=4k
// --size=1m --random_generator=lfsr --write_iolog=LOG` (the first job, and the second job of a
// file, thread_number 2; a 1000-block region), every block once per pass, a pass after the last
// starting over as fio's time-based reset does, and the offset generator's case for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runner/measure/fio_lfsr.hpp"
#include "runner/measure/fio_random.hpp"
#include "runner/measure/offset_generator.hpp"
#include "runner/measure/random.hpp"

namespace storqual::runner {
namespace {

std::vector<std::uint64_t> draw(FioLfsr& l, std::size_t n) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(l.next());
  return out;
}

TEST(FioLfsr, GivesFiosBlocksForFiosSeed) {
  FioLfsr first(256, fio_block_seed(1));
  ASSERT_TRUE(first.valid());
  // fio's offsets / 4096: 962560 839680 667648 802816 466944 167936 630784 380928 552960 ...
  EXPECT_EQ(draw(first, 12),
            (std::vector<std::uint64_t>{235, 205, 163, 196, 114, 41, 154, 93, 135, 248, 108, 38}));
  FioLfsr second(256, fio_block_seed(2));
  EXPECT_EQ(draw(second, 4), (std::vector<std::uint64_t>{175, 229, 169, 186}));
  FioLfsr large(1000, fio_block_seed(1));
  EXPECT_EQ(draw(large, 4), (std::vector<std::uint64_t>{443, 733, 878, 503}));
}

TEST(FioLfsr, EveryBlockOncePerPassAndThePassRepeats) {
  for (std::uint64_t blocks : {1ull, 2ull, 7ull, 8ull, 256ull, 1000ull, 4097ull}) {
    FioLfsr l(blocks, fio_block_seed(1));
    ASSERT_TRUE(l.valid()) << blocks;
    std::vector<std::uint64_t> pass = draw(l, blocks), sorted = pass;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint64_t b = 0; b < blocks; ++b) ASSERT_EQ(sorted[b], b) << blocks;
    // The next pass (fio's reset to the seed, as a time-based job does): every block again.
    std::vector<std::uint64_t> again = draw(l, blocks);
    std::sort(again.begin(), again.end());
    EXPECT_EQ(again, sorted) << blocks;
  }
  EXPECT_FALSE(FioLfsr(0, 1).valid());
  // The all-ones state of the 3-bit register (blocks 1..7) is the one seed fio refuses.
  EXPECT_FALSE(FioLfsr(5, 7).valid());
}

TEST(FioLfsr, TheOffsetGeneratorDrawsFromIt) {
  Random rng(1);
  OffsetGenerator g(OffsetGenerator::Layout{.mode = RwMode::RandRead,
                                            .region_offset = 1 << 20,
                                            .region_blocks = 256,
                                            .block_size = 4096},
                    rng);
  FioLfsr l(g.blocks(), fio_block_seed(1));
  g.lfsr(&l);
  EXPECT_EQ(g.next(engines::Direction::Read), (1u << 20) + 235u * 4096);
  EXPECT_EQ(g.next(engines::Direction::Read), (1u << 20) + 205u * 4096);
}

}  // namespace
}  // namespace storqual::runner
