// SPDX-License-Identifier: Apache-2.0
// OCP C0h SMART / Health Information Extended log (see ocp_smart_log.hpp).
#include "devices/ocp_smart_log.hpp"

#include <cstdio>

namespace storqual::devices {
namespace {

// Little-endian unsigned of `n` bytes (n <= 8) at `offset`.
std::uint64_t le(const OcpSmartLogPage& p, std::size_t offset, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[offset + i];
  return v;
}

std::string counter_change(const char* what, std::uint64_t a, std::uint64_t b) {
  return std::string(what) + " " + std::to_string(a) + " -> " + std::to_string(b) + " (+" +
         std::to_string(b - a) + ")";
}

}  // namespace

OcpSmartLog parse_ocp_smart_log(const OcpSmartLogPage& p) {
  OcpSmartLog l;
  l.physical_media_units_written = Counter128::from_le(&p[0]);
  l.physical_media_units_read = Counter128::from_le(&p[16]);
  l.bad_user_nand_blocks_raw = le(p, 32, 6);
  l.bad_user_nand_blocks_normalized = static_cast<std::uint16_t>(le(p, 38, 2));
  l.bad_system_nand_blocks_raw = le(p, 40, 6);
  l.bad_system_nand_blocks_normalized = static_cast<std::uint16_t>(le(p, 46, 2));
  l.xor_recovery_count = le(p, 48, 8);
  l.uncorrectable_read_errors = le(p, 56, 8);
  l.soft_ecc_errors = le(p, 64, 8);
  l.end_to_end_detected = static_cast<std::uint32_t>(le(p, 72, 4));
  l.end_to_end_corrected = static_cast<std::uint32_t>(le(p, 76, 4));
  l.system_data_used_pct = p[80];
  l.refresh_counts = le(p, 81, 7);
  l.user_data_erase_count_max = static_cast<std::uint32_t>(le(p, 88, 4));
  l.user_data_erase_count_min = static_cast<std::uint32_t>(le(p, 92, 4));
  l.thermal_throttling_events = p[96];
  l.thermal_throttling_status = p[97];
  l.pcie_correctable_errors = le(p, 104, 8);
  l.incomplete_shutdowns = static_cast<std::uint32_t>(le(p, 112, 4));
  l.percent_free_blocks = p[120];
  l.capacitor_health = static_cast<std::uint16_t>(le(p, 128, 2));
  l.unaligned_io = le(p, 136, 8);
  l.security_version = le(p, 144, 8);
  l.nuse = le(p, 152, 8);
  l.plp_start_count = Counter128::from_le(&p[160]);
  l.endurance_estimate = Counter128::from_le(&p[176]);
  l.log_page_version = static_cast<std::uint16_t>(le(p, 494, 2));
  for (std::size_t i = 0; i < 16; ++i) l.guid[i] = p[496 + i];
  return l;
}

std::string guid_text(const std::array<std::uint8_t, 16>& guid) {
  std::string out;
  char buf[4];
  for (std::size_t i = 16; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%02X", guid[i]);
    out += buf;
  }
  return out;
}

OcpSmartLog read_ocp_smart_log(NvmeAdmin& admin) {
  OcpSmartLog l = parse_ocp_smart_log(admin.ocp_smart_log());
  if (!l.guid_ok())
    throw NvmeError("log page C0h is not an OCP SMART / Health Information Extended log: GUID " +
                    guid_text(l.guid) + ", expected " + guid_text(kOcpSmartLogGuid));
  return l;
}

std::vector<IdentityRow> ocp_rows(const OcpSmartLog& l) {
  std::vector<IdentityRow> rows;
  const std::string src = "nvme:ocp-c0h";
  auto add = [&](const char* field, std::string value) {
    rows.push_back({std::string("ocp.") + field, std::move(value), src});
  };
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  add("physical_media_written_bytes", l.physical_media_units_written.to_decimal());
  add("physical_media_read_bytes", l.physical_media_units_read.to_decimal());
  add("bad_user_nand_blocks", n(l.bad_user_nand_blocks_raw));
  add("bad_user_nand_blocks_normalized", n(l.bad_user_nand_blocks_normalized));
  add("bad_system_nand_blocks", n(l.bad_system_nand_blocks_raw));
  add("bad_system_nand_blocks_normalized", n(l.bad_system_nand_blocks_normalized));
  add("xor_recovery_count", n(l.xor_recovery_count));
  add("uncorrectable_read_errors", n(l.uncorrectable_read_errors));
  add("soft_ecc_errors", n(l.soft_ecc_errors));
  add("end_to_end_detected_errors", n(l.end_to_end_detected));
  add("end_to_end_corrected_errors", n(l.end_to_end_corrected));
  add("system_data_used_pct", n(l.system_data_used_pct));
  add("refresh_counts", n(l.refresh_counts));
  add("user_data_erase_count_max", n(l.user_data_erase_count_max));
  add("user_data_erase_count_min", n(l.user_data_erase_count_min));
  add("thermal_throttling_events", n(l.thermal_throttling_events));
  add("thermal_throttling_status", n(l.thermal_throttling_status));
  add("pcie_correctable_errors", n(l.pcie_correctable_errors));
  add("incomplete_shutdowns", n(l.incomplete_shutdowns));
  add("percent_free_blocks", n(l.percent_free_blocks));
  add("capacitor_health_pct", n(l.capacitor_health));
  add("unaligned_io", n(l.unaligned_io));
  add("security_version", n(l.security_version));
  add("nuse", n(l.nuse));
  add("plp_start_count", l.plp_start_count.to_decimal());
  add("endurance_estimate", l.endurance_estimate.to_decimal());
  add("log_page_version", n(l.log_page_version));
  add("log_page_guid", guid_text(l.guid) + (l.guid_ok() ? " (OCP)" : " (not OCP)"));
  return rows;
}

std::vector<std::string> ocp_changes(const OcpSmartLog& a, const OcpSmartLog& b) {
  std::vector<std::string> out;
  auto grew = [&](const char* what, std::uint64_t x, std::uint64_t y) {
    if (y > x) out.push_back(std::string("ocp: ") + counter_change(what, x, y));
  };
  grew("bad user NAND blocks", a.bad_user_nand_blocks_raw, b.bad_user_nand_blocks_raw);
  grew("bad system NAND blocks", a.bad_system_nand_blocks_raw, b.bad_system_nand_blocks_raw);
  grew("uncorrectable read errors", a.uncorrectable_read_errors, b.uncorrectable_read_errors);
  grew("end-to-end detected errors", a.end_to_end_detected, b.end_to_end_detected);
  grew("end-to-end corrected errors", a.end_to_end_corrected, b.end_to_end_corrected);
  grew("XOR recoveries", a.xor_recovery_count, b.xor_recovery_count);
  grew("soft ECC errors", a.soft_ecc_errors, b.soft_ecc_errors);
  grew("PCIe correctable errors", a.pcie_correctable_errors, b.pcie_correctable_errors);
  grew("incomplete shutdowns", a.incomplete_shutdowns, b.incomplete_shutdowns);
  grew("thermal throttling events", a.thermal_throttling_events, b.thermal_throttling_events);
  if (b.thermal_throttling_status != 0)
    out.push_back("ocp: thermal throttling status " + std::to_string(b.thermal_throttling_status) +
                  " after the run");
  if (b.physical_media_units_written >= a.physical_media_units_written)
    out.push_back(
        "ocp: media written " +
        minus(b.physical_media_units_written, a.physical_media_units_written).to_decimal() +
        " bytes");
  return out;
}

}  // namespace storqual::devices
