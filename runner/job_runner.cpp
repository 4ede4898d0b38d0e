// SPDX-License-Identifier: Apache-2.0
// JobRunner: job threads, the submit/reap loop, timing and statistics (see job_runner.hpp).
//
// The loop is liburing's canonical one (io_uring-cp.c): fill to depth, commit once, wait for one
// completion and take every other one that is ready, refill. Timestamps are taken once per batch
// (before the batch is prepared, after it is committed, after it is reaped), as fio does, so that
// the clock costs per batch, not per I/O.
#include "runner/job_runner.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <barrier>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "runner/block_io_driver.hpp"
#include "runner/disk_stats.hpp"
#include "runner/io_depths.hpp"
#include "runner/latency_histogram.hpp"
#include "runner/random_map.hpp"
#include "runner/units.hpp"
#include "runner/verify.hpp"

namespace storqual::runner {

using engines::Direction;
using engines::Engine;
using engines::IoRequest;
using engines::QueueStatus;

namespace {

// The io_uring poll budget (engines::EngineConfig::spin_wait_ns). Automatic: 20 us, about ten
// completions of a fast NVMe or zram device, when the job threads leave a CPU free for the kernel
// to complete I/O on; polling threads that share every CPU with the completions would only slow
// them down.
std::uint32_t spin_wait_ns(const WorkloadSpec& spec) {
  if (spec.spin_wait_s >= 0) return static_cast<std::uint32_t>(spec.spin_wait_s * 1e9);
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  return spec.params.numjobs < static_cast<unsigned>(cpus) ? 20000u : 0u;
}

// xoshiro256** (Blackman and Vigna): fast, good enough for offsets and buffer contents.
class Random {
 public:
  explicit Random(std::uint64_t seed) {
    for (auto& s : state_) {  // splitmix64 to spread the seed
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n) by Lemire's multiply-shift (bias below 2^-64 * n, negligible).
  std::uint64_t below(std::uint64_t n) noexcept {
    return static_cast<std::uint64_t>((static_cast<Uint128>(next()) * n) >> 64);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

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

// What every job shares: the plan, and the start line.
struct SharedPlan {
  const WorkloadSpec* spec = nullptr;
  const RunOptions* options = nullptr;
  RwMode mode = RwMode::Read;
  std::uint64_t region_offset = 0;
  std::uint64_t region_size = 0;  // decided after the first job opened the target
  std::uint64_t t0 = 0;           // when the run starts (after setup), ns
  std::uint64_t measure_start = 0;
  std::uint64_t end = 0;  // time-based end, or UINT64_MAX
  bool abort = false;     // setup failed somewhere: every job leaves
  std::FILE* lat_log = nullptr;
  std::mutex lat_log_mutex;
  VerifyLedger* ledger = nullptr;  // verify on: what was written where (null: off)
};

struct JobOutcome {
  DirectionStats dir[2];
  std::optional<Timeline> timeline;
  double cpu_usr = 0, cpu_sys = 0;
  double cpu_spin = 0;  // of which polling for completions (engines::Engine::spin_ns)
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
  IoDepthCounts depths{};  // submissions by requests in flight (runner/io_depths.hpp)
};

class Job {
 public:
  Job(unsigned index, SharedPlan& plan, JobOutcome& out) : index_(index), plan_(plan), out_(out) {}

  // Phase 1: open the engine (in the job's own thread).
  void open() {
    const auto& spec = *plan_.spec;
    const auto& p = spec.params;
    try {
      engine_ = engines::make_engine(p.ioengine);
      if (plan_.options->wrap_engine) engine_ = plan_.options->wrap_engine(std::move(engine_));
      depth_ = engine_->caps().async ? p.iodepth : 1u;
      allocate_buffers();
      engines::EngineConfig cfg;
      cfg.path = p.target;
      cfg.write = rw_writes(plan_.mode);
      cfg.direct = p.direct;
      cfg.exclusive = plan_.options->exclusive;
      cfg.iodepth = depth_;
      cfg.fixed_buffers = spec.fixedbufs;
      cfg.registered_files = spec.registerfiles;
      cfg.sqpoll = spec.sqpoll;
      cfg.iopoll = spec.iopoll;
      cfg.batch_submit = spec.iodepth_batch;
      cfg.spin_wait_ns = spin_wait_ns(spec);
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

  // Phase 2: the measured loop.
  void run() {
    const auto& p = plan_.spec->params;
    const NowFunction now_fn = plan_.options->now;
    LiveCounters* live = plan_.options->live;
    const std::atomic<bool>* stop = plan_.options->stop;
    const bool is_async = engine_->caps().async;
    // Requests per submit: iodepth_batch_submit, or everything that is ready.
    const unsigned batch = plan_.spec->iodepth_batch ? plan_.spec->iodepth_batch : UINT_MAX;
    const bool random = rw_random(plan_.mode);
    const bool time_based = p.runtime_s > 0;
    VerifyLedger* const ledger = plan_.ledger;
    const std::uint64_t region_blocks = plan_.region_size / p.bs;
    // With verify, job j alone writes blocks j, j + numjobs, ... so that each block's last write
    // is known (as fio, verify needs jobs that do not overlap).
    const std::uint64_t blocks =
        !ledger
            ? region_blocks
            : (region_blocks > index_ ? (region_blocks - index_ + p.numjobs - 1) / p.numjobs : 0);
    const std::uint64_t total_ios = time_based ? UINT64_MAX : blocks;
    const std::uint64_t io_timeout_ns = static_cast<std::uint64_t>(plan_.spec->io_timeout_s * 1e9);
    LatencyLogWriter lat_log(plan_.lat_log, &plan_.lat_log_mutex);

    out_.timeline.emplace(static_cast<std::uint64_t>(plan_.spec->interval_s * 1e9));
    std::vector<IoRequest> reqs(depth_);
    std::vector<std::uint64_t> start_ns(depth_), issue_ns(depth_);
    std::vector<unsigned> free_slots(depth_), staged(depth_);
    std::vector<std::uint8_t> busy(depth_, 0);  // slot is in flight
    std::vector<unsigned> retry;                // slots whose request goes again
    retry.reserve(depth_);
    std::vector<std::uint32_t> partial(depth_, 0);  // bytes a short transfer already moved
    std::vector<IoRequest*> reaped(depth_);
    std::iota(free_slots.rbegin(), free_slots.rend(), 0u);
    for (unsigned i = 0; i < depth_; ++i) {
      reqs[i].buf = buffer(i);
      reqs[i].buf_index = static_cast<int>(i);
      reqs[i].cookie = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i));
    }

    Random rng(0x5354525155414cull ^ (static_cast<std::uint64_t>(index_) << 32) ^ plan_.t0);
    // fio's random map (the default): every block once per pass, in a random order; with
    // norandommap each offset is drawn independently (with replacement).
    std::optional<RandomMap> random_map;
    if (random && p.randommap && blocks > 0) random_map.emplace(blocks, rng.next());
    // Open-loop rate: I/O k is due at t0 + k / rate; its latency counts from then.
    const double rate = plan_.spec->effective_rate_iops();
    std::uint64_t next_due = plan_.t0, rated = 0;
    std::uint64_t seq_next = 0, issued = 0, write_stamp = 0;
    unsigned in_flight = 0;
    bool issuing = blocks > 0, measuring = false, failed = false;
    rusage ru_start{};
    getrusage(RUSAGE_THREAD, &ru_start);
    std::uint64_t spin_start = engine_->spin_ns();
    const std::uint64_t drain_limit_ns = 30ull * 1000000000ull;
    // How long a request may keep coming back with EAGAIN or short before it is an error.
    const std::uint64_t retry_limit_ns = io_timeout_ns ? io_timeout_ns : drain_limit_ns;
    std::uint64_t drain_deadline = UINT64_MAX;

    // The live counters are the sum over jobs: each job adds what it counted since it last did.
    std::uint64_t live_ios = 0, live_bytes = 0;
    auto publish_live = [&] {
      const std::uint64_t ios = out_.dir[0].ios + out_.dir[1].ios;
      const std::uint64_t bytes = out_.dir[0].bytes + out_.dir[1].bytes;
      live->ios.fetch_add(ios - live_ios, std::memory_order_relaxed);
      live->bytes.fetch_add(bytes - live_bytes, std::memory_order_relaxed);
      live_ios = ios;
      live_bytes = bytes;
      if (measuring) live->measuring.store(true, std::memory_order_relaxed);
    };
    auto next_offset = [&]() -> std::uint64_t {
      std::uint64_t block;
      if (random) {
        block = random_map ? random_map->next() : rng.below(blocks);
      } else {
        block = seq_next;
        if (++seq_next == blocks) seq_next = 0;
      }
      if (ledger) block = block * p.numjobs + index_;
      return plan_.region_offset + block * p.bs;
    };
    auto next_direction = [&]() -> Direction {
      switch (plan_.mode) {
        case RwMode::Read:
        case RwMode::RandRead:
          return Direction::Read;
        case RwMode::Write:
        case RwMode::RandWrite:
          return Direction::Write;
        default:
          return rng.below(100) < p.rwmixread ? Direction::Read : Direction::Write;
      }
    };
    // Defeat deduplicating devices: every 512 bytes of a write buffer start with a fresh stamp,
    // as fio's scramble_buffers does (arrays that deduplicate do it down to 512-byte sectors; a
    // stamp per 4 KiB left 7 of 8 sectors as the buffer's previous write had them).
    auto stamp_write = [&](IoRequest& r) {
      auto* bytes = static_cast<unsigned char*>(r.buf);
      const std::uint64_t base = (++write_stamp << 20) ^ rng.next();
      for (std::uint32_t off = 0; off + 8 <= r.length; off += 512) {
        const std::uint64_t v = base ^ (r.offset + off);
        std::memcpy(bytes + off, &v, 8);
      }
    };
    // Verify (ledger set): per-slot state, the backlog of recent writes and the read-backs due.
    std::vector<std::uint8_t> slot_is_check, slot_raced;
    std::vector<std::uint64_t> slot_sequence, backlog, checks_due;
    std::uint64_t backlog_written = 0;
    const unsigned backlog_every = ledger ? plan_.spec->verify_backlog : 0;
    const unsigned backlog_batch =
        std::min(backlog_every, plan_.spec->verify_backlog_batch ? plan_.spec->verify_backlog_batch
                                                                 : backlog_every);
    if (ledger) {
      slot_is_check.assign(depth_, 0);
      slot_raced.assign(depth_, 0);
      slot_sequence.assign(depth_, 0);
      backlog.assign(backlog_every, 0);
      checks_due.reserve(backlog_batch);
    }
    auto in_flight_at = [&](std::uint64_t off) {
      for (unsigned s = 0; s < depth_; ++s)
        if (busy[s] && reqs[s].offset == off) return true;
      return false;
    };
    // Prepares the I/O of `slot` with verify on: a backlog read-back when one is due, else the
    // workload's next I/O, a write carrying a header; says which in `is_check`.
    auto prepare_verified = [&](unsigned slot, bool& is_check) __attribute__((noinline, cold)) {
      IoRequest& r = reqs[slot];
      r.length = static_cast<std::uint32_t>(p.bs);
      r.res = 0;
      while (!checks_due.empty()) {
        const std::uint64_t off = checks_due.back();
        checks_due.pop_back();
        if (in_flight_at(off)) continue;  // being rewritten: its check is moot
        r.dir = Direction::Read;
        r.offset = off;
        slot_is_check[slot] = 1;
        slot_sequence[slot] = ledger->expected(ledger->block_of(off));
        is_check = true;
        return;
      }
      is_check = false;
      slot_is_check[slot] = 0;
      r.dir = next_direction();
      r.offset = next_offset();
      if (r.dir != Direction::Write) return;
      // Two writes of one block in flight at once leave its content to the device's order.
      for (int tries = 0; tries < 8 && in_flight_at(r.offset); ++tries) r.offset = next_offset();
      slot_raced[slot] = in_flight_at(r.offset);
      slot_sequence[slot] = ledger->next_sequence(index_);
      fill_verified_block(r.buf, r.length, r.offset, ledger->run_id(), slot_sequence[slot],
                          static_cast<std::uint16_t>(index_), ledger->algorithm(),
                          ledger->payload());
    };
    // Completion with verify on; true when the I/O was a read-back (not workload I/O).
    auto complete_verified = [&](unsigned slot) __attribute__((noinline, cold)) {
      IoRequest& r = reqs[slot];
      if (slot_is_check[slot]) {
        slot_is_check[slot] = 0;
        ++out_.verified_inline;
        if (r.res != static_cast<std::int64_t>(r.length)) {
          out_.inline_tally.read_error();
        } else {
          const auto expected = static_cast<std::uint32_t>(slot_sequence[slot]);
          BlockCheck c = check_block(r.buf, r.length, r.offset, ledger->run_id(), expected,
                                     ledger->algorithm());
          out_.inline_tally.add(c.state, r.offset, c, expected);
        }
        return true;
      }
      if (r.dir != Direction::Write) return false;
      const bool whole = r.res == static_cast<std::int64_t>(r.length) && !slot_raced[slot];
      ledger->record(ledger->block_of(r.offset),
                     whole ? static_cast<std::uint32_t>(slot_sequence[slot]) : kAnySequence);
      if (backlog_every && whole) {
        backlog[backlog_written % backlog_every] = r.offset;
        if (++backlog_written % backlog_every == 0)
          for (unsigned i = 0; i < backlog_batch; ++i)
            checks_due.push_back(backlog[(backlog_written - 1 - i) % backlog_every]);
      }
      return false;
    };
    // EAGAIN and short transfers are not errors: the request, or the rest of it, goes again (as
    // liburing's examples do), keeping its start time. A short transfer under verify is counted
    // as it is (the ledger needs whole blocks). Returns true when the slot was requeued.
    auto requeue = [&](unsigned slot) __attribute__((noinline, cold)) {
      IoRequest& r = reqs[slot];
      if (r.res == -EAGAIN) {
        ++out_.dir[static_cast<int>(r.dir)].eagain_retries;
        retry.push_back(slot);
      } else if (r.res > 0 && r.res < static_cast<std::int64_t>(r.length) && !ledger) {
        const auto n = static_cast<std::uint32_t>(r.res);
        ++out_.dir[static_cast<int>(r.dir)].short_ios;
        partial[slot] += n;
        r.buf = static_cast<unsigned char*>(r.buf) + n;
        r.offset += n;
        r.length -= n;
        retry.push_back(slot);
      } else {
        return false;
      }
      return true;
    };
    // The last part of a request that went in parts: the whole request again, fully transferred.
    auto join_parts = [&](unsigned slot) __attribute__((noinline, cold)) {
      IoRequest& r = reqs[slot];
      const std::uint32_t n = partial[slot];
      partial[slot] = 0;
      r.buf = static_cast<unsigned char*>(r.buf) - n;
      r.offset -= n;
      r.length += n;
      if (r.res >= 0) r.res += n;
    };
    // Ends the job on an I/O error (unless continue_on_error), counting it in its direction with
    // the first errno and offset. `err` is a positive errno.
    auto io_error = [&](Direction dir, std::uint64_t offset, int err, const std::string& what)
        __attribute__((noinline, cold)) {
      DirectionStats& s = out_.dir[static_cast<int>(dir)];
      if (s.errors++ == 0) {
        s.first_errno = err;
        s.first_error_offset = offset;
      }
      if (!plan_.spec->continue_on_error && !failed) {
        failed = true;
        issuing = false;
        out_.run_error = what;
      }
    };
    // Returns false when the request was requeued (its slot stays taken).
    auto account = [&](unsigned slot, std::uint64_t completed) -> bool {
      IoRequest& r = reqs[slot];
      if (r.res < static_cast<std::int64_t>(r.length)) [[unlikely]] {
        if (requeue(slot)) return false;
      }
      if (partial[slot]) [[unlikely]]
        join_parts(slot);
      if (ledger) [[unlikely]] {
        if (complete_verified(slot)) return true;
      }
      const int d = static_cast<int>(r.dir);
      if (!measuring && completed >= plan_.measure_start) {
        measuring = true;
        getrusage(RUSAGE_THREAD, &ru_start);
        spin_start = engine_->spin_ns();
      }
      if (r.res <= 0 && r.length > 0) [[unlikely]] {
        // Nothing transferred and no errno: the device ended before the offset (a block device
        // that shrank or went away reads as end of file); counted as EIO.
        const int err = r.res < 0 ? static_cast<int>(-r.res) : EIO;
        const std::string why =
            r.res < 0 ? errno_with_name(err)
                      : "transferred 0 of " + std::to_string(r.length) + " bytes (end of device)";
        io_error(r.dir, r.offset, err,
                 std::string(d ? "write" : "read") + " error at offset " +
                     std::to_string(r.offset) + ": " + why);
        return true;
      }
      if (completed < plan_.measure_start || completed > plan_.end) return true;
      DirectionStats& s = out_.dir[d];
      const auto bytes = static_cast<std::uint64_t>(r.res);
      ++s.ios;
      s.bytes += bytes;
      if (bytes < r.length) ++s.short_ios;
      const std::uint64_t clat = completed - issue_ns[slot];
      if (is_async) s.slat.add(issue_ns[slot] - start_ns[slot]);
      s.clat.add(clat);
      s.lat.add(completed - start_ns[slot]);
      IntervalSample& iv = out_.timeline->at(completed - plan_.measure_start);
      ++iv.ios[d];
      iv.bytes[d] += bytes;
      iv.clat_sum[d] += clat;
      out_.last_completion = completed;
      if (lat_log.enabled())
        lat_log.add((completed - plan_.measure_start) / 1000000, clat, d, r.length, r.offset);
      return true;
    };

    std::uint64_t now = now_fn();
    while (true) {
      if (issuing && ((stop && stop->load(std::memory_order_relaxed)) ||
                      (time_based && now >= plan_.end) || issued >= total_ios)) {
        issuing = false;
        if (stop && stop->load(std::memory_order_relaxed)) out_.interrupted = true;
      }
      if (!issuing && drain_deadline == UINT64_MAX) drain_deadline = now + drain_limit_ns;
      // Requeued requests go on after the end too (as I/Os in flight are drained), until they
      // finish or run out of retry time: an EAGAIN storm is not hidden by the end of the run.
      const bool retrying =
          !retry.empty() && !failed && !(stop && stop->load(std::memory_order_relaxed));
      if (issuing || retrying) {
        unsigned n_staged = 0;
        while (n_staged < batch) {
          // A requeued request (EAGAIN, the rest of a short transfer) goes before new ones.
          const bool again = !retry.empty();
          if (!again) {
            if (!issuing || free_slots.empty() || issued >= total_ios) break;
            if (rate > 0 && next_due > now) break;  // not due yet
          }
          unsigned slot = again ? retry.back() : free_slots.back();
          IoRequest& r = reqs[slot];
          bool is_check = false;
          if (again) [[unlikely]] {
            if (now - start_ns[slot] > retry_limit_ns) {
              const int err = r.res < 0 ? static_cast<int>(-r.res) : EIO;
              io_error(r.dir, r.offset, err,
                       "I/O at offset " + std::to_string(r.offset) + " still not done after " +
                           format_duration_fio(static_cast<double>(retry_limit_ns) / 1e9) +
                           " of retries (" + errno_with_name(err) + ")");
              retry.pop_back();
              if (plan_.spec->continue_on_error) {
                if (partial[slot]) {
                  r.res = -err;
                  join_parts(slot);
                }
                free_slots.push_back(slot);
                continue;
              }
              break;
            }
          } else if (!ledger) [[likely]] {
            r.dir = next_direction();
            r.offset = next_offset();
            r.length = static_cast<std::uint32_t>(p.bs);
            r.res = 0;
            if (r.dir == Direction::Write) stamp_write(r);
          } else {
            prepare_verified(slot, is_check);
          }
          if (!again) start_ns[slot] = rate > 0 ? next_due : now;
          QueueStatus st = engine_->queue(r);
          if (st == QueueStatus::Busy) {
            if (is_check) checks_due.push_back(r.offset);  // try again next turn
            break;
          }
          if (again) {
            retry.pop_back();
          } else {
            free_slots.pop_back();
          }
          if (!again && !is_check) {
            if (rate > 0)
              next_due =
                  plan_.t0 + static_cast<std::uint64_t>(static_cast<double>(++rated) * 1e9 / rate);
            ++issued;
          }
          if (st == QueueStatus::Completed) {
            ++out_.depths[io_depth_bucket(in_flight + 1)];
            std::uint64_t t = now_fn();
            issue_ns[slot] = now;
            if (account(slot, t)) free_slots.push_back(slot);
            now = t;
            if (!issuing || (time_based && now >= plan_.end) ||
                (stop && stop->load(std::memory_order_relaxed)))
              break;
            if (live && (issued & 255) == 0) publish_live();
          } else {
            staged[n_staged++] = slot;
            busy[slot] = 1;
            ++in_flight;
          }
        }
        if (n_staged) {
          // Issue is the start of the submit call: the kernel has the I/Os from there (a
          // block device's own service-time clock starts inside the call), so clat brackets it.
          const std::uint64_t handed = now_fn();
          for (unsigned i = 0; i < n_staged; ++i) issue_ns[staged[i]] = handed;
          int rc = engine_->commit();
          out_.depths[io_depth_bucket(in_flight)] += n_staged;
          if (rc < 0) {
            out_.run_error = std::string("submit failed: ") + std::strerror(-rc);
            issuing = false;
            failed = true;
            break;  // the engine's close() cancels what it holds
          }
          // No clock read after the call: the wait below reads it, and a read (~12 ns on a VM)
          // is a fifth of the null engine's whole loop per I/O at QD1.
          now = handed;
          // A full batch went out and there is room for more: fill and submit again before
          // waiting, as fio does with iodepth_batch_submit.
          if (n_staged == batch && !free_slots.empty()) {
            now = now_fn();
            continue;
          }
        }
      }
      if (in_flight == 0) {
        if (!issuing && !retrying) break;
        if (rate > 0 && next_due > now && retry.empty()) {
          sleep_until(now_fn, std::min(next_due, now + 100000000));  // notice a stop promptly
          now = now_fn();
        }
        continue;
      }
      // Wait for at least one completion; wake up in time for the end of the run and for the next
      // due I/O of a rated workload.
      std::uint64_t wait_ns = 100000000;  // 100 ms: notice a stop request promptly
      if (issuing && time_based && plan_.end > now) wait_ns = std::min(wait_ns, plan_.end - now);
      if (issuing && rate > 0 && !free_slots.empty())
        wait_ns = std::min(wait_ns, next_due > now ? next_due - now : 0);
      int n = engine_->reap(1, depth_, reaped.data(), std::chrono::nanoseconds(wait_ns));
      std::uint64_t t = now_fn();
      now = t;  // the next batch is prepared right after this reap
      if (n < 0 && n != -EINTR && n != -ETIME && n != -EAGAIN) {
        out_.run_error = std::string("reap failed: ") + std::strerror(-n);
        failed = true;
        break;
      }
      for (int i = 0; i < n; ++i) {
        auto slot = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(reaped[i]->cookie));
        if (account(slot, t)) free_slots.push_back(slot);
        busy[slot] = 0;
        --in_flight;
      }
      if (live && n > 0) publish_live();
      if (io_timeout_ns && in_flight > 0) {
        for (unsigned s = 0; s < depth_; ++s) {
          if (busy[s] && t - issue_ns[s] > io_timeout_ns) {
            // The engine cannot take a request back, so a timeout ends the job even with
            // continue_on_error; it is counted as ETIMEDOUT in its direction.
            const std::string what = "I/O at offset " + std::to_string(reqs[s].offset) +
                                     " did not complete within io_timeout " +
                                     format_duration_fio(plan_.spec->io_timeout_s) + " (" +
                                     errno_with_name(ETIMEDOUT) + ")";
            io_error(reqs[s].dir, reqs[s].offset, ETIMEDOUT, what);
            if (out_.run_error.empty()) out_.run_error = what;
            failed = true;
            break;
          }
        }
        if (failed) break;
      }
      if (!issuing && t > drain_deadline) {
        out_.run_error = std::to_string(in_flight) + " I/Os still in flight 30s after the end";
        failed = true;
        break;
      }
    }
    // continue_on_error went through errors: the workload still ends in error, with the counts.
    if (out_.run_error.empty() && plan_.spec->continue_on_error) [[unlikely]] {
      for (int d = 0; d < 2; ++d) {
        const DirectionStats& s = out_.dir[d];
        if (!s.errors) continue;
        out_.run_error += std::string(out_.run_error.empty() ? "" : "; ") +
                          std::to_string(s.errors) + (d ? " write" : " read") +
                          (s.errors == 1 ? " error" : " errors") + ", the first at offset " +
                          std::to_string(s.first_error_offset) + ": " +
                          errno_with_name(s.first_errno);
      }
      if (!out_.run_error.empty()) out_.run_error += " (continue_on_error: the workload went on)";
    }
    rusage ru_end{};
    getrusage(RUSAGE_THREAD, &ru_end);
    out_.cpu_usr = thread_cpu_seconds(ru_end, true) - thread_cpu_seconds(ru_start, true);
    out_.cpu_sys = thread_cpu_seconds(ru_end, false) - thread_cpu_seconds(ru_start, false);
    out_.cpu_spin = static_cast<double>(engine_->spin_ns() - spin_start) / 1e9;
    lat_log.flush();
    engine_->close();
  }

  ~Job() {
    if (engine_) engine_->close();
    std::free(buffers_);
  }

 private:
  void allocate_buffers() {
    const auto& p = plan_.spec->params;
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
    Random fill(0xB0FFE125ull + index_);
    for (std::size_t off = 0; off < stride_ * depth_; off += 8) {
      std::uint64_t v = fill.next();
      std::memcpy(buffers_ + off, &v, 8);
    }
  }
  void* buffer(unsigned i) const { return buffers_ + static_cast<std::size_t>(i) * stride_; }

  unsigned index_;
  SharedPlan& plan_;
  JobOutcome& out_;
  std::unique_ptr<Engine> engine_;
  unsigned depth_ = 1;
  unsigned char* buffers_ = nullptr;
  std::size_t stride_ = 0;
};

reporting::LatencySummary summarize(const LatencyHistogram& h) {
  reporting::LatencySummary s;
  s.samples = h.count();
  s.min_ns = h.min();
  s.max_ns = h.max();
  s.mean_ns = h.mean();
  s.stdev_ns = h.stdev();
  s.percentiles = h.percentiles(kFioPercentiles);
  return s;
}

std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace

reporting::WorkloadResult run_workload(const WorkloadSpec& spec, const RunOptions& options) {
  validate(spec);
  const auto& p = spec.params;
  SharedPlan plan;
  plan.spec = &spec;
  plan.options = &options;
  plan.mode = parse_rw(p.rw);
  plan.region_offset = p.offset;

  std::FILE* lat_log = nullptr;
  if (!options.lat_log_path.empty()) {
    lat_log = std::fopen(options.lat_log_path.c_str(), "w");
    if (!lat_log)
      throw UnitError("cannot write the latency log " + options.lat_log_path + ": " +
                      errno_text(errno));
    std::setvbuf(lat_log, nullptr, _IOFBF, 1 << 20);
  }
  plan.lat_log = lat_log;

  const unsigned numjobs = p.numjobs;
  std::vector<JobOutcome> outcomes(numjobs);
  std::vector<std::unique_ptr<Job>> jobs;
  for (unsigned i = 0; i < numjobs; ++i)
    jobs.push_back(std::make_unique<Job>(i, plan, outcomes[i]));

  // Start line: every job opens its engine, the coordinator checks the region, then all go.
  std::barrier opened(static_cast<std::ptrdiff_t>(numjobs) + 1);
  std::barrier go(static_cast<std::ptrdiff_t>(numjobs) + 1);
  std::vector<std::thread> threads;
  threads.reserve(numjobs);
  for (unsigned i = 0; i < numjobs; ++i) {
    threads.emplace_back([&, i] {
      jobs[i]->open();
      opened.arrive_and_wait();
      go.arrive_and_wait();
      if (!plan.abort) jobs[i]->run();
    });
  }
  opened.arrive_and_wait();

  std::string setup_problem;
  bool setup_is_usage = false;
  int setup_errno = 0;
  for (const auto& o : outcomes) {
    if (!o.opened) {
      setup_problem = o.setup_error;
      setup_errno = o.setup_errno;
      break;
    }
  }
  if (setup_problem.empty()) {
    const JobOutcome& first = outcomes.front();
    const bool sized = p.ioengine != "null";
    std::uint64_t target_size = sized ? first.target_size : (1ull << 40);
    if (p.offset >= target_size && sized) {
      setup_problem = "offset " + std::to_string(p.offset) + " is past the end of " + p.target +
                      " (" + std::to_string(target_size) + " bytes)";
      setup_is_usage = true;
    } else {
      plan.region_size = p.size ? p.size : target_size - p.offset;
      if (sized && p.offset + plan.region_size > target_size) {
        setup_problem = "size " + format_size_fio(p.size) + " at offset " +
                        std::to_string(p.offset) + " reaches past the end of " + p.target + " (" +
                        std::to_string(target_size) + " bytes)";
        setup_is_usage = true;
      }
    }
    std::uint32_t lbs = first.logical_block;
    if (setup_problem.empty() && p.direct && (p.bs % lbs != 0 || p.offset % lbs != 0)) {
      setup_problem = "bs " + std::to_string(p.bs) + " and offset " + std::to_string(p.offset) +
                      " must be multiples of the logical block size " + std::to_string(lbs) +
                      " of " + p.target + " under direct=1";
      setup_is_usage = true;
    }
    if (setup_problem.empty() && plan.region_size < p.bs) {
      setup_problem =
          "the region (" + std::to_string(plan.region_size) + " bytes) is smaller than bs";
      setup_is_usage = true;
    }
  }
  std::optional<VerifyLedger> own_ledger;
  if (setup_problem.empty() && spec.verify != VerifyAlgorithm::None) {
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
      plan.ledger->prepare_jobs(numjobs);
    } catch (const UnitError& e) {
      setup_problem = e.what();
      setup_is_usage = true;
    }
  }
  plan.abort = !setup_problem.empty();
  plan.t0 = options.now();
  plan.measure_start = plan.t0 + static_cast<std::uint64_t>(p.ramp_time_s * 1e9);
  plan.end = p.runtime_s > 0 ? plan.measure_start + static_cast<std::uint64_t>(p.runtime_s * 1e9)
                             : UINT64_MAX;
  if (options.live) {
    options.live->ios = 0;
    options.live->bytes = 0;
    options.live->measuring = false;
  }
  // The device's own counters around the jobs (fio's "Disk stats"); none for the null engine.
  const std::optional<DiskCounters> disk_before =
      p.ioengine == "null" || plan.abort ? std::nullopt : read_disk_counters(p.target);
  go.arrive_and_wait();
  for (auto& t : threads) t.join();
  const std::optional<DiskCounters> disk_after =
      disk_before ? read_disk_counters(p.target) : std::nullopt;
  jobs.clear();  // closes engines
  if (lat_log) std::fclose(lat_log);

  if (plan.abort) {
    if (setup_is_usage) throw UnitError(setup_problem);
    throw engines::EngineError(setup_problem, setup_errno);
  }

  // Merge the jobs.
  reporting::WorkloadResult result;
  result.id = spec.id;
  result.params = p;
  if (disk_before && disk_after) result.disk_stats = disk_stats_between(*disk_before, *disk_after);
  result.io_depths.submitted.assign(kIoDepthBuckets, 0);
  for (const auto& o : outcomes)
    for (std::size_t b = 0; b < kIoDepthBuckets; ++b) result.io_depths.submitted[b] += o.depths[b];
  result.fio_command = fio_command(spec);
  DirectionStats merged[2];
  std::uint64_t last_completion = plan.measure_start;
  double usr = 0, sys = 0, spin = 0, max_thread = 0;
  std::uint64_t interval_ns = 0;
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
    if (o.timeline) interval_ns = std::max(interval_ns, o.timeline->interval_ns());
    if (!o.run_error.empty()) result.errors.push_back(o.run_error);
    if (o.interrupted) result.interrupted = true;
  }
  double elapsed = p.runtime_s > 0 && !result.interrupted && result.errors.empty()
                       ? p.runtime_s
                       : static_cast<double>(last_completion - plan.measure_start) / 1e9;
  if (elapsed <= 0) elapsed = 1e-9;
  result.elapsed_s = elapsed;
  for (const auto& o : outcomes) {
    // Polling is waiting, not work: a job thread that polls is not the limit.
    double thread_pct = std::max(0.0, o.cpu_usr + o.cpu_sys - o.cpu_spin) / elapsed * 100;
    max_thread = std::max(max_thread, thread_pct);
  }
  result.cpu = {usr / elapsed * 100, sys / elapsed * 100, max_thread, spin / elapsed * 100};

