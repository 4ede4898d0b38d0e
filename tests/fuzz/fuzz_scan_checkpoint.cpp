// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the surface scan's checkpoint file
// (runner/methods/surface_scan/scan_checkpoint.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_scan_checkpoint(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
