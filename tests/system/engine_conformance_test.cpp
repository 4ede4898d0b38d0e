// SPDX-License-Identifier: Apache-2.0
// One conformance suite for every I/O engine on real targets: files with and without O_DIRECT,
// and, as root, a loop device and a zram device that the test creates and removes.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engines/engine.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::engines {
namespace {

using namespace std::chrono_literals;
using storqual::testing::LoopDevice;
using storqual::testing::LoopOptions;
using storqual::testing::ScratchDir;
using storqual::testing::ZramDevice;

constexpr std::uint64_t kTargetSize = 8ull << 20;

// A buffer aligned for O_DIRECT on any device (4096).
struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t size)
      : bytes(static_cast<std::uint8_t*>(std::aligned_alloc(4096, size))), length(size) {
    std::memset(bytes, 0, size);
  }
  ~AlignedBuffer() { std::free(bytes); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::uint8_t* bytes;
  std::size_t length;
};

void fill_random(AlignedBuffer& b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < b.length; i += 8) {
    std::uint64_t v = rng();
    std::memcpy(b.bytes + i, &v, std::min<std::size_t>(8, b.length - i));
  }
}

// Runs every request to completion through queue/commit/reap, as the runner would; fails the test
// (instead of hanging) when completions do not come within `limit`.
void run_all(Engine& engine, std::vector<IoRequest>& reqs,
             std::chrono::seconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<IoRequest*> done(reqs.size() + 1);
  std::size_t next = 0, completed = 0, queued = 0;
  while (completed < reqs.size()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "I/O did not complete in time";
    while (next < reqs.size()) {
      auto st = engine.queue(reqs[next]);
      if (st == QueueStatus::Busy) break;
      ++next;
      if (st == QueueStatus::Completed) ++completed;
      if (st == QueueStatus::Queued) ++queued;
    }
    ASSERT_GE(engine.commit(), 0);
    if (queued == 0) continue;
    int n = engine.reap(1, static_cast<unsigned>(done.size()), done.data(), 1s);
    ASSERT_GE(n, 0) << std::strerror(-n);
    completed += static_cast<std::size_t>(n);
    queued -= static_cast<std::size_t>(n);
  }
}

enum class TargetKind { FileDirect, FileBuffered, Loop, Zram };

struct EngineTarget {
  std::string engine;
  TargetKind target;
};

std::string target_label(TargetKind t) {
  switch (t) {
    case TargetKind::FileDirect:
      return "file_direct";
    case TargetKind::FileBuffered:
      return "file_buffered";
    case TargetKind::Loop:
      return "loop";
    case TargetKind::Zram:
      return "zram";
  }
  return "?";
}

class EngineConformance : public ::testing::TestWithParam<EngineTarget> {
 protected:
  void SetUp() override {
    const auto& p = GetParam();
    auto a = available(p.engine);
    if (!a.ok) GTEST_FAIL() << "cannot run: " << p.engine << " is not available: " << a.reason;
    config_.write = true;
    config_.direct = p.target != TargetKind::FileBuffered;
    config_.iodepth = 8;
    switch (p.target) {
      case TargetKind::FileDirect:
      case TargetKind::FileBuffered:
        config_.path = (scratch_ / "target").string();
        storqual::testing::write_random_file(config_.path, kTargetSize, 7);
        break;
      case TargetKind::Loop:
        STORQUAL_REQUIRE_ROOT();
        storqual::testing::write_random_file(scratch_ / "backing", kTargetSize, 7);
        loop_ = std::make_unique<LoopDevice>(scratch_ / "backing");
        config_.path = loop_->path();
        break;
      case TargetKind::Zram:
        STORQUAL_REQUIRE_ROOT();
        try {
          zram_ = std::make_unique<ZramDevice>(kTargetSize);
        } catch (const std::exception& e) {
          GTEST_FAIL() << "cannot run: " << e.what();
        }
        config_.path = zram_->path();
        break;
    }
  }

  ScratchDir scratch_{"storqual-engine"};
  std::unique_ptr<LoopDevice> loop_;
  std::unique_ptr<ZramDevice> zram_;
  EngineConfig config_;
};

