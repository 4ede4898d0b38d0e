// SPDX-License-Identifier: Apache-2.0
// fio's strided zones (runner/measure/strided_zones.hpp): the walk's blocks against the offsets
// fio 3.33 issues for the same job (`fio --name=z --filename=F --bs=64k --direct=1
// --ioengine=psync --zonemode=strided --zonesize=256k --zoneskip=2m --write_iolog=...` on a 5 MiB
// file: 0 64 128 192 2304 ... KiB; tests/system/strided_zones_run_test.cpp runs fio itself), where
// the walk ends, and disk-zone-profile.fio imported and written back.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/strided_zones.hpp"
#include "runner/measure/workload.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/fio_text.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kK = 1024, kBs = 64 * kK;

StridedWalk::Setup setup(std::uint64_t size, std::uint64_t range, std::uint64_t skip,
                         std::uint64_t target = 5 * kK * kK) {
  StridedWalk::Setup s;
  s.zones.mode = ZoneMode::Strided;
  s.zones.size = size;
  s.zones.range = range;
  s.zones.skip = skip;
  s.region_bytes = target;
  s.target_bytes = target;
  s.block_size = kBs;
  return s;
}

// The first `n` offsets in KiB.
std::vector<std::uint64_t> walk(const StridedWalk::Setup& s, std::size_t n, unsigned dir = 0) {
  Random rng(7);
  StridedWalk w(s, rng);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(w.next(dir) * kBs / kK);
  return out;
}

TEST(StridedZones, SequentialZonesAsFios) {
  // zonesize=256k zoneskip=2m: 4 blocks a zone, zones 2304 KiB apart, wrapping at 5 MiB.
  const std::vector<std::uint64_t> want = {0,    64,   128,  192,  2304, 2368, 2432,
                                           2496, 4608, 4672, 4736, 4800, 0,    64};
  EXPECT_EQ(walk(setup(256 * kK, 0, 2048 * kK), want.size()), want);
}

TEST(StridedZones, ZonesizeAboveZonerangeReadsTheZoneAgain) {
  // zonesize=512k zonerange=256k zoneskip=1m: fio reads 0..192 twice, then 1280..
  const std::vector<std::uint64_t> want = {0,    64,   128,  192,  0,    64,   128,  192,
                                           1280, 1344, 1408, 1472, 1280, 1344, 1408, 1472};
  EXPECT_EQ(walk(setup(512 * kK, 256 * kK, 1024 * kK), want.size()), want);
}

TEST(StridedZones, ZonerangeAboveZonesizeMovesByTheRange) {
  // zonesize=256k zonerange=512k zoneskip=1m: 4 blocks, then 1.5 MiB on.
  const std::vector<std::uint64_t> want = {0,    64,   128,  192,  1536, 1600, 1664, 1728, 3072,
                                           3136, 3200, 3264, 4608, 4672, 4736, 4800, 0,    64};
  EXPECT_EQ(walk(setup(256 * kK, 512 * kK, 1024 * kK), want.size()), want);
}

TEST(StridedZones, RandomVisitsEveryBlockOfEachZoneOnce) {
  StridedWalk::Setup s = setup(256 * kK, 0, 2048 * kK);
  s.random = true;
  const auto got = walk(s, 24);
  const std::uint64_t bases[] = {0, 2304, 4608, 0, 2304, 4608};
  for (std::size_t z = 0; z < 6; ++z) {
    const std::set<std::uint64_t> zone(got.begin() + 4 * z, got.begin() + 4 * z + 4);
    const std::set<std::uint64_t> want = {bases[z], bases[z] + 64, bases[z] + 128, bases[z] + 192};
    EXPECT_EQ(zone, want) << "zone " << z;
  }
  // zonerange=512k: 4 draws of the zone's 8 blocks, all different (the map starts again per zone).
  s = setup(256 * kK, 512 * kK, 1024 * kK);
  s.random = true;
  const auto wide = walk(s, 8);
  const std::set<std::uint64_t> first(wide.begin(), wide.begin() + 4);
  EXPECT_EQ(first.size(), 4u);
  for (std::uint64_t o : first) EXPECT_LT(o, 512u);
  for (std::size_t i = 4; i < 8; ++i) {
    EXPECT_GE(wide[i], 1536u);
    EXPECT_LT(wide[i], 2048u);
  }
}

