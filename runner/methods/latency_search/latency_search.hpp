// SPDX-License-Identifier: Apache-2.0
// Latency-bounded IOPS (the iodepth-sweep method, docs/formats.md "<latency-search>"): the
// highest IOPS whose latency statistic (mean, or a reported percentile, of fio's `lat`,
// submission to completion, or of `clat`, completion only) stays at or under a limit. By default
// every iodepth 1, 2, 4 ... max_iodepth runs and the answer is the passing depth with the most
// IOPS, wherever it lies (a curve need not be monotone: a depth over the limit can be followed by
// one within it). With `bisect` the sweep stops at the first depth over the limit and bisects
// between it and the last good one. Every step is a full run of the workload at that depth; all
// steps form the IOPS/latency curve.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/method.hpp"

namespace storqual::runner {

// <latency-search>: the highest IOPS whose `stat` latency stays at or under `limit` over iodepth
// 1, 2, 4 .. max_iodepth (docs/formats.md "<latency-search>").
struct LatencySearch {
  unsigned max_iodepth = 1024;
  double limit_ns = 10e6;
  std::optional<double> percentile;  // empty: mean latency; else e.g. 99.0 (a reported one)
  std::string stat = "mean";         // as written: "mean", "p99", "p99.9"
  // Which latency the statistic is of: "lat" (fio's total latency, submission to completion)
  // or "clat" (completion latency, what many vendors and cloud providers quote).
  std::string latency = "lat";
  // false (the default): every depth 1, 2, 4 .. max_iodepth runs, so a curve that is not monotone
  // still yields its best passing depth; true: stop at the first depth over the limit and bisect
  // between it and the last good one (fewer runs, assumes latency grows with depth).
  bool bisect = false;
  // "lat.mean", "clat.p99": the statistic as reports name it (the metric spelling of claims).
  [[nodiscard]] std::string label() const { return latency + "." + stat; }
};

// One step of a latency-bounded search: the workload at one iodepth.
struct LatencyCurvePoint {
  unsigned iodepth = 1;
  double iops = 0;
  double latency_ns = 0;  // the searched statistic (mean or percentile of lat), -1 if none
  bool within_limit = false;
};

// The search's report in the result (model/method_report.hpp): kind "latency-search", every step
// (sorted by iodepth), the limit and the statistic; the result itself is the step with the highest
// IOPS within the limit. Its JSON keys latency_curve, latency_limit_ns and latency_stat, the HTML
// curve and table, the console's curve (latency_search_report.cpp).
class LatencySearchMethodReport final : public reporting::MethodReport {
 public:
  std::vector<LatencyCurvePoint> curve;
  double limit_ns = 0;
  std::string stat;  // "lat.mean", "clat.p99", ...

  [[nodiscard]] std::string_view kind() const noexcept override { return "latency-search"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterFioCommand;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string console_block(const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string measured_note(const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::string figure_note(const reporting::WorkloadResult& w) const override;
};

// Reads it back from a result's JSON (reporting/method_reports.hpp).
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_latency_search_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

struct LatencySearchOutcome {
  reporting::WorkloadResult best;        // the run at the chosen depth (kind "latency-search")
  std::vector<LatencyCurvePoint> curve;  // every step, sorted by iodepth
  bool limit_met = false;  // false: no depth is within the limit (best is the iodepth-1 run)
};

// The statistic the search compares with the limit, from a result: the worse of the read and
// write sides. Returns a negative value when the result has no samples.
[[nodiscard]] double latency_statistic(const reporting::WorkloadResult& r, const LatencySearch& s);

// Runs the search with `measure` (run_workload in production, a fake in tests). Stops early and
// returns what it has when a step comes back with errors or interrupted.
[[nodiscard]] LatencySearchOutcome search_latency_bound(const WorkloadSpec& base,
                                                        const LatencySearch& search,
                                                        const RunWorkload& measure);

// <latency-search id=... limit=... [stat latency max_iodepth search] [workload options]>: the
// search as a method; each step's id is "<id> (iodepth N)", the result keeps the entry's id.
class LatencySearchMethod final : public Method {
 public:
  explicit LatencySearchMethod(LatencySearch search) : search_(std::move(search)) {}
  [[nodiscard]] const LatencySearch& search() const noexcept { return search_; }
  [[nodiscard]] std::string_view element() const noexcept override { return "latency-search"; }
  void plan(WorkloadSpec& workload) const override;
  [[nodiscard]] bool takes_early_stop() const noexcept override { return false; }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override;
  [[nodiscard]] std::string fio_equivalent(const WorkloadSpec& spec) const override;
  [[nodiscard]] std::string summary_line(const WorkloadSpec& spec) const override;
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> element_attributes()
      const override;
  // fio's latency_target, latency_window and latency_percentile at the deepest iodepth, for a
  // search of a percentile of lat (fio's criterion); empty for the mean or clat.
  [[nodiscard]] std::vector<std::string> fio_job_options(WorkloadSpec& spec) const override;

 private:
  LatencySearch search_;
};

// fio's latency_target job as a search (docs/fio-files.md, "latency_target"): iodepth is
// max_iodepth, latency_target the limit, latency_percentile the statistic (of lat), bisecting
// (fio ramps up by doubling and bisects down on a miss), latency_window each step's runtime.
[[nodiscard]] std::shared_ptr<const Method> latency_search_from_fio(
    const std::vector<FioMethodOption>& options, WorkloadSpec& spec,
    std::vector<std::string>& notes);

// The registry's entry for <latency-search>.
[[nodiscard]] MethodEntry latency_search_method_entry();

}  // namespace storqual::runner