// The cases that apply to a subset of the engines have a fixture each, instantiated with that
// subset only (below): a combination that does not apply is not a test, so it is not a skip.
class StoringEngineConformance : public EngineConformance {};  // not null: it stores nothing
class AsyncEngineConformance : public EngineConformance {};    // io_uring, libaio, null
class SyncEngineConformance : public EngineConformance {};     // psync
class IoUringConformance : public EngineConformance {};        // sqpoll and iopoll

TEST_P(StoringEngineConformance, WrittenDataReadsBackIntact) {
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> spots = {
      {0, 4096}, {4096, 16384}, {(1u << 20) + 8192, 65536}, {kTargetSize - 65536, 65536}};
  std::vector<std::unique_ptr<AlignedBuffer>> wbufs, rbufs;
  for (std::size_t i = 0; i < spots.size(); ++i) {
    wbufs.push_back(std::make_unique<AlignedBuffer>(spots[i].second));
    fill_random(*wbufs.back(), 100 + i);
    rbufs.push_back(std::make_unique<AlignedBuffer>(spots[i].second));
  }
  for (auto& b : wbufs) config_.buffers.push_back({b->bytes, b->length});
  for (auto& b : rbufs) config_.buffers.push_back({b->bytes, b->length});

  auto engine = make_engine(GetParam().engine);
  engine->open(config_);
  EXPECT_EQ(engine->target_size(), kTargetSize);
  if (GetParam().engine == "io_uring") {
    EXPECT_TRUE(engine->caps().fixed_buffers) << "fixed buffers are the default";
    EXPECT_TRUE(engine->caps().registered_file) << "the registered file is the default";
  }

  std::vector<IoRequest> writes(spots.size()), reads(spots.size());
  for (std::size_t i = 0; i < spots.size(); ++i) {
    writes[i] = {.dir = Direction::Write,
                 .offset = spots[i].first,
                 .length = spots[i].second,
                 .buf = wbufs[i]->bytes,
                 .buf_index = static_cast<int>(i)};
    reads[i] = {.dir = Direction::Read,
                .offset = spots[i].first,
                .length = spots[i].second,
                .buf = rbufs[i]->bytes,
                .buf_index = static_cast<int>(spots.size() + i)};
  }
  run_all(*engine, writes);
  for (auto& w : writes) ASSERT_EQ(w.res, w.length) << "write at " << w.offset;
  run_all(*engine, reads);
  for (std::size_t i = 0; i < spots.size(); ++i) {
    ASSERT_EQ(reads[i].res, reads[i].length) << "read at " << reads[i].offset;
    EXPECT_EQ(0, std::memcmp(rbufs[i]->bytes, wbufs[i]->bytes, spots[i].second))
        << "data read back differs at offset " << spots[i].first;
  }
  engine->close();

  // And through another path than the engine: the bytes are on the target.
  int fd = ::open(config_.path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (std::size_t i = 0; i < spots.size(); ++i) {
    std::vector<std::uint8_t> check(spots[i].second);
    ASSERT_EQ(::pread(fd, check.data(), check.size(), static_cast<off_t>(spots[i].first)),
              static_cast<ssize_t>(check.size()));
    EXPECT_EQ(0, std::memcmp(check.data(), wbufs[i]->bytes, check.size()));
  }
  ::close(fd);
}

TEST_P(StoringEngineConformance, ReadAtAndPastTheEndIsShortNotAnError) {
  auto engine = make_engine(GetParam().engine);
  config_.write = false;
  engine->open(config_);
  ASSERT_EQ(engine->target_size(), kTargetSize);
  AlignedBuffer a(16384), b(4096);
  std::vector<IoRequest> reqs = {
      {.dir = Direction::Read, .offset = kTargetSize - 4096, .length = 16384, .buf = a.bytes},
      {.dir = Direction::Read, .offset = kTargetSize, .length = 4096, .buf = b.bytes}};
  run_all(*engine, reqs);
  EXPECT_EQ(reqs[0].res, 4096) << "a read across the end transfers what is there";
  EXPECT_EQ(reqs[1].res, 0) << "a read at the end transfers nothing, without an error";
}

TEST_P(SyncEngineConformance, QueueCompletesAtOnce) {
  auto engine = make_engine(GetParam().engine);
  config_.iodepth = 4;
  engine->open(config_);
  ASSERT_FALSE(engine->caps().async);
  AlignedBuffer buf(4096);
  IoRequest req = {.dir = Direction::Read, .offset = 0, .length = 4096, .buf = buf.bytes};
  EXPECT_EQ(engine->queue(req), QueueStatus::Completed) << "a sync engine completes at once";
  EXPECT_EQ(req.res, 4096);
}

TEST_P(AsyncEngineConformance, QueueIsBusyAtFullDepth) {
  auto engine = make_engine(GetParam().engine);
  config_.iodepth = 4;
  engine->open(config_);
  ASSERT_TRUE(engine->caps().async);
  AlignedBuffer buf(5 * 4096);
  std::vector<IoRequest> reqs(5);
  for (std::size_t i = 0; i < reqs.size(); ++i)
    reqs[i] = {
        .dir = Direction::Read, .offset = i * 4096, .length = 4096, .buf = buf.bytes + i * 4096};
  for (int i = 0; i < 4; ++i) ASSERT_EQ(engine->queue(reqs[i]), QueueStatus::Queued) << i;
  EXPECT_EQ(engine->queue(reqs[4]), QueueStatus::Busy) << "4 staged at iodepth 4";
  EXPECT_EQ(engine->commit(), 4);
  EXPECT_EQ(engine->queue(reqs[4]), QueueStatus::Busy) << "4 in flight at iodepth 4";
  IoRequest* done[8];
  int n = engine->reap(1, 8, done, 5s);
  ASSERT_GE(n, 1);
  EXPECT_EQ(engine->queue(reqs[4]), QueueStatus::Queued) << "a slot is free after a reap";
  EXPECT_EQ(engine->commit(), 1);
  int total = n;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (total < 5 && std::chrono::steady_clock::now() < deadline) {
    int m = engine->reap(1, 8, done, 1s);
    ASSERT_GE(m, 0);
    total += m;
  }
  EXPECT_EQ(total, 5);
  for (auto& r : reqs) EXPECT_EQ(r.res, 4096);
}

TEST_P(EngineConformance, TeardownWithIoInFlightNeitherCrashesNorHangs) {
  config_.iodepth = 32;
  AlignedBuffer buf(32 * 16384);
  fill_random(buf, 3);
  std::vector<IoRequest> reqs(32);
  for (std::size_t i = 0; i < reqs.size(); ++i)
    reqs[i] = {.dir = i % 2 ? Direction::Write : Direction::Read,
               .offset = i * 65536,
               .length = 16384,
               .buf = buf.bytes + i * 16384};
  for (bool explicit_close : {true, false}) {
    auto engine = make_engine(GetParam().engine);
    engine->open(config_);
    const auto start = std::chrono::steady_clock::now();
    for (auto& r : reqs) ASSERT_NE(engine->queue(r), QueueStatus::Busy);
    ASSERT_GE(engine->commit(), 0);
    if (explicit_close) engine->close();
    engine.reset();  // the destructor closes (again)
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "teardown took too long";
  }
}

TEST_P(StoringEngineConformance, OpenedOnOneThreadDrivenOnAnother) {
  AlignedBuffer wbuf(65536), rbuf(65536);
  fill_random(wbuf, 11);
  config_.buffers = {{wbuf.bytes, wbuf.length}, {rbuf.bytes, rbuf.length}};
  auto engine = make_engine(GetParam().engine);
  engine->open(config_);  // the runner opens engines before it starts the job threads
  std::thread job([&] {
    std::vector<IoRequest> w = {{.dir = Direction::Write,
                                 .offset = 65536,
                                 .length = 65536,
                                 .buf = wbuf.bytes,
                                 .buf_index = 0}};
    run_all(*engine, w);
    EXPECT_EQ(w[0].res, 65536);
    std::vector<IoRequest> r = {{.dir = Direction::Read,
                                 .offset = 65536,
                                 .length = 65536,
                                 .buf = rbuf.bytes,
                                 .buf_index = 1}};
    run_all(*engine, r);
    EXPECT_EQ(r[0].res, 65536);
  });
  job.join();
  EXPECT_EQ(0, std::memcmp(wbuf.bytes, rbuf.bytes, 65536));
  engine->close();  // and closed by the first thread again
}

TEST_P(StoringEngineConformance, AWriteToATargetOpenedReadOnlyCompletesWithEbadf) {
  config_.write = false;
  config_.iodepth = 2;
  auto engine = make_engine(GetParam().engine);
  engine->open(config_);
  AlignedBuffer buf(4096);
  std::vector<IoRequest> reqs(3);
  for (std::size_t i = 0; i < reqs.size(); ++i)
    reqs[i] = {.dir = Direction::Write, .offset = i * 4096, .length = 4096, .buf = buf.bytes};
  run_all(*engine, reqs, std::chrono::seconds(5));
  for (auto& r : reqs) EXPECT_EQ(r.res, -EBADF) << "the request reports the error itself";
}

TEST_P(IoUringConformance, IoUringPolledModesMoveDataOrSayWhyNot) {
  for (bool sqpoll : {true, false}) {
    SCOPED_TRACE(sqpoll ? "sqpoll" : "iopoll");
    AlignedBuffer wbuf(16384), rbuf(16384);
    fill_random(wbuf, 21);
    EngineConfig config = config_;
    config.sqpoll = sqpoll;
    config.iopoll = !sqpoll;
    config.buffers = {{wbuf.bytes, wbuf.length}, {rbuf.bytes, rbuf.length}};
    auto engine = make_engine("io_uring");
    engine->open(config);
    EXPECT_TRUE(engine->caps().polled);
    std::vector<IoRequest> w = {{.dir = Direction::Write,
                                 .offset = 8192,
                                 .length = 16384,
                                 .buf = wbuf.bytes,
                                 .buf_index = 0}};
    std::vector<IoRequest> r = {{.dir = Direction::Read,
                                 .offset = 8192,
                                 .length = 16384,
                                 .buf = rbuf.bytes,
                                 .buf_index = 1}};
    run_all(*engine, w, std::chrono::seconds(5));
    run_all(*engine, r, std::chrono::seconds(5));
    if (!sqpoll) {
      // Polled completions need O_DIRECT and a file or device queue that can be polled; where
      // the kernel cannot poll it says so per request (seen: ext4 on virtio polls writes but
      // refuses reads) instead of hanging.
      for (const auto* q : {&w[0], &r[0]})
        if (q->res != 16384) {
          EXPECT_EQ(q->res, -EOPNOTSUPP);
        }
      if (!config.direct) {
        EXPECT_EQ(r[0].res, -EOPNOTSUPP) << "iopoll without O_DIRECT";
      }
      if (w[0].res != 16384 || r[0].res != 16384) continue;
    }
    EXPECT_EQ(w[0].res, 16384);
    EXPECT_EQ(r[0].res, 16384);
    EXPECT_EQ(0, std::memcmp(wbuf.bytes, rbuf.bytes, 16384));
  }
}

// Each engine named on every target; the null engine (which ignores its target) on one.
std::vector<EngineTarget> combinations(std::initializer_list<const char*> engines) {
  std::vector<EngineTarget> v;
  for (const char* e : engines) {
    if (std::string(e) == "null") {
      v.push_back({e, TargetKind::FileDirect});
      continue;
    }
    for (auto t :
         {TargetKind::FileDirect, TargetKind::FileBuffered, TargetKind::Loop, TargetKind::Zram})
      v.push_back({e, t});
  }
  return v;
}

std::string combination_name(const ::testing::TestParamInfo<EngineTarget>& info) {
  return info.param.engine + "_" + target_label(info.param.target);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, EngineConformance,
                         ::testing::ValuesIn(combinations({"io_uring", "libaio", "psync", "null"})),
                         combination_name);
INSTANTIATE_TEST_SUITE_P(StoringEngines, StoringEngineConformance,
                         ::testing::ValuesIn(combinations({"io_uring", "libaio", "psync"})),
                         combination_name);
INSTANTIATE_TEST_SUITE_P(AsyncEngines, AsyncEngineConformance,
                         ::testing::ValuesIn(combinations({"io_uring", "libaio", "null"})),
                         combination_name);
INSTANTIATE_TEST_SUITE_P(SyncEngines, SyncEngineConformance,
                         ::testing::ValuesIn(combinations({"psync"})), combination_name);
INSTANTIATE_TEST_SUITE_P(IoUring, IoUringConformance,
                         ::testing::ValuesIn(combinations({"io_uring"})), combination_name);

// Cases that need a device of their own, per engine.
class EngineDeviceConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto a = available(GetParam());
    if (!a.ok) GTEST_FAIL() << "cannot run: " << GetParam() << " is not available: " << a.reason;
    STORQUAL_REQUIRE_ROOT();
    storqual::testing::write_random_file(scratch_ / "backing", 4ull << 20, 5);
  }
  ScratchDir scratch_{"storqual-engine-dev"};
};

