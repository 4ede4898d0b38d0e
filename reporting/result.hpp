// SPDX-License-Identifier: Apache-2.0
// The result model: plain structs, no behaviour. The runner fills it, every report reads it and
// `storqual report` loads it back from JSON. Identity and health arrive as (field, value, source)
// rows so that reporting needs nothing from devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace storqual::reporting {

// Exact summary statistics plus histogram percentiles of one latency kind (slat, clat or lat).
struct LatencySummary {
  std::uint64_t samples = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  double mean_ns = 0;
  double stdev_ns = 0;
  // (percentile, value in ns) at fio's default list: 1,5,10,20,30,40,50,60,70,80,90,95,99,
  // 99.5,99.9,99.95,99.99. Values come from the log-linear histogram (see
  // runner/latency_histogram.hpp for the error bound).
  std::vector<std::pair<double, std::uint64_t>> percentiles;
};

struct DirectionResult {
  std::uint64_t ios = 0;    // completed I/Os counted (after ramp)
  std::uint64_t bytes = 0;  // bytes counted (after ramp)
  double iops = 0;
  double bw_bytes = 0;  // bytes per second
  LatencySummary slat, clat, lat;
  std::uint64_t errors = 0;
  int first_errno = 0;  // 0 when no error
  std::uint64_t first_error_offset = 0;
  std::uint64_t short_ios = 0;  // transfers shorter than asked
};

// One interval of the timeline (default 1 s). Values are for that interval alone.
struct TimelinePoint {
  double t_s = 0;  // end of the interval, seconds since the measured part began
  double read_iops = 0, write_iops = 0;
  double read_bw = 0, write_bw = 0;                    // bytes per second
  double read_lat_mean_ns = 0, write_lat_mean_ns = 0;  // mean clat in the interval
};

struct CpuUsage {
  double usr_pct = 0;  // of one CPU, over the measured wall time, all job threads together
  double sys_pct = 0;
  double max_thread_pct = 0;  // the busiest job thread (usr+sys) as a share of one CPU
};

// fio's vocabulary. Sizes in bytes, durations in seconds.
struct WorkloadParams {
  std::string rw = "randread";  // read|write|randread|randwrite|rw|randrw
  std::uint64_t bs = 4096;
  unsigned iodepth = 1;
  unsigned numjobs = 1;
  double runtime_s = 0;  // 0: cover `size` once
  double ramp_time_s = 0;
  std::uint64_t size = 0;  // 0: the whole target from offset
  std::uint64_t offset = 0;
  unsigned rwmixread = 50;
  std::string ioengine = "io_uring";
  bool direct = true;
  std::string target;
};

// One step of a latency-bounded search: the workload at one iodepth.
struct LatencyCurvePoint {
  unsigned iodepth = 1;
  double iops = 0;
  double latency_ns = 0;  // the searched statistic (mean or percentile of lat), -1 if none
  bool within_limit = false;
};

struct WorkloadResult {
  std::string id;
  std::string kind = "workload";  // workload | latency-search | ...
  WorkloadParams params;
  std::optional<DirectionResult> read;   // present when the workload reads
  std::optional<DirectionResult> write;  // present when the workload writes
  CpuUsage cpu;
  double elapsed_s = 0;  // measured wall time (after ramp)
  std::vector<TimelinePoint> timeline;
  std::vector<std::string> errors;  // human-readable; non-empty means the workload is in error
  bool interrupted = false;
  std::string fio_command;  // the equivalent fio command line
  // Set when the workload ran to steady state (SNIA PTS rounds): false is reported as "not steady".
  std::optional<bool> steady;
  // kind == "latency-search": every step (sorted by iodepth), the limit and the statistic; the
  // result itself is the step with the highest IOPS within the limit.
  std::vector<LatencyCurvePoint> latency_curve;
  double latency_limit_ns = 0;
  std::string latency_stat;  // "mean", "p99", ...
};

// One (field, value, source) row, e.g. ("model", "Samsung SSD 870", "udev:ID_MODEL").
struct FieldRow {
  std::string field;
  std::string value;
  std::string source;
};

struct DeviceReport {
  std::string name;  // e.g. "loop3" or "scratch file /work/x (on vda)"
  std::string path;  // target path as given
  std::vector<FieldRow> identity;
  std::vector<FieldRow> health_before;  // empty when the device has no health log
  std::vector<FieldRow> health_after;
  std::vector<std::string> health_changes;  // "media errors 0 -> 3", ... (what matters)
};

struct SpecReport {
  std::string name;
  std::string vendor;
  std::string source;
  std::string path;
  std::string sha256;
  std::string suite;  // suite name
  std::string suite_path;
};

enum class VerdictStatus { Pass, Fail, Error, Skipped, MeasuredOnly };

struct ClaimVerdict {
  std::string workload;  // id, or space-separated ids for an aggregate claim
  std::string metric;    // iops, read.bw, lat.p99, ...
  VerdictStatus status = VerdictStatus::MeasuredOnly;
  std::optional<double> measured;  // in the metric's base unit: IOPS, bytes/s or ns
  std::optional<double> claimed;
  std::string unit;  // "IOPS", "B/s", "ns"
  double tolerance_pct = 0;
  std::optional<double> diff_pct;  // (measured - claimed) / claimed * 100
  std::string message;             // carries both numbers, the difference and the tolerance
  double time_s = 0;               // time spent measuring the workload(s)
};

struct Environment {
  std::string host;
  std::string kernel;
  std::string cpu_model;
  unsigned cpus = 0;
  std::string storqual_version;
  std::string command_line;
  std::string start_utc;  // ISO 8601, e.g. 2026-11-29T18:23:56Z
  std::string end_utc;
};

struct RunResult {
  Environment environment;
  DeviceReport device;
  SpecReport spec;
  std::vector<WorkloadResult> workloads;
  std::vector<ClaimVerdict> verdicts;
  int exit_code = 0;
};

}  // namespace storqual::reporting
