// SPDX-License-Identifier: Apache-2.0
// The libaio engine, as fio's engines/libaio.c: iocbs live in a slot array sized at open() (no
// allocation per I/O), queue() only prepares one, commit() hands all staged iocbs to one io_submit
// and copes with partial submits, reap() is one io_getevents with the caller's timeout. It exists
// because much of the installed base and many vendor test plans still quote libaio numbers.
#include "engines/libaio_engine.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace storqual::engines {
namespace {
constexpr unsigned kMaxEagainSpins = 1024;
}

void LibaioEngine::open(const EngineConfig& config) {
  close();
  target_.open(config);
  depth_ = std::max(1u, config.iodepth);
  io_context_t ctx = nullptr;
  int ret = io_setup(static_cast<int>(depth_), &ctx);
  if (ret < 0) {
    std::string why = std::strerror(-ret);
    if (ret == -EAGAIN) why += " (the system-wide AIO limit is reached: /proc/sys/fs/aio-max-nr)";
    if (ret == -ENOSYS) why += " (this kernel is built without AIO)";
    target_.close();
    throw EngineError("cannot set up a libaio context of depth " + std::to_string(depth_) +
                          " for " + config.path + ": " + why,
                      -ret);
  }
  ctx_ = ctx;
  iocbs_.assign(depth_, iocb{});
  free_.resize(depth_);
  for (unsigned i = 0; i < depth_; ++i) free_[i] = &iocbs_[i];
  n_free_ = depth_;
  staged_.assign(depth_, nullptr);
  events_.assign(depth_, io_event{});
  rejected_.assign(depth_, nullptr);
  n_staged_ = n_rejected_ = in_flight_ = 0;
}

QueueStatus LibaioEngine::queue(IoRequest& req) noexcept {
  if (n_free_ == 0) return QueueStatus::Busy;  // depth_ staged, in flight or awaiting reap
  iocb* cb = free_[--n_free_];
  if (req.dir == Direction::Read)
    io_prep_pread(cb, target_.fd(), req.buf, req.length, static_cast<long long>(req.offset));
  else
    io_prep_pwrite(cb, target_.fd(), req.buf, req.length, static_cast<long long>(req.offset));
  cb->data = &req;
  staged_[n_staged_++] = cb;
  return QueueStatus::Queued;
}

void LibaioEngine::fail_first_staged(int err) noexcept {
  // The iocb stays taken until reap() returns the request, so the depth still bounds everything.
  iocb* cb = staged_[0];
  static_cast<IoRequest*>(cb->data)->res = -err;
  rejected_[n_rejected_++] = cb;
  std::copy(staged_.begin() + 1, staged_.begin() + n_staged_, staged_.begin());
  --n_staged_;
}

int LibaioEngine::commit() noexcept {
  int handed = 0;
  unsigned spins = 0;
  unsigned done = 0;  // staged_[0, done) submitted
  while (done < n_staged_) {
    int ret = io_submit(ctx_, static_cast<long>(n_staged_ - done), staged_.data() + done);
    if (ret > 0) {
      done += static_cast<unsigned>(ret);
      in_flight_ += static_cast<unsigned>(ret);
      handed += ret;
      continue;
    }
    if (ret == -EINTR) continue;
    if (ret == -EAGAIN || ret == 0) {
      // Out of kernel resources for now: what is in flight frees them when reaped, so leave the
      // rest staged for the next commit()/reap(); with nothing in flight retry a little.
      if (in_flight_ > 0 || ++spins > kMaxEagainSpins) break;
      continue;
    }
    // The first remaining iocb is invalid (EINVAL, EBADF, ...): complete it with that error and
    // go on with the others.
    std::copy(staged_.begin() + done, staged_.begin() + n_staged_, staged_.begin());
    n_staged_ -= done;
    done = 0;
    fail_first_staged(-ret);
  }
  std::copy(staged_.begin() + done, staged_.begin() + n_staged_, staged_.begin());
  n_staged_ -= done;
  return handed;
}

int LibaioEngine::reap(unsigned min, unsigned max, IoRequest** out,
                       std::chrono::nanoseconds timeout) noexcept {
  if (n_staged_ > 0) [[unlikely]]
    (void)commit();
  unsigned got = 0;
  while (n_rejected_ > 0 && got < max) {
    iocb* cb = rejected_[--n_rejected_];
    out[got++] = static_cast<IoRequest*>(cb->data);
    free_[n_free_++] = cb;
  }
  if (got >= max || in_flight_ == 0) return static_cast<int>(got);

  unsigned want = std::min({max - got, in_flight_, depth_});
  long min_nr = static_cast<long>(got >= min ? 0 : std::min(min - got, want));
  timespec ts{};
  if (timeout.count() > 0) {
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
  }
  int ret;
  do {
    // io_getevents restarts with the full timeout after EINTR; the caller's deadline is a bound
    // to wait at most, not exactly, so that is acceptable.
    ret = io_getevents(ctx_, min_nr, static_cast<long>(want), events_.data(), &ts);
  } while (ret == -EINTR);
  if (ret < 0) return got > 0 ? static_cast<int>(got) : ret;
  for (int i = 0; i < ret; ++i) {
    const io_event& ev = events_[i];
    auto* req = static_cast<IoRequest*>(ev.data);
    // res is an unsigned long carrying bytes or -errno.
    req->res = static_cast<std::int64_t>(static_cast<long>(ev.res));
    free_[n_free_++] = ev.obj;
    out[got++] = req;
  }
  in_flight_ -= static_cast<unsigned>(ret);
  return static_cast<int>(got);
}

void LibaioEngine::close() noexcept {
  if (ctx_ != nullptr) {
    // io_destroy cancels what it can and waits for the rest of the context's I/O to finish, so
    // the caller's buffers are free once it returns.
    io_destroy(ctx_);
    ctx_ = nullptr;
  }
  target_.close();
  iocbs_.clear();
  free_.clear();
  staged_.clear();
  events_.clear();
  rejected_.clear();
  n_free_ = n_staged_ = n_rejected_ = in_flight_ = 0;
}

}  // namespace storqual::engines
