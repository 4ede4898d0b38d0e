// SPDX-License-Identifier: Apache-2.0
// A fault-injecting decorator around any Engine: errors, short transfers, EAGAIN storms, stuck
// and dropped I/O, misdirected and corrupted writes, fake capacity, latency and throughput
// faults, all driven by a FaultPlan and a seed so that every run injects the same faults.
//
// Contract:
// - FaultEngine behaves as the Engine contract says (it is asynchronous: queue/commit/reap), and
//   passes every I/O no fault claims to the wrapped engine unchanged.
// - Each fault has a FaultTrigger and counts the I/Os of the directions it matches on its own:
//   it lets the first `after` through, then hits each later one with `probability` (a seeded
//   draw; 1.0 = every one), at most `count` times. When several faults that replace the I/O hit
//   one request, the first of: eagain, stuck, fail, drop_write wins; the others (wrap, misdirect,
//   short_transfer, bit_flip) combine.
// - Time comes from a FaultClock (steady clock by default); tests pass a ManualClock and never
//   sleep: waiting on a manual clock moves it forward.
// - Hot-path methods never throw or allocate; this is a test and qualification tool though, not
//   a fast engine: it scans its small held list per reap.
#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engines/engine.hpp"

namespace storqual::engines {

// Which I/Os a fault hits (see the header's contract).
class CliffState;

struct FaultTrigger {
  bool reads = true;
  bool writes = true;
  std::uint64_t after = 0;  // matching I/Os let through before the fault starts
  std::uint64_t count = std::numeric_limits<std::uint64_t>::max();  // most hits
  double probability = 1.0;  // chance that a matching I/O past `after` is hit
};

struct FaultPlan {
  std::uint64_t seed = 1;

  // The I/O is not issued; it completes with res = -error.
  struct Fail {
    FaultTrigger when;
    int error = EIO;
  };
  std::optional<Fail> fail;

  // EAGAIN storm: at_queue = queue() returns Completed with res = -EAGAIN (as a sync engine
  // would), else the I/O is not issued and completes through reap() with res = -EAGAIN. A storm
  // is a trigger with `after` and `count`.
  struct Eagain {
    FaultTrigger when;
    bool at_queue = false;
  };
  std::optional<Eagain> eagain;

  // The I/O is not issued and never completes: it stays in flight (and holds a slot of iodepth)
  // until close().
  std::optional<FaultTrigger> stuck;

  // Writes only: not issued, reported as fully written (res = length).
  std::optional<FaultTrigger> drop_write;

  // Issued with only `bytes` of its length (when longer): res < length.
  struct ShortTransfer {
    FaultTrigger when;
    std::uint32_t bytes = 512;
  };
  std::optional<ShortTransfer> short_transfer;

  // Writes only: issued at offset + shift (clamped at 0) instead of offset.
  struct Misdirect {
    FaultTrigger when;
    std::int64_t shift = 4096;
  };
  std::optional<Misdirect> misdirect;

  // Writes only: one seeded-random bit of the data is flipped on its way to the device (the
  // caller's buffer is flipped while the write is in flight and restored at completion).
  std::optional<FaultTrigger> bit_flip;

  // A fake-capacity device: it reports `claimed_size` (0 = the wrapped engine's size) but stores
  // offsets modulo `wrap_at`, so data past wrap_at overwrites the start.
  struct FakeCapacity {
    std::uint64_t wrap_at = 0;
    std::uint64_t claimed_size = 0;
  };
  std::optional<FakeCapacity> fake_capacity;

  // Every I/O completes no earlier than commit time + base + per_in_flight * n, where n is the
  // number of requests in flight (itself included) when it was committed, plus `bump` when n is
  // in [bump_from, bump_to]: a latency curve by depth that is not monotone (a device that is slow
  // at one queue depth and faster at deeper ones).
  struct Latency {
    std::chrono::nanoseconds base{0};
    std::chrono::nanoseconds per_in_flight{0};
    std::chrono::nanoseconds bump{0};
    unsigned bump_from = 0, bump_to = 0;
  };
  std::optional<Latency> latency;

