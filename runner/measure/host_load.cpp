// SPDX-License-Identifier: Apache-2.0
// Busy-host sampling from procfs (see host_load.hpp).
#include "runner/measure/host_load.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "model/quantity_format.hpp"

namespace storqual::runner {
namespace {

using reporting::format_fixed;

// The state letter of a /proc/PID/task/TID/stat line: after the last ')' of the command name.
char task_state(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return '?';
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return '?';
  return line[close + 2];
}

}  // namespace

HostLoadSample read_host_load(const std::string& proc_root) {
  HostLoadSample s;
  std::ifstream stat(proc_root + "/stat");
  std::string line;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream in(line.substr(4));
      std::uint64_t v = 0;
      for (int field = 0; in >> v; ++field) {
        // user nice system idle iowait irq softirq steal guest guest_nice: guest time is
        // already in user/nice, so the sum stops at steal.
        if (field < 8) s.cpu_total += v;
        if (field < 2) s.cpu_user += v;
        if (field == 7) s.cpu_steal = v;
      }
      s.ok = true;
    } else if (line.rfind("procs_running ", 0) == 0) {
      s.procs_running = static_cast<unsigned>(std::stoul(line.substr(14)));
    }
  }
  std::ifstream pressure(proc_root + "/pressure/cpu");
  while (std::getline(pressure, line)) {
    if (line.rfind("some ", 0) != 0) continue;
    auto at = line.find("total=");
    if (at != std::string::npos) {
      s.pressure_some_us = std::stoull(line.substr(at + 6));
      s.has_pressure = true;
    }
  }
  // utime is the 14th field, the 12th after the state (which follows the command's last ')').
  std::ifstream self(proc_root + "/self/stat");
  if (std::getline(self, line)) {
    const auto close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream in(line.substr(close + 1));
      std::string field;
      for (int i = 0; i < 12 && in >> field; ++i) {
      }
      if (in && !field.empty()) {
        s.own_user = std::stoull(field);
        s.has_own_user = true;
      }
    }
  }
  const std::string tasks = proc_root + "/self/task";
  if (DIR* d = opendir(tasks.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      if (task_state(tasks + "/" + e->d_name + "/stat") == 'R') ++s.own_running;
    }
    closedir(d);
  }
  return s;
}

HostLoadTracker::HostLoadTracker(std::string proc_root, unsigned cpus)
    : root_(std::move(proc_root)), cpus_(cpus) {
  if (cpus_ == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpus_ = n > 0 ? static_cast<unsigned>(n) : 1;
  }
}

void HostLoadTracker::sample(std::uint64_t now_ns) {
  HostLoadSample s = read_host_load(root_);
  if (!s.ok) return;
  if (samples_ == 0) {
    first_ = s;
    first_ns_ = now_ns;
  }
  last_ = s;
  last_ns_ = now_ns;
  other_sum_ += s.procs_running > s.own_running ? s.procs_running - s.own_running : 0;
  ++samples_;
}

reporting::HostBusyReport HostLoadTracker::report() const {
  double other = samples_ ? other_sum_ / samples_ : 0;
  double steal = 0, pressure = 0, other_user = 0;
  if (samples_ > 1) {
    static const long kTicksPerSecond = sysconf(_SC_CLK_TCK);
    const double span_s = static_cast<double>(last_ns_ - first_ns_) / 1e9;
    if (first_.has_own_user && last_.has_own_user && span_s > 0 && kTicksPerSecond > 0) {
      const double host = static_cast<double>(last_.cpu_user - first_.cpu_user);
      const double own = static_cast<double>(last_.own_user - first_.own_user);
      other_user = std::max(0.0, host - own) / static_cast<double>(kTicksPerSecond) / span_s;
    }
    const std::uint64_t total = last_.cpu_total - first_.cpu_total;
    if (total > 0)
      steal = static_cast<double>(last_.cpu_steal - first_.cpu_steal) * 100.0 /
              static_cast<double>(total);
    if (first_.has_pressure && last_.has_pressure && last_ns_ > first_ns_)
      pressure = static_cast<double>(last_.pressure_some_us - first_.pressure_some_us) * 1e5 /
                 static_cast<double>(last_ns_ - first_ns_);
  }
  return assess_host_busy(other_user, other, steal, std::min(pressure, 100.0), cpus_, samples_);
}

reporting::HostBusyReport assess_host_busy(double other_user_cpus, double other_runnable,
                                           double steal_pct, double pressure_pct, unsigned cpus,
                                           unsigned samples) {
  reporting::HostBusyReport r;
  r.other_user_cpus = other_user_cpus;
  r.other_runnable = other_runnable;
  r.steal_pct = steal_pct;
  r.cpu_pressure_pct = pressure_pct;
  r.cpus = cpus;
  r.samples = samples;
  if (samples == 0) return r;
  if (other_user_cpus >= kBusyOtherUserCpuPerCpu * cpus)
    r.reasons.push_back("other processes used " + format_fixed(other_user_cpus, 2) + " of " +
                        std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") +
                        " (user time, on average)");
  if (steal_pct >= kBusyStealPct)
    r.reasons.push_back("steal time " + format_fixed(steal_pct, 0) + "% of the CPU time");
  r.busy = !r.reasons.empty();
  if (r.busy && pressure_pct >= kBusyPressurePct)
    r.reasons.push_back("CPU pressure " + format_fixed(pressure_pct, 0) +
                        "% (a task waited for a CPU)");
  return r;
}

std::optional<reporting::HostBusyReport> merge_host_busy(
    const std::vector<reporting::HostBusyReport>& passes) {
  if (passes.empty()) return std::nullopt;
  if (passes.size() == 1) return passes.front();
  double user = 0, runnable = 0, steal = 0, pressure = 0, weight = 0;
  unsigned cpus = 0, samples = 0, busy = 0;
  const reporting::HostBusyReport* first_busy = nullptr;
  for (const auto& p : passes) {
    const double w = p.samples;
    user += p.other_user_cpus * w;
    runnable += p.other_runnable * w;
    steal += p.steal_pct * w;
    pressure += p.cpu_pressure_pct * w;
    weight += w;
    cpus = std::max(cpus, p.cpus);
    samples += p.samples;
    if (p.busy) {
      ++busy;
      if (!first_busy) first_busy = &p;
    }
  }
  if (weight > 0) {
    user /= weight;
    runnable /= weight;
    steal /= weight;
    pressure /= weight;
  }
  reporting::HostBusyReport r = assess_host_busy(user, runnable, steal, pressure, cpus, samples);
  if (busy > 0) {
    const std::string of =
        std::to_string(busy) + " of " + std::to_string(passes.size()) + " passes";
    if (r.busy) {
      r.reasons.push_back("busy in " + of);
    } else {
      r.busy = true;
      r.reasons = {"in " + of + ": " + host_busy_reason(*first_busy)};
    }
  }
  return r;
}

std::string host_busy_reason(const reporting::HostBusyReport& report) {
  if (!report.busy) return {};
  std::string out;
  for (const auto& r : report.reasons) out += (out.empty() ? "" : ", ") + r;
  return out;
}

}  // namespace storqual::runner
