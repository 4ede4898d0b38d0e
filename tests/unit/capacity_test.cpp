// SPDX-License-Identifier: Apache-2.0
// The real-capacity check on a file: a true device is found whole; a fake one (the fault engine
// storing offsets modulo an eighth of the claimed size) is found with its real capacity within
// one sample interval, and its claim fails with the numbers.
#include "runner/methods/capacity/capacity_check.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "engines/engine.hpp"
#include "engines/fault_engine.hpp"
#include "model/metric.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::ScratchDir;

constexpr std::uint64_t kSize = 64ull << 20;

class CapacityOnFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (scratch_ / "card").string();
    int fd = ::open(path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kSize)), 0);  // sparse: reads zeros
    ::close(fd);
    check_.target = path_;
    check_.ioengine = engines::available("io_uring").ok ? "io_uring" : "psync";
    check_.samples = 1024;
  }
  RunOptions fake(std::uint64_t real) {
    engines::FaultPlan plan;
    plan.fake_capacity = engines::FaultPlan::FakeCapacity{.wrap_at = real, .claimed_size = 0};
    RunOptions o;
    o.wrap_engine =
        [plan](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
      return std::make_unique<engines::FaultEngine>(std::move(inner), plan);
    };
    return o;
  }
  ScratchDir scratch_{"storqual-capacity"};
  std::string path_;
  CapacityCheck check_;
};

TEST_F(CapacityOnFile, ATrueDeviceIsWhole) {
  auto r = run_capacity_check(check_);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(capacity_report_of(r));
  const auto& c = *capacity_report_of(r);
  EXPECT_EQ(r.kind(), "capacity");
  EXPECT_EQ(c.reported_bytes, kSize);
  EXPECT_EQ(c.sample_interval, kSize / 1024);
  EXPECT_EQ(c.samples, 1024u);
  EXPECT_EQ(c.samples_good, 1024u);
  EXPECT_EQ(c.usable_bytes, kSize);
  EXPECT_FALSE(c.aliasing_start);
  EXPECT_EQ(r.write->ios, 1024u);
  EXPECT_EQ(r.read->ios, 1024u);
  auto v = capacity_verdict(r, 64e6, 0);  // "64 MB" on the label, decimal
  EXPECT_EQ(v.status, reporting::VerdictStatus::Pass) << v.message;
}

TEST_F(CapacityOnFile, WrappingFakeIsFoundWithinOneInterval) {
  const std::uint64_t real = kSize / 8;
  auto r = run_capacity_check(check_, fake(real));
  ASSERT_TRUE(capacity_report_of(r));
  const auto& c = *capacity_report_of(r);
  EXPECT_EQ(c.reported_bytes, kSize);
  EXPECT_LE(c.usable_bytes > real ? c.usable_bytes - real : real - c.usable_bytes,
            c.sample_interval);
  EXPECT_EQ(c.usable_bytes, real);  // the wrap sits on a sample here
  ASSERT_TRUE(c.aliasing_start);
  EXPECT_EQ(*c.aliasing_start, real);
  EXPECT_EQ(c.aliased_to, 0u);
  EXPECT_EQ(c.samples_good, 128u);
  EXPECT_EQ(c.misplaced, 1024u - 128u);
  auto v = capacity_verdict(r, static_cast<double>(kSize), 5);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("87.5% below the claimed 67.1 MB (tolerance 5%)"), std::string::npos)
      << v.message;
  EXPECT_NE(v.message.find("aliasing from offset 8388608 (holds offset 0)"), std::string::npos)
      << v.message;
}

TEST_F(CapacityOnFile, AWrapAtAMultipleOfTheIntervalIsFound) {
  check_.interval = 256 << 10;                             // density by distance instead of count
  const std::uint64_t real = kSize / 8 + 3 * (256 << 10);  // a multiple of it, not a power of 2
  auto r = run_capacity_check(check_, fake(real));
  ASSERT_TRUE(capacity_report_of(r));
  const auto& c = *capacity_report_of(r);
  EXPECT_EQ(c.sample_interval, 256u << 10);
  EXPECT_EQ(c.samples, kSize / (256 << 10));
  EXPECT_GE(c.usable_bytes, real);
  EXPECT_LE(c.usable_bytes - real, c.sample_interval);
  ASSERT_TRUE(c.aliasing_start);
  EXPECT_EQ(*c.aliasing_start, real);
}

