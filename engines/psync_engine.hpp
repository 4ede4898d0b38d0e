// SPDX-License-Identifier: Apache-2.0
// The psync engine: one pread/pwrite per queue(), fio's `psync` (see psync_engine.cpp).
#pragma once

#include "engines/engine.hpp"
#include "engines/target_file.hpp"

namespace storqual::engines {

// Synchronous: queue() does the I/O and returns Completed with req.res set (never Busy, never
// Queued), commit() and reap() return 0. iodepth is 1 whatever the config says.
class PsyncEngine final : public Engine {
 public:
  ~PsyncEngine() override { close(); }
  [[nodiscard]] std::string_view name() const noexcept override { return "psync"; }
  [[nodiscard]] EngineCaps caps() const noexcept override { return {}; }
  void open(const EngineConfig& config) override;
  [[nodiscard]] QueueStatus queue(IoRequest& req) noexcept override;
  [[nodiscard]] int commit() noexcept override { return 0; }
  [[nodiscard]] int reap(unsigned min, unsigned max, IoRequest** out,
                         std::chrono::nanoseconds timeout) noexcept override;
  void close() noexcept override { target_.close(); }
  [[nodiscard]] std::uint64_t target_size() const noexcept override { return target_.size(); }
  [[nodiscard]] std::uint32_t logical_block_size() const noexcept override {
    return target_.logical_block_size();
  }
  [[nodiscard]] int fd() const noexcept override { return target_.fd(); }

 private:
  TargetFile target_;
};

}  // namespace storqual::engines
