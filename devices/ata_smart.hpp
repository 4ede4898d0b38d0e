// SPDX-License-Identifier: Apache-2.0
// ATA SMART behind our own seam, as NVMe admin is (devices/nvme_admin.hpp): the read-only ATA
// commands a health reading needs (IDENTIFY DEVICE, SMART READ DATA, READ THRESHOLDS, RETURN
// STATUS, SMART READ LOG), issued by SgIoAtaAdmin as SCSI ATA PASS-THROUGH (16) through SG_IO on
// the sd device (the kernel's SCSI-ATA translation: libata, or a SAT USB bridge), or replayed from
// captured 512-byte pages by CapturedAtaAdmin; and the parsing of those pages, independent of where
// they came from. Layouts: ATA/ATAPI-8 ACS (SMART READ DATA, the self-test and summary error
// logs), SAT-4 (the pass-through CDB and its ATA Status Return sense descriptor); raw value formats
// and attribute names as smartmontools' drivedb.h "DEFAULT" entry has them.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/errors.hpp"

namespace storqual::devices {

class AtaError : public storqual::Error {
 public:
  explicit AtaError(const std::string& what) : Error(what, kExitRuntime) {}
};

// The pass-through itself was refused: not a SAT translator (a USB bridge without SAT, a SCSI
// disk), or a transport that does not take SG_IO. Reports name it as a gap, not a failure.
class AtaPassThroughRefused : public AtaError {
 public:
  explicit AtaPassThroughRefused(const std::string& what) : AtaError(what) {}
};

// The drive aborted the command (ERR in the ATA status): it does not support what was asked.
class AtaCommandAborted : public AtaError {
 public:
  explicit AtaCommandAborted(const std::string& what) : AtaError(what) {}
};

using AtaPage = std::array<std::uint8_t, 512>;

// SMART RETURN STATUS: LBA mid/high C24Fh (passed) or 2CF4h (a threshold exceeded); anything else
// is Unknown (a translator that does not return the registers).
enum class AtaSmartStatus { Passed, Failing, Unknown };
[[nodiscard]] const char* to_string(AtaSmartStatus s);

inline constexpr std::uint8_t kAtaSummaryErrorLog = 0x01;
inline constexpr std::uint8_t kAtaSelfTestLog = 0x06;

// The read-only ATA commands a health reading issues. Each returns the page or throws AtaError
// (AtaPassThroughRefused when the transport refuses pass-through) naming the device and the cause.
class AtaAdmin {
 public:
  virtual ~AtaAdmin() = default;
  [[nodiscard]] virtual AtaPage identify_device() = 0;
  [[nodiscard]] virtual AtaPage smart_read_data() = 0;
  [[nodiscard]] virtual AtaPage smart_read_thresholds() = 0;
  [[nodiscard]] virtual AtaSmartStatus smart_return_status() = 0;
  // SMART READ LOG of one page of `log_address` (kAtaSummaryErrorLog, kAtaSelfTestLog).
  [[nodiscard]] virtual AtaPage smart_read_log(std::uint8_t log_address) = 0;
  // SMART EXECUTE OFF-LINE IMMEDIATE (B0h/D4h) with `subcommand` in LBA low: 1 short, 2 extended,
  // 3 conveyance self-test in the background, 7Fh abort. The one command of this seam that changes
  // the drive's state; only a DeviceSelfTest (devices/self_test.hpp) issues it. Default: refused.
  virtual void smart_execute_offline_immediate(std::uint8_t subcommand);
};

// SG_IO with ATA PASS-THROUGH (16) on a SCSI disk node (/dev/sda). Opens it read-only and
// non-blocking; the kernel lets root (CAP_SYS_RAWIO) send the CDB. A health reading issues the five
// read-only commands above only; SMART EXECUTE OFF-LINE IMMEDIATE is sent only by a self-test.
class SgIoAtaAdmin final : public AtaAdmin {
 public:
  explicit SgIoAtaAdmin(const std::string& devnode);
  ~SgIoAtaAdmin() override;
  SgIoAtaAdmin(const SgIoAtaAdmin&) = delete;
  SgIoAtaAdmin& operator=(const SgIoAtaAdmin&) = delete;
  AtaPage identify_device() override;
  AtaPage smart_read_data() override;
  AtaPage smart_read_thresholds() override;
  AtaSmartStatus smart_return_status() override;
  AtaPage smart_read_log(std::uint8_t log_address) override;
  void smart_execute_offline_immediate(std::uint8_t subcommand) override;

