// SPDX-License-Identifier: Apache-2.0
// The fault-injecting decorator. Faults wrap the real engine instead of replacing it (a mock would
// only test our idea of a device): an I/O no fault claims is the wrapped engine's own, and an I/O
// that is changed (misdirected, shortened, corrupted, wrapped) really reaches the target changed,
// so tests and the verifier see on disk what a broken device would leave there. Every request
// gets a slot (allocated at open()) holding the wrapped engine's copy, so the caller's request
// is untouched until it completes, and completions are held until their due time, which is how
// the latency and throughput faults shape time without sleeping inside the wrapped engine.
#include "engines/fault_engine.hpp"

#include <algorithm>
#include <thread>

namespace storqual::engines {

std::chrono::nanoseconds SteadyFaultClock::now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch());
}

void SteadyFaultClock::sleep_until(std::chrono::nanoseconds t) noexcept {
  auto d = t - now();
  if (d.count() > 0) std::this_thread::sleep_for(d);
}

bool CliffState::on_write_queued(std::uint64_t bytes, std::chrono::nanoseconds now) noexcept {
  std::lock_guard guard(lock_);
  if (in_flight_ == 0 && ever_busy_ && recover_bytes_per_s_ > 0 && now > idle_since_) {
    const double idle_s = static_cast<double>((now - idle_since_).count()) / 1e9;
    const double back =
        std::min(static_cast<double>(after_bytes_ - credit_), idle_s * recover_bytes_per_s_);
    credit_ += static_cast<std::uint64_t>(back);
  }
  ++in_flight_;
  ever_busy_ = true;
  const bool slowed = credit_ == 0;
  credit_ -= std::min(credit_, bytes);
  return slowed;
}

void CliffState::on_write_done(std::chrono::nanoseconds now) noexcept {
  std::lock_guard guard(lock_);
  if (in_flight_ > 0 && --in_flight_ == 0) idle_since_ = now;
}

std::uint64_t CliffState::credit() const noexcept {
  std::lock_guard guard(lock_);
  return credit_;
}

FaultEngine::FaultEngine(std::unique_ptr<Engine> inner, FaultPlan plan,
                         std::shared_ptr<FaultClock> clock)
    : inner_(std::move(inner)),
      plan_(std::move(plan)),
      clock_(clock ? std::move(clock) : std::make_shared<SteadyFaultClock>()) {
  if (!inner_) throw EngineError("fault engine: no engine to wrap", EINVAL);
  name_ = "fault(" + std::string(inner_->name()) + ")";
}

EngineCaps FaultEngine::caps() const noexcept {
  EngineCaps c = inner_->caps();
  c.async = true;  // completions may be held back
  c.needs_commit = true;
  return c;
}

std::uint64_t FaultEngine::target_size() const noexcept {
  if (plan_.fake_capacity && plan_.fake_capacity->claimed_size > 0)
    return plan_.fake_capacity->claimed_size;
  return inner_->target_size();
}

void FaultEngine::open(const EngineConfig& config) {
  close();
  inner_->open(config);
  depth_ = std::max(1u, config.iodepth);
  slots_.assign(depth_, Slot{});
  free_.clear();
  free_.reserve(depth_);
  for (auto it = slots_.rbegin(); it != slots_.rend(); ++it) free_.push_back(&*it);
  staged_.clear();
  staged_.reserve(depth_);
  held_.clear();
  held_.reserve(depth_);
  inner_out_.assign(depth_, nullptr);
  rng_.seed(plan_.seed);
  counts_ = {};
  fail_state_ = eagain_state_ = stuck_state_ = drop_state_ = short_state_ = misdirect_state_ =
      flip_state_ = {};
  in_flight_ = inner_committed_ = inner_staged_ = 0;
  if (plan_.throughput_cliff)
    cliff_ = plan_.throughput_cliff->state
                 ? plan_.throughput_cliff->state
                 : std::make_shared<CliffState>(plan_.throughput_cliff->after_bytes,
                                                plan_.throughput_cliff->recover_bytes_per_s);
}

bool FaultEngine::hits(const FaultTrigger& t, TriggerState& s, Direction dir) noexcept {
  if (dir == Direction::Read ? !t.reads : !t.writes) return false;
  ++s.seen;
  if (s.seen <= t.after || s.hits >= t.count) return false;
  if (t.probability < 1.0) {
    double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    if (u >= t.probability) return false;
  }
  ++s.hits;
  return true;
}

