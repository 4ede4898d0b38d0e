// SPDX-License-Identifier: Apache-2.0
// The sampler beside a workload (see workload_monitor.hpp).
#include "runner/measure/workload_monitor.hpp"

#include <algorithm>
#include <chrono>

namespace storqual::runner {

WorkloadMonitor::WorkloadMonitor(NowFunction now, double period_s,
                                 std::optional<EarlyStopRule> rule, std::string proc_root)
    : now_(now), rule_(std::move(rule)), host_(std::move(proc_root)) {
  sample_s_ = std::max(0.01, period_s);
  if (rule_) sample_s_ = rule_->sample_s > 0 ? rule_->sample_s : std::min(0.25, sample_s_);
}

WorkloadMonitor::~WorkloadMonitor() {
  finish();
}

void WorkloadMonitor::start(std::uint64_t t0, std::uint64_t measure_start, std::uint64_t end,
                            Totals totals, StopAt stop_at) {
  t0_ = t0;
  measure_start_ = measure_start;
  end_ = end;
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
  std::uint64_t prev_ios = 0, prev_bytes = 0, prev_t = 0;
  bool based = false;
  while (true) {
    const std::uint64_t now = now_();
    if (next > now) {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::nanoseconds(next - now), [this] { return done_; }))
        return;
    } else {
      std::lock_guard lock(mutex_);
      if (done_) return;
    }
    const std::uint64_t t = now_();
    next += tick_ns;
    if (next <= t) next = t + tick_ns;  // a late tick (a loaded host) does not make a burst
    host_.sample(t);
    if (!rule_ || t < measure_start_ || stopped_early_) continue;
    std::uint64_t ios = 0, bytes = 0;
    totals_(ios, bytes);
    if (based && t > prev_t) {
      const double dt = static_cast<double>(t - prev_t) / 1e9;
      const double v =
          static_cast<double>(rule_->metric == "bw" ? bytes - prev_bytes : ios - prev_ios) / dt;
      series_.push_back(v);
      if (t < end_) {
        last_ = decide_early_stop(series_, sample_s_, *rule_);
        if (last_.stop) {
          stopped_early_ = true;
          stopped_at_ = t;
          stop_at_(t);
        }
      }
    }
    based = true;
    prev_ios = ios;
    prev_bytes = bytes;
    prev_t = t;
  }
}

std::optional<reporting::EarlyStopReport> WorkloadMonitor::early_stop() const {
  if (!rule_) return std::nullopt;
  StopDecision d = stopped_early_ ? last_ : decide_early_stop(series_, sample_s_, *rule_);
  return early_stop_report(*rule_, d, stopped_early_, sample_s_);
}

}  // namespace storqual::runner
