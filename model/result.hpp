// SPDX-License-Identifier: Apache-2.0
// The result model: plain structs, no behaviour. The runner fills it, every report reads it and
// `storqual report` loads it back from JSON. Identity and health arrive as (field, value, source)
// rows so that reporting needs nothing from devices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/method_report.hpp"

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
  // runner/measure/latency_histogram.hpp for the error bound).
  std::vector<std::pair<double, std::uint64_t>> percentiles;
};

// The I/Os of one size that a direction of a workload with a block-size mix completed.
struct BlockSizeCount {
  std::uint64_t bs = 0;
  std::uint64_t ios = 0;
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
  std::uint64_t short_ios = 0;       // transfers shorter than asked
  std::uint64_t eagain_retries = 0;  // requests the engine or device sent back with EAGAIN, resent
  // With a block-size mix (WorkloadParams::bs_mix): the I/Os counted, by size, smallest first.
  std::optional<std::vector<BlockSizeCount>> block_sizes;
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
  double max_thread_pct = 0;  // the busiest job thread (usr+sys, polling excluded), of one CPU
  double spin_pct = 0;        // of usr+sys, time spent polling for completions (spin_wait)
  // Of the job threads' time, runnable but waiting for a CPU (the run queue); < 0: not known.
  double wait_pct = -1;
  // The whole process (every thread: io-wq workers, other targets' jobs of a `run --parallel`),
  // of one CPU, while the jobs ran: I/Os per CPU-second = IOPS / (process_pct / 100) for one
  // target. 0: not measured.
  double process_pct = 0;
  // io_uring: whether the jobs polled for completions, and why (runner/measure/poll_budget.hpp).
  std::string poll;
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
  // Random offsets: true (fio's default random map) visits every block once per pass in a random
  // order (runner/measure/random_map.hpp); false (fio's norandommap) draws each offset
  // independently, with replacement.
  bool randommap = true;
  std::string target;
  // A block-size mix, as the workload option says it ("bssplit=4k/10:64k/90", "bsrange=4k-64k";
  // runner/measure/block_size_mix.hpp); absent: every I/O is bs.
  std::optional<std::string> bs_mix;
  // Skewed random offsets, as the workload option says them ("zipf:1.2"); absent: uniform.
  std::optional<std::string> random_distribution;
};

// One round of a workload run to steady state (SNIA PTS): the tracked value of that round and
// whether the window ending at it met the criteria (false while fewer than `window` rounds ran).
struct SteadyStateRound {
  double value = 0;      // the tracked metric of the round (IOPS, bytes/s or ns)
  double elapsed_s = 0;  // measured time of the round
  bool steady = false;   // the window of the last `window` rounds, ending here, is steady
};

// SNIA PTS steady state: rounds until, over the last `window` rounds, the range is at most
// range_limit_pct of the window's mean and the least-squares slope (per round) times the window
// length is at most slope_limit_pct of the mean; or `max_rounds` ran and it is "not steady".
struct SteadyStateReport {
  std::string metric = "iops";  // the tracked variable: iops, bw or lat.mean
  std::vector<SteadyStateRound> rounds;
  unsigned max_rounds = 25;
  unsigned window = 5;
  double round_time_s = 0;
  std::size_t window_first = 0;  // 0-based index of the window's first round
  std::size_t window_last = 0;   // its last round (inclusive)
  double mean = 0;               // of the window, in the metric's unit
  double range = 0;              // max - min over the window
  double slope = 0;              // least-squares slope, per round
  double range_pct = 0;          // range / mean * 100
  double slope_pct = 0;          // |slope| * (window - 1) / mean * 100: excursion of the fit line
  double range_limit_pct = 20;
  double slope_limit_pct = 10;
  bool steady = false;
};

// One reading of the SMART log during a workload (runner/methods/gates/thermal_watch.hpp).
struct ThermalSample {
  double t_s = 0;  // seconds since the workload's measured part began (negative: during ramp)
  int temperature_c = 0;
  std::uint32_t tmt1_transitions = 0, tmt2_transitions = 0;
  std::uint32_t tmt1_seconds = 0, tmt2_seconds = 0;
};

// A span of a workload in which the drive throttled: between two readings whose thermal
// management counts or times rose.
struct ThrottleInterval {
  double start_s = 0, end_s = 0;  // on the workload's timeline
  std::string level;              // "TMT1", "TMT2" or "TMT1+TMT2"
  std::uint32_t seconds = 0;      // throttled seconds the counters added
};

