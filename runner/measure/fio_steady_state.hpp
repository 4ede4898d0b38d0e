// SPDX-License-Identifier: Apache-2.0
// fio's steady state (fio 3.33 steadystate.c; the options ss, ss_dur, ss_ramp): a job ends early
// once its IOPS or bandwidth over the last ss_dur one-second samples meet a criterion.
//
// Executive summary. Once a second, from the start of the measured time (fio: from its epoch,
// which it resets when ramp_time ends), the workload's I/Os and bytes of that second become one
// sample each, as fio's helper thread makes them (1000 x delta / elapsed milliseconds, whole
// numbers). Samples are kept from ss_ramp on (fio: its first check at or after ss_ramp + 1 s, the
// second before it). When the window of ss_dur samples is full, the criterion over it is:
//   - iops, bw: the largest |sample - mean| of the window (fio's max_deviation);
//   - iops_slope, bw_slope: the least-squares slope of the window per sample (x = 0 .. ss_dur - 1);
// as a percent of the window's mean with a limit of "N%", else in the metric's unit (I/Os or
// bytes per second). It is attained when the criterion (the slope's absolute value) is below the
// limit, strictly; the workload then ends as at its time limit. Memory: two arrays of ss_dur
// 64-bit samples; work: O(ss_dur) per second on the sampler thread, nothing per I/O.
//
// What differs from fio: fio judges each job apart unless group_reporting adds its group's jobs
// up (the example steadystate.fio does); storqual judges the workload's jobs together (its numjobs,
// a group's members), as fio with group_reporting. The report is fio's JSON "steadystate" object
// plus when it was attained (attained_at_s, measured seconds).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

struct FioSteadyState {
  bool bw = false;      // the criterion is on bandwidth (bytes/s), else on IOPS
  bool slope = true;    // least-squares slope, else the largest deviation from the mean
  bool percent = true;  // the limit is a percent of the window's mean
  double limit = 0.01;  // fio's default criterion iops_slope:0.01%
  unsigned dur_s = 0;   // ss_dur: the window in one-second samples; 0: off (fio's default)
  double ramp_s = 0;    // ss_ramp: measured seconds before the first sample
  [[nodiscard]] bool active() const noexcept { return dur_s > 0; }
  // fio's spelling of the criterion: "iops:10%", "bw_slope:1048576".
  [[nodiscard]] std::string criterion_text() const;
  bool operator==(const FioSteadyState&) const = default;
};

// The options as the suite XML and fio take them; each throws UnitError naming the option.
// ss: iops|iops_slope|bw|bw_slope:LIMIT, LIMIT "N%" (a percent of the mean), a number of I/Os per
// second, or for bw a size per second (4m). ss_dur: a duration, whole seconds (fio drops the
// rest); 0 is off. ss_ramp: a duration.
void apply_steady_state_criterion(FioSteadyState& ss, std::string_view value);
void apply_steady_state_duration(FioSteadyState& ss, std::string_view value);
void apply_steady_state_ramp(FioSteadyState& ss, std::string_view value);
// fio's options for it ("ss=iops:10%", "ss_dur=30s", "ss_ramp=10s"); empty when off.
[[nodiscard]] std::vector<std::string> steady_state_options(const FioSteadyState& ss);

// The criterion over a stream of one-second samples, as fio's steadystate_deviation and
// steadystate_slope compute it (not thread safe: the sampler thread alone feeds it).
class FioSteadyStateWindow {
 public:
  explicit FioSteadyStateWindow(FioSteadyState ss);
  // One second's I/Os and bytes per second; true once the criterion is attained (then further
  // samples are not taken).
  bool add(std::uint64_t iops, std::uint64_t bw, double measured_s);
  [[nodiscard]] bool attained() const noexcept { return report_.attained; }
  // fio's JSON "steadystate" object: the window oldest first.
  [[nodiscard]] reporting::FioSteadyStateReport report() const;

 private:
  FioSteadyState ss_;
  std::vector<std::uint64_t> iops_, bw_;  // the window's samples, oldest first
  reporting::FioSteadyStateReport report_;
};

}  // namespace storqual::runner
