// SPDX-License-Identifier: Apache-2.0
// Steady state as SNIA SSS PTS defines it: a workload runs in rounds; it is steady when, over the
// last `window` (5) rounds, the range of the tracked variable is at most 20% of the window's mean
// and the excursion of the least-squares line across the window (|slope| * (window - 1)) is at
// most 10% of the mean. After `max_rounds` (25) rounds without that, it is reported "not steady".
//
// The detector (evaluate_window) is a pure function over a series; run_rounds drives a
// RunWorkload (run_workload in production, a fake in tests) round by round.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/measure/steady_criteria.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/method.hpp"

namespace storqual::runner {

// The tracked value of one result: total IOPS, total bytes/s, or the samples-weighted mean lat
// (ns) of both directions; 0 when the result has none.
[[nodiscard]] double tracked_value(const reporting::WorkloadResult& r, const std::string& metric);

// The rounds' report in the result (model/method_report.hpp): kind "workload", the JSON keys
// "steady" and "steady_state", the HTML box with the rounds chart and table and the window's band
// on the timeline, the words verdicts add (steady_state_report.cpp).
class SteadyStateRoundsReport final : public reporting::MethodReport {
 public:
  std::optional<bool> steady_flag;  // false is reported as "not steady"
  std::optional<reporting::SteadyStateReport> rounds;

  [[nodiscard]] std::string_view kind() const noexcept override { return "workload"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterFioCommand;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  void timeline_marks(std::vector<reporting::TimelineMark>& marks) const override;
  [[nodiscard]] std::string measured_note(const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::optional<bool> steady() const override { return steady_flag; }
  [[nodiscard]] std::string steadiness() const override;
};

// The rounds' SNIA steady-state window of a result that ran in rounds, or null.
[[nodiscard]] const reporting::SteadyStateReport* steady_state_of(
    const reporting::WorkloadResult& w) noexcept;
// Reads the report back from a result's JSON (reporting/method_reports.hpp): a "workload" with
// "steady" or "steady_state".
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_steady_state_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

// Runs `spec` (its runtime replaced by round_time when given, its id "<id> (round N)") round after
// round until steady or config.max_rounds; stops early, keeping what it has, when a round has
// errors or was interrupted. Returns the last round's result with steady_state filled, `steady`
// set, `elapsed_s` the sum of every round and the rounds' timelines concatenated (t_s continuing
// across rounds).
[[nodiscard]] reporting::WorkloadResult run_rounds(const WorkloadSpec& spec,
                                                   const SteadyStateConfig& config,
                                                   const RunWorkload& measure);

// "not steady after 25 rounds (window mean 41.2k IOPS, range 35.1% of mean, slope 12.0% of mean)"
// or "steady after 7 rounds (...)".
[[nodiscard]] std::string describe(const reporting::SteadyStateReport& report);

// <workload rounds="25" round_time="60s" steady_metric="iops">: the workload run in rounds to
// steady state (run_rounds), a round's time scaled with --runtime-scale.
class SteadyStateRounds final : public Method {
 public:
  explicit SteadyStateRounds(SteadyStateConfig config) : config_(std::move(config)) {}
  [[nodiscard]] const SteadyStateConfig& config() const noexcept { return config_; }
  [[nodiscard]] std::string_view element() const noexcept override { return "workload"; }
  [[nodiscard]] bool takes_early_stop() const noexcept override { return false; }
  [[nodiscard]] bool timed() const noexcept override { return true; }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override;

 private:
  SteadyStateConfig config_;
};

// The registry's entry for <workload>: a plain run (plain_method()), or SteadyStateRounds when
// rounds, round_time or steady_metric is given.
[[nodiscard]] MethodEntry workload_method_entry();

}  // namespace storqual::runner
