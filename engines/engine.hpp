// SPDX-License-Identifier: Apache-2.0
// The I/O engine contract: fio's queue/commit/reap model in C++, with no other project code.
//
// Contract (every engine, tested by tests/system/engine_conformance_test.cpp):
// - open() does all setup (open the target, build a ring, register files and buffers) and throws
//   EngineError with a clear message when it cannot. After open() the hot path never throws.
// - queue(req) either completes the request at once (Completed: req.res is set), accepts it for
//   the next commit() (Queued), or refuses it because `iodepth` requests are already in flight
//   (Busy: nothing happened to req; reap something first).
// - commit() hands every Queued request to the kernel; returns the number handed over or -errno.
//   Engines whose caps().needs_commit is false submit in queue() and commit() returns 0. When
//   the kernel pushes back (EAGAIN) while I/O is in flight, commit() may hand over fewer: the
//   rest stay queued and go with the next commit() or reap(), so a caller that reaps makes
//   progress. With requests already in flight an engine may also hold a whole batch for the next
//   reap(), to hand it over and wait in one system call (counted as handed over): callers that
//   commit while I/O is in flight must reap next, as every loop on this contract does.
// - reap(min, max, out, timeout) waits until at least `min` requests completed or `timeout`
//   passed, stores up to `max` completed request pointers in out and returns how many (or -errno;
//   0 on timeout). Results travel in the request: res = bytes transferred or -errno. A short
//   transfer (0 <= res < length) is reported as is; requeueing the rest is the caller's choice.
// - close() cancels or drains what is in flight and releases everything; the destructor calls it.
// - Requests are owned by the caller and must stay alive until reaped or until close() returns.
//   open() may be called on another thread than the one that then drives the engine.
// - One engine instance is used by one thread; distinct instances share nothing.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"

namespace storqual::engines {

enum class Direction : std::uint8_t { Read = 0, Write = 1 };

// One I/O. The caller fills dir/offset/length/buf (and buf_index when buffers were registered);
// the engine fills res. `cookie` is the caller's.
struct IoRequest {
  Direction dir = Direction::Read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  void* buf = nullptr;
  int buf_index = -1;  // index into EngineConfig::buffers, or -1 when the buffer is not registered
  std::int64_t res = 0;  // bytes transferred, or -errno
  void* cookie = nullptr;
};

enum class QueueStatus { Completed, Queued, Busy };

struct EngineCaps {
  bool async = false;          // can hold more than one request in flight
  bool needs_commit = false;   // queue() only stages; commit() submits
  bool fixed_buffers = false;  // uses the registered buffers (buf_index) when given
  bool registered_file = false;
  bool polled = false;  // iopoll or sqpoll in use
};

// Shared by the engines of every job in the process that polls automatically: set and cleared
// by the host's poll budget; read once per wait (a relaxed load, no system call).
struct PollGate {
  std::atomic<bool> allow{true};
};

struct EngineConfig {
  std::string path{};            // target; the null engine ignores it
  bool write = false;            // open read-write (else read-only)
  bool direct = true;            // O_DIRECT
  bool create = false;           // O_CREAT for regular files
  bool exclusive = false;        // O_EXCL on a block device: the kernel refuses mounts and claims
  unsigned iodepth = 1;          // most requests in flight at once
  std::vector<iovec> buffers{};  // I/O buffers to register (fixed buffers), may be empty
  bool fixed_buffers = true;     // io_uring: register buffers
  bool registered_files = true;  // io_uring: register the fd
  bool sqpoll = false;           // io_uring: kernel submission thread
  bool iopoll = false;           // io_uring: polled completions (needs O_DIRECT and a poll queue)
  unsigned batch_submit = 0;     // hint: requests per commit (0 = whatever is queued)
  // io_uring: before sleeping for completions, poll for them this long (0: always sleep). A
  // thread that sleeps must be woken for each completion, and on a fast device that wake-up is
  // paid by the completing CPU per I/O; polling briefly keeps the waiter awake when completions
  // come quicker than a wake-up. The engine stops polling when the device turns out slower.
  std::uint32_t spin_wait_ns = 0;
  // Where the host decides whether polling may run now (runner/measure/poll_budget.hpp: only
  // while a CPU is really spare, over every job of every target of the process). nullptr: the
  // engine polls whenever spin_wait_ns allows.
  PollGate* poll_gate = nullptr;
};

// Setup failures (open, ring creation, registration) with a message fit for the user and the errno.
class EngineError : public storqual::Error {
 public:
  EngineError(const std::string& what, int err) : Error(what, kExitRuntime), errno_(err) {}
  [[nodiscard]] int error() const noexcept { return errno_; }

 private:
  int errno_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  [[nodiscard]] virtual EngineCaps caps() const noexcept = 0;

  virtual void open(const EngineConfig& config) = 0;
  [[nodiscard]] virtual QueueStatus queue(IoRequest& req) noexcept = 0;
  [[nodiscard]] virtual int commit() noexcept = 0;
  [[nodiscard]] virtual int reap(unsigned min, unsigned max, IoRequest** out,
                                 std::chrono::nanoseconds timeout) noexcept = 0;
  virtual void close() noexcept = 0;

  // Size in bytes of the opened target (block device size or file size); 0 for null.
  [[nodiscard]] virtual std::uint64_t target_size() const noexcept = 0;
  // Logical block size of the opened target (512 for files unless O_DIRECT needs more).
  [[nodiscard]] virtual std::uint32_t logical_block_size() const noexcept = 0;
  // The file descriptor, or -1 (null engine). For ioctls such as BLKDISCARD by the runner.
  [[nodiscard]] virtual int fd() const noexcept = 0;
  // CPU time spent polling for completions (EngineConfig::spin_wait_ns) since open(): CPU used to
  // wait, not to work, so that a job thread that polls is not taken for a CPU-bound one.
  [[nodiscard]] virtual std::uint64_t spin_ns() const noexcept { return 0; }
};

struct Availability {
  bool ok = false;
  std::string reason;  // why not, when !ok
};

// The engines this build knows, in preference order: io_uring, libaio, psync, null.
[[nodiscard]] std::span<const std::string_view> engine_names() noexcept;
// Probes the kernel (a throwaway ring, an io_setup) and says whether `name` can be used here.
[[nodiscard]] Availability available(std::string_view name);
// Makes an unopened engine; throws EngineError for an unknown name or one that is unavailable.
[[nodiscard]] std::unique_ptr<Engine> make_engine(std::string_view name);

}  // namespace storqual::engines
