// SPDX-License-Identifier: Apache-2.0
// LatencyHistogram: fio's log-linear latency histogram, in nanoseconds.
//
// Executive summary
//   Layout:   values below 128 ns have one bucket each; above, every power of two [2^k, 2^(k+1))
//             is split into 64 equal sub-buckets ("6 bits of sub-buckets", as fio's stat.h).
//   Error:    a value is reported as the midpoint of its bucket, so the relative error of any
//             percentile is at most 1/128 = 0.78% (exact below 128 ns). Reported values are also
//             clamped to the exact min and max.
//   Range:    kGroups = 36 groups reach 2^41 ns (about 36.6 minutes); a larger value is counted in
//             the last bucket, whose percentiles are reported as the exact max (exact values still
//             reach min/max/mean/stdev). fio stops at 29
//             groups (2^34 ns, 17 s); our first 1856 buckets are fio's.
//   Memory:   36 * 64 buckets * 8 bytes = 18 KiB per histogram, fixed: constant in run time.
//   Cost:     add() is a count-leading-zeros, a shift, a mask and three additions.
//   Exact:    count, min, max, sum and sum of squares (128-bit) are kept exactly, so the mean and
//             standard deviation are exact up to the final floating-point division.
//   Merging:  histograms of several jobs merge by adding buckets; merge(a, b) equals the histogram
//             of the union of the samples.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace storqual::runner {

__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang 128-bit integer

class LatencyHistogram {
 public:
  static constexpr unsigned kBits = 6;
  static constexpr unsigned kSub = 1u << kBits;  // 64 sub-buckets per group
  static constexpr unsigned kGroups = 36;
  static constexpr unsigned kBuckets = kGroups * kSub;

  void add(std::uint64_t ns) noexcept {
    ++buckets_[index_of(ns)];
    ++count_;
    sum_ += ns;
    sum_sq_ += static_cast<Uint128>(ns) * ns;
    if (ns < min_) min_ = ns;
    if (ns > max_) max_ = ns;
  }
  void merge(const LatencyHistogram& other) noexcept;
  void reset() noexcept { *this = LatencyHistogram(); }

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t bucket(unsigned index) const noexcept { return buckets_[index]; }
  [[nodiscard]] std::uint64_t min() const noexcept { return count_ ? min_ : 0; }
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  [[nodiscard]] double mean() const noexcept;
  [[nodiscard]] double stdev() const noexcept;  // sample standard deviation (n-1), as fio
  // The value at percentile p (0 < p <= 100): the smallest bucket whose cumulative count reaches
  // ceil(p/100 * n), reported as the bucket's midpoint clamped to [min, max]. 0 when empty.
  [[nodiscard]] std::uint64_t percentile(double p) const noexcept;
  [[nodiscard]] std::vector<std::pair<double, std::uint64_t>> percentiles(
      std::span<const double> list) const;

  [[nodiscard]] static unsigned index_of(std::uint64_t ns) noexcept {
    if (ns < 2 * kSub) return static_cast<unsigned>(ns);
    unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(ns));
    unsigned error_bits = msb - kBits;
    unsigned base = (error_bits + 1) << kBits;
    unsigned index = base + static_cast<unsigned>((ns >> error_bits) & (kSub - 1));
    return index < kBuckets ? index : kBuckets - 1;
  }
  // Lowest value of a bucket and its width.
  [[nodiscard]] static std::uint64_t bucket_low(unsigned index) noexcept;
  [[nodiscard]] static std::uint64_t bucket_width(unsigned index) noexcept;

 private:
  std::array<std::uint64_t, kBuckets> buckets_{};
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  std::uint64_t sum_ = 0;
  Uint128 sum_sq_ = 0;
};

// fio's default percentile list.
inline constexpr std::array<double, 17> kFioPercentiles = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

}  // namespace storqual::runner
