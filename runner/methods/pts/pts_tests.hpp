// SPDX-License-Identifier: Apache-2.0
// The SNIA SSS PTS (Enterprise and Client 2.0.x) tests beyond the steady-state IOPS, throughput
// and latency tests: write saturation (WSAT), demand intensity / response-time histograms (DIRTH),
// cross-stimulus recovery (XSR) and host idle recovery (HIR). Each runs through a RunWorkload
// (run_workload in production) and returns one WorkloadResult whose `pts` holds the samples, the
// analysis and the named figures claims judge (model/metric.hpp figure_table()). docs/pts.md
// describes each test, its parameters at full scale, how --runtime-scale shortens it and what each
// figure means.
//
// WSAT: after a purge, continuous random writes (4 KiB by default) until `fills` times the range
//   or `time_limit`, one sample per interval (a minute). Figures: FOB IOPS (median of the first 5
//   samples), the saturated level (mean of the steady region, or of the last 5 samples when it
//   never settles), the drop between them, and the TGBW at the cliff
//   (runner/methods/sustained_write/sustained_write.hpp's drop analysis on the same samples: the
//   first sample below drop_fraction x FOB that stays there, interpolated inside it). The steady
//   region is the longest run of 5-sample windows that meet the PTS steady-state criteria
//   (runner/measure/steady_criteria.hpp) and reaches the last sample.
// DIRTH: the tracking point (most threads x deepest queue) in rounds until steady, then every
//   thread count x queue depth from the highest total outstanding I/O down, one round each. The
//   MaxIOPS point is the highest IOPS whose average response time is at or under the ceiling,
//   MinIOPS the least outstanding I/O (T1Q1), MidIOPS the point within the ceiling nearest to
//   halfway between them in IOPS. Each of them runs again for histogram_time with its latency
//   histogram kept, binned 1-2-5 per decade (as the PTS plots them).
// XSR: sequential writes (1024 KiB, one stream), then random writes (8 KiB), then sequential
//   again; each access group settles to the median of its last samples (the last fifth, at least
//   3); recovery is the time from the switch to the end of the first sample from which the median
//   of three samples lies within `tolerance` of that level.
// HIR: random 4 KiB writes to steady state (the WSAT stimulus), then for each wait state `cycles`
//   bursts of writes each followed by an idle wait, then a return to baseline (continuous writes)
//   before the next state. Figures: baseline IOPS (the saturation window mean), the burst IOPS of
//   the shortest and the longest wait, and the gain of the best state over the baseline.
#pragma once

#include <array>
#include <atomic>
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
#include "runner/methods/sustained_write/sustained_write.hpp"

