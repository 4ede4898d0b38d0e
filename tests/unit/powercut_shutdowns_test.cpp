// SPDX-License-Identifier: Apache-2.0
// The unsafe-shutdown count a power cut must raise by one: read from constructed NVMe SMART and OCP
// C0h logs (tests/data/nvme), constructed ATA SMART pages (attribute 192, else 174) and a SCSI
// reading (none: named, not silent); carried in arm's journal; judged by check.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "devices/ata_smart.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "runner/measure/powercut_journal.hpp"
#include "runner/methods/power_cut/powercut_check.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
using devices::HealthSnapshot;
using devices::unsafe_shutdown_count;

const fs::path kNvme = fs::path(STORQUAL_TEST_DATA) / "nvme";

// An ATA reading whose attribute page holds `attrs` (id, raw value).
HealthSnapshot ata_reading(std::initializer_list<std::pair<std::uint8_t, std::uint32_t>> attrs) {
  devices::AtaPage data{}, thresholds{};
  int slot = 0;
  for (const auto& [id, raw] : attrs) {
    std::uint8_t* e = data.data() + 2 + slot * 12;
    e[0] = id;
    e[1] = 0x32;
    e[3] = 100;
    e[4] = 100;
    for (int b = 0; b < 4; ++b) e[5 + b] = static_cast<std::uint8_t>(raw >> (8 * b));
    thresholds[2 + slot * 12] = id;
    ++slot;
  }
  HealthSnapshot s;
  s.source = "ata:smart";
  s.ata = devices::AtaSmart{};
  s.ata->attributes = devices::parse_ata_attributes(data, thresholds);
  return s;
}

TEST(UnsafeShutdownCount, NvmeSmartLogAndOcpIncompleteShutdowns) {
  devices::CapturedNvmeAdmin admin(kNvme, {"smart-before.bin"});
  auto c = unsafe_shutdown_count(devices::take_health_snapshot(admin));
  ASSERT_TRUE(c.count);
  EXPECT_EQ(*c.count, 17u);
  EXPECT_EQ(c.source, "nvme:smart-log");
  EXPECT_FALSE(c.ocp_incomplete);  // this capture has no C0h page

  devices::CapturedNvmeAdmin ocp(kNvme, {"smart-log.bin"});
  ocp.set_ocp_pages(kNvme, {"ocp-smart-log.bin"});
  c = unsafe_shutdown_count(devices::take_health_snapshot(ocp));
  ASSERT_TRUE(c.ocp_incomplete);
  EXPECT_EQ(*c.ocp_incomplete, 1u);  // make_pages.py's value at bytes 112-115
}

TEST(UnsafeShutdownCount, ACounterAbove64BitsIsNamedNotTruncated) {
  devices::CapturedNvmeAdmin admin(kNvme, {"smart-max.bin"});
  const auto c = unsafe_shutdown_count(devices::take_health_snapshot(admin));
  EXPECT_FALSE(c.count);
  EXPECT_NE(c.note.find("64 bits"), std::string::npos) << c.note;
}

TEST(UnsafeShutdownCount, AtaAttribute192ElseAttribute174ElseNamed) {
  auto c = unsafe_shutdown_count(ata_reading({{9, 1000}, {174, 3}, {192, 41}}));
  ASSERT_TRUE(c.count);
  EXPECT_EQ(*c.count, 41u);
  EXPECT_EQ(c.source, "ata:192");
  c = unsafe_shutdown_count(ata_reading({{9, 1000}, {174, 3}}));
  ASSERT_TRUE(c.count);
  EXPECT_EQ(*c.count, 3u);
  EXPECT_EQ(c.source, "ata:174");
  c = unsafe_shutdown_count(ata_reading({{9, 1000}}));
  EXPECT_FALSE(c.count);
  EXPECT_EQ(c.note, "the drive's SMART attributes have neither 192 nor 174");
}

TEST(UnsafeShutdownCount, AScsiDiskHasNoneAndSaysSo) {
  HealthSnapshot s;
  s.scsi = devices::ScsiHealth{};
  const auto c = unsafe_shutdown_count(s);
  EXPECT_FALSE(c.count);
  EXPECT_EQ(c.note, "a SCSI disk's log pages have no unsafe-shutdown counter");
}

JournalShutdowns readable(std::uint64_t n, std::optional<std::uint64_t> ocp = std::nullopt) {
  JournalShutdowns s;
  s.readable = true;
  s.count = n;
  s.source = "nvme:smart-log";
  s.has_ocp = ocp.has_value();
  s.ocp_incomplete = ocp.value_or(0);
  return s;
}

