// SPDX-License-Identifier: Apache-2.0
// ATA SMART: the pages of the QEMU lab's AHCI disk (tests/data/ata/qemu-ahci, captured in the lab
// through SG_IO) decoded field by field against smartctl's JSON reading of the same drive, and
// against skdump (libatasmart) on the same bytes; the crafted failing drive
// (tests/data/ata/make_pages.py) failing the health verdict with its reasons named; the SG_IO
// seam refusing what is not a SCSI device.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "devices/ata_health.hpp"
#include "devices/ata_smart.hpp"
#include "devices/health.hpp"
#include "runner/judge/health_verdict.hpp"
#include "tests/support/skdump.hpp"
#include "tests/support/tools.hpp"

namespace fs = std::filesystem;
using namespace storqual;
using namespace storqual::devices;
using storqual::testing::have_skdump;
using storqual::testing::run_skdump;
using storqual::testing::skdump_attributes;
using storqual::testing::skdump_blob;
using storqual::testing::SkdumpRow;

namespace {

const fs::path kData = fs::path(STORQUAL_TEST_DATA) / "ata";

std::string row_value(const std::vector<IdentityRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "<absent>";
}

AtaSmart qemu_reading() {
  CapturedAtaAdmin admin(kData / "qemu-ahci", {"now"});
  return read_ata_smart(admin);
}

nlohmann::json smartctl_json() {
  std::ifstream in(kData / "qemu-ahci" / "smartctl.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(AtaSmart, QemuDiskAttributesEqualSmartctlsReadingFieldByField) {
  const AtaSmart s = qemu_reading();
  const auto ref = smartctl_json();
  const auto& table = ref.at("ata_smart_attributes").at("table");
  ASSERT_EQ(s.attributes.size(), table.size());
  for (const auto& t : table) {
    const AtaAttribute* a = s.find(static_cast<std::uint8_t>(t.at("id").get<int>()));
    ASSERT_NE(a, nullptr) << t.dump();
    EXPECT_EQ(a->name, t.at("name").get<std::string>());
    EXPECT_EQ(a->value, t.at("value").get<int>());
    EXPECT_EQ(a->worst, t.at("worst").get<int>());
    ASSERT_TRUE(a->threshold.has_value());
    EXPECT_EQ(*a->threshold, t.at("thresh").get<int>());
    EXPECT_EQ(a->flags, t.at("flags").at("value").get<int>());
    EXPECT_EQ(a->prefailure(), t.at("flags").at("prefailure").get<bool>());
    EXPECT_EQ(a->raw_text, t.at("raw").at("string").get<std::string>()) << a->name;
    std::uint64_t raw48 = 0;
    for (int i = 5; i >= 0; --i) raw48 = (raw48 << 8) | a->raw[i];
    EXPECT_EQ(raw48, t.at("raw").at("value").get<std::uint64_t>()) << a->name;
    const std::string when = a->failing_now()      ? "FAILING_NOW"
                             : a->failed_in_past() ? "In_the_past"
                                                   : "";
    EXPECT_EQ(when, t.value("when_failed", std::string()));
  }
  EXPECT_EQ(s.status == AtaSmartStatus::Passed, ref.at("smart_status").at("passed").get<bool>());
  EXPECT_TRUE(s.data_checksum_ok);
  EXPECT_TRUE(s.thresholds_checksum_ok);
}

TEST(AtaSmart, QemuDiskLogsEqualSmartctlsReading) {
  const AtaSmart s = qemu_reading();
  const auto ref = smartctl_json();
  const auto& tests = ref.at("ata_smart_self_test_log").at("standard").at("table");
  ASSERT_EQ(s.self_tests.size(), tests.size());
  ASSERT_FALSE(tests.empty()) << "the lab runs two short self-tests before capturing";
  for (std::size_t i = 0; i < tests.size(); ++i) {
    EXPECT_EQ(s.self_tests[i].test_name(), tests[i].at("type").at("string").get<std::string>());
    EXPECT_EQ(s.self_tests[i].status_text(), tests[i].at("status").at("string").get<std::string>());
    EXPECT_EQ(s.self_tests[i].hours, tests[i].at("lifetime_hours").get<int>());
  }
  ASSERT_TRUE(s.error_count.has_value()) << s.error_log_note;
  EXPECT_EQ(*s.error_count, ref.at("ata_smart_error_log").at("summary").at("count").get<int>());
  if (ref.contains("power_on_time")) {
    ASSERT_TRUE(s.power_on_hours().has_value());
    EXPECT_EQ(*s.power_on_hours(), ref.at("power_on_time").at("hours").get<std::uint64_t>());
  }
  if (ref.contains("temperature")) {
    ASSERT_TRUE(s.temperature_c().has_value());
    EXPECT_EQ(*s.temperature_c(), ref.at("temperature").at("current").get<int>());
  }
}

TEST(AtaSmart, QemuDiskIdentifyNamesTheLabsDrive) {
  CapturedAtaAdmin admin(kData / "qemu-ahci", {"now"});
  const AtaIdentity id = parse_ata_identify(admin.identify_device());
  EXPECT_EQ(id.model, "SQLAB SATA SSD 870 WITH LONG NAME");
  EXPECT_EQ(id.serial, "SQSATA0001");
  EXPECT_EQ(id.firmware, "SQFW0002");
  EXPECT_TRUE(id.smart_supported);
  EXPECT_TRUE(id.smart_enabled);
}

// Every captured drive, decoded by libatasmart from the same bytes: the same attributes, values,
// thresholds, raw bytes, pre-failure flags and "good" judgement.
TEST(AtaSmart, SkdumpDecodesEveryCapturedPageAsWeDo) {
  STORQUAL_REQUIRE(have_skdump(), "skdump (libatasmart-bin)");
  struct Drive {
    fs::path dir;
    std::string reading;
  };
  for (const Drive& d : {Drive{kData / "qemu-ahci", "now"}, Drive{kData / "failing", "before"},
                         Drive{kData / "failing", "after"}}) {
    CapturedAtaAdmin admin(d.dir, {d.reading});
    const AtaPage data = admin.smart_read_data();
    const AtaSmart s =
        parse_ata_smart(data, admin.smart_read_thresholds(), admin.smart_return_status());
    const std::string out =
        run_skdump(skdump_blob(admin.identify_device(), data, admin.smart_read_thresholds(),
                               s.status != AtaSmartStatus::Failing));
    const auto rows = skdump_attributes(out);
    ASSERT_EQ(rows.size(), s.attributes.size()) << d.dir << " " << d.reading << "\n" << out;
    for (const auto& a : s.attributes) {
      SCOPED_TRACE(d.dir.filename().string() + " " + d.reading + " attribute " +
                   std::to_string(a.id));
      ASSERT_TRUE(rows.count(a.id)) << out;
      const SkdumpRow& r = rows.at(a.id);
      EXPECT_EQ(r.value, storqual::testing::skdump_byte(a.value));
      EXPECT_EQ(r.worst, storqual::testing::skdump_byte(a.worst));
      EXPECT_EQ(r.threshold, std::to_string(a.threshold.value_or(0)));
      EXPECT_EQ(r.raw, storqual::testing::skdump_raw_hex(a));
      EXPECT_EQ(r.type, a.prefailure() ? "prefail" : "old-age");
      if (a.valid_threshold()) {
        EXPECT_EQ(r.good, a.failing_now() ? "no" : "yes");
      }
    }
    EXPECT_NE(out.find(s.status == AtaSmartStatus::Failing ? "SMART Disk Health Good: no"
                                                           : "SMART Disk Health Good: yes"),
              std::string::npos)
        << out;
  }
}

TEST(AtaHealth, CraftedFailingDriveFailsTheHealthVerdictWithEachReasonNamed) {
  CapturedAtaAdmin admin(kData / "failing", {"before", "after"});
  const HealthSnapshot before = take_health_snapshot(admin);
  const HealthSnapshot after = take_health_snapshot(admin);
  ASSERT_TRUE(before.ata && after.ata);
  auto v = runner::health_verdict(before, {}, {}, after);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v->message.find("SMART status failing"), std::string::npos) << v->message;
  EXPECT_NE(v->message.find("grown reallocated sectors (5) 2 -> 40"), std::string::npos)
      << v->message;
  EXPECT_NE(v->message.find("grown pending sectors (197) 0 -> 8"), std::string::npos) << v->message;
  EXPECT_NE(v->message.find("pre-failure attribute 5 Reallocated_Sector_Ct at or below its "
                            "threshold"),
            std::string::npos)
      << v->message;
  EXPECT_NE(v->message.find("(after the run)"), std::string::npos) << v->message;
  // The CRC count is named as the cable, not counted as a failure of the drive.
  EXPECT_NE(v->message.find("UDMA CRC errors 0 -> 12 (+12): the cable or backplane"),
            std::string::npos)
      << v->message;
  EXPECT_NE(v->message.find("a self-test failed: Short offline: Completed: read failure, first "
                            "failing LBA 123456 (after the run)"),
            std::string::npos)
      << v->message;
  EXPECT_EQ(v->measured, 5);
  const auto changes = health_changes(before, after);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.front(), "SMART status passed -> failing");
  EXPECT_EQ(row_value(health_rows(after), "smart_status"), "failing");
  EXPECT_EQ(row_value(health_rows(after), "attr.005.Reallocated_Sector_Ct"),
            "value 30, worst 30, threshold 36, Pre-fail, raw 40, when failed FAILING_NOW");
}

