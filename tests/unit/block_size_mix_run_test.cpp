// SPDX-License-Identifier: Apache-2.0
// Workloads with a block-size mix or a skewed distribution on the null engine: each I/O's size and
// offset from the per-I/O log, the sizes per direction in the result, where a size-based run ends,
// and where skewed offsets go.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

struct LoggedIo {
  unsigned dir;
  std::uint64_t size, offset;
};

std::vector<LoggedIo> run_logged(const WorkloadSpec& w, reporting::WorkloadResult& r) {
  storqual::testing::ScratchDir dir;
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  r = run_workload(w, o);
  std::ifstream log(o.lat_log_path);
  std::vector<LoggedIo> out;
  for (std::string line; std::getline(log, line);) {
    std::istringstream in(line);
    std::uint64_t t, clat;
    LoggedIo io{};
    char c;
    in >> t >> c >> clat >> c >> io.dir >> c >> io.size >> c >> io.offset;
    EXPECT_TRUE(in) << line;
    out.push_back(io);
  }
  return out;
}

WorkloadSpec mixed(std::string rw, std::string bssplit) {
  WorkloadSpec w;
  w.id = "mix";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = std::move(rw);
  w.params.iodepth = 1;
  w.params.size = 64ull << 20;
  w.params.offset = 1 << 20;
  set_workload_option(w, "bssplit", bssplit);
  return w;
}

// Sequential: each I/O starts where the last ended, its size the one fio draws for job 1, and the
// run ends at the region's bytes (fio's io_size).
TEST(BlockSizeMixRun, SequentialSizesAreFiosAndTheRunEndsAtItsBytes) {
  const WorkloadSpec w = mixed("read", "4k/10:64k/50:32k/40");
  reporting::WorkloadResult r;
  const auto ios = run_logged(w, r);
  ASSERT_TRUE(r.read && r.read->block_sizes);
  ASSERT_EQ(ios.size(), r.read->ios);
  BlockSizeDraw fio(w.block_sizes(0), fio_seed(FioSeed::BlockSizeRead, kFioDefaultRandseed, 1),
                    false);
  std::uint64_t expect = w.params.offset, bytes = 0;
  for (const LoggedIo& io : ios) {
    ASSERT_EQ(io.offset, expect);
    ASSERT_EQ(io.size, fio.next(w.params.offset + w.params.size - io.offset));
    expect += io.size;
    bytes += io.size;
  }
  EXPECT_EQ(bytes, r.read->bytes);
  EXPECT_GE(bytes, w.params.size);
  EXPECT_LE(expect, w.params.offset + w.params.size);
  std::uint64_t counted = 0;
  for (const auto& c : *r.read->block_sizes) {
    EXPECT_TRUE(c.bs == 4096 || c.bs == 32768 || c.bs == 65536) << c.bs;
    counted += c.ios;
  }
  EXPECT_EQ(counted, r.read->ios);
  ASSERT_TRUE(r.params.bs_mix);
  EXPECT_EQ(*r.params.bs_mix, "bssplit=4k/10:32k/40:64k/50");
}

// Random, each direction its own list: sizes from the direction's list, offsets on the
// blockalign, every I/O inside the region.
TEST(BlockSizeMixRun, RandomPerDirectionInsideTheRegion) {
  WorkloadSpec w = mixed("randrw", "4k/50:16k/50,64k/30:128k/70");
  w.params.iodepth = 8;
  w.blockalign = 8192;
  w.params.bs = 8192;
  reporting::WorkloadResult r;
  const auto ios = run_logged(w, r);
  ASSERT_TRUE(r.read && r.write);
  std::map<unsigned, std::set<std::uint64_t>> sizes;
  for (const LoggedIo& io : ios) {
    sizes[io.dir].insert(io.size);
    EXPECT_EQ((io.offset - w.params.offset) % 8192, 0u) << io.offset;
    EXPECT_GE(io.offset, w.params.offset);
    EXPECT_LE(io.offset + io.size, w.params.offset + w.params.size);
  }
  EXPECT_EQ(sizes[0], (std::set<std::uint64_t>{4096, 16384}));
  EXPECT_EQ(sizes[1], (std::set<std::uint64_t>{65536, 131072}));
  // The shares the run used are the mix's (thousands of draws: within a few percent).
  for (const auto& c : *r.write->block_sizes) {
    const double share = static_cast<double>(c.ios) / static_cast<double>(r.write->ios);
    EXPECT_NEAR(share, c.bs == 65536 ? 0.3 : 0.7, 0.05) << c.bs;
  }
  EXPECT_GE(r.read->bytes + r.write->bytes, w.params.size);
}

// A workload without a mix reports none (and its result JSON is as before).
TEST(BlockSizeMixRun, NoMixNoSizes) {
  WorkloadSpec w = mixed("read", "4k/100");
  w.params.size = 4096 * 100;
  reporting::WorkloadResult r;
  (void)run_logged(w, r);
  ASSERT_TRUE(r.read);
  EXPECT_FALSE(r.read->block_sizes);
  EXPECT_FALSE(r.params.bs_mix);
  EXPECT_EQ(r.read->ios, 100u);
}

// zoned:50/5:30/15:20/: half the I/Os on the first 5% of the region; the offsets are fio's for
// the same target name (tests/unit/offset_distribution_test.cpp), the shares the zones'.
TEST(SkewedRun, ZonedSharesAndFiosBlocks) {
  WorkloadSpec w;
  w.id = "zones";
  w.params.ioengine = "null";
  w.params.target = "fio-ref";
  w.params.rw = "randread";
  w.params.iodepth = 1;
  w.params.size = 1ull << 30;
  w.io_limit = 4096ull * 20000;
  set_workload_option(w, "random_distribution", "zoned:50/5:30/15:20/");
  reporting::WorkloadResult r;
  const auto ios = run_logged(w, r);
  ASSERT_EQ(ios.size(), 20000u);
  const std::vector<std::uint64_t> fio = {790, 9702, 11051, 150997};
  for (std::size_t i = 0; i < fio.size(); ++i) EXPECT_EQ(ios[i].offset / 4096, fio[i]) << i;
  std::uint64_t first5 = 0, next15 = 0;
  for (const LoggedIo& io : ios) {
    const double at = static_cast<double>(io.offset) / static_cast<double>(w.params.size);
    first5 += at < 0.05;
    next15 += at >= 0.05 && at < 0.20;
  }
  EXPECT_NEAR(static_cast<double>(first5) / 20000, 0.50, 0.02);
  EXPECT_NEAR(static_cast<double>(next15) / 20000, 0.30, 0.02);
  ASSERT_TRUE(r.params.random_distribution);
  EXPECT_EQ(*r.params.random_distribution, "zoned:50/5:30/15:20/80");
}

}  // namespace
}  // namespace storqual::runner