TEST_P(EngineDeviceConformance, SubSectorDirectIoOn4kSectorLoopFailsWithEinval) {
  LoopDevice loop(scratch_ / "backing", LoopOptions{.sector_size = 4096});
  auto engine = make_engine(GetParam());
  EngineConfig config{.path = loop.path(), .write = false, .direct = true, .iodepth = 4};
  engine->open(config);
  EXPECT_EQ(engine->logical_block_size(), 4096u);
  AlignedBuffer buf(4096);
  std::vector<IoRequest> reqs = {
      {.dir = Direction::Read, .offset = 0, .length = 512, .buf = buf.bytes},
      {.dir = Direction::Read, .offset = 512, .length = 4096, .buf = buf.bytes}};
  run_all(*engine, reqs, std::chrono::seconds(5));
  EXPECT_EQ(reqs[0].res, -EINVAL) << "512 bytes on a 4096-byte-sector device";
  EXPECT_EQ(reqs[1].res, -EINVAL) << "an offset not on a 4096-byte sector";
  engine->close();
}

TEST_P(EngineDeviceConformance, OpeningAReadOnlyLoopDeviceForWriteSaysSo) {
  LoopDevice loop(scratch_ / "backing", LoopOptions{.read_only = true});
  auto engine = make_engine(GetParam());
  EngineConfig config{.path = loop.path(), .write = true, .direct = true};
  try {
    engine->open(config);
    FAIL() << "opening a read-only device read-write succeeded";
  } catch (const EngineError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(loop.path()), std::string::npos) << what;
    EXPECT_NE(what.find("read-write"), std::string::npos) << what;
    EXPECT_NE(what.find(std::strerror(EROFS)), std::string::npos) << what;
    EXPECT_EQ(e.error(), EROFS);
  }
  // Read-only is fine.
  config.write = false;
  engine->open(config);
  EXPECT_EQ(engine->target_size(), 4ull << 20);
  engine->close();
}

