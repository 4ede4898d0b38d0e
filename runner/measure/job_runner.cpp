// SPDX-License-Identifier: Apache-2.0
// JobRunner: a workload's jobs run (job_start.cpp, the loop in job_loop.hpp) and their outcomes
// added up into one result: counts, latencies, timeline, CPU, integrity (see job_runner.hpp).
#include "runner/measure/job_runner.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/block_io_driver.hpp"
#include "runner/measure/disk_stats.hpp"
#include "runner/measure/io_depths.hpp"
#include "runner/measure/job_plan.hpp"
#include "runner/measure/latency_histogram.hpp"
#include "runner/measure/offset_generator.hpp"
#include "runner/measure/poll_budget.hpp"
#include "runner/measure/random.hpp"
#include "runner/measure/tail_samples.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload_monitor.hpp"

namespace storqual::runner {

using engines::Direction;
using engines::IoRequest;
using jobs::DirectionStats;
using jobs::IntervalSample;
using jobs::JobOutcome;
using jobs::MemberPlan;
using jobs::SharedPlan;

namespace {

reporting::LatencySummary summarize(const LatencyHistogram& h) {
  reporting::LatencySummary s;
  s.samples = h.count();
  s.min_ns = h.min();
  s.max_ns = h.max();
  s.mean_ns = h.mean();
  s.stdev_ns = h.stdev();
  s.percentiles =
      h.percentiles(reported_percentiles(h.count()));  // runner/measure/tail_samples.hpp
  return s;
}

std::string errno_text(int e) {
  return std::strerror(e);
}

std::FILE* open_latency_log(const RunOptions& options) {
  if (options.lat_log_path.empty()) return nullptr;
  std::FILE* lat_log = std::fopen(options.lat_log_path.c_str(), "w");
  if (!lat_log)
    throw UnitError("cannot write the latency log " + options.lat_log_path + ": " +
                    errno_text(errno));
  std::setvbuf(lat_log, nullptr, _IOFBF, 1 << 20);
  return lat_log;
}

// The workload's block-size mix as its options say it ("bssplit=4k/10:64k/90"), if it has one.
std::optional<std::string> mix_text(const WorkloadSpec& spec) {
  const std::vector<std::string> options = block_size_mix_options(spec);
  if (options.empty()) return std::nullopt;
  std::string out;
  for (const std::string& o : options) out += (out.empty() ? "" : " ") + o;
  return out;
}

// The workload's skewed distribution as the option says it ("zipf:1.2"), if it has one.
std::optional<std::string> distribution_text(const WorkloadSpec& spec) {
  if (!spec.distribution.skewed()) return std::nullopt;
  return random_distribution_text(spec.distribution,
                                  [](std::uint64_t b) { return format_size_fio(b); }) +
         (spec.distribution.use64 ? " (tausworthe64)" : "");
}

reporting::DirectionResult direction_result(const DirectionStats& m, double elapsed) {
  reporting::DirectionResult r;
  r.ios = m.ios;
  r.bytes = m.bytes;
  r.iops = static_cast<double>(m.ios) / elapsed;
  r.bw_bytes = static_cast<double>(m.bytes) / elapsed;
  r.slat = summarize(m.slat);
  r.clat = summarize(m.clat);
  r.lat = summarize(m.lat);
  r.errors = m.errors;
  r.first_errno = m.first_errno;
  r.first_error_offset = m.first_error_offset;
  r.short_ios = m.short_ios;
  r.eagain_retries = m.eagain_retries;
  if (!m.by_size.empty()) {
    auto& sizes = r.block_sizes.emplace();
    for (const auto& [bs, ios] : m.by_size) sizes.push_back({bs, ios});
    std::sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.bs < b.bs; });
  }
  return r;
}

// Adds one job's I/Os per size to the merged ones.
void merge_sizes(const DirectionStats& s, DirectionStats& into) {
  for (const auto& [bs, ios] : s.by_size) {
    auto it = std::find_if(into.by_size.begin(), into.by_size.end(),
                           [bs = bs](const auto& e) { return e.first == bs; });
    if (it == into.by_size.end())
      into.by_size.emplace_back(bs, ios);
    else
      it->second += ios;
  }
}

