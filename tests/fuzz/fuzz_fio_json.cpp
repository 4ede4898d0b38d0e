// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: fio's JSON output read into the result model (runner::parse_fio_json).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_fio_json(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
