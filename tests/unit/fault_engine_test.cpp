// SPDX-License-Identifier: Apache-2.0
// The fault-injecting engine does what each fault says, deterministically, over the null engine
// (time on a manual clock) and over a real file (psync).
#include "engines/fault_engine.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "engines/null_engine.hpp"
#include "engines/psync_engine.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::engines {
namespace {

using namespace std::chrono_literals;
using storqual::testing::ScratchDir;

constexpr std::uint64_t kFileSize = 1 << 20;

IoRequest request(Direction dir, std::uint64_t offset, std::uint32_t length, void* buf) {
  IoRequest r;
  r.dir = dir;
  r.offset = offset;
  r.length = length;
  r.buf = buf;
  return r;
}

// Queues, commits and reaps every request; returns how many completed.
std::size_t run_all(Engine& engine, std::vector<IoRequest>& reqs) {
  std::vector<IoRequest*> done(reqs.size() + 1);
  std::size_t next = 0, completed = 0, queued = 0;
  for (int rounds = 0; completed < reqs.size() && rounds < 100000; ++rounds) {
    while (next < reqs.size()) {
      auto st = engine.queue(reqs[next]);
      if (st == QueueStatus::Busy) break;
      ++next;
      (st == QueueStatus::Completed ? completed : queued) += 1;
    }
    EXPECT_GE(engine.commit(), 0);
    if (queued == 0) continue;
    int n = engine.reap(1, static_cast<unsigned>(done.size()), done.data(), 1s);
    EXPECT_GE(n, 0);
    completed += static_cast<std::size_t>(n);
    queued -= static_cast<std::size_t>(n);
  }
  return completed;
}

class FaultOnFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (scratch_ / "target").string();
    storqual::testing::write_random_file(path_, kFileSize, 9);
    original_ = read_file();
  }
  std::vector<std::uint8_t> read_file() const {
    std::vector<std::uint8_t> v(kFileSize);
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::pread(fd, v.data(), v.size(), 0), static_cast<ssize_t>(v.size()));
    ::close(fd);
    return v;
  }
  std::unique_ptr<FaultEngine> make(FaultPlan plan, unsigned iodepth = 1) {
    auto e = std::make_unique<FaultEngine>(std::make_unique<PsyncEngine>(), std::move(plan));
    EngineConfig c;
    c.path = path_;
    c.write = true;
    c.direct = false;
    c.iodepth = iodepth;
    e->open(c);
    return e;
  }
  static std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
    std::vector<std::uint8_t> v(n);
    std::mt19937_64 rng(seed);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    return v;
  }

  ScratchDir scratch_{"storqual-fault"};
  std::string path_;
  std::vector<std::uint8_t> original_;
};

TEST_F(FaultOnFile, AnEmptyPlanChangesNothing) {
  auto e = make({});
  EXPECT_EQ(e->name(), "fault(psync)");
  EXPECT_EQ(e->target_size(), kFileSize);
  auto data = random_bytes(8192, 1);
  std::vector<std::uint8_t> back(8192);
  std::vector<IoRequest> w = {request(Direction::Write, 4096, 8192, data.data())};
  std::vector<IoRequest> r = {request(Direction::Read, 4096, 8192, back.data())};
  ASSERT_EQ(run_all(*e, w), 1u);
  ASSERT_EQ(run_all(*e, r), 1u);
  EXPECT_EQ(w[0].res, 8192);
  EXPECT_EQ(r[0].res, 8192);
  EXPECT_EQ(back, data);
}

TEST_F(FaultOnFile, WritesFailWithTheGivenErrnoAfterN) {
  FaultPlan plan;
  plan.fail = FaultPlan::Fail{.when = {.reads = false, .after = 3}, .error = ENOSPC};
  auto e = make(plan);
  auto data = random_bytes(4096, 2);
  std::vector<IoRequest> w, r;
  std::vector<std::uint8_t> back(10 * 4096);
  for (int i = 0; i < 10; ++i) {
    w.push_back(request(Direction::Write, i * 4096u, 4096, data.data()));
    r.push_back(request(Direction::Read, i * 4096u, 4096, back.data() + i * 4096));
  }
  ASSERT_EQ(run_all(*e, w), 10u);
  ASSERT_EQ(run_all(*e, r), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(w[i].res, i < 3 ? 4096 : -ENOSPC) << "write " << i;
    EXPECT_EQ(r[i].res, 4096) << "reads are not hit";
  }
  EXPECT_EQ(e->counts().failed, 7u);
  auto now = read_file();
  EXPECT_EQ(0, std::memcmp(now.data() + 3 * 4096, original_.data() + 3 * 4096, 7 * 4096))
      << "a failed write does not reach the target";
  EXPECT_EQ(0, std::memcmp(now.data(), data.data(), 4096));
}

