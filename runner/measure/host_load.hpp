// SPDX-License-Identifier: Apache-2.0
// Whether the host was busy while a workload ran: other processes competing for the CPU make a
// figure the host's as much as the device's. Sampled from procfs (the root is a parameter, so
// tests read captured trees): runnable tasks (/proc/stat procs_running) less this process's own
// running threads (<root>/self/task/*/stat, state R: job threads, io-wq workers, the sampler),
// the hypervisor's steal time (/proc/stat cpu line) and CPU pressure (/proc/pressure/cpu "some
// total", microseconds during which at least one task waited for a CPU).
//
// Busy, by definition here (docs/measurement.md, "A busy host"):
// - other processes kept at least kBusyOtherRunnablePerCpu runnable tasks per online CPU on
//   average over the samples (a competitor with a thread per CPU gives 1.0), or
// - steal was at least kBusyStealPct of the CPU time (a VM whose host is oversubscribed).
// CPU pressure is recorded always and named as a reason when it is at least kBusyPressurePct
// alongside one of the above (on its own it also counts this process's threads waiting for each
// other, e.g. numjobs above the CPUs).
// A claim that fails on a busy host becomes an error "host busy: ..." (runner/judge/verdict.hpp); a
// pass is annotated.
#pragma once

#include <cstdint>
#include <string>

#include "reporting/result.hpp"

namespace storqual::runner {

inline constexpr double kBusyOtherRunnablePerCpu = 0.5;
inline constexpr double kBusyStealPct = 10;
inline constexpr double kBusyPressurePct = 20;

// One look at the host. `ok` false when <root>/stat could not be read.
struct HostLoadSample {
  bool ok = false;
  unsigned procs_running = 0;   // runnable tasks, the whole host
  unsigned own_running = 0;     // of those, threads of this process
  std::uint64_t cpu_total = 0;  // /proc/stat "cpu" line: every field, USER_HZ ticks
  std::uint64_t cpu_steal = 0;
  bool has_pressure = false;
  std::uint64_t pressure_some_us = 0;  // /proc/pressure/cpu some total=
};

[[nodiscard]] HostLoadSample read_host_load(const std::string& proc_root = "/proc");

// Accumulates samples over one workload and judges them.
class HostLoadTracker {
 public:
  explicit HostLoadTracker(std::string proc_root = "/proc", unsigned cpus = 0);
  void sample(std::uint64_t now_ns);
  [[nodiscard]] reporting::HostBusyReport report() const;

 private:
  std::string root_;
  unsigned cpus_;
  HostLoadSample first_, last_;
  std::uint64_t first_ns_ = 0, last_ns_ = 0;
  double other_sum_ = 0;
  unsigned samples_ = 0;
};

// The judgement over already-summarised figures (pure: tests feed it numbers).
[[nodiscard]] reporting::HostBusyReport assess_host_busy(double other_runnable, double steal_pct,
                                                         double pressure_pct, unsigned cpus,
                                                         unsigned samples);

// "host busy: 2.0 other runnable tasks on average for 2 CPUs, CPU pressure 71%"; "" when not busy.
[[nodiscard]] std::string host_busy_reason(const reporting::HostBusyReport& report);

}  // namespace storqual::runner