  // Writes queued once `after_bytes` bytes of writes have been queued take `slowdown` times as
  // long as they otherwise would (commit to completion, the latency fault included), so at a given
  // iodepth write throughput drops by that factor. Needs a nonzero service time to stretch: real
  // I/O or the latency fault.
  //
  // Device-wide (`state` set): the bytes are counted over every engine that shares one CliffState
  // (every copy of the plan: all the jobs and workloads of a run), as a drive counts them, not
  // per job and per workload. Idle recovery (a drive's garbage collection while the host
  // is idle): whenever no write is in flight on any engine sharing the state, `after_bytes` of
  // fast writes come back at `recover_bytes_per_s` (never more than after_bytes in all), so a
  // burst after a longer idle wait runs fast for longer.
  struct ThroughputCliff {
    std::uint64_t after_bytes = 0;
    double slowdown = 10.0;
    double recover_bytes_per_s = 0;
    // The device-wide account: every copy of the plan shares it (parse_fault_plan sets it for
    // scope=device or recover=; a test may set its own). Null: each engine counts on its own from
    // its open().
    std::shared_ptr<CliffState> state = nullptr;
  };
  std::optional<ThroughputCliff> throughput_cliff;
};

// How many times each fault was injected.
struct FaultCounts {
  std::uint64_t failed = 0;
  std::uint64_t eagain = 0;
  std::uint64_t stuck = 0;
  std::uint64_t dropped_writes = 0;
  std::uint64_t short_transfers = 0;
  std::uint64_t misdirected_writes = 0;
  std::uint64_t bit_flips = 0;
  std::uint64_t wrapped = 0;  // I/Os whose offset the fake capacity moved
  std::uint64_t slowed = 0;   // writes past the throughput cliff
};

// Time for the fault engine. now() is monotonic; sleep_until() returns at or after `t`.
class FaultClock {
 public:
  virtual ~FaultClock() = default;
  [[nodiscard]] virtual std::chrono::nanoseconds now() noexcept = 0;
  virtual void sleep_until(std::chrono::nanoseconds t) noexcept = 0;
};

// CLOCK_MONOTONIC and real sleeps.
class SteadyFaultClock final : public FaultClock {
 public:
  [[nodiscard]] std::chrono::nanoseconds now() noexcept override;
  void sleep_until(std::chrono::nanoseconds t) noexcept override;
};

// A clock that moves only when told (advance) or when someone waits on it (sleep_until jumps).
// Thread safe: the job threads move it while the sampler beside them reads it.
class ManualClock final : public FaultClock {
 public:
  [[nodiscard]] std::chrono::nanoseconds now() noexcept override {
    return std::chrono::nanoseconds(now_.load(std::memory_order_acquire));
  }
  void sleep_until(std::chrono::nanoseconds t) noexcept override {
    std::int64_t seen = now_.load(std::memory_order_relaxed);
    while (t.count() > seen &&
           !now_.compare_exchange_weak(seen, t.count(), std::memory_order_acq_rel)) {
    }
  }
  void advance(std::chrono::nanoseconds d) noexcept {
    now_.fetch_add(d.count(), std::memory_order_acq_rel);
  }

 private:
  std::atomic<std::int64_t> now_{0};
};

// The throughput cliff's account of fast writes left (see FaultPlan::ThroughputCliff): one per
// engine, or one shared by every engine of a device-wide cliff. Thread safe.
class CliffState {
 public:
  CliffState(std::uint64_t after_bytes, double recover_bytes_per_s)
      : after_bytes_(after_bytes),
        recover_bytes_per_s_(recover_bytes_per_s),
        credit_(after_bytes) {}
  // A write of `bytes` is queued at `now`: true when it is past the cliff (slowed).
  [[nodiscard]] bool on_write_queued(std::uint64_t bytes, std::chrono::nanoseconds now) noexcept;
  // A write queued with on_write_queued completed at `now`.
  void on_write_done(std::chrono::nanoseconds now) noexcept;
  [[nodiscard]] std::uint64_t credit() const noexcept;

