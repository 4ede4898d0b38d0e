// SPDX-License-Identifier: Apache-2.0
// JobRunner: job threads, the submit/reap loop, timing and statistics (see job_runner.hpp).
//
// The loop is liburing's canonical one (io_uring-cp.c): fill to depth, commit once, wait for one
// completion and take every other one that is ready, refill. Timestamps are taken once per batch
// (before the batch is prepared, after it is committed, after it is reaped), as fio does, so that
// the clock costs per batch, not per I/O.
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
#include "runner/measure/latency_histogram.hpp"
#include "runner/measure/offset_generator.hpp"
#include "runner/measure/poll_budget.hpp"
#include "runner/measure/random.hpp"
#include "runner/measure/tail_samples.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload_monitor.hpp"

namespace storqual::runner {

using engines::Direction;
using engines::Engine;
using engines::IoRequest;
using engines::QueueStatus;

namespace {

// The io_uring poll budget (engines::EngineConfig::spin_wait_ns). Automatic: 20 us, about ten
// completions of a fast NVMe or zram device, and only while the host's poll budget lets it
// (runner/measure/poll_budget.hpp: a CPU really spare, over every job of every target).
std::uint32_t spin_wait_ns(const WorkloadSpec& spec) {
  if (spec.spin_wait_s >= 0) return static_cast<std::uint32_t>(spec.spin_wait_s * 1e9);
  return 20000u;
}

// User + system time of the whole process, every thread of it.
double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Time this thread has spent runnable but waiting for a CPU (/proc/thread-self/schedstat, the
// second field, ns); nullopt where the kernel does not keep it.
std::optional<std::uint64_t> thread_runq_wait_ns() {
  std::FILE* f = std::fopen("/proc/thread-self/schedstat", "re");
  if (!f) return std::nullopt;
  unsigned long long run = 0, wait = 0;
  const int n = std::fscanf(f, "%llu %llu", &run, &wait);
  std::fclose(f);
  if (n != 2) return std::nullopt;
  return wait;
}

struct DirectionStats {
  LatencyHistogram slat, clat, lat;
  std::uint64_t ios = 0, bytes = 0, errors = 0, short_ios = 0, eagain_retries = 0;
  int first_errno = 0;
  std::uint64_t first_error_offset = 0;
};

struct IntervalSample {
  std::uint64_t ios[2] = {0, 0};
  std::uint64_t bytes[2] = {0, 0};
  std::uint64_t clat_sum[2] = {0, 0};
  void add(const IntervalSample& o) {
    for (int d = 0; d < 2; ++d) {
      ios[d] += o.ios[d];
      bytes[d] += o.bytes[d];
      clat_sum[d] += o.clat_sum[d];
    }
  }
};

// The per-interval timeline of one job; coarsened by merging pairs when it grows past the bound.
class Timeline {
 public:
  explicit Timeline(std::uint64_t interval_ns) : interval_ns_(interval_ns) {}
  IntervalSample& at(std::uint64_t since_start_ns) {
    // Completions arrive in time order per job: the current interval is the common case.
    if (since_start_ns >= current_low_ && since_start_ns < current_high_) return samples_[current_];
    std::uint64_t idx = since_start_ns / interval_ns_;
    while (idx >= kMaxTimelinePoints) {
      coarsen();
      idx = since_start_ns / interval_ns_;
    }
    if (idx >= samples_.size()) samples_.resize(idx + 1);
    current_ = idx;
    current_low_ = idx * interval_ns_;
    current_high_ = current_low_ + interval_ns_;
    return samples_[idx];
  }
  void coarsen() {
    std::vector<IntervalSample> merged((samples_.size() + 1) / 2);
    for (std::size_t i = 0; i < samples_.size(); ++i) merged[i / 2].add(samples_[i]);
    samples_ = std::move(merged);
    interval_ns_ *= 2;
    current_low_ = current_high_ = 0;
  }
  std::uint64_t interval_ns() const { return interval_ns_; }
  const std::vector<IntervalSample>& samples() const { return samples_; }

 private:
  std::uint64_t interval_ns_;
  std::vector<IntervalSample> samples_;
  std::size_t current_ = 0;
  std::uint64_t current_low_ = 0, current_high_ = 0;
};

// Buffered writer of the per-I/O log, one per job; lines reach the shared file in large chunks.
class LatencyLogWriter {
 public:
  LatencyLogWriter(std::FILE* file, std::mutex* mutex) : file_(file), mutex_(mutex) {
    if (file_) buffer_.resize(1 << 18);
  }
  ~LatencyLogWriter() { flush(); }
  bool enabled() const { return file_ != nullptr; }
  // fio's lat log line: time (ms), value (ns), direction, size, offset.
  void add(std::uint64_t time_ms, std::uint64_t clat_ns, int dir, std::uint32_t size,
           std::uint64_t offset) {
    if (used_ + 96 > buffer_.size()) flush();
    char* p = buffer_.data() + used_;
    char* end = buffer_.data() + buffer_.size();
    p = std::to_chars(p, end, time_ms).ptr;
    *p++ = ',';
    *p++ = ' ';
    p = std::to_chars(p, end, clat_ns).ptr;
    *p++ = ',';
    *p++ = ' ';
    *p++ = static_cast<char>('0' + dir);
    *p++ = ',';
    *p++ = ' ';
    p = std::to_chars(p, end, size).ptr;
    *p++ = ',';
    *p++ = ' ';
    p = std::to_chars(p, end, offset).ptr;
    *p++ = '\n';
    used_ = static_cast<std::size_t>(p - buffer_.data());
  }
  void flush() {
    if (!file_ || used_ == 0) return;
    std::lock_guard lock(*mutex_);
    std::fwrite(buffer_.data(), 1, used_, file_);
    used_ = 0;
  }

 private:
  std::FILE* file_;
  std::mutex* mutex_;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
};

// Sleeps until `when` on the runner's clock: nanosleep for the bulk, a short spin at the end.
void sleep_until(NowFunction now_fn, std::uint64_t when) {
  for (std::uint64_t now = now_fn(); now < when; now = now_fn()) {
    std::uint64_t left = when - now;
    if (left > 60000) {
      timespec ts{static_cast<time_t>((left - 50000) / 1000000000ull),
                  static_cast<long>((left - 50000) % 1000000000ull)};
      nanosleep(&ts, nullptr);
    }
  }
}

double thread_cpu_seconds(const rusage& r, bool user) {
  const timeval& tv = user ? r.ru_utime : r.ru_stime;
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// "Input/output error (EIO)": the text and the name an engineer searches for.
std::string errno_with_name(int e) {
  const char* name = strerrorname_np(e);
  return std::string(std::strerror(e)) + (name ? " (" + std::string(name) + ")" : "");
}

// What the jobs of one spec share: the workload's, or one member job's of a group workload.
struct MemberPlan {
  const WorkloadSpec* spec = nullptr;
  RwMode mode = RwMode::Read;
  std::uint64_t region_offset = 0;
  std::uint64_t region_size = 0;   // decided after the first job opened the target
  VerifyLedger* ledger = nullptr;  // verify on: what was written where (null: off)
  std::size_t first = 0;           // its first job's index among all the workload's jobs
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
};

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

// EAGAIN and short transfers are not errors: the request, or the rest of it, goes again (as
// liburing's examples do), keeping its start time. A requeued request goes before new ones.
class RetryQueue {
 public:
  explicit RetryQueue(unsigned depth) : partial_(depth, 0) { slots_.reserve(depth); }
  [[nodiscard]] bool empty() const noexcept { return slots_.empty(); }
  [[nodiscard]] unsigned next() const noexcept { return slots_.back(); }
  void pop() noexcept { slots_.pop_back(); }
  // Requeues `r` (of `slot`) when it came back with EAGAIN, or short with `split_short` (a short
  // transfer under verify is counted as it is: the ledger needs whole blocks); counts which.
  __attribute__((noinline, cold)) bool requeue(IoRequest& r, unsigned slot, DirectionStats& s,
                                               bool split_short) {
    if (r.res == -EAGAIN) {
      ++s.eagain_retries;
    } else if (r.res > 0 && r.res < static_cast<std::int64_t>(r.length) && split_short) {
      const auto n = static_cast<std::uint32_t>(r.res);
      ++s.short_ios;
      partial_[slot] += n;
      r.buf = static_cast<unsigned char*>(r.buf) + n;
      r.offset += n;
      r.length -= n;
    } else {
      return false;
    }
    slots_.push_back(slot);
    return true;
  }
  [[nodiscard]] bool in_parts(unsigned slot) const noexcept { return partial_[slot] != 0; }
  // The last part of a request that went in parts: the whole request again, fully transferred.
  __attribute__((noinline, cold)) void join_parts(IoRequest& r, unsigned slot) {
    const std::uint32_t n = partial_[slot];
    partial_[slot] = 0;
    r.buf = static_cast<unsigned char*>(r.buf) - n;
    r.offset -= n;
    r.length += n;
    if (r.res >= 0) r.res += n;
  }

 private:
  std::vector<unsigned> slots_;         // slots whose request goes again
  std::vector<std::uint32_t> partial_;  // bytes a short transfer already moved, per slot
};

// What an error does to the job: an I/O error is counted in its direction with the first errno
// and offset, and ends the job unless continue_on_error; a failed submit or reap, a timeout or a
// drain that does not end always ends it.
class ErrorPolicy {
 public:
  ErrorPolicy(JobOutcome& out, bool continue_on_error)
      : out_(out), continue_on_error_(continue_on_error) {}
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] bool continue_on_error() const noexcept { return continue_on_error_; }
  // `err` is a positive errno. Returns true when the job must stop issuing.
  __attribute__((noinline, cold)) bool io_error(Direction dir, std::uint64_t offset, int err,
                                                const std::string& what) {
    DirectionStats& s = out_.dir[static_cast<int>(dir)];
    if (s.errors++ == 0) {
      s.first_errno = err;
      s.first_error_offset = offset;
    }
    if (continue_on_error_ || failed_) return false;
    failed_ = true;
    out_.run_error = what;
    return true;
  }
  // Ends the job; `what` is its error, unless `keep_first` and one is already said.
  __attribute__((noinline, cold)) void end_job(const std::string& what, bool keep_first = false) {
    failed_ = true;
    if (!keep_first || out_.run_error.empty()) out_.run_error = what;
  }
  // continue_on_error went through errors: the workload still ends in error, with the counts.
  void summarize() {
    if (!out_.run_error.empty() || !continue_on_error_) return;
    for (int d = 0; d < 2; ++d) {
      const DirectionStats& s = out_.dir[d];
      if (!s.errors) continue;
      out_.run_error += std::string(out_.run_error.empty() ? "" : "; ") + std::to_string(s.errors) +
                        (d ? " write" : " read") + (s.errors == 1 ? " error" : " errors") +
                        ", the first at offset " + std::to_string(s.first_error_offset) + ": " +
                        errno_with_name(s.first_errno);
    }
    if (!out_.run_error.empty()) out_.run_error += " (continue_on_error: the workload went on)";
  }

 private:
  JobOutcome& out_;
  bool continue_on_error_;
  bool failed_ = false;
};

// Counts what completed inside the measured window: per-direction I/Os, bytes, slat/clat/lat
// histograms, the timeline, the per-I/O log, and the job thread's CPU from the end of the ramp.
class CompletionAccounting {
 public:
  CompletionAccounting(JobOutcome& out, SharedPlan& plan, const WorkloadSpec& spec, bool is_async,
                       Engine& engine)
      : out_(out),
        engine_(engine),
        measure_start_(plan.measure_start),
        end_(plan.end),
        is_async_(is_async),
        lat_log_(plan.lat_log, &plan.lat_log_mutex) {
    out_.timeline.emplace(static_cast<std::uint64_t>(spec.interval_s * 1e9));
    start_cpu();
  }
  // The ramp ends with the first completion at or past measure_start: CPU counts from there.
  void note_completion(std::uint64_t completed) {
    if (!measuring_ && completed >= measure_start_) {
      measuring_ = true;
      start_cpu();
    }
  }
  // One I/O that moved r.res > 0 bytes, prepared (or due) at `start`, handed over at `issue`.
  void add(const IoRequest& r, std::uint64_t start, std::uint64_t issue, std::uint64_t completed) {
    if (completed < measure_start_ || completed > end_) return;
    const int d = static_cast<int>(r.dir);
    DirectionStats& s = out_.dir[d];
    const auto bytes = static_cast<std::uint64_t>(r.res);
    ++s.ios;
    s.bytes += bytes;
    if (bytes < r.length) ++s.short_ios;
    const std::uint64_t clat = completed - issue;
    if (is_async_) s.slat.add(issue - start);
    s.clat.add(clat);
    s.lat.add(completed - start);
    IntervalSample& iv = out_.timeline->at(completed - measure_start_);
    ++iv.ios[d];
    iv.bytes[d] += bytes;
    iv.clat_sum[d] += clat;
    out_.last_completion = completed;
    if (lat_log_.enabled())
      lat_log_.add((completed - measure_start_) / 1000000, clat, d, r.length, r.offset);
  }
  [[nodiscard]] bool measuring() const noexcept { return measuring_; }
  void finish() {
    rusage ru_end{};
    getrusage(RUSAGE_THREAD, &ru_end);
    out_.cpu_usr = thread_cpu_seconds(ru_end, true) - thread_cpu_seconds(ru_start_, true);
    out_.cpu_sys = thread_cpu_seconds(ru_end, false) - thread_cpu_seconds(ru_start_, false);
    out_.cpu_spin = static_cast<double>(engine_.spin_ns() - spin_start_) / 1e9;
    if (const auto wait = thread_runq_wait_ns(); wait && wait_start_)
      out_.cpu_wait = static_cast<double>(*wait - std::min(*wait, *wait_start_)) / 1e9;
    lat_log_.flush();
  }

 private:
  void start_cpu() {
    getrusage(RUSAGE_THREAD, &ru_start_);
    spin_start_ = engine_.spin_ns();
    wait_start_ = thread_runq_wait_ns();
  }
  JobOutcome& out_;
  Engine& engine_;
  std::uint64_t measure_start_, end_;
  bool is_async_;
  bool measuring_ = false;
  rusage ru_start_{};
  std::uint64_t spin_start_ = 0;
  std::optional<std::uint64_t> wait_start_;
  LatencyLogWriter lat_log_;
};

// Verify (a ledger given): per-slot state, the backlog of recent writes and the read-backs due
// (verify_backlog). Job j alone writes blocks j, j + numjobs, ... so that each block's last write
// is known (as fio, verify needs jobs that do not overlap).
class VerifyTracker {
 public:
  VerifyTracker(VerifyLedger& ledger, const WorkloadSpec& spec, unsigned job, unsigned depth,
                JobOutcome& out)
      : ledger_(ledger),
        out_(out),
        job_(job),
        backlog_every_(spec.verify_backlog),
        backlog_batch_(std::min(backlog_every_, spec.verify_backlog_batch
                                                    ? spec.verify_backlog_batch
                                                    : backlog_every_)),
        is_check_(depth, 0),
        raced_(depth, 0),
        sequence_(depth, 0),
        backlog_(backlog_every_, 0) {
    checks_due_.reserve(backlog_batch_);
  }
  // A backlog read-back that is due goes into `r` (true); false: the slot carries workload I/O.
  bool take_due_check(unsigned slot, IoRequest& r, const IoSlots& slots) {
    while (!checks_due_.empty()) {
      const std::uint64_t off = checks_due_.back();
      checks_due_.pop_back();
      if (slots.in_flight_at(off)) continue;  // being rewritten: its check is moot
      r.dir = Direction::Read;
      r.offset = off;
      is_check_[slot] = 1;
      sequence_[slot] = ledger_.expected(ledger_.block_of(off));
      return true;
    }
    is_check_[slot] = 0;
    return false;
  }
  // A write of the workload: away from a block in flight when `redraw` finds one within eight
  // tries (two writes of one block in flight leave its content to the device's order), then a
  // header with the job's next sequence.
  template <class Redraw>
  void prepare_write(unsigned slot, IoRequest& r, const IoSlots& slots, Redraw&& redraw) {
    for (int tries = 0; tries < 8 && slots.in_flight_at(r.offset); ++tries) r.offset = redraw();
    raced_[slot] = slots.in_flight_at(r.offset);
    sequence_[slot] = ledger_.next_sequence(job_);
    fill_verified_block(r.buf, r.length, r.offset, ledger_.run_id(), sequence_[slot],
                        static_cast<std::uint16_t>(job_), ledger_.algorithm(), ledger_.payload());
  }
  // A read-back that could not be queued: due again next turn.
  void check_again(std::uint64_t offset) { checks_due_.push_back(offset); }
  // Completion; true when the I/O was a read-back (not workload I/O).
  bool complete(unsigned slot, const IoRequest& r) {
    if (is_check_[slot]) {
      is_check_[slot] = 0;
      ++out_.verified_inline;
      if (r.res != static_cast<std::int64_t>(r.length)) {
        out_.inline_tally.read_error();
      } else {
        const auto expected = static_cast<std::uint32_t>(sequence_[slot]);
        BlockCheck c =
            check_block(r.buf, r.length, r.offset, ledger_.run_id(), expected, ledger_.algorithm());
        out_.inline_tally.add(c.state, r.offset, c, expected);
      }
      return true;
    }
    if (r.dir != Direction::Write) return false;
    const bool whole = r.res == static_cast<std::int64_t>(r.length) && !raced_[slot];
    ledger_.record(ledger_.block_of(r.offset),
                   whole ? static_cast<std::uint32_t>(sequence_[slot]) : kAnySequence);
    if (backlog_every_ && whole) {
      backlog_[backlog_written_ % backlog_every_] = r.offset;
      if (++backlog_written_ % backlog_every_ == 0)
        for (unsigned i = 0; i < backlog_batch_; ++i)
          checks_due_.push_back(backlog_[(backlog_written_ - 1 - i) % backlog_every_]);
    }
    return false;
  }

 private:
  VerifyLedger& ledger_;
  JobOutcome& out_;
  unsigned job_;
  unsigned backlog_every_, backlog_batch_;
  std::vector<std::uint8_t> is_check_, raced_;
  std::vector<std::uint64_t> sequence_, backlog_, checks_due_;
  std::uint64_t backlog_written_ = 0;
};

// One job thread: opens its engine, then the submit/reap loop. The loop is its named steps (run);
// the parts above own their state.
class Job {
 public:
  Job(unsigned index, SharedPlan& plan, const MemberPlan& member, JobOutcome& out)
      : index_(index), plan_(plan), member_(member), out_(out) {}

  // Phase 1: open the engine (in the job's own thread).
  void open() {
    const auto& spec = *member_.spec;
    const auto& p = spec.params;
    try {
      engine_ = engines::make_engine(p.ioengine);
      if (plan_.options->wrap_engine) engine_ = plan_.options->wrap_engine(std::move(engine_));
      depth_ = engine_->caps().async ? p.iodepth : 1u;
      allocate_buffers();
      engines::EngineConfig cfg;
      cfg.path = p.target;
      cfg.write = rw_writes(member_.mode);
      cfg.direct = p.direct;
      cfg.exclusive = plan_.options->exclusive;
      cfg.iodepth = depth_;
      cfg.fixed_buffers = spec.fixedbufs;
      cfg.registered_files = spec.registerfiles;
      cfg.sqpoll = spec.sqpoll;
      cfg.iopoll = spec.iopoll;
      cfg.batch_submit = spec.iodepth_batch;
      cfg.spin_wait_ns = spin_wait_ns(spec);
      if (spec.spin_wait_s < 0) cfg.poll_gate = plan_.poll_gate;
      for (unsigned i = 0; i < depth_; ++i) cfg.buffers.push_back({buffer(i), p.bs});
      engine_->open(cfg);
      out_.target_size = engine_->target_size();
      out_.logical_block = engine_->logical_block_size();
      out_.opened = true;
    } catch (const engines::EngineError& e) {
      out_.setup_error = e.what();
      out_.setup_errno = e.error();
    } catch (const std::exception& e) {
      out_.setup_error = e.what();
      out_.setup_errno = EINVAL;
    }
  }

  // Phase 2: the measured loop: decide whether to issue, submit a batch, wait for completions.
  void run() {
    prepare_loop();
    std::uint64_t now = now_fn_();
    while (true) {
      update_issuing(now);
      // Requeued requests go on after the end too (as I/Os in flight are drained), until they
      // finish or run out of retry time: an EAGAIN storm is not hidden by the end of the run.
      const bool retrying = !retries_->empty() && !errors_->failed() && !stop_requested();
      if (issuing_ || retrying) {
        const Step step = submit_batch(now);
        if (step == Step::End) break;
        if (step == Step::Again) continue;
      }
      if (slots_.in_flight == 0) {
        if (!issuing_ && !retrying) break;
        pace(now);
        continue;
      }
      if (!reap_completions(now)) break;
    }
    errors_->summarize();
    accounting_->finish();
    publish_progress();  // the last completions, for the sampler's final look
    engine_->close();
  }

  ~Job() {
    if (engine_) engine_->close();
    std::free(buffers_);
  }

 private:
  enum class Step { Wait, Again, End };  // after a batch: wait for completions, fill again, stop
  static constexpr std::uint64_t kDrainLimitNs = 30ull * 1000000000ull;

  void prepare_loop() {
    const auto& spec = *member_.spec;
    const auto& p = spec.params;
    now_fn_ = plan_.options->now;
    live_ = plan_.options->live;
    stop_ = plan_.options->stop;
    bs_ = static_cast<std::uint32_t>(p.bs);
    // Requests per submit: iodepth_batch_submit, or everything that is ready.
    batch_ = spec.iodepth_batch ? spec.iodepth_batch : UINT_MAX;
    time_based_ = p.runtime_s > 0;
    io_timeout_ns_ = static_cast<std::uint64_t>(spec.io_timeout_s * 1e9);
    // How long a request may keep coming back with EAGAIN or short before it is an error.
    retry_limit_ns_ = io_timeout_ns_ ? io_timeout_ns_ : kDrainLimitNs;
    rate_ = spec.effective_rate_iops();
    advise(spec.fadvise_hint);
    contents_ = spec.write_contents;
    next_due_ = plan_.t0;
    // Each job of the workload its own sequence: a group's members are numbered on from the first.
    const std::uint64_t seq = member_.first + index_;
    rng_.emplace(0x5354525155414cull ^ (seq << 32) ^ plan_.t0);
    offsets_.emplace(
        OffsetGenerator::Layout{
            .mode = member_.mode,
            .randommap = p.randommap,  // io_limit may pass over the region more than once
            .region_offset = member_.region_offset,
            .region_blocks = member_.region_size / p.bs,
            .block_size = p.bs,
            .jobs = member_.ledger ? p.numjobs : 1u,
            .job = member_.ledger ? index_ : 0u},
        *rng_);
    total_ios_ = time_based_ ? UINT64_MAX : offsets_->blocks();
    if (spec.io_limit)  // this job's share of the bytes, in whole I/Os
      total_ios_ = std::max<std::uint64_t>(1, (spec.io_limit / p.bs + p.numjobs - 1) / p.numjobs);
    issuing_ = offsets_->blocks() > 0;

    slots_.reqs.resize(depth_);
    slots_.start_ns.assign(depth_, 0);
    slots_.issue_ns.assign(depth_, 0);
    slots_.busy.assign(depth_, 0);
    slots_.free.resize(depth_);
    std::iota(slots_.free.rbegin(), slots_.free.rend(), 0u);
    for (unsigned i = 0; i < depth_; ++i) {
      slots_.reqs[i].buf = buffer(i);
      slots_.reqs[i].buf_index = static_cast<int>(i);
      slots_.reqs[i].cookie = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i));
    }
    staged_.resize(depth_);
    reaped_.resize(depth_);
    retries_.emplace(depth_);
    errors_.emplace(out_, spec.continue_on_error);
    accounting_.emplace(out_, plan_, *member_.spec, engine_->caps().async, *engine_);
    if (member_.ledger) verify_.emplace(*member_.ledger, spec, index_, depth_, out_);
  }

