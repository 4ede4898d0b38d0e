// SPDX-License-Identifier: Apache-2.0
// Sense data and hex bytes of the SG_IO paths (see sg_sense.hpp).
#include "devices/sg_sense.hpp"

#include <cstdio>

namespace storqual::devices {

SenseKey sense_key(const std::uint8_t* sense, std::size_t len) {
  SenseKey k;
  if (len < 3) return k;
  const std::uint8_t code = sense[0] & 0x7F;
  if (code == 0x72 || code == 0x73) {
    k.key = sense[1] & 0xF;
    k.asc = sense[2];
    k.ascq = len > 3 ? sense[3] : 0;
  } else if (code == 0x70 || code == 0x71) {
    k.key = sense[2] & 0xF;
    k.asc = len > 12 ? sense[12] : 0;
    k.ascq = len > 13 ? sense[13] : 0;
  }
  return k;
}

std::string sg_hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

}  // namespace storqual::devices
