// SPDX-License-Identifier: Apache-2.0
// Whether the host, not the device, limited a workload: a job thread that kept a CPU busy
// (cpu.max_thread_pct >= 90%), job threads that waited for a CPU (cpu.wait_pct >= 20% and ready
// twice as long as they ran: a host shared by several targets or other processes), IOPS at or above
// 80% of what the engine alone achieves with the null engine at the same iodepth/numjobs (its
// "ceiling"), and, for NVMe/PCIe devices, the PCIe link (sysfs current_link_speed/width and max_*)
// against the bandwidth a claim needs. A claim that fails while its workload was host-limited
// becomes an error verdict with a "host-limited:" prefix (runner/judge/verdict.hpp), not a device
// failure.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/metric.hpp"
#include "model/result.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

inline constexpr double kHostCpuLimitPct =
    reporting::kCpuBoundThreadPct;  // one job thread's usr+sys, of one CPU
// All job threads together, of all the CPUs the process may run on: 4 jobs on a 2-CPU host can
// each sit at 50% while the host has nothing left.
inline constexpr double kHostAllCpusLimitPct = 90;
inline constexpr double kEngineCeilingFraction = 0.8;  // of the null engine's IOPS
// The job threads waited in the run queue for at least this share of their time, and were ready
// to run at least kHostCpuWaitFactor times as long as they ran (a CPU for at most half the time
// they asked for one): the host's CPUs (another target of a `run --parallel`, other processes) set
// the pace, not the device. A thread that waited a fifth of the time but got its CPU most of the
// time it asked (a test machine running two jobs) is not limited.
inline constexpr double kHostCpuWaitPct = 20;
inline constexpr double kHostCpuWaitFactor = 2;

struct PcieLink {
  std::string speed;   // "8.0 GT/s PCIe"
  unsigned width = 0;  // lanes
  std::string max_speed;
  unsigned max_width = 0;
  double bw_bytes = 0;  // usable bytes/s of the current link after line encoding
};

// Bytes per second a link carries: GT/s x lanes x encoding (8b/10b up to 5 GT/s, 128b/130b
// from 8 GT/s) / 8. 0 when the speed cannot be parsed ("Unknown").
[[nodiscard]] double pcie_link_bandwidth(std::string_view speed, unsigned width);

// The link of block device `block` ("nvme0n1"): the first of <root>/block/<block>/device,
// .../device/device that has current_link_speed. Empty when none has (not PCIe, or a VM).
[[nodiscard]] std::optional<PcieLink> read_pcie_link(const std::string& sysfs_root,
                                                     const std::string& block);

// The null engine's IOPS at the workload's iodepth and numjobs (with its rw and bs), measured once
// per (iodepth, numjobs) for `probe_seconds` with `measure` (run_workload in production) and
// remembered: the null engine's cost per I/O hardly depends on rw or bs (it moves no data).
class EngineCeiling {
 public:
  explicit EngineCeiling(RunWorkload measure, double probe_seconds = 0.2)
      : measure_(std::move(measure)), probe_seconds_(probe_seconds) {}
  // 0 when the probe failed, and for a group of jobs (not measured).
  [[nodiscard]] double iops(const WorkloadSpec& workload);

 private:
  RunWorkload measure_;
  double probe_seconds_;
  std::map<std::pair<unsigned, unsigned>, double> known_;
};

// The report for one result: limited when the CPU or ceiling rule holds; the link is recorded
// (it matters to bandwidth claims, which verdicts compare against it).
// `host_cpus`: the CPUs the job threads may use (0: this process's affinity mask).
[[nodiscard]] reporting::HostLimitReport assess_host_limit(const reporting::WorkloadResult& r,
                                                           double ceiling_iops,
                                                           const std::optional<PcieLink>& link,
                                                           unsigned host_cpus = 0);

}  // namespace storqual::runner