bool FaultEngine::hits(const std::optional<FaultTrigger>& t, TriggerState& s,
                       Direction dir) noexcept {
  return t && hits(*t, s, dir);
}

void FaultEngine::restore(Slot& slot) noexcept {
  if (slot.flipped) {
    static_cast<std::uint8_t*>(slot.inner.buf)[slot.flip_byte] ^= slot.flip_mask;
    slot.flipped = false;
  }
}

void FaultEngine::release(Slot& slot) noexcept {
  if (slot.cliff_counted) {
    cliff_->on_write_done(clock_->now());
    slot.cliff_counted = false;
  }
  slot.state = SlotState::Free;
  slot.outer = nullptr;
  free_.push_back(&slot);
}

void FaultEngine::hold(Slot& slot, std::chrono::nanoseconds done_at) noexcept {
  auto due = std::max(done_at, slot.earliest);
  if (slot.slowed) {
    auto took = due - slot.committed;
    due =
        slot.committed + std::chrono::nanoseconds(static_cast<std::int64_t>(
                             static_cast<double>(took.count()) * plan_.throughput_cliff->slowdown));
  }
  slot.due = due;
  slot.state = SlotState::Held;
  held_.push_back(&slot);
}

QueueStatus FaultEngine::queue(IoRequest& req) noexcept {
  if (in_flight_ >= depth_ || free_.empty()) return QueueStatus::Busy;
  const Direction dir = req.dir;
  const bool is_write = dir == Direction::Write;

  if (plan_.eagain && plan_.eagain->at_queue && hits(plan_.eagain->when, eagain_state_, dir)) {
    ++counts_.eagain;
    req.res = -EAGAIN;
    return QueueStatus::Completed;
  }
  // Every trigger sees every I/O it matches, so each fault's counting does not depend on the
  // others.
  const bool eagain =
      plan_.eagain && !plan_.eagain->at_queue && hits(plan_.eagain->when, eagain_state_, dir);
  const bool stuck = hits(plan_.stuck, stuck_state_, dir);
  const bool fail = plan_.fail && hits(plan_.fail->when, fail_state_, dir);
  const bool drop = is_write && hits(plan_.drop_write, drop_state_, dir);
  const bool shorten = plan_.short_transfer && hits(plan_.short_transfer->when, short_state_, dir);
  const bool misdirect =
      is_write && plan_.misdirect && hits(plan_.misdirect->when, misdirect_state_, dir);
  const bool flip = is_write && hits(plan_.bit_flip, flip_state_, dir);

  Slot& slot = *free_.back();
  free_.pop_back();
  slot.outer = &req;
  slot.inner = req;
  slot.inner.cookie = &slot;
  slot.synthetic = slot.stuck = slot.slowed = slot.flipped = slot.cliff_counted = false;
  slot.synthetic_res = 0;

  if (is_write) {
    slot.cliff_counted = cliff_ != nullptr;
    if (cliff_ && cliff_->on_write_queued(req.length, clock_->now())) {
      slot.slowed = true;
      ++counts_.slowed;
    }
  }

  if (eagain) {
    slot.synthetic = true;
    slot.synthetic_res = -EAGAIN;
    ++counts_.eagain;
  } else if (stuck) {
    slot.synthetic = slot.stuck = true;
    ++counts_.stuck;
  } else if (fail) {
    slot.synthetic = true;
    slot.synthetic_res = -plan_.fail->error;
    ++counts_.failed;
  } else if (drop) {
    slot.synthetic = true;
    slot.synthetic_res = req.length;
    ++counts_.dropped_writes;
  }

  if (!slot.synthetic) {
    IoRequest& in = slot.inner;
    if (plan_.fake_capacity && plan_.fake_capacity->wrap_at > 0) {
      std::uint64_t wrapped = in.offset % plan_.fake_capacity->wrap_at;
      if (wrapped != in.offset) ++counts_.wrapped;
      in.offset = wrapped;
    }
    if (misdirect) {
      auto moved = static_cast<std::int64_t>(in.offset) + plan_.misdirect->shift;
      in.offset = static_cast<std::uint64_t>(std::max<std::int64_t>(0, moved));
      ++counts_.misdirected_writes;
    }
    if (shorten && in.length > plan_.short_transfer->bytes) {
      in.length = plan_.short_transfer->bytes;
      ++counts_.short_transfers;
    }
    if (flip && in.length > 0 && in.buf != nullptr) {
      slot.flip_byte = static_cast<std::uint32_t>(rng_() % in.length);
      slot.flip_mask = static_cast<std::uint8_t>(1u << (rng_() % 8));
      static_cast<std::uint8_t*>(in.buf)[slot.flip_byte] ^= slot.flip_mask;
      slot.flipped = true;
      ++counts_.bit_flips;
    }
    switch (inner_->queue(in)) {
      case QueueStatus::Busy:
        restore(slot);
        release(slot);
        return QueueStatus::Busy;
      case QueueStatus::Completed:
        restore(slot);
        if (!plan_.latency && !slot.slowed) {
          req.res = in.res;
          release(slot);
          return QueueStatus::Completed;
        }
        // Done already, but its completion must wait for the latency or cliff law.
        slot.synthetic = true;
        slot.synthetic_res = in.res;
        break;
      case QueueStatus::Queued:
        ++inner_staged_;
        break;
    }
  }
  slot.state = SlotState::Staged;
  staged_.push_back(&slot);
  ++in_flight_;
  return QueueStatus::Queued;
}

