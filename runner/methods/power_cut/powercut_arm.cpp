// SPDX-License-Identifier: Apache-2.0
// The power-cut workload: records written through an engine, acknowledgements journalled, the cut
// hook run at a random moment (powercut_arm.hpp).
#include "runner/methods/power_cut/powercut_arm.hpp"

#include <spawn.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "engines/engine.hpp"
#include "runner/measure/clock.hpp"
#include "runner/measure/powercut_record.hpp"

extern char** environ;

namespace storqual::runner {

namespace {

std::uint64_t realtime_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

void validate(const PowercutArmOptions& o) {
  const std::uint32_t unit = o.atomic_unit;
  const std::uint32_t sectors = unit / kPowercutSector;
  // The journal reader's rule (JournalRules): a journal arm writes must be one check reads.
  if (unit < kPowercutSector || unit % kPowercutSector != 0 || (sectors & (sectors - 1)) != 0 ||
      unit > (64u << 20))
    throw UsageError("--atomic-unit must be a power-of-two multiple of 512 up to 64 MiB, got " +
                     std::to_string(unit));
  if (o.random_bs % unit != 0 || o.sequential_bs % unit != 0 || o.random_bs == 0 ||
      o.sequential_bs > 65535u * kPowercutSector)
    throw UsageError("--bs and --sequential-bs must be multiples of --atomic-unit (" +
                     std::to_string(unit) + ") up to 32 MiB");
  if (o.region_offset % unit != 0) throw UsageError("--offset must be a multiple of --atomic-unit");
  if (o.region_size < 64ull * std::max(o.random_bs, o.sequential_bs))
    throw UsageError("the region (" + std::to_string(o.region_size) +
                     " bytes) must hold at least 64 of the largest requests");
  if (o.depths.empty() || o.flush_every == 0)
    throw UsageError("--depths and --flush-every must not be empty or 0");
  if (o.cut_min_s < 0 || o.cut_max_s < o.cut_min_s)
    throw UsageError("--cut-after MIN:MAX needs 0 <= MIN <= MAX");
}

// The power cut at its moment, from a thread of its own: the moment is random in the workload's
// time, tied to no issue and no completion, so at every depth it lands while requests are queued
// and partly written (at depth 1 a request is in flight nearly all the time; a cut taken between
// issues would land before the next request's first piece). `power_cut_cmd` is spawned and not
// waited for; with `prompt` a line asks the operator.
class CutTimer {
 public:
  CutTimer(const PowercutArmOptions& o, std::uint64_t at_ns, std::ostream& log,
           const std::atomic<std::uint64_t>& acknowledged, const std::atomic<unsigned>& in_flight)
      : o_(o),
        at_ns_(at_ns),
        log_(log),
        acknowledged_(acknowledged),
        in_flight_(in_flight),
        thread_([this] { wait(); }) {}
  ~CutTimer() { stop(); }
  CutTimer(const CutTimer&) = delete;
  CutTimer& operator=(const CutTimer&) = delete;

  // Ends the wait (the workload is over) and joins.
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] bool started() const { return started_.load(); }
  [[nodiscard]] pid_t pid() const { return pid_; }  // after stop()

 private:
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      if (stopping_) return;
      const std::uint64_t now = monotonic_now_ns();
      // At its moment, and while a request is on its way (a queued one or a synchronous
      // FUA write), so the power goes with requests queued and partly written.
      if (now >= at_ns_ && in_flight_.load(std::memory_order_relaxed) > 0) break;
      cv_.wait_for(lock, now >= at_ns_ ? std::chrono::nanoseconds(200000)
                                       : std::chrono::nanoseconds(at_ns_ - now));
    }
    lock.unlock();
    started_ = true;
    if (o_.prompt) {
      log_ << "storqual powercut: CUT THE POWER NOW (" << acknowledged_.load()
           << " writes acknowledged)" << std::endl;
      return;
    }
    log_ << "storqual powercut: running the power-cut command after " << acknowledged_.load()
         << " acknowledged writes: " << o_.power_cut_cmd << std::endl;
    const char* argv[] = {"/bin/sh", "-c", o_.power_cut_cmd.c_str(), nullptr};
    if (::posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv),
                      environ) != 0)
      pid_ = -1;
  }

  const PowercutArmOptions& o_;
  std::uint64_t at_ns_;
  std::ostream& log_;
  const std::atomic<std::uint64_t>& acknowledged_;
  const std::atomic<unsigned>& in_flight_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::atomic<bool> started_{false};
  pid_t pid_ = -1;
  std::thread thread_;  // last: started once the rest is in place
};

