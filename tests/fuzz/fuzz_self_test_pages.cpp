// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the decoders of a self-test's polls (ATA SMART READ DATA's execution status and
// polling times, SCSI sense data's progress indication, the NVMe Device Self-test log).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_self_test_pages(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