  [[nodiscard]] bool stop_requested() const noexcept {
    return stop_ && stop_->load(std::memory_order_relaxed);
  }

  // Issuing ends at a stop request, at the end of a time-based run or when every I/O of a
  // size-based one went out; from then on, what is in flight drains for at most kDrainLimitNs.
  void update_issuing(std::uint64_t now) {
    if (issuing_ &&
        (stop_requested() || (time_based_ && now >= plan_.end) || issued_ >= total_ios_)) {
      issuing_ = false;
      if (stop_requested()) out_.interrupted = true;
    }
    if (!issuing_ && drain_deadline_ == UINT64_MAX) drain_deadline_ = now + kDrainLimitNs;
  }

  // Fills free slots up to the batch (requeued requests first) and commits them. An engine that
  // completes at queue time (psync) is accounted at once.
  Step submit_batch(std::uint64_t& now) {
    unsigned n_staged = 0;
    while (n_staged < batch_) {
      const bool again = !retries_->empty();
      if (!again) {
        if (!issuing_ || slots_.free.empty() || issued_ >= total_ios_) break;
        if (rate_ > 0 && next_due_ > now) break;  // not due yet
      }
      const unsigned slot = again ? retries_->next() : slots_.free.back();
      IoRequest& r = slots_.reqs[slot];
      bool is_check = false;
      if (again) [[unlikely]] {
        if (now - slots_.start_ns[slot] > retry_limit_ns_) {
          if (give_up_retry(slot)) continue;
          break;
        }
      } else {
        is_check = prepare_request(slot, now);
        slots_.start_ns[slot] = rate_ > 0 ? next_due_ : now;
      }
      const QueueStatus st = engine_->queue(r);
      if (st == QueueStatus::Busy) {
        if (is_check) verify_->check_again(r.offset);  // try again next turn
        break;
      }
      if (again) {
        retries_->pop();
      } else {
        slots_.free.pop_back();
        if (!is_check) count_issued();
      }
      if (st == QueueStatus::Completed) {
        const std::uint64_t t = now_fn_();
        slots_.issue_ns[slot] = now;
        ++out_.depths[io_depth_bucket(slots_.in_flight + 1)];
        complete(slot, t);
        now = t;
        if (!issuing_ || (time_based_ && now >= plan_.end) || stop_requested()) break;
        if ((issued_ & 255) == 0) publish_progress();
      } else {
        staged_[n_staged++] = slot;
        slots_.busy[slot] = 1;
        ++slots_.in_flight;
      }
    }
    if (n_staged == 0) return Step::Wait;
    // Issue is the start of the submit call: the kernel has the I/Os from there (a block device's
    // own service-time clock starts inside the call), so clat brackets it.
    const std::uint64_t handed = now_fn_();
    for (unsigned i = 0; i < n_staged; ++i) slots_.issue_ns[staged_[i]] = handed;
    const int rc = engine_->commit();
    out_.depths[io_depth_bucket(slots_.in_flight)] += n_staged;
    if (rc < 0) {
      errors_->end_job(std::string("submit failed: ") + std::strerror(-rc));
      issuing_ = false;
      return Step::End;  // the engine's close() cancels what it holds
    }
    // No clock read after the call: the wait reads it, and a read (~12 ns on a VM) is a fifth of
    // the null engine's whole loop per I/O at QD1.
    now = handed;
    // A full batch went out and there is room for more: fill and submit again before waiting, as
    // fio does with iodepth_batch_submit.
    if (n_staged == batch_ && !slots_.free.empty()) {
      now = now_fn_();
      return Step::Again;
    }
    return Step::Wait;
  }