struct Slot {
  engines::IoRequest req;
  std::uint64_t record_id = 0;
  std::uint64_t epoch = 0;
  bool busy = false;
};

class Arm {
 public:
  explicit Arm(const PowercutArmOptions& o)
      : o_(o), rng_(o.seed ? o.seed : std::random_device{}()), pool_(rng_()) {
    out_.run_id = o.run_id ? o.run_id : (rng_() | 1);
    max_depth_ = *std::max_element(o.depths.begin(), o.depths.end());
    bs_max_ = std::max(o.random_bs, o.sequential_bs);
    slots_.resize(max_depth_ + 1);  // the last one serves the FUA writes
    buffers_.reset(static_cast<unsigned char*>(
        std::aligned_alloc(4096, static_cast<std::size_t>(bs_max_) * slots_.size())));
    if (!buffers_) throw std::bad_alloc();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].req.buf = buffers_.get() + i * bs_max_;
      slots_[i].req.cookie = &slots_[i];
    }
    engine_ = engines::make_engine(o.ioengine);
    engines::EngineConfig config;
    config.path = o.target;
    config.write = true;
    config.direct = true;
    config.iodepth = max_depth_;
    config.fixed_buffers = false;
    engine_->open(config);
    if (o.region_offset + o.region_size > engine_->target_size())
      throw UsageError("the region ends beyond the target's " +
                       std::to_string(engine_->target_size()) + " bytes");
  }

  PowercutArmOutcome run(JournalSink& journal, const std::atomic<bool>* stop, std::ostream& log) {
    journal_ = &journal;
    stop_ = stop;
    log_ = &log;
    start_ = monotonic_now_ns();
    std::uniform_real_distribution<double> when(o_.cut_min_s, o_.cut_max_s);
    cut_at_ns_ = start_ + static_cast<std::uint64_t>(when(rng_) * 1e9);
    write_header();
    if (!o_.power_cut_cmd.empty() || o_.prompt) {
      ::setenv("STORQUAL_ARM_PID", std::to_string(::getpid()).c_str(), 1);  // before the thread
      cut_ = std::make_unique<CutTimer>(o_, cut_at_ns_, *log_, acknowledged_, queued_);
    }
    for (std::uint64_t phase = 0; !over(); ++phase) {
      const unsigned depth = o_.depths[phase % o_.depths.size()];
      const bool sequential = (phase / o_.depths.size()) % 2 == 1;
      run_phase(depth, sequential);
      flush();
    }
    JournalEntry end;
    end.type = JournalEntryType::End;
    end.end_requests = out_.acknowledged;
    journal_->append(sequence_.frame(end));
    reap_cut_command();
    out_.seconds = static_cast<double>(monotonic_now_ns() - start_) / 1e9;
    return out_;
  }

 private:
  bool over() {
    return (stop_ && stop_->load()) ||
           monotonic_now_ns() - start_ >= static_cast<std::uint64_t>(o_.runtime_s * 1e9);
  }

  void write_header() {
    JournalEntry h;
    h.type = JournalEntryType::Header;
    h.header.run_id = out_.run_id;
    h.header.region_offset = o_.region_offset;
    h.header.region_size = o_.region_size;
    h.header.atomic_unit = o_.atomic_unit;
    h.header.start_ns = realtime_ns();
    h.header.target = o_.target;
    JournalEntry shutdowns;
    shutdowns.type = JournalEntryType::Shutdowns;
    shutdowns.shutdowns = o_.shutdowns_before;
    std::string frames = sequence_.frame(h);  // numbered in this order: two statements
    frames += sequence_.frame(shutdowns);
    journal_->append(frames);
  }

  void run_phase(unsigned depth, bool sequential) {
    const std::uint32_t bs = sequential ? o_.sequential_bs : o_.random_bs;
    for (unsigned n = 0; n < o_.flush_every && !over(); ++n) {
      while (in_flight_ >= depth) reap(1);
      const std::uint64_t offset = next_offset(bs, sequential);
      if (o_.fua_every && ++issued_ % o_.fua_every == 0) {
        fua_write(offset, bs);
        continue;
      }
      Slot* slot = free_slot();
      prepare(*slot, offset, bs);
      queued_.fetch_add(1);  // on its way (an engine may write it inside queue())
      if (engine_->queue(slot->req) == engines::QueueStatus::Completed) {
        queued_.fetch_sub(1);
        complete(*slot);
        flush_frames();
        continue;
      }
      slot->busy = true;
      ++in_flight_;
      if (engine_->commit() < 0) fail(EIO);
    }
    drain();
  }

  Slot* free_slot() {
    for (std::size_t i = 0; i + 1 < slots_.size(); ++i)
      if (!slots_[i].busy) return &slots_[i];
    return nullptr;  // never: the caller waits below the depth
  }

  std::uint64_t next_offset(std::uint32_t bs, bool sequential) {
    const std::uint64_t blocks = o_.region_size / bs;
    for (;;) {
      std::uint64_t block;
      if (sequential) {
        block = cursor_ % blocks;
        cursor_ = block + 1;
      } else {
        block = std::uniform_int_distribution<std::uint64_t>(0, blocks - 1)(rng_);
      }
      const std::uint64_t offset = o_.region_offset + block * bs;
      if (!overlaps_in_flight(offset, bs)) return offset;
      if (sequential) reap(1);
    }
  }

  bool overlaps_in_flight(std::uint64_t offset, std::uint32_t bs) const {
    for (const auto& s : slots_)
      if (s.busy && offset < s.req.offset + s.req.length && s.req.offset < offset + bs) return true;
    return false;
  }

  void prepare(Slot& slot, std::uint64_t offset, std::uint32_t bs) {
    slot.record_id = next_record_++;
    slot.epoch = epoch_;
    slot.req.dir = engines::Direction::Write;
    slot.req.offset = offset;
    slot.req.length = bs;
    slot.req.res = 0;
    PowercutRecord r;
    r.offset = offset;
    r.run_id = out_.run_id;
    r.record_id = slot.record_id;
    r.time_ns = realtime_ns();
    r.epoch = epoch_;
    r.flags = &slot == &slots_.back() ? kPowercutFlagFua : 0;
    fill_powercut_request(slot.req.buf, bs, r, pool_);
  }

  // A FUA write, at once and beside the queue: RWF_DSYNC makes the block layer send it with FUA
  // (or follow it with a flush where the device has no FUA).
  void fua_write(std::uint64_t offset, std::uint32_t bs) {
    Slot& slot = slots_.back();
    prepare(slot, offset, bs);
    iovec v{slot.req.buf, bs};
    ssize_t n;
    queued_.fetch_add(1);
    do {
      n = ::pwritev2(engine_->fd(), &v, 1, static_cast<off_t>(offset), RWF_DSYNC);
    } while (n < 0 && errno == EINTR);
    queued_.fetch_sub(1);
    slot.req.res = n < 0 ? -errno : n;
    if (complete(slot, true)) ++out_.fua;
    flush_frames();
  }

  void reap(unsigned min) {
    engines::IoRequest* done[64];
    const int n = engine_->reap(min, 64, done, std::chrono::seconds(120));
    if (n <= 0) {
      fail(n < 0 ? -n : ETIMEDOUT);
      throw JournalError("powercut arm: no completion from " + o_.target + " (" +
                         std::strerror(n < 0 ? -n : ETIMEDOUT) + ")");
    }
    for (int i = 0; i < n; ++i) {
      auto* slot = static_cast<Slot*>(done[i]->cookie);
      slot->busy = false;
      --in_flight_;
      queued_.fetch_sub(1);
      complete(*slot);
    }
    flush_frames();
  }

  bool complete(Slot& slot, bool fua = false) {
    if (slot.req.res != static_cast<std::int64_t>(slot.req.length)) {
      fail(slot.req.res < 0 ? static_cast<int>(-slot.req.res) : EIO);
      return false;
    }
    JournalEntry e;
    e.type = JournalEntryType::Write;
    e.write = {slot.record_id, slot.req.offset, slot.req.length, fua,
               slot.epoch,     next_record_,    realtime_ns()};
    frames_ += sequence_.frame(e);
    ++out_.acknowledged;
    acknowledged_.store(out_.acknowledged, std::memory_order_relaxed);
    return true;
  }

  void flush_frames() {
    if (frames_.empty()) return;
    journal_->append(frames_);
    frames_.clear();
  }

  void drain() {
    while (in_flight_ > 0) reap(1);
    flush_frames();
  }

  void flush() {
    drain();
    int rc;
    do {
      rc = ::fdatasync(engine_->fd());
    } while (rc < 0 && errno == EINTR);
    if (rc < 0) {
      fail(errno);
      return;
    }
    JournalEntry e;
    e.type = JournalEntryType::Flush;
    e.flush = {++epoch_, next_record_, realtime_ns()};
    journal_->append(sequence_.frame(e));
    ++out_.flushes;
  }

  void fail(int err) {
    ++out_.errors;
    if (!out_.first_errno) out_.first_errno = err;
  }

  void reap_cut_command() {
    if (!cut_) return;
    cut_->stop();
    out_.cut_started = cut_->started();
    if (cut_->pid() <= 0) return;
    int status = 0;
    ::waitpid(cut_->pid(), &status, 0);
    *log_ << "storqual powercut: the power-cut command ended (status "
          << (WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status))
          << ") and this process is still running: the cut did not happen" << std::endl;
  }

  PowercutArmOptions o_;  // a copy: the prepared run outlives the caller's options
  JournalSink* journal_ = nullptr;
  const std::atomic<bool>* stop_ = nullptr;
  std::ostream* log_ = nullptr;
  std::mt19937_64 rng_;
  PayloadPool pool_;
  PowercutArmOutcome out_;
  unsigned max_depth_ = 1;
  std::uint32_t bs_max_ = 0;
  std::vector<Slot> slots_;
  std::unique_ptr<unsigned char, decltype(&std::free)> buffers_{nullptr, &std::free};
  std::unique_ptr<engines::Engine> engine_;
  std::string frames_;
  JournalSequence sequence_;  // every frame's number, in the order they are appended
  unsigned in_flight_ = 0;
  std::uint64_t issued_ = 0, cursor_ = 0, next_record_ = 1, epoch_ = 0;
  std::uint64_t start_ = 0, cut_at_ns_ = 0;
  std::atomic<std::uint64_t> acknowledged_{0};  // out_.acknowledged, for the cut's line
  std::atomic<unsigned> queued_{0};             // in_flight_, for the cut's moment
  std::unique_ptr<CutTimer> cut_;
};

}  // namespace

class PowercutArmRun {
 public:
  explicit PowercutArmRun(const PowercutArmOptions& options) : arm(options) {}
  Arm arm;
};

void PowercutArmRunDeleter::operator()(PowercutArmRun* run) const {
  delete run;
}

PreparedPowercutArm prepare_powercut_arm(const PowercutArmOptions& options) {
  validate(options);
  return PreparedPowercutArm(new PowercutArmRun(options));
}

PowercutArmOutcome run_prepared_powercut_arm(PowercutArmRun& run, JournalSink& journal,
                                             const std::atomic<bool>* stop, std::ostream& log) {
  return run.arm.run(journal, stop, log);
}

PowercutArmOutcome run_powercut_arm(const PowercutArmOptions& options, JournalSink& journal,
                                    const std::atomic<bool>* stop, std::ostream& log) {
  PreparedPowercutArm prepared = prepare_powercut_arm(options);
  return run_prepared_powercut_arm(*prepared, journal, stop, log);
}

}  // namespace storqual::runner
