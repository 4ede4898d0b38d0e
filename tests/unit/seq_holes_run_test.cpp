// SPDX-License-Identifier: Apache-2.0
// Sequential holes and backwards I/O (seq_add, fio's rw=MODE:N) and number_ios on the null
// engine: each I/O's offset from the per-I/O log against the offsets fio 3.33 issues for the same
// job (`fio --name=b --ioengine=null --rw=read:-8k --bs=4k --size=64k --write_iolog=...`:
// blocks 0 14 13 ... 1 0; `--rw=write:8k`: 0 3 6 9 12 15, where fio ends at the region's end).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

std::vector<std::uint64_t> logged_blocks(const WorkloadSpec& w) {
  storqual::testing::ScratchDir dir;
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  const reporting::WorkloadResult r = run_workload(w, o);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  std::ifstream log(o.lat_log_path);
  std::vector<std::uint64_t> out;
  for (std::string line; std::getline(log, line);) {
    std::istringstream in(line);
    std::uint64_t t, clat, dir_, size, offset;
    char c;
    in >> t >> c >> clat >> c >> dir_ >> c >> size >> c >> offset;
    EXPECT_TRUE(in) << line;
    out.push_back(offset / 4096);
  }
  return out;
}

WorkloadSpec seq(std::string rw, std::string add) {
  WorkloadSpec w;
  w.id = "seq";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = std::move(rw);
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 64 << 10;
  if (!add.empty()) set_workload_option(w, "seq_add", add);
  validate(w);
  return w;
}

TEST(SeqHolesRun, BackwardsReadsFiosOffsets) {
  const std::vector<std::uint64_t> want = {0, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
  EXPECT_EQ(logged_blocks(seq("read", "-8k")), want);
}

TEST(SeqHolesRun, HolesEndAtTheRegionsEndAsFios) {
  const std::vector<std::uint64_t> want = {0, 3, 6, 9, 12, 15};
  EXPECT_EQ(logged_blocks(seq("write", "8k")), want);
}

// A stride that does not land on the last block wraps to the start and runs the region's bytes:
// 0 4 8 12, then 0 4 ... (16 I/Os in all).
TEST(SeqHolesRun, HolesWrapToTheStart) {
  const std::vector<std::uint64_t> got = logged_blocks(seq("read", "12k"));
  ASSERT_EQ(got.size(), 16u);
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], (k % 4) * 4) << k;
}

TEST(SeqHolesRun, NumberIosStopsTheJob) {
  WorkloadSpec w = seq("read", "");
  set_workload_option(w, "number_ios", "5");
  const std::vector<std::uint64_t> want = {0, 1, 2, 3, 4};
  EXPECT_EQ(logged_blocks(w), want);
  EXPECT_THROW(validate(seq("randread", "8k")), UnitError);
}

// offset_increment: job k's region starts k x the increment further in (fio's), each of size.
TEST(SeqHolesRun, OffsetIncrementGivesEachJobItsOwnRegion) {
  WorkloadSpec w = seq("read", "");
  w.params.size = 16 << 10;
  w.params.numjobs = 2;
  set_workload_option(w, "offset_increment", "1m");
  validate(w);
  std::vector<std::uint64_t> got = logged_blocks(w);
  std::sort(got.begin(), got.end());
  const std::vector<std::uint64_t> want = {0, 1, 2, 3, 256, 257, 258, 259};
  EXPECT_EQ(got, want);
  w.params.size = 0;
  EXPECT_THROW(validate(w), UnitError);  // each job's region is size bytes
}

}  // namespace
}  // namespace storqual::runner