  // The next I/O of the workload into `slot` (offset, direction, contents; `now` is its start);
  // with verify, a read-back that is due instead. Returns true for a read-back.
  bool prepare_request(unsigned slot, std::uint64_t now) {
    IoRequest& r = slots_.reqs[slot];
    if (verify_) [[unlikely]]
      return prepare_verified(slot);
    r.dir = next_direction();
    r.offset = offsets_->next(r.dir);
    r.length = bs_;
    r.res = 0;
    if (r.dir == Direction::Write) fill_write(r, now);
    return false;
  }

  __attribute__((noinline, cold)) bool prepare_verified(unsigned slot) {
    IoRequest& r = slots_.reqs[slot];
    r.length = bs_;
    r.res = 0;
    if (verify_->take_due_check(slot, r, slots_)) return true;
    r.dir = next_direction();
    r.offset = offsets_->next(r.dir);
    if (r.dir == Direction::Write)
      verify_->prepare_write(slot, r, slots_, [this] { return offsets_->next(Direction::Write); });
    return false;
  }

  Direction next_direction() {
    switch (member_.mode) {
      case RwMode::Read:
      case RwMode::RandRead:
        return Direction::Read;
      case RwMode::Write:
      case RwMode::RandWrite:
        return Direction::Write;
      default:
        return rng_->below(100) < member_.spec->params.rwmixread ? Direction::Read
                                                                 : Direction::Write;
    }
  }

