// SPDX-License-Identifier: Apache-2.0
// How many samples a latency percentile needs before it means anything (docs/measurement.md, "Tail
// latency and sample counts").
//
// Executive summary
//   Rule:     a percentile p of n samples is supported when at least kMinSamplesBeyond = 10 samples
//             lie beyond it: n * (1 - p/100) >= 10. p99 needs 1000 I/Os, p99.99 100 000, p99.9999
//             ten million. Below that the value is the max of a handful of I/Os (or of none at all)
//             and says nothing about the device's tail.
//   Reports:  fio's percentile list (up to p99.99) is always printed, as fio does; p99.999 and
//             p99.9999 are added to the list only when the samples support them.
//   Claims:   a claim on an unsupported percentile is inconclusive, never a pass or a fail; its
//             message gives the I/Os needed and, from the measured IOPS, the runtime that would
//             give them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/latency_histogram.hpp"

namespace storqual::runner {

inline constexpr std::uint64_t kMinSamplesBeyond = 10;

// The datacenter tail beyond fio's list (OCP / AutoVal targets go to p99.9999).
inline constexpr std::array<double, 2> kExtendedPercentiles = {99.999, 99.9999};

// fio's list and the extended tail: every percentile a claim may name.
inline constexpr std::array<double, kFioPercentiles.size() + kExtendedPercentiles.size()>
    kClaimablePercentiles = {1,  5,  10, 20,   30,   40,    50,    60,     70,     80,
                             90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 99.9999};

// A latency statistic as claims and latency searches write it: "mean" (empty) or "pNN", one of
// kClaimablePercentiles ("p99.9" -> 99.9). Throws UnitError naming `context` (the metric) and the
// available ones.
[[nodiscard]] std::optional<double> parse_percentile_stat(std::string_view stat,
                                                          std::string_view context);

// The fewest samples with at least kMinSamplesBeyond beyond percentile p (0 < p < 100).
[[nodiscard]] std::uint64_t samples_needed(double p) noexcept;

// n samples support percentile p.
[[nodiscard]] inline bool percentile_supported(double p, std::uint64_t n) noexcept {
  return n >= samples_needed(p);
}

// The list a report carries for n samples: fio's, then each extended percentile n supports.
[[nodiscard]] std::vector<double> reported_percentiles(std::uint64_t n);

// "p99.9999 needs 10000000 I/Os (10 beyond it), 100000 measured; at the measured 50000 IOPS that
// is a runtime of 3.33 min". `iops` 0: the runtime part is left out.
[[nodiscard]] std::string describe_shortfall(double p, std::uint64_t have, double iops);

}  // namespace storqual::runner
