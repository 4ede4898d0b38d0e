// SPDX-License-Identifier: Apache-2.0
// The fleet report: results of many devices and hosts merged into one HTML page, one JUnit file and
// one JSON file, with lot acceptance (units of one model compared with each other).
//
// Lot acceptance: runs are grouped by unit_model() (the identity field "model"; devices that report
// none - loop, zram, virtio disks - are grouped by transport, "zram (no model)"). For every
// spec-sheet verdict (kind "claim") with a measured value - the same workload and metric measured
// on at least two units of the model - the lot median is taken over those units. With at least
// kMinLotUnits units a unit is flagged when it is more than `lot_tolerance_pct` worse than the
// median: below it where higher is better, above it where lower is better, as the verdict records
// (ClaimVerdict::higher_is_better, set from the metric's definition when it was judged; never
// guessed from the metric's name). A unit is flagged even when it meets its claim: it is the odd
// one of its lot. With fewer units (of two, the median is their mean, so any gap over the
// tolerance would fail one of them), or when the files do not record the direction, the spread is
// reported and nothing is flagged. Every compared unit gets one verdict of kind "lot"
// ("lot: <workload> <metric>", pass, fail, or measured-only when not judged; claimed = the median)
// appended to its run, so JUnit, HTML and JSON carry the finding through the ordinary verdict
// paths. A flagged unit is a failed check like a failed claim: `storqual run` with several
// targets exits 1 for it (runner/qualification/fleet_run.hpp), as its JUnit testcase and the HTML
// banner say.
//
// JSON (fleet_to_json): {"fleet_format": 1, "storqual_version", "lot": {"tolerance_pct",
// "min_units", "comparisons", "flagged", "groups": [{"model", "workload", "metric", "unit",
// "median", "higher_is_better", "judged", "not_judged", "units": [{"index", "host", "device",
// "serial", "measured", "diff_pct", "flagged"}]}]}, "fleet": [result, ...]} where each result is
// to_json() of one run (with its lot verdicts) and "index" is the position in "fleet".
// docs/fleet.md documents it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// Below this many units of a model with the same measured metric, lot acceptance reports the
// spread and flags nothing.
inline constexpr std::size_t kMinLotUnits = 3;

struct LotUnitValue {
  std::size_t run = 0;  // index into FleetReport::runs
  double measured = 0;
  double diff_pct = 0;  // (measured - median) / median * 100
  bool flagged = false;
  // Why the value is shown but not compared: its workload was host-limited, so the figure is the
  // host's as much as the unit's ("" when compared).
  std::string left_out;
};

// One metric of one model across its units.
struct LotComparison {
  std::string model;
  std::string workload;  // id, or space-separated ids of an aggregate claim
  std::string metric;
  std::string unit;  // "IOPS", "B/s", "ns"
  bool higher_is_better = true;
  double median = 0;
  std::string not_judged;  // why no unit can be flagged ("" when judged)
  std::vector<LotUnitValue> units;
};

struct FleetReport {
  std::vector<RunResult> runs;  // in input order, each with its "lot" verdicts appended
  double lot_tolerance_pct = 10;
  std::vector<LotComparison> lot;
  [[nodiscard]] std::size_t flagged_count() const;
};

// Builds the fleet from `runs` (any earlier "lot" verdicts, e.g. from a merged file read back, are
// dropped and computed again). Throws storqual::UsageError when the tolerance is not in [0, 100).
[[nodiscard]] FleetReport build_fleet(std::vector<RunResult> runs, double lot_tolerance_pct);

// The fleet's outcome, as the fleet page's banner shows it: ERROR if any unit is in error, else
// FAIL if any failed (a claim, a baseline or the lot), else PASS if any passed, else MEASURED.
[[nodiscard]] std::string fleet_verdict(const FleetReport& fleet);
// One line for a console: "FAIL: 3 devices on 3 hosts, 1 model; units: 2 pass, 1 fail, 0 error,
// 0 measured only; 1 lot outlier (lot tolerance 10.0%)".
[[nodiscard]] std::string fleet_summary(const FleetReport& fleet);

[[nodiscard]] nlohmann::ordered_json fleet_to_json(const FleetReport& fleet);
[[nodiscard]] std::string fleet_to_json_text(const FleetReport& fleet);

// One self-contained page: verdict banner, fleet table (host, device, model, serial, firmware,
// spec, verdict, key figures, lot), lot acceptance table, one chart per claim of its measured value
// on every unit with each unit's claim marker (<figure data-chart="fleet-claim">), then one section
// per device (id "d<N>", the single-run report nested, its anchors prefixed "d<N>-").
[[nodiscard]] std::string render_fleet_html(const FleetReport& fleet);

// The model a unit is grouped (and baselines are matched) by: the identity "model", or
// "<transport> (no model)" when the device reports none, or "" when neither is known.
[[nodiscard]] std::string unit_model(const RunResult& run);

// The value of an identity row ("model", "serial", "firmware"), or "" when absent.
[[nodiscard]] std::string identity_field(const RunResult& run, const std::string& field);

}  // namespace storqual::reporting