TEST_F(FaultOnFile, ShortTransfersReportWhatWasTransferred) {
  FaultPlan plan;
  plan.short_transfer = FaultPlan::ShortTransfer{.when = {.writes = false}, .bytes = 512};
  auto e = make(plan);
  std::vector<std::uint8_t> back(8192, 0);
  std::vector<IoRequest> r = {request(Direction::Read, 8192, 8192, back.data())};
  ASSERT_EQ(run_all(*e, r), 1u);
  EXPECT_EQ(r[0].res, 512);
  EXPECT_EQ(0, std::memcmp(back.data(), original_.data() + 8192, 512));
  EXPECT_EQ(back[512], 0) << "nothing past the short transfer";
  EXPECT_EQ(e->counts().short_transfers, 1u);
}

TEST_F(FaultOnFile, DroppedWritesReportSuccessButLeaveTheTargetAlone) {
  FaultPlan plan;
  plan.drop_write = FaultTrigger{.after = 1, .count = 1};
  auto e = make(plan);
  auto data = random_bytes(4096, 3);
  std::vector<IoRequest> w = {request(Direction::Write, 0, 4096, data.data()),
                              request(Direction::Write, 4096, 4096, data.data()),
                              request(Direction::Write, 8192, 4096, data.data())};
  ASSERT_EQ(run_all(*e, w), 3u);
  for (auto& x : w) EXPECT_EQ(x.res, 4096);
  auto now = read_file();
  EXPECT_EQ(0, std::memcmp(now.data(), data.data(), 4096));
  EXPECT_EQ(0, std::memcmp(now.data() + 4096, original_.data() + 4096, 4096)) << "dropped";
  EXPECT_EQ(0, std::memcmp(now.data() + 8192, data.data(), 4096));
  EXPECT_EQ(e->counts().dropped_writes, 1u);
}

TEST_F(FaultOnFile, MisdirectedWritesLandAtTheWrongOffset) {
  FaultPlan plan;
  plan.misdirect = FaultPlan::Misdirect{.when = {}, .shift = 16384};
  auto e = make(plan);
  auto data = random_bytes(4096, 4);
  std::vector<IoRequest> w = {request(Direction::Write, 4096, 4096, data.data())};
  ASSERT_EQ(run_all(*e, w), 1u);
  EXPECT_EQ(w[0].res, 4096);
  auto now = read_file();
  EXPECT_EQ(0, std::memcmp(now.data() + 4096, original_.data() + 4096, 4096));
  EXPECT_EQ(0, std::memcmp(now.data() + 4096 + 16384, data.data(), 4096));
}

TEST_F(FaultOnFile, BitFlipCorruptsExactlyOneBitOnTheTargetNotInTheCallersBuffer) {
  FaultPlan plan;
  plan.bit_flip = FaultTrigger{};
  auto e = make(plan);
  auto data = random_bytes(4096, 5);
  const auto copy = data;
  std::vector<IoRequest> w = {request(Direction::Write, 0, 4096, data.data())};
  ASSERT_EQ(run_all(*e, w), 1u);
  EXPECT_EQ(data, copy) << "the caller's buffer is restored";
  auto now = read_file();
  int bits = 0;
  for (std::size_t i = 0; i < 4096; ++i) bits += __builtin_popcount(now[i] ^ data[i]);
  EXPECT_EQ(bits, 1);
  EXPECT_EQ(e->counts().bit_flips, 1u);
}

TEST_F(FaultOnFile, FakeCapacityClaimsMoreAndWrapsAround) {
  FaultPlan plan;
  plan.fake_capacity =
      FaultPlan::FakeCapacity{.wrap_at = kFileSize, .claimed_size = 16 * kFileSize};
  auto e = make(plan);
  EXPECT_EQ(e->target_size(), 16 * kFileSize);
  auto data = random_bytes(4096, 6);
  std::vector<IoRequest> w = {request(Direction::Write, 5 * kFileSize + 8192, 4096, data.data())};
  ASSERT_EQ(run_all(*e, w), 1u);
  EXPECT_EQ(w[0].res, 4096);
  auto now = read_file();
  EXPECT_EQ(0, std::memcmp(now.data() + 8192, data.data(), 4096)) << "wrapped to 8192";
  EXPECT_EQ(e->counts().wrapped, 1u);
}