TEST_P(EngineDeviceConformance, AnExclusiveOpenOfADeviceInUseSaysSo) {
  LoopDevice loop(scratch_ / "backing");
  EngineConfig config;
  config.path = loop.path();
  config.exclusive = true;
  auto holder = make_engine(GetParam());
  holder->open(config);
  auto second = make_engine(GetParam());
  try {
    second->open(config);
    FAIL() << "a second exclusive open succeeded";
  } catch (const EngineError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.error(), EBUSY);
    EXPECT_NE(what.find(loop.path()), std::string::npos) << what;
    EXPECT_NE(what.find("in use"), std::string::npos) << what;
  }
  holder->close();
  second->open(config);  // free again
}

INSTANTIATE_TEST_SUITE_P(RealEngines, EngineDeviceConformance,
                         ::testing::Values("io_uring", "libaio", "psync"),
                         [](const auto& param_info) { return param_info.param; });

// Opening, shared by the real engines, and the registry.
TEST(EngineOpen, ADirectoryIsRefusedByName) {
  ScratchDir dir("storqual-engine-open");
  auto engine = make_engine("psync");
  EngineConfig config{.path = dir.path().string()};
  try {
    engine->open(config);
    FAIL() << "a directory opened";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path().string() + " is a directory"),
              std::string::npos)
        << e.what();
  }
}