  // What a write carries over the job's random buffer (workload option write_contents,
  // runner/measure/workload.hpp).
  void fill_write(IoRequest& r, std::uint64_t now) {
    switch (contents_) {
      case WriteContents::Stamp:
        stamp_write(r);
        return;
      case WriteContents::Scramble:
        scramble_write(r, now);
        return;
      case WriteContents::Refill:
        refill_write(r);
        return;
      case WriteContents::Fixed:
        return;
    }
  }

  // Defeat deduplicating devices: every 512 bytes of a write buffer start with a fresh stamp, as
  // fio's scramble_buffers does (arrays that deduplicate do it down to 512-byte sectors; a stamp
  // per 4 KiB left 7 of 8 sectors as the buffer's previous write had them).
  void stamp_write(IoRequest& r) {
    auto* bytes = static_cast<unsigned char*>(r.buf);
    const std::uint64_t base = (++write_stamp_ << 20) ^ rng_->next();
    for (std::uint32_t off = 0; off + 8 <= r.length; off += 512) {
      const std::uint64_t v = base ^ (r.offset + off);
      std::memcpy(bytes + off, &v, 8);
    }
  }

  // fio's scramble_buffers (io_u.c, small_content_scramble): in every 512-byte sector the
  // sector's byte offset at the start of one of its eight 64-byte lines (the same line in every
  // sector of the write, picked by the start time and offset) and the start time, seconds and
  // nanoseconds, in bytes 48-63. Those 16 bytes repeat in every sector of a write.
  void scramble_write(IoRequest& r, std::uint64_t now) {
    auto* bytes = static_cast<unsigned char*>(r.buf);
    const std::uint64_t sec = now / 1000000000u, nsec = now % 1000000000u;
    const std::uint64_t line = ((nsec ^ r.offset) & 7) * 64;
    for (std::uint32_t off = 0; off + 512 <= r.length; off += 512) {
      const std::uint64_t at = r.offset + off;
      std::memcpy(bytes + off + line, &at, 8);
      std::memcpy(bytes + off + 48, &sec, 8);
      std::memcpy(bytes + off + 56, &nsec, 8);
    }
  }

