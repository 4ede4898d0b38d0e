// SPDX-License-Identifier: Apache-2.0
// The drive's self-test (devices/self_test.hpp, runner/methods/self_test/self_test.hpp): the
// decoders of what a poll reads on constructed pages (ATA SMART READ DATA byte 363 and polling
// times, SCSI sense data's progress indication, NVMe log 06h), and whole self-tests through fake
// health seams of each transport: passed, failed with the log's words and LBA, not supported,
// aborted on the drive when the run stops, not allowed without --allow-self-test; the suite element
// and its verdict.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <filesystem>

#include "devices/ata_smart.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/scsi_log.hpp"
#include "devices/self_test.hpp"
#include "reporting/html_report.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/methods/self_test/self_test.hpp"
#include "runner/specs/suite.hpp"

using namespace storqual;
using namespace storqual::devices;
using storqual::runner::run_self_test;
using storqual::runner::SelfTestReport;
using storqual::runner::SelfTestRun;
using storqual::runner::SelfTestSettings;

namespace {

// ---- decoders ----

TEST(SelfTestDecode, AtaExecutionStatusByte) {
  const auto running = decode_ata_self_test_execution(0xF3);
  EXPECT_TRUE(running.running());
  EXPECT_EQ(running.remaining_pct, 30u);
  const auto done = decode_ata_self_test_execution(0x00);
  EXPECT_FALSE(done.running());
  EXPECT_EQ(done.status, 0);
  const auto read_failure = decode_ata_self_test_execution(0x70);
  EXPECT_EQ(read_failure.status, 7);
  EXPECT_FALSE(read_failure.running());
}

TEST(SelfTestDecode, AtaPollingTimesAndCapability) {
  AtaPage data{};
  data[367] = 0x19;  // QEMU's: self-test supported, conveyance not
  data[372] = 2;
  data[373] = 0xFF;  // the extended time is in the word at 375-376
  data[375] = 0x01;
  data[376] = 0x02;
  EXPECT_EQ(ata_polling_minutes(data, SelfTestType::Short), 2u);
  EXPECT_EQ(ata_polling_minutes(data, SelfTestType::Extended), 0x0201u);
  EXPECT_EQ(ata_polling_minutes(data, SelfTestType::Conveyance), std::nullopt);
  EXPECT_TRUE(ata_supports(data, SelfTestType::Short));
  EXPECT_FALSE(ata_supports(data, SelfTestType::Conveyance));
  data[367] = 0x39;
  data[373] = 54;
  data[374] = 5;
  EXPECT_TRUE(ata_supports(data, SelfTestType::Conveyance));
  EXPECT_EQ(ata_polling_minutes(data, SelfTestType::Extended), 54u);
  EXPECT_EQ(ata_polling_minutes(data, SelfTestType::Conveyance), 5u);
  data[367] = 0x01;  // no self-test at all
  EXPECT_FALSE(ata_supports(data, SelfTestType::Short));
}

TEST(SelfTestDecode, ScsiSenseProgressFixedAndDescriptor) {
  // Fixed format, NOT READY, 04h/09h (self-test in progress), SKSV set, progress 4000h = 25%.
  std::vector<std::uint8_t> fixed(18, 0);
  fixed[0] = 0x70;
  fixed[2] = 0x02;
  fixed[7] = 10;
  fixed[12] = 0x04;
  fixed[13] = 0x09;
  fixed[15] = 0x80;
  fixed[16] = 0x40;
  EXPECT_TRUE(scsi_sense_self_test_in_progress(fixed));
  ASSERT_TRUE(scsi_sense_progress(fixed));
  EXPECT_DOUBLE_EQ(*scsi_sense_progress(fixed), 25.0);
  fixed[15] = 0x00;  // SKSV clear: no progress
  EXPECT_FALSE(scsi_sense_progress(fixed));
  // Descriptor format, NO SENSE, a sense key specific descriptor (02h) with C000h = 75%.
  std::vector<std::uint8_t> desc = {0x72, 0x00, 0x04, 0x09, 0,    0,    0,    8,
                                    0x02, 0x06, 0,    0,    0x80, 0xC0, 0x00, 0};
  EXPECT_TRUE(scsi_sense_self_test_in_progress(desc));
  ASSERT_TRUE(scsi_sense_progress(desc));
  EXPECT_DOUBLE_EQ(*scsi_sense_progress(desc), 75.0);
  // MEDIUM ERROR sense carries no progress; short or foreign data none either.
  desc[1] = 0x03;
  EXPECT_FALSE(scsi_sense_progress(desc));
  EXPECT_FALSE(scsi_sense_progress(std::vector<std::uint8_t>{0x70, 0, 2}));
  EXPECT_FALSE(scsi_sense_self_test_in_progress(std::vector<std::uint8_t>{}));
}

SelfTestLogPage nvme_log(std::uint8_t current, std::uint8_t percent) {
  SelfTestLogPage p{};
  p[0] = current;
  p[1] = percent;
  for (std::size_t i = 0; i < 20; ++i) p[4 + i * 28] = 0x0F;  // every entry unused
  return p;
}

void nvme_entry(SelfTestLogPage& p, std::size_t i, std::uint8_t code, std::uint8_t result,
                std::uint64_t hours, std::optional<std::uint64_t> lba = {},
                std::uint8_t segment = 0) {
  std::uint8_t* e = p.data() + 4 + i * 28;
  e[0] = static_cast<std::uint8_t>(code << 4 | result);
  e[1] = segment;
  e[2] = 0x01 | (lba ? 0x02 : 0);
  for (int b = 0; b < 8; ++b) e[4 + b] = static_cast<std::uint8_t>(hours >> (8 * b));
  e[12] = 1;
  if (lba)
    for (int b = 0; b < 8; ++b) e[16 + b] = static_cast<std::uint8_t>(*lba >> (8 * b));
}

TEST(SelfTestDecode, NvmeLog06h) {
  SelfTestLogPage p = nvme_log(2, 37);
  nvme_entry(p, 0, 1, 7, 1234, 0x10000, 3);
  nvme_entry(p, 1, 2, 0, 1200);
  const NvmeSelfTestLog log = parse_nvme_self_test_log(p);
  EXPECT_EQ(log.current_operation, 2);
  EXPECT_EQ(log.percent_complete, 37u);
  ASSERT_EQ(log.entries.size(), 2u);
  EXPECT_EQ(log.entries[0].code, 1);
  EXPECT_EQ(log.entries[0].result, 7);
  EXPECT_TRUE(log.entries[0].failed());
  EXPECT_EQ(log.entries[0].power_on_hours, 1234u);
  EXPECT_EQ(log.entries[0].nsid, 1u);
  EXPECT_EQ(log.entries[0].failing_lba, 0x10000u);
  EXPECT_EQ(log.entries[0].result_text(), "completed with segment 3 failed");
  EXPECT_EQ(log.entries[1].result_text(), "completed without error");
  EXPECT_FALSE(log.entries[1].failing_lba);
  std::array<std::uint8_t, 4096> ctrl{};
  ctrl[256] = 0x10;
  ctrl[316] = 0x5A;  // EDSTT 90 minutes
  EXPECT_TRUE(nvme_supports_self_test(ctrl));
  EXPECT_EQ(nvme_extended_self_test_minutes(ctrl), 90u);
}

// ---- whole self-tests through fake seams ----

// An ATA drive: SMART data pages in turn (byte 363 running down), the self-test log before and
// after the test; what was executed.
class FakeAtaDrive final : public AtaAdmin {
 public:
  std::deque<std::uint8_t> execution{0xF5, 0xF2, 0x00};  // running 50%, 20% left, done
  std::uint8_t capability = 0x19;
  AtaPage log_before{}, log_after{};
  bool started = false;
  std::vector<std::uint8_t> executed;
  bool abort_refused = false;