// What some jobs' outcomes add up to (a workload's, a member job's of a group, or a group's):
// which directions it has, whether its window is the time limit (time based, no io_limit), and
// whether it keeps its latency histogram.
struct MergeScope {
  bool reads = false, writes = false;
  bool timed = false;
  bool keep_lat_histogram = false;
};

MergeScope scope_of(const WorkloadSpec& spec) {
  const RwMode mode = parse_rw(spec.params.rw);
  return {rw_reads(mode), rw_writes(mode), spec.params.runtime_s > 0 && spec.io_limit == 0,
          spec.keep_lat_histogram};
}

// Every job's counts, histograms, errors and CPU into one result (the timeline apart).
void merge_jobs(std::span<const JobOutcome> outcomes, const SharedPlan& plan,
                const MergeScope& scope, reporting::WorkloadResult& result) {
  DirectionStats merged[2];
  std::uint64_t last_completion = plan.measure_start;
  double usr = 0, sys = 0, spin = 0, max_thread = 0, wait = 0;
  bool wait_known = true;
  for (const auto& o : outcomes) {
    for (int d = 0; d < 2; ++d) {
      auto& m = merged[d];
      const auto& s = o.dir[d];
      m.slat.merge(s.slat);
      m.clat.merge(s.clat);
      m.lat.merge(s.lat);
      m.ios += s.ios;
      m.bytes += s.bytes;
      m.short_ios += s.short_ios;
      m.eagain_retries += s.eagain_retries;
      merge_sizes(s, m);
      if (s.errors && !m.errors) {
        m.first_errno = s.first_errno;
        m.first_error_offset = s.first_error_offset;
      }
      m.errors += s.errors;
    }
    last_completion = std::max(last_completion, o.last_completion);
    usr += o.cpu_usr;
    sys += o.cpu_sys;
    spin += o.cpu_spin;
    wait += std::max(0.0, o.cpu_wait);
    if (o.cpu_wait < 0) wait_known = false;
    if (!o.run_error.empty()) result.errors.push_back(o.run_error);
    if (o.interrupted) result.interrupted = true;
  }
  double elapsed = scope.timed && !result.interrupted && result.errors.empty()
                       ? plan.limit_s
                       : static_cast<double>(last_completion - plan.measure_start) / 1e9;
  if (elapsed <= 0) elapsed = 1e-9;
  result.elapsed_s = elapsed;
  for (const auto& o : outcomes) {
    // Polling is waiting, not work: a job thread that polls is not the limit.
    double thread_pct = std::max(0.0, o.cpu_usr + o.cpu_sys - o.cpu_spin) / elapsed * 100;
    max_thread = std::max(max_thread, thread_pct);
  }
  result.cpu.usr_pct = usr / elapsed * 100;
  result.cpu.sys_pct = sys / elapsed * 100;
  result.cpu.max_thread_pct = max_thread;
  result.cpu.spin_pct = spin / elapsed * 100;
  if (plan.process_wall_s > 0)
    result.cpu.process_pct = plan.process_cpu_s / plan.process_wall_s * 100;
  // Of the job threads' time, the share they were runnable and got no CPU.
  result.cpu.wait_pct =
      wait_known && !outcomes.empty()
          ? std::min(100.0, wait / (elapsed * static_cast<double>(outcomes.size())) * 100)
          : -1;
  if (scope.reads) result.read = direction_result(merged[0], elapsed);
  if (scope.writes) result.write = direction_result(merged[1], elapsed);
  if (scope.keep_lat_histogram) {
    LatencyHistogram both = merged[0].lat;
    both.merge(merged[1].lat);
    for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i)
      if (both.bucket(i))
        result.lat_histogram.push_back({LatencyHistogram::bucket_low(i), both.bucket(i)});
  }
}

