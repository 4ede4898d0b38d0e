// SPDX-License-Identifier: Apache-2.0
// fio-style sizes, durations and percentages.
#include "runner/base/units.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <stdexcept>

#include "devices/safety_guard.hpp"
#include "engines/engine.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/xml_file.hpp"

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
  EXPECT_EQ(format_count(97000), "97.0k");
}

// One error type carrying its exit code, one place that maps an exception (runner/base/errors.hpp).
TEST(Errors, EachCarriesItsExitCodeAndDescribeErrorIsTheOneMapping) {
  auto of = [](auto e) { return describe_error(std::make_exception_ptr(e)); };
  EXPECT_EQ(of(UnitError("bad size")).exit_code, kExitUsage);
  EXPECT_EQ(of(FileError("x.xml:1:2: what")).exit_code, kExitUsage);
  EXPECT_EQ(of(UsageError("give --target")).message, "give --target");
  const ErrorReport engine = of(engines::EngineError("cannot open", EIO));
  EXPECT_EQ(engine.exit_code, kExitRuntime);
  EXPECT_EQ(engine.message, "cannot open");
  const ErrorReport refused = of(devices::SafetyRefusal("/dev/sdb is mounted"));
  EXPECT_EQ(refused.exit_code, kExitUsage);
  EXPECT_EQ(refused.message, "refused: /dev/sdb is mounted");
  const ErrorReport other = of(std::runtime_error("surprise"));
  EXPECT_EQ(other.exit_code, kExitRuntime);
  EXPECT_EQ(other.message, "error: surprise");
}

}  // namespace storqual::runner