  AtaPage identify_device() override { return {}; }
  AtaPage smart_read_data() override {
    AtaPage p{};
    p[367] = capability;
    p[372] = 2;
    p[373] = 54;
    if (started && !execution.empty()) {
      p[363] = execution.front();
      if (execution.size() > 1) execution.pop_front();
    }
    return p;
  }
  AtaPage smart_read_thresholds() override { return {}; }
  AtaSmartStatus smart_return_status() override { return AtaSmartStatus::Passed; }
  AtaPage smart_read_log(std::uint8_t) override { return started ? log_after : log_before; }
  void smart_execute_offline_immediate(std::uint8_t subcommand) override {
    executed.push_back(subcommand);
    if (subcommand == 0x7F && abort_refused) throw AtaCommandAborted("abort refused");
    started = true;
  }
};

// One entry of an ATA self-test log at slot `index` (1-based), the log's index pointing at it.
void ata_entry(AtaPage& log, std::size_t index, std::uint8_t test, std::uint8_t status_byte,
               std::uint16_t hours, std::uint32_t lba = 0xFFFFFFFF) {
  std::uint8_t* e = log.data() + 2 + (index - 1) * 24;
  e[0] = test;
  e[1] = status_byte;
  e[2] = static_cast<std::uint8_t>(hours);
  e[3] = static_cast<std::uint8_t>(hours >> 8);
  for (int b = 0; b < 4; ++b) e[5 + b] = static_cast<std::uint8_t>(lba >> (8 * b));
  log[508] = static_cast<std::uint8_t>(index);
}

struct Ran {
  SelfTestReport report;
  std::string console;
  double elapsed_s = 0;
};

Ran run_with(DeviceSelfTest* test, SelfTestType type, std::atomic<bool>* stop = nullptr,
             std::function<void()> on_wait = {}) {
  SelfTestSettings s;
  s.type = type;
  s.poll_s = 30;
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* con = ::open_memstream(&buf, &len);
  SelfTestRun run;
  run.test = test;
  run.console = con;
  run.stop = stop;
  run.wait = [&](double) {
    if (on_wait) on_wait();
  };
  Ran r;
  r.report = run_self_test("st", s, run, r.elapsed_s);
  std::fclose(con);
  r.console.assign(buf, len);
  std::free(buf);
  return r;
}

TEST(SelfTestRunAta, ShortTestPassesWithProgressAndTheLogsWords) {
  FakeAtaDrive drive;
  ata_entry(drive.log_before, 1, 2, 0x00, 100);
  drive.log_after = drive.log_before;
  ata_entry(drive.log_after, 2, 1, 0x00, 120);
  auto test = ata_self_test(drive);
  const Ran r = run_with(test.get(), SelfTestType::Short);
  EXPECT_EQ(drive.executed, std::vector<std::uint8_t>{1});
  EXPECT_EQ(r.report.outcome, "passed");
  EXPECT_EQ(r.report.transport, "ata");
  EXPECT_EQ(r.report.status_text, "completed without error");
  EXPECT_EQ(r.report.power_on_hours, 120u);
  EXPECT_EQ(r.report.expected_s, 120.0);
  EXPECT_EQ(r.report.polls, 3u);
  EXPECT_NE(r.console.find("st: short self-test (ata): running, 50% done"), std::string::npos)
      << r.console;
  EXPECT_NE(r.console.find("80% done"), std::string::npos) << r.console;
  EXPECT_NE(r.console.find("st: short self-test (ata): passed: completed without error"),
            std::string::npos)
      << r.console;
  const auto v = runner::self_test_verdict("st", r.report, 1.0);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Pass);
  EXPECT_EQ(v.kind, reporting::VerdictKind::Health);
  EXPECT_EQ(v.metric, "self-test.short");
}

