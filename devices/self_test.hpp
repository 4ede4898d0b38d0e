// SPDX-License-Identifier: Apache-2.0
// A drive's own self-test, started, polled and read back through the health seams of its
// transport: ATA SMART EXECUTE OFF-LINE IMMEDIATE (devices/ata_smart.hpp), SCSI SEND DIAGNOSTIC
// with REQUEST SENSE and the self-test results log page 10h (devices/scsi_log.hpp), NVMe Device
// Self-test with log page 06h (devices/nvme_admin.hpp). The decoders of what a poll reads are
// plain functions of the bytes (tests and fuzzers call them on constructed pages).
//
// Starting a self-test changes the drive's state (a test runs in the background and leaves an
// entry in its log that nothing erases): no health reading does it. Only the self-test method
// (runner/methods/self_test/self_test.hpp), when the run was given --allow-self-test, makes a
// DeviceSelfTest (docs/identity-and-safety.md, "Self-tests").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "devices/nvme_admin.hpp"
#include "model/errors.hpp"

namespace storqual::devices {

class AtaAdmin;
class ScsiLogSource;

enum class SelfTestType { Short, Extended, Conveyance };
[[nodiscard]] const char* to_string(SelfTestType t);  // "short", "extended", "conveyance"
[[nodiscard]] std::optional<SelfTestType> parse_self_test_type(std::string_view text);

// The drive refuses the test (its transport has no such test, or it aborted the start command):
// the testcase is skipped with this reason, not failed.
class SelfTestNotSupported : public storqual::Error {
 public:
  explicit SelfTestNotSupported(const std::string& what) : Error(what, kExitRuntime) {}
};

// One poll of a running test.
struct SelfTestProgress {
  bool running = false;
  std::optional<double> percent_done;  // 0..100, when the drive says
};

enum class SelfTestOutcome { Passed, Failed, Aborted, Unknown };
[[nodiscard]] const char* to_string(SelfTestOutcome o);  // "passed", "failed", "aborted", "unknown"

// The newest entry of the drive's self-test log once the test ended.
struct SelfTestResult {
  SelfTestOutcome outcome = SelfTestOutcome::Unknown;
  std::string status_text;  // the log's words: "completed without error", "read failure at LBA 7"
  std::optional<std::uint64_t> failing_lba;
  std::optional<std::uint64_t> power_on_hours;
};

// A self-test through one transport. Every call throws an Error naming the device and the cause
// (SelfTestNotSupported for a test the drive or transport refuses).
class DeviceSelfTest {
 public:
  virtual ~DeviceSelfTest() = default;
  [[nodiscard]] virtual std::string_view transport() const noexcept = 0;  // "ata", "scsi", "nvme"
  // The drive's own estimate of how long `type` takes (ATA polling minutes, NVMe EDSTT), in
  // seconds; nullopt when it gives none.
  [[nodiscard]] virtual std::optional<double> expected_seconds(SelfTestType type) = 0;
  // Remembers the newest log entry, then starts `type` in the background.
  virtual void start(SelfTestType type) = 0;
  [[nodiscard]] virtual SelfTestProgress poll() = 0;
  // The log entry the test left (Unknown with the reason when the log has no new entry).
  [[nodiscard]] virtual SelfTestResult result() = 0;
  // Aborts a running test on the drive (ATA 7Fh, SCSI self-test code 100b, NVMe STC Fh).
  virtual void abort() = 0;
};

[[nodiscard]] std::unique_ptr<DeviceSelfTest> ata_self_test(AtaAdmin& admin);
[[nodiscard]] std::unique_ptr<DeviceSelfTest> scsi_self_test(ScsiLogSource& source);
[[nodiscard]] std::unique_ptr<DeviceSelfTest> nvme_self_test(NvmeAdmin& admin);

// ---- ATA (ACS-3 SMART READ DATA) ----

// Byte 363 of SMART READ DATA: the self-test execution status (high nibble; 15 = in progress)
// and the percent of the test remaining (low nibble x 10).
struct AtaSelfTestExecution {
  std::uint8_t status = 0;
  unsigned remaining_pct = 0;
  [[nodiscard]] bool running() const { return status == 0xF; }
};
[[nodiscard]] AtaSelfTestExecution decode_ata_self_test_execution(std::uint8_t byte363);

// The polling times of SMART READ DATA in minutes: short (byte 372), extended (373, or the word
// at 375-376 when 373 is FFh), conveyance (374); nullopt for 0 (not given).
[[nodiscard]] std::optional<unsigned> ata_polling_minutes(std::span<const std::uint8_t, 512> data,
                                                          SelfTestType type);
// SMART READ DATA byte 367 (off-line data collection capability): bit 4 self-test, bit 5
// conveyance self-test supported.
[[nodiscard]] bool ata_supports(std::span<const std::uint8_t, 512> data, SelfTestType type);

// ---- SCSI (SPC-5) ----

// The progress indication of sense data (fixed format: SKSV in byte 15, bytes 16-17; descriptor
// format: the sense key specific descriptor 02h) as a percent done, when the sense data has one.
[[nodiscard]] std::optional<double> scsi_sense_progress(std::span<const std::uint8_t> sense);
// ASC/ASCQ 04h/09h: LOGICAL UNIT NOT READY, SELF-TEST IN PROGRESS.
[[nodiscard]] bool scsi_sense_self_test_in_progress(std::span<const std::uint8_t> sense);

// ---- NVMe (NVM Express Base 2.0, log page 06h) ----

struct NvmeSelfTestEntry {
  std::uint8_t code = 0;    // self-test code: 1 short, 2 extended, Eh vendor specific
  std::uint8_t result = 0;  // 0 completed without error .. 9; Fh entry not used
  std::uint8_t segment = 0;
  std::uint64_t power_on_hours = 0;
  std::optional<std::uint32_t> nsid;
  std::optional<std::uint64_t> failing_lba;
  std::optional<std::uint8_t> status_code_type, status_code;
  [[nodiscard]] std::string result_text() const;
  [[nodiscard]] bool failed() const { return result >= 5 && result <= 7; }
};

struct NvmeSelfTestLog {
  std::uint8_t current_operation = 0;      // 0 none in progress, 1 short, 2 extended
  unsigned percent_complete = 0;           // of the current operation
  std::vector<NvmeSelfTestEntry> entries;  // newest first, unused entries left out
};
[[nodiscard]] NvmeSelfTestLog parse_nvme_self_test_log(const SelfTestLogPage& page);
// Identify Controller EDSTT (bytes 316-317): the extended test's time in minutes (0: not given).
[[nodiscard]] std::uint16_t nvme_extended_self_test_minutes(std::span<const std::uint8_t> ctrl);
// Identify Controller OACS bit 4: Device Self-test supported.
[[nodiscard]] bool nvme_supports_self_test(std::span<const std::uint8_t> ctrl);

}  // namespace storqual::devices
