// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the result JSON reader of `storqual report` and the reports it re-renders.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_result_json(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
