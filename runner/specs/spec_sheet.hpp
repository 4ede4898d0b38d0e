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
#include <utility>

#include <vector>
#include "devices/sysfs.hpp"

#include "model/metric.hpp"
#include "runner/measure/latency_histogram.hpp"
#include "runner/measure/tail_samples.hpp"

namespace storqual::runner {

// The percentiles a claim may name: fio's default list and the extended tail to p99.9999 (reported
// where the samples support it, runner/measure/tail_samples.hpp). Any other percentile is refused
// when the sheet is loaded.
inline constexpr auto kReportedPercentiles = kClaimablePercentiles;

// Tolerance when neither the claim nor <claims> gives one.
inline constexpr double kDefaultTolerancePct = 10.0;

// What each kind means (unit, direction, printing) and the grammar of metric names:
// model/metric.hpp.
using reporting::LatencyKind;
using reporting::MetricDirection;
using reporting::MetricKind;

// A parsed claim metric (reporting::parse_metric_name): a workload's counts, iops, read.iops,
// write.iops, bw, read.bw, write.bw, lat.mean, lat.p99, clat.p99.9, read.lat.p99, write.clat.mean,
// ...; or a named figure of reporting::figure_table() (sustained.bw, capacity, waf, wsat.iops,
// ...), which a method publishes (WorkloadResult::figures) or the run measures as a whole.
struct Metric {
  std::string name;  // as written, e.g. "lat.p99.9"
  MetricKind kind = MetricKind::Iops;
  MetricDirection direction = MetricDirection::Both;
  LatencyKind latency = LatencyKind::Lat;  // for kind == Latency
  std::optional<double> percentile;        // for kind == Latency: empty = mean
  // A named figure, with its own direction; null for a workload's counts.
  const reporting::FigureInfo* figure = nullptr;
  [[nodiscard]] bool higher_is_better() const noexcept {
    return figure ? !figure->lower_is_better : reporting::higher_is_better(kind);
  }
  [[nodiscard]] const char* unit() const noexcept { return reporting::metric_unit(kind); }
};

// Parses a metric name; throws UnitError naming the valid forms (or the available percentiles).
[[nodiscard]] Metric parse_metric(std::string_view name);

// Parses a claim value for a metric into its base unit: "97K", "1.2M", "97000" (IOPS);
// "540MB/s", "1.2 GB/s", "800kB/s" (decimal), "515MiB/s", "2GiB/s" (binary) -> bytes/s;
// "250us", "1.5ms", "800ns", "0.01s" -> ns. Throws UnitError for a unit that does not fit the
// metric, a value that is not positive, or an absurd one (> 1G IOPS, > 1 TB/s, > 1 hour).
// `note`, when given, says how a value was read that is not written in its base unit's terms
// ("8000Mb/s is in bits per second: read as 1000 MB/s (bytes)"), else is left empty.
[[nodiscard]] double parse_claim_value(const Metric& metric, std::string_view text,
                                       std::string* note = nullptr);

// A claim value with an optional "/TB" suffix ("50k IOPS/TB", "40MB/s/TB"): the value in base units
// per decimal TB and per_tb set. Without the suffix it is parse_claim_value. Throws UnitError when
// a per-TB value does not fit the metric (latency and capacity do not scale with capacity).
[[nodiscard]] double parse_claim_value(const Metric& metric, std::string_view text, bool& per_tb,
                                       std::string* note = nullptr);

enum class Aggregate { None, Mean, Min, Max };
// "mean", "min" or "max" (None, a claim on one workload, reads as "mean" of that one).
[[nodiscard]] const char* to_string(Aggregate a) noexcept;

struct Claim {
  std::vector<std::string> workloads;  // one id, or several for an aggregate claim
  // job="reader": the claim is on that member job of a group workload (its own figures); "": on
  // the workload (a group's: its jobs together).
  std::string job;
  Aggregate aggregate = Aggregate::None;
  Metric metric;
  double value = 0;        // base unit of the metric (per decimal TB when per_tb)
  std::string value_text;  // as written, e.g. "540MB/s"
  std::string value_note;  // how it was read when not in bytes ("... in bits per second: ...")
  // value_per_tb="50k", or a unit written per TB ("50k IOPS/TB", "40MB/s/TB"): the threshold is
  // value * the device's capacity in decimal TB (10^12 bytes), as datacenter targets are written.
  bool per_tb = false;
  double tolerance_pct = kDefaultTolerancePct;
  bool steady = false;  // the vendor's number is a steady-state figure (SNIA PTS)
  // steady="required": without steady state the verdict is an error "inconclusive: ..."
  bool steady_required = false;
  std::string location;  // "file:line:column" of the <claim>, for warnings
  // "randread-4k-qd32" or "randrw70-4k randrw70-8k randrw70-16k" (as in ClaimVerdict::workload),
  // "mixed job reader" for a claim on a job
  [[nodiscard]] std::string workload_label() const;
};

// The threshold a claim is judged against on a device of `capacity_bytes`: value, or value times
// the capacity in decimal TB for a per-TB claim.
[[nodiscard]] double claim_threshold(const Claim& claim, double capacity_bytes);

// One <limit> of <health> (docs/formats.md, "<health>"): a health figure of the drive
// (devices::health_figures(): power_on_hours, reallocated_sectors, temperature_c, ...) at most
// `max` and/or at least `min`, in the reading before the run only (at="arrival", e.g. a new
// drive's power-on hours) or in every reading (at="every-reading", the default).
struct HealthLimit {
  std::string figure;
  std::optional<double> max, min;
  bool arrival_only = false;
  std::string file;  // the sheet as loaded (its display name) and the <limit>'s line
  unsigned line = 0;
  [[nodiscard]] std::string where() const { return file + ":" + std::to_string(line); }
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
  // warranty_years="5": the warranty period endurance.dwpd projects over
  // (runner/methods/gates/wear.hpp).
  std::optional<double> warranty_years;
  // <health>: limits on the drive's health figures, judged in the health testcase.
  std::vector<HealthLimit> health_limits;
  // plp="yes": the drive claims power-loss protection, so `storqual powercut check` fails a write
  // lost before a flush too (docs/power-cut.md).
  std::optional<bool> plp;
  // powercut_cycles="10": the power cuts the drive is claimed to survive; `storqual powercut
  // summary --sheet` is inconclusive with fewer cuts checked (docs/power-cut.md).
  std::optional<unsigned> powercut_cycles;