// Write amplification and an endurance projection over a run (runner/methods/gates/wear.hpp).
struct WearReport {
  double host_written_bytes = 0;              // SMART data units written, after - before
  std::optional<double> media_written_bytes;  // OCP C0h physical media units written delta
  std::optional<double> waf;                  // media / host; empty without C0h or host writes
  unsigned percentage_used_before = 0, percentage_used_after = 0;
  std::optional<double> projected_write_bytes;  // lifetime writes the wear rate projects
  std::optional<double> dwpd;                   // drive writes per day over the warranty
  double warranty_years = 5;
  std::string basis;  // how the projection was made, or why there is none
};

// fio's "IO depths" line: submissions counted by the requests in flight once submitted (itself
// included), in fio's buckets 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64 (printed as 1, 2, 4, 8, 16,
// 32, >=64). Summed over jobs, for the whole run (ramp included, as fio).
struct IoDepthDistribution {
  std::vector<std::uint64_t> submitted;  // 7 buckets; empty when not measured
};

// fio's "Disk stats (read/write)" line: the device's own counters (/sys/block/DEV/stat) over the
// workload (ramp included): I/Os and merges the device completed, ticks (ms spent on them, summed
// over requests), in_queue (ms, summed), util (ms with I/O in flight / wall ms).
struct DiskStats {
  std::string name;
  std::uint64_t read_ios = 0, write_ios = 0;
  std::uint64_t read_merges = 0, write_merges = 0;
  std::uint64_t read_ticks_ms = 0, write_ticks_ms = 0;
  std::uint64_t in_queue_ms = 0, io_ticks_ms = 0;
  double util_pct = 0;
};

// Whether the host rather than the device limited a workload, and the evidence.
struct HostLimitReport {
  bool limited = false;
  std::vector<std::string> reasons;  // "job thread CPU 98%", "IOPS at 85% of the engine's ..."
  double max_thread_cpu_pct = 0;
  double engine_ceiling_iops = 0;  // null engine at the same bs/iodepth/numjobs; 0 = not measured
  // The job threads' share of time runnable without a CPU (CpuUsage::wait_pct; < 0: not known),
  // and, when it is at least runner::kHostCpuWaitPct, the reason it added to `reasons`: a claim
  // is only excused by it where the wait can account for the shortfall (cpu_wait_factor,
  // runner/judge/verdict.cpp).
  double cpu_wait_pct = -1;
  std::string cpu_wait_reason;
  // How much longer the job threads were ready to run than they ran: (run + wait) / run. Where
  // the host's CPUs set the pace, a free host would have run them about this much more.
  double cpu_wait_factor = 1;
  // The PCIe link of an NVMe/PCIe device, when sysfs has it ("" / 0 otherwise).
  std::string link_speed;   // current_link_speed as sysfs prints it, "8.0 GT/s PCIe"
  unsigned link_width = 0;  // current_link_width; 0 = unknown (sysfs 0 or 255)
  std::string max_link_speed;
  unsigned max_link_width = 0;
  double link_bw_bytes = 0;  // usable bytes/s of the current link (after line encoding)
};

// Whether other processes competed for the CPU while a workload ran (runner/measure/host_load.hpp):
// a figure measured on a busy host is the host's as much as the device's.
struct HostBusyReport {
  bool busy = false;
  std::vector<std::string> reasons;  // "other processes used 1.10 of 2 CPUs (user time, ...)", ...
  double other_user_cpus = 0;        // CPUs' worth of user time other processes used (the test)
  double other_runnable = 0;         // mean runnable tasks of other processes per sample (a figure)
  double cpu_pressure_pct = 0;       // /proc/pressure/cpu "some": share of the time a task waited
  double steal_pct = 0;              // of all CPU time, taken by the hypervisor (/proc/stat)
  unsigned cpus = 0;                 // online CPUs
  unsigned samples = 0;
};

// Early stop (runner/measure/early_stop.hpp): why a workload ended and the confidence interval of
// its tracked figure then (from the per-interval samples, corrected for their autocorrelation).
struct EarlyStopReport {
  std::string rule;             // "ci:1%@95,min=3s"
  std::string metric = "iops";  // iops | bw
  bool stopped_early = false;   // false: it ran to its time limit
  std::string reason;           // "interval +-0.84% at 95% after 4.5 s" or "time limit ..."
  double target_pct = 1;        // the half-width asked for, % of the mean
  double confidence_pct = 95;
  double mean = 0;            // of the per-interval samples, in the metric's unit
  double half_width = 0;      // of the interval, same unit
  double half_width_pct = 0;  // of the mean
  double lag1 = 0;            // lag-1 autocorrelation of the samples
  double n_eff = 0;           // effective sample size n (1 - r1) / (1 + r1)
  unsigned samples = 0;
  double sample_s = 0;       // the sampling interval
  double stopped_at_s = 0;   // measured time when it stopped
  double min_time_s = 0;     // the minimum measured time of the rule (its default made concrete)
  double cover = 0;          // region passes a workload that writes must write before a stop
  double region_passes = 0;  // region passes written in the measured time (at the stop or end)
};

