// SPDX-License-Identifier: Apache-2.0
// The OCP C0h SMART / Health Information Extended log (devices/ocp_smart_log.hpp): the captured
// page (tests/data/nvme/ocp-smart-log.bin, written by make_pages.py with a known value in every
// field) decoded field by field, a foreign GUID refused, rows and the before/after changes, and
// `storqual identify` showing the page.
#include "devices/ocp_smart_log.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "devices/health.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;
using namespace storqual::devices;

namespace {

const fs::path kPages = fs::path(STORQUAL_TEST_DATA) / "nvme";

OcpSmartLog captured(const std::string& file) {
  CapturedNvmeAdmin admin(kPages, {"smart-log.bin"});
  admin.set_ocp_pages(kPages, {file});
  return parse_ocp_smart_log(admin.ocp_smart_log());
}

std::string row_value(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "<absent>";
}

}  // namespace

TEST(OcpSmartLog, EveryFieldDecodesAtItsOffset) {
  const OcpSmartLog l = captured("ocp-smart-log.bin");
  EXPECT_EQ(l.physical_media_units_written.to_decimal(), "3000000000000");      // 0-15
  EXPECT_EQ(l.physical_media_units_read.to_decimal(), "18446744073709551623");  // 16-31: 2^64 + 7
  EXPECT_EQ(l.bad_user_nand_blocks_raw, 0x000001020304u);                       // 32-37
  EXPECT_EQ(l.bad_user_nand_blocks_normalized, 98u);                            // 38-39
  EXPECT_EQ(l.bad_system_nand_blocks_raw, 0x050600000001u);          // 40-45, top byte used
  EXPECT_EQ(l.bad_system_nand_blocks_normalized, 99u);               // 46-47
  EXPECT_EQ(l.xor_recovery_count, 11u);                              // 48-55
  EXPECT_EQ(l.uncorrectable_read_errors, 2u);                        // 56-63
  EXPECT_EQ(l.soft_ecc_errors, 333u);                                // 64-71
  EXPECT_EQ(l.end_to_end_detected, 4u);                              // 72-75
  EXPECT_EQ(l.end_to_end_corrected, 3u);                             // 76-79
  EXPECT_EQ(l.system_data_used_pct, 12u);                            // 80
  EXPECT_EQ(l.refresh_counts, 0x01020304050607u);                    // 81-87, 56 bits
  EXPECT_EQ(l.user_data_erase_count_max, 1500u);                     // 88-91
  EXPECT_EQ(l.user_data_erase_count_min, 1200u);                     // 92-95
  EXPECT_EQ(l.thermal_throttling_events, 6u);                        // 96
  EXPECT_EQ(l.thermal_throttling_status, 0u);                        // 97
  EXPECT_EQ(l.pcie_correctable_errors, 21u);                         // 104-111
  EXPECT_EQ(l.incomplete_shutdowns, 1u);                             // 112-115
  EXPECT_EQ(l.percent_free_blocks, 37u);                             // 120
  EXPECT_EQ(l.capacitor_health, 100u);                               // 128-129
  EXPECT_EQ(l.unaligned_io, 55u);                                    // 136-143
  EXPECT_EQ(l.security_version, 3u);                                 // 144-151
  EXPECT_EQ(l.nuse, 244190000u);                                     // 152-159
  EXPECT_EQ(l.plp_start_count.to_decimal(), "17");                   // 160-175
  EXPECT_EQ(l.endurance_estimate.to_decimal(), "5000000000000000");  // 176-191
  EXPECT_EQ(l.log_page_version, 4u);                                 // 494-495
  EXPECT_TRUE(l.guid_ok());                                          // 496-511
  EXPECT_EQ(guid_text(l.guid), "AFD514C97C6F4F9CA4F2BFEA2810AFC5");
}