  // fio's refill_buffers: new random bytes over the whole write.
  void refill_write(IoRequest& r) {
    auto* bytes = static_cast<unsigned char*>(r.buf);
    for (std::uint32_t off = 0; off + 8 <= r.length; off += 8) {
      const std::uint64_t v = rng_->next();
      std::memcpy(bytes + off, &v, 8);
    }
  }

  // One more workload I/O went out; open loop: I/O k is due at t0 + k / rate.
  void count_issued() {
    if (rate_ > 0)
      next_due_ =
          plan_.t0 + static_cast<std::uint64_t>(static_cast<double>(++rated_) * 1e9 / rate_);
    ++issued_;
  }

  // A requeued request out of retry time: an I/O error. With continue_on_error its slot is free
  // again (true: go on filling); else the job ends (false).
  __attribute__((noinline, cold)) bool give_up_retry(unsigned slot) {
    IoRequest& r = slots_.reqs[slot];
    const int err = r.res < 0 ? static_cast<int>(-r.res) : EIO;
    on_io_error(r.dir, r.offset, err,
                "I/O at offset " + std::to_string(r.offset) + " still not done after " +
                    format_duration_fio(static_cast<double>(retry_limit_ns_) / 1e9) +
                    " of retries (" + errno_with_name(err) + ")");
    retries_->pop();
    if (!errors_->continue_on_error()) return false;
    if (retries_->in_parts(slot)) {
      r.res = -err;
      retries_->join_parts(r, slot);
    }
    slots_.free.push_back(slot);
    return true;
  }