namespace storqual::runner {

// ---- SNIA PTS tests beyond steady-state IOPS, throughput and latency
// (this file): write saturation (wsat), host idle recovery (hir), cross-stimulus
// recovery (xsr) and demand intensity / response-time histograms (dirth). ----

// One sample interval (the PTS's one-minute point, scaled with --runtime-scale).
struct PtsSample {
  double t_s = 0;          // end of the interval, seconds since the test's first write
  double tgbw = 0;         // total bytes written since the purge, at the end of the interval
  double iops = 0;         // reads + writes per second in the interval
  double bw = 0;           // bytes per second in the interval
  double lat_mean_ns = 0;  // mean completion latency in the interval
  unsigned segment = 0;    // xsr: the access group (0, 1, 2); hir: the wait state; else 0
};

// xsr: one access group; hir: one wait state (its write bursts and idle waits).
struct PtsSegment {
  std::string label;  // "SEQ 1024KiB W", "wait 10 s"
  std::string rw;
  std::uint64_t bs = 0;
  double start_s = 0, end_s = 0;  // on the samples' time axis
  double wait_s = 0;              // hir: idle after each burst (as run)
  unsigned bursts = 0;            // hir: write bursts in the state
  double mean_iops = 0, mean_bw = 0, mean_lat_ns = 0;
  double settled_bw = 0;    // xsr: the level the group settles to (median of its last samples)
  double recovery_s = -1;   // xsr: from the switch until the level is reached; < 0: never
  double settled_iops = 0;  // hir: IOPS of the bursts of the state (mean of all but the first)
};

// dirth: one point of the thread count x queue depth grid.
struct PtsGridPoint {
  unsigned threads = 1, qd = 1;
  double iops = 0;
  double lat_mean_ns = 0;  // average response time
  double lat_max_ns = 0;   // maximum response time
  bool within_ceiling = false;
};

struct PtsBin {
  double upper_ns = 0;  // the bin holds response times in (previous upper, upper]
  std::uint64_t count = 0;
};

// dirth: the response-time histogram at one chosen point.
struct PtsHistogram {
  std::string label;  // "MaxIOPS", "MidIOPS", "MinIOPS"
  unsigned threads = 1, qd = 1;
  double iops = 0;
  double lat_mean_ns = 0, lat_p99_ns = 0, lat_p99999_ns = 0, lat_max_ns = 0;
  std::vector<PtsBin> bins;
};

struct PtsReport {
  std::string test;               // wsat | hir | xsr | dirth
  std::string stimulus;           // the access pattern in the PTS's words, "RND 4KiB W T4Q32"
  double interval_s = 0;          // sample interval as run
  std::uint64_t range_bytes = 0;  // the tested range (one drive fill)
  double full_scale_s = 0;        // what the test takes at --runtime-scale 1 (upper bound)
  std::vector<PtsSample> samples;
  // wsat: the 5-round window over the samples (the steady-state region); dirth: the tracking
  // point's rounds; hir: the saturation before the wait states.
  std::optional<reporting::SteadyStateReport> steady_state;
  double steady_from_s = -1, steady_to_s = -1;  // wsat: the steady region on the time axis
  double steady_from_tgbw = -1, steady_to_tgbw = -1;
  double cliff_tgbw = -1;  // wsat: bytes written when IOPS fell off (interpolated); < 0: none
  std::vector<PtsSegment> segments;
  std::vector<PtsGridPoint> grid;
  double ceiling_ns = 0;  // dirth: the response-time ceiling of the MaxIOPS point
  std::vector<PtsHistogram> histograms;
  // The test's figures as its section lists them (wsat.iops, ...); the test publishes the same in
  // WorkloadResult::figures, which is what a claim reads.
  std::vector<reporting::Figure> figures;
};

// The test's report in the result (model/method_report.hpp): kind "pts-<test>", the JSON key
// "pts" (last), the PTS-style HTML section (pts_html.cpp); its figures are listed one verdict
// each.
class PtsMethodReport final : public reporting::MethodReport {
 public:
  PtsReport pts;
  std::string kind_text;  // "pts-wsat"

  [[nodiscard]] std::string_view kind() const noexcept override { return kind_text; }
  [[nodiscard]] reporting::ReportSlot json_slot() const noexcept override {
    return reporting::ReportSlot::Last;
  }
  void write_json(nlohmann::ordered_json& result) const override;
  void render_html(std::string& out, const reporting::RunResult& run,
                   const reporting::WorkloadResult& w) const override;
  [[nodiscard]] bool lists_figures() const noexcept override { return true; }
};

// The PTS report of a result, or null when `w` is not a PTS test's.
[[nodiscard]] const PtsReport* pts_report_of(const reporting::WorkloadResult& w) noexcept;
// Reads it back from a result's JSON (reporting/method_reports.hpp): kind "pts-...", its figures
// published again in WorkloadResult::figures.
[[nodiscard]] std::shared_ptr<const reporting::MethodReport> read_pts_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w);

enum class PtsKind { Wsat, Hir, Xsr, Dirth };

[[nodiscard]] std::string_view to_string(PtsKind k) noexcept;  // "wsat", ...

struct WsatConfig {
  double fills = 4;                 // stop after this many times the range (PTS: 4x capacity)
  double time_limit_s = 24 * 3600;  // or after this long (PTS: 24 hours), whichever first
  double interval_s = 60;           // one sample per interval (PTS: one minute)
  double drop_fraction = 0.5;       // the cliff: IOPS below FOB x this and staying there
};