TEST(EngineOpen, AMissingFileNamesPathAccessAndReason) {
  ScratchDir dir("storqual-engine-open");
  auto missing = (dir / "nope").string();
  auto engine = make_engine("io_uring");
  EngineConfig config{.path = missing, .write = true, .direct = true};
  try {
    engine->open(config);
    FAIL() << "a missing file opened";
  } catch (const EngineError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + missing + " read-write with O_DIRECT: " + std::strerror(ENOENT));
    EXPECT_EQ(e.error(), ENOENT);
  }
  config.create = true;
  engine->open(config);
  EXPECT_TRUE(std::filesystem::exists(missing));
  EXPECT_EQ(engine->target_size(), 0u);
  EXPECT_GE(engine->fd(), 0);
}

TEST(EngineOpen, FileBlockSizeIsWhatDirectIoNeeds) {
  ScratchDir dir("storqual-engine-open");
  auto file = (dir / "f").string();
  storqual::testing::write_random_file(file, 1 << 20);
  auto engine = make_engine("psync");
  engine->open({.path = file, .direct = true});
  auto lbs = engine->logical_block_size();
  EXPECT_GE(lbs, 512u);
  EXPECT_EQ(lbs & (lbs - 1), 0u) << "a power of two";
  // A read of exactly one such block at that alignment works under O_DIRECT.
  AlignedBuffer buf(4096);
  IoRequest r{.dir = Direction::Read, .offset = lbs, .length = lbs, .buf = buf.bytes};
  ASSERT_EQ(engine->queue(r), QueueStatus::Completed);
  EXPECT_EQ(r.res, lbs);
  engine->open({.path = file, .direct = false});
  EXPECT_EQ(engine->logical_block_size(), 512u);
}