  void on_io_error(Direction dir, std::uint64_t offset, int err, const std::string& what) {
    if (errors_->io_error(dir, offset, err, what)) issuing_ = false;
  }

  // A completion: requeued (EAGAIN, short), a verify read-back, an error or a counted I/O. The
  // slot is free again unless its request was requeued.
  void complete(unsigned slot, std::uint64_t completed) {
    IoRequest& r = slots_.reqs[slot];
    if (r.res < static_cast<std::int64_t>(r.length)) [[unlikely]] {
      if (retries_->requeue(r, slot, out_.dir[static_cast<int>(r.dir)], !verify_)) return;
    }
    if (retries_->in_parts(slot)) [[unlikely]]
      retries_->join_parts(r, slot);
    slots_.free.push_back(slot);
    if (verify_) [[unlikely]] {
      if (verify_->complete(slot, r)) return;
    }
    accounting_->note_completion(completed);
    if (r.res <= 0 && r.length > 0) [[unlikely]] {
      failed_io(r);
      return;
    }
    accounting_->add(r, slots_.start_ns[slot], slots_.issue_ns[slot], completed);
  }

  // Nothing transferred and no errno: the device ended before the offset (a block device that
  // shrank or went away reads as end of file); counted as EIO.
  __attribute__((noinline, cold)) void failed_io(const IoRequest& r) {
    const int err = r.res < 0 ? static_cast<int>(-r.res) : EIO;
    const std::string why =
        r.res < 0 ? errno_with_name(err)
                  : "transferred 0 of " + std::to_string(r.length) + " bytes (end of device)";
    on_io_error(r.dir, r.offset, err,
                std::string(r.dir == Direction::Write ? "write" : "read") + " error at offset " +
                    std::to_string(r.offset) + ": " + why);
  }

  // fio's fadvise_hint on this job's descriptor over its region (readahead of buffered I/O); a
  // target that takes no advice (the null engine, a character device) is left as it is.
  void advise(FadviseHint hint) const {
    const int fd = engine_->fd();
    if (hint == FadviseHint::None || fd < 0) return;
    int advice = hint == FadviseHint::Random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
    if (hint == FadviseHint::Pattern && rw_random(member_.mode)) advice = POSIX_FADV_RANDOM;
    (void)::posix_fadvise(fd, static_cast<off_t>(member_.region_offset),
                          static_cast<off_t>(member_.region_size), advice);
  }

  // Nothing in flight and nothing to submit yet: a rated workload sleeps until its next I/O is due.
  void pace(std::uint64_t& now) {
    if (rate_ > 0 && next_due_ > now && retries_->empty()) {
      sleep_until(now_fn_, std::min(next_due_, now + 100000000));  // notice a stop promptly
      now = now_fn_();
    }
  }

  // Waits for at least one completion (waking in time for the end of the run and for the next due
  // I/O of a rated workload), accounts every one reaped, then checks io_timeout and the drain.
  // Returns false when the job ends.
  bool reap_completions(std::uint64_t& now) {
    std::uint64_t wait_ns = 100000000;  // 100 ms: notice a stop request promptly
    if (issuing_ && time_based_ && plan_.end > now) wait_ns = std::min(wait_ns, plan_.end - now);
    if (issuing_ && rate_ > 0 && !slots_.free.empty())
      wait_ns = std::min(wait_ns, next_due_ > now ? next_due_ - now : 0);
    // iodepth_batch_complete_min: wait for a batch (fewer wake-ups), not while a rate paces.
    const unsigned reap_min =
        issuing_ && rate_ <= 0
            ? std::clamp(member_.spec->iodepth_batch_complete, 1u, std::max(1u, slots_.in_flight))
            : 1;
    // iodepth_batch_complete_max: take at most that many (fio's one per reap), else all ready.
    const unsigned batch_max = member_.spec->iodepth_batch_complete_max;
    const unsigned reap_max = batch_max ? std::clamp(batch_max, reap_min, depth_) : depth_;
    const int n =
        engine_->reap(reap_min, reap_max, reaped_.data(), std::chrono::nanoseconds(wait_ns));
    const std::uint64_t t = now_fn_();
    now = t;  // the next batch is prepared right after this reap
    if (n < 0 && n != -EINTR && n != -ETIME && n != -EAGAIN) {
      errors_->end_job(std::string("reap failed: ") + std::strerror(-n));
      return false;
    }
    for (int i = 0; i < n; ++i) {
      auto slot = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(reaped_[i]->cookie));
      complete(slot, t);
      slots_.busy[slot] = 0;
      --slots_.in_flight;
    }
    // At most once per kPublishEveryNs: two relaxed stores and two atomic adds per reap were
    // about a tenth of the null engine's loop at iodepth 1. The sampler's early-stop samples are
    // 10-250 ms (early_stop.hpp): a count up to 0.1 ms old moves a 10 ms sample by at most 1%.
    if (n > 0 && t - published_ns_ >= kPublishEveryNs) {
      publish_progress();
      published_ns_ = t;
    }
    // With io_timeout, a job that already failed stops here rather than drain (as before the
    // split).
    if (io_timeout_ns_ && slots_.in_flight > 0 && (timed_out(t) || errors_->failed())) return false;
    if (!issuing_ && t > drain_deadline_) {
      errors_->end_job(std::to_string(slots_.in_flight) +
                       " I/Os still in flight 30s after the end");
      return false;
    }
    return true;
  }

  // A request outstanding past io_timeout. The engine cannot take it back, so it ends the job even
  // with continue_on_error; it is counted as ETIMEDOUT in its direction.
  __attribute__((noinline, cold)) bool timed_out(std::uint64_t t) {
    for (unsigned s = 0; s < depth_; ++s) {
      if (!slots_.busy[s] || t - slots_.issue_ns[s] <= io_timeout_ns_) continue;
      const IoRequest& r = slots_.reqs[s];
      const std::string what =
          "I/O at offset " + std::to_string(r.offset) + " did not complete within io_timeout " +
          format_duration_fio(member_.spec->io_timeout_s) + " (" + errno_with_name(ETIMEDOUT) + ")";
      on_io_error(r.dir, r.offset, ETIMEDOUT, what);
      errors_->end_job(what, /*keep_first=*/true);
      return true;
    }
    return false;
  }

