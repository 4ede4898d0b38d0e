// SPDX-License-Identifier: Apache-2.0
// What the two SG_IO paths (ATA PASS-THROUGH, devices/ata_pass_through.cpp; LOG SENSE,
// devices/scsi_log_sense.cpp) read back from the kernel alike: the sense data's key, ASC and
// ASCQ, and the hex bytes their error messages name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace storqual::devices {

struct SenseKey {
  std::uint8_t key = 0, asc = 0, ascq = 0;
};

// Sense key, ASC and ASCQ of fixed (70h/71h) or descriptor (72h/73h) sense data (SPC-4 4.5); all
// zero for any other response code or fewer than 3 bytes.
[[nodiscard]] SenseKey sense_key(const std::uint8_t* sense, std::size_t len);

// "0x0e": a byte (or a status) as the SG_IO error messages print it.
[[nodiscard]] std::string sg_hex(unsigned v);

}  // namespace storqual::devices