TEST(EngineRegistry, NamesAvailabilityAndUnknownEngines) {
  auto names = engine_names();
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], "io_uring");
  EXPECT_EQ(names[1], "libaio");
  EXPECT_EQ(names[2], "psync");
  EXPECT_EQ(names[3], "null");
  for (auto n : names) {
    auto a = available(n);
    if (a.ok) {
      EXPECT_EQ(make_engine(n)->name(), n);
    } else {
      EXPECT_FALSE(a.reason.empty());
      EXPECT_THROW((void)make_engine(n), EngineError);
    }
  }
  auto a = available("posixaio");
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.reason.find("known: io_uring, libaio, psync, null"), std::string::npos);
  EXPECT_THROW((void)make_engine("posixaio"), EngineError);
}

// io_uring's poll before sleep (EngineConfig::spin_wait_ns): the same data as without, its time
// counted, nothing counted when it is off.
TEST(IoUringPolling, PollingReadsTheSameDataAndCountsItsTime) {
  auto a = available("io_uring");
  if (!a.ok) GTEST_FAIL() << "cannot run: io_uring is not available: " << a.reason;
  ScratchDir dir("storqual-uring-poll");
  const auto path = dir / "target";
  storqual::testing::write_random_file(path, kTargetSize, 11);
  std::vector<std::uint8_t> expected(kTargetSize);
  {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pread(fd, expected.data(), expected.size(), 0),
              static_cast<ssize_t>(expected.size()));
    ::close(fd);
  }
  for (std::uint32_t spin : {0u, 200000u}) {
    constexpr unsigned kDepth = 8;
    std::vector<std::unique_ptr<AlignedBuffer>> bufs;
    EngineConfig config{.path = path.string(), .direct = true, .iodepth = kDepth};
    config.spin_wait_ns = spin;
    for (unsigned i = 0; i < kDepth; ++i) {
      bufs.push_back(std::make_unique<AlignedBuffer>(4096));
      config.buffers.push_back({bufs.back()->bytes, 4096});
    }
    auto engine = make_engine("io_uring");
    engine->open(config);
    std::mt19937_64 rng(spin);
    for (int round = 0; round < 200; ++round) {
      std::vector<IoRequest> reqs(kDepth);
      for (unsigned i = 0; i < kDepth; ++i)
        reqs[i] = {.dir = Direction::Read,
                   .offset = rng() % (kTargetSize / 4096) * 4096,
                   .length = 4096,
                   .buf = bufs[i]->bytes,
                   .buf_index = static_cast<int>(i)};
      run_all(*engine, reqs);
      for (unsigned i = 0; i < kDepth; ++i) {
        ASSERT_EQ(reqs[i].res, 4096) << "spin " << spin << " offset " << reqs[i].offset;
        ASSERT_EQ(0, std::memcmp(bufs[i]->bytes, expected.data() + reqs[i].offset, 4096))
            << "spin " << spin << ": data differs at offset " << reqs[i].offset;
      }
    }
    if (spin == 0) {
      EXPECT_EQ(engine->spin_ns(), 0u) << "polling is off";
    } else {
      EXPECT_GT(engine->spin_ns(), 0u) << "1600 reads waited on, none by polling";
    }
    engine->close();
  }
}

}  // namespace
}  // namespace storqual::engines
