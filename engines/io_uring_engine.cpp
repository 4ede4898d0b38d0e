// SPDX-License-Identifier: Apache-2.0
// The io_uring engine. Built like liburing's io_uring-cp and fio's t/io_uring, because it is
// measured against them: queue() only writes an SQE into the shared ring, commit() hands the whole
// batch over with one io_uring_enter, reap() takes completions straight from the CQ ring in
// batches and enters the kernel only to wait. The registered file (IOSQE_FIXED_FILE) and fixed
// buffers (READ_FIXED/WRITE_FIXED) save the per-I/O fd lookup and page pinning, as fio's
// --registerfiles --fixedbufs. The hot path (queue/commit/reap) allocates nothing, throws nothing
// and makes no syscall but io_uring_enter.
//
// Ring flags, best first, falling back when the kernel says EINVAL: SINGLE_ISSUER|DEFER_TASKRUN
// (completion work runs only when we ask for events: no IPIs, no task-work interruptions, what
// fio uses where it can) with TASKRUN_FLAG (the kernel raises IORING_SQ_TASKRUN in the shared SQ
// flags when completion work is pending, which lets reap() poll a word in memory instead of
// sleeping: see poll_for()), then COOP_TASKRUN|TASKRUN_FLAG, then none; SUBMIT_ALL so one bad SQE
// does not stall the rest of a batch. The ring is created R_DISABLED and enabled by the first
// commit() so that a ring opened by one thread and driven by another (the runner opens engines
// before starting job threads) binds to the thread that submits, as SINGLE_ISSUER requires.
//
// One system call per turn where the wait sleeps: t/io_uring hands a batch over and waits for the
// next batch of completions in the same io_uring_enter (to_submit, min_complete, GETEVENTS). With
// requests in flight and no poll budget, commit() here leaves the staged SQEs in the ring and the
// reap() that follows submits them with its wait (io_uring_submit_and_wait_timeout). Under
// DEFER_TASKRUN the completions of io-wq workers are queued as task work for this thread and the
// kernel wakes a waiter only once `min` of them are pending (its lazy wake), so waiting for a
// batch (iodepth_batch_complete_min) rather than one costs one wake-up per batch, not one per I/O.
#include "engines/io_uring_engine.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

