// SPDX-License-Identifier: Apache-2.0
// Real drives' SMART pages (tests/data/ata/real: 19 snapshots of 16 models that libatasmart keeps
// of "bad or weird drives", imported by import_libatasmart.py) decoded by storqual and by skdump
// (libatasmart-bin) from the same snapshot, field by field; and the health testcase of each drive
// read at arrival against skdump's own overall status.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "devices/ata_health.hpp"
#include "devices/ata_smart.hpp"
#include "devices/health.hpp"
#include "reporting/verdict_status.hpp"
#include "runner/judge/health_verdict.hpp"
#include "tests/support/skdump.hpp"
#include "tests/support/tools.hpp"

namespace fs = std::filesystem;
using namespace storqual;
using namespace storqual::devices;
namespace sq = storqual::testing;

namespace {

const fs::path kReal = fs::path(STORQUAL_TEST_DATA) / "ata" / "real";

std::vector<fs::path> drives() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kReal))
    if (e.is_directory()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// skdump prints identity strings in brackets: "Model: [WDC WD5000AAKS-00TMA0]".
std::string bracketed(const std::string& value) {
  if (value.size() >= 2 && value.front() == '[' && value.back() == ']')
    return value.substr(1, value.size() - 2);
  return value;
}

// Where libatasmart's drive database (atasmart.c quirk_database) says an attribute of a model is
// not what the standard numbering says and its raw still reads as a plausible count: storqual has
// no drive database (docs/identity-and-safety.md, "SATA health"), so it reads such a raw as the
// standard count. Each entry is one drive and one attribute, named.
bool in_skdumps_drive_database(const fs::path& drive, unsigned id) {
  // MCCOE64GEMPP (a Samsung SSD): SK_SMART_QUIRK_5_UNKNOWN; raw 00 50 24 00 00 00, which
  // raw16(raw16) reads as 20480 reallocated sectors of 125 million.
  return drive.filename() == "MCCOE64GEMPP--2.9.09" && id == 5;
}

}  // namespace

TEST(AtaRealDrives, AtLeastFiveDrivesSomeOfThemFailing) {
  const auto all = drives();
  EXPECT_GE(all.size(), 5u);
  unsigned bad = 0;
  STORQUAL_REQUIRE(sq::have_skdump(), "skdump (libatasmart-bin)");
  for (const auto& d : all)
    bad += sq::skdump_field(sq::run_skdump_file(d / "skdump.blob"), "Overall Status") != "GOOD";
  EXPECT_GE(bad, 2u);
}

TEST(AtaRealDrives, EveryFieldEqualsSkdumpsDecodingOfTheSameSnapshot) {
  STORQUAL_REQUIRE(sq::have_skdump(), "skdump (libatasmart-bin)");
  for (const auto& d : drives()) {
    SCOPED_TRACE(d.filename().string());
    CapturedAtaAdmin admin(d, {"now"});
    const AtaIdentity id = parse_ata_identify(admin.identify_device());
    const AtaSmart s = read_ata_smart(admin);
    const std::string out = sq::run_skdump_file(d / "skdump.blob");
    EXPECT_EQ(id.model, bracketed(sq::skdump_field(out, "Model")));
    EXPECT_EQ(id.serial, bracketed(sq::skdump_field(out, "Serial")));
    EXPECT_EQ(id.firmware, bracketed(sq::skdump_field(out, "Firmware")));
    const auto rows = sq::skdump_attributes(out);
    ASSERT_EQ(rows.size(), s.attributes.size()) << out;
    for (const auto& a : s.attributes) {
      SCOPED_TRACE("attribute " + std::to_string(a.id));
      ASSERT_TRUE(rows.count(a.id)) << out;
      const sq::SkdumpRow& r = rows.at(a.id);
      EXPECT_EQ(r.value, sq::skdump_byte(a.value));
      EXPECT_EQ(r.worst, sq::skdump_byte(a.worst));
      EXPECT_EQ(r.threshold,
                a.threshold && *a.threshold != 0xFE ? std::to_string(*a.threshold) : "n/a");
      EXPECT_EQ(r.raw, sq::skdump_raw_hex(a));
      EXPECT_EQ(r.type, a.prefailure() ? "prefail" : "old-age");
      // skdump judges "good" only where the threshold is neither always-passing (0) nor
      // always-failing (FEh, FFh), as storqual does.
      if (r.good != "n/a") {
        EXPECT_TRUE(a.valid_threshold());
        EXPECT_EQ(r.good, a.failing_now() ? "no" : "yes");
      }
      // A sector count: skdump's "N sectors" is storqual's count; where skdump names the
      // attribute by number only (its drive database says the raw is not a count), storqual
      // must not take it for one either, or its count is skdump's.
      const bool sectors_attribute = a.id == kAtaReallocated || a.id == kAtaPending ||
                                     a.id == kAtaOfflineUncorrectable ||
                                     a.id == kAtaReportedUncorrect;
      if (sectors_attribute && r.pretty.ends_with(" sectors")) {
        ASSERT_TRUE(s.sector_count(a.id).has_value()) << r.pretty;
        EXPECT_EQ(std::to_string(*s.sector_count(a.id)) + " sectors", r.pretty);
      } else if (sectors_attribute && r.pretty == "n/a" && !in_skdumps_drive_database(d, a.id)) {
        EXPECT_FALSE(s.sector_count(a.id).has_value()) << *s.raw(a.id);
      }
    }
    const std::string good = sq::skdump_field(out, "SMART Disk Health Good");
    if (s.status == AtaSmartStatus::Unknown)
      EXPECT_NE(good, "yes") << good;
    else
      EXPECT_EQ(good, s.status == AtaSmartStatus::Failing ? "no" : "yes");
  }
}

