// SPDX-License-Identifier: Apache-2.0
// What the jobs of a workload share and what each leaves behind: the member and shared plans,
// a job's outcome and its request slots; internal to the job loop (job_runner.cpp: the
// workload, job_start.cpp: the start line and the jobs).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "runner/measure/io_depths.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/job_timeline.hpp"
#include "runner/measure/latency_histogram.hpp"
#include "runner/measure/poll_budget.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload_monitor.hpp"
#include "runner/measure/zbd_zones.hpp"

namespace storqual::runner::jobs {

using engines::Direction;
using engines::Engine;
using engines::IoRequest;
using engines::QueueStatus;

struct DirectionStats {
  LatencyHistogram slat, clat, lat;
  std::uint64_t ios = 0, bytes = 0, errors = 0, short_ios = 0, eagain_retries = 0;
  int first_errno = 0;
  std::uint64_t first_error_offset = 0;
  // With a block-size mix: I/Os counted per size, (bs, ios) in the order first seen.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> by_size;
};

// What the jobs of one spec share: the workload's, or one member job's of a group workload.
struct MemberPlan {
  const WorkloadSpec* spec = nullptr;
  RwMode mode = RwMode::Read;
  std::uint64_t region_offset = 0;
  std::uint64_t region_size = 0;   // decided after the first job opened the target
  VerifyLedger* ledger = nullptr;  // verify on: what was written where (null: off)
  std::size_t first = 0;           // its first job's index among all the workload's jobs
  double zipf_zetan = 0;           // random_distribution=zipf: its sum, before the run starts
  std::uint64_t target_size = 0;   // the target's bytes (the null engine's 1 TiB), at the start
  // zonemode=zbd reads with read_beyond_wp=0: what each job reads (zbd_zones.hpp), at the start.
  std::vector<ZbdRun> zbd_runs = {};
};

// One flow of fio's flow control (flow.c struct fio_flow): the I/Os its jobs issued, from fio's
// 1, and the sum of their weights; a job's part of both leaves it when the job ends.
struct FlowCounter {
  unsigned id = 0;
  std::atomic<std::uint64_t> issued{1};
  std::atomic<std::uint64_t> total_weight{0};
};

// What every job of the workload shares (all members of a group): the start line, the end, logs.
struct SharedPlan {
  const WorkloadSpec* spec = nullptr;  // the workload (a group's own options: runtime, ramp)
  const RunOptions* options = nullptr;
  std::uint64_t t0 = 0;  // when the run starts (after setup), ns
  std::uint64_t measure_start = 0;
  // Time-based end, or UINT64_MAX; moved forward by an early stop (workload_monitor.hpp).
  std::atomic<std::uint64_t> end = 0;
  double limit_s = 0;  // the time limit, or where an early stop put the end (after the run)
  bool abort = false;  // setup failed somewhere: every job leaves
  std::FILE* lat_log = nullptr;
  std::mutex lat_log_mutex;
  engines::PollGate* poll_gate = nullptr;         // the host's poll budget, for automatic spin_wait
  const PollBudget::Lease* poll_lease = nullptr;  // its lease: each job thread's CPU time counts
  // The whole process's CPU time (every thread: the kernel's io-wq workers, other targets' jobs)
  // from t0 until the last job ended, and that time.
  double process_cpu_s = 0, process_wall_s = 0;
  // The device's own counters around the jobs (fio's "Disk stats"); none for the null engine or a
  // target with no block device behind it.
  std::optional<reporting::DiskStats> disk_stats;
  // The flows of the jobs with a flow weight (every job's weight added before t0), by flow_id.
  std::deque<FlowCounter> flows;
  // exitall (WorkloadSpec::exitall): the end of each exit_group's jobs (`end` at t0, moved with
  // it by an early stop, to now by a job of the group that ends); none without exitall.
  // `exited`: a job with exitall=stonewall ended the workload, at `end`.
  std::deque<std::atomic<std::uint64_t>> exit_groups;
  std::atomic<bool> exited{false};
};

// Moves `end` to `t` unless it is already earlier.
inline void end_at(std::atomic<std::uint64_t>& end, std::uint64_t t) {
  std::uint64_t e = end.load();
  while (t < e && !end.compare_exchange_weak(e, t)) {
  }
}

struct JobOutcome {
  DirectionStats dir[2];
  std::optional<Timeline> timeline;
  double cpu_usr = 0, cpu_sys = 0;
  double cpu_spin = 0;   // of which polling for completions (engines::Engine::spin_ns)
  double cpu_wait = -1;  // runnable but waiting for a CPU (schedstat); < 0: not known
  std::uint64_t last_completion = 0;
  std::uint64_t target_size = 0;
  std::uint32_t logical_block = 512;
  bool opened = false;
  std::string setup_error;  // open failed
  int setup_errno = 0;
  std::string run_error;  // the error that ended the job
  bool interrupted = false;
  IntegrityTally inline_tally;  // verify_backlog read-backs
  std::uint64_t verified_inline = 0;
  // Running totals for the sampler thread (early stop), stored as each batch is reaped.
  std::atomic<std::uint64_t> progress_ios{0}, progress_bytes{0}, progress_written{0};
  IoDepthCounts depths{};  // submissions by requests in flight (runner/measure/io_depths.hpp)
};

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

// The requests of one job (one per iodepth slot) and what the loop knows of each.
struct IoSlots {
  std::vector<IoRequest> reqs;
  std::vector<std::uint64_t> start_ns, issue_ns;  // due (or prepared) and handed to the kernel
  std::vector<std::uint8_t> busy;                 // in flight
  std::vector<unsigned> free;                     // slots with no request, last = next
  unsigned in_flight = 0;
  bool in_flight_at(std::uint64_t offset) const {
    for (std::size_t s = 0; s < reqs.size(); ++s)
      if (busy[s] && reqs[s].offset == offset) return true;
    return false;
  }
};

}  // namespace

// The start line (job_start.cpp): every job (of every member of a group) opens its engine in its
// own thread, the regions are checked, then all go at t0; returns when every job ended. Throws
// what the checks found.
void run_jobs(const RunOptions& options, SharedPlan& plan, std::span<MemberPlan> members,
              std::vector<JobOutcome>& outcomes, std::optional<VerifyLedger>& own_ledger,
              WorkloadMonitor& monitor);

}  // namespace storqual::runner::jobs