TEST(CapacityOptions, AttributesAreValidated) {
  CapacityCheck c;
  set_capacity_option(c, "samples", "8192");
  set_capacity_option(c, "interval", "1m");
  set_capacity_option(c, "bs", "64k");
  set_capacity_option(c, "verify", "crc32c");
  EXPECT_EQ(c.samples, 8192u);
  EXPECT_EQ(c.interval, 1u << 20);
  EXPECT_EQ(c.bs, 64u << 10);
  EXPECT_EQ(c.algorithm, VerifyAlgorithm::Crc32c);
  EXPECT_THROW(set_capacity_option(c, "samples", "1"), UnitError);
  EXPECT_THROW(set_capacity_option(c, "samples", "12x"), UnitError);
  EXPECT_THROW(set_capacity_option(c, "verify", "0"), UnitError);
  EXPECT_THROW(set_capacity_option(c, "density", "1%"), UnitError);
}

TEST(CapacityInFiles, SuiteElementSheetMetricAndVerdict) {
  Suite suite = Suite::parse(R"(<suite name="card">
  <defaults ioengine="psync" direct="1"/>
  <capacity id="real-capacity" samples="8192" bs="64k"/>
  <workload id="randwrite-4k" rw="randwrite" bs="4k" verify="xxh3"/>
</suite>)",
                             "card.xml");
  ASSERT_EQ(suite.workloads.size(), 2u);
  const auto& sw = suite.workloads[0];
  const auto* capacity = sw.method_as<CapacityMethod>();
  ASSERT_TRUE(capacity);
  EXPECT_EQ(capacity->check().id, "real-capacity");
  EXPECT_EQ(capacity->check().samples, 8192u);
  EXPECT_EQ(capacity->check().bs, 64u << 10);
  EXPECT_EQ(capacity->check().ioengine, "psync");
  EXPECT_TRUE(writes(sw.spec));  // the safety guard sees the write
  EXPECT_EQ(suite.workloads[1].spec.verify, VerifyAlgorithm::Xxh3);
  try {
    (void)Suite::parse(R"(<suite name="card">
  <capacity id="c" samples="one"/>
</suite>)",
                       "bad.xml");
    FAIL() << "a bad samples= was accepted";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.xml:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("samples"), std::string::npos) << e.what();
  }

  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="Card 64GB" suite="card">
  <match model="*"/>
  <claims tolerance="5%">
    <claim workload="real-capacity" metric="capacity" value="64GB"/>
  </claims></spec-sheet>)",
                                     "card-sheet.xml");
  ASSERT_EQ(sheet.claims.size(), 1u);
  EXPECT_EQ(sheet.claims[0].metric.kind, MetricKind::Capacity);
  EXPECT_DOUBLE_EQ(sheet.claims[0].value, 64e9);
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("capacity"), "2TiB"), 2.0 * (1ull << 40));
  EXPECT_THROW((void)parse_claim_value(parse_metric("capacity"), "500MB/s"), UnitError);

  reporting::WorkloadResult fake;
  fake.id = "real-capacity";
  auto report = std::make_shared<CapacityMethodReport>();
  report->capacity.emplace();
  report->capacity->reported_bytes = 64000000000ull;
  report->capacity->usable_bytes = 8ull << 30;
  fake.method = std::move(report);
  reporting::add_figure(fake.figures, "capacity", 8ull << 30);  // as the check publishes it
  reporting::WorkloadResult other;
  other.id = "randwrite-4k";
  auto verdicts = judge(sheet, suite, {fake, other});
  ASSERT_FALSE(verdicts.empty());
  EXPECT_EQ(verdicts[0].metric, "capacity");
  EXPECT_EQ(verdicts[0].status, reporting::VerdictStatus::Fail);
  EXPECT_NE(verdicts[0].message.find("8.59 GB"), std::string::npos) << verdicts[0].message;
  fake.figures[0].value = 63e9;  // within 5%
  EXPECT_EQ(judge(sheet, suite, {fake, other})[0].status, reporting::VerdictStatus::Pass);
}

}  // namespace
}  // namespace storqual::runner