  auto direction_result = [&](const DirectionStats& m) {
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
  };
  if (rw_reads(plan.mode)) result.read = direction_result(merged[0]);
  if (rw_writes(plan.mode)) result.write = direction_result(merged[1]);

  // Timeline: bring every job to the coarsest interval, then add.
  if (interval_ns) {
    std::vector<IntervalSample> total;
    for (auto& o : outcomes) {
      if (!o.timeline) continue;
      while (o.timeline->interval_ns() < interval_ns) o.timeline->coarsen();
      const auto& samples = o.timeline->samples();
      if (samples.size() > total.size()) total.resize(samples.size());
      for (std::size_t i = 0; i < samples.size(); ++i) total[i].add(samples[i]);
    }
    const double interval_s = static_cast<double>(interval_ns) / 1e9;
    // A time-based run has exactly runtime/interval points; drop the partial tail beyond it.
    std::size_t points = total.size();
    if (p.runtime_s > 0 && !result.interrupted)
      points = std::min<std::size_t>(
          points, static_cast<std::size_t>(std::ceil(p.runtime_s / interval_s - 1e-9)));
    // A last interval shorter than half the others (a runtime of 10.00002 s: a 20 us eleventh)
    // is not a sample of the rate: a few I/Os over a sliver of time would set min/max/avg. Its
    // I/Os stay in the totals.
    if (points > 1 && elapsed - static_cast<double>(points - 1) * interval_s < interval_s / 2)
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
  if (result.interrupted) result.errors.push_back("interrupted");

  if (plan.ledger) {
    reporting::IntegrityReport integrity;
    IntegrityTally inline_tally;
    for (const auto& o : outcomes) {
      inline_tally.merge(o.inline_tally);
      integrity.verified_inline += o.verified_inline;
    }
    bool verified_at_end = false;
    if (spec.do_verify && !result.interrupted) {
      try {
        integrity = verify_written_blocks(spec, *plan.ledger, options);
        for (const auto& o : outcomes) integrity.verified_inline += o.verified_inline;
        verified_at_end = true;
      } catch (const std::exception& e) {
        result.errors.push_back(std::string("verification failed: ") + e.what());
      }
    }
    integrity.algorithm = std::string(to_string(plan.ledger->algorithm()));
    integrity.run_id = plan.ledger->run_id();
    integrity.tracking_bytes = plan.ledger->tracking_bytes();
    integrity.blocks_written = plan.ledger->written_blocks();
    integrity.bad_inline = inline_tally.bad();
    if (verified_at_end)
      inline_tally.apply_findings_to(integrity);
    else
      inline_tally.apply_to(integrity);
    result.integrity = std::move(integrity);
  }
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
