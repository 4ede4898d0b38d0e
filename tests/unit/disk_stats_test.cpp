// SPDX-License-Identifier: Apache-2.0
// The device's own counters (fio's "Disk stats"): the stat line parsed, the difference of two
// snapshots, the device found through /sys/dev/block/MAJ:MIN of a target, and no stats for a disk
// that does not count (queue/iostats 0, as an NVMe multipath head) or a malformed file.
#include "runner/measure/disk_stats.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;

TEST(DiskStats, ParsesTheStatLineAndDiffsTwoSnapshots) {
  // read ios merges sectors ticks, write ios merges sectors ticks, in flight, io_ticks, in_queue
  auto a = parse_disk_stat("zram1", "  100 1 800 40  50 2 400 30  0 500 70  0 0 0 0\n");
  auto b = parse_disk_stat("zram1", "  160 1 1280 64  80 5 640 42  3 1000 106  0 0 0 0\n");
  ASSERT_TRUE(a && b);
  a->taken_ns = 1'000'000'000;
  b->taken_ns = 2'000'000'000;  // one second later
  const auto d = disk_stats_between(*a, *b);
  EXPECT_EQ(d.name, "zram1");
  EXPECT_EQ(d.read_ios, 60u);
  EXPECT_EQ(d.write_ios, 30u);
  EXPECT_EQ(d.write_merges, 3u);
  EXPECT_EQ(d.read_ticks_ms, 24u);
  EXPECT_EQ(d.write_ticks_ms, 12u);
  EXPECT_EQ(d.io_ticks_ms, 500u);
  EXPECT_EQ(d.in_queue_ms, 36u);
  EXPECT_NEAR(d.util_pct, 50, 1e-9);            // 500 ms with I/O in flight of 1000
  EXPECT_FALSE(parse_disk_stat("x", "1 2 3"));  // too few fields
}

class FakeSysBlock : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("storqual-disk-stats-" + std::to_string(getpid()));
    target_ = root_ / "target.img";
    fs::create_directories(root_);
    std::ofstream(target_) << "x";
    struct stat st {};
    ASSERT_EQ(::stat(target_.c_str(), &st), 0);
    node_ = root_ / "sys" / "dev" / "block" /
            (std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev)));
    fs::create_directories(node_ / "queue");
    std::ofstream(node_ / "stat") << "10 0 80 1 20 0 160 2 0 3 4\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_, target_, node_;
};

TEST_F(FakeSysBlock, FindsTheDeviceOfAFileAndHonoursIostats) {
  std::ofstream(node_ / "queue" / "iostats") << "1\n";
  auto c = read_disk_counters(target_.string(), root_ / "sys");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->read_ios, 10u);
  EXPECT_EQ(c->write_ios, 20u);
  EXPECT_GT(c->taken_ns, 0u);
  // A disk that does not count its I/O has no stats, rather than zeros.
  std::ofstream(node_ / "queue" / "iostats") << "0\n";
  EXPECT_FALSE(read_disk_counters(target_.string(), root_ / "sys"));
  // No stat file, no target: none.
  fs::remove(node_ / "stat");
  EXPECT_FALSE(read_disk_counters(target_.string(), root_ / "sys"));
  EXPECT_FALSE(read_disk_counters((root_ / "missing").string(), root_ / "sys"));
}

}  // namespace
}  // namespace storqual::runner
