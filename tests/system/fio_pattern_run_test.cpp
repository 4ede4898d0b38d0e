// SPDX-License-Identifier: Apache-2.0
// What a fio job does beyond its offsets and sizes, through the real runner
// (docs/fio-files.md, "Side by side with fio"): fadvise_hint, which sets the kernel's readahead
// for buffered reads (seen in the requests a zram device receives),
// iodepth_batch_complete_max, the completions taken per reap (seen by an engine wrapped around
// the null engine), write_contents, what the writes carry (read back from a real file), and a
// sequential mix's offsets, a stream per direction (in storqual's and fio's lat logs), and a block
// device's page cache between workloads (written back and dropped, as fio's close does).
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/measure/job_runner.hpp"
#include "runner/qualification/target_preparation.hpp"
#include "tests/support/forwarding_engine.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::ZramDevice;

// Requests completed and sectors moved, reads only (/sys/block/NAME/stat).
struct ReadStat {
  std::uint64_t requests = 0;
  std::uint64_t sectors = 0;
};

ReadStat read_stat(const std::string& name) {
  std::ifstream in("/sys/block/" + name + "/stat");
  ReadStat s;
  std::uint64_t merges = 0;
  in >> s.requests >> merges >> s.sectors;
  return s;
}

// The device's page cache dropped (BLKFLSBUF on this device only), so that every read misses.
void drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  EXPECT_EQ(::ioctl(fd, BLKFLSBUF, 0), 0) << path;
  ::close(fd);
}

TEST(FioPatternRun, FadviseHintSetsTheReadaheadOfBufferedReads) {
  std::unique_ptr<ZramDevice> zram;
  STORQUAL_MAKE_ZRAM(zram, 64ull << 20);
  // One buffered sequential pass of 4 KiB reads over 16 MiB: with fio's default hint (sequential
  // for a sequential pattern) the kernel reads ahead in large requests; advised random, it reads
  // each 4 KiB page alone.
  const auto kib_per_request = [&](FadviseHint hint) {
    WorkloadSpec w;
    w.id = "buffered-read";
    w.params.rw = "read";
    w.params.bs = 4096;
    w.params.iodepth = 1;
    w.params.ioengine = "psync";
    w.params.direct = false;
    w.params.size = 16ull << 20;
    w.params.target = zram->path();
    w.fadvise_hint = hint;
    drop_cache(zram->path());
    const ReadStat before = read_stat(zram->name());
    const reporting::WorkloadResult r = run_workload(w, RunOptions{});
    const ReadStat after = read_stat(zram->name());
    EXPECT_TRUE(r.errors.empty()) << r.errors.front();
    EXPECT_TRUE(r.read && r.read->ios == 4096u) << "one pass of 4096 reads";
    const std::uint64_t requests = std::max<std::uint64_t>(1, after.requests - before.requests);
    return static_cast<double>(after.sectors - before.sectors) / 2.0 /
           static_cast<double>(requests);
  };
  const double random = kib_per_request(FadviseHint::Random);
  const double pattern = kib_per_request(FadviseHint::Pattern);
  EXPECT_LE(random, 4.5) << "advised random: no readahead";
  EXPECT_GE(pattern, 32.0) << "advised sequential (fio's default for a sequential job): readahead";
}

// The null engine, remembering the largest `max` it was asked to reap.
class ReapRecorder final : public storqual::testing::ForwardingEngine {
 public:
  ReapRecorder(std::unique_ptr<engines::Engine> inner, unsigned* largest)
      : ForwardingEngine(std::move(inner)), largest_(largest) {}
  int reap(unsigned min, unsigned max, engines::IoRequest** out,
           std::chrono::nanoseconds timeout) noexcept override {
    *largest_ = std::max(*largest_, max);
    const int n = inner().reap(min, max, out, timeout);
    if (n > static_cast<int>(max)) *largest_ = ~0u;  // an engine that overran its max
    return n;
  }

 private:
  unsigned* largest_;
};

TEST(FioPatternRun, IodepthBatchCompleteMaxBoundsEachReap) {
  const auto largest_reap = [](unsigned batch_max) {
    WorkloadSpec w;
    w.id = "null-qd16";
    w.params.rw = "randread";
    w.params.bs = 4096;
    w.params.iodepth = 16;
    w.params.ioengine = "null";
    w.params.size = 64ull << 20;
    w.iodepth_batch_complete_max = batch_max;
    unsigned largest = 0;
    RunOptions o;
    o.wrap_engine = [&largest](std::unique_ptr<engines::Engine> inner) {
      return std::unique_ptr<engines::Engine>(new ReapRecorder(std::move(inner), &largest));
    };
    const reporting::WorkloadResult r = run_workload(w, o);
    EXPECT_TRUE(r.read && r.read->ios == 16384u);
    return largest;
  };
  EXPECT_EQ(largest_reap(0), 16u) << "storqual's default: every completion that is ready";
  EXPECT_EQ(largest_reap(1), 1u) << "fio's default: one per reap";
  EXPECT_EQ(largest_reap(4), 4u);
}

