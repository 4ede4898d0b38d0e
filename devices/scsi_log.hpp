// SPDX-License-Identifier: Apache-2.0
// SCSI (SAS) health from LOG SENSE pages behind our own seam, as ATA's (devices/ata_smart.hpp):
// SgIoScsiLog sends LOG SENSE (10), READ DEFECT DATA (the grown list's length only) and REQUEST
// SENSE through SG_IO on the sd node (read-only; a self-test adds SEND DIAGNOSTIC,
// devices/self_test.hpp), CapturedScsiLog replays captured responses. Parsed (SPC-5 / SBC-4
// layouts): supported pages (00h), the write, read and verify error counters (02h, 03h, 05h),
// non-medium errors (06h), temperature (0Dh), start-stop cycles (0Eh), self-test results (10h),
// informational exceptions (2Fh), the grown defect list header and REQUEST SENSE's sense data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "devices/sg_sense.hpp"
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
  // REQUEST SENSE: the sense data the device gives (a running self-test's progress, a failure
  // prediction). Default: refused (ScsiLogRefused).
  [[nodiscard]] virtual std::vector<std::uint8_t> request_sense();
  // READ DEFECT DATA (12) (`twelve`) or (10) asking for the grown list's header only (REQ_GLIST,
  // an allocation length of the 8- or 4-byte header): the header. Default: refused.
  [[nodiscard]] virtual std::vector<std::uint8_t> read_defect_data(bool twelve);
  // MODE SENSE (10) of the Control mode page (0Ah, current values, no block descriptors asked
  // for): the whole response (8-byte header, any block descriptors, the page). Default: refused.
  [[nodiscard]] virtual std::vector<std::uint8_t> mode_sense_control();
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
  std::vector<std::uint8_t> read_defect_data(bool twelve) override;
  std::vector<std::uint8_t> mode_sense_control() override;

 private:
  std::string devnode_;
  int fd_ = -1;
};

// Replays scsi-log-<page, two hex digits>-<reading>.bin from a directory; each log_sense(00h)
// moves to the next reading (the last one again once they run out). A page that was not captured
// is refused as a device that does not have it would (ScsiError). REQUEST SENSE replays
// scsi-sense-<reading>.bin, READ DEFECT DATA scsi-defects12-<reading>.bin or
// scsi-defects10-<reading>.bin, MODE SENSE scsi-mode-0a-<reading>.bin; one not captured is refused
// (ScsiLogRefused), as a device that does not take the command.
class CapturedScsiLog final : public ScsiLogSource {
 public:
  CapturedScsiLog(std::filesystem::path dir, std::vector<std::string> readings);
  std::vector<std::uint8_t> log_sense(std::uint8_t page) override;
  std::vector<std::uint8_t> request_sense() override;
  std::vector<std::uint8_t> read_defect_data(bool twelve) override;
  std::vector<std::uint8_t> mode_sense_control() override;

