// SPDX-License-Identifier: Apache-2.0
// fio's strided zones (zonemode=strided, docs/formats.md) through the real runner on a real file
// with O_DIRECT and on a loop device, each I/O's offset from storqual's per-I/O log against fio
// 3.33's own iolog (--write_iolog) of the same job: sequential in the same order, random the same
// zones in the same order with each zone's blocks once; a zone cut by the target's end ends the
// job where fio ends it, or (random) is refused naming the zone.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kK = 1024, kBs = 64 * kK;

struct Zoned {
  std::string rw = "read";
  std::string zonesize = "256k", zonerange, zoneskip = "2m";
  std::uint64_t size = 0, offset = 0;
  unsigned loops = 1;  // fio's loops; storqual's io_limit of as many passes (the import's)
};

// The job's offsets as fio 3.33 issues them, from its iolog ("TIME FILE read OFFSET LENGTH").
std::vector<std::uint64_t> fio_offsets(const std::string& target, const Zoned& z,
                                       const std::filesystem::path& dir) {
  const auto log = dir / "fio.iolog";
  std::filesystem::remove(log);
  std::vector<std::string> cmd = {"fio",
                                  "--name=z",
                                  "--filename=" + target,
                                  "--rw=" + z.rw,
                                  "--bs=64k",
                                  "--direct=1",
                                  "--ioengine=psync",
                                  "--zonemode=strided",
                                  "--zonesize=" + z.zonesize,
                                  "--zoneskip=" + z.zoneskip,
                                  "--write_iolog=" + log.string(),
                                  "--output=/dev/null"};
  if (!z.zonerange.empty()) cmd.push_back("--zonerange=" + z.zonerange);
  if (z.size) cmd.push_back("--size=" + std::to_string(z.size));
  if (z.offset) cmd.push_back("--offset=" + std::to_string(z.offset));
  if (z.loops > 1) cmd.push_back("--loops=" + std::to_string(z.loops));
  const auto r = storqual::testing::run_command(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::uint64_t> out;
  std::istringstream in(storqual::testing::read_file(log));
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string file, action;
    std::uint64_t time = 0, offset = 0;
    if (f >> time >> file >> action >> offset && action == "read") out.push_back(offset);
  }
  return out;
}

// The same job through storqual's runner, its offsets from the per-I/O log.
std::vector<std::uint64_t> storqual_offsets(const std::string& target, const Zoned& z,
                                            const std::filesystem::path& dir) {
  WorkloadSpec w;
  w.id = "zones";
  w.params.rw = z.rw;
  w.params.bs = kBs;
  w.params.iodepth = 1;
  w.params.ioengine = "psync";
  w.params.direct = true;
  w.params.size = z.size;
  w.params.offset = z.offset;
  w.params.target = target;
  set_workload_option(w, "zonesize", z.zonesize);
  set_workload_option(w, "zoneskip", z.zoneskip);
  if (!z.zonerange.empty()) set_workload_option(w, "zonerange", z.zonerange);
  if (z.loops > 1) w.io_limit = z.size * z.loops;
  validate(w);
  RunOptions o;
  o.lat_log_path = (dir / "storqual_lat.log").string();
  const reporting::WorkloadResult r = run_workload(w, o);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  std::vector<std::uint64_t> out;
  std::istringstream in(storqual::testing::read_file(o.lat_log_path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::uint64_t> f;
    std::istringstream fields(line);
    for (std::string v; std::getline(fields, v, ',');) f.push_back(std::stoull(v));
    if (f.size() >= 5) out.push_back(f[4]);
  }
  return out;
}

std::filesystem::path sized_file(const storqual::testing::ScratchDir& dir, std::uint64_t size) {
  const auto file = dir / "target";
  storqual::testing::write_random_file(file, size);
  return file;
}

class StridedZonesRun : public ::testing::Test {
 protected:
  void SetUp() override {
    STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio)");
  }
  storqual::testing::ScratchDir dir_{"storqual-zones"};
};

TEST_F(StridedZonesRun, SequentialOffsetsAreFiosOnAFile) {
  const auto file = sized_file(dir_, 5 * kK * kK).string();
  std::vector<Zoned> cases(6);
  cases[1].zonerange = "512k";
  cases[1].zoneskip = "1m";
  cases[2].zonesize = "512k";
  cases[2].zonerange = "256k";
  cases[2].zoneskip = "1m";
  cases[3].zoneskip = "1m";
  cases[3].size = 2 * kK * kK;  // zones past offset + size, up to the file's end, as fio's
  cases[3].offset = kK * kK;
  cases[4].rw = "read";
  cases[4].zoneskip = "0";
  cases[5].size = kK * kK;  // two loops: fio's second goes on from the zone the first ended at
  cases[5].loops = 2;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const auto want = fio_offsets(file, cases[c], dir_.path());
    ASSERT_GT(want.size(), 8u) << "case " << c;
    EXPECT_EQ(storqual_offsets(file, cases[c], dir_.path()), want) << "case " << c;
  }
}

TEST_F(StridedZonesRun, ACutZoneEndsTheJobWhereFioEndsIt) {
  // 4700 KiB: the zone at 4608 KiB holds one 64k read before the file's end; fio stops there.
  const auto file = sized_file(dir_, 4700 * kK).string();
  const Zoned z;
  const auto want = fio_offsets(file, z, dir_.path());
  ASSERT_EQ(want.size(), 9u);
  EXPECT_EQ(storqual_offsets(file, z, dir_.path()), want);
  // Random: where fio stops depends on its draws; storqual refuses the zone.
  Zoned r;
  r.rw = "randread";
  try {
    (void)storqual_offsets(file, r, dir_.path());
    ADD_FAILURE() << "a cut zone of a random job ran";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("zone at offset 4718592"), std::string::npos) << e.what();
  }
}

// Random: the zones in fio's order, each zone's blocks exactly once (fio's and storqual's random
// numbers differ, so the order inside a zone does).
TEST_F(StridedZonesRun, RandomVisitsFiosZonesOnALoopDevice) {
  STORQUAL_REQUIRE_ROOT();
  const auto backing = sized_file(dir_, 5 * kK * kK);
  storqual::testing::LoopDevice loop(backing);
  Zoned z;
  z.rw = "randread";
  const auto want = fio_offsets(loop.path(), z, dir_.path());
  const auto got = storqual_offsets(loop.path(), z, dir_.path());
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(want.size(), 80u);
  for (std::size_t i = 0; i < want.size(); i += 4) {
    const std::set<std::uint64_t> a(want.begin() + i, want.begin() + i + 4);
    const std::set<std::uint64_t> b(got.begin() + i, got.begin() + i + 4);
    EXPECT_EQ(a, b) << "zone of I/O " << i;
    EXPECT_EQ(a.size(), 4u);
  }
  // Sequential on the device too, in fio's order.
  z.rw = "read";
  z.zonerange = "512k";
  z.zoneskip = "1m";
  EXPECT_EQ(storqual_offsets(loop.path(), z, dir_.path()),
            fio_offsets(loop.path(), z, dir_.path()));
}

}  // namespace
}  // namespace storqual::runner