namespace storqual::engines {
namespace {

constexpr std::uint64_t kCancelTag = ~std::uint64_t{0};  // user_data of our cancel SQE in close()
constexpr unsigned kMaxEagainSpins = 1024;

__kernel_timespec to_timespec(std::chrono::nanoseconds d) {
  __kernel_timespec ts{};
  ts.tv_sec = d.count() / 1'000'000'000;
  ts.tv_nsec = d.count() % 1'000'000'000;
  return ts;
}

}  // namespace

EngineCaps IoUringEngine::caps() const noexcept {
  return {.async = true,
          .needs_commit = true,
          .fixed_buffers = fixed_buffers_,
          .registered_file = registered_file_,
          .polled = sqpoll_ || iopoll_};
}

void IoUringEngine::open(const EngineConfig& config) {
  close();
  target_.open(config);
  depth_ = std::max(1u, config.iodepth);
  const unsigned entries = std::bit_ceil(depth_);
  sqpoll_ = config.sqpoll;
  iopoll_ = config.iopoll;

  unsigned base = 0;
  if (sqpoll_) base |= IORING_SETUP_SQPOLL;
  if (iopoll_) base |= IORING_SETUP_IOPOLL;
  std::vector<unsigned> tries;
  // The kernel refuses the task-run flags together with SQPOLL (its thread is the issuer then).
  if (!sqpoll_) {
    tries.push_back(IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER |
                    IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
    tries.push_back(IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER |
                    IORING_SETUP_DEFER_TASKRUN);
    tries.push_back(IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |
                    IORING_SETUP_TASKRUN_FLAG);
  }
  tries.push_back(IORING_SETUP_SUBMIT_ALL);
  tries.push_back(0);
  int ret = -EINVAL;
  // R_DISABLED (5.10+) goes with every try; a kernel that refuses even it gets a ring without.
  for (unsigned disabled : {unsigned{IORING_SETUP_R_DISABLED}, 0u}) {
    for (unsigned extra : tries) {
      io_uring_params p{};
      p.flags = base | disabled | extra;
      if (sqpoll_) p.sq_thread_idle = 1000;  // ms before the kernel thread sleeps
      ret = io_uring_queue_init_params(entries, &ring_, &p);
      if (ret != -EINVAL) {
        defer_taskrun_ = ret == 0 && (extra & IORING_SETUP_DEFER_TASKRUN) != 0;
        taskrun_flag_ = defer_taskrun_ && (extra & IORING_SETUP_TASKRUN_FLAG) != 0;
        enabled_ = ret == 0 && disabled == 0;
        break;
      }
    }
    if (ret != -EINVAL) break;
  }
  if (ret < 0) {
    std::string why = std::strerror(-ret);
    if (ret == -EPERM) why += " (io_uring may be disabled: see /proc/sys/kernel/io_uring_disabled)";
    if (ret == -ENOMEM) why += " (locked-memory limit too low for the ring: ulimit -l)";
    if (ret == -EINVAL && (sqpoll_ || iopoll_))
      why += " (this kernel refuses the requested sqpoll/iopoll setup)";
    target_.close();
    throw EngineError("cannot set up an io_uring of " + std::to_string(entries) + " entries for " +
                          config.path + ": " + why,
                      -ret);
  }
  ring_ready_ = true;

  registered_file_ = false;
  sqe_fd_ = target_.fd();
  sqe_flags_ = 0;
  if (config.registered_files) {
    int fd = target_.fd();
    if (io_uring_register_files(&ring_, &fd, 1) == 0) {
      registered_file_ = true;
      sqe_fd_ = 0;
      sqe_flags_ = IOSQE_FIXED_FILE;
    }
  }
  fixed_buffers_ = false;
  if (config.fixed_buffers && !config.buffers.empty()) {
    fixed_buffers_ = io_uring_register_buffers(&ring_, config.buffers.data(),
                                               static_cast<unsigned>(config.buffers.size())) == 0;
  }
  cqes_.assign(entries, nullptr);
  spin_wait_ns_ = iopoll_ ? 0 : config.spin_wait_ns;
  gate_ = config.poll_gate;
  spin_misses_ = spin_pause_ = 0;
  spin_ns_ = 0;
  staged_ = 0;
  held_ = 0;
  in_flight_ = 0;
}

QueueStatus IoUringEngine::queue(IoRequest& req) noexcept {
  if (staged_ + in_flight_ >= depth_) return QueueStatus::Busy;
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) [[unlikely]]
    return QueueStatus::Busy;
  if (fixed_buffers_ && req.buf_index >= 0) {
    if (req.dir == Direction::Read)
      io_uring_prep_read_fixed(sqe, sqe_fd_, req.buf, req.length, req.offset, req.buf_index);
    else
      io_uring_prep_write_fixed(sqe, sqe_fd_, req.buf, req.length, req.offset, req.buf_index);
  } else {
    if (req.dir == Direction::Read)
      io_uring_prep_read(sqe, sqe_fd_, req.buf, req.length, req.offset);
    else
      io_uring_prep_write(sqe, sqe_fd_, req.buf, req.length, req.offset);
  }
  sqe->flags = sqe_flags_;
  io_uring_sqe_set_data(sqe, &req);
  ++staged_;
  return QueueStatus::Queued;
}

int IoUringEngine::enable_on_this_thread() noexcept {
  // liburing 2.3 declares io_uring_enable_rings() but does not export it: ask the kernel directly.
  if (::syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) <
      0)
    return -errno;
  enabled_ = true;
  // The registered ring fd lives in the calling thread's io_uring context, so it is registered
  // here, by the thread that will enter the ring. Optional: it only saves an fd lookup per enter.
  (void)io_uring_register_ring_fd(&ring_);
  return 0;
}

int IoUringEngine::commit() noexcept {
  if (staged_ == 0) return 0;
  if (!enabled_) [[unlikely]] {
    if (int ret = enable_on_this_thread(); ret < 0) return ret;
  }
  // Held for the reap() that must follow (engine.hpp): it submits them with its sleeping wait.
  if (in_flight_ > 0 && !polling_now() && !sqpoll_ && !iopoll_ && defer_taskrun_) {
    held_ = staged_;
    return static_cast<int>(staged_);
  }
  return submit_staged();
}

