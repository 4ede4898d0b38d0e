// SPDX-License-Identifier: Apache-2.0
// One job thread's submit/reap loop (Job); internal to the job loop. Its hot steps are defined
// here, in the class, so that they inline where the loop is compiled (job_start.cpp); opening
// the engine and setting up the loop are in job_start.cpp.
//
// The loop is liburing's canonical one (io_uring-cp.c): fill to depth, commit once, wait for one
// completion and take every other one that is ready, refill. Timestamps are taken once per batch
// (before the batch is prepared, after it is committed, after it is reaped), as fio does, so that
// the clock costs per batch, not per I/O.
#pragma once

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/measure/block_io_driver.hpp"
#include "runner/measure/block_size_mix.hpp"
#include "runner/measure/job_accounting.hpp"
#include "runner/measure/job_errors.hpp"
#include "runner/measure/job_plan.hpp"
#include "runner/measure/job_verify.hpp"
#include "runner/measure/offset_generator.hpp"
#include "runner/measure/random.hpp"
#include "runner/measure/write_buffers.hpp"

namespace storqual::runner::jobs {

// Internal linkage, as when the loop was one file: only job_start.cpp, where the loop is
// compiled, uses it, and the compiler inlines it there.
namespace {

// Sleeps until `when` on the runner's clock: nanosleep for the bulk, a short spin at the end.
inline void sleep_until(NowFunction now_fn, std::uint64_t when) {
  for (std::uint64_t now = now_fn(); now < when; now = now_fn()) {
    std::uint64_t left = when - now;
    if (left > 60000) {
      timespec ts{static_cast<time_t>((left - 50000) / 1000000000ull),
                  static_cast<long>((left - 50000) % 1000000000ull)};
      nanosleep(&ts, nullptr);
    }
  }
}

// One job thread: opens its engine, then the submit/reap loop. The loop is its named steps (run);
// the parts above own their state.
class Job {
 public:
  Job(unsigned index, SharedPlan& plan, const MemberPlan& member, JobOutcome& out)
      : index_(index), plan_(plan), member_(member), out_(out) {}

  // Phase 1: open the engine (in the job's own thread).
  void open();  // job_start.cpp

