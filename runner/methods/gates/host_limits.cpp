// SPDX-License-Identifier: Apache-2.0
// Host-limit detection (see host_limits.hpp).
#include "runner/methods/gates/host_limits.hpp"

#include <sched.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace storqual::runner {
namespace {

std::string read_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

unsigned read_unsigned(const std::filesystem::path& p) {
  std::string s = read_line(p);
  unsigned v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The kernel prints "Unknown" (or "Unknown speed") for a speed it cannot decode, width 0 for a
// link that is down or virtual, and 255 where the register reads all ones (a device behind an
// emulated or absent link): none of them is a link to report or to compute a bandwidth from.
std::string link_speed(std::string s) {
  if (s.empty() || s.starts_with("Unknown") || s.starts_with("unknown")) return "";
  return s;
}
unsigned link_width(unsigned w) {
  return (w == 0 || w >= 255) ? 0 : w;
}

double total_iops(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->iops : 0) + (r.write ? r.write->iops : 0);
}

}  // namespace

double pcie_link_bandwidth(std::string_view speed, unsigned width) {
  double gts = 0;
  auto [p, ec] = std::from_chars(speed.data(), speed.data() + speed.size(), gts);
  if (ec != std::errc() || gts <= 0 || width == 0) return 0;
  const double encoding = gts <= 5.0 + 1e-9 ? 8.0 / 10.0 : 128.0 / 130.0;
  return gts * 1e9 * encoding * width / 8.0;
}

std::optional<PcieLink> read_pcie_link(const std::string& sysfs_root, const std::string& block) {
  namespace fs = std::filesystem;
  fs::path dev = fs::path(sysfs_root) / "block" / block / "device";
  for (fs::path d : {dev, dev / "device"}) {
    std::error_code ec;
    if (!fs::exists(d / "current_link_speed", ec)) continue;
    PcieLink link;
    link.speed = link_speed(read_line(d / "current_link_speed"));
    link.width = link_width(read_unsigned(d / "current_link_width"));
    link.max_speed = link_speed(read_line(d / "max_link_speed"));
    link.max_width = link_width(read_unsigned(d / "max_link_width"));
    link.bw_bytes = pcie_link_bandwidth(link.speed, link.width);
    if (link.speed.empty() && link.width == 0 && link.max_speed.empty() && link.max_width == 0)
      return std::nullopt;  // a virtual function or emulated device: no link to speak of
    return link;
  }
  return std::nullopt;
}

double EngineCeiling::iops(const WorkloadSpec& workload) {
  // A group's jobs differ in depth and engine: no one null-engine probe stands for them.
  if (!workload.jobs.empty()) return 0;
  const auto& p = workload.params;
  auto key = std::make_pair(p.iodepth, p.numjobs);
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  WorkloadSpec probe = workload;
  probe.id = workload.id + " (engine ceiling)";
  probe.params.ioengine = "null";
  probe.params.runtime_s = probe_seconds_;
  probe.params.ramp_time_s = 0;
  probe.params.size = 0;
  probe.params.offset = 0;
  probe.params.target = "null";
  probe.rate_iops = 0;
  probe.rate_bytes = 0;
  probe.interval_s = probe_seconds_;
  double v = 0;
  try {
    reporting::WorkloadResult r = measure_(probe);
    if (r.errors.empty()) v = total_iops(r);
  } catch (const std::exception&) {
    v = 0;
  }
  known_.emplace(key, v);
  return v;
}

reporting::HostLimitReport assess_host_limit(const reporting::WorkloadResult& r,
                                             double ceiling_iops,
                                             const std::optional<PcieLink>& link,
                                             unsigned host_cpus) {
  if (host_cpus == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    host_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (host_cpus == 0) host_cpus = 1;
  }
  reporting::HostLimitReport h;
  h.max_thread_cpu_pct = r.cpu.max_thread_pct;
  h.engine_ceiling_iops = ceiling_iops;
  char buf[160];
  if (r.cpu.max_thread_pct >= kHostCpuLimitPct) {
    std::snprintf(buf, sizeof buf, "job thread CPU %.0f%%", r.cpu.max_thread_pct);
    h.reasons.emplace_back(buf);
  }
  const double all_pct = (r.cpu.usr_pct + r.cpu.sys_pct) / host_cpus;
  if (host_cpus > 0 && all_pct >= kHostAllCpusLimitPct) {
    std::snprintf(buf, sizeof buf, "job threads together use %.0f%% of the host's %u CPU%s",
                  all_pct, host_cpus, host_cpus == 1 ? "" : "s");
    h.reasons.emplace_back(buf);
  }
  h.cpu_wait_pct = r.cpu.wait_pct;
  // Per job thread: the share of the time it ran, against the share it waited to.
  const double jobs = r.params.numjobs ? static_cast<double>(r.params.numjobs) : 1.0;
  const double ran_pct = (r.cpu.usr_pct + r.cpu.sys_pct) / jobs;
  if (r.cpu.wait_pct > 0) h.cpu_wait_factor = ran_pct > 0 ? 1 + r.cpu.wait_pct / ran_pct : 1e9;
  if (r.cpu.wait_pct >= kHostCpuWaitPct && h.cpu_wait_factor >= kHostCpuWaitFactor) {
    std::snprintf(buf, sizeof buf,
                  "job threads waited for a CPU %.0f%% of the time (run queue; ready %.1fx as "
                  "long as they ran)",
                  r.cpu.wait_pct, h.cpu_wait_factor);
    h.cpu_wait_reason = buf;
    h.reasons.emplace_back(buf);
  }
  const double iops = total_iops(r);
  if (ceiling_iops > 0 && iops >= kEngineCeilingFraction * ceiling_iops) {
    std::snprintf(buf, sizeof buf,
                  "IOPS at %.0f%% of the engine's own ceiling (%.0f IOPS with the null engine)",
                  iops / ceiling_iops * 100, ceiling_iops);
    h.reasons.emplace_back(buf);
  }
  if (link) {
    h.link_speed = link->speed;
    h.link_width = link->width;
    h.max_link_speed = link->max_speed;
    h.max_link_width = link->max_width;
    h.link_bw_bytes = link->bw_bytes;
  }
  h.limited = !h.reasons.empty();
  return h;
}

}  // namespace storqual::runner