TEST(AtaHealth, HealthyDriveWithOnlyCrcErrorsPassesAndNamesTheCable) {
  CapturedAtaAdmin admin(kData / "failing", {"before", "cable"});
  const HealthSnapshot before = take_health_snapshot(admin);
  const HealthSnapshot after = take_health_snapshot(admin);
  auto v = runner::health_verdict(before, {}, {}, after);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, reporting::VerdictStatus::Pass) << v->message;
  EXPECT_NE(v->message.find("the cable or backplane, not the drive"), std::string::npos)
      << v->message;
  EXPECT_EQ(v->measured, 0);
}

TEST(AtaHealth, ReadingBetweenWorkloadsIsNamedWhereTheGrowthWasFirstSeen) {
  CapturedAtaAdmin admin(kData / "failing", {"before", "after", "before"});
  const HealthSnapshot before = take_health_snapshot(admin);
  const HealthSnapshot mid = take_health_snapshot(admin);
  const HealthSnapshot after = take_health_snapshot(admin);
  const auto failures = health_failures(before, {mid, after}, {"after workload 1 of 2", "after"});
  ASSERT_FALSE(failures.empty());
  for (const auto& f : failures)
    EXPECT_NE(f.find("(after workload 1 of 2)"), std::string::npos) << f;
}

