// SPDX-License-Identifier: Apache-2.0
// The OCP Datacenter NVMe SSD specification's SMART / Health Information Extended log (log
// identifier C0h, 512 bytes, vendor specific; nvme-cli's "ocp smart-add-log" reads the same page):
// decoding, the GUID check that tells an OCP page from another vendor's C0h, rows for reports and
// the changes between two snapshots. Offsets are the specification's byte offsets; every field is
// little-endian.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/device_identity.hpp"
#include "devices/nvme_admin.hpp"

namespace storqual::devices {

inline constexpr std::uint8_t kOcpSmartLogId = 0xC0;

// AFD514C97C6F4F9CA4F2BFEA2810AFC5, as its 16 bytes lie in the page (bytes 496-511, little-endian).
inline constexpr std::array<std::uint8_t, 16> kOcpSmartLogGuid = {
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};

struct OcpSmartLog {
  Counter128 physical_media_units_written;              // 0-15, bytes written to the media
  Counter128 physical_media_units_read;                 // 16-31, bytes read from the media
  std::uint64_t bad_user_nand_blocks_raw = 0;           // 32-37 (48-bit count)
  std::uint16_t bad_user_nand_blocks_normalized = 0;    // 38-39
  std::uint64_t bad_system_nand_blocks_raw = 0;         // 40-45
  std::uint16_t bad_system_nand_blocks_normalized = 0;  // 46-47
  std::uint64_t xor_recovery_count = 0;                 // 48-55
  std::uint64_t uncorrectable_read_errors = 0;          // 56-63
  std::uint64_t soft_ecc_errors = 0;                    // 64-71
  std::uint32_t end_to_end_detected = 0;                // 72-75
  std::uint32_t end_to_end_corrected = 0;               // 76-79
  std::uint8_t system_data_used_pct = 0;                // 80
  std::uint64_t refresh_counts = 0;                     // 81-87 (56-bit count)
  std::uint32_t user_data_erase_count_max = 0;          // 88-91
  std::uint32_t user_data_erase_count_min = 0;          // 92-95
  std::uint8_t thermal_throttling_events = 0;           // 96
  std::uint8_t thermal_throttling_status = 0;  // 97: 0 none, 1 first level, 2 second, 3 critical
  std::uint64_t pcie_correctable_errors = 0;   // 104-111
  std::uint32_t incomplete_shutdowns = 0;      // 112-115
  std::uint8_t percent_free_blocks = 0;        // 120
  std::uint16_t capacitor_health = 0;          // 128-129, percent
  std::uint64_t unaligned_io = 0;              // 136-143
  std::uint64_t security_version = 0;          // 144-151
  std::uint64_t nuse = 0;                      // 152-159, namespace utilization (LBAs)
  Counter128 plp_start_count;                  // 160-175
  Counter128 endurance_estimate;               // 176-191
  std::uint16_t log_page_version = 0;          // 494-495
  std::array<std::uint8_t, 16> guid{};         // 496-511
  [[nodiscard]] bool guid_ok() const { return guid == kOcpSmartLogGuid; }
};

// Decodes every field; does not judge the GUID (guid_ok() does).
[[nodiscard]] OcpSmartLog parse_ocp_smart_log(const OcpSmartLogPage& page);

// The GUID as the specification writes it (most significant byte first, 32 hex digits).
[[nodiscard]] std::string guid_text(const std::array<std::uint8_t, 16>& guid);

// Reads and decodes C0h; throws NvmeError when the command fails or when the page's GUID is not
// the OCP one ("not an OCP SMART / Health Information Extended log: GUID ...").
[[nodiscard]] OcpSmartLog read_ocp_smart_log(NvmeAdmin& admin);

// Rows (source "nvme:ocp-c0h"): each field above by name, 128-bit counters in exact decimal.
[[nodiscard]] std::vector<IdentityRow> ocp_rows(const OcpSmartLog& log);

// What changed over a run that matters: new bad blocks, uncorrectable reads, end-to-end errors,
// PCIe correctable errors, incomplete shutdowns, throttling events, the media bytes written; and
// the throttling status after, when not 0.
[[nodiscard]] std::vector<std::string> ocp_changes(const OcpSmartLog& before,
                                                   const OcpSmartLog& after);

}  // namespace storqual::devices
