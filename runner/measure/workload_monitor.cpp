// SPDX-License-Identifier: Apache-2.0
// The sampler beside a workload (see workload_monitor.hpp).
#include "runner/measure/workload_monitor.hpp"

#include <algorithm>
#include <chrono>

namespace storqual::runner {

WorkloadMonitor::WorkloadMonitor(NowFunction now, double period_s,
                                 std::optional<EarlyStopRule> rule, std::string proc_root,
                                 MonitorPacing pacing)
    : now_(now), rule_(std::move(rule)), host_(std::move(proc_root)), pacing_(std::move(pacing)) {
  sample_s_ = std::max(0.01, period_s);
  if (rule_) sample_s_ = rule_->sample_s > 0 ? rule_->sample_s : std::min(0.25, sample_s_);
}

void WorkloadMonitor::track_steady_state(const FioSteadyState& ss) {
  if (!ss.active()) return;
  ss_.emplace(ss);
  ss_ramp_s_ = ss.ramp_s;
  sample_s_ = std::min(sample_s_, 1.0);
}

WorkloadMonitor::~WorkloadMonitor() {
  finish();
}

void WorkloadMonitor::start(std::uint64_t t0, std::uint64_t measure_start, std::uint64_t end,
                            std::uint64_t region_bytes, Totals totals, StopAt stop_at) {
  t0_ = t0;
  measure_start_ = measure_start;
  end_ = end;
  region_bytes_ = region_bytes;
  totals_ = std::move(totals);
  stop_at_ = std::move(stop_at);
  if (end_ == UINT64_MAX) rule_.reset();  // no time limit, nothing to stop early
  host_.sample(now_());
  thread_ = std::thread([this] { loop(); });
}

void WorkloadMonitor::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
  host_.sample(now_());
}

void WorkloadMonitor::loop() {
  const auto tick_ns = static_cast<std::uint64_t>(sample_s_ * 1e9);
  // Ticks fall on measure_start + k * tick, so that the early-stop series starts with the
  // measurement; the ramp before it is sampled for the host only.
  std::uint64_t next = measure_start_;
  while (next > t0_ + tick_ns) next -= tick_ns;
  if (pacing_.next_tick) pacing_.next_tick(next);
  while (true) {
    const std::uint64_t now = now_();
    if (next > now) {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::nanoseconds(std::min(next - now, pacing_.max_wait_ns)),
                         [this] { return done_; }))
        return;
      if (now_() < next) continue;  // a short wait (pacing) before the tick
    } else {
      std::lock_guard lock(mutex_);
      if (done_) return;
    }
    const std::uint64_t t = now_();
    next += tick_ns;
    if (next <= t) next = t + tick_ns;  // a late tick (a loaded host) does not make a burst
    sample(t);
    if (pacing_.next_tick) pacing_.next_tick(next);
  }
}

void WorkloadMonitor::sample(std::uint64_t t) {
  host_.sample(t);
  if ((!rule_ && !ss_) || t < measure_start_ || stopped_early()) return;
  std::uint64_t ios = 0, bytes = 0, written = 0;
  totals_(ios, bytes, written);
  if (ss_) sample_steady_state(t, ios, bytes);
  if (!rule_ || stopped_early()) return;
  if (!based_) first_written_ = written;
  if (region_bytes_ > 0)
    region_passes_ =
        static_cast<double>(written - first_written_) / static_cast<double>(region_bytes_);
  if (based_ && t > prev_t_) {
    const double dt = static_cast<double>(t - prev_t_) / 1e9;
    const double v =
        static_cast<double>(rule_->metric == "bw" ? bytes - prev_bytes_ : ios - prev_ios_) / dt;
    series_.push_back(v);
    if (t < end_) {
      last_ = decide_early_stop(series_, sample_s_, *rule_, region_passes_);
      if (last_.stop) {
        stopped_early_ = true;
        stopped_at_ = t;
        stop_at_(t);
      }
    }
  }
  based_ = true;
  prev_ios_ = ios;
  prev_bytes_ = bytes;
  prev_t_ = t;
}

// fio's steadystate_check, once a second: the second's rates as whole numbers
// (1000 x delta / elapsed ms), kept from the first check at or after ss_ramp + 1 s on.
// The base is the first tick of the measured time (fio: its epoch, reset when ramp_time ends).
void WorkloadMonitor::sample_steady_state(std::uint64_t t, std::uint64_t ios, std::uint64_t bytes) {
  if (!ss_based_) {
    ss_based_ = true;
    ss_next_ = measure_start_ + 1000000000;
    while (ss_next_ <= t) ss_next_ += 1000000000;
    ss_prev_t_ = t;
    ss_prev_ios_ = ios;
    ss_prev_bytes_ = bytes;
    return;
  }
  if (t < ss_next_) return;
  while (ss_next_ <= t) ss_next_ += 1000000000;
  const std::uint64_t ms = (t - ss_prev_t_) / 1000000;
  const double measured_s = static_cast<double>(t - measure_start_) / 1e9;
  if (ms > 0 && (ss_ramp_s_ <= 0 || measured_s >= ss_ramp_s_ + 1) &&
      ss_->add(1000 * (ios - ss_prev_ios_) / ms, 1000 * (bytes - ss_prev_bytes_) / ms,
               measured_s) &&
      t < end_) {
    ss_stopped_ = true;
    stopped_at_ = t;
    stop_at_(t);
  }
  ss_prev_t_ = t;
  ss_prev_ios_ = ios;
  ss_prev_bytes_ = bytes;
}

std::optional<reporting::FioSteadyStateReport> WorkloadMonitor::steady_state() const {
  if (!ss_) return std::nullopt;
  return ss_->report();
}

std::optional<reporting::EarlyStopReport> WorkloadMonitor::early_stop() const {
  if (!rule_) return std::nullopt;
  StopDecision d =
      stopped_early_ ? last_ : decide_early_stop(series_, sample_s_, *rule_, region_passes_);
  return early_stop_report(*rule_, d, stopped_early_, sample_s_, region_passes_);
}

}  // namespace storqual::runner
