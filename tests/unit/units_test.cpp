// SPDX-License-Identifier: Apache-2.0
// fio-style sizes, durations and percentages.
#include "runner/units.hpp"

#include <gtest/gtest.h>

namespace storqual::runner {

TEST(Units, SizesArePowersOf1024AsInFio) {
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("1m"), 1048576u);
  EXPECT_EQ(parse_size("5g"), 5ull << 30);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_size("512"), 512u);
  EXPECT_EQ(parse_size(" 1MiB "), 1048576u);
  EXPECT_EQ(parse_size("0.5k"), 512u);
}

TEST(Units, BadSizesAreRefusedWithTheReason) {
  EXPECT_THROW((void)parse_size(""), UnitError);
  EXPECT_THROW((void)parse_size("-4k"), UnitError);
  EXPECT_THROW((void)parse_size("4q"), UnitError);
  EXPECT_THROW((void)parse_size("0.3"), UnitError);
  EXPECT_THROW((void)parse_size("99999999999t"), UnitError);
  EXPECT_THROW((void)parse_size("k"), UnitError);
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("60s"), 60);
  EXPECT_DOUBLE_EQ(parse_duration("60"), 60);
  EXPECT_DOUBLE_EQ(parse_duration("5m"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("1h"), 3600);
  EXPECT_NEAR(parse_duration("100us"), 1e-4, 1e-12);
  EXPECT_THROW((void)parse_duration("5 weeks"), UnitError);
  EXPECT_THROW((void)parse_duration("-1s"), UnitError);
}

TEST(Units, Percent) {
  EXPECT_DOUBLE_EQ(parse_percent("10%"), 10);
  EXPECT_DOUBLE_EQ(parse_percent("7.5"), 7.5);
  EXPECT_THROW((void)parse_percent("10 pct"), UnitError);
}

TEST(Units, Printing) {
  EXPECT_EQ(format_size_fio(4096), "4k");
  EXPECT_EQ(format_size_fio(1 << 20), "1m");
  EXPECT_EQ(format_size_fio(5ull << 30), "5g");
  EXPECT_EQ(format_size_fio(1536), "1536");
  EXPECT_EQ(format_duration_fio(60), "60s");
  EXPECT_EQ(format_duration_fio(0.5), "500ms");
  // Below a millisecond: whole microseconds, not "0s" (io_timeout="1us" printed as 0s).
  EXPECT_EQ(format_duration_fio(1e-6), "1us");
  EXPECT_EQ(format_duration_fio(parse_duration("1us")), "1us");
  EXPECT_EQ(format_duration_fio(parse_duration("250us")), "250us");
  EXPECT_EQ(format_duration_fio(0.0015), "1500us");
  EXPECT_EQ(format_duration_fio(10.00002), "10000020us");
  EXPECT_EQ(format_duration_fio(0), "0s");
  EXPECT_EQ(format_rate_mb(540e6), "540.0 MB/s");
  EXPECT_EQ(format_count(97000), "97.0k");
}

}  // namespace storqual::runner
