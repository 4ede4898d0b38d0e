// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the SCSI LOG SENSE page parsers (the first byte chooses the page code) and the
// health rows and failures of what they decode.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_scsi_log_page(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
