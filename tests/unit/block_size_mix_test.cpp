// SPDX-License-Identifier: Apache-2.0
// Block-size mixes (runner/measure/block_size_mix.hpp): fio's bssplit and bsrange grammar, and the
// sizes fio 3.33 itself drew for the same jobs (the references below are `fio --debug=io` on
// the null engine: the len= of each "fill" line, in order).
#include "runner/measure/block_size_mix.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

std::uint64_t size_of(std::string_view s) {
  return parse_size(s);
}

std::vector<std::uint64_t> draws(const BlockSizeChoice& c, unsigned thread, FioSeed which,
                                 std::size_t n, std::uint64_t randseed = kFioDefaultRandseed) {
  BlockSizeDraw d(c, fio_seed(which, randseed, thread), false);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(d.next(1ull << 30));
  return out;
}

constexpr std::uint64_t K = 1024;

// [a] ioengine=null rw=randread size=1g bssplit=4k/10:64k/50:32k/40 number_ios=40 norandommap
TEST(BlockSizeMix, BssplitDrawsFiosSizesForTheSameSeed) {
  const BlockSizeMix mix = parse_bssplit("4k/10:64k/50:32k/40", size_of);
  const std::vector<std::uint64_t> fio = {
      32 * K, 64 * K, 64 * K, 32 * K, 64 * K, 32 * K, 64 * K, 32 * K, 32 * K, 32 * K,
      32 * K, 32 * K, 32 * K, 4 * K,  4 * K,  64 * K, 64 * K, 64 * K, 64 * K, 64 * K,
      64 * K, 64 * K, 32 * K, 64 * K, 32 * K, 32 * K, 32 * K, 32 * K, 64 * K, 64 * K,
      64 * K, 4 * K,  64 * K, 32 * K, 64 * K, 64 * K, 64 * K, 32 * K, 32 * K, 32 * K};
  EXPECT_EQ(draws(mix[0], 1, FioSeed::BlockSizeRead, fio.size()), fio);
  // randseed=1234: fio's other sequence.
  const std::vector<std::uint64_t> fio1234 = {
      64 * K, 64 * K, 32 * K, 64 * K, 64 * K, 32 * K, 4 * K,  32 * K, 64 * K, 32 * K,
      64 * K, 64 * K, 4 * K,  32 * K, 32 * K, 64 * K, 64 * K, 32 * K, 32 * K, 32 * K,
      32 * K, 32 * K, 32 * K, 32 * K, 64 * K, 32 * K, 64 * K, 32 * K, 64 * K, 32 * K};
  EXPECT_EQ(draws(mix[0], 1, FioSeed::BlockSizeRead, fio1234.size(), 1234), fio1234);
}

// [a] ioengine=null rw=randwrite size=1g bssplit=4k,8k/30:16k/70:512/ number_ios=30 norandommap:
// the writes' list after ','; 512 without a percentage shares what is left, nothing.
TEST(BlockSizeMix, PerDirectionListsAndTheWritesGenerator) {
  const BlockSizeMix mix = parse_bssplit("4k,8k/30:16k/70:512/", size_of);
  EXPECT_FALSE(mix[0].mixed());
  EXPECT_EQ(mix[0].min_bs, 4 * K);
  ASSERT_EQ(mix[1].split.size(), 3u);
  EXPECT_EQ(mix[1].split[0], (BlockSizeShare{512, 0}));
  EXPECT_EQ(mix[1].min_bs, 512u);
  EXPECT_EQ(mix[2], mix[1]);  // the trims take the writes' list
  const std::uint64_t a = 8 * K, b = 16 * K;
  const std::vector<std::uint64_t> fio = {a, a, b, b, b, b, b, a, b, b, b, b, b, a, b,
                                          b, a, a, a, b, a, b, a, a, b, b, b, b, a, b};
  EXPECT_EQ(draws(mix[1], 1, FioSeed::BlockSizeWrite, fio.size()), fio);
}

// [a] ioengine=null rw=randread size=1g bsrange=1k-60k number_ios=30 norandommap
TEST(BlockSizeMix, BsrangeDrawsFiosSizes) {
  const BlockSizeMix mix = parse_bsrange("1k-60k", size_of);
  const std::vector<std::uint64_t> fio = {9216,  40960, 50176, 19456, 57344, 8192,  58368, 11264,
                                          13312, 12288, 15360, 20480, 10240, 4096,  1024,  46080,
                                          31744, 60416, 59392, 50176, 31744, 43008, 21504, 56320,
                                          30720, 12288, 22528, 24576, 58368, 60416};
  EXPECT_EQ(draws(mix[0], 1, FioSeed::BlockSizeRead, fio.size()), fio);
  EXPECT_EQ(parse_bsrange("60k-1k", size_of)[0], mix[0]);  // either order, as fio
}