// One sequential pass of 4 KiB writes at QD1 over a 1 MiB file (one buffer, written 256 times),
// with `contents`; the file read back.
std::string written(WriteContents contents) {
  storqual::testing::ScratchDir dir("storqual-contents");
  const auto file = dir / "target";
  std::ofstream(file).close();
  std::filesystem::resize_file(file, 1u << 20);
  WorkloadSpec w;
  w.id = "contents";
  w.params.rw = "write";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.ioengine = "psync";
  w.params.direct = false;
  w.params.size = 1u << 20;
  w.params.target = file.string();
  w.write_contents = contents;
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_TRUE(r.write && r.write->ios == 256u) << "one pass of 256 writes";
  return storqual::testing::read_file(file);
}

std::uint64_t u64_at(const std::string& data, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, data.data() + at, 8);
  return v;
}

TEST(FioPatternRun, WriteContentsAsFioWritesThem) {
  constexpr std::size_t kBlock = 4096, kSector = 512, kBlocks = 256;
  // fio's scramble: in every sector its byte offset at the start of one 64-byte line (the same
  // line in all of a write's sectors) and the write's start time in bytes 48-63, the same 16
  // bytes in the write's eight sectors.
  const std::string scramble = written(WriteContents::Scramble);
  ASSERT_EQ(scramble.size(), kBlock * kBlocks);
  std::set<std::string> times;
  for (std::size_t b = 0; b < kBlocks; ++b) {
    const std::size_t block = b * kBlock;
    int line = -1;
    for (int l = 0; l < 8 && line < 0; ++l)
      if (u64_at(scramble, block + static_cast<std::size_t>(l) * 64) == block) line = l;
    ASSERT_GE(line, 0) << "block " << b << ": no line holds its offset";
    const std::string time = scramble.substr(block + 48, 16);
    times.insert(time);
    for (std::size_t s = 1; s < kBlock / kSector; ++s) {
      const std::size_t sector = block + s * kSector;
      EXPECT_EQ(u64_at(scramble, sector + static_cast<std::size_t>(line) * 64), sector)
          << "block " << b << " sector " << s;
      EXPECT_EQ(scramble.substr(sector + 48, 16), time) << "block " << b << " sector " << s;
    }
  }
  EXPECT_EQ(times.size(), kBlocks) << "each write its own start time";

  // storqual's stamp: 8 fresh bytes at the start of every sector, the buffer's own bytes after.
  const std::string stamp = written(WriteContents::Stamp);
  std::set<std::uint64_t> stamps;
  for (std::size_t s = 0; s < stamp.size() / kSector; ++s) {
    stamps.insert(u64_at(stamp, s * kSector));
    if (s % 8 == 0 && s > 0) {
      EXPECT_EQ(stamp.compare(s * kSector + 8, kSector - 8, stamp, 8, kSector - 8), 0)
          << "the rest of the buffer is kept";
    }
  }
  EXPECT_EQ(stamps.size(), stamp.size() / kSector) << "no sector's stamp repeats";

  // fixed: the same buffer every time; refill: no sector repeats anywhere.
  const std::string fixed = written(WriteContents::Fixed);
  for (std::size_t b = 1; b < kBlocks; ++b)
    ASSERT_EQ(fixed.compare(b * kBlock, kBlock, fixed, 0, kBlock), 0) << "block " << b;
  const std::string refill = written(WriteContents::Refill);
  std::set<std::string> sectors;
  for (std::size_t s = 0; s < refill.size() / kSector; ++s)
    sectors.insert(refill.substr(s * kSector, kSector));
  EXPECT_EQ(sectors.size(), refill.size() / kSector);
  EXPECT_NE(refill.substr(0, kBlock), fixed.substr(0, kBlock));
}

// Writes completed and sectors written (/sys/block/NAME/stat).
ReadStat write_stat(const std::string& name) {
  std::ifstream in("/sys/block/" + name + "/stat");
  std::uint64_t f[7] = {};
  for (auto& v : f) in >> v;
  return {f[4], f[6]};
}

