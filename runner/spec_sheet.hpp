// SPDX-License-Identifier: Apache-2.0
// A device spec sheet (docs/formats.md, "Spec sheet"): which devices it describes (shell-glob
// <match> patterns) and what the vendor claims per workload, with units converted to base units
// (IOPS, bytes/s, ns) and a tolerance per claim. Loading validates everything and throws
// FileError "file:line:column: what was expected" on the first mistake. See docs/formats.md.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/latency_histogram.hpp"

namespace storqual::runner {

class Suite;

// The percentiles the runner reports (fio's default list). A claim on any other percentile is
// refused when the sheet is loaded.
inline constexpr auto kReportedPercentiles = kFioPercentiles;

// Tolerance when neither the claim nor <claims> gives one.
inline constexpr double kDefaultTolerancePct = 10.0;

// Capacity: the usable bytes a <capacity> check found (runner/capacity_check.hpp).
enum class MetricKind { Iops, Bandwidth, Latency, Capacity };
enum class MetricDirection { Both, Read, Write };  // Both: read + write (iops, bw) or combined
enum class LatencyKind { Lat, Clat };              // fio's lat (submit to completion) and clat

// A parsed metric name: iops, read.iops, write.iops, bw, read.bw, write.bw, lat.mean, lat.p99,
// clat.p99.9, read.lat.p99, write.clat.mean, ..., and sustained.bw (the post-cache rate of a
// <sustained-write>, runner/sustained_write.hpp)
struct Metric {
  std::string name;  // as written, e.g. "lat.p99.9"
  MetricKind kind = MetricKind::Iops;
  MetricDirection direction = MetricDirection::Both;
  LatencyKind latency = LatencyKind::Lat;  // for kind == Latency
  std::optional<double> percentile;        // for kind == Latency: empty = mean
  bool sustained = false;  // sustained.bw: the post-cache write rate of a <sustained-write>
  [[nodiscard]] bool higher_is_better() const noexcept { return kind != MetricKind::Latency; }
  [[nodiscard]] const char* unit() const noexcept;  // "IOPS", "B/s" or "ns"
};

// Parses a metric name; throws UnitError naming the valid forms (or the available percentiles).
[[nodiscard]] Metric parse_metric(std::string_view name);

// Parses a claim value for a metric into its base unit: "97K", "1.2M", "97000" (IOPS);
// "540MB/s", "1.2 GB/s", "800kB/s" (decimal), "515MiB/s", "2GiB/s" (binary) -> bytes/s;
// "250us", "1.5ms", "800ns", "0.01s" -> ns. Throws UnitError for a unit that does not fit the
// metric, a value that is not positive, or an absurd one (> 1G IOPS, > 1 TB/s, > 1 hour).
[[nodiscard]] double parse_claim_value(const Metric& metric, std::string_view text);

enum class Aggregate { None, Mean, Min, Max };

struct Claim {
  std::vector<std::string> workloads;  // one id, or several for an aggregate claim
  Aggregate aggregate = Aggregate::None;
  Metric metric;
  double value = 0;        // base unit of the metric
  std::string value_text;  // as written, e.g. "540MB/s"
  double tolerance_pct = kDefaultTolerancePct;
  bool steady = false;  // the vendor's number is a steady-state figure (SNIA PTS)
  // steady="required": without steady state the verdict is an error "inconclusive: ..."
  bool steady_required = false;
  std::string location;  // "file:line:column" of the <claim>, for warnings
  // "randread-4k-qd32" or "randrw70-4k randrw70-8k randrw70-16k" (as in ClaimVerdict::workload)
  [[nodiscard]] std::string workload_label() const;
};

// One <match>: every given field must match its glob (fnmatch, case-insensitive).
struct MatchRule {
  std::map<std::string, std::string> patterns;  // field (model, firmware, vendor, serial,
                                                // transport) -> shell glob
};

class SpecSheet {
 public:
  std::string name;
  std::string vendor;
  std::string suite;  // a standard suite name, or a path to a suite file (relative to the sheet)
  std::string source;
  std::filesystem::path path;  // the file it was loaded from ("" when loaded from text)
  std::string sha256;          // of the file's bytes, lower-case hex
  std::vector<MatchRule> match;
  std::vector<Claim> claims;

  // True when any <match> fits: each of its patterns matches the field of that name (a field the
  // caller does not give is matched as ""). Values are trimmed; comparison ignores case.
  [[nodiscard]] bool matches(const std::map<std::string, std::string>& identity) const;

  // Throws FileError with file:line:column for any mistake.
  [[nodiscard]] static SpecSheet load(const std::filesystem::path& path);
  [[nodiscard]] static SpecSheet parse(std::string text, std::string display_name);
};

// The identity fields <match> may name.
inline constexpr std::array<std::string_view, 5> kMatchFields = {"model", "firmware", "vendor",
                                                                 "serial", "transport"};

// Lower-case hex SHA-256 of bytes (OpenSSL libcrypto).
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

// Problems between a sheet and its suite that are not errors (a run still works): claims on
// workloads the suite lacks (reported as skipped at run time) and claims on a direction a workload
// does not have (read.iops on a randwrite workload; an error verdict at run time). Each is
// "file:line:column: warning text".
[[nodiscard]] std::vector<std::string> cross_check(const SpecSheet& sheet, const Suite& suite);

}  // namespace storqual::runner