TEST(OcpSmartLog, AForeignGuidIsNotAnOcpLog) {
  const OcpSmartLog l = captured("ocp-wrong-guid.bin");
  EXPECT_FALSE(l.guid_ok());
  CapturedNvmeAdmin admin(kPages, {"smart-log.bin"});
  admin.set_ocp_pages(kPages, {"ocp-wrong-guid.bin"});
  try {
    (void)read_ocp_smart_log(admin);
    FAIL() << "a foreign C0h page was taken for the OCP log";
  } catch (const NvmeError& e) {
    EXPECT_NE(std::string(e.what()).find("is not an OCP SMART / Health Information Extended log: "
                                         "GUID 0F0E0D0C0B0A09080706050403020100"),
              std::string::npos)
        << e.what();
  }
  // In a health snapshot the absence is a row, not an error.
  CapturedNvmeAdmin again(kPages, {"smart-log.bin"});
  again.set_ocp_pages(kPages, {"ocp-wrong-guid.bin"});
  auto snap = take_health_snapshot(again);
  EXPECT_FALSE(snap.ocp);
  EXPECT_NE(row_value(health_rows(snap), "ocp.c0h").find("not an OCP"), std::string::npos);
}

TEST(OcpSmartLog, HealthRowsCarryTheExtendedLog) {
  CapturedNvmeAdmin admin(kPages, {"smart-log.bin"});
  admin.set_ocp_pages(kPages, {"ocp-smart-log.bin"});
  auto rows = health_rows(take_health_snapshot(admin));
  EXPECT_EQ(row_value(rows, "ocp.physical_media_written_bytes"), "3000000000000");
  EXPECT_EQ(row_value(rows, "ocp.bad_user_nand_blocks"), "16909060");
  EXPECT_EQ(row_value(rows, "ocp.pcie_correctable_errors"), "21");
  EXPECT_EQ(row_value(rows, "ocp.log_page_guid"), "AFD514C97C6F4F9CA4F2BFEA2810AFC5 (OCP)");
  for (const auto& r : rows)
    if (r.field.rfind("ocp.", 0) == 0) {
      EXPECT_EQ(r.source, "nvme:ocp-c0h");
    }
}

TEST(OcpSmartLog, BeforeAfterChangesNameTheNewErrors) {
  CapturedNvmeAdmin admin(kPages, {"smart-before.bin", "smart-after.bin"});
  admin.set_ocp_pages(kPages, {"ocp-before.bin", "ocp-after.bin"});
  auto before = take_health_snapshot(admin);
  auto after = take_health_snapshot(admin);
  auto changes = health_changes(before, after);
  auto has = [&](const std::string& s) {
    return std::find(changes.begin(), changes.end(), s) != changes.end();
  };
  EXPECT_TRUE(has("ocp: bad user NAND blocks 16909060 -> 16909061 (+1)"));
  EXPECT_TRUE(has("ocp: PCIe correctable errors 21 -> 22 (+1)"));
  EXPECT_TRUE(has("ocp: thermal throttling events 6 -> 7 (+1)"));
  EXPECT_TRUE(has("ocp: thermal throttling status 1 after the run"));
  EXPECT_TRUE(has("ocp: media written 2560000000 bytes"));
  // Changes of the plain SMART log come first, as before.
  EXPECT_EQ(changes[0], "new critical warning 0x04: reliability degraded");
}

TEST(OcpSmartLog, IdentifyShowsTheExtendedLog) {
  auto r =
      storqual::testing::run_command({STORQUAL_BINARY, "identify", "--json", "--sysfs-root",
                                      (fs::path(STORQUAL_TEST_DATA) / "sysfs/nvme/sys").string(),
                                      "--target", "nvme0n1", "--nvme-pages", kPages.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::string guid, media;
  for (const auto& row : j.at("health")) {
    if (row.at("field") == "ocp.log_page_guid") guid = row.at("value");
    if (row.at("field") == "ocp.physical_media_written_bytes") media = row.at("value");
  }
  EXPECT_EQ(guid, "AFD514C97C6F4F9CA4F2BFEA2810AFC5 (OCP)");
  EXPECT_EQ(media, "3000000000000");
  auto text =
      storqual::testing::run_command({STORQUAL_BINARY, "identify", "--sysfs-root",
                                      (fs::path(STORQUAL_TEST_DATA) / "sysfs/nvme/sys").string(),
                                      "--target", "nvme0n1", "--nvme-pages", kPages.string()});
  EXPECT_NE(text.out.find("ocp.xor_recovery_count"), std::string::npos) << text.out;
}