// fio's steady state (runner/measure/fio_steady_state.hpp; options ss, ss_dur, ss_ramp): fio's
// JSON "steadystate" object (stat.c), and when the criterion was attained.
struct FioSteadyStateReport {
  std::string ss;         // the criterion as fio writes it: "iops:10.000000%"
  unsigned duration = 0;  // ss_dur, in one-second samples
  double ramp_s = 0;      // ss_ramp
  bool attained = false;
  double attained_at_s = -1;  // measured seconds when attained; -1 when not
  double criterion = 0;       // the last criterion computed (% of the mean, or the metric's unit)
  bool percent = true;        // criterion and limit are a percent of the window's mean
  double limit = 0;
  double max_deviation = 0;             // of the last full window (iops, bw criteria)
  double slope = 0;                     // of the last full window (the _slope criteria)
  unsigned samples = 0;                 // one-second samples taken
  std::vector<std::uint64_t> iops, bw;  // the last window, oldest first (fio's "data")
  std::uint64_t iops_mean = 0, bw_mean = 0;
};

// One bad block found by verification (runner/measure/verify.hpp): what it is and what it held.
struct IntegrityFinding {
  std::string kind;                     // corrupted | misplaced | stale | foreign
  std::uint64_t offset = 0;             // byte offset of the block read back
  std::uint64_t found_offset = 0;       // misplaced: the offset its header names
  std::uint64_t expected_sequence = 0;  // stale: the write sequence expected
  std::uint64_t found_sequence = 0;     // stale: the older one found
};

// Data verification of a write workload (verify=crc32c|xxh3): counts per class and the first bad
// blocks by offset. A block is checked inline (verify_backlog) and/or at the end.
struct IntegrityReport {
  std::string algorithm;             // crc32c | xxh3
  std::uint64_t run_id = 0;          // the random id every header of this run carries
  std::uint64_t blocks_written = 0;  // distinct blocks with a recorded write
  std::uint64_t verified_inline = 0;
  std::uint64_t verified_at_end = 0;
  std::uint64_t corrupted = 0, misplaced = 0, stale = 0, foreign = 0;
  std::uint64_t read_errors = 0;  // read-backs that failed (counted as not verified)
  // Bad inline read-backs (verify_backlog). The class counts above are the end pass's when it ran
  // (each block once), else the inline ones; inline findings are listed either way.
  std::uint64_t bad_inline = 0;
  std::vector<IntegrityFinding> findings;  // the first ones, in offset order (bounded)
  std::uint64_t tracking_bytes = 0;        // memory of the written-block ledger
};

// A figure a method publishes by name (sustained.bw, capacity, wsat.iops, ...: the rows of
// model/metric.hpp figure_table()), in its metric's base unit.
struct Figure {
  std::string name;
  double value = 0;
  std::string unit;  // "IOPS", "B/s", "ns", "B", "%"
};

// One bucket of a latency histogram as the runner measured it
// (runner/measure/latency_histogram.hpp): the bucket's lowest value and how many I/Os fell in it.
struct LatencyBucket {
  std::uint64_t low_ns = 0;
  std::uint64_t count = 0;
};

// The sequential write pass that gave a read workload written data to read (docs/measurement.md,
// "Reads of written data"): outside the workload's measured time.
struct FillReport {
  std::uint64_t offset = 0;  // where the filled span starts
  std::uint64_t bytes = 0;   // written
  std::uint64_t block = 0;   // each write's size
  unsigned iodepth = 0;
  double seconds = 0;
  double bytes_per_s = 0;
  // A sample of the span read before it was filled: how many blocks, and whether every byte of
  // them read back as zero (never written, or deallocated: the controller answers such reads
  // without the media).
  unsigned sampled_blocks = 0;
  std::uint64_t sample_bytes = 0;  // read by the sample (it stops at the first block with data)
  bool sample_all_zero = false;
};