// The jobs' timelines brought to the coarsest interval, added, and turned into rates.
void merge_timelines(std::span<JobOutcome> outcomes, const WorkloadSpec& spec, double limit_s,
                     reporting::WorkloadResult& result) {
  const auto& p = spec.params;
  std::uint64_t interval_ns = 0;
  for (const auto& o : outcomes)
    if (o.timeline) interval_ns = std::max(interval_ns, o.timeline->interval_ns());
  if (!interval_ns) return;
  std::vector<IntervalSample> total;
  for (auto& o : outcomes) {
    if (!o.timeline) continue;
    while (o.timeline->interval_ns() < interval_ns) o.timeline->coarsen();
    const auto& samples = o.timeline->samples();
    if (samples.size() > total.size()) total.resize(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) total[i].add(samples[i]);
  }
  const double interval_s = static_cast<double>(interval_ns) / 1e9;
  const double elapsed = result.elapsed_s;
  // A time-based run has exactly runtime/interval points; drop the partial tail beyond it. One
  // that ran to its time limit has them all, also those in which no I/O completed: a stall at the
  // end is a zero rate (as fio logs it), not a shorter timeline, which a job thread kept off the
  // CPU for the last interval also made (JobRunner.ASliverOfALastIntervalIsNotATimelineSample
  // under ASan on a loaded host: 4 points for 0.5 s at 0.1 s).
  std::size_t points = total.size();
  if (p.runtime_s > 0 && !result.interrupted) {
    const auto whole = static_cast<std::size_t>(std::ceil(limit_s / interval_s - 1e-9));
    if (spec.io_limit == 0 && result.errors.empty()) total.resize(std::max(total.size(), whole));
    points = std::min(total.size(), whole);
  }
  // In a run that ends at its time limit a last interval shorter than half the others (a runtime
  // of 10.00002 s: a 20 us eleventh) is not a sample of the rate: a few I/Os over a sliver of time
  // would set min/max/avg. Its I/Os stay in the totals. A run that ends by its size or io_limit
  // keeps its last interval: the timeline then holds every I/O (WSAT's bytes-written axis is its
  // running sum).
  if (p.runtime_s > 0 && spec.io_limit == 0 && points > 1 &&
      elapsed - static_cast<double>(points - 1) * interval_s < interval_s / 2)
    --points;
  for (std::size_t i = 0; i < points; ++i) {
    const auto& s = total[i];
    double span = std::min(interval_s, elapsed - static_cast<double>(i) * interval_s);
    if (span <= 0) span = interval_s;
    reporting::TimelinePoint pt;
    pt.t_s = static_cast<double>(i) * interval_s + span;
    pt.read_iops = static_cast<double>(s.ios[0]) / span;
    pt.write_iops = static_cast<double>(s.ios[1]) / span;
    pt.read_bw = static_cast<double>(s.bytes[0]) / span;
    pt.write_bw = static_cast<double>(s.bytes[1]) / span;
    pt.read_lat_mean_ns =
        s.ios[0] ? static_cast<double>(s.clat_sum[0]) / static_cast<double>(s.ios[0]) : 0;
    pt.write_lat_mean_ns =
        s.ios[1] ? static_cast<double>(s.clat_sum[1]) / static_cast<double>(s.ios[1]) : 0;
    result.timeline.push_back(pt);
  }
}

