// SPDX-License-Identifier: Apache-2.0
// fio's I/O depth buckets (stat.c, io_u_mark_depth): a submission is counted under the requests in
// flight once it is submitted, itself included: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64, printed as
// "1=, 2=, 4=, 8=, 16=, 32=, >=64=" in percent of all submissions.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace storqual::runner {

inline constexpr std::size_t kIoDepthBuckets = 7;

[[nodiscard]] constexpr std::size_t io_depth_bucket(unsigned in_flight) noexcept {
  if (in_flight <= 1) return 0;
  const auto b = static_cast<std::size_t>(std::bit_width(in_flight) - 1);  // floor(log2)
  return b < kIoDepthBuckets - 1 ? b : kIoDepthBuckets - 1;
}

using IoDepthCounts = std::array<std::uint64_t, kIoDepthBuckets>;

}  // namespace storqual::runner