TEST(SelfTestRunAta, ReadFailureFailsNamingTheLba) {
  FakeAtaDrive drive;
  drive.execution = {0x00};
  ata_entry(drive.log_after, 1, 2, 0x70, 5000, 123456);
  auto test = ata_self_test(drive);
  const Ran r = run_with(test.get(), SelfTestType::Extended);
  EXPECT_EQ(drive.executed, std::vector<std::uint8_t>{2});
  EXPECT_EQ(r.report.outcome, "failed");
  EXPECT_EQ(r.report.status_text, "completed: read failure at LBA 123456");
  EXPECT_EQ(r.report.failing_lba, 123456u);
  EXPECT_EQ(r.report.expected_s, 54 * 60.0);
  const auto v = runner::self_test_verdict("st", r.report, 1.0);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Fail);
  EXPECT_NE(v.message.find("read failure at LBA 123456"), std::string::npos) << v.message;
}

TEST(SelfTestRunAta, ConveyanceNotSupportedIsNamedNotStarted) {
  FakeAtaDrive drive;
  auto test = ata_self_test(drive);
  const Ran r = run_with(test.get(), SelfTestType::Conveyance);
  EXPECT_TRUE(drive.executed.empty());
  EXPECT_EQ(r.report.outcome, "not supported");
  EXPECT_NE(r.report.status_text.find("does not support the conveyance self-test"),
            std::string::npos);
  EXPECT_EQ(runner::self_test_verdict("st", r.report, 0).status, reporting::VerdictStatus::Skipped);
}