// With verify: the inline read-backs of every job and, with do_verify, every written block read
// back now (verify_written_blocks).
reporting::IntegrityReport integrity_of(std::span<const JobOutcome> outcomes,
                                        const WorkloadSpec& spec, const RunOptions& options,
                                        const VerifyLedger& ledger,
                                        reporting::WorkloadResult& result) {
  reporting::IntegrityReport integrity;
  IntegrityTally inline_tally;
  for (const auto& o : outcomes) {
    inline_tally.merge(o.inline_tally);
    integrity.verified_inline += o.verified_inline;
  }
  bool verified_at_end = false;
  if (spec.do_verify && !result.interrupted) {
    try {
      integrity = verify_written_blocks(spec, ledger, options);
      for (const auto& o : outcomes) integrity.verified_inline += o.verified_inline;
      verified_at_end = true;
    } catch (const std::exception& e) {
      result.errors.push_back(std::string("verification failed: ") + e.what());
    }
  }
  integrity.algorithm = std::string(to_string(ledger.algorithm()));
  integrity.run_id = ledger.run_id();
  integrity.tracking_bytes = ledger.tracking_bytes();
  integrity.blocks_written = ledger.written_blocks();
  integrity.bad_inline = inline_tally.bad();
  if (verified_at_end)
    inline_tally.apply_findings_to(integrity);
  else
    inline_tally.apply_to(integrity);
  return integrity;
}

// The I/O depths of some jobs, added.
reporting::IoDepthDistribution depths_of(std::span<const JobOutcome> outcomes) {
  reporting::IoDepthDistribution d;
  d.submitted.assign(kIoDepthBuckets, 0);
  for (const auto& o : outcomes)
    for (std::size_t b = 0; b < kIoDepthBuckets; ++b) d.submitted[b] += o.depths[b];
  return d;
}

// A group's member jobs, each its own result over the group's window (WorkloadResult::jobs); the
// group's own scope is every direction any member has, timed when every member is.
MergeScope add_member_results(std::span<const MemberPlan> members, std::span<JobOutcome> outcomes,
                              const SharedPlan& plan, reporting::WorkloadResult& result) {
  MergeScope group{false, false, plan.spec->params.runtime_s > 0, plan.spec->keep_lat_histogram};
  for (const MemberPlan& m : members) {
    const auto mine = outcomes.subspan(m.first, m.spec->params.numjobs);
    const MergeScope scope = scope_of(*m.spec);
    group.reads = group.reads || scope.reads;
    group.writes = group.writes || scope.writes;
    group.timed = group.timed && scope.timed;
    reporting::WorkloadResult job;
    job.id = m.spec->id;
    job.params = m.spec->params;
    job.params.bs_mix = mix_text(*m.spec);
    job.params.random_distribution = distribution_text(*m.spec);
    job.fio_command = fio_command(*m.spec);
    job.io_depths = depths_of(mine);
    merge_jobs(mine, plan, scope, job);
    merge_timelines(mine, *m.spec, plan.limit_s, job);
    result.jobs.push_back(std::move(job));
  }
  return group;
}

}  // namespace

