// SPDX-License-Identifier: Apache-2.0
// Verify inside the job loop: each slot's state, the backlog of recent writes and the
// read-backs due (VerifyTracker); internal to the job loop (job_loop.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "runner/measure/job_plan.hpp"

namespace storqual::runner::jobs {

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

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

}  // namespace

}  // namespace storqual::runner::jobs