TEST(AtaSmart, RawFormatsDecodeAsSmartctlPrintsThem) {
  AtaPage data{}, thresholds{};
  auto put = [&](int slot, std::uint8_t id, std::array<std::uint8_t, 6> raw) {
    std::uint8_t* e = data.data() + 2 + slot * 12;
    e[0] = id;
    e[1] = 0x33;
    e[3] = 100;
    e[4] = 100;
    std::copy(raw.begin(), raw.end(), e + 5);
    thresholds[2 + slot * 12] = id;
    thresholds[3 + slot * 12] = 10;
  };
  put(0, 5, {3, 0, 1, 0, 2, 0});           // raw16(raw16): 3 (2 1)
  put(1, 9, {0x10, 0x27, 0, 5, 0, 0});     // raw24(raw8): 10000 (0 0 5)
  put(2, 194, {35, 0, 20, 45, 0, 0});      // tempminmax 00 00 HH LL xx TT
  put(3, 3, {0xE8, 0x03, 0x10, 0, 0, 0});  // raw16(avg16): 1000 (Average 16)
  put(4, 100, {1, 2, 3, 4, 5, 6});         // unknown id: raw48
  const auto attrs = parse_ata_attributes(data, thresholds);
  ASSERT_EQ(attrs.size(), 5u);
  EXPECT_EQ(attrs[0].raw_text, "3 (2 1)");
  EXPECT_EQ(attrs[0].raw_value, 3u);
  EXPECT_EQ(attrs[1].raw_text, "10000 (0 0 5)");
  EXPECT_EQ(attrs[1].raw_value, 10000u);
  EXPECT_EQ(attrs[2].raw_text, "35 (Min/Max 20/45)");
  EXPECT_EQ(attrs[3].raw_text, "1000 (Average 16)");
  EXPECT_EQ(attrs[4].name, "Unknown_Attribute");
  EXPECT_EQ(attrs[4].raw_value, 0x060504030201u);
  EXPECT_FALSE(ata_checksum_ok(data));
}

TEST(AtaSmart, SelfTestLogIsReadNewestFirstAcrossTheWrap) {
  AtaPage log{};
  for (int i = 0; i < 21; ++i) {
    std::uint8_t* e = log.data() + 2 + i * 24;
    e[0] = 1;
    e[2] = static_cast<std::uint8_t>(i + 1);  // hours = slot + 1
  }
  log[508] = 3;  // the newest is the third slot; the fourth the oldest
  const auto entries = parse_ata_self_test_log(log);
  ASSERT_EQ(entries.size(), 21u);
  EXPECT_EQ(entries[0].hours, 3);
  EXPECT_EQ(entries[1].hours, 2);
  EXPECT_EQ(entries[2].hours, 1);
  EXPECT_EQ(entries[3].hours, 21);
  EXPECT_EQ(entries[20].hours, 4);
}

TEST(AtaSmart, AThresholdMissingFromItsPageIsNeverAFailure) {
  AtaPage data{}, thresholds{};
  data[2] = 5;
  data[3] = 0x33;
  data[5] = 1;  // value 1, worst 0
  const auto attrs = parse_ata_attributes(data, thresholds);
  ASSERT_EQ(attrs.size(), 1u);
  EXPECT_FALSE(attrs[0].threshold.has_value());
  EXPECT_FALSE(attrs[0].failing_now());
}

TEST(AtaSmart, ACapturedPageOfTheWrongSizeIsRefusedNamingTheFile) {
  const fs::path dir = fs::temp_directory_path() / ("storqual-ata-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(kData / "qemu-ahci" / "ata-identify.bin", dir / "ata-identify.bin");
  fs::copy_file(kData / "qemu-ahci" / "ata-thresholds.bin", dir / "ata-thresholds.bin");
  std::ofstream(dir / "ata-smart-now.bin") << "short";
  try {
    CapturedAtaAdmin admin(dir, {"now"});
    ADD_FAILURE() << "a 5-byte page was accepted";
  } catch (const AtaError& e) {
    EXPECT_NE(std::string(e.what()).find("ata-smart-now.bin is 5 bytes"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

TEST(AtaPassThrough, AFileThatIsNoScsiDeviceRefusesPassThrough) {
  SgIoAtaAdmin admin("/dev/null");
  EXPECT_THROW((void)admin.smart_read_data(), AtaPassThroughRefused);
  EXPECT_THROW((void)admin.smart_return_status(), AtaPassThroughRefused);
}
