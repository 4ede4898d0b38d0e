// SPDX-License-Identifier: Apache-2.0
// LatencyHistogram: merging and percentiles (see the header for the error bound).
#include "runner/measure/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace storqual::runner {

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  for (unsigned i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double LatencyHistogram::mean() const noexcept {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

double LatencyHistogram::stdev() const noexcept {
  if (count_ < 2) return 0.0;
  // n*sum_sq - sum^2 is exact in 128 bits only for small n; long double keeps 64 bits of mantissa,
  // enough for latency variances.
  long double n = static_cast<long double>(count_);
  long double s = static_cast<long double>(sum_);
  long double var = (static_cast<long double>(sum_sq_) - s * s / n) / (n - 1);
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

std::uint64_t LatencyHistogram::bucket_low(unsigned index) noexcept {
  if (index < 2 * kSub) return index;
  unsigned error_bits = (index >> kBits) - 1;
  std::uint64_t base = 1ull << (error_bits + kBits);
  return base + (static_cast<std::uint64_t>(index & (kSub - 1)) << error_bits);
}

std::uint64_t LatencyHistogram::bucket_width(unsigned index) noexcept {
  if (index < 2 * kSub) return 1;
  return 1ull << ((index >> kBits) - 1);
}

std::uint64_t LatencyHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  double want = std::ceil(p / 100.0 * static_cast<double>(count_));
  std::uint64_t rank = want < 1 ? 1 : static_cast<std::uint64_t>(want);
  if (rank > count_) rank = count_;
  std::uint64_t seen = 0;
  for (unsigned i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      if (i == kBuckets - 1) return max_;  // the overflow bucket: only max is known exactly
      std::uint64_t mid = bucket_low(i) + bucket_width(i) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

std::vector<std::pair<double, std::uint64_t>> LatencyHistogram::percentiles(
    std::span<const double> list) const {
  std::vector<std::pair<double, std::uint64_t>> out;
  out.reserve(list.size());
  if (count_ == 0) return out;
  // One pass over the buckets for the whole (ascending) list.
  std::uint64_t seen = 0;
  unsigned i = 0;
  for (double p : list) {
    double want = std::ceil(p / 100.0 * static_cast<double>(count_));
    std::uint64_t rank =
        std::clamp<std::uint64_t>(want < 1 ? 1 : static_cast<std::uint64_t>(want), 1, count_);
    while (i < kBuckets && seen + buckets_[i] < rank) seen += buckets_[i++];
    std::uint64_t value = max_;
    if (i < kBuckets - 1) value = std::clamp(bucket_low(i) + bucket_width(i) / 2, min(), max_);
    out.emplace_back(p, value);
  }
  return out;
}

}  // namespace storqual::runner
