// SPDX-License-Identifier: Apache-2.0
// NVMe identify and SMART parsing through the captured-page NvmeAdmin (tests/data/nvme, written by
// make_pages.py), health rows and the before/after difference.
#include <gtest/gtest.h>

#include <filesystem>

#include "devices/device_identity.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"

namespace fs = std::filesystem;
using namespace storqual::devices;

namespace {

const fs::path kPages = fs::path(STORQUAL_TEST_DATA) / "nvme";

std::string row_value(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "<absent>";
}

}  // namespace

TEST(NvmeIdentify, ControllerStringsAreTrimmedOfTheirSpacePadding) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin"});
  auto ctrl = parse_identify_controller(admin.identify_controller());
  EXPECT_EQ(ctrl.vid, 0x144d);
  EXPECT_EQ(ctrl.model, "Samsung SSD 980 PRO 1TB");
  EXPECT_EQ(ctrl.serial, "S5GXNF0R123456A");
  EXPECT_EQ(ctrl.firmware, "5B2QGXA7");
  EXPECT_EQ(ctrl.cntlid, 6);
  EXPECT_EQ(ctrl.version, "1.4.0");
}

TEST(NvmeIdentify, NamespaceUsesTheLbaFormatInUse) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin"});
  auto ns = parse_identify_namespace(admin.identify_namespace());
  EXPECT_EQ(ns.size_lbas, 244190646u);
  EXPECT_EQ(ns.lba_format, 1u);
  EXPECT_EQ(ns.lba_size, 4096u);
  EXPECT_EQ(ns.metadata_size, 8u);
  EXPECT_EQ(ns.size_bytes(), 244190646ull * 4096);
}

TEST(NvmeIdentify, ControllerIdentityOverridesSysfsWithSources) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin"});
  DeviceIdentity id;
  id.model = {"Samsung SSD 980", "sysfs:device/model"};
  auto ns = parse_identify_namespace(admin.identify_namespace());
  apply_nvme_identity(id, parse_identify_controller(admin.identify_controller()), &ns);
  auto rows = identity_rows(id);
  EXPECT_EQ(row_value(rows, "model"), "Samsung SSD 980 PRO 1TB");
  EXPECT_EQ(row_value(rows, "vendor"), "Samsung (0x144d)");
  EXPECT_EQ(row_value(rows, "nvme_lba_format"), "1 (4096 bytes + 8 metadata)");
  for (const auto& r : rows) {
    if (r.field == "model" || r.field == "serial" || r.field == "firmware") {
      EXPECT_EQ(r.source, "nvme:identify-ctrl");
    }
  }
}

TEST(NvmeSmart, ParsesKelvinWearAndCountersAboveTwoToThe64) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin"});
  auto log = parse_smart_log(admin.smart_log());
  EXPECT_EQ(log.temperature_kelvin, 311);
  EXPECT_EQ(log.temperature_celsius(), 38);
  EXPECT_EQ(log.percentage_used, 104);  // worn past its rating: above 100 is legal
  EXPECT_EQ(log.available_spare, 100);
  EXPECT_EQ(log.data_units_read.to_decimal(), "18446744073709551621");  // 2^64 + 5
  EXPECT_EQ(log.data_units_written.to_decimal(), "36893488147419102232");
  EXPECT_EQ(log.power_on_hours.to_decimal(), "12000");
  EXPECT_EQ(log.unsafe_shutdowns.to_decimal(), "17");
  EXPECT_EQ(log.error_log_entries.to_decimal(), "5");

  auto rows = health_rows(take_health_snapshot(admin));
  EXPECT_EQ(row_value(rows, "temperature_c"), "38");
  EXPECT_EQ(row_value(rows, "percentage_used"), "104");
  EXPECT_EQ(row_value(rows, "data_written_bytes"), "18889465931478580342784000");
  EXPECT_EQ(row_value(rows, "critical_warning"), "0x00 (none)");
  // The SMART rows, then the note that this capture has no OCP C0h page (ocp_smart_log_test).
  for (const auto& r : rows)
    EXPECT_EQ(r.source, r.field.rfind("ocp.", 0) == 0 ? "nvme:ocp-c0h" : "nvme:smart-log");
  EXPECT_EQ(row_value(rows, "ocp.c0h"), "not available: no captured log page C0h");
}

TEST(NvmeSmart, MaximumCountersPrintExactly) {
  CapturedNvmeAdmin admin(kPages, {"smart-max.bin"});
  auto snap = take_health_snapshot(admin);
  EXPECT_EQ(snap.smart.media_errors.to_decimal(), "340282366920938463463374607431768211455");
  auto rows = health_rows(snap);
  EXPECT_EQ(row_value(rows, "data_read_bytes"), "174224571863520493293247799005065324264960000");
  EXPECT_EQ(row_value(rows, "percentage_used"), "255");
  EXPECT_EQ(snap.smart.temperature_celsius(), 65535 - 273);
}

TEST(NvmeSmart, BeforeAfterDifferenceNamesWhatChanged) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin", "smart-after.bin"});
  auto before = take_health_snapshot(admin);
  auto after = take_health_snapshot(admin);
  auto changes = health_changes(before, after);
  ASSERT_EQ(changes.size(), 8u);
  EXPECT_EQ(changes[0], "new critical warning 0x04: reliability degraded");
  EXPECT_EQ(changes[1], "media errors 0 -> 3 (+3)");
  EXPECT_EQ(changes[2], "error log entries 5 -> 7 (+2)");
  EXPECT_EQ(changes[3], "available spare 100% -> 99%");
  EXPECT_EQ(changes[4], "percentage used 104% -> 105%");
  EXPECT_EQ(changes[5], "time above warning temperature +2 min");
  EXPECT_EQ(changes[6], "temperature peak 52 C (before 38 C, after 52 C)");
  // 2000 data units, across the 2^64 boundary of the counter.
  EXPECT_EQ(changes[7], "data written 1024000000 bytes (+2000 data units)");
}

TEST(NvmeSmart, UnchangedHealthReportsOnlyTemperatureAndData) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin"});
  auto a = take_health_snapshot(admin);
  auto b = take_health_snapshot(admin);  // the last page repeats
  auto changes = health_changes(a, b);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0], "temperature peak 38 C (before 38 C, after 38 C)");
  EXPECT_EQ(changes[1], "data written 0 bytes (+0 data units)");
}

TEST(NvmeSmart, CriticalWarningBitsAreNamed) {
  EXPECT_EQ(describe_critical_warning(0), "none");
  EXPECT_EQ(describe_critical_warning(0x09),
            "available spare below threshold, media placed in read-only mode");
}

TEST(NvmeCapturedPages, WrongSizedPageIsRejected) {
  EXPECT_THROW(CapturedNvmeAdmin(kPages, {"identify-ctrl.bin"}), NvmeError);  // 4096, not 512
  EXPECT_THROW(CapturedNvmeAdmin(kPages / "absent", {"smart-before.bin"}), NvmeError);
}