TEST(SelfTestRunAta, NoNewLogEntryIsAnErrorNotAPass) {
  FakeAtaDrive drive;
  drive.execution = {0x00};
  ata_entry(drive.log_before, 1, 1, 0x00, 100);
  drive.log_after = drive.log_before;
  auto test = ata_self_test(drive);
  const Ran r = run_with(test.get(), SelfTestType::Short);
  EXPECT_EQ(r.report.outcome, "unknown");
  EXPECT_NE(r.report.status_text.find("no new entry"), std::string::npos);
  EXPECT_EQ(runner::self_test_verdict("st", r.report, 0).status, reporting::VerdictStatus::Error);
}

TEST(SelfTestRunAta, StopAbortsTheTestOnTheDrive) {
  FakeAtaDrive drive;
  drive.execution = {0xF9};  // stays running
  std::atomic<bool> stop{false};
  auto test = ata_self_test(drive);
  int waits = 0;
  const Ran r = run_with(test.get(), SelfTestType::Extended, &stop, [&] {
    if (++waits == 2) stop = true;
  });
  EXPECT_EQ(drive.executed, (std::vector<std::uint8_t>{2, 0x7F}));
  EXPECT_EQ(r.report.outcome, "interrupted");
  EXPECT_NE(r.report.status_text.find("aborted on the drive"), std::string::npos);
  const auto v = runner::self_test_verdict("st", r.report, 0);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Error);
  EXPECT_EQ(v.error_cause, reporting::ErrorCause::Interrupted);
}

TEST(SelfTestRunAta, PastItsTimeoutItIsAbortedOnTheDrive) {
  FakeAtaDrive drive;
  drive.execution = {0xF9};  // never ends
  auto test = ata_self_test(drive);
  SelfTestSettings s;
  s.timeout_s = 1e-9;
  SelfTestRun run;
  run.test = test.get();
  run.wait = [](double) {};
  double elapsed = 0;
  const SelfTestReport r = run_self_test("st", s, run, elapsed);
  EXPECT_EQ(r.outcome, "timed out");
  EXPECT_EQ(drive.executed, (std::vector<std::uint8_t>{1, 0x7F}));
  EXPECT_NE(r.status_text.find("aborted on the drive"), std::string::npos) << r.status_text;
  EXPECT_EQ(runner::self_test_verdict("st", r, elapsed).status, reporting::VerdictStatus::Error);
  // An abort the drive refuses is said, not thrown.
  FakeAtaDrive stubborn;
  stubborn.execution = {0xF9};
  stubborn.abort_refused = true;
  auto test2 = ata_self_test(stubborn);
  run.test = test2.get();
  const SelfTestReport r2 = run_self_test("st", s, run, elapsed);
  EXPECT_NE(r2.status_text.find("the abort failed: abort refused"), std::string::npos)
      << r2.status_text;
}