struct WorkloadResult {
  std::string id;
  WorkloadParams params;
  // The method's own report (model/method_report.hpp); null for a plain run. Its kind is the
  // result's kind.
  std::shared_ptr<const MethodReport> method;
  [[nodiscard]] std::string_view kind() const noexcept {
    return method ? method->kind() : std::string_view("workload");
  }
  // What the method published by name, beside the per-direction counts: a claim on a named figure
  // (model/metric.hpp figure_table()) reads it here. Not a key of the JSON of its own: claims
  // are judged when measured, and a method whose report holds its figures publishes them again
  // when its result is read back (a SNIA PTS test's reader).
  std::vector<Figure> figures;
  std::optional<DirectionResult> read;   // present when the workload reads
  std::optional<DirectionResult> write;  // present when the workload writes
  CpuUsage cpu;
  double elapsed_s = 0;  // measured wall time (after ramp)
  std::vector<TimelinePoint> timeline;
  std::vector<std::string> errors;  // human-readable; non-empty means the workload is in error
  bool interrupted = false;
  std::string fio_command;  // the equivalent fio command line
  // Whether the host was the limit (always set by a qualification run).
  std::optional<HostLimitReport> host_limit;
  // What was done to the device before this workload (purge, preconditioning), in order. Never
  // silent: a purge that was not possible says so here.
  std::vector<std::string> preconditioning;
  // The fill before a read workload whose region this run had not written yet; one per span.
  std::vector<FillReport> fill;
  // Set when the workload was not run for a reason that is not an error (e.g. bs 512 on a device
  // whose logical block is 4096): the verdict is "skipped" with this reason.
  std::optional<std::string> skipped;
  // Set when the workload wrote with verify=crc32c|xxh3 (runner/measure/verify.hpp).
  std::optional<IntegrityReport> integrity;
  // CPU competition from other processes during the run (always set by run_workload).
  std::optional<HostBusyReport> host_busy;
  // Set when the workload ran with early_stop.
  std::optional<EarlyStopReport> early_stop;
  // Set when the workload ran with fio's steady state (ss_dur).
  std::optional<FioSteadyStateReport> steadystate;
  // SMART readings during the workload and the spans the drive throttled, on the timeline's time
  // axis (NVMe only; empty when the sampler was off or nothing throttled).
  std::vector<ThermalSample> thermal;
  std::vector<ThrottleInterval> throttled;
  IoDepthDistribution io_depths;
  std::optional<DiskStats> disk_stats;  // absent when the target has no block device behind it
  // Filled only when the workload asked for it (WorkloadSpec::keep_lat_histogram): the nonzero
  // buckets of its lat histogram, both directions. Not written to JSON (a PTS report keeps the
  // binned form).
  std::vector<LatencyBucket> lat_histogram;
  // A group workload (several different jobs run together, fio's jobs between two stonewalls;
  // docs/formats.md, "<job>"): one result per member job, in the suite's order, each with the
  // job's name as `id`, its own params and its own counts, latency, CPU and I/O depths over the
  // group's one measured window. This result is then the group's: the jobs' I/Os and bytes added,
  // their histograms merged. Empty for a workload of one job spec.
  std::vector<WorkloadResult> jobs;
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
  std::optional<WearReport> wear;           // from the health snapshots (NVMe)
};

struct SpecReport {
  std::string name;
  std::string vendor;
  std::string source;
  std::string path;
  std::string sha256;
  std::string suite;  // suite name
  std::string suite_path;
  std::string suite_sha256;  // of the suite file's bytes, lower-case hex; "" in older files
};

// One way a run differs from its suite and spec sheet as written (docs/reports.md, "Deviations"):
// scaled runtimes, another region, engine or early-stop rule, another suite than the sheet's, a
// sheet whose <match> does not fit, a target that measures memory or a cache, a busy or
// host-limited run. Recorded once by the run (runner/qualification/deviations.hpp) and shown by
// every report; `storqual run --strict` makes any of them a non-zero exit.
struct Deviation {
  // runtime | region | engine | early-stop | suite | match | memory-target | unwritten-reads |
  // busy-host | host-limited | fault-injection | fio-job | fio-target | null-engine
  std::string kind;
  std::string text;                    // "runtimes scaled by 0.05 (--runtime-scale 0.05)"
  std::vector<std::string> workloads;  // the workloads it touches; empty: the whole run
  // Two kinds (docs/reports.md, "Deviations"): one that weakens a verdict (a scaled runtime, a
  // busy host) leaves it standing and fails only `--strict`; one that makes the verdict about
  // something else (the sheet's <match> does not fit, memory judged against a drive's sheet,
  // reads of never-written blocks, fio's JSON of another target or of the null engine) turns the
  // claims it touches INCONCLUSIVE, unless `--accept-deviation KIND` accepted it.
  bool changes_subject = false;
  bool accepted = false;  // named by --accept-deviation: listed, the verdicts left standing
};

