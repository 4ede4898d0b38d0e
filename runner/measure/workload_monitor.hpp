// SPDX-License-Identifier: Apache-2.0
// A sampler thread beside a workload's jobs: once per tick it looks at the host (busy or not,
// runner/measure/host_load.hpp) and, with an early-stop rule (runner/measure/early_stop.hpp), at
// the jobs' running totals; when the rule says the figure is known, it moves the jobs' end to now
// through the callback it was given (the jobs stop as at their time limit). With fio's steady state
// (runner/measure/fio_steady_state.hpp) it takes that criterion's one-second samples from the same
// totals and ends the jobs the same way once it is attained. Costs one short read of
// procfs and of a few atomics per tick; nothing on the I/O path.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/result.hpp"
#include "runner/measure/clock.hpp"
#include "runner/measure/early_stop.hpp"
#include "runner/measure/fio_steady_state.hpp"
#include "runner/measure/host_load.hpp"

namespace storqual::runner {

using NowFunction = std::uint64_t (*)() noexcept;  // as runner/measure/job_runner.hpp

// How the sampler waits for its ticks. A test on a manual clock, which the job threads move
// faster than real time, polls (a short max_wait_ns) and holds the clock at the tick that
// next_tick names until the next call, so every sample falls on its tick.
struct MonitorPacing {
  std::uint64_t max_wait_ns = UINT64_MAX;  // the longest real-time wait for a tick
  // Called before the first tick and after each tick's sample with the time of the next tick;
  // may be empty.
  std::function<void(std::uint64_t next)> next_tick;
};

class WorkloadMonitor {
 public:
  // The jobs' running totals: I/Os, bytes, and bytes written.
  using Totals =
      std::function<void(std::uint64_t& ios, std::uint64_t& bytes, std::uint64_t& written)>;
  using StopAt = std::function<void(std::uint64_t end_ns)>;

  // `period_s`: the tick without an early-stop rule (the workload's timeline interval); `rule` as
  // resolve_early_stop made it for the workload.
  WorkloadMonitor(NowFunction now, double period_s, std::optional<EarlyStopRule> rule,
                  std::string proc_root = "/proc", MonitorPacing pacing = {});
  ~WorkloadMonitor();
  WorkloadMonitor(const WorkloadMonitor&) = delete;
  WorkloadMonitor& operator=(const WorkloadMonitor&) = delete;

  // Tracks fio's steady state too (before start): the tick becomes at most 1 s, so that a sample
  // falls on every measured second.
  void track_steady_state(const FioSteadyState& ss);
  // Starts the thread. Times are on `now`'s clock; `end` may be UINT64_MAX (no time limit: no
  // early stop then). `region_bytes`: the workload's region, for the rule's cover.
  void start(std::uint64_t t0, std::uint64_t measure_start, std::uint64_t end,
             std::uint64_t region_bytes, Totals totals, StopAt stop_at);
  // Stops and joins the thread; takes a last host sample.
  void finish();

  [[nodiscard]] bool stopped_early() const { return stopped_early_ || ss_stopped_; }
  [[nodiscard]] std::uint64_t stopped_at_ns() const { return stopped_at_; }
  [[nodiscard]] reporting::HostBusyReport host_busy() const { return host_.report(); }
  // Set when a rule was given and the workload had a time limit.
  [[nodiscard]] std::optional<reporting::EarlyStopReport> early_stop() const;
  // Set when fio's steady state was tracked.
  [[nodiscard]] std::optional<reporting::FioSteadyStateReport> steady_state() const;
  [[nodiscard]] double sample_s() const { return sample_s_; }

 private:
  void loop();
  void sample(std::uint64_t t);  // one tick: the host, and the early-stop series
  void sample_steady_state(std::uint64_t t, std::uint64_t ios, std::uint64_t bytes);

  NowFunction now_;
  std::optional<EarlyStopRule> rule_;
  double sample_s_;
  HostLoadTracker host_;
  Totals totals_;
  StopAt stop_at_;
  MonitorPacing pacing_;
  std::uint64_t t0_ = 0, measure_start_ = 0, end_ = 0, region_bytes_ = 0;
  std::vector<double> series_;
  double region_passes_ = 0;  // written in the measured time, over region_bytes_
  std::uint64_t prev_ios_ = 0, prev_bytes_ = 0, prev_t_ = 0, first_written_ = 0;
  bool based_ = false;  // a first measured sample was taken (the base of the differences)
  StopDecision last_;
  bool stopped_early_ = false;
  std::uint64_t stopped_at_ = 0;
  // fio's steady state: its window, the next whole measured second, the last sample's totals.
  std::optional<FioSteadyStateWindow> ss_;
  double ss_ramp_s_ = 0;
  std::uint64_t ss_next_ = 0, ss_prev_t_ = 0, ss_prev_ios_ = 0, ss_prev_bytes_ = 0;
  bool ss_based_ = false, ss_stopped_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace storqual::runner
