// SPDX-License-Identifier: Apache-2.0
// Whether the host was busy while a workload ran: other processes competing for the CPU make a
// figure the host's as much as the device's. Sampled from procfs (the root is a parameter, so
// tests read captured trees): the host's user time (/proc/stat cpu line, user + nice) less this
// process's own (<root>/self/stat utime), the hypervisor's steal time, CPU pressure
// (/proc/pressure/cpu "some total", microseconds during which at least one task waited for a
// CPU), and, as a figure only, runnable tasks (/proc/stat procs_running) less this process's own
// running threads (<root>/self/task/*/stat, state R: job threads, io-wq workers, the sampler).
//
// Busy, by definition here (docs/measurement.md, "A busy host"):
// - other processes used at least kBusyOtherUserCpuPerCpu of every online CPU in user time on
//   average (a competitor with a busy thread per CPU gets about half of each). User time, because
//   the kernel's own work for this process's I/O (io-wq workers, a loop device's kworker, zram's
//   compression, interrupts) is system time; and not runnable counts, which two reads of procfs
//   at different moments turn into noise when this process has many threads (4 jobs at iodepth 64
//   on zram, 10 threads, read as 1.7 "other" runnable tasks on an idle 2-CPU host); or
// - steal was at least kBusyStealPct of the CPU time (a VM whose host is oversubscribed).
// CPU pressure is recorded always and named as a reason when it is at least kBusyPressurePct
// alongside one of the above (on its own it also counts this process's threads waiting for each
// other, e.g. numjobs above the CPUs).
// A claim that fails on a busy host becomes an error "host busy: ..." (runner/judge/verdict.hpp); a
// pass is annotated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

inline constexpr double kBusyOtherUserCpuPerCpu = 0.25;
inline constexpr double kBusyStealPct = 10;
inline constexpr double kBusyPressurePct = 20;

// One look at the host. `ok` false when <root>/stat could not be read.
struct HostLoadSample {
  bool ok = false;
  unsigned procs_running = 0;   // runnable tasks, the whole host
  unsigned own_running = 0;     // of those, threads of this process
  std::uint64_t cpu_total = 0;  // /proc/stat "cpu" line: every field, USER_HZ ticks
  std::uint64_t cpu_steal = 0;
  std::uint64_t cpu_user = 0;  // user + nice (guest time is inside them), the whole host
  std::uint64_t own_user = 0;  // this process's utime, all its threads
  bool has_own_user = false;
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
// `other_user_cpus`: CPUs' worth of user time other processes used (1.0 = one whole CPU).
[[nodiscard]] reporting::HostBusyReport assess_host_busy(double other_user_cpus,
                                                         double other_runnable, double steal_pct,
                                                         double pressure_pct, unsigned cpus,
                                                         unsigned samples);

// One report for a workload measured in several passes (rounds to steady state, a latency
// search, a sustained write, a SNIA PTS test): the figures averaged over the passes, weighted by
// their samples, and judged again; busy too when any one pass was ("host busy in 2 of 25 passes:
// ..."), since a figure may come from that pass alone. nullopt when no pass has a report.
[[nodiscard]] std::optional<reporting::HostBusyReport> merge_host_busy(
    const std::vector<reporting::HostBusyReport>& passes);

// "other processes used 1.10 of 2 CPUs (user time), CPU pressure 71% ..."; "" when not busy.
[[nodiscard]] std::string host_busy_reason(const reporting::HostBusyReport& report);

}  // namespace storqual::runner
