// SPDX-License-Identifier: Apache-2.0
// A sampler thread beside a workload's jobs: once per tick it looks at the host (busy or not,
// runner/measure/host_load.hpp) and, with an early-stop rule (runner/measure/early_stop.hpp), at
// the jobs' running totals; when the rule says the figure is known, it moves the jobs' end to now
// through the callback it was given (the jobs stop as at their time limit). Costs one short read of
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

#include "reporting/result.hpp"
#include "runner/measure/clock.hpp"
#include "runner/measure/early_stop.hpp"
#include "runner/measure/host_load.hpp"

namespace storqual::runner {

using NowFunction = std::uint64_t (*)() noexcept;  // as runner/measure/job_runner.hpp

class WorkloadMonitor {
 public:
  using Totals = std::function<void(std::uint64_t& ios, std::uint64_t& bytes)>;
  using StopAt = std::function<void(std::uint64_t end_ns)>;

  // `period_s`: the tick without an early-stop rule (the workload's timeline interval).
  WorkloadMonitor(NowFunction now, double period_s, std::optional<EarlyStopRule> rule,
                  std::string proc_root = "/proc");
  ~WorkloadMonitor();
  WorkloadMonitor(const WorkloadMonitor&) = delete;
  WorkloadMonitor& operator=(const WorkloadMonitor&) = delete;

  // Starts the thread. Times are on `now`'s clock; `end` may be UINT64_MAX (no time limit: no
  // early stop then).
  void start(std::uint64_t t0, std::uint64_t measure_start, std::uint64_t end, Totals totals,
             StopAt stop_at);
  // Stops and joins the thread; takes a last host sample.
  void finish();

  [[nodiscard]] bool stopped_early() const { return stopped_early_; }
  [[nodiscard]] std::uint64_t stopped_at_ns() const { return stopped_at_; }
  [[nodiscard]] reporting::HostBusyReport host_busy() const { return host_.report(); }
  // Set when a rule was given and the workload had a time limit.
  [[nodiscard]] std::optional<reporting::EarlyStopReport> early_stop() const;
  [[nodiscard]] double sample_s() const { return sample_s_; }

 private:
  void loop();

  NowFunction now_;
  std::optional<EarlyStopRule> rule_;
  double sample_s_;
  HostLoadTracker host_;
  Totals totals_;
  StopAt stop_at_;
  std::uint64_t t0_ = 0, measure_start_ = 0, end_ = 0;
  std::vector<double> series_;
  StopDecision last_;
  bool stopped_early_ = false;
  std::uint64_t stopped_at_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace storqual::runner