TEST(SelfTestRunAta, WithoutConsentNothingIsSent) {
  SelfTestSettings s;
  SelfTestRun run;
  run.gap = "not started: pass --allow-self-test";
  run.gap_is_consent = true;
  run.wait = [](double) {};
  double elapsed = 0;
  const SelfTestReport r = run_self_test("st", s, run, elapsed);
  EXPECT_EQ(r.outcome, "not allowed");
  const auto v = runner::self_test_verdict("st", r, 0);
  EXPECT_EQ(v.status, reporting::VerdictStatus::Skipped);
  EXPECT_NE(v.message.find("--allow-self-test"), std::string::npos);
}

TEST(SelfTestRunAta, ReadOnlySeamRefusesToExecute) {
  // The base seam (every health reading's) sends nothing that changes the drive.
  class ReadOnly final : public AtaAdmin {
    AtaPage identify_device() override { return {}; }
    AtaPage smart_read_data() override { return {}; }
    AtaPage smart_read_thresholds() override { return {}; }
    AtaSmartStatus smart_return_status() override { return AtaSmartStatus::Passed; }
    AtaPage smart_read_log(std::uint8_t) override { return {}; }
  } ro;
  EXPECT_THROW(ro.smart_execute_offline_immediate(1), AtaError);
}

// A SCSI disk: page 10h before and after, REQUEST SENSE in progress then done.
class FakeScsiDisk final : public ScsiLogSource {
 public:
  std::vector<std::uint8_t> page_before, page_after;
  std::deque<std::vector<std::uint8_t>> senses;
  std::vector<std::uint8_t> sent;
  std::vector<std::uint8_t> mode;  // MODE SENSE (10) page 0Ah; refused when empty
  bool refuse = false;
  std::vector<std::uint8_t> mode_sense_control() override {
    if (mode.empty()) throw ScsiLogRefused("MODE SENSE refused (ILLEGAL REQUEST, ASC 0x24/0x00)");
    return mode;
  }
  std::vector<std::uint8_t> log_sense(std::uint8_t page) override {
    if (page != kScsiSelfTest) throw ScsiError("no such page");
    return sent.empty() ? page_before : page_after;
  }
  void send_diagnostic(std::uint8_t code) override {
    if (refuse) throw ScsiLogRefused("SEND DIAGNOSTIC refused (ILLEGAL REQUEST, ASC 0x24/0x00)");
    sent.push_back(code);
  }
  std::vector<std::uint8_t> request_sense() override {
    if (senses.empty()) return std::vector<std::uint8_t>(18, 0);
    auto s = senses.front();
    senses.pop_front();
    return s;
  }
};

std::vector<std::uint8_t> scsi_page10(std::uint8_t code, std::uint8_t result, std::uint16_t hours,
                                      std::uint64_t lba) {
  std::vector<std::uint8_t> p = {0x10, 0, 0, 20, 0, 1, 0x03, 0x10};
  std::vector<std::uint8_t> v(16, 0);
  v[0] = static_cast<std::uint8_t>(code << 5 | result);
  v[2] = static_cast<std::uint8_t>(hours >> 8);
  v[3] = static_cast<std::uint8_t>(hours);
  for (int i = 0; i < 8; ++i) v[4 + i] = static_cast<std::uint8_t>(lba >> (8 * (7 - i)));
  p.insert(p.end(), v.begin(), v.end());
  return p;
}