 private:
  std::uint64_t after_bytes_;
  double recover_bytes_per_s_;
  mutable std::mutex lock_;
  std::uint64_t credit_;  // fast bytes left before the cliff
  unsigned in_flight_ = 0;
  std::chrono::nanoseconds idle_since_{0};
  bool ever_busy_ = false;
};

class FaultEngine final : public Engine {
 public:
  // `inner` is the real thing (opened by open() with the same config); `clock` defaults to a
  // SteadyFaultClock.
  FaultEngine(std::unique_ptr<Engine> inner, FaultPlan plan,
              std::shared_ptr<FaultClock> clock = nullptr);
  ~FaultEngine() override { close(); }

  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] EngineCaps caps() const noexcept override;
  void open(const EngineConfig& config) override;
  [[nodiscard]] QueueStatus queue(IoRequest& req) noexcept override;
  [[nodiscard]] int commit() noexcept override;
  [[nodiscard]] int reap(unsigned min, unsigned max, IoRequest** out,
                         std::chrono::nanoseconds timeout) noexcept override;
  void close() noexcept override;
  [[nodiscard]] std::uint64_t target_size() const noexcept override;
  [[nodiscard]] std::uint32_t logical_block_size() const noexcept override {
    return inner_->logical_block_size();
  }
  [[nodiscard]] int fd() const noexcept override { return inner_->fd(); }
  [[nodiscard]] std::uint64_t spin_ns() const noexcept override { return inner_->spin_ns(); }

  [[nodiscard]] const FaultCounts& counts() const noexcept { return counts_; }
  [[nodiscard]] Engine& inner() noexcept { return *inner_; }

 private:
  enum class SlotState : std::uint8_t { Free, Staged, InInner, Held, Stuck };
  struct Slot {
    IoRequest inner;  // what the wrapped engine sees (cookie = this slot)
    IoRequest* outer = nullptr;
    SlotState state = SlotState::Free;
    bool synthetic = false;  // not issued: completes with `synthetic_res`
    bool stuck = false;
    bool slowed = false;
    bool cliff_counted = false;  // a write the cliff's account holds as in flight
    bool flipped = false;
    std::uint32_t flip_byte = 0;
    std::uint8_t flip_mask = 0;
    std::int64_t synthetic_res = 0;
    std::chrono::nanoseconds committed{0};
    std::chrono::nanoseconds earliest{0};  // latency fault: not before this
    std::chrono::nanoseconds due{0};       // when Held: when reap may return it
  };
  struct TriggerState {
    std::uint64_t seen = 0;
    std::uint64_t hits = 0;
  };

  bool hits(const std::optional<FaultTrigger>& t, TriggerState& s, Direction dir) noexcept;
  bool hits(const FaultTrigger& t, TriggerState& s, Direction dir) noexcept;
  void restore(Slot& slot) noexcept;
  void hold(Slot& slot, std::chrono::nanoseconds now) noexcept;
  void release(Slot& slot) noexcept;
  void collect_inner(unsigned min, std::chrono::nanoseconds timeout) noexcept;
  unsigned take_due(IoRequest** out, unsigned room, std::chrono::nanoseconds now) noexcept;

  std::unique_ptr<Engine> inner_;
  FaultPlan plan_;
  std::shared_ptr<FaultClock> clock_;
  std::string name_;
  std::mt19937_64 rng_;
  FaultCounts counts_;
  TriggerState fail_state_, eagain_state_, stuck_state_, drop_state_, short_state_,
      misdirect_state_, flip_state_;
  std::vector<Slot> slots_;
  std::vector<Slot*> free_;
  std::vector<Slot*> staged_;  // queued since the last commit()
  std::vector<Slot*> held_;    // completed (or synthetic), waiting for their due time
  std::vector<IoRequest*> inner_out_;
  unsigned depth_ = 1;
  unsigned in_flight_ = 0;             // slots in use
  unsigned inner_committed_ = 0;       // issued to the wrapped engine and committed, not yet reaped
  unsigned inner_staged_ = 0;          // issued to the wrapped engine, not yet committed
  std::shared_ptr<CliffState> cliff_;  // the plan's device-wide state, or this engine's own
};

}  // namespace storqual::engines