int IoUringEngine::submit_staged() noexcept {
  held_ = 0;
  int handed = 0;
  unsigned spins = 0;
  while (staged_ > 0) {
    int ret = io_uring_submit(&ring_);
    if (ret >= 0) {
      // With SQPOLL the kernel thread takes the SQEs from the ring by itself: once the tail is
      // published they are all handed over, whatever io_uring_submit counted.
      unsigned taken = sqpoll_ ? staged_ : std::min(static_cast<unsigned>(ret), staged_);
      staged_ -= taken;
      in_flight_ += taken;
      handed += static_cast<int>(taken);
      if (taken == 0) break;
      continue;
    }
    if (ret == -EINTR) continue;
    if (ret == -EAGAIN || ret == -EBUSY) {
      // The kernel is short of requests or the CQ ring is full: reaping frees both, so with I/O
      // in flight leave the rest staged for the next commit()/reap(); otherwise retry a little.
      if (in_flight_ > 0) break;
      if (++spins > kMaxEagainSpins) return handed > 0 ? handed : ret;
      continue;
    }
    return handed > 0 ? handed : ret;
  }
  return handed;
}

unsigned IoUringEngine::take_ready(IoRequest** out, unsigned room) noexcept {
  room = std::min(room, static_cast<unsigned>(cqes_.size()));
  unsigned n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), room);
  for (unsigned i = 0; i < n; ++i) {
    auto* req = static_cast<IoRequest*>(io_uring_cqe_get_data(cqes_[i]));
    req->res = cqes_[i]->res;
    out[i] = req;
  }
  io_uring_cq_advance(&ring_, n);
  in_flight_ -= n;
  return n;
}

unsigned IoUringEngine::poll_for(unsigned min, unsigned max, IoRequest** out,
                                 unsigned got) noexcept {
  // Poll IORING_SQ_TASKRUN (set by the completing CPU, no syscall to look) for up to spin_wait_ns_
  // and run the completion work as soon as it is there. A device slower than the budget makes the
  // polls come back empty: after 4 in a row, sleep through the next 256 waits before trying again,
  // so a slow device costs next to no extra CPU.
  if (spin_pause_ > 0) {
    --spin_pause_;
    return got;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::nanoseconds(spin_wait_ns_);
  auto now = start;
  unsigned iter = 0;
  while (got < min && in_flight_ > 0) {
    // CQEs may be in the ring already (the submit's own enter ran pending completion work):
    // take them at once rather than waiting for the flag to rise again.
    const bool flagged = IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN;
    if (flagged || io_uring_cq_ready(&ring_) > 0) {
      if (flagged) (void)io_uring_get_events(&ring_);  // errors surface in the wait that follows
      got += take_ready(out + got, max - got);
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
    // The budget holds whatever the flag says, so a flag that stays up cannot keep us here.
    if ((++iter & 31) == 0 && (now = std::chrono::steady_clock::now()) >= end) break;
  }
  if ((iter & 31) != 0) now = std::chrono::steady_clock::now();
  spin_ns_ += static_cast<std::uint64_t>((now - start).count());
  if (got >= min) {
    spin_misses_ = 0;
  } else if (++spin_misses_ >= 4) {
    spin_misses_ = 0;
    spin_pause_ = 256;
  }
  return got;
}

int IoUringEngine::reap(unsigned min, unsigned max, IoRequest** out,
                        std::chrono::nanoseconds timeout) noexcept {
  if (held_ > 0 && staged_ == held_ && max > 0 && min > 0 && timeout.count() > 0) {
    // The batch commit() held: hand it over and wait for `min` completions in one enter.
    const unsigned n = staged_;
    held_ = 0;
    __kernel_timespec ts = to_timespec(timeout);
    io_uring_cqe* cqe = nullptr;
    const unsigned want = std::min({min, max, in_flight_ + n});
    int ret = io_uring_submit_and_wait_timeout(&ring_, &cqe, want, &ts, nullptr);
    // What the kernel took: the SQEs it has not consumed are still between its head and our tail.
    const unsigned taken = n - std::min(n, io_uring_sq_ready(&ring_));
    staged_ -= taken;
    in_flight_ += taken;
    unsigned got = take_ready(out, max);
    if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY && got == 0)
      return ret;
    if (staged_ == 0 && got >= want) return static_cast<int>(got);
    if (staged_ == 0 && ret == -ETIME) return static_cast<int>(got);
    // Fewer than asked (a signal, the kernel short of requests): the ordinary path for the rest.
    int more = reap(min > got ? min - got : 0, max - got, out + got, timeout);
    return static_cast<int>(got) + std::max(0, more);
  }
  if (staged_ > 0) [[unlikely]]
    (void)submit_staged();  // leftovers of a commit() the kernel pushed back on, or held ones
  if (max == 0 || in_flight_ == 0) return 0;
  // Peek first, except where the poll below does it (and counts its time): under DEFER_TASKRUN the
  // submit's own enter ran pending completion work (liburing adds GETEVENTS when
  // IORING_SQ_TASKRUN is up), so its CQEs are there to take without another system call.
  const bool may_poll = taskrun_flag_ && polling_now();
  const bool polls = may_poll && spin_pause_ == 0;
  unsigned got = polls ? 0 : take_ready(out, max);
  min = std::min({min, max, got + in_flight_});
  if (got >= min && (got > 0 || min > 0)) return static_cast<int>(got);

  if (timeout.count() <= 0 || min == 0) {
    // Nothing to wait for: just let the kernel run pending completion work and take what is there.
    if (defer_taskrun_ || iopoll_) {
      int ret = io_uring_get_events(&ring_);
      if (ret < 0 && ret != -EINTR && ret != -EAGAIN && got == 0) return ret;
    }
    got += take_ready(out + got, max - got);
    return static_cast<int>(got);
  }

  if (may_poll) {
    got = poll_for(min, max, out, got);
    if (got >= min) return static_cast<int>(got);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (got < min && in_flight_ > 0) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left.count() <= 0) break;
    __kernel_timespec ts = to_timespec(std::chrono::duration_cast<std::chrono::nanoseconds>(left));
    io_uring_cqe* cqe = nullptr;
    int ret = io_uring_wait_cqes(&ring_, &cqe, min - got, &ts, nullptr);
    got += take_ready(out + got, max - got);
    if (ret == -ETIME) break;
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
      if (got == 0) return ret;
      break;
    }
  }
  return static_cast<int>(got);
}