TEST(SelfTestRunScsi, BackgroundShortWithSenseProgressThenTheLog) {
  FakeScsiDisk disk;
  disk.page_before = scsi_page10(2, 0, 10, ~0ull);
  disk.page_after = scsi_page10(1, 0, 11, ~0ull);
  std::vector<std::uint8_t> running(18, 0);
  running[0] = 0x70;
  running[2] = 0x00;
  running[7] = 10;
  running[12] = 0x04;
  running[13] = 0x09;
  running[15] = 0x80;
  running[16] = 0x80;  // 50%
  disk.senses = {running};
  auto test = scsi_self_test(disk);
  const Ran r = run_with(test.get(), SelfTestType::Short);
  EXPECT_EQ(disk.sent, std::vector<std::uint8_t>{1});
  EXPECT_EQ(r.report.outcome, "passed");
  EXPECT_EQ(r.report.status_text, "completed");
  EXPECT_NE(r.console.find("50% done"), std::string::npos) << r.console;
}

TEST(SelfTestRunScsi, RefusedSendDiagnosticIsNotSupported) {
  FakeScsiDisk disk;
  disk.refuse = true;
  auto test = scsi_self_test(disk);
  const Ran r = run_with(test.get(), SelfTestType::Extended);
  EXPECT_EQ(r.report.outcome, "not supported");
  EXPECT_NE(r.report.status_text.find("ILLEGAL REQUEST"), std::string::npos);
  EXPECT_EQ(run_with(test.get(), SelfTestType::Conveyance).report.outcome, "not supported");
}

// A MODE SENSE (10) response: the header, `descriptors` bytes of block descriptors, the Control
// mode page (0Ah, 10 bytes of parameters) with its extended self-test completion time.
std::vector<std::uint8_t> control_page(std::uint16_t seconds, std::uint8_t descriptors = 0) {
  std::vector<std::uint8_t> r(8 + descriptors, 0);
  r[7] = descriptors;
  const std::vector<std::uint8_t> page = {0x0A,
                                          0x0A,
                                          0x02,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0xFF,
                                          0xFF,
                                          static_cast<std::uint8_t>(seconds >> 8),
                                          static_cast<std::uint8_t>(seconds)};
  r.insert(r.end(), page.begin(), page.end());
  r[1] = static_cast<std::uint8_t>(r.size() - 2);
  return r;
}

TEST(SelfTestRunScsi, ExtendedTimeComesFromTheControlModePage) {
  FakeScsiDisk disk;
  auto test = scsi_self_test(disk);
  EXPECT_EQ(test->expected_seconds(SelfTestType::Short), 120.0);
  EXPECT_FALSE(test->expected_seconds(SelfTestType::Extended));  // MODE SENSE refused
  disk.mode = control_page(7200);
  EXPECT_EQ(test->expected_seconds(SelfTestType::Extended), 7200.0);
  disk.mode = control_page(0x1C20, 8);  // a drive that sends a block descriptor despite DBD
  EXPECT_EQ(test->expected_seconds(SelfTestType::Extended), 7200.0);
  disk.mode = control_page(0);  // not given
  EXPECT_FALSE(test->expected_seconds(SelfTestType::Extended));
  EXPECT_FALSE(test->expected_seconds(SelfTestType::Conveyance));
}

