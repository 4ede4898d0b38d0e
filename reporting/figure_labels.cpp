// SPDX-License-Identifier: Apache-2.0
// Words for what each figure is (see figure_labels.hpp).
#include "reporting/figure_labels.hpp"

#include <cmath>
#include <cstdio>

#include "model/metric.hpp"

namespace storqual::reporting {
namespace {

bool mixed(const WorkloadParams& p) {
  return p.rw == "randrw" || p.rw == "rw" || p.rw == "readwrite";
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", std::round(s * 100) / 100);
  return buf;
}

// "read", "write" or "read+write": what a metric without a direction prefix covers on `w`.
std::string sides(const WorkloadResult& w) {
  if (w.read && w.write) return "read+write";
  if (w.write) return "write";
  if (w.read) return "read";
  return mixed(w.params)                                    ? "read+write"
         : (w.params.rw.find("write") != std::string::npos) ? "write"
                                                            : "read";
}

}  // namespace

std::string jobs_text(unsigned numjobs) {
  return std::to_string(numjobs) + (numjobs == 1 ? " job" : " jobs");
}

std::string throughput_definition(std::string_view direction, const WorkloadResult& w) {
  return std::string(direction) + ", sum over " + jobs_text(w.params.numjobs) + ", mean over " +
         seconds_text(w.elapsed_s);
}

std::string latency_stat_definition(std::string_view stat) {
  // "lat.p99", "clat.mean"; a bare "p99" or "mean" (results written before the latency was
  // named) is of lat.
  std::string_view kind = "lat", statistic = stat.empty() ? "mean" : stat;
  if (const auto dot = stat.find('.'); dot != std::string_view::npos) {
    kind = stat.substr(0, dot);
    statistic = stat.substr(dot + 1);
  }
  const std::string what = kind == "clat" ? "clat (completion only, submission excluded)"
                                          : "lat (submission to completion)";
  return std::string(statistic) + " of " + what;
}

std::string offset_pattern(const WorkloadParams& p) {
  if (p.rw.rfind("rand", 0) != 0) return "";
  return p.randommap ? "random map (each block once per pass)"
                     : "norandommap (drawn with replacement)";
}

std::string metric_definition(std::string_view metric, const WorkloadResult& w) {
  const auto name = parse_metric_name(metric);
  if (!name) return std::string(metric);  // a name of another version, shown as it is
  // A named figure (sustained.bw, capacity, wsat.iops, ...): the definition its row gives.
  if (name->figure) {
    std::string out(name->figure->help);
    if (const auto at = out.find("{jobs}"); at != std::string::npos)
      out.replace(at, 6, jobs_text(w.params.numjobs));
    return out;
  }
  const std::string covered = name->direction == MetricDirection::Read    ? "read"
                              : name->direction == MetricDirection::Write ? "write"
                                                                          : sides(w);
  std::string out;
  if (name->kind == MetricKind::Iops || name->kind == MetricKind::Bandwidth) {
    out = covered + (name->kind == MetricKind::Iops ? " IOPS" : " bandwidth") + ", sum over " +
          jobs_text(w.params.numjobs) + ", mean over " + seconds_text(w.elapsed_s);
  } else {
    const bool clat = name->latency == LatencyKind::Clat;
    out = latency_stat_definition(std::string(clat ? "clat." : "lat.") + std::string(name->stat)) +
          " over every " + (covered == "read+write" ? std::string("read and write") : covered) +
          " I/O of " + jobs_text(w.params.numjobs);
    if (name->stat != "mean" && covered == "read+write") out += ", the worse of read and write";
  }
  if (w.method) out += w.method->figure_note(w);  // a latency search's chosen depth
  return out;
}

const std::vector<std::pair<std::string, std::string>>& glossary() {
  static const std::vector<std::pair<std::string, std::string>> terms = {
      {"IOPS",
       "I/Os completed per second over the measured time (after ramp_time), summed over "
       "the workload's jobs; per direction unless it says read+write"},
      {"read+write",
       "both directions together: a mixed workload's `iops` and `bw` claims judge "
       "this sum"},
      {"BW", "bytes per second, the same aggregation as IOPS; MB/s is 10^6 bytes/s, MiB/s 2^20"},
      {"sum over N jobs", "the figure adds the jobs' own figures (fio's group_reporting)"},
      {"per-job average", "the jobs' figure divided by the number of jobs (fio's cpu line)"},
      {"slat", "submission latency: from the I/O being prepared to the submit call returning"},
      {"clat", "completion latency: from submission to completion (what many vendors quote)"},
      {"lat", "total latency, slat + clat: submission to completion (fio's lat)"},
      {"mean, pNN",
       "the mean, or the NN-th percentile, over every I/O counted (all jobs); a "
       "percentile of read+write is the worse of the two directions"},
      {"interval",
       "the timeline's sampling period (log_avg_msec, default 1 s); bw/iops "
       "min/max/avg are over intervals, a last interval under half a period is "
       "dropped"},
      {"random map",
       "random offsets visit every block once per pass (fio's default); "
       "norandommap draws with replacement"},
      {"IO depths", "submissions by the requests in flight once submitted (fio's buckets)"},
      {"Disk stats",
       "the device's own counters from /sys/block/DEV/stat over the workload; util "
       "is the share of wall time with I/O in flight"},
      {"mean of N workloads", "an aggregate claim: the plain mean of each workload's figure"},
  };
  return terms;
}

}  // namespace storqual::reporting
