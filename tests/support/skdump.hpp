// SPDX-License-Identifier: Apache-2.0
// libatasmart's skdump (Debian libatasmart-bin) as the independent decoder of ATA SMART pages:
// its snapshot format, `skdump --load`, and its attribute table and summary lines read back.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "devices/ata_smart.hpp"

namespace storqual::testing {

// libatasmart's snapshot (atasmart.c sk_disk_get_blob): per tag its four letters and its size as
// big-endian words, then the bytes (IDFY, SMST, SMDT, SMTH).
[[nodiscard]] std::string skdump_blob(const devices::AtaPage& identify,
                                      const devices::AtaPage& data,
                                      const devices::AtaPage& thresholds, bool status_good);
[[nodiscard]] bool have_skdump();
// `skdump --load=FILE` of a snapshot file, or of `blob` written to a temporary file; stdout and
// stderr together, "" when it could not run.
[[nodiscard]] std::string run_skdump_file(const std::filesystem::path& snapshot);
[[nodiscard]] std::string run_skdump(const std::string& blob);

// skdump's output without its bold marks (ESC [ 1 m ... ESC [ 0 m).
[[nodiscard]] std::string skdump_plain(const std::string& text);

// One line of skdump's attribute table.
struct SkdumpRow {
  std::string name, value, worst, threshold, pretty, raw, type, good;
};
// How skdump prints a value or worst byte: "n/a" for 0, FEh and FFh (atasmart.c
// current_value_valid), else the number.
[[nodiscard]] std::string skdump_byte(unsigned byte);
// The attribute table: id -> row.
[[nodiscard]] std::map<unsigned, SkdumpRow> skdump_attributes(const std::string& text);
// An attribute's raw bytes as skdump prints them: "0x" and the six bytes in page order.
[[nodiscard]] std::string skdump_raw_hex(const devices::AtaAttribute& a);
// The value of a summary line "Key: value" ("Overall Status", "Bad Sectors", "Serial"), "" when
// absent.
[[nodiscard]] std::string skdump_field(const std::string& text, const std::string& key);

}  // namespace storqual::testing
