// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: fio job files and command lines as suites (runner::import_fio_jobs).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)storqual::fuzz::feed_fio_job(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
