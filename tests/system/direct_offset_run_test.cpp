// SPDX-License-Identifier: Apache-2.0
// Under direct=1 a workload's offset need not be a multiple of bs, as fio's
// (cross-stripe-verify.fio writes 16k at offset 120k): what O_DIRECT needs is the target's logical
// block, which the run checks when it opens the target, naming the workload and the numbers. On a
// real file with O_DIRECT, each I/O's offset from the per-I/O log against fio 3.33's iolog of the
// same job.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kK = 1024;

WorkloadSpec holes_at(const std::string& target, std::uint64_t offset) {
  WorkloadSpec w;
  w.id = "write-stripes";
  w.params.rw = "write";
  w.params.bs = 16 * kK;
  w.params.iodepth = 1;
  w.params.ioengine = "psync";
  w.params.direct = true;
  w.params.offset = offset;
  w.params.size = 2048 * kK;
  w.params.target = target;
  set_workload_option(w, "seq_add", "112k");  // fio's rw=write:112k
  validate(w);                                // 120k is not a multiple of 16k: taken
  return w;
}

TEST(DirectOffset, AnOffsetOfWholeLogicalBlocksRunsAsFios) {
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio)");
  storqual::testing::ScratchDir dir("storqual-direct-offset");
  const auto file = dir / "target";
  storqual::testing::write_random_file(file, 4096 * kK);
  RunOptions o;
  o.lat_log_path = (dir / "lat.log").string();
  const reporting::WorkloadResult r = run_workload(holes_at(file.string(), 120 * kK), o);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  std::vector<std::uint64_t> got;
  std::istringstream in(storqual::testing::read_file(o.lat_log_path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::uint64_t> f;
    std::istringstream fields(line);
    for (std::string v; std::getline(fields, v, ',');) f.push_back(std::stoull(v));
    if (f.size() >= 5) got.push_back(f[4]);
  }
  // fio 3.33, the same job: 16k every 128k from 120k, each write across a 128k boundary.
  const auto log = dir / "fio.iolog";
  const auto fio = storqual::testing::run_command(
      {"fio", "--name=h", "--filename=" + file.string(), "--bs=16k", "--direct=1",
       "--rw=write:112k", "--offset=120k", "--size=2m", "--ioengine=psync",
       "--write_iolog=" + log.string(), "--output=/dev/null"});
  ASSERT_EQ(fio.exit_code, 0) << fio.err;
  std::vector<std::uint64_t> want;
  std::istringstream fin(storqual::testing::read_file(log));
  for (std::string line; std::getline(fin, line);) {
    std::istringstream f(line);
    std::string name, action;
    std::uint64_t time = 0, offset = 0;
    if (f >> time >> name >> action >> offset && action == "write") want.push_back(offset);
  }
  ASSERT_EQ(want.size(), 16u);
  // fio ends the job after one pass (its next offset is past size, below the file's end);
  // storqual wraps inside the region (docs/formats.md, seq_add): the first pass is fio's.
  ASSERT_GE(got.size(), want.size());
  EXPECT_EQ(std::vector<std::uint64_t>(got.begin(), got.begin() + 16), want);
  for (std::uint64_t off : got) EXPECT_EQ((off + 8 * kK) % (128 * kK), 0u) << off;
}

TEST(DirectOffset, AnOffsetOffTheLogicalBlockIsRefusedNamingIt) {
  storqual::testing::ScratchDir dir("storqual-direct-offset");
  const auto file = dir / "target";
  storqual::testing::write_random_file(file, 4096 * kK);
  try {
    (void)run_workload(holes_at(file.string(), 1000), RunOptions{});
    ADD_FAILURE() << "offset 1000 ran under direct=1";
  } catch (const UnitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("workload 'write-stripes'"), std::string::npos) << what;
    EXPECT_NE(what.find("offset 1000 must be multiples of the logical block size"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace storqual::runner