int FaultEngine::commit() noexcept {
  if (staged_.empty()) return 0;
  if (inner_staged_ > 0) {
    int r = inner_->commit();
    if (r < 0) return r;
    inner_committed_ += inner_staged_;  // what the inner engine pushed back it retries itself
    inner_staged_ = 0;
  }
  const auto now = clock_->now();
  std::chrono::nanoseconds extra{0};
  if (plan_.latency) {
    const auto& law = *plan_.latency;
    extra = law.base + law.per_in_flight * static_cast<std::int64_t>(in_flight_);
    if (in_flight_ >= law.bump_from && in_flight_ <= law.bump_to) extra += law.bump;
  }
  for (Slot* slot : staged_) {
    slot->committed = now;
    slot->earliest = now + extra;
    if (slot->stuck)
      slot->state = SlotState::Stuck;
    else if (slot->synthetic)
      hold(*slot, now);
    else
      slot->state = SlotState::InInner;
  }
  int n = static_cast<int>(staged_.size());
  staged_.clear();
  return n;
}

void FaultEngine::collect_inner(unsigned min, std::chrono::nanoseconds timeout) noexcept {
  int n = inner_->reap(min, depth_, inner_out_.data(), timeout);
  if (n <= 0) return;
  const auto now = clock_->now();
  for (int i = 0; i < n; ++i) {
    auto* slot = static_cast<Slot*>(inner_out_[i]->cookie);
    restore(*slot);
    --inner_committed_;
    hold(*slot, now);
  }
}

unsigned FaultEngine::take_due(IoRequest** out, unsigned room,
                               std::chrono::nanoseconds now) noexcept {
  unsigned got = 0;
  auto keep = held_.begin();
  for (auto it = held_.begin(); it != held_.end(); ++it) {
    Slot* slot = *it;
    if (got < room && slot->due <= now) {
      slot->outer->res = slot->synthetic ? slot->synthetic_res : slot->inner.res;
      out[got++] = slot->outer;
      --in_flight_;
      release(*slot);
    } else {
      *keep++ = slot;
    }
  }
  held_.erase(keep, held_.end());
  return got;
}

int FaultEngine::reap(unsigned min, unsigned max, IoRequest** out,
                      std::chrono::nanoseconds timeout) noexcept {
  if (max == 0) return 0;
  const auto deadline = clock_->now() + std::max(timeout, std::chrono::nanoseconds{0});
  unsigned got = 0;
  for (;;) {
    if (inner_committed_ > 0) collect_inner(0, std::chrono::nanoseconds{0});
    const auto now = clock_->now();
    got += take_due(out + got, max - got, now);
    if (got >= max || got >= min || now >= deadline) return static_cast<int>(got);
    auto next = deadline;
    for (const Slot* slot : held_) next = std::min(next, slot->due);
    if (inner_committed_ > 0)
      collect_inner(1, next - now);  // a real wait inside the wrapped engine
    else
      clock_->sleep_until(next);
  }
}

void FaultEngine::close() noexcept {
  if (inner_) inner_->close();  // drains or cancels what the wrapped engine has in flight
  for (Slot& slot : slots_) {
    restore(slot);
    if (slot.cliff_counted && cliff_) cliff_->on_write_done(clock_->now());
  }
  slots_.clear();
  free_.clear();
  staged_.clear();
  held_.clear();
  inner_out_.clear();
  in_flight_ = inner_committed_ = inner_staged_ = 0;
}

}  // namespace storqual::engines
