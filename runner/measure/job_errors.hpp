// SPDX-License-Identifier: Apache-2.0
// What a job does with a request that comes back again (EAGAIN, short: the retry queue) and
// with an error (the error policy); internal to the job loop (job_loop.hpp).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runner/measure/job_plan.hpp"

namespace storqual::runner::jobs {

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

// "Input/output error (EIO)": the text and the name an engineer searches for.
inline std::string errno_with_name(int e) {
  const char* name = strerrorname_np(e);
  return std::string(std::strerror(e)) + (name ? " (" + std::string(name) + ")" : "");
}

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
// and offset, and ends the job unless continue_on_error and the error is EIO or EILSEQ (fio's
// td_non_fatal_error without ignore_error: a device gone, ENOSPC or EINVAL ends the job there too);
// a failed submit or reap, a timeout or a drain that does not end always ends it.
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
    if ((continue_on_error_ && (err == EIO || err == EILSEQ)) || failed_) return false;
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

}  // namespace

}  // namespace storqual::runner::jobs
