// SPDX-License-Identifier: Apache-2.0
// A method's own report in a result (the methods are runner/methods/method.hpp): what a method
// found beyond one workload's counts: a latency search's curve, the rounds to steady state, the
// write cache of a sustained write, a capacity check, a SNIA PTS test's samples and analysis.
// WorkloadResult::method holds it behind this interface, so that only the method's own files know
// its structure: the JSON writer asks it for its keys, the HTML report for its section and its
// marks on the timeline, the console for its block after fio's layout, the verdicts for the words
// it adds. A plain run has none. Reading it back from JSON is the method's too (the readers are
// registered with reporting/method_reports.hpp).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storqual::reporting {

struct RunResult;
struct WorkloadResult;
struct ClaimVerdict;

// Where a report's keys sit among a workload result's JSON keys (the order every result file has
// had): after "fio_command" (rounds, latency search, sustained write), after "integrity"
// (capacity), or last (SNIA PTS).
enum class ReportSlot { AfterFioCommand, AfterIntegrity, Last };

// A mark a method puts on its workload's HTML timeline: a band from..to, or a line at `from_s`.
struct TimelineMark {
  double from_s = 0;
  std::optional<double> to_s;  // set: a band; empty: a line
  std::string label;
  std::string color;  // empty: the chart's default for a line
};

class MethodReport {
 public:
  virtual ~MethodReport() = default;
  // The result's "kind" ("latency-search", "sustained-write", "capacity", "pts-wsat", ...; rounds
  // to steady state stay "workload").
  [[nodiscard]] virtual std::string_view kind() const noexcept = 0;
  [[nodiscard]] virtual ReportSlot json_slot() const noexcept = 0;
  // Adds its keys to the workload's JSON object (`result`, an ordered_json object).
  virtual void write_json(nlohmann::ordered_json& result) const = 0;
  // Its HTML section after the workload's charts (escaped, self-contained); none by default.
  virtual void render_html(std::string& /*out*/, const RunResult& /*run*/,
                           const WorkloadResult& /*w*/) const {}
  // Its marks on the workload's timeline chart.
  virtual void timeline_marks(std::vector<TimelineMark>& /*marks*/) const {}
  // Its block after fio's layout on the console (a latency search's curve); "" for none.
  [[nodiscard]] virtual std::string console_block(const WorkloadResult& /*w*/) const { return {}; }
  // What it adds to a measured-only verdict's figures (", at iodepth 16", ", write cache 1.2 GiB
  // then 410 MB/s", ", steady after 7 rounds (...)"); "" for nothing.
  [[nodiscard]] virtual std::string measured_note(const WorkloadResult& /*w*/) const { return {}; }
  // What it adds to the definition of a workload figure read from its result (", at iodepth 16
  // (the search's choice)").
  [[nodiscard]] virtual std::string figure_note(const WorkloadResult& /*w*/) const { return {}; }
  // What it adds to a verdict on the named figure `metric` it published ("usable 1 GiB of 8 GiB
  // ..."); "" for nothing.
  [[nodiscard]] virtual std::string claim_note(std::string_view /*metric*/) const { return {}; }
  // Run in rounds to steady state: whether it became steady; empty when it did not run in rounds.
  [[nodiscard]] virtual std::optional<bool> steady() const { return std::nullopt; }
  // The rounds in words, for an inconclusive claim that needs steady state ("not steady after 25
  // rounds (window mean ...)"); "" when it did not run in rounds.
  [[nodiscard]] virtual std::string steadiness() const { return {}; }
  // Whether its published figures (WorkloadResult::figures) each get a measured-only verdict and an
  // OCP measurement of their own (a SNIA PTS test's: its figures are what it measured).
  [[nodiscard]] virtual bool lists_figures() const noexcept { return false; }
  // The report redone knowing when the drive throttled (the result's `throttled` spans, filled by
  // the thermal sampler): a sustained write's drop is then thermal, not its cache. Null when
  // throttling changes nothing it says.
  [[nodiscard]] virtual std::shared_ptr<const MethodReport> after_throttling(
      const WorkloadResult& /*w*/) const {
    return nullptr;
  }
  // Whether the result's counts are one workload's, so that zero completions are a stall (false
  // for a check whose counts are its own passes).
  [[nodiscard]] virtual bool checked_for_stalls() const noexcept { return true; }
  // A method whose result is a verdict in itself (a drive's self-test: passed or failed as its log
  // says) fills `out` (workloads, metric, kind, status, message) in place of the measured-only
  // IOPS verdict and returns true; false for every other method.
  [[nodiscard]] virtual bool own_verdict(const WorkloadResult& /*w*/, ClaimVerdict& /*out*/) const {
    return false;
  }
};

}  // namespace storqual::reporting