struct DirthConfig {
  std::vector<unsigned> threads = {32, 16, 8, 6,
                                   4,  2,  1};  // PTS-E; the tracking point is the first
  std::vector<unsigned> depths = {32, 16, 8, 6, 4, 2, 1};
  double round_time_s = 60;
  unsigned max_rounds = 25;
  double ceiling_ns = 5e6;        // MaxIOPS: average response time at or under this
  double histogram_time_s = 600;  // each chosen point's histogram run
};

struct XsrConfig {
  std::uint64_t seq_bs = 1u << 20;  // access groups 1 and 3: SEQ 1024 KiB W
  std::uint64_t rnd_bs = 8192;      // access group 2: RND 8 KiB W
  double seq_time_s = 8 * 3600;
  double rnd_time_s = 6 * 3600;
  double interval_s = 60;
  double tolerance = 0.2;  // recovered: within 20% of the group's settled level
};

struct HirConfig {
  double burst_s = 5;
  std::vector<double> waits_s = {5, 10, 15, 25, 50};
  unsigned cycles = 360;     // bursts per wait state
  double baseline_s = 1800;  // continuous writes after each wait state
  unsigned saturation_rounds = 25;
  double round_time_s = 60;  // saturation rounds
};

// <wsat>, <dirth>, <xsr> or <hir> in a suite.
struct PtsTest {
  PtsKind kind = PtsKind::Wsat;
  WsatConfig wsat;
  DirthConfig dirth;
  XsrConfig xsr;
  HirConfig hir;
};

// Sets one attribute of `test` ("fills", "interval", "threads", ...); false when `name` is not
// one of the test's own (then it is a workload option). Throws UnitError for a bad value.
bool set_pts_attribute(PtsTest& test, std::string_view name, std::string_view value);
// The attribute names of a kind, for error messages: "fills, time_limit, interval, drop".
[[nodiscard]] std::string pts_attribute_names(PtsKind kind);

// `test` at --runtime-scale `scale`: every duration multiplied, with floors that keep each sample,
// round and burst long enough to measure (WSAT samples 0.01 s, XSR samples 0.02 s, test
// segments 0.2 s, DIRTH rounds and HIR bursts 0.05 s, HIR rounds and baselines 0.1 s); HIR's cycles
// become max(2, cycles x scale) so that the waits keep their length relative to the bursts.
[[nodiscard]] PtsTest scale_pts_test(const PtsTest& test, double scale);

// The longest the test takes as configured (a time-limited WSAT: its time limit).
[[nodiscard]] double pts_duration_s(const PtsTest& test, const WorkloadSpec& spec);

// The PTS's name of an access pattern, "RND 4KiB W T4Q32", "SEQ 1024KiB W T1Q32".
[[nodiscard]] std::string pts_stimulus(const WorkloadSpec& spec);

// How HIR waits idle for a number of seconds (the seam for a manual clock in tests).
using IdleFunction = std::function<void(double seconds)>;

// One line for `storqual suites`: the test's stimulus as it will run, e.g. "RND 8KiB R/W 65:35,
// T1..32 x Q1..32" or "SEQ 1024KiB W T1Q32, RND 8KiB W T4Q32, SEQ 1024KiB W T1Q32".
[[nodiscard]] std::string describe_pts(const PtsTest& test, const WorkloadSpec& spec);

// Runs the test over spec's target and range (spec: bs, iodepth, numjobs, rw, rwmixread as the
// suite gives them). `stop` (may be null) ends HIR's idle waits early; `idle` (empty: a real
// sleep that `stop` ends) is how it waits; HIR's time axis is the measured time plus the waits.
[[nodiscard]] reporting::WorkloadResult run_pts_test(const WorkloadSpec& spec, const PtsTest& test,
                                                     const RunWorkload& measure,
                                                     const std::atomic<bool>* stop = nullptr,
                                                     const IdleFunction& idle = {});

// ---- the analyses, pure functions over measured data (pts_analysis.cpp) ----

