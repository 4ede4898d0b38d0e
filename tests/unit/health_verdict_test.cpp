// SPDX-License-Identifier: Apache-2.0
// The device-health testcase of a run, from SMART pages read through the captured-page NVMe admin
// (tests/data/nvme, make_pages.py): a new critical warning, new media errors or a spare below its
// threshold fail it, before the end (a mid-run sample) as much as after.
#include <gtest/gtest.h>

#include <filesystem>

#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "runner/judge/health_verdict.hpp"

namespace fs = std::filesystem;
using namespace storqual;
using devices::CapturedNvmeAdmin;
using devices::HealthSnapshot;
using reporting::VerdictKind;
using reporting::VerdictStatus;

namespace {

const fs::path kPages = fs::path(STORQUAL_TEST_DATA) / "nvme";

// Every SMART reading `pages` yields, in order, through the admin seam.
std::vector<HealthSnapshot> readings(const std::vector<std::string>& pages) {
  CapturedNvmeAdmin admin(kPages, pages);
  std::vector<HealthSnapshot> out;
  for (std::size_t i = 0; i < pages.size(); ++i)
    out.push_back(devices::take_health_snapshot(admin));
  return out;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(HealthVerdict, NewWarningAndMediaErrorsAfterTheRunFail) {
  auto r = readings({"smart-before.bin", "smart-after.bin"});
  auto v = runner::health_verdict(r[0], {}, {}, r[1]);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::Fail);
  EXPECT_EQ(v->kind, VerdictKind::Health);
  EXPECT_TRUE(has(v->message, "new critical warning 0x04: reliability degraded (after the run)"))
      << v->message;
  EXPECT_TRUE(has(v->message, "media errors 0 -> 3 (+3)")) << v->message;
  EXPECT_EQ(v->measured.value_or(-1), 2);
}

TEST(HealthVerdict, WarningSeenOnlyInAMidRunSampleStillFails) {
  // Raised during workload 1, cleared again by the end: the reading between workloads saw it.
  auto r = readings({"smart-before.bin", "smart-after.bin", "smart-before.bin"});
  auto v = runner::health_verdict(r[0], {r[1]}, {"after workload 1 of 2"}, r[2]);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::Fail);
  EXPECT_TRUE(has(v->message, "0x04: reliability degraded (after workload 1 of 2)")) << v->message;
}

TEST(HealthVerdict, UnchangedHealthPasses) {
  auto r = readings({"smart-before.bin", "smart-before.bin"});
  auto v = runner::health_verdict(r[0], {}, {}, r[1]);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::Pass) << v->message;
  EXPECT_TRUE(has(v->message, "no new critical warning")) << v->message;
}

TEST(HealthVerdict, SpareFallingBelowItsThresholdFails) {
  auto r = readings({"smart-before.bin", "smart-before.bin"});
  r[1].smart.available_spare = 4;  // threshold 10 in the captured page
  auto v = runner::health_verdict(r[0], {}, {}, r[1]);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::Fail);
  EXPECT_TRUE(has(v->message, "available spare 4% below its threshold of 10% (was 100%)"))
      << v->message;
  // A warning bit already set before the run is not new.
  r = readings({"smart-after.bin", "smart-after.bin"});
  EXPECT_EQ(runner::health_verdict(r[0], {}, {}, r[1])->status, VerdictStatus::Pass);
}

TEST(HealthVerdict, NoReadingAfterIsAnErrorAndNoReadingAtAllNoVerdict) {
  auto r = readings({"smart-before.bin"});
  auto v = runner::health_verdict(r[0], {}, {}, std::nullopt);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::Error);
  EXPECT_FALSE(runner::health_verdict(std::nullopt, {}, {}, std::nullopt));
}
