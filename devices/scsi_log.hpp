// SPDX-License-Identifier: Apache-2.0
// SCSI (SAS) health from LOG SENSE pages behind our own seam, as ATA's (devices/ata_smart.hpp):
// SgIoScsiLog sends LOG SENSE (10) through SG_IO on the sd node (cumulative values, read-only; a
// self-test adds SEND DIAGNOSTIC and REQUEST SENSE, devices/self_test.hpp),
// CapturedScsiLog replays captured pages. Parsed (SPC-5 / SBC-4 layouts): supported pages (00h),
// the write, read and verify error counters (02h, 03h, 05h), non-medium errors (06h), temperature
// (0Dh), start-stop cycles (0Eh), self-test results (10h) and informational exceptions (2Fh).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/errors.hpp"

namespace storqual::devices {

class ScsiError : public storqual::Error {
 public:
  explicit ScsiError(const std::string& what) : Error(what, kExitRuntime) {}
};

// LOG SENSE itself was refused (ILLEGAL REQUEST, no SG_IO): the device keeps no logs for us.
class ScsiLogRefused : public ScsiError {
 public:
  explicit ScsiLogRefused(const std::string& what) : ScsiError(what) {}
};

inline constexpr std::uint8_t kScsiSupportedPages = 0x00, kScsiWriteErrors = 0x02,
                              kScsiReadErrors = 0x03, kScsiVerifyErrors = 0x05,
                              kScsiNonMediumErrors = 0x06, kScsiTemperature = 0x0D,
                              kScsiStartStop = 0x0E, kScsiSelfTest = 0x10,
                              kScsiInformationalExceptions = 0x2F;

class ScsiLogSource {
 public:
  virtual ~ScsiLogSource() = default;
  // The whole page (4-byte header and parameters) of `page` (subpage 0), cumulative values.
  // Throws ScsiLogRefused when LOG SENSE is refused, ScsiError otherwise.
  [[nodiscard]] virtual std::vector<std::uint8_t> log_sense(std::uint8_t page) = 0;
  // SEND DIAGNOSTIC with SELF-TEST CODE `code` (001b background short, 010b background extended,
  // 100b abort the background test): changes the drive's state, sent only by a DeviceSelfTest
  // (devices/self_test.hpp). ScsiLogRefused when the device refuses it. Default: refused.
  virtual void send_diagnostic(std::uint8_t self_test_code);
  // REQUEST SENSE: the sense data the device gives (a running self-test's progress). Default:
  // refused (ScsiLogRefused).
  [[nodiscard]] virtual std::vector<std::uint8_t> request_sense();
};

class SgIoScsiLog final : public ScsiLogSource {
 public:
  explicit SgIoScsiLog(const std::string& devnode);
  ~SgIoScsiLog() override;
  SgIoScsiLog(const SgIoScsiLog&) = delete;
  SgIoScsiLog& operator=(const SgIoScsiLog&) = delete;
  std::vector<std::uint8_t> log_sense(std::uint8_t page) override;
  void send_diagnostic(std::uint8_t self_test_code) override;
  std::vector<std::uint8_t> request_sense() override;

 private:
  std::string devnode_;
  int fd_ = -1;
};

// Replays scsi-log-<page, two hex digits>-<reading>.bin from a directory; each log_sense(00h)
// moves to the next reading (the last one again once they run out). A page that was not captured
// is refused as a device that does not have it would (ScsiError).
class CapturedScsiLog final : public ScsiLogSource {
 public:
  CapturedScsiLog(std::filesystem::path dir, std::vector<std::string> readings);
  std::vector<std::uint8_t> log_sense(std::uint8_t page) override;

 private:
  std::filesystem::path dir_;
  std::vector<std::string> readings_;
  std::size_t current_ = 0;
  bool started_ = false;
};

// The bytes after a page's 4-byte header (its parameters; page 00h's list of page codes); ScsiError
// naming `what` and the page when the header names another page or its length runs past the end.
[[nodiscard]] std::span<const std::uint8_t> scsi_log_body(std::span<const std::uint8_t> page,
                                                          std::uint8_t expected_page,
                                                          const std::string& what);

struct ScsiParameter {
  std::uint16_t code = 0;
  std::uint8_t control = 0;
  std::span<const std::uint8_t> value;
};

// The parameters of a page; ScsiError naming `what`, the page and the byte offset when a parameter
// runs past the end or its code repeats (and as scsi_log_body).
[[nodiscard]] std::vector<ScsiParameter> scsi_log_parameters(std::span<const std::uint8_t> page,
                                                             std::uint8_t expected_page,
                                                             const std::string& what);

struct ScsiErrorCounters {  // parameter codes 0000h-0006h of pages 02h, 03h, 05h
  std::optional<std::uint64_t> corrected_fast, corrected_delayed, rereads, corrected_total,
      algorithm_invocations, bytes_processed, uncorrected;
};

struct ScsiSelfTest {
  std::uint8_t code = 0;    // self-test code (1 background short, 2 background extended, ...)
  std::uint8_t result = 0;  // 0 completed without error ... 7 failed in an unknown segment, 15
  std::uint8_t number = 0;  // the failing segment
  std::uint16_t hours = 0;  // accumulated power-on hours at the test
  std::uint64_t first_failure_lba = 0;
  std::uint8_t sense_key = 0, asc = 0, ascq = 0;
  [[nodiscard]] bool failed() const { return result >= 3 && result <= 7; }
  [[nodiscard]] std::string result_text() const;
};

struct ScsiHealth {
  std::vector<std::uint8_t> supported;  // page codes of page 00h
  std::optional<ScsiErrorCounters> write, read, verify;
  std::optional<std::uint64_t> non_medium_errors;
  std::optional<int> temperature_c, reference_temperature_c;
  std::optional<std::uint32_t> start_stop_cycles, specified_start_stop_cycles;
  std::vector<ScsiSelfTest> self_tests;  // most recent first (parameter 0001h first)
  // Informational exceptions (2Fh parameter 0000h): ASC/ASCQ 0 means no failure predicted.
  std::optional<std::uint8_t> ie_asc, ie_ascq;
  std::vector<std::string> notes;  // pages that could not be read, and why
  [[nodiscard]] bool failure_predicted() const { return ie_asc && *ie_asc != 0; }
};

[[nodiscard]] ScsiErrorCounters parse_scsi_error_counters(std::span<const std::uint8_t> page,
                                                          std::uint8_t page_code);
[[nodiscard]] std::vector<ScsiSelfTest> parse_scsi_self_tests(std::span<const std::uint8_t> page);
// Applies one page (of any of the codes above) to `health`. Throws ScsiError on a malformed page.
void apply_scsi_log_page(ScsiHealth& health, std::uint8_t page_code,
                         std::span<const std::uint8_t> page);

// Reads page 00h (throws when it cannot be read: no LOG SENSE), then each page above the device
// lists; a page that fails is noted in the result.
[[nodiscard]] ScsiHealth read_scsi_health(ScsiLogSource& source);

}  // namespace storqual::devices
