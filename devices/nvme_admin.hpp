// SPDX-License-Identifier: Apache-2.0
// NVMe admin commands behind our own seam: identify controller, identify namespace, SMART / health
// log. LibnvmeAdmin issues them through libnvme 1.3 on a device fd; CapturedNvmeAdmin replays
// captured pages from files (libnvme cannot be pointed at a fake device). Parsing of the pages is
// independent of where they came from and uses libnvme's structure definitions.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/errors.hpp"

namespace storqual::devices {

class NvmeError : public storqual::Error {
 public:
  explicit NvmeError(const std::string& what) : Error(what, kExitRuntime) {}
};

using IdentifyPage = std::array<std::uint8_t, 4096>;
using SmartLogPage = std::array<std::uint8_t, 512>;
using SanitizeLogPage = std::array<std::uint8_t, 512>;
using OcpSmartLogPage = std::array<std::uint8_t, 512>;  // log C0h (devices/ocp_smart_log.hpp)
using SelfTestLogPage = std::array<std::uint8_t, 564>;  // log 06h (devices/self_test.hpp)

// Sanitize actions (SANACT of the Sanitize command).
enum class SanitizeAction : std::uint8_t { BlockErase = 2, Overwrite = 3, CryptoErase = 4 };

// The admin commands we issue. Each call returns the raw page or throws NvmeError naming the
// device and the failure (errno text or NVMe status).
class NvmeAdmin {
 public:
  virtual ~NvmeAdmin() = default;
  [[nodiscard]] virtual IdentifyPage identify_controller() = 0;
  [[nodiscard]] virtual IdentifyPage identify_namespace() = 0;  // the namespace behind the device
  // The Zoned Namespace Command Set's Identify Namespace (CNS 05h, CSI 02h) of that namespace;
  // asked only of a namespace the kernel calls zoned. Default: not available (NvmeError).
  [[nodiscard]] virtual IdentifyPage zns_identify_namespace() {
    throw NvmeError("the ZNS Identify Namespace is not available through this NVMe admin");
  }
  [[nodiscard]] virtual SmartLogPage smart_log() = 0;  // controller-wide (NSID FFFFFFFFh)
  // Destructive, for purge before a measurement (devices/nvme_purge.hpp decides whether to):
  // Format NVM of the namespace behind the device with its current LBA format and the given
  // secure-erase setting (1 = user data erase, 2 = cryptographic erase); returns when the
  // controller completes the command.
  virtual void format_namespace(std::uint8_t secure_erase) = 0;
  // Starts a sanitize of the whole NVM subsystem; it runs in the background (sanitize_log()).
  virtual void start_sanitize(SanitizeAction action) = 0;
  [[nodiscard]] virtual SanitizeLogPage sanitize_log() = 0;  // log page 81h
  // The vendor-specific log C0h (OCP SMART / Health Information Extended on an OCP drive; another
  // vendor's page or an error elsewhere). Default: not supported (NvmeError).
  [[nodiscard]] virtual OcpSmartLogPage ocp_smart_log() {
    throw NvmeError("log page C0h is not available through this NVMe admin");
  }
  // Device Self-test (14h) of the namespace behind the device with self-test code `stc` (1h
  // short, 2h extended, Fh abort): changes the drive's state, issued only by a DeviceSelfTest
  // (devices/self_test.hpp). Default: not available (NvmeError).
  virtual void device_self_test(std::uint8_t stc) {
    throw NvmeError("Device Self-test " + std::to_string(stc) +
                    " is not available through this NVMe admin");
  }
  // The Device Self-test log (06h). Default: not available (NvmeError).
  [[nodiscard]] virtual SelfTestLogPage self_test_log() {
    throw NvmeError("log page 06h is not available through this NVMe admin");
  }
};

// libnvme on a namespace block device (/dev/nvme0n1) or a controller (/dev/nvme0; then
// identify_namespace asks for NSID 1). Opens the node read-only; needs CAP_SYS_ADMIN.
class LibnvmeAdmin final : public NvmeAdmin {
 public:
  explicit LibnvmeAdmin(const std::string& devnode);
  ~LibnvmeAdmin() override;
  LibnvmeAdmin(const LibnvmeAdmin&) = delete;
  LibnvmeAdmin& operator=(const LibnvmeAdmin&) = delete;
  IdentifyPage identify_controller() override;
  IdentifyPage identify_namespace() override;
  IdentifyPage zns_identify_namespace() override;
  SmartLogPage smart_log() override;
  void format_namespace(std::uint8_t secure_erase) override;
  void start_sanitize(SanitizeAction action) override;
  SanitizeLogPage sanitize_log() override;
  OcpSmartLogPage ocp_smart_log() override;  // generic Get Log Page, LID C0h, NSID FFFFFFFFh
  void device_self_test(std::uint8_t stc) override;
  SelfTestLogPage self_test_log() override;

