// SPDX-License-Identifier: Apache-2.0
// Sustained writes: sequential writes until a volume (a multiple of the tested range) or a time,
// then, from the timeline, the write-cache size (bytes written before throughput first drops below
// a fraction of its initial level) and the post-cache rate (the mean after the drop). A claim
// "sustained sequential write 400 MB/s" is the metric `sustained.bw`.
//
// Cache size, exactly: the initial level F is the median write bandwidth of the first
// `initial_intervals` (5) timeline intervals (a median, so that a slow first interval while the
// queue fills does not lower it); the drop interval is the first whose bandwidth is below
// F * drop_fraction and stays there (the median of it and the next two is below too: a one-
// interval hiccup that recovers is not the end of the cache); the post-cache rate S is the
// time-weighted mean of the intervals after it (the drop interval itself when it is the last). A
// last interval shorter than half the usual one counts for bytes only. Inside the drop interval
// (bytes B, length dt) the device is taken to have written at F for x seconds and at S for the
// rest, so x = (B - S*dt) / (F - S), clamped to [0, dt], and cache = bytes before the interval +
// F*x. This makes the answer independent of where the cliff falls inside an interval (the error is
// then the rate's noise, not the interval length).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/metric.hpp"
#include "model/result.hpp"
#include "reporting/method_reports.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/method.hpp"

namespace storqual::runner {

// A sustained write (fills the write cache and past it): what the timeline says about the cache.
struct SustainedWriteReport {
  std::uint64_t bytes_written = 0;  // in total, all passes
  double initial_bw = 0;            // bytes/s: median of the first intervals
  double drop_fraction = 0.5;       // the cache is "exhausted" below initial_bw * drop_fraction
  bool dropped = false;             // throughput fell below that at all
  std::uint64_t cache_bytes = 0;    // written before the drop (interpolated inside the interval)
  double cache_time_s = 0;          // when the drop happened, seconds since the start
  double post_cache_bw = 0;         // bytes/s: mean after the drop (the sustained rate)
  // What the drive's counters say the drop was: "cache cliff", "thermal throttling" (the SMART
  // log's thermal management counters rose around it), or "" when there was no drop.
  std::string drop_cause;
};

// The method's report in the result (model/method_report.hpp): kind "sustained-write", the JSON
// key "sustained" (empty when the method stopped before its analysis), the HTML box and the
// cache marker on the timeline (sustained_write_report.cpp).
class SustainedWriteMethodReport final : public reporting::MethodReport {
 public:
  std::optional<SustainedWriteReport> sustained;

  [[nodiscard]] std::string_view kind() const noexcept override { return "sustained-write"; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::AfterFioCommand;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  void timeline_marks(std::vector<reporting::TimelineMark>& marks) const override;
  [[nodiscard]] std::string measured_note(const reporting::WorkloadResult& w) const override;
  [[nodiscard]] std::shared_ptr<const reporting::MethodReport> after_throttling(
      const reporting::WorkloadResult& w) const override;
};

// The report of a sustained write, or null when `w` is not one.
[[nodiscard]] const SustainedWriteReport* sustained_write_report(
    const reporting::WorkloadResult& w) noexcept;
// Reads it back from a result's JSON (reporting/method_reports.hpp).
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_sustained_write_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

// <sustained-write volume="2x" | runtime="30m" drop="50%" .../>
struct SustainedWrite {
  double volume_factor = 0;  // > 0: write this many times the range (size); else time based
  double drop_fraction = 0.5;
  unsigned initial_intervals = 5;
};

// The analysis above over a timeline (write_bw and t_s used).
[[nodiscard]] SustainedWriteReport analyze_sustained_write(
    std::span<const reporting::TimelinePoint> timeline, double drop_fraction,
    unsigned initial_intervals);

// Runs the sustained write with `measure` (run_workload in production): with a volume, passes of
// sequential writes over the range (a last partial pass for a fractional factor, rounded down to
// bs); else one time-based run. Returns kind "sustained-write": write totals summed over the passes
// (IOPS and bandwidth over the whole time; latency summaries of the longest pass), the passes'
// timelines one after the other and `sustained` filled. Stops at the first pass with errors.
[[nodiscard]] reporting::WorkloadResult run_sustained_write(const WorkloadSpec& spec,
                                                            const SustainedWrite& how,
                                                            const RunWorkload& measure);

class SustainedWriteMethod final : public Method {
 public:
  explicit SustainedWriteMethod(SustainedWrite how) : how_(how) {}
  [[nodiscard]] const SustainedWrite& how() const noexcept { return how_; }
  [[nodiscard]] std::string_view element() const noexcept override { return "sustained-write"; }
  [[nodiscard]] bool timed() const noexcept override { return true; }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override {
    return run_sustained_write(w, how_, context.measure);
  }

 private:
  SustainedWrite how_;
};

// The registry's entry for <sustained-write volume="2x" | runtime=... drop="50%" ...>: the method
// above (run_sustained_write), sequential writes (rw=write), no ramp.
[[nodiscard]] MethodEntry sustained_write_method_entry();

// The figures it publishes (model/metric.hpp figure_table()): sustained.bw, sustained.initial_bw.
[[nodiscard]] std::span<const reporting::FigureInfo> sustained_write_figure_rows() noexcept;

}  // namespace storqual::runner