reporting::WorkloadResult run_workload(const WorkloadSpec& spec, const RunOptions& options) {
  validate(spec);
  SharedPlan plan;
  plan.spec = &spec;
  plan.options = &options;
  plan.lat_log = open_latency_log(options);
  // A group's members, or the workload itself as its one member.
  const std::vector<WorkloadSpec> member_specs = group_members(spec);
  std::vector<MemberPlan> members;
  std::size_t threads = 0;
  for (const WorkloadSpec& m : member_specs.empty() ? std::span<const WorkloadSpec>(&spec, 1)
                                                    : std::span<const WorkloadSpec>(member_specs)) {
    members.push_back({&m, parse_rw(m.params.rw), m.params.offset, 0, nullptr, threads});
    threads += m.params.numjobs;
  }
  std::vector<JobOutcome> outcomes(threads);
  std::optional<VerifyLedger> own_ledger;
  std::optional<EarlyStopRule> rule =
      spec.params.runtime_s > 0 ? parse_early_stop(spec.early_stop) : std::nullopt;
  if (rule) rule = resolve_early_stop(*rule, spec.params.runtime_s, spec.interval_s, writes(spec));
  WorkloadMonitor monitor(options.now, spec.interval_s, std::move(rule), options.proc_root,
                          options.monitor_pacing);
  monitor.track_steady_state(spec.steadystate);
  // Every workload's job threads count against the host's poll budget while they run.
  PollBudget::Lease poll_lease = PollBudget::host().enter(static_cast<unsigned>(threads));
  plan.poll_gate = poll_lease.gate();
  plan.poll_lease = &poll_lease;
  try {
    run_jobs(options, plan, members, outcomes, own_ledger, monitor);
  } catch (...) {
    if (plan.lat_log) std::fclose(plan.lat_log);
    throw;
  }
  if (plan.lat_log) std::fclose(plan.lat_log);

  reporting::WorkloadResult result;
  result.id = spec.id;
  result.params = spec.params;
  result.params.bs_mix = mix_text(spec);
  result.params.random_distribution = distribution_text(spec);
  result.params.numjobs = static_cast<unsigned>(threads);  // a group's: every job's threads
  result.fio_command = fio_command(spec);
  result.host_busy = monitor.host_busy();
  result.early_stop = monitor.early_stop();
  result.steadystate = monitor.steady_state();
  result.disk_stats = plan.disk_stats;
  result.io_depths = depths_of(outcomes);
  const MergeScope scope =
      member_specs.empty() ? scope_of(spec) : add_member_results(members, outcomes, plan, result);
  merge_jobs(outcomes, plan, scope, result);
  if (spec.params.ioengine == "io_uring" && !spec.iopoll)
    result.cpu.poll = spec.spin_wait_s < 0   ? "spin_wait auto: polling " + poll_lease.summary()
                      : spec.spin_wait_s > 0 ? "spin_wait set: polling allowed"
                                             : "spin_wait 0: no polling";
  merge_timelines(outcomes, spec, plan.limit_s, result);
  if (result.interrupted) result.errors.push_back("interrupted");
  const MemberPlan& only = members.front();
  if (only.ledger) result.integrity = integrity_of(outcomes, spec, options, *only.ledger, result);
  return result;
}

reporting::IntegrityReport verify_written_blocks(const WorkloadSpec& spec,
                                                 const VerifyLedger& ledger,
                                                 const RunOptions& options) {
  const auto& p = spec.params;
  const std::uint32_t bs = static_cast<std::uint32_t>(ledger.block_size());
  engines::EngineConfig cfg;
  cfg.path = p.target;
  cfg.write = false;
  cfg.direct = p.direct;
  cfg.exclusive = options.exclusive;
  cfg.fixed_buffers = spec.fixedbufs;
  cfg.registered_files = spec.registerfiles;
  BlockIoDriver driver(p.ioengine, options.wrap_engine, cfg, std::clamp(p.iodepth, 1u, 256u), bs,
                       "verify");

  // Every block the ledger records as written, tagged with the sequence it must hold.
  std::uint64_t next_block = 0;
  auto next = [&](BlockIo& b) {
    for (; next_block < ledger.blocks(); ++next_block) {
      const std::uint32_t e = ledger.expected(next_block);
      if (e == kNotWritten) continue;
      b.offset = ledger.region_offset() + next_block * ledger.block_size();
      b.tag = e;
      ++next_block;
      return true;
    }
    return false;
  };
  IntegrityTally tally;
  reporting::IntegrityReport report;
  const BlockPassOutcome pass = driver.run(
      Direction::Read, next, [](IoRequest&, std::uint64_t) {},
      [&](const IoRequest& r, std::uint64_t tag) {
        const auto expected = static_cast<std::uint32_t>(tag);
        if (r.res != static_cast<std::int64_t>(r.length)) {
          tally.read_error();
        } else {
          BlockCheck c =
              check_block(r.buf, r.length, r.offset, ledger.run_id(), expected, ledger.algorithm());
          tally.add(c.state, r.offset, c, expected);
        }
      },
      options.stop);
  driver.close();
  report.verified_at_end = pass.ios;
  tally.apply_to(report);
  report.algorithm = std::string(to_string(ledger.algorithm()));
  report.run_id = ledger.run_id();
  report.tracking_bytes = ledger.tracking_bytes();
  report.blocks_written = ledger.written_blocks();
  return report;
}

}  // namespace storqual::runner