// The samples of a timeline, continuing `t0` and `tgbw0` (time and bytes written before it), each
// marked with `segment`; the interval's mean latency is the time-weighted mix of both directions.
[[nodiscard]] std::vector<PtsSample> pts_samples_of(std::span<const reporting::TimelinePoint> tl,
                                                    double t0, double tgbw0, unsigned segment);

// WSAT over a write timeline (t_s, write_iops, write_bw): samples, cliff, steady region, figures.
[[nodiscard]] PtsReport analyze_wsat(std::span<const reporting::TimelinePoint> timeline,
                                     const WsatConfig& config);

// DIRTH's choice of points over a grid: indexes into `grid` of MaxIOPS (none: no point within the
// ceiling), MidIOPS and MinIOPS; marks within_ceiling.
struct DirthChoice {
  std::optional<std::size_t> max_iops, mid_iops, min_iops;
};
[[nodiscard]] DirthChoice choose_dirth_points(std::vector<PtsGridPoint>& grid, double ceiling_ns);

// The response-time histogram of `buckets` in 1-2-5 bins per decade, with its percentiles.
[[nodiscard]] PtsHistogram bin_histogram(std::span<const reporting::LatencyBucket> b);

// XSR: the settled level and recovery time of samples [first, last) of one access group.
void analyze_xsr_group(std::span<const PtsSample> samples, double start_s, double tolerance,
                       PtsSegment& group);

// ---- figures a claim can name (spec sheets: <claim metric="wsat.iops" .../>): their names,
// kinds and directions are rows of model/metric.hpp's figure_table() ----
// The figure `name` of a report, or null when the run did not measure it.
[[nodiscard]] const reporting::Figure* pts_figure(const PtsReport& report,
                                                  std::string_view name) noexcept;

class PtsMethod final : public Method {
 public:
  explicit PtsMethod(PtsTest test) : test_(std::move(test)) {}
  [[nodiscard]] const PtsTest& test() const noexcept { return test_; }
  [[nodiscard]] std::string_view element() const noexcept override { return to_string(test_.kind); }
  [[nodiscard]] bool timed() const noexcept override { return true; }
  // The test's own preconditioning, as the PTS defines it, comes before its reads (docs/pts.md).
  [[nodiscard]] bool reads_need_written_data() const noexcept override { return false; }
  // Many passes: its own section says what they measured, not the last pass alone.
  [[nodiscard]] bool prints_fio_summary(const reporting::WorkloadResult& result) const override {
    return !pts_report_of(result);
  }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override {
    reporting::WorkloadResult r = run_pts_test(w, scale_pts_test(test_, context.runtime_scale),
                                               context.measure, context.direct.stop);
    if (const auto* report = dynamic_cast<const PtsMethodReport*>(r.method.get())) {
      auto scaled = std::make_shared<PtsMethodReport>(*report);
      scaled->pts.full_scale_s = pts_duration_s(test_, w);
      r.method = std::move(scaled);
    }
    return r;
  }
  // What it takes at --runtime-scale 1: "wsat      RND 4KiB W T4Q32 ..., full scale up to 24.0 h".
  [[nodiscard]] std::string summary_line(const WorkloadSpec& spec) const override {
    const double s = pts_duration_s(test_, spec);
    char full[32];
    std::snprintf(full, sizeof full, s >= 3600 ? "%.1f h" : "%.0f min",
                  s >= 3600 ? s / 3600 : s / 60);
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %s, full scale up to %s",
                  std::string(to_string(test_.kind)).c_str(), describe_pts(test_, spec).c_str(),
                  full);
    return line;
  }

 private:
  PtsTest test_;
};

// The registry's entries for <wsat>, <dirth>, <xsr> and <hir>: each test as a method, its
// stimulus (rw, bs) the PTS's before the element's own workload options; runtime and ramp_time
// are the test's own (refused as attributes).
[[nodiscard]] std::array<MethodEntry, 4> pts_method_entries();

// The figures the tests publish (model/metric.hpp figure_table(); defined in docs/pts.md).
[[nodiscard]] std::span<const reporting::FigureInfo> pts_figure_rows() noexcept;

}  // namespace storqual::runner