  // True when any <match> fits: each of its patterns matches the field of that name (a field the
  // caller does not give is matched as ""). Values are trimmed; comparison ignores case.
  [[nodiscard]] bool matches(const std::map<std::string, std::string>& identity) const;
  // How near the sheet comes to fitting: of its <match> elements the best one's share of patterns
  // that fit `identity` (1 when it matches, 0 without <match>); and that element as written,
  // `model="Samsung*" transport="nvme"`. For naming the nearest sheets when none matches.
  [[nodiscard]] std::pair<double, std::string> nearest_match(
      const std::map<std::string, std::string>& identity) const;

  // Throws FileError with file:line:column for any mistake.
  [[nodiscard]] static SpecSheet load(const std::filesystem::path& path);
  [[nodiscard]] static SpecSheet parse(std::string text, std::string display_name);
};

// The identity fields <match> may name. `target` is what the run's target is rather than a
// field of the device: "block" (a block device or partition), "file" (a regular file on one) or
// "scratch" (a directory, where storqual makes its scratch file); see match_target().
inline constexpr std::array<std::string_view, 6> kMatchFields = {"model",  "firmware",  "vendor",
                                                                 "serial", "transport", "target"};

// The spec sheets of a --specs directory (its own files, sorted): every *.xml whose root element
// is <spec-sheet>, and every *.xml that does not parse but looks like one, so that loading it
// reports where it is wrong instead of the sheet silently not being there. A suite or any other
// XML beside the sheets is not one. Throws UsageError when `dir` is not a directory.
[[nodiscard]] std::vector<std::filesystem::path> spec_sheet_files(const std::filesystem::path& dir);

// The `target` match value of a resolved target's kind.
[[nodiscard]] std::string_view match_target(devices::TargetKind kind);

// Lower-case hex SHA-256 of bytes (OpenSSL libcrypto).
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace storqual::runner
