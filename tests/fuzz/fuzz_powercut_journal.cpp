// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the power-cut journal's reader and the journal listener's stream checks.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_powercut_journal(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