TEST(SelfTestRunScsi, MalformedModeSenseIsRefusedWithTheReason) {
  auto refused = [](std::vector<std::uint8_t> r, const std::string& why) {
    try {
      (void)parse_extended_self_test_seconds(r);
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const ScsiError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused({0, 6, 0, 0}, "4 bytes, shorter than its 8-byte header");
  auto bd = control_page(60);
  bd[7] = 200;
  refused(bd, "its block descriptors run past the data (208 of 20 bytes)");
  auto other = control_page(60);
  other[8] = 0x08;
  refused(other, "got page 08h");
  auto longer = control_page(60);
  longer[9] = 30;
  refused(longer, "page 0Ah says 30 bytes, the data holds 10");
  // An older, 6-byte Control page holds no completion time.
  std::vector<std::uint8_t> old = {0, 14, 0, 0, 0, 0, 0, 0, 0x0A, 6, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(parse_extended_self_test_seconds(old));
}

TEST(SelfTestRunScsi, FailedSegmentNamesTheLba) {
  FakeScsiDisk disk;
  disk.page_after = scsi_page10(2, 5, 40, 777);
  auto test = scsi_self_test(disk);
  const Ran r = run_with(test.get(), SelfTestType::Extended);
  EXPECT_EQ(r.report.outcome, "failed");
  EXPECT_EQ(r.report.status_text, "failed in first segment at LBA 777");
}

TEST(SelfTestRunNvme, ShortThroughTheLogAndAbortCode) {
  const std::filesystem::path dir = std::filesystem::path(STORQUAL_TEST_DATA) / "nvme";
  CapturedNvmeAdmin admin(dir);
  IdentifyPage ctrl = admin.identify_controller();
  ctrl[256] |= 0x10;
  admin.set_controller_page(ctrl);
  SelfTestLogPage before = nvme_log(0, 0), running = nvme_log(1, 40), after = nvme_log(0, 0);
  nvme_entry(before, 0, 2, 0, 50);
  nvme_entry(running, 0, 2, 0, 50);
  nvme_entry(after, 0, 1, 0, 51);
  nvme_entry(after, 1, 2, 0, 50);
  admin.set_self_test_pages({before, running, after});
  auto test = nvme_self_test(admin);
  const Ran r = run_with(test.get(), SelfTestType::Short);
  EXPECT_EQ(admin.issued(), std::vector<std::string>{"self-test stc=1"});
  EXPECT_EQ(r.report.outcome, "passed");
  EXPECT_EQ(r.report.status_text, "completed without error");
  EXPECT_EQ(r.report.power_on_hours, 51u);
  EXPECT_NE(r.console.find("40% done"), std::string::npos) << r.console;

  // Stopped while running: Device Self-test with STC Fh.
  CapturedNvmeAdmin again(dir);
  again.set_controller_page(ctrl);
  again.set_self_test_pages({before, running});
  auto test2 = nvme_self_test(again);
  std::atomic<bool> stop{false};
  const Ran stopped = run_with(test2.get(), SelfTestType::Extended, &stop, [&] { stop = true; });
  EXPECT_EQ(again.issued(), (std::vector<std::string>{"self-test stc=2", "self-test stc=15"}));
  EXPECT_EQ(stopped.report.outcome, "interrupted");

  // A controller without Device Self-test (OACS bit 4 clear).
  CapturedNvmeAdmin none(dir);
  ctrl[256] &= static_cast<std::uint8_t>(~0x10);
  none.set_controller_page(ctrl);
  auto test3 = nvme_self_test(none);
  EXPECT_EQ(run_with(test3.get(), SelfTestType::Short).report.outcome, "not supported");
  EXPECT_TRUE(none.issued().empty());
}

// ---- the suite element and the verdict in a run's judgement ----

TEST(SelfTestSuite, ElementLoadsAndItsResultIsItsOwnVerdict) {
  const std::string xml = R"(<suite name="s">
  <self-test id="before" type="short" poll="5s"/>
  <workload id="w" rw="randread" bs="4k" runtime="1s"/>
  <self-test id="after" type="extended" timeout="3h"/>
</suite>)";
  const runner::Suite suite = runner::Suite::parse(xml, "suite.xml");
  ASSERT_EQ(suite.workloads.size(), 3u);
  const auto* m = suite.workloads[0].method_as<runner::SelfTestMethod>();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->settings().type, SelfTestType::Short);
  EXPECT_EQ(m->settings().poll_s, 5.0);
  const auto* after = suite.workloads[2].method_as<runner::SelfTestMethod>();
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->settings().timeout_s, 3 * 3600.0);

  // Run without a seam (no consent): a skipped health testcase, not an IOPS verdict.
  runner::MethodContext context;
  context.self_test_gap = "not started: pass --allow-self-test";
  context.self_test_gap_is_consent = true;
  context.wait = [](double) {};
  reporting::WorkloadResult r = m->run(suite.workloads[0].spec, context);
  EXPECT_EQ(r.kind(), "self-test");
  const auto verdicts = runner::judge_measured_only(suite, {r});
  ASSERT_FALSE(verdicts.empty());
  EXPECT_EQ(verdicts[0].metric, "self-test.short");
  EXPECT_EQ(verdicts[0].kind, reporting::VerdictKind::Health);
  EXPECT_EQ(verdicts[0].status, reporting::VerdictStatus::Skipped);
}