// The health testcase of each drive read at arrival (before the run and after it the same), against
// skdump's overall status (atasmart.c sk_disk_smart_get_overall) and its attribute table: a
// failing SMART status or an attribute at or below its threshold fails; a drive with pending or
// offline- uncorrectable sectors, which skdump calls BAD_SECTOR, fails storqual's health testcase
// with the count named; reallocated sectors alone (also BAD_SECTOR to skdump) pass it, named, and
// are a spec sheet's limit to judge.
TEST(AtaRealDrives, TheHealthTestcaseAtArrivalAgreesWithSkdumpsOverallStatus) {
  STORQUAL_REQUIRE(sq::have_skdump(), "skdump (libatasmart-bin)");
  unsigned failed = 0;
  for (const auto& d : drives()) {
    SCOPED_TRACE(d.filename().string());
    CapturedAtaAdmin admin(d, {"now"});
    const HealthSnapshot arrival = take_health_snapshot(admin);
    ASSERT_TRUE(arrival.ata);
    const AtaSmart& s = *arrival.ata;
    const auto v = runner::health_verdict(arrival, {}, {}, arrival);
    ASSERT_TRUE(v.has_value());
    const std::string out = sq::run_skdump_file(d / "skdump.blob");
    const std::string overall = sq::skdump_field(out, "Overall Status");
    const auto rows = sq::skdump_attributes(out);
    auto skdump_sectors = [&](unsigned id) -> std::uint64_t {
      const auto r = rows.find(id);
      return r != rows.end() && r->second.pretty.ends_with(" sectors")
                 ? std::stoull(r->second.pretty)
                 : 0;
    };
    const std::uint64_t unreadable =
        skdump_sectors(kAtaPending) + skdump_sectors(kAtaOfflineUncorrectable);
    // skdump's own column "Good" (now) says no: an attribute at or below its threshold. skdump's
    // overall status counts only pre-failure ones (BAD_ATTRIBUTE_NOW); storqual fails an old-age
    // one too (the drive says it is past its rated life), naming which.
    std::string bad_attribute;
    for (const auto& [id, r] : rows)
      if (r.good == "no" && bad_attribute.empty())
        bad_attribute = "attribute " + std::to_string(id);
    if (overall == "BAD_STATUS") {
      EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
      EXPECT_NE(v->message.find("SMART status failing"), std::string::npos) << v->message;
    } else if (overall == "BAD_ATTRIBUTE_NOW" || !bad_attribute.empty()) {
      EXPECT_EQ(v->status, reporting::VerdictStatus::Fail);
      EXPECT_NE(v->message.find(bad_attribute + " "), std::string::npos) << v->message;
      EXPECT_NE(v->message.find("at or below its threshold"), std::string::npos) << v->message;
    } else if (unreadable > 0) {
      // BAD_SECTOR, or a drive whose status skdump could not read (no SMST in the snapshot).
      EXPECT_EQ(v->status, reporting::VerdictStatus::Fail) << overall;
      if (const auto n = skdump_sectors(kAtaPending); n > 0) {
        EXPECT_NE(v->message.find(std::to_string(n) + " pending sectors (197): sectors the drive "
                                                      "cannot read (before the run)"),
                  std::string::npos)
            << v->message;
      }
    } else {
      EXPECT_TRUE(overall == "GOOD" || overall == "BAD_SECTOR" ||
                  overall == "BAD_ATTRIBUTE_IN_THE_PAST")
          << overall;
      EXPECT_EQ(v->status, reporting::VerdictStatus::Pass) << v->message;
      if (const auto n = skdump_sectors(kAtaReallocated); n > 0) {
        EXPECT_NE(v->message.find("reallocated sectors (5) " + std::to_string(n)),
                  std::string::npos)
            << v->message;
      }
    }
    failed += v->status == reporting::VerdictStatus::Fail;
    (void)s;
  }
  EXPECT_GE(failed, 2u);
}
