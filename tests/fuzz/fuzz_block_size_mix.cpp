// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: fio's bssplit and bsrange grammar and the sizes drawn from a mix.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_block_size_mix(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