TEST_F(FaultOnFile, LatencyHoldsRealCompletionsOnTheRealClock) {
  FaultPlan plan;
  plan.latency = FaultPlan::Latency{.base = 3ms, .per_in_flight = 0ns};
  auto e = make(plan);
  std::vector<std::uint8_t> back(4096);
  IoRequest r = request(Direction::Read, 0, 4096, back.data());
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(e->queue(r), QueueStatus::Queued) << "held back, so not Completed";
  ASSERT_EQ(e->commit(), 1);
  IoRequest* out[1];
  ASSERT_EQ(e->reap(1, 1, out, 1s), 1);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 3ms);
  EXPECT_EQ(out[0], &r);
  EXPECT_EQ(r.res, 4096);
  EXPECT_EQ(0, std::memcmp(back.data(), original_.data(), 4096));
}

// Over the null engine with a manual clock: time-shaped faults exactly.
class FaultOnNull : public ::testing::Test {
 protected:
  std::unique_ptr<FaultEngine> make(FaultPlan plan, unsigned iodepth) {
    auto e = std::make_unique<FaultEngine>(std::make_unique<NullEngine>(), std::move(plan), clock_);
    EngineConfig c;
    c.path = "nothing";
    c.iodepth = iodepth;
    e->open(c);
    return e;
  }
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::vector<std::uint8_t> buf_ = std::vector<std::uint8_t>(4096);
};

TEST_F(FaultOnNull, ProbabilisticFailuresAreSeededAndDeterministic) {
  auto failing = [&](std::uint64_t seed) {
    FaultPlan plan;
    plan.seed = seed;
    plan.fail = FaultPlan::Fail{.when = {.probability = 0.3}, .error = EIO};
    auto e = make(plan, 16);
    std::vector<IoRequest> reqs(1000, request(Direction::Read, 0, 4096, buf_.data()));
    EXPECT_EQ(run_all(*e, reqs), reqs.size());
    std::vector<int> which;
    for (std::size_t i = 0; i < reqs.size(); ++i)
      if (reqs[i].res == -EIO)
        which.push_back(static_cast<int>(i));
      else
        EXPECT_EQ(reqs[i].res, 4096);
    EXPECT_EQ(e->counts().failed, which.size());
    return which;
  };
  auto a = failing(42), b = failing(42), c = failing(43);
  EXPECT_EQ(a, b) << "same seed, same faults";
  EXPECT_NE(a, c);
  // Binomial(1000, 0.3): mean 300, sd 14.5; 6 sd either side.
  EXPECT_GT(a.size(), 213u);
  EXPECT_LT(a.size(), 387u);
}

TEST_F(FaultOnNull, EagainStormAtQueueThenCalm) {
  FaultPlan plan;
  plan.eagain = FaultPlan::Eagain{.when = {.after = 2, .count = 3}, .at_queue = true};
  auto e = make(plan, 1);
  std::vector<QueueStatus> st;
  std::vector<std::int64_t> res;
  IoRequest* out[1];
  for (int i = 0; i < 8; ++i) {
    IoRequest r = request(Direction::Write, 0, 4096, buf_.data());
    st.push_back(e->queue(r));
    if (st.back() == QueueStatus::Queued) {
      EXPECT_EQ(e->commit(), 1);
      EXPECT_EQ(e->reap(1, 1, out, 1s), 1);
    }
    res.push_back(r.res);
  }
  for (int i = 0; i < 8; ++i) {
    bool storm = i >= 2 && i < 5;
    EXPECT_EQ(st[i], storm ? QueueStatus::Completed : QueueStatus::Queued) << i;
    EXPECT_EQ(res[i], storm ? -EAGAIN : 4096) << i;
  }
  EXPECT_EQ(e->counts().eagain, 3u);
}

TEST_F(FaultOnNull, EagainStormAtCompletion) {
  FaultPlan plan;
  plan.eagain = FaultPlan::Eagain{.when = {.count = 2}, .at_queue = false};
  auto e = make(plan, 4);
  std::vector<IoRequest> reqs(4, request(Direction::Read, 0, 4096, buf_.data()));
  for (auto& r : reqs) ASSERT_EQ(e->queue(r), QueueStatus::Queued);
  ASSERT_EQ(e->commit(), 4);
  IoRequest* out[4];
  ASSERT_EQ(e->reap(4, 4, out, 1s), 4);
  EXPECT_EQ(reqs[0].res, -EAGAIN);
  EXPECT_EQ(reqs[1].res, -EAGAIN);
  EXPECT_EQ(reqs[2].res, 4096);
  EXPECT_EQ(reqs[3].res, 4096);
}

