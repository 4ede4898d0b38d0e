// SPDX-License-Identifier: Apache-2.0
// BlockIoDriver: one engine with its own aligned buffers that drives a sequence of whole-block
// I/Os to completion at a fixed depth - the queue/commit/reap loop of the passes that are not
// measured workloads: the read-back of every written block after a verified workload
// (verify_written_blocks) and the two passes of the capacity check.
//
// Contract:
// - The constructor makes the engine (engines::make_engine), wraps it (`wrap`, may be empty: the
//   fault-injection seam), allocates depth x block_size buffers aligned to 4 KiB (each registered
//   with the engine) and opens it with `config` (its iodepth and buffers are filled in here).
//   depth = iodepth on an asynchronous engine, 1 otherwise. Throws engines::EngineError when the
//   target cannot be opened, std::bad_alloc when the buffers cannot be had.
// - run() asks `next` for blocks until it returns false (or `stop` is set), issues each as one
//   block_size I/O at its offset and calls `done` once per issued I/O with its request (res =
//   bytes or -errno; the buffer holds what was read) and the block's tag. Before each write,
//   `prepare` fills the request's buffer. Completions arrive in any order. I/O errors are the
//   requests' results, counted in the outcome (first errno and offset kept); they do not stop
//   the pass. Inside `done`, last_latency_ns() is that I/O's time from its queueing to its
//   completion (the surface scan's read times). A failed submit or reap, or 2 minutes without a
//   completion while I/Os are in flight, throws engines::EngineError whose message starts with
//   `label`.
// - Not thread safe: one thread drives one BlockIoDriver. The engine is closed by close() or the
//   destructor.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"

namespace storqual::runner {

// One block to issue: where, and a value of the caller's handed back with its completion (an
// expected write sequence, a sample index).
struct BlockIo {
  std::uint64_t offset = 0;
  std::uint64_t tag = 0;
};

// What one run() did.
struct BlockPassOutcome {
  std::uint64_t ios = 0;     // completed I/Os, failed ones included
  std::uint64_t errors = 0;  // I/Os whose result was not the full block
  int first_errno = 0;       // of the first error (EIO for a short transfer)
  std::uint64_t first_error_offset = 0;
  double seconds = 0;  // wall time of the pass
};

class BlockIoDriver {
 public:
  using EngineWrapper =
      std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)>;
  using NextBlock = std::function<bool(BlockIo&)>;
  using PrepareWrite = std::function<void(engines::IoRequest&, std::uint64_t tag)>;
  using Completion = std::function<void(const engines::IoRequest&, std::uint64_t tag)>;

  BlockIoDriver(std::string_view ioengine, const EngineWrapper& wrap, engines::EngineConfig config,
                unsigned iodepth, std::uint32_t block_size, std::string label);
  ~BlockIoDriver();
  BlockIoDriver(const BlockIoDriver&) = delete;
  BlockIoDriver& operator=(const BlockIoDriver&) = delete;

  [[nodiscard]] engines::Engine& engine() noexcept { return *engine_; }
  [[nodiscard]] unsigned depth() const noexcept { return depth_; }
  // The time of the I/O whose `done` is running: from just before its queue() to its reaping.
  [[nodiscard]] std::uint64_t last_latency_ns() const noexcept { return last_latency_ns_; }

  BlockPassOutcome run(engines::Direction dir, const NextBlock& next, const PrepareWrite& prepare,
                       const Completion& done, const std::atomic<bool>* stop);

  void close() noexcept;

 private:
  std::unique_ptr<engines::Engine> engine_;
  unsigned depth_ = 1;
  std::uint32_t block_size_ = 0;
  std::string label_;
  std::unique_ptr<unsigned char, decltype(&std::free)> buffers_{nullptr, &std::free};
  std::vector<engines::IoRequest> requests_;
  std::uint64_t last_latency_ns_ = 0;
  bool open_ = false;
};

// A NextBlock over `offsets` in order, each tagged with `tag_of(index)`.
[[nodiscard]] BlockIoDriver::NextBlock blocks_at(
    const std::vector<std::uint64_t>& offsets,
    std::function<std::uint64_t(std::size_t index)> tag_of);

}  // namespace storqual::runner