 private:
  std::string devnode_;
  int fd_ = -1;
  std::uint32_t nsid_ = 1;
};

// Replays pages from a directory: identify-ctrl.bin (4096 bytes), identify-ns.bin (4096 bytes), the
// C0h pages set_ocp_pages names (512 bytes each) and
// the SMART logs given in order (512 bytes each; by default smart-log.bin); each smart_log() call
// returns the next one and the last one again once they run out (before/after snapshots).
// Destructive commands are not issued anywhere: they are recorded (issued()) and a sanitize
// reports "in progress" for `sanitize_polls_in_progress` sanitize_log() calls, then the outcome
// set with set_sanitize_outcome (success by default).
class CapturedNvmeAdmin final : public NvmeAdmin {
 public:
  CapturedNvmeAdmin(const std::filesystem::path& dir,
                    std::vector<std::string> smart_files = {"smart-log.bin"});
  IdentifyPage identify_controller() override { return ctrl_; }
  IdentifyPage identify_namespace() override { return ns_; }
  // identify-ns-zns.bin (4096 bytes) where it was captured; NvmeError otherwise.
  IdentifyPage zns_identify_namespace() override;
  SmartLogPage smart_log() override;
  void format_namespace(std::uint8_t secure_erase) override;
  void start_sanitize(SanitizeAction action) override;
  SanitizeLogPage sanitize_log() override;
  // The C0h pages given in order (like the SMART logs); NvmeError when none was captured.
  OcpSmartLogPage ocp_smart_log() override;
  void set_ocp_pages(const std::filesystem::path& dir, const std::vector<std::string>& files);
  // Recorded in issued() ("self-test stc=1"), not sent anywhere.
  void device_self_test(std::uint8_t stc) override;
  // The 06h pages given in order (the last one again once they run out); NvmeError when none.
  SelfTestLogPage self_test_log() override;
  void set_self_test_pages(std::vector<SelfTestLogPage> pages) {
    self_test_ = std::move(pages);
    next_self_test_ = 0;
  }

  // Test hooks.
  void set_controller_page(const IdentifyPage& page) { ctrl_ = page; }
  void set_sanitize_outcome(bool success, unsigned polls_in_progress) {
    sanitize_success_ = success;
    sanitize_polls_in_progress_ = polls_in_progress;
  }
  [[nodiscard]] const std::vector<std::string>& issued() const { return issued_; }

 private:
  IdentifyPage ctrl_{};
  IdentifyPage ns_{};
  std::filesystem::path zns_dir_;  // where identify-ns-zns.bin may be
  std::vector<SmartLogPage> smart_;
  std::size_t next_smart_ = 0;
  std::vector<OcpSmartLogPage> ocp_;
  std::size_t next_ocp_ = 0;
  std::vector<SelfTestLogPage> self_test_;
  std::size_t next_self_test_ = 0;
  std::vector<std::string> issued_;
  bool sanitizing_ = false;
  bool sanitize_success_ = true;
  unsigned sanitize_polls_in_progress_ = 2;
  unsigned sanitize_polls_ = 0;
};

// An unsigned 128-bit little-endian counter of the SMART log (data units, hours, errors).
struct Counter128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  [[nodiscard]] static Counter128 from_le(const std::uint8_t* bytes16);
  [[nodiscard]] std::string to_decimal() const;  // exact, also above 2^64
  // The exact product with `factor` in decimal (data units -> bytes), never wrapping.
  [[nodiscard]] std::string times_to_decimal(std::uint32_t factor) const;
  [[nodiscard]] bool fits_u64() const { return high == 0; }
  bool operator==(const Counter128&) const = default;
  auto operator<=>(const Counter128& other) const {  // the high word decides first
    return high != other.high ? high <=> other.high : low <=> other.low;
  }
};
[[nodiscard]] Counter128 minus(const Counter128& a, const Counter128& b);  // a - b modulo 2^128

