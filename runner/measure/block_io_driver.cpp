// SPDX-License-Identifier: Apache-2.0
// BlockIoDriver: the fill/commit/reap loop over a sequence of whole-block I/Os (see
// block_io_driver.hpp).
#include "runner/measure/block_io_driver.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <numeric>
#include <optional>
#include <utility>

#include "runner/measure/clock.hpp"

namespace storqual::runner {

using engines::Direction;
using engines::IoRequest;
using engines::QueueStatus;

BlockIoDriver::BlockIoDriver(std::string_view ioengine, const EngineWrapper& wrap,
                             engines::EngineConfig config, unsigned iodepth,
                             std::uint32_t block_size, std::string label)
    : engine_(engines::make_engine(ioengine)), block_size_(block_size), label_(std::move(label)) {
  if (wrap) engine_ = wrap(std::move(engine_));
  depth_ = engine_->caps().async ? iodepth : 1u;
  const std::size_t stride = (std::size_t{block_size} + 4095) / 4096 * 4096;
  buffers_.reset(static_cast<unsigned char*>(std::aligned_alloc(4096, stride * depth_)));
  if (!buffers_) throw std::bad_alloc();
  config.iodepth = depth_;
  config.buffers.clear();
  requests_.resize(depth_);
  for (unsigned i = 0; i < depth_; ++i) {
    requests_[i].buf = buffers_.get() + static_cast<std::size_t>(i) * stride;
    requests_[i].buf_index = static_cast<int>(i);
    requests_[i].cookie = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i));
    config.buffers.push_back({requests_[i].buf, block_size});
  }
  engine_->open(config);
  open_ = true;
}

BlockIoDriver::~BlockIoDriver() {
  close();
}

void BlockIoDriver::close() noexcept {
  if (open_) engine_->close();
  open_ = false;
}

BlockPassOutcome BlockIoDriver::run(Direction dir, const NextBlock& next,
                                    const PrepareWrite& prepare, const Completion& done,
                                    const std::atomic<bool>* stop) {
  BlockPassOutcome out;
  const auto start = monotonic_now_ns();
  std::vector<unsigned> free_slots(depth_);
  std::iota(free_slots.rbegin(), free_slots.rend(), 0u);
  std::vector<std::uint64_t> tag_of_slot(depth_);
  std::vector<std::uint64_t> queued_at(depth_);
  std::vector<IoRequest*> reaped(depth_);
  auto stopped = [stop] { return stop && stop->load(std::memory_order_relaxed); };
  auto finish = [&](unsigned slot) {
    const IoRequest& r = requests_[slot];
    ++out.ios;
    if (r.res != static_cast<std::int64_t>(r.length) && out.errors++ == 0) {
      out.first_errno = r.res < 0 ? static_cast<int>(-r.res) : EIO;
      out.first_error_offset = r.offset;
    }
    last_latency_ns_ = monotonic_now_ns() - queued_at[slot];
    done(r, tag_of_slot[slot]);
    free_slots.push_back(slot);
  };
  // A block the engine refused (Busy) waits here for the next turn.
  std::optional<BlockIo> pending;
  bool exhausted = false;
  unsigned in_flight = 0, idle_reaps = 0;
  while (true) {
    unsigned staged = 0;
    while (!free_slots.empty() && !exhausted && !stopped()) {
      if (!pending) {
        BlockIo b;
        if (!next(b)) {
          exhausted = true;
          break;
        }
        pending = b;
      }
      const unsigned slot = free_slots.back();
      IoRequest& r = requests_[slot];
      r.dir = dir;
      r.offset = pending->offset;
      r.length = block_size_;
      r.res = 0;
      tag_of_slot[slot] = pending->tag;
      if (dir == Direction::Write) prepare(r, pending->tag);
      queued_at[slot] = monotonic_now_ns();
      const QueueStatus st = engine_->queue(r);
      if (st == QueueStatus::Busy) break;
      free_slots.pop_back();
      pending.reset();
      if (st == QueueStatus::Completed) {
        finish(slot);
      } else {
        ++in_flight;
        ++staged;
      }
    }
    if (staged) {
      const int rc = engine_->commit();
      if (rc < 0)
        throw engines::EngineError(label_ + ": submit failed: " + std::strerror(-rc), -rc);
    }
    if (in_flight == 0) {
      if (exhausted || stopped()) break;
      continue;
    }
    const int n = engine_->reap(1, depth_, reaped.data(), std::chrono::seconds(30));
    if (n < 0 && n != -EINTR && n != -ETIME && n != -EAGAIN)
      throw engines::EngineError(label_ + ": reap failed: " + std::strerror(-n), -n);
    if (n <= 0 && ++idle_reaps >= 4)
      throw engines::EngineError(
          label_ + ": " + std::to_string(in_flight) + " I/Os still in flight after 2 minutes",
          ETIMEDOUT);
    if (n > 0) idle_reaps = 0;
    for (int i = 0; i < n; ++i) {
      finish(static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(reaped[i]->cookie)));
      --in_flight;
    }
  }
  out.seconds = static_cast<double>(monotonic_now_ns() - start) / 1e9;
  return out;
}

BlockIoDriver::NextBlock blocks_at(const std::vector<std::uint64_t>& offsets,
                                   std::function<std::uint64_t(std::size_t index)> tag_of) {
  return [&offsets, tag_of = std::move(tag_of), i = std::size_t{0}](BlockIo& b) mutable {
    if (i >= offsets.size()) return false;
    b.offset = offsets[i];
    b.tag = tag_of(i);
    ++i;
    return true;
  };
}

}  // namespace storqual::runner