void IoUringEngine::drain_in_flight() noexcept {
  // What is in flight reads into or writes from the caller's buffers, which the contract lets the
  // caller free once close() returns: cancel what the kernel can cancel and wait for the rest,
  // bounded so that a device that never answers cannot hang the tool. SQEs still staged (held for
  // a reap() that did not come) go first, so that they are counted in flight.
  if (staged_ > 0 && enabled_) (void)submit_staged();
  if (in_flight_ == 0 || !enabled_) return;
  if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) {
    io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
    io_uring_sqe_set_data64(sqe, kCancelTag);
    if (io_uring_submit(&ring_) < 0) {
      // Another thread than the submitter (SINGLE_ISSUER) or a dead ring: the kernel's ring exit
      // cancels and waits for what is left.
      return;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool cancel_pending = true;
  while (in_flight_ > 0 || cancel_pending) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left.count() <= 0) break;
    __kernel_timespec ts = to_timespec(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(100))));
    io_uring_cqe* cqe = nullptr;
    int ret = io_uring_wait_cqe_timeout(&ring_, &cqe, &ts);
    if (ret == -ETIME || ret == -EINTR) continue;
    if (ret < 0) break;
    if (io_uring_cqe_get_data64(cqe) == kCancelTag) {
      cancel_pending = false;
    } else {
      auto* req = static_cast<IoRequest*>(io_uring_cqe_get_data(cqe));
      req->res = cqe->res;
      --in_flight_;
    }
    io_uring_cqe_seen(&ring_, cqe);
  }
}

void IoUringEngine::close() noexcept {
  if (ring_ready_) {
    drain_in_flight();
    io_uring_queue_exit(&ring_);
    ring_ready_ = false;
  }
  target_.close();
  cqes_.clear();
  staged_ = 0;
  held_ = 0;
  in_flight_ = 0;
  enabled_ = false;
  defer_taskrun_ = false;
  taskrun_flag_ = false;
  fixed_buffers_ = false;
  registered_file_ = false;
}

}  // namespace storqual::engines
