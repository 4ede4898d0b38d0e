// SPDX-License-Identifier: Apache-2.0
// A spec sheet's limits on the drive's health figures (<health><limit .../></health>): parsed with
// file:line, unknown figures refused naming file and line, and judged in the health testcase on
// constructed ATA, NVMe and SCSI readings: at arrival only or in every reading, the limit and the
// sheet's line named in the failure, a figure the drive does not report named, not failed.
#include <gtest/gtest.h>

#include "devices/health.hpp"
#include "runner/judge/health_verdict.hpp"
#include "runner/specs/spec_sheet.hpp"

using namespace storqual;
using namespace storqual::runner;

namespace {

const char* kSheet = R"(<spec-sheet name="new hdd" suite="hdd">
  <match model="*"/>
  <health>
    <limit figure="power_on_hours" max="24" at="arrival"/>
    <limit figure="reallocated_sectors" max="0"/>
    <limit figure="pending_sectors" max="0"/>
    <limit figure="temperature_c" max="55"/>
    <limit figure="available_spare_pct" min="90"/>
  </health>
</spec-sheet>)";

std::string error_of(const std::string& xml) {
  try {
    (void)SpecSheet::parse(xml, "sheet.xml");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

devices::AtaAttribute attr(std::uint8_t id, std::uint64_t raw) {
  devices::AtaAttribute a;
  a.id = id;
  a.value = a.worst = 100;
  a.raw_value = raw;
  for (std::size_t i = 0; i < a.raw.size(); ++i)
    a.raw[i] = static_cast<std::uint8_t>(raw >> (8 * i));
  return a;
}

devices::HealthSnapshot ata(std::uint64_t hours, std::uint64_t reallocated, int temperature) {
  devices::HealthSnapshot s;
  devices::AtaSmart a;
  a.status = devices::AtaSmartStatus::Passed;
  a.attributes = {attr(5, reallocated), attr(9, hours),
                  attr(194, static_cast<std::uint64_t>(temperature)), attr(197, 0)};
  s.ata = a;
  s.source = "ata:smart";
  return s;
}

TEST(HealthLimits, SheetParsesLimitsWithTheirLines) {
  const SpecSheet sheet = SpecSheet::parse(kSheet, "sheet.xml");
  ASSERT_EQ(sheet.health_limits.size(), 5u);
  EXPECT_EQ(sheet.health_limits[0].figure, "power_on_hours");
  EXPECT_EQ(sheet.health_limits[0].max, 24.0);
  EXPECT_TRUE(sheet.health_limits[0].arrival_only);
  EXPECT_EQ(sheet.health_limits[0].where(), "sheet.xml:4");
  EXPECT_FALSE(sheet.health_limits[1].arrival_only);
  EXPECT_EQ(sheet.health_limits[4].min, 90.0);
}

TEST(HealthLimits, MistakesNameFileAndLine) {
  const std::string unknown = error_of(
      "<spec-sheet name=\"s\" suite=\"hdd\">\n<match model=\"*\"/>\n<health>\n"
      "<limit figure=\"power_on_days\" max=\"1\"/>\n</health>\n</spec-sheet>");
  EXPECT_NE(unknown.find("sheet.xml:4"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown health figure 'power_on_days'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("power_on_hours"), std::string::npos) << unknown;
  const std::string no_bound = error_of(
      "<spec-sheet name=\"s\" suite=\"hdd\">\n<match model=\"*\"/>\n<health>\n"
      "<limit figure=\"pending_sectors\"/>\n</health>\n</spec-sheet>");
  EXPECT_NE(no_bound.find("sheet.xml:4"), std::string::npos) << no_bound;
  EXPECT_NE(no_bound.find("needs max, min or both"), std::string::npos) << no_bound;
  const std::string bad_number = error_of(
      "<spec-sheet name=\"s\" suite=\"hdd\">\n<match model=\"*\"/>\n<health>\n"
      "<limit figure=\"pending_sectors\" max=\"none\"/>\n</health>\n</spec-sheet>");
  EXPECT_NE(bad_number.find("sheet.xml:4"), std::string::npos) << bad_number;
  const std::string bad_at = error_of(
      "<spec-sheet name=\"s\" suite=\"hdd\">\n<match model=\"*\"/>\n<health>\n"
      "<limit figure=\"pending_sectors\" max=\"0\" at=\"later\"/>\n</health>\n</spec-sheet>");
  EXPECT_NE(bad_at.find("arrival or every-reading"), std::string::npos) << bad_at;
  const std::string other = error_of(
      "<spec-sheet name=\"s\" suite=\"hdd\">\n<match model=\"*\"/>\n<health>\n"
      "<claim/>\n</health>\n</spec-sheet>");
  EXPECT_NE(other.find("sheet.xml:4"), std::string::npos) << other;
}

TEST(HealthLimits, AUsedDriveAtArrivalFailsNamingTheLimitAndLine) {
  const SpecSheet sheet = SpecSheet::parse(kSheet, "sheet.xml");
  const auto v = health_verdict(ata(1234, 0, 30), {}, {}, ata(1235, 0, 31), sheet.health_limits);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v->message.find("power_on_hours 1234 above the spec sheet's limit of at most 24 "
                            "(before the run; sheet.xml:4)"),
            std::string::npos)
      << v->message;
  // available_spare_pct is NVMe's: named, not failed.
  EXPECT_NE(v->message.find("not reported by the drive: available_spare_pct (sheet.xml:8)"),
            std::string::npos)
      << v->message;
}

TEST(HealthLimits, ArrivalOnlyLimitIgnoresLaterReadingsEveryReadingDoesNot) {
  const SpecSheet sheet = SpecSheet::parse(kSheet, "sheet.xml");
  // 20 hours at arrival, 30 after a long run: the arrival limit holds.
  const auto fine = health_verdict(ata(20, 0, 40), {}, {}, ata(30, 0, 41), sheet.health_limits);
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, reporting::VerdictStatus::Pass) << fine->message;
  EXPECT_NE(fine->message.find("within the spec sheet's 4 health limits"), std::string::npos)
      << fine->message;
  // Too hot after workload 1: an every-reading limit.
  const auto hot = health_verdict(ata(20, 0, 40), {ata(21, 0, 61)}, {"after workload 1 of 2"},
                                  ata(22, 0, 45), sheet.health_limits);
  ASSERT_TRUE(hot);
  EXPECT_EQ(hot->status, reporting::VerdictStatus::Fail);
  EXPECT_NE(hot->message.find("temperature_c 61 above the spec sheet's limit of at most 55 "
                              "(after workload 1 of 2; sheet.xml:7)"),
            std::string::npos)
      << hot->message;
  // Reallocated sectors at arrival.
  const auto used = health_verdict(ata(2, 8, 40), {}, {}, ata(3, 8, 40), sheet.health_limits);
  ASSERT_TRUE(used);
  EXPECT_EQ(used->status, reporting::VerdictStatus::Fail);
  EXPECT_NE(used->message.find("reallocated_sectors 8 above"), std::string::npos) << used->message;
}

TEST(HealthLimits, NvmeSpareBelowItsMinimum) {
  const SpecSheet sheet = SpecSheet::parse(kSheet, "sheet.xml");
  devices::HealthSnapshot n;
  n.smart.available_spare = 80;
  n.smart.available_spare_threshold = 10;
  n.smart.temperature_kelvin = 300;
  n.smart.power_on_hours.low = 5;
  const auto v = health_verdict(n, {}, {}, n, sheet.health_limits);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v->message.find("available_spare_pct 80 below the spec sheet's limit of at least 90"),
            std::string::npos)
      << v->message;
  EXPECT_EQ(devices::health_figure(n, "temperature_c"), 27.0);
  EXPECT_EQ(devices::health_figure(n, "pending_sectors"), std::nullopt);
}

TEST(HealthLimits, NoReadingMakesASkippedVerdictNotSilence) {
  const SpecSheet sheet = SpecSheet::parse(kSheet, "sheet.xml");
  const auto v = health_verdict(std::nullopt, {}, {}, std::nullopt, sheet.health_limits);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, reporting::VerdictStatus::Skipped);
  EXPECT_NE(v->message.find("not checked"), std::string::npos);
  EXPECT_FALSE(health_verdict(std::nullopt, {}, {}, std::nullopt, {}));
}

}  // namespace
