// SPDX-License-Identifier: Apache-2.0
// The libaio engine: Linux native AIO through libaio, fio's `libaio` (see libaio_engine.cpp).
#pragma once

#include <libaio.h>

#include <vector>

#include "engines/engine.hpp"
#include "engines/target_file.hpp"

namespace storqual::engines {

// Asynchronous. queue() prepares an iocb (Busy once `iodepth` requests are staged or in flight),
// commit() io_submit()s the staged ones (what the kernel pushes back with EAGAIN stays staged for
// the next commit() or reap()), reap() io_getevents() with the timeout. A request the kernel
// rejects at submission completes through reap() with res = -errno like any other.
// Truly asynchronous only with O_DIRECT: on buffered files io_submit does the I/O itself.
class LibaioEngine final : public Engine {
 public:
  ~LibaioEngine() override { close(); }
  [[nodiscard]] std::string_view name() const noexcept override { return "libaio"; }
  [[nodiscard]] EngineCaps caps() const noexcept override {
    return {.async = true, .needs_commit = true};
  }
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

 private:
  void fail_first_staged(int err) noexcept;

  io_context_t ctx_ = nullptr;
  TargetFile target_;
  std::vector<iocb> iocbs_;       // one per slot
  std::vector<iocb*> free_;       // free slots (stack)
  std::vector<iocb*> staged_;     // prepared, not yet submitted, in order (capacity depth)
  std::vector<io_event> events_;  // reap batch
  std::vector<iocb*> rejected_;   // refused at submission (res set), for reap()
  unsigned depth_ = 1;
  unsigned n_free_ = 0;
  unsigned n_staged_ = 0;
  unsigned n_rejected_ = 0;
  unsigned in_flight_ = 0;  // submitted to the kernel, not yet reaped
};

}  // namespace storqual::engines