// Inconclusive: the measurement cannot decide the claim (its early-stop confidence interval
// straddles the claim at the time limit, or a percentile comes from too few samples,
// runner/measure/tail_samples.hpp); never a pass. It counts as incomplete, like an error (exit 3).
enum class VerdictStatus { Pass, Fail, Error, Skipped, MeasuredOnly, Inconclusive };

// What a verdict judges against (reporting/verdict_status.hpp names them "claim", "baseline",
// "lot", "health"): the spec sheet (the default), an earlier result of the device or model
// (`storqual run --baseline`, docs/fleet.md), the median of the other units of the same model in
// a fleet merge, or the device's SMART / health log over the run (runner/judge/health_verdict.hpp).
enum class VerdictKind { Claim, Baseline, Lot, Health };

// Why a verdict is in error (status Error), as JUnit's <error type> says it: the run was
// interrupted (a signal) while the verdict's workload ran, or anything else that kept it from
// being judged ("workload-error"). Set by the code that makes the verdict; not in the JSON, whose
// reader derives it from the message (reporting/result_json.cpp).
enum class ErrorCause { WorkloadError, Interrupted };

struct ClaimVerdict {
  // The workload's id; several for an aggregate claim, in the claim's order. Reports and the JSON
  // show them joined with a space (workload_text(), reporting/verdict_status.hpp).
  std::vector<std::string> workloads;
  // The member job of a group workload the claim judges (`<claim job="reader">`); "" for the
  // workload's (the group's) own figures.
  std::string job;
  std::string metric;  // iops, read.bw, lat.p99, ...
  VerdictStatus status = VerdictStatus::MeasuredOnly;
  std::optional<double> measured;  // in the metric's base unit: IOPS, bytes/s or ns
  std::optional<double> claimed;
  std::string unit;       // "IOPS", "B/s", "ns"
  std::string aggregate;  // over several workloads: "mean", "min" or "max"; "" for one workload
  double tolerance_pct = 0;
  std::optional<double> diff_pct;  // (measured - claimed) / claimed * 100
  std::string message;             // carries both numbers, the difference and the tolerance
  // What `measured` is, in the glossary's words (docs/reports.md): "read+write IOPS, sum over 4
  // jobs, mean over 600 s"; "" when there is no measured value.
  std::string figure;
  double time_s = 0;  // time spent measuring the workload(s)
  // What the verdict judges against (VerdictKind). For Baseline and Lot, `claimed` holds the
  // reference value and `tolerance_pct` the allowed regression or shortfall. Reports name
  // verdicts other than claims "<kind>: <workload> <metric>" (verdict_name()).
  VerdictKind kind = VerdictKind::Claim;
  ErrorCause error_cause = ErrorCause::WorkloadError;  // meaningful when status is Error
  // Where the claim is written: the spec sheet as the run named it (SpecReport::path's file) and
  // the 1-based line of its <claim>; empty and 0 for a verdict no claim line stands behind.
  std::string file;
  unsigned line = 0;
  // Whether a larger measured value is the better one (IOPS, bandwidth, capacity: yes; latency,
  // bad blocks: no), set by the code that judges the verdict from the metric's definition
  // (runner/specs/spec_sheet.hpp Metric::higher_is_better). Lot acceptance reads it; absent in
  // files of versions before it was recorded.
  std::optional<bool> higher_is_better;
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
  double wall_time_s = 0;  // from start to end on a monotonic clock; 0: not recorded (older files)
};

// Who measured the results when storqual did not: `storqual judge --fio-json` judges the JSON fio
// wrote (docs/fio-files.md, "Judging fio's JSON"). Every report says so; absent for a run.
struct MeasuredBy {
  std::string tool;    // "fio-3.33", as the file's "fio version" says
  std::string file;    // the JSON file as given
  std::string sha256;  // of its bytes, lower-case hex
};

struct RunResult {
  Environment environment;
  DeviceReport device;
  SpecReport spec;
  std::vector<WorkloadResult> workloads;
  std::vector<ClaimVerdict> verdicts;
  std::vector<Deviation> deviations;
  // `storqual run --measure-only` (or no spec sheet at all): nothing was claimed, so nothing
  // passed; every report says "measured only" in a neutral colour.
  bool measure_only = false;
  bool strict = false;  // --strict: a deviation made the exit code non-zero
  int exit_code = 0;
  std::optional<MeasuredBy> measured_by;  // set by `storqual judge`: another tool measured
};

}  // namespace storqual::reporting
