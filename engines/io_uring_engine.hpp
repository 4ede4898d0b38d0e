// SPDX-License-Identifier: Apache-2.0
// The io_uring engine (liburing): batched submit and reap, registered file and fixed buffers
// (see io_uring_engine.cpp for why it is built the way it is).
#pragma once

#include <liburing.h>

#include <vector>

#include "engines/engine.hpp"
#include "engines/target_file.hpp"

namespace storqual::engines {

// Asynchronous. queue() stages an SQE (Busy once `iodepth` requests are staged or in flight),
// commit() submits every staged SQE with one io_uring_enter, reap() peeks completions in batches
// and waits (io_uring_wait_cqes with a timeout) only when fewer than `min` are ready.
// Registered file and fixed buffers (EngineConfig::buffers, used when IoRequest::buf_index >= 0)
// are on by default; when the kernel refuses a registration the engine runs without it and
// caps() says so. open() may run on another thread than the one that uses the engine: the ring
// is bound to the thread of the first commit().
class IoUringEngine final : public Engine {
 public:
  ~IoUringEngine() override { close(); }
  [[nodiscard]] std::string_view name() const noexcept override { return "io_uring"; }
  [[nodiscard]] EngineCaps caps() const noexcept override;
  void open(const EngineConfig& config) override;
  [[nodiscard]] QueueStatus queue(IoRequest& req) noexcept override;
  [[nodiscard]] int commit() noexcept override;
  [[nodiscard]] int reap(unsigned min, unsigned max, IoRequest** out,
                         std::chrono::nanoseconds timeout) noexcept override;
  void close() noexcept override;
  [[nodiscard]] std::uint64_t target_size() const noexcept override { return target_.size(); }
  [[nodiscard]] std::uint32_t logical_block_size() const noexcept override {
    return target_.logical_block_size();
  }
  [[nodiscard]] int fd() const noexcept override { return target_.fd(); }
  [[nodiscard]] std::uint64_t spin_ns() const noexcept override { return spin_ns_; }

 private:
  unsigned take_ready(IoRequest** out, unsigned room) noexcept;
  int enable_on_this_thread() noexcept;
  void drain_in_flight() noexcept;
  unsigned poll_for(unsigned min, unsigned max, IoRequest** out, unsigned got) noexcept;
  int submit_staged() noexcept;
  // Whether a wait may poll now: a budget (spin_wait_ns_) and the host's gate open.
  [[nodiscard]] bool polling_now() const noexcept {
    return spin_wait_ns_ > 0 && (gate_ == nullptr || gate_->allow.load(std::memory_order_relaxed));
  }

  io_uring ring_{};
  bool ring_ready_ = false;  // ring_ initialised
  bool enabled_ = false;     // created IORING_SETUP_R_DISABLED and not enabled yet when false
  bool defer_taskrun_ = false;
  bool taskrun_flag_ = false;  // the kernel flags pending completion work in the SQ ring flags
  std::uint32_t spin_wait_ns_ = 0;
  PollGate* gate_ = nullptr;   // EngineConfig::poll_gate
  unsigned spin_misses_ = 0;   // consecutive polls that ended without a completion
  unsigned spin_pause_ = 0;    // waits left to sleep through before polling again
  std::uint64_t spin_ns_ = 0;  // time spent polling
  TargetFile target_;
  std::vector<io_uring_cqe*> cqes_;  // reap batch, sized at open()
  unsigned depth_ = 1;
  unsigned staged_ = 0;     // SQEs prepared, not yet taken by the kernel
  unsigned held_ = 0;       // of those, held by commit() for the next reap() to submit
  unsigned in_flight_ = 0;  // submitted, not yet reaped
  int sqe_fd_ = -1;         // 0 (registered index) or the fd
  std::uint8_t sqe_flags_ = 0;
  bool fixed_buffers_ = false;
  bool registered_file_ = false;
  bool sqpoll_ = false;
  bool iopoll_ = false;
};

}  // namespace storqual::engines