  // Phase 2: the measured loop: decide whether to issue, submit a batch, wait for completions.
  void run() {
    prepare_loop();
    std::uint64_t now = now_fn_();
    if (start_ns_ > now) [[unlikely]]
      now = wait_for_start();
    while (true) {
      update_issuing(now);
      if (min_rate_) [[unlikely]]
        if (!check_min_rate(now)) break;
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
    if (flow_) leave_flow();
    if (member_.spec->exitall != ExitScope::None) [[unlikely]]
      end_others();
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

  void prepare_loop();  // job_start.cpp: the loop's settings and its parts
  void prepare_pacing(const WorkloadSpec& spec, unsigned thread_number);   // job_start.cpp
  void prepare_buffers(const WorkloadSpec& spec, unsigned thread_number);  // job_start.cpp

  [[nodiscard]] bool stop_requested() const noexcept {
    return stop_ && stop_->load(std::memory_order_relaxed);
  }

  // Issuing ends at a stop request, at the end of a time-based run or when every I/O of a
  // size-based one went out; from then on, what is in flight drains for at most kDrainLimitNs.
  void update_issuing(std::uint64_t now) {
    // end_: the workload's end (UINT64_MAX for a size-based one), or the job's exit_group's.
    if (issuing_ && (stop_requested() || now >= end_->load(std::memory_order_relaxed) ||
                     issued_ >= total_ios_)) {
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
        if (gated_) [[unlikely]]
          if (held_back(now)) break;  // not due yet (rate, think time), or its flow holds it
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
        if (shaped_issue_) [[unlikely]]
          count_shaped(is_check, r.length);
        else if (!is_check)
          ++issued_;
      }
      if (st == QueueStatus::Completed) {
        const std::uint64_t t = now_fn_();
        slots_.issue_ns[slot] = now;
        ++out_.depths[io_depth_bucket(slots_.in_flight + 1)];
        complete(slot, t);
        now = t;
        if (!issuing_ || now >= end_->load(std::memory_order_relaxed) || stop_requested()) break;
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
    if (shaped_prepare_) [[unlikely]]
      return verify_ ? prepare_verified(slot) : prepare_mixed(slot, now);
    IoRequest& r = slots_.reqs[slot];
    r.dir = next_direction();
    r.offset = offsets_->next(r.dir);
    r.length = bs_;
    r.res = 0;
    if (r.dir == Direction::Write) fill_write(r, now);
    return false;
  }

  // A job with a block-size mix: the I/O's size (and, sequential, its offset) as fio's.
  __attribute__((noinline)) bool prepare_mixed(unsigned slot, std::uint64_t now) {
    IoRequest& r = slots_.reqs[slot];
    r.dir = next_direction();
    r.offset = offsets_->next(r.dir);
    r.length = static_cast<std::uint32_t>(mix_->place(static_cast<unsigned>(r.dir), r.offset));
    r.res = 0;
    if (r.dir == Direction::Write) fill_write(r, now);
    return false;
  }

  // A job with a mix ends a size-based run at its bytes (as fio's io_size), not at a count of
  // I/Os: the I/O just counted went out, `length` bytes of it.
  __attribute__((noinline)) void count_mixed(std::uint32_t length) {
    mix_bytes_ += length;
    if (mix_bytes_ >= mix_budget_) total_ios_ = issued_;
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

  // fio's refill_buffers: new random bytes over the whole write; with buffer_compress_percentage
  // or dedupe_percentage, fio's own buffers.
  void refill_write(IoRequest& r) {
    if (fill_) [[unlikely]] {
      fill_->fill(r.buf, r.length);
      return;
    }
    auto* bytes = static_cast<unsigned char*>(r.buf);
    for (std::uint32_t off = 0; off + 8 <= r.length; off += 8) {
      const std::uint64_t v = rng_->next();
      std::memcpy(bytes + off, &v, 8);
    }
  }

  // One more I/O went out of a job with a rate, a think time, a block-size mix or a flow (the
  // plain loop only counts it): a workload I/O (not a verify read-back) is counted as issued,
  // paced and counted in its flow.
  __attribute__((noinline)) void count_shaped(bool is_check, std::uint32_t length) {
    if (!is_check) count_issued();
    if (mix_) count_mixed(length);
    if (flow_ && !is_check) {
      flow_->issued.fetch_add(1, std::memory_order_relaxed);
      ++flow_count_;
    }
  }

  // Whether the next I/O must wait: its due time (rate, think time) has not come, or its flow
  // holds the job back.
  bool held_back(std::uint64_t now) {
    if (paced_ && next_due_ > now) return true;
    return flow_ && flow_holds();
  }

  // fio's flow_threshold_exceeded: the job's share of the I/Os its flow issued against its share
  // of the flow's weights. Held back with flow_sleep, it issues nothing until what it has in
  // flight completed and the sleep passed (fio's io_u_quiesce, then usleep: flow_pause); without,
  // it looks again on its next turn.
  __attribute__((noinline)) bool flow_holds() {
    if (flow_held_ && flow_sleep_ns_) return true;
    const double mine = static_cast<double>(flow_count_) /
                        static_cast<double>(flow_->issued.load(std::memory_order_relaxed));
    const double share = static_cast<double>(flow_weight_) /
                         static_cast<double>(flow_->total_weight.load(std::memory_order_relaxed));
    flow_held_ = mine > share;
    return flow_held_;
  }

  // Nothing in flight while the flow holds the job: flow_sleep, then the clock again. Without one
  // the loop looks again at once, as fio's does, but yields the CPU first: on a host with fewer
  // free CPUs than jobs, the job it waits for then runs now, not at the next scheduler tick.
  __attribute__((noinline)) void flow_pause(std::uint64_t& now) {
    if (!flow_held_) return;
    if (flow_sleep_ns_) {
      sleep_until(now_fn_, now + flow_sleep_ns_);
      flow_held_ = false;
    } else {
      sched_yield();
    }
    now = now_fn_();
  }

  // fio's fio_terminate_threads at the end of a job with exitall: its exit_group's jobs end now
  // (exit_what=group), or every job of the workload (stonewall), which then ends now.
  __attribute__((noinline, cold)) void end_others() {
    const std::uint64_t now = now_fn_();
    if (member_.spec->exitall == ExitScope::Group) {
      end_at(plan_.exit_groups[member_.spec->exit_group], now);
      return;
    }
    for (auto& g : plan_.exit_groups) end_at(g, now);
    plan_.exited = true;
    end_at(plan_.end, now);
  }

  // fio's flow_exit_job: the job's I/Os and weight leave its flow, which the others then share.
  __attribute__((noinline, cold)) void leave_flow() {
    flow_->issued.fetch_sub(flow_count_, std::memory_order_relaxed);
    flow_->total_weight.fetch_sub(flow_weight_, std::memory_order_relaxed);
    flow_ = nullptr;
  }

  // One more workload I/O went out; open loop: I/O k is due at start + k / rate (linear), or
  // after an exponential gap (poisson); every thinktime_blocks I/Os a think time is due.
  void count_issued() {
    if (rate_ > 0) {
      if (poisson_) [[unlikely]]
        next_due_ = poisson_due();
      else
        next_due_ =
            start_ns_ + static_cast<std::uint64_t>(static_cast<double>(++rated_) * 1e9 / rate_);
    }
    if (think_ns_) [[unlikely]]
      count_think();
    ++issued_;
  }

  // fio's usec_for_io with rate_process=poisson: the gap to the next I/O is
  // (1000000 / iops) x -logf(u) whole microseconds, u from fio's own generator in (0, 1].
  __attribute__((noinline)) std::uint64_t poisson_due() {
    const auto iops = static_cast<std::int64_t>(rate_);
    const float u = static_cast<float>(poisson_->next_0_1());
    poisson_us_ += static_cast<std::uint64_t>(static_cast<float>(1000000 / iops) * -logf(u));
    return start_ns_ + poisson_us_ * 1000;
  }

  // fio's handle_thinktime: after thinktime_blocks I/Os nothing more is issued until what is in
  // flight completed (io_u_quiesce); then the think time (start_think).
  __attribute__((noinline)) void count_think() {
    if (++think_count_ < think_blocks_) return;
    think_count_ = 0;
    think_pending_ = true;
    saved_due_ = next_due_;
    next_due_ = UINT64_MAX;
  }

  // Nothing in flight after thinktime_blocks I/Os: spin thinktime_spin, then the rest is a sleep
  // (pace) before the next I/O, or the rate's next due time if that is later (fio's rate goes on
  // during think time: rate_ign_think=0).
  __attribute__((noinline)) void start_think(std::uint64_t& now) {
    think_pending_ = false;
    const std::uint64_t end = now + think_ns_;
    if (think_spin_ns_)
      for (const std::uint64_t spun = now + think_spin_ns_; now < spun;) now = now_fn_();
    next_due_ = std::max(saved_due_, end);
  }

  // startdelay: the job's first I/O waits until its start; a stop request ends the wait.
  __attribute__((noinline, cold)) std::uint64_t wait_for_start() {
    std::uint64_t now = now_fn_();
    while (now < start_ns_ && !stop_requested()) {
      sleep_until(now_fn_, std::min(start_ns_, now + 100000000));
      now = now_fn_();
    }
    return now;
  }

  // fio's check_min_rate: after 2 s of the measured run, every rate_cycle, the I/Os (bytes) the
  // job completed over the cycle are at least rate_iops_min (ratemin) per second; else the job
  // fails. Returns false when it failed.
  __attribute__((noinline)) bool check_min_rate(std::uint64_t now) {
    if (!issuing_ || now < next_rate_check_) return true;
    if (!accounting_->measuring()) {
      next_rate_check_ = now + 2000000000ull;  // fio's settle: 2 s from the start it counts
      return true;
    }
    const std::uint64_t ios = out_.dir[0].ios + out_.dir[1].ios;
    const std::uint64_t bytes = out_.dir[0].bytes + out_.dir[1].bytes;
    if (rate_sampled_) {
      const double spent = static_cast<double>(now - last_rate_check_) / 1e9;
      const double iops = static_cast<double>(ios - last_ios_) / spent;
      const double bps = static_cast<double>(bytes - last_bytes_) / spent;
      if (min_bytes_ && bps < static_cast<double>(min_bytes_))
        return fail_min_rate("ratemin=" + std::to_string(min_bytes_) +
                             " B/s not met: " + std::to_string(std::llround(bps)) + " B/s");
      if (min_iops_ > 0 && iops < min_iops_)
        return fail_min_rate("rate_iops_min=" + std::to_string(std::llround(min_iops_)) +
                             " not met: " + std::to_string(std::llround(iops)) + " IOPS");
    }
    rate_sampled_ = true;
    last_rate_check_ = now;
    last_ios_ = ios;
    last_bytes_ = bytes;
    next_rate_check_ = now + cycle_ns_;
    return true;
  }

  __attribute__((noinline, cold)) bool fail_min_rate(const std::string& what) {
    errors_->end_job(what + " over the last rate_cycle of " +
                     std::to_string(std::llround(static_cast<double>(cycle_ns_) / 1e6)) +
                     " ms (fio's check_min_rate)");
    issuing_ = false;
    return false;
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
    if (think_pending_) [[unlikely]]
      start_think(now);
    if (flow_) [[unlikely]]
      flow_pause(now);
    if (paced_ && next_due_ > now && retries_->empty()) {
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
    if (issuing_ && paced_ && !slots_.free.empty())
      wait_ns = std::min(wait_ns, next_due_ > now ? next_due_ - now : 0);
    // iodepth_batch_complete_min: wait for a batch (fewer wake-ups), not while a rate paces.
    const unsigned reap_min = issuing_ && !paced_ ? std::clamp(member_.spec->iodepth_batch_complete,
                                                               1u, std::max(1u, slots_.in_flight))
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

  void allocate_buffers();  // job_start.cpp
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
  bool paced_ = false;  // a rate or a think time: I/O waits for next_due_
  bool gated_ = false;  // paced_, or a flow: each new I/O asks held_back first
  // The hot path's two flags (job_start.cpp sets them): a job without rate, think time, mix or
  // verify pays one predictable branch per I/O for each, not one per feature.
  bool shaped_issue_ = false;         // rate, think time or a mix: count_shaped per issued I/O
  bool shaped_prepare_ = false;       // verify or a mix: the I/O is prepared out of line
  std::uint64_t start_ns_ = 0;        // t0, or t0 + startdelay: the job's first I/O
  std::optional<FioRandom> poisson_;  // rate_process=poisson: fio's poisson_state
  std::uint64_t poisson_us_ = 0;      // its due time after start_ns_, whole microseconds
  std::uint64_t think_ns_ = 0, think_spin_ns_ = 0, think_blocks_ = 1, think_count_ = 0;
  std::uint64_t saved_due_ = 0;  // the rate's due time while a think time waits for completions
  bool think_pending_ = false;
  FlowCounter* flow_ = nullptr;  // fio's flow: the job's flow (null: none, or the job ended)
  std::uint64_t flow_count_ = 0, flow_weight_ = 0, flow_sleep_ns_ = 0;
  bool flow_held_ = false;
  const std::atomic<std::uint64_t>* end_ = nullptr;  // plan_.end, or its exit_group's end
  bool min_rate_ = false, rate_sampled_ = false;     // ratemin / rate_iops_min
  double min_iops_ = 0;
  std::uint64_t min_bytes_ = 0, cycle_ns_ = 0, next_rate_check_ = 0, last_rate_check_ = 0;
  std::uint64_t last_ios_ = 0, last_bytes_ = 0;
  std::uint64_t next_due_ = 0, rated_ = 0;  // open loop: when the next I/O is due, how many were
  std::uint64_t issued_ = 0, total_ios_ = 0, write_stamp_ = 0;
  WriteContents contents_ = WriteContents::Stamp;
  IoSlots slots_;
  std::vector<unsigned> staged_;
  std::vector<IoRequest*> reaped_;
  std::optional<Random> rng_;
  std::optional<OffsetGenerator> offsets_;
  std::optional<MixedIoPlacement> mix_;  // a block-size mix (bssplit, bsrange): sizes per I/O
  std::optional<FioLfsr> lfsr_;          // random_generator=lfsr: which blocks
  std::optional<SkewedBlocks> skew_;     // a skewed random_distribution: which blocks
  std::optional<StridedWalk> zones_;     // strided zones: which blocks
  std::optional<ZbdReadWalk> zbd_;       // zonemode=zbd reads: the written blocks
  std::uint64_t mix_bytes_ = 0, mix_budget_ = UINT64_MAX;  // with a mix: bytes issued, to issue
  std::optional<RetryQueue> retries_;
  std::optional<ErrorPolicy> errors_;
  std::optional<CompletionAccounting> accounting_;
  std::optional<VerifyTracker> verify_;
  std::optional<FioBufferFill> fill_;  // compressible or deduplicable writes, as fio's
};

}  // namespace

}  // namespace storqual::runner::jobs