  // The running totals for the sampler thread (early stop) and the live progress line.
  // The live counters are the sum over jobs: each job adds what it counted since it last did (a
  // store would leave the last job's own count, a fraction of the workload's).
  void publish_progress() {
    const std::uint64_t ios = out_.dir[0].ios + out_.dir[1].ios;
    const std::uint64_t bytes = out_.dir[0].bytes + out_.dir[1].bytes;
    out_.progress_ios.store(ios, std::memory_order_relaxed);
    out_.progress_bytes.store(bytes, std::memory_order_relaxed);
    out_.progress_written.store(out_.dir[1].bytes, std::memory_order_relaxed);
    if (live_) {
      live_->ios.fetch_add(ios - live_ios_, std::memory_order_relaxed);
      live_->bytes.fetch_add(bytes - live_bytes_, std::memory_order_relaxed);
      live_ios_ = ios;
      live_bytes_ = bytes;
      if (accounting_->measuring()) live_->measuring.store(true, std::memory_order_relaxed);
    }
  }

  void allocate_buffers() {
    const auto& p = member_.spec->params;
    // Align each buffer to 4 KiB (the largest common logical block), round its stride up too.
    stride_ = (p.bs + 4095) / 4096 * 4096;
    // A pool of 2 MiB or more goes on transparent huge pages where the kernel has them. A
    // request's memory is one segment per physically contiguous run; pool pages faulted one by
    // one come back scattered (2 of 8,193 adjacent in a 1M x 32 pool here), so a 1M request
    // was 256 segments, which a device with max_segments 128 (loop; AHCI has 168) splits in
    // two, and a virtual disk passes to the host as 256 pieces: the device then sees another
    // workload than the one asked for, and how much so depends on the allocator's luck.
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    std::size_t len = stride_ * depth_;
    const bool huge = len >= kHuge;
    if (huge) len = (len + kHuge - 1) / kHuge * kHuge;
    buffers_ = static_cast<unsigned char*>(std::aligned_alloc(huge ? kHuge : 4096, len));
    if (!buffers_) throw std::bad_alloc();
    if (huge) (void)::madvise(buffers_, len, MADV_HUGEPAGE);  // a hint: no THP, 4 KiB pages
    // Incompressible contents: compressing devices (zram, SandForce) report fantasy numbers on
    // zeros.
    Random fill(0xB0FFE125ull + member_.first + index_);
    for (std::size_t off = 0; off < stride_ * depth_; off += 8) {
      std::uint64_t v = fill.next();
      std::memcpy(buffers_ + off, &v, 8);
    }
  }
  void* buffer(unsigned i) const { return buffers_ + static_cast<std::size_t>(i) * stride_; }

  unsigned index_;
  SharedPlan& plan_;
  const MemberPlan& member_;
  JobOutcome& out_;
  std::unique_ptr<Engine> engine_;
  unsigned depth_ = 1;
  unsigned char* buffers_ = nullptr;
  std::size_t stride_ = 0;

  // The loop's settings and state (prepare_loop), then its parts.
  NowFunction now_fn_ = nullptr;
  LiveCounters* live_ = nullptr;
  std::uint64_t live_ios_ = 0, live_bytes_ = 0;             // what this job has added to *live_
  std::uint64_t published_ns_ = 0;                          // when reap_completions last published
  static constexpr std::uint64_t kPublishEveryNs = 100000;  // 0.1 ms
  const std::atomic<bool>* stop_ = nullptr;
  std::uint32_t bs_ = 0;
  unsigned batch_ = 1;
  bool time_based_ = false;
  bool issuing_ = false;
  std::uint64_t io_timeout_ns_ = 0, retry_limit_ns_ = 0, drain_deadline_ = UINT64_MAX;
  double rate_ = 0;
  std::uint64_t next_due_ = 0, rated_ = 0;  // open loop: when the next I/O is due, how many were
  std::uint64_t issued_ = 0, total_ios_ = 0, write_stamp_ = 0;
  WriteContents contents_ = WriteContents::Stamp;
  IoSlots slots_;
  std::vector<unsigned> staged_;
  std::vector<IoRequest*> reaped_;
  std::optional<Random> rng_;
  std::optional<OffsetGenerator> offsets_;
  std::optional<RetryQueue> retries_;
  std::optional<ErrorPolicy> errors_;
  std::optional<CompletionAccounting> accounting_;
  std::optional<VerifyTracker> verify_;
};

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

// Why the jobs cannot start, when they cannot: `usage` for a workload that does not fit the target
// (UnitError), else the engine's errno (EngineError).
struct SetupProblem {
  std::string what;
  bool usage = false;
  int error = 0;
  [[nodiscard]] bool any() const noexcept { return !what.empty(); }
};

std::FILE* open_latency_log(const RunOptions& options) {
  if (options.lat_log_path.empty()) return nullptr;
  std::FILE* lat_log = std::fopen(options.lat_log_path.c_str(), "w");
  if (!lat_log)
    throw UnitError("cannot write the latency log " + options.lat_log_path + ": " +
                    errno_text(errno));
  std::setvbuf(lat_log, nullptr, _IOFBF, 1 << 20);
  return lat_log;
}

// Once every job opened its engine: the first that could not, else the region against the target
// (offset and size inside it, aligned under O_DIRECT, at least one block); sets plan.region_size.
SetupProblem check_region(std::span<const JobOutcome> outcomes, MemberPlan& plan) {
  const auto& p = plan.spec->params;
  for (const auto& o : outcomes)
    if (!o.opened) return {o.setup_error, false, o.setup_errno};
  const JobOutcome& first = outcomes.front();
  const bool sized = p.ioengine != "null";
  std::uint64_t target_size = sized ? first.target_size : (1ull << 40);
  if (p.offset >= target_size && sized)
    return {"offset " + std::to_string(p.offset) + " is past the end of " + p.target + " (" +
                std::to_string(target_size) + " bytes)",
            true};
  plan.region_size = p.size ? p.size : target_size - p.offset;
  if (sized && p.offset + plan.region_size > target_size)
    return {"size " + format_size_fio(p.size) + " at offset " + std::to_string(p.offset) +
                " reaches past the end of " + p.target + " (" + std::to_string(target_size) +
                " bytes)",
            true};
  std::uint32_t lbs = first.logical_block;
  if (p.direct && (p.bs % lbs != 0 || p.offset % lbs != 0))
    return {"bs " + std::to_string(p.bs) + " and offset " + std::to_string(p.offset) +
                " must be multiples of the logical block size " + std::to_string(lbs) + " of " +
                p.target + " under direct=1",
            true};
  if (plan.region_size < p.bs)
    return {"the region (" + std::to_string(plan.region_size) + " bytes) is smaller than bs", true};
  return {};
}