 private:
  std::string devnode_;
  int fd_ = -1;
};

// Replays pages from a directory: ata-identify.bin, and for each reading in turn the SMART data,
// thresholds, self-test log and summary error log (ata-smart-<reading>.bin, ata-thresholds.bin,
// ata-selftest-<reading>.bin, ata-errorlog-<reading>.bin; a log that was not captured is reported
// as not supported by the drive) and the status in ata-status-<reading>.txt ("passed", "failing"
// or "unknown"; passed when absent). Each smart_read_data() call moves to the next reading (the
// last one again once they run out), as a device read before, between and after workloads.
class CapturedAtaAdmin final : public AtaAdmin {
 public:
  CapturedAtaAdmin(const std::filesystem::path& dir, std::vector<std::string> readings);
  AtaPage identify_device() override { return identify_; }
  AtaPage smart_read_data() override;
  AtaPage smart_read_thresholds() override { return thresholds_; }
  AtaSmartStatus smart_return_status() override;
  AtaPage smart_read_log(std::uint8_t log_address) override;
  // Not sent anywhere: recorded ("execute-offline 0x01"), the next reading then shows the test.
  void smart_execute_offline_immediate(std::uint8_t subcommand) override;
  [[nodiscard]] const std::vector<std::string>& issued() const { return issued_; }

