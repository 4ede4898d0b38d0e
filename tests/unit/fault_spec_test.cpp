// SPDX-License-Identifier: Apache-2.0
// The text form of a fault plan (--inject-fault): every kind and key, and what bad text gets.
#include "runner/measure/fault_spec.hpp"

#include <gtest/gtest.h>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

using namespace std::chrono_literals;

TEST(FaultSpec, EveryKindAndKeyLandsInThePlan) {
  auto plan = parse_fault_plan(
      "seed=42;fail:dir=write,after=100,count=3,probability=0.5,error=ENOSPC;"
      "eagain:at=queue,count=7;stuck:after=50,count=1;drop-write:after=9;short:dir=read,bytes=1k;"
      "misdirect:shift=-8k;bit-flip:count=2;fake-capacity:wrap=8m,claimed=64m;"
      "latency:base=100us,per_in_flight=10us;cliff:after=1g,slowdown=4");
  EXPECT_EQ(plan.seed, 42u);
  ASSERT_TRUE(plan.fail);
  EXPECT_FALSE(plan.fail->when.reads);
  EXPECT_TRUE(plan.fail->when.writes);
  EXPECT_EQ(plan.fail->when.after, 100u);
  EXPECT_EQ(plan.fail->when.count, 3u);
  EXPECT_DOUBLE_EQ(plan.fail->when.probability, 0.5);
  EXPECT_EQ(plan.fail->error, ENOSPC);
  ASSERT_TRUE(plan.eagain);
  EXPECT_TRUE(plan.eagain->at_queue);
  EXPECT_EQ(plan.eagain->when.count, 7u);
  ASSERT_TRUE(plan.stuck);
  EXPECT_EQ(plan.stuck->after, 50u);
  ASSERT_TRUE(plan.drop_write);
  EXPECT_EQ(plan.drop_write->after, 9u);
  ASSERT_TRUE(plan.short_transfer);
  EXPECT_TRUE(plan.short_transfer->when.reads);
  EXPECT_FALSE(plan.short_transfer->when.writes);
  EXPECT_EQ(plan.short_transfer->bytes, 1024u);
  ASSERT_TRUE(plan.misdirect);
  EXPECT_EQ(plan.misdirect->shift, -8192);
  ASSERT_TRUE(plan.bit_flip);
  EXPECT_EQ(plan.bit_flip->count, 2u);
  ASSERT_TRUE(plan.fake_capacity);
  EXPECT_EQ(plan.fake_capacity->wrap_at, 8u << 20);
  EXPECT_EQ(plan.fake_capacity->claimed_size, 64u << 20);
  ASSERT_TRUE(plan.latency);
  EXPECT_EQ(plan.latency->base, 100us);
  EXPECT_EQ(plan.latency->per_in_flight, 10us);
  ASSERT_TRUE(plan.throughput_cliff);
  EXPECT_EQ(plan.throughput_cliff->after_bytes, 1ull << 30);
  EXPECT_DOUBLE_EQ(plan.throughput_cliff->slowdown, 4);
}

TEST(FaultSpec, DefaultsAreTheFaultEnginesOwn) {
  auto plan = parse_fault_plan("fail");
  ASSERT_TRUE(plan.fail);
  EXPECT_EQ(plan.fail->error, EIO);
  EXPECT_TRUE(plan.fail->when.reads && plan.fail->when.writes);
  EXPECT_EQ(plan.fail->when.after, 0u);
  EXPECT_FALSE(plan.stuck);
  EXPECT_EQ(parse_fault_plan("fail:error=5").fail->error, 5);
}

struct BadSpec {
  const char* text;
  const char* message;
};

class FaultSpecRefuses : public ::testing::TestWithParam<BadSpec> {};

TEST_P(FaultSpecRefuses, WithAMessageNamingThePart) {
  try {
    (void)parse_fault_plan(GetParam().text);
    FAIL() << "accepted: " << GetParam().text;
  } catch (const UnitError& e) {
    EXPECT_STREQ(e.what(), GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadText, FaultSpecRefuses,
    ::testing::Values(
        BadSpec{"", "--inject-fault: empty fault list"},
        BadSpec{"melt",
                "--inject-fault: unknown fault 'melt' (fail, eagain, stuck, drop-write, "
                "short, misdirect, bit-flip, fake-capacity, latency, cliff)"},
        BadSpec{"fail:dir=sideways",
                "--inject-fault fail: dir must be read, write or both, got "
                "'sideways'"},
        BadSpec{"fail:after=-1", "--inject-fault fail: after must be a whole number, got '-1'"},
        BadSpec{"stuck:probability=2", "--inject-fault stuck: probability must be 0..1"},
        BadSpec{"fail:error=EWHAT",
                "--inject-fault fail: error must be a whole number, got 'EWHAT'"},
        BadSpec{"fail:error=0",
                "--inject-fault fail: error must be an errno name or 1..4095, got '0'"},
        BadSpec{"fail:colour=red", "--inject-fault fail: unknown key 'colour'"},
        BadSpec{"fail:after", "--inject-fault fail: expected key=value, got 'after'"},
        BadSpec{"fake-capacity", "--inject-fault fake-capacity: wrap=SIZE is required"},
        BadSpec{"cliff:slowdown=0.5", "--inject-fault cliff: slowdown must be >= 1"},
        BadSpec{"eagain:at=never", "--inject-fault eagain: at must be queue or reap"}));

}  // namespace
}  // namespace storqual::runner
