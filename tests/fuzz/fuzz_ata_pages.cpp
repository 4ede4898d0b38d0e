// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the ATA SMART page parsers (data, thresholds, self-test and error logs) and the
// health rows, changes and failures of what they decode.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_ata_pages(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