// storqual holds a block device open for the whole run, so the kernel never writes back and drops
// its page cache between workloads as it does when fio's last job of a group closes it; the
// runner does it instead, once buffered I/O has run, and only on a block device.
TEST(FioPatternRun, BlockDeviceCacheIsWrittenBackAndDroppedBetweenWorkloads) {
  std::unique_ptr<ZramDevice> zram;
  STORQUAL_MAKE_ZRAM(zram, 64ull << 20);
  // The run's claim on the device, held throughout as the safety guard holds it.
  const int held = ::open(zram->path().c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  std::vector<char> block(1 << 20, 'x');
  for (off_t at = 0; at < (16 << 20); at += static_cast<off_t>(block.size()))
    ASSERT_EQ(::pwrite(held, block.data(), block.size(), at), static_cast<ssize_t>(block.size()));

  std::vector<WorkloadSpec> plan(2);
  plan[0].id = "direct-read";
  plan[0].params.direct = true;
  plan[1].id = "buffered-write";
  plan[1].params.direct = false;
  for (auto& w : plan) w.params.target = zram->path();
  EXPECT_FALSE(settle_page_cache(plan, 0)) << "nothing buffered has run yet";

  const ReadStat before = write_stat(zram->name());
  ASSERT_TRUE(settle_page_cache(plan, 1));
  EXPECT_GE(write_stat(zram->name()).sectors - before.sectors, (16u << 20) / 512)
      << "the 16 MiB of dirty pages written back";
  // Dropped: a buffered read of what was just written now goes to the device.
  const ReadStat reads = read_stat(zram->name());
  ASSERT_EQ(::pread(held, block.data(), 4096, 0), 4096);
  EXPECT_GT(read_stat(zram->name()).requests, reads.requests) << "the page was not cached";
  ::close(held);

  // A file keeps its cache: fio's close of a file drops nothing either.
  storqual::testing::ScratchDir dir("storqual-settle");
  for (auto& w : plan) w.params.target = (dir / "target").string();
  std::ofstream(dir / "target").close();
  EXPECT_FALSE(settle_page_cache(plan, 1));
}

// Offsets per direction, in issue order, from a lat log of fio's format (time, value, direction,
// size, offset[, priority]): direction 0 reads, 1 writes.
std::map<int, std::vector<std::uint64_t>> offsets_by_direction(const std::string& log) {
  std::map<int, std::vector<std::uint64_t>> out;
  std::istringstream in(storqual::testing::read_file(log));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::uint64_t> f;
    std::istringstream fields(line);
    for (std::string v; std::getline(fields, v, ',');) f.push_back(std::stoull(v));
    if (f.size() >= 5) out[static_cast<int>(f[2])].push_back(f[4]);
  }
  return out;
}

// Each direction's offsets 0, bs, 2 bs, ... wrapping at `size`: a sequential stream of its own.
void expect_a_stream_per_direction(const std::map<int, std::vector<std::uint64_t>>& dirs,
                                   std::uint64_t bs, std::uint64_t size, const std::string& who) {
  ASSERT_EQ(dirs.size(), 2u) << who << ": reads and writes";
  for (const auto& [dir, offsets] : dirs) {
    EXPECT_GT(offsets.size(), 10u) << who;
    for (std::size_t i = 0; i < offsets.size(); ++i)
      ASSERT_EQ(offsets[i], (i * bs) % size) << who << " direction " << dir << " I/O " << i;
  }
}

// rw=rw: fio keeps a cursor per direction (last_pos[ddir]), so a 60/40 mix is a sequential read
// stream and a sequential write stream over the same region, not one stream that alternates;
// storqual's log of the same job shows the same, and fio's own log is the reference.
TEST(FioPatternRun, SequentialMixIsAStreamPerDirection) {
  constexpr std::uint64_t kBs = 4096, kSize = 256 * kBs;
  storqual::testing::ScratchDir dir("storqual-seqmix");
  const auto file = dir / "target";
  std::ofstream(file).close();
  std::filesystem::resize_file(file, kSize);
  WorkloadSpec w;
  w.id = "seqmix";
  w.params.rw = "rw";
  w.params.rwmixread = 60;
  w.params.bs = kBs;
  w.params.iodepth = 1;
  w.params.ioengine = "psync";
  w.params.direct = false;
  w.params.size = kSize;
  w.params.target = file.string();
  RunOptions o;
  o.lat_log_path = (dir / "storqual_lat.log").string();
  const reporting::WorkloadResult r = run_workload(w, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  expect_a_stream_per_direction(offsets_by_direction(o.lat_log_path), kBs, kSize, "storqual");

  STORQUAL_REQUIRE(storqual::testing::have_fio(),
                   "fio (apt-get install fio): storqual's side held");
  const auto fio = storqual::testing::run_command(
      {"fio", "--name=seqmix", "--filename=" + file.string(), "--rw=rw", "--rwmixread=60",
       "--bs=4k", "--size=" + std::to_string(kSize), "--ioengine=psync", "--log_offset=1",
       "--write_lat_log=" + (dir / "fio").string(), "--output=/dev/null"});
  ASSERT_EQ(fio.exit_code, 0) << fio.err;
  expect_a_stream_per_direction(offsets_by_direction((dir / "fio_lat.1.log").string()), kBs, kSize,
                                "fio");
}

}  // namespace
}  // namespace storqual::runner