// With verify: the caller's ledger (checked to cover this region at this bs) or one of our own.
SetupProblem prepare_ledger(const WorkloadSpec& spec, const RunOptions& options, MemberPlan& plan,
                            std::optional<VerifyLedger>& own_ledger) {
  const auto& p = spec.params;
  try {
    if (options.verify_ledger) {
      const VerifyLedger& l = *options.verify_ledger;
      if (l.region_offset() != p.offset ||
          l.region_size() / l.block_size() != plan.region_size / p.bs || l.block_size() != p.bs)
        throw UnitError("the verify ledger covers another region or bs than the workload");
      plan.ledger = options.verify_ledger;
    } else {
      own_ledger.emplace(p.offset, plan.region_size, p.bs, spec.verify);
      plan.ledger = &*own_ledger;
    }
    plan.ledger->prepare_jobs(p.numjobs);
  } catch (const UnitError& e) {
    return {e.what(), true};
  }
  return {};
}

// Once every job opened its engine: each member's region (check_region) and verify ledger; a
// group's problem names its job.
SetupProblem check_members(const RunOptions& options, std::span<MemberPlan> members,
                           std::span<const JobOutcome> outcomes,
                           std::optional<VerifyLedger>& own_ledger) {
  for (MemberPlan& m : members) {
    SetupProblem problem = check_region(outcomes.subspan(m.first, m.spec->params.numjobs), m);
    if (!problem.any() && m.spec->verify != VerifyAlgorithm::None)
      problem = prepare_ledger(*m.spec, options, m, own_ledger);
    if (problem.any()) {
      if (members.size() > 1 || !m.spec->jobs.empty())
        problem.what = "job '" + m.spec->id + "': " + problem.what;
      return problem;
    }
  }
  return {};
}

// The start line: every job (of every member of a group) opens its engine in its own thread, the
// regions are checked, then all go at t0; returns when every job ended. Throws what
// check_members found.
void run_jobs(const RunOptions& options, SharedPlan& plan, std::span<MemberPlan> members,
              std::vector<JobOutcome>& outcomes, std::optional<VerifyLedger>& own_ledger,
              WorkloadMonitor& monitor) {
  const auto& p = plan.spec->params;
  std::vector<std::unique_ptr<Job>> jobs;
  for (const MemberPlan& m : members)
    for (unsigned i = 0; i < m.spec->params.numjobs; ++i)
      jobs.push_back(std::make_unique<Job>(i, plan, m, outcomes[m.first + i]));
  const auto count = static_cast<std::ptrdiff_t>(jobs.size());
  std::barrier opened(count + 1);
  std::barrier go(count + 1);
  std::vector<std::thread> threads;
  threads.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    threads.emplace_back([&, i] {
      std::optional<PollBudget::Lease::Watch> watch;
      if (plan.poll_lease) watch.emplace(plan.poll_lease->watch_this_thread());
      jobs[i]->open();
      opened.arrive_and_wait();
      go.arrive_and_wait();
      if (!plan.abort) jobs[i]->run();
    });
  }
  opened.arrive_and_wait();
  SetupProblem problem = check_members(options, members, outcomes, own_ledger);
  plan.abort = problem.any();
  // Everything slow (the device's counters, a file read) comes before t0: at t0 the time runs, and
  // on a starved host a 0.3 s workload must not spend it here (docs/robustness.md, "A stall").
  const std::optional<DiskCounters> disk_before =
      p.ioengine == "null" || plan.abort ? std::nullopt : read_disk_counters(p.target);
  plan.t0 = options.now();
  plan.measure_start = plan.t0 + static_cast<std::uint64_t>(p.ramp_time_s * 1e9);
  plan.end = p.runtime_s > 0 ? plan.measure_start + static_cast<std::uint64_t>(p.runtime_s * 1e9)
                             : UINT64_MAX;
  if (options.live) {
    options.live->ios = 0;
    options.live->bytes = 0;
    options.live->measuring = false;
  }
  // The sampler beside the jobs: busy host, and early stop by moving plan.end forward.
  if (!plan.abort)
    monitor.start(
        plan.t0, plan.measure_start, plan.end, members.front().region_size,
        [&](std::uint64_t& ios, std::uint64_t& bytes, std::uint64_t& written) {
          for (const auto& o : outcomes) {
            ios += o.progress_ios.load(std::memory_order_relaxed);
            bytes += o.progress_bytes.load(std::memory_order_relaxed);
            written += o.progress_written.load(std::memory_order_relaxed);
          }
        },
        [&](std::uint64_t t) { plan.end.store(t); });
  const double process_cpu_before = process_cpu_seconds();
  const auto process_wall_before = std::chrono::steady_clock::now();
  go.arrive_and_wait();
  for (auto& t : threads) t.join();
  plan.process_cpu_s = process_cpu_seconds() - process_cpu_before;
  plan.process_wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - process_wall_before).count();
  if (disk_before)
    if (const auto disk_after = read_disk_counters(p.target))
      plan.disk_stats = disk_stats_between(*disk_before, *disk_after);
  monitor.finish();
  plan.limit_s = monitor.stopped_early() ? static_cast<double>(plan.end - plan.measure_start) / 1e9
                                         : p.runtime_s;
  jobs.clear();  // closes engines
  if (problem.usage) throw UnitError(problem.what);
  if (problem.any()) throw engines::EngineError(problem.what, problem.error);
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
  return r;
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
  // A time-based run has exactly runtime/interval points; drop the partial tail beyond it.
  std::size_t points = total.size();
  if (p.runtime_s > 0 && !result.interrupted)
    points = std::min<std::size_t>(
        points, static_cast<std::size_t>(std::ceil(limit_s / interval_s - 1e-9)));
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
  result.params.numjobs = static_cast<unsigned>(threads);  // a group's: every job's threads
  result.fio_command = fio_command(spec);
  result.host_busy = monitor.host_busy();
  result.early_stop = monitor.early_stop();
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