TEST(SelfTestSuite, BadAttributesNameTheFileAndLine) {
  auto error_of = [](const std::string& xml) {
    try {
      (void)runner::Suite::parse(xml, "suite.xml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string bad_type =
      error_of("<suite name=\"s\">\n<self-test id=\"x\" type=\"long\"/>\n</suite>");
  EXPECT_NE(bad_type.find("suite.xml:2"), std::string::npos) << bad_type;
  EXPECT_NE(bad_type.find("short, extended or conveyance"), std::string::npos) << bad_type;
  const std::string no_type = error_of("<suite name=\"s\">\n<self-test id=\"x\"/>\n</suite>");
  EXPECT_NE(no_type.find("needs type="), std::string::npos) << no_type;
  const std::string unknown =
      error_of("<suite name=\"s\">\n<self-test id=\"x\" type=\"short\" bs=\"4k\"/>\n</suite>");
  EXPECT_NE(unknown.find("no attribute 'bs'"), std::string::npos) << unknown;
}

TEST(SelfTestReportTest, JsonRoundTripAndHtmlBox) {
  reporting::RunResult run;
  reporting::WorkloadResult w;
  w.id = "after";
  w.elapsed_s = 95;
  auto report = std::make_shared<runner::SelfTestMethodReport>();
  report->self_test.type = "extended";
  report->self_test.transport = "ata";
  report->self_test.outcome = "failed";
  report->self_test.status_text = "completed: read failure at LBA 123456";
  report->self_test.failing_lba = 123456;
  report->self_test.power_on_hours = 5000;
  report->self_test.expected_s = 54 * 60;
  report->self_test.polls = 12;
  w.method = report;
  run.workloads.push_back(w);
  run.verdicts.push_back(runner::self_test_verdict("after", report->self_test, w.elapsed_s));
  const std::string text = reporting::to_json_text(run);
  const reporting::RunResult back = reporting::run_result_from_json(text);
  ASSERT_EQ(back.workloads.size(), 1u);
  EXPECT_EQ(back.workloads[0].kind(), "self-test");
  const SelfTestReport* r = runner::self_test_report_of(back.workloads[0]);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, "failed");
  EXPECT_EQ(r->failing_lba, 123456u);
  EXPECT_EQ(r->expected_s, 54 * 60.0);
  EXPECT_EQ(r->polls, 12u);
  EXPECT_EQ(reporting::to_json_text(back), text);
  ASSERT_EQ(back.verdicts.size(), 1u);
  EXPECT_EQ(back.verdicts[0].status, reporting::VerdictStatus::Fail);
  EXPECT_EQ(back.verdicts[0].kind, reporting::VerdictKind::Health);
  std::string html;
  report->render_html(html, run, w);
  EXPECT_NE(html.find("box self-test bad"), std::string::npos) << html;
  EXPECT_NE(html.find("read failure at LBA 123456"), std::string::npos) << html;
  EXPECT_NE(html.find("123456"), std::string::npos);
}

}  // namespace
