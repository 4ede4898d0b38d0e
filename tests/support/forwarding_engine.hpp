// SPDX-License-Identifier: Apache-2.0
// An engine that hands every call to the real one it wraps (RunOptions::wrap_engine): a test
// overrides only the calls it watches or bends (a stop after N I/Os, the largest reap asked for).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "engines/engine.hpp"

namespace storqual::testing {

class ForwardingEngine : public engines::Engine {
 public:
  explicit ForwardingEngine(std::unique_ptr<engines::Engine> inner) : inner_(std::move(inner)) {}
  std::string_view name() const noexcept override { return inner_->name(); }
  engines::EngineCaps caps() const noexcept override { return inner_->caps(); }
  void open(const engines::EngineConfig& c) override { inner_->open(c); }
  engines::QueueStatus queue(engines::IoRequest& r) noexcept override { return inner_->queue(r); }
  int commit() noexcept override { return inner_->commit(); }
  int reap(unsigned min, unsigned max, engines::IoRequest** out,
           std::chrono::nanoseconds timeout) noexcept override {
    return inner_->reap(min, max, out, timeout);
  }
  void close() noexcept override { inner_->close(); }
  std::uint64_t target_size() const noexcept override { return inner_->target_size(); }
  std::uint32_t logical_block_size() const noexcept override {
    return inner_->logical_block_size();
  }
  int fd() const noexcept override { return inner_->fd(); }
  std::uint64_t spin_ns() const noexcept override { return inner_->spin_ns(); }

 protected:
  engines::Engine& inner() noexcept { return *inner_; }

 private:
  std::unique_ptr<engines::Engine> inner_;
};

}  // namespace storqual::testing
