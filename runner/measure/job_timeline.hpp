// SPDX-License-Identifier: Apache-2.0
// A job's timeline (the per-interval samples) and its per-I/O latency log writer; internal to
// the job loop (job_runner.cpp, job_start.cpp).
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "runner/measure/job_runner.hpp"

namespace storqual::runner::jobs {

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
  // Once per completion: the common case (the current interval; completions arrive in time order
  // per job) inline, a new interval out of line (without the split GCC called at() per I/O).
  __attribute__((always_inline)) IntervalSample& at(std::uint64_t since_start_ns) {
    if (since_start_ns >= current_low_ && since_start_ns < current_high_) [[likely]]
      return samples_[current_];
    return at_new_interval(since_start_ns);
  }
  __attribute__((noinline)) IntervalSample& at_new_interval(std::uint64_t since_start_ns) {
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

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

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

}  // namespace

}  // namespace storqual::runner::jobs