 private:
  [[nodiscard]] std::vector<std::uint8_t> replay(const std::string& prefix,
                                                 const std::string& what);
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

// The header of READ DEFECT DATA (10) (4 bytes) or (12) (8 bytes) asked for the grown list
// (SBC-4 5.8, 5.9): which lists it holds, the address descriptor format and the list's length.
struct ScsiDefectList {
  bool twelve = false;  // READ DEFECT DATA (12) answered; else (10)
  bool plist_valid = false, glist_valid = false;
  std::uint8_t format = 0;       // byte 1 bits 2-0: 0 short block, 3 long block, 4 bytes from
                                 // index, 5 physical sector, 1 and 2 their extended forms, 6 vendor
  std::uint32_t list_bytes = 0;  // DEFECT LIST LENGTH
  std::optional<std::uint32_t> count;      // list_bytes / descriptor size; none for a vendor format
  [[nodiscard]] std::string text() const;  // "3" or "unknown (408 bytes, vendor-specific format)"
};

// Decodes a READ DEFECT DATA header. ScsiError naming the command when it is shorter than its
// header, does not hold the grown list (GLISTV 0), or its length is no whole number of
// descriptors of its format.
[[nodiscard]] ScsiDefectList parse_scsi_defect_header(std::span<const std::uint8_t> header,
                                                      bool twelve);

// REQUEST SENSE's sense data: its key, ASC and ASCQ. ScsiError when it is shorter than 8 bytes or
// its response code is not fixed (70h, 71h) or descriptor (72h, 73h) sense data.
[[nodiscard]] SenseKey parse_request_sense(std::span<const std::uint8_t> sense);

// "failure prediction threshold exceeded (ASC 5dh ASCQ 10h)" (ASC 5Dh, SPC-5 informational
// exception reported on request) or "no failure predicted (sense key 0h, ASC 00h ASCQ 00h)".
[[nodiscard]] std::string request_sense_text(const SenseKey& k);

// The EXTENDED SELF-TEST COMPLETION TIME of the Control mode page (SPC-5 7.5.8, bytes 10-11) in a
// MODE SENSE (10) response, in seconds (FFFFh: 65535 or more); nullopt when the page is too short
// to hold it or it is 0 (not given). ScsiError when the response is shorter than its 8-byte
// header, its block descriptors or the page run past the data, or the page is not 0Ah.
[[nodiscard]] std::optional<unsigned> parse_extended_self_test_seconds(
    std::span<const std::uint8_t> response);

struct ScsiHealth {
  std::vector<std::uint8_t> supported;  // page codes of page 00h
  std::optional<ScsiErrorCounters> write, read, verify;
  std::optional<std::uint64_t> non_medium_errors;
  std::optional<int> temperature_c, reference_temperature_c;
  std::optional<std::uint32_t> start_stop_cycles, specified_start_stop_cycles;
  std::vector<ScsiSelfTest> self_tests;  // most recent first (parameter 0001h first)
  // Informational exceptions (2Fh parameter 0000h): ASC/ASCQ 0 means no failure predicted.
  std::optional<std::uint8_t> ie_asc, ie_ascq;
  // The grown defect list (READ DEFECT DATA), or why it could not be read (a named gap).
  std::optional<ScsiDefectList> grown_defects;
  std::string grown_defects_gap;
  // REQUEST SENSE at this reading, or why it could not be read (a named gap).
  std::optional<SenseKey> request_sense;
  std::string request_sense_gap;
  std::vector<std::string> notes;  // pages that could not be read, and why
  [[nodiscard]] bool failure_predicted() const { return ie_asc && *ie_asc != 0; }
  [[nodiscard]] bool sense_failure_predicted() const {
    return request_sense && request_sense->asc == 0x5D;
  }
};

[[nodiscard]] ScsiErrorCounters parse_scsi_error_counters(std::span<const std::uint8_t> page,
                                                          std::uint8_t page_code);
[[nodiscard]] std::vector<ScsiSelfTest> parse_scsi_self_tests(std::span<const std::uint8_t> page);
// Applies one page (of any of the codes above) to `health`. Throws ScsiError on a malformed page.
void apply_scsi_log_page(ScsiHealth& health, std::uint8_t page_code,
                         std::span<const std::uint8_t> page);

// Reads page 00h (throws when it cannot be read: no LOG SENSE), then each page above the device
// lists (a page that fails is noted in the result), then the grown defect list and REQUEST SENSE
// (read_scsi_defects_and_sense).
[[nodiscard]] ScsiHealth read_scsi_health(ScsiLogSource& source);

// The grown defect list (READ DEFECT DATA (12), (10) when (12) is refused) and REQUEST SENSE into
// `health`; each that cannot be read leaves its gap named (grown_defects_gap, request_sense_gap).
void read_scsi_defects_and_sense(ScsiLogSource& source, ScsiHealth& health);

// "grown defects: 3; REQUEST SENSE: no failure predicted (...)", or each one's gap: what a disk
// whose LOG SENSE is refused still says (runner/qualification/device_identification.cpp).
[[nodiscard]] std::string scsi_defects_and_sense_text(const ScsiHealth& health);

}  // namespace storqual::devices