JournalContents journal_with(std::optional<JournalShutdowns> before, bool ended = false) {
  JournalContents j;
  j.shutdowns_before = std::move(before);
  j.ended = ended;
  return j;
}

TEST(UnsafeShutdownVerdict, OneCutMustRaiseTheCountByExactlyOne) {
  auto v = unsafe_shutdown_verdict(journal_with(readable(17)), readable(18), "cut 1");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Pass) << v.message;
  EXPECT_EQ(v.metric, "powercut.unsafe_shutdowns");
  EXPECT_EQ(v.kind, reporting::VerdictKind::Health);
  EXPECT_EQ(*v.measured, 1);
  EXPECT_EQ(v.message,
            "unsafe-shutdown count (nvme:smart-log) 17 before arm, 18 at check: rose by 1 (one "
            "cut: expected exactly 1)");
  v = unsafe_shutdown_verdict(journal_with(readable(17)), readable(17), "cut 1");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("rose by 0"), std::string::npos) << v.message;
  v = unsafe_shutdown_verdict(journal_with(readable(17)), readable(19), "cut 1");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  v = unsafe_shutdown_verdict(journal_with(readable(17)), readable(5), "cut 1");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("rose by -12"), std::string::npos) << v.message;
  // A run that ended without a cut: no rise expected.
  v = unsafe_shutdown_verdict(journal_with(readable(17), true), readable(17), "cut 1");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Pass) << v.message;
}

TEST(UnsafeShutdownVerdict, OcpIncompleteShutdownsMustRiseToo) {
  auto v = unsafe_shutdown_verdict(journal_with(readable(4, 2)), readable(5, 3), "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Pass) << v.message;
  v = unsafe_shutdown_verdict(journal_with(readable(4, 2)), readable(5, 2), "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("OCP incomplete shutdowns 2 before arm, 2 at check: rose by 0"),
            std::string::npos)
      << v.message;
}

TEST(UnsafeShutdownVerdict, NotReadableIsSaidNeverSilent) {
  JournalShutdowns none;
  none.source = "a SCSI disk's log pages have no unsafe-shutdown counter";
  auto v = unsafe_shutdown_verdict(journal_with(none), none, "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Skipped);
  EXPECT_EQ(v.message,
            "unsafe-shutdown count not readable: before arm: a SCSI disk's log pages have no "
            "unsafe-shutdown counter");
  v = unsafe_shutdown_verdict(journal_with(readable(3)), none, "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Skipped);
  EXPECT_NE(v.message.find("not readable: at check"), std::string::npos) << v.message;
  v = unsafe_shutdown_verdict(journal_with(std::nullopt), readable(3), "c");
  EXPECT_EQ(v.status, reporting::VerdictStatus::Skipped);
  EXPECT_EQ(v.message,
            "unsafe-shutdown count not readable: the journal holds no count from before the cut");
}

TEST(UnsafeShutdownJournal, TheCountBeforeArmRoundTripsAndComesOnlyBeforeTheRun) {
  JournalEntry h;
  h.type = JournalEntryType::Header;
  h.header.run_id = 5;
  h.header.region_size = 1 << 20;
  JournalEntry s;
  s.type = JournalEntryType::Shutdowns;
  s.shutdowns = readable(41, 7);
  JournalEntry w;
  w.type = JournalEntryType::Write;
  w.write = {1, 0, 4096, false, 0, 2, 5};
  const std::string head = encode_journal_frame(h);
  s.sequence = 1;
  w.sequence = 2;
  JournalContents j = parse_journal(head + encode_journal_frame(s) + encode_journal_frame(w), "t");
  ASSERT_TRUE(j.shutdowns_before);
  EXPECT_TRUE(j.shutdowns_before->readable);
  EXPECT_EQ(j.shutdowns_before->count, 41u);
  EXPECT_TRUE(j.shutdowns_before->has_ocp);
  EXPECT_EQ(j.shutdowns_before->ocp_incomplete, 7u);
  EXPECT_EQ(j.shutdowns_before->source, "nvme:smart-log");
  EXPECT_EQ(j.writes.size(), 1u);
  EXPECT_FALSE(parse_journal(head, "t").shutdowns_before);
  w.sequence = 1;
  s.sequence = 2;
  EXPECT_THROW((void)parse_journal(head + encode_journal_frame(w) + encode_journal_frame(s), "t"),
               JournalError);
}

}  // namespace
}  // namespace storqual::runner
