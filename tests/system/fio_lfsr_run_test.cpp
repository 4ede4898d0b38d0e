// SPDX-License-Identifier: Apache-2.0
// random_generator=lfsr through the real runner on a real file with O_DIRECT: every offset of a
// size-based random read, in order (storqual's per-I/O log), against the offsets fio 3.33 issues
// for the same job on the same file (`--write_iolog`): one pass over the 256 blocks, the same
// blocks in the same order; and a time-based run past the pass starts it over as fio's does.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

std::vector<std::uint64_t> storqual_offsets(const WorkloadSpec& w,
                                            const storqual::testing::ScratchDir& dir) {
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
    out.push_back(offset);
  }
  return out;
}

// fio's iolog lines "TIME FILE read OFFSET LENGTH".
std::vector<std::uint64_t> fio_offsets(const std::filesystem::path& iolog) {
  std::ifstream in(iolog);
  std::vector<std::uint64_t> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string t, file, action;
    std::uint64_t offset = 0;
    if (words >> t >> file >> action >> offset && action == "read") out.push_back(offset);
  }
  return out;
}

TEST(FioLfsrRun, ARandomReadGivesFiosOffsetsInFiosOrder) {
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio");
  storqual::testing::ScratchDir dir;
  const auto file = dir / "data";
  storqual::testing::write_random_file(file, 1 << 20, 7);
  WorkloadSpec w;
  w.id = "lfsr";
  w.params.rw = "randread";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.ioengine = "psync";
  w.params.direct = true;
  w.params.size = 1 << 20;
  w.params.target = file.string();
  set_workload_option(w, "random_generator", "lfsr");
  validate(w);
  const std::vector<std::uint64_t> mine = storqual_offsets(w, dir);
  const auto fio = storqual::testing::run_command(
      {"fio", "--name=j", "--filename=" + file.string(), "--rw=randread", "--bs=4k", "--size=1m",
       "--random_generator=lfsr", "--direct=1", "--ioengine=psync",
       "--write_iolog=" + (dir / "iolog").string(), "--output=/dev/null"});
  ASSERT_EQ(fio.exit_code, 0) << fio.err;
  const std::vector<std::uint64_t> theirs = fio_offsets(dir / "iolog");
  ASSERT_EQ(theirs.size(), 256u);
  EXPECT_EQ(mine, theirs);

  // Past the pass (a time-based run, 600 I/Os): fio starts it over from the seed (its reset),
  // and so does storqual; fio's time-based run of a second gives the order to compare with.
  w.params.runtime_s = 60;
  set_workload_option(w, "number_ios", "600");
  const std::vector<std::uint64_t> longer = storqual_offsets(w, dir);
  const auto timed = storqual::testing::run_command(
      {"fio", "--name=j", "--filename=" + file.string(), "--rw=randread", "--bs=4k", "--size=1m",
       "--random_generator=lfsr", "--direct=1", "--ioengine=psync", "--time_based", "--runtime=1",
       "--write_iolog=" + (dir / "iolog2").string(), "--output=/dev/null"});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  std::vector<std::uint64_t> passes = fio_offsets(dir / "iolog2");
  ASSERT_GE(passes.size(), 600u) << "fio did fewer than 600 reads in a second";
  passes.resize(600);
  ASSERT_EQ(longer.size(), 600u);
  EXPECT_EQ(longer, passes);
}

}  // namespace
}  // namespace storqual::runner