TEST(BlockSizeMix, GrammarAsFioReadsIt) {
  // Missing percentages share the rest in whole percents; over 100 is 100; an empty entry ends.
  const BlockSizeMix m = parse_bssplit("4k/50:8k:16k::32k/10", size_of);
  ASSERT_EQ(m[0].split.size(), 3u);
  EXPECT_EQ(m[0].split[0], (BlockSizeShare{8 * K, 25}));
  EXPECT_EQ(m[0].split[1], (BlockSizeShare{16 * K, 25}));
  EXPECT_EQ(m[0].split[2], (BlockSizeShare{4 * K, 50}));
  EXPECT_EQ(m[0].max_bs, 16 * K);
  // One size is a fixed size; an empty part keeps the direction as it was.
  EXPECT_FALSE(parse_bssplit("4k/100", size_of)[0].mixed());
  EXPECT_EQ(parse_bssplit(",4k/50:8k/50", size_of)[0].min_bs, 0u);
  const BlockSizeMix three = parse_bssplit("4k/50:8k/50,16k/100,512/50:1k/50", size_of);
  EXPECT_EQ(three[1].min_bs, 16 * K);
  EXPECT_EQ(three[2].max_bs, 1024u);
  // What fio refuses, and sizes storqual cannot hold.
  EXPECT_THROW((void)parse_bssplit("4k/60:8k/60:16k:32k", size_of), UnitError);
  EXPECT_THROW((void)parse_bssplit("4k/90:8k/20:16k", size_of), UnitError);
  EXPECT_THROW((void)parse_bssplit("0/50:4k/50", size_of), UnitError);
  EXPECT_THROW((void)parse_bssplit("512m/50:4k/50", size_of), UnitError);
  EXPECT_THROW((void)parse_bsrange("4k", size_of), UnitError);
  EXPECT_THROW((void)parse_bssplit("4x/50", size_of), UnitError);
}

TEST(BlockSizeMix, TextReadsBackToTheSameMix) {
  const auto format = [](std::uint64_t b) { return format_size_fio(b); };
  for (const char* text : {"4k/10:64k/50:32k/40", "4k/50:8k/50,16k/30:32k/70",
                           "512/4:1k/1:4k/67:8k/10:16k/7:32k/3:64k/8"}) {
    const BlockSizeMix m = parse_bssplit(text, size_of);
    EXPECT_EQ(parse_bssplit(bssplit_text(m, format), size_of), m) << text;
  }
  const BlockSizeMix r = parse_bsrange("4k-64k,8k-16k", size_of);
  EXPECT_EQ(bsrange_text(r, format), "4k-64k,8k-16k");
  EXPECT_EQ(parse_bsrange(bsrange_text(r, format), size_of), r);
  EXPECT_EQ(bssplit_text(r, format), "");
}

// Sizes fit the room to the region's end: the first entry of the cumulative walk that fits.
TEST(BlockSizeMix, SizesFitTheRegion) {
  const BlockSizeMix mix = parse_bssplit("4k/50:64k/50", size_of);
  BlockSizeDraw d(mix[0], 1, false);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(d.next(8 * K), 4 * K);
  EXPECT_EQ(d.next(2 * K), 0u);  // not even the smallest
  // Sequential placement goes on where the last I/O ended and wraps before the end.
  MixedIoPlacement place(mix[0], mix[1], {1 << 20, 256 * K, 4 * K, false}, 1);
  std::uint64_t expect = 1 << 20, bytes = 0;
  for (int i = 0; i < 100; ++i) {
    std::uint64_t off = 0;
    const std::uint64_t len = place.place(0, off);
    if (off == (1u << 20) && expect != (1u << 20)) expect = 1 << 20;  // wrapped
    EXPECT_EQ(off, expect);
    EXPECT_LE(off + len, (1u << 20) + 256 * K);
    expect = off + len;
    bytes += len;
  }
  EXPECT_GT(bytes, 256 * K);  // it wrapped at least once
}

TEST(BlockSizeMix, WorkloadOptionsAndChecks) {
  WorkloadSpec w;
  w.params.rw = "randrw";
  set_workload_option(w, "bssplit", "4k/10:64k/90");
  EXPECT_TRUE(w.mixed_block_sizes());
  EXPECT_EQ(largest_block(w), 64 * K);
  EXPECT_EQ(smallest_block(w), 4 * K);
  EXPECT_EQ(block_size_mix_options(w), std::vector<std::string>{"bssplit=4k/10:64k/90"});
  EXPECT_NE(fio_command(w).find(" --bssplit=4k/10:64k/90"), std::string::npos);
  set_workload_option(w, "bsrange", ",8k-16k");  // the writes: a range over the split
  EXPECT_EQ(block_size_mix_options(w),
            (std::vector<std::string>{"bsrange=,8k-16k", "bssplit=4k/10:64k/90,"}));
  validate(w);
  w.verify = VerifyAlgorithm::Crc32c;
  EXPECT_THROW(validate(w), UnitError);
  w.verify = VerifyAlgorithm::None;
  w.rate_bytes = 1 << 20;
  EXPECT_THROW(validate(w), UnitError);
  WorkloadSpec plain;
  plain.blockalign = 8 * K;  // blockalign other than bs needs a mix
  EXPECT_THROW(validate(plain), UnitError);
  plain.blockalign = plain.params.bs;
  validate(plain);
}

}  // namespace
}  // namespace storqual::runner