TEST(StridedZones, TimeBasedRewindsPastTheRegionAsFio) {
  // fio 3.33 with --size=2m --time_based on a 5 MiB file: in the zone at 2560 KiB (past offset +
  // size) every I/O goes to the zone's start.
  StridedWalk::Setup s = setup(256 * kK, 0, 1024 * kK);
  s.region_bytes = 2048 * kK;
  s.time_based = true;
  const std::vector<std::uint64_t> want = {0,    64,   128,  192,  1280, 1344, 1408, 1472,
                                           2560, 2560, 2560, 2560, 3840, 3840, 3840, 3840};
  EXPECT_EQ(walk(s, want.size()), want);
}

TEST(StridedZones, ACutZoneEndsTheWalkWhereFioDoes) {
  // A 4700 KiB file: the zone at 4608 KiB holds one 64k read; fio issued 9 in all.
  const auto cut = strided_cut(setup(256 * kK, 0, 2048 * kK, 4700 * kK));
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->ios_before, 9u);
  EXPECT_EQ(cut->zone_start, 4608 * kK);
  EXPECT_FALSE(strided_cut(setup(256 * kK, 0, 2048 * kK)).has_value());  // 5 MiB: it wraps
  StridedWalk::Setup r = setup(256 * kK, 512 * kK, 1024 * kK, 4864 * kK);
  EXPECT_FALSE(strided_cut(r).has_value());  // sequential reaches 4608 + 256 KiB, the end
  r.random = true;
  EXPECT_TRUE(strided_cut(r).has_value());  // random may draw any block of the 512k
}

TEST(StridedZones, OptionsValidateAndWriteBack) {
  WorkloadSpec w;
  w.params.rw = "read";
  w.params.bs = kBs;
  set_workload_option(w, "zonesize", "256m");
  set_workload_option(w, "zoneskip", "2g");
  validate(w);  // zonesize alone is strided, as fio's
  EXPECT_TRUE(w.zones.active());
  const std::vector<std::string> want = {"zonemode=strided", "zonesize=256m", "zoneskip=2g"};
  EXPECT_EQ(zone_options(w), want);
  EXPECT_NE(fio_command(w).find(" --zonemode=strided --zonesize=256m --zoneskip=2g"),
            std::string::npos);
  set_workload_option(w, "zonemode", "none");
  EXPECT_THROW(validate(w), UnitError);  // fio refuses zonemode=none with a zonesize
  set_workload_option(w, "zonemode", "strided");
  set_workload_option(w, "zonesize", "100k");
  EXPECT_THROW(validate(w), UnitError);  // not whole blocks of 64k
  try {
    set_workload_option(w, "zonemode", "zoned");
    ADD_FAILURE() << "zonemode=zoned taken";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("none, strided or zbd"), std::string::npos) << e.what();
  }
}

FioImport import_text(const std::string& text) {
  return testing::import_fio_text(text);
}

// fio's disk-zone-profile.fio (Debian's fio-examples).
constexpr const char* kProfile =
    "[global]\nbs=64k\ndirect=1\nrw=read\nioengine=libaio\niodepth=2\nzonemode=strided\n"
    "zonesize=256m\nzoneskip=2g\n\n[disk-zone-profile]\nfilename=/dev/sdb\nwrite_bw_log\n"
    "log_offset=1\n";

TEST(StridedZones, DiskZoneProfileImportsAndWritesBack) {
  const FioImport im = import_text(kProfile);
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  const WorkloadSpec& w = im.suite.workloads[0].spec;
  EXPECT_EQ(w.zones.size, 256ull << 20);
  EXPECT_EQ(w.zones.skip, 2ull << 30);
  EXPECT_EQ(w.zones.extent(), 256ull << 20);
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  EXPECT_EQ(zone_options(back.workloads.at(0).spec), zone_options(w));
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  EXPECT_NE(job.find("zonemode=strided\nzonesize=256m\nzoneskip=2g\n"), std::string::npos) << job;
  EXPECT_EQ(zone_options(import_text(job).suite.workloads.at(0).spec), zone_options(w));
  try {
    (void)import_text("[z]\nrw=write\nzonemode=zbd\nzonesize=4m\nzonerange=8m\n");
    ADD_FAILURE() << "zbd with zonerange imported";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("zonemode=zbd with zonerange"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace storqual::runner