 private:
  std::vector<std::string> issued_;
  struct Reading {
    AtaPage data{};
    std::optional<AtaPage> selftest, errorlog;
    AtaSmartStatus status = AtaSmartStatus::Passed;
  };
  AtaPage identify_{};
  AtaPage thresholds_{};
  std::vector<Reading> readings_;
  std::size_t current_ = 0;
  bool started_ = false;
};

// A 512-byte page from bytes read elsewhere (a file, a fuzzer): AtaError naming `what` and the
// size when it is not 512 bytes.
[[nodiscard]] AtaPage ata_page_from_bytes(std::span<const std::uint8_t> bytes,
                                          const std::string& what);
[[nodiscard]] AtaPage read_ata_page(const std::filesystem::path& file);
// The checksum of a SMART page: its 512 bytes sum to 0 modulo 256.
[[nodiscard]] bool ata_checksum_ok(const AtaPage& page);

struct AtaIdentity {
  std::string model, serial, firmware;  // words 27-46, 10-19, 23-26, byte-swapped and trimmed
  bool smart_supported = false;         // word 82 bit 0
  bool smart_enabled = false;           // word 85 bit 0
  bool self_test_supported = false;     // word 84 bit 1
  bool error_log_supported = false;     // word 84 bit 0
  // User-addressable sectors: words 100-103 when 48-bit addressing is supported (word 83 bit
  // 10), else words 60-61; 0 when neither is given.
  std::uint64_t sectors = 0;
  // What a read of a trimmed block returns: word 169 bit 0 (TRIM supported), word 69 bit 14
  // (DRAT: deterministic) and bit 5 (RZAT: zeroes).
  bool trim_supported = false;
  bool deterministic_read_after_trim = false;
  bool zeroes_after_trim = false;
};
[[nodiscard]] AtaIdentity parse_ata_identify(const AtaPage& page);

// How the six raw bytes of an attribute are read (smartmontools' names).
enum class AtaRawFormat { Raw48, Raw16Raw16, Raw16Avg16, Raw24Raw8, TempMinMax };

struct AtaAttribute {
  std::uint8_t id = 0;
  std::string name;  // drivedb.h DEFAULT's name, "Unknown_Attribute" otherwise
  std::uint16_t flags = 0;
  std::uint8_t value = 0, worst = 0;
  std::optional<std::uint8_t> threshold;  // absent when the thresholds page has no entry for it
  std::array<std::uint8_t, 6> raw{};
  AtaRawFormat format = AtaRawFormat::Raw48;
  std::uint64_t raw_value = 0;  // the decoded number (the raw format's first value)
  std::string raw_text;         // as smartctl prints it: "31 (Min/Max 20/45)"
  [[nodiscard]] bool prefailure() const { return flags & 0x1; }
  [[nodiscard]] bool valid_threshold() const { return threshold && *threshold != 0; }
  // The drive's own judgement: normalized value at or below a nonzero threshold.
  [[nodiscard]] bool failing_now() const { return valid_threshold() && value <= *threshold; }
  [[nodiscard]] bool failed_in_past() const { return valid_threshold() && worst <= *threshold; }
};

struct AtaSelfTestEntry {
  std::uint8_t test = 0;  // LBA low of the command: 1 short, 2 extended, 3 conveyance, +80h captive
  std::uint8_t status = 0;  // high nibble of the execution status (0 completed without error)
  std::uint8_t remaining_pct = 0;  // low nibble x 10
  std::uint16_t hours = 0;         // power-on hours at the test
  std::uint32_t failing_lba = 0;
  [[nodiscard]] std::string test_name() const;
  [[nodiscard]] std::string status_text() const;
  // Status 3..8: the test found a fault (1, 2 are interruptions; 15 in progress).
  [[nodiscard]] bool failed() const { return status >= 3 && status <= 8; }
};

struct AtaSmart {
  AtaSmartStatus status = AtaSmartStatus::Unknown;
  std::vector<AtaAttribute> attributes;  // in page order, id 0 slots left out
  bool data_checksum_ok = true, thresholds_checksum_ok = true;
  std::uint8_t self_test_execution = 0;      // byte 363: status nibble, remaining nibble
  std::vector<AtaSelfTestEntry> self_tests;  // most recent first
  std::string self_test_note;                // why there is no self-test log ("" when read)
  std::optional<std::uint16_t> error_count;  // summary error log bytes 452-453
  std::string error_log_note;
  std::uint64_t capacity_sectors = 0;  // from IDENTIFY DEVICE (read_ata_smart); 0 unknown
  [[nodiscard]] const AtaAttribute* find(std::uint8_t id) const;
  [[nodiscard]] std::optional<std::uint64_t> raw(std::uint8_t id) const;  // decoded raw of `id`
  // The decoded raw of a sector-count attribute (5, 187, 197, 198) when it can be one: nullopt
  // when absent, or when it is all ones (32 or 48 bits) or more than the drive's sectors, which a
  // drive that packs vendor data in the raw bytes gives (some Fujitsu drives' 197 and 198, read
  // without a drive database): such a count is named, never judged (docs/identity-and-safety.md).
  [[nodiscard]] std::optional<std::uint64_t> sector_count(std::uint8_t id) const;
  [[nodiscard]] std::optional<std::uint64_t> power_on_hours() const;  // attribute 9
  [[nodiscard]] std::optional<int> temperature_c() const;             // 194, else 190
};

// The attributes of a SMART READ DATA page with their thresholds (entries matched by id).
[[nodiscard]] std::vector<AtaAttribute> parse_ata_attributes(const AtaPage& data,
                                                             const AtaPage& thresholds);
// Entries of a self-test log page (log 06h), most recent first (from its index byte 508; an
// index of 0 or above 21 gives the non-empty entries in page order, newest last reversed).
[[nodiscard]] std::vector<AtaSelfTestEntry> parse_ata_self_test_log(const AtaPage& page);
// The device error count of a summary error log page (log 01h, bytes 452-453).
[[nodiscard]] std::uint16_t parse_ata_error_count(const AtaPage& page);
// Everything of one reading: data + thresholds (+ the logs when given).
[[nodiscard]] AtaSmart parse_ata_smart(const AtaPage& data, const AtaPage& thresholds,
                                       AtaSmartStatus status);

// One reading through the seam: status, data, thresholds, and the two logs (their failures are
// noted in the result, not thrown). Throws AtaError when SMART data cannot be read.
[[nodiscard]] AtaSmart read_ata_smart(AtaAdmin& admin);

// Writes what `admin` answers into `dir` under the names CapturedAtaAdmin reads, `reading` naming
// the reading (ata-identify.bin, ata-thresholds.bin, ata-smart-<reading>.bin, the two logs when
// the drive gives them, ata-status-<reading>.txt). Throws AtaError.
void capture_ata_pages(AtaAdmin& admin, const std::filesystem::path& dir,
                       const std::string& reading);

}  // namespace storqual::devices
