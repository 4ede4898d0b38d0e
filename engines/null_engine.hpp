// SPDX-License-Identifier: Apache-2.0
// The null engine (see null_engine.cpp). Its target may be any name, existing or not.
#pragma once

#include <vector>

#include "engines/engine.hpp"

namespace storqual::engines {

class NullEngine final : public Engine {
 public:
  ~NullEngine() override { close(); }
  [[nodiscard]] std::string_view name() const noexcept override { return "null"; }
  [[nodiscard]] EngineCaps caps() const noexcept override {
    return {.async = true, .needs_commit = true};
  }
  void open(const EngineConfig& config) override;
  [[nodiscard]] QueueStatus queue(IoRequest& req) noexcept override;
  [[nodiscard]] int commit() noexcept override;
  [[nodiscard]] int reap(unsigned min, unsigned max, IoRequest** out,
                         std::chrono::nanoseconds timeout) noexcept override;
  void close() noexcept override;
  [[nodiscard]] std::uint64_t target_size() const noexcept override { return 0; }
  [[nodiscard]] std::uint32_t logical_block_size() const noexcept override { return 512; }
  [[nodiscard]] int fd() const noexcept override { return -1; }

 private:
  std::vector<IoRequest*> ring_;  // staged and completed requests, in order
  unsigned depth_ = 1;
  unsigned staged_ = 0;  // queued, not yet committed
  unsigned done_ = 0;    // committed, not yet reaped (they complete at once)
  unsigned head_ = 0;    // oldest completed
  unsigned in_flight_ = 0;
};

}  // namespace storqual::engines