struct NvmeControllerIdentity {
  std::uint16_t vid = 0;    // PCI vendor id
  std::uint16_t ssvid = 0;  // subsystem vendor id
  std::string serial;       // sn, sanitized (padding trimmed)
  std::string model;        // mn
  std::string firmware;     // fr
  std::uint16_t cntlid = 0;
  std::string version;                // "1.4.0" from VER, empty when 0
  bool volatile_write_cache = false;  // VWC bit 0: a volatile write cache is present
  std::uint16_t awupf = 0;            // atomic write unit power fail, 0's based logical blocks
};

struct NvmeNamespaceIdentity {
  std::uint64_t size_lbas = 0;      // nsze
  std::uint64_t capacity_lbas = 0;  // ncap
  unsigned lba_format = 0;          // index in use (FLBAS)
  std::uint32_t lba_size = 0;       // bytes, 2^LBADS
  std::uint16_t metadata_size = 0;  // bytes per LBA
  // DLFEAT bits 2:0, what a read of a deallocated block returns: 0 not reported, 1 all bytes
  // 0x00, 2 all bytes 0xFF (docs/measurement.md, "Reads of written data").
  std::uint8_t deallocated_read = 0;
  [[nodiscard]] std::uint64_t size_bytes() const { return size_lbas * lba_size; }
};

struct NvmeSmartLog {
  std::uint8_t critical_warning = 0;
  std::uint16_t temperature_kelvin = 0;  // composite
  std::uint8_t available_spare = 0;      // percent
  std::uint8_t available_spare_threshold = 0;
  std::uint8_t percentage_used = 0;  // may exceed 100 (up to 255)
  Counter128 data_units_read;        // in units of 1000 x 512 bytes
  Counter128 data_units_written;
  Counter128 power_on_hours;
  Counter128 power_cycles;
  Counter128 unsafe_shutdowns;
  Counter128 media_errors;
  Counter128 error_log_entries;
  std::uint32_t warning_temp_minutes = 0;
  std::uint32_t critical_temp_minutes = 0;
  // Host controlled thermal management (bytes 216-231): transitions into TMT1 (light) and TMT2
  // (heavy throttling) and the total seconds spent in each.
  std::uint32_t tmt1_transitions = 0, tmt2_transitions = 0;
  std::uint32_t tmt1_seconds = 0, tmt2_seconds = 0;
  [[nodiscard]] int temperature_celsius() const { return int(temperature_kelvin) - 273; }
};

[[nodiscard]] NvmeControllerIdentity parse_identify_controller(const IdentifyPage& page);
[[nodiscard]] NvmeNamespaceIdentity parse_identify_namespace(const IdentifyPage& page);

// What a ZNS namespace says of its zones (NVMe ZNS Command Set 1.1, Identify Namespace):
// MAR / MOR 0's based (FFFFFFFFh: no limit), the zone size of the LBA format in use (ZSZE of its
// LBA Format Extension, in logical blocks) converted to bytes with the format's block size.
struct NvmeZnsNamespaceIdentity {
  std::uint32_t max_active_resources = 0xffffffffu;  // MAR
  std::uint32_t max_open_resources = 0xffffffffu;    // MOR
  std::uint64_t zone_size_lbas = 0;                  // ZSZE of the format in use
  std::uint64_t zone_size_bytes = 0;
};
// `ns` is the same namespace's Identify Namespace (its format in use and block size).
[[nodiscard]] NvmeZnsNamespaceIdentity parse_zns_identify_namespace(
    const IdentifyPage& page, const NvmeNamespaceIdentity& ns);
[[nodiscard]] NvmeSmartLog parse_smart_log(const SmartLogPage& page);
// "spare below threshold, temperature" for the set bits of the critical warning byte.
[[nodiscard]] std::string describe_critical_warning(std::uint8_t bits);

}  // namespace storqual::devices
