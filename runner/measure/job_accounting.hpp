// SPDX-License-Identifier: Apache-2.0
// What completed inside the measured window (CompletionAccounting); internal to the job loop
// (job_loop.hpp).
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <optional>

#include "runner/measure/job_plan.hpp"

namespace storqual::runner::jobs {

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

// Time this thread has spent runnable but waiting for a CPU (/proc/thread-self/schedstat, the
// second field, ns); nullopt where the kernel does not keep it.
inline std::optional<std::uint64_t> thread_runq_wait_ns() {
  std::FILE* f = std::fopen("/proc/thread-self/schedstat", "re");
  if (!f) return std::nullopt;
  unsigned long long run = 0, wait = 0;
  const int n = std::fscanf(f, "%llu %llu", &run, &wait);
  std::fclose(f);
  if (n != 2) return std::nullopt;
  return wait;
}

inline double thread_cpu_seconds(const rusage& r, bool user) {
  const timeval& tv = user ? r.ru_utime : r.ru_stime;
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

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
        count_sizes_(spec.mixed_block_sizes()),
        lat_log_(plan.lat_log, &plan.lat_log_mutex) {
    out_.timeline.emplace(static_cast<std::uint64_t>(spec.interval_s * 1e9));
    extras_ = count_sizes_ || lat_log_.enabled();
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
    if (extras_) [[unlikely]]
      add_extras(s, r, clat, completed);
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
  // What only some jobs record per I/O, behind one flag: the latency log, the count per size of
  // a block-size mix.
  __attribute__((noinline)) void add_extras(DirectionStats& s, const IoRequest& r,
                                            std::uint64_t clat, std::uint64_t completed) {
    if (lat_log_.enabled())
      lat_log_.add((completed - measure_start_) / 1000000, clat, static_cast<int>(r.dir), r.length,
                   r.offset);
    if (count_sizes_) count_size(s, r.length);
  }
  static void count_size(DirectionStats& s, std::uint64_t bs) {
    for (auto& [size, ios] : s.by_size)
      if (size == bs) {
        ++ios;
        return;
      }
    s.by_size.emplace_back(bs, 1);
  }
  void start_cpu() {
    getrusage(RUSAGE_THREAD, &ru_start_);
    spin_start_ = engine_.spin_ns();
    wait_start_ = thread_runq_wait_ns();
  }
  JobOutcome& out_;
  Engine& engine_;
  std::uint64_t measure_start_, end_;
  bool is_async_;
  bool count_sizes_;     // a block-size mix: count I/Os per size
  bool extras_ = false;  // count_sizes_ or a latency log: add_extras per I/O
  bool measuring_ = false;
  rusage ru_start_{};
  std::uint64_t spin_start_ = 0;
  std::optional<std::uint64_t> wait_start_;
  LatencyLogWriter lat_log_;
};

}  // namespace

}  // namespace storqual::runner::jobs