TEST_F(FaultOnNull, AStuckIoNeverCompletesAndHoldsItsSlotUntilClose) {
  FaultPlan plan;
  plan.stuck = FaultTrigger{.after = 1, .count = 1};
  auto e = make(plan, 2);
  std::vector<IoRequest> reqs(3, request(Direction::Read, 0, 4096, buf_.data()));
  ASSERT_EQ(e->queue(reqs[0]), QueueStatus::Queued);
  ASSERT_EQ(e->queue(reqs[1]), QueueStatus::Queued);  // the stuck one
  ASSERT_EQ(e->commit(), 2);
  IoRequest* out[2];
  const auto t0 = clock_->now();
  ASSERT_EQ(e->reap(2, 2, out, 5s), 1) << "only the healthy one completes";
  EXPECT_EQ(out[0], &reqs[0]);
  EXPECT_EQ(clock_->now() - t0, 5s) << "reap waited out its timeout (on the manual clock)";
  ASSERT_EQ(e->queue(reqs[2]), QueueStatus::Queued);
  ASSERT_EQ(e->commit(), 1);
  EXPECT_EQ(e->queue(reqs[0]), QueueStatus::Busy) << "the stuck I/O still takes a slot";
  ASSERT_EQ(e->reap(1, 2, out, 1s), 1);
  EXPECT_EQ(out[0], &reqs[2]);
  EXPECT_EQ(e->reap(1, 2, out, 1s), 0);
  EXPECT_EQ(e->counts().stuck, 1u);
  e->close();  // releases it
}

TEST_F(FaultOnNull, LatencyGrowsWithTheNumberInFlightByTheStatedLaw) {
  FaultPlan plan;
  plan.latency = FaultPlan::Latency{.base = 100us, .per_in_flight = 10us};
  auto e = make(plan, 8);
  IoRequest* out[8];
  for (unsigned depth : {1u, 4u, 8u}) {
    std::vector<IoRequest> reqs(depth, request(Direction::Read, 0, 4096, buf_.data()));
    for (auto& r : reqs) ASSERT_EQ(e->queue(r), QueueStatus::Queued);
    const auto t0 = clock_->now();
    ASSERT_EQ(e->commit(), static_cast<int>(depth));
    EXPECT_EQ(e->reap(1, 8, out, 50us), 0) << "not due yet: reap times out";
    ASSERT_EQ(e->reap(depth, 8, out, 1s), static_cast<int>(depth));
    EXPECT_EQ(clock_->now() - t0, 100us + 10us * depth) << "at depth " << depth;
  }
}

TEST_F(FaultOnNull, ThroughputDropsByTheCliffFactorAfterNBytesWritten) {
  FaultPlan plan;
  plan.latency = FaultPlan::Latency{.base = 100us, .per_in_flight = 0ns};
  plan.throughput_cliff = FaultPlan::ThroughputCliff{.after_bytes = 64 * 1024, .slowdown = 4.0};
  auto e = make(plan, 4);
  auto elapsed_for = [&](Direction dir, int n) {
    std::vector<IoRequest> reqs(static_cast<std::size_t>(n), request(dir, 0, 4096, buf_.data()));
    const auto t0 = clock_->now();
    EXPECT_EQ(run_all(*e, reqs), reqs.size());
    return clock_->now() - t0;
  };
  auto before = elapsed_for(Direction::Write, 16);  // exactly the 64 KiB before the cliff
  auto after = elapsed_for(Direction::Write, 16);
  auto reads = elapsed_for(Direction::Read, 16);
  EXPECT_EQ(before, 16 / 4 * 100us);
  EXPECT_EQ(after, 4 * before) << "a quarter of the throughput";
  EXPECT_EQ(reads, before) << "reads are not slowed";
  EXPECT_EQ(e->counts().slowed, 16u);
}

TEST(FaultEngine, NeedsAnEngineToWrap) {
  EXPECT_THROW(FaultEngine(nullptr, FaultPlan{}), EngineError);
}

}  // namespace
}  // namespace storqual::engines
