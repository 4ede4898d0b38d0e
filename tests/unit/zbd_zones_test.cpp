// SPDX-License-Identifier: Apache-2.0
// fio's zonemode=zbd reads (runner/measure/zbd_zones.hpp): a captured BLKREPORTZONE answer
// decoded, what a sequential read with read_beyond_wp=0 reads of it (fio 3.33 zbd.c
// zbd_adjust_block for DDIR_READ), and zbd-seq-read.fio / zbd-rand-write.fio imported and
// written back.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"
#include "runner/measure/zbd_zones.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/fio_text.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20, kZone = 8 * kMiB;

// The lab's zoned namespace (tests/lab/guest_init.sh: 8 zones of 8 MiB) after 12 MiB written
// from sector 0: zone 0 full, zone 1 open at 4 MiB, the rest empty; BLKREPORTZONE's bytes as
// captured (tests/fuzz/corpus/zone_report/lab-12m-written).
std::vector<unsigned char> lab_report() {
  std::ifstream in(
      std::filesystem::path(STORQUAL_SOURCE_DIR) / "tests/fuzz/corpus/zone_report/lab-12m-written",
      std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ZbdZones, DecodesTheCapturedReport) {
  const std::vector<ZbdZone> z = decode_zone_report(lab_report());
  ASSERT_EQ(z.size(), 8u);
  EXPECT_EQ(z[1].start, kZone);
  EXPECT_EQ(z[1].len, kZone);
  EXPECT_EQ(z[0].cond, 0xe);  // full: readable to its capacity
  EXPECT_EQ(z[0].readable_end(), kZone);
  EXPECT_EQ(z[1].readable_end(), kZone + 4 * kMiB);  // open: its write pointer
  EXPECT_EQ(z[2].readable_end(), 2 * kZone);         // empty: nothing
  std::vector<unsigned char> raw = lab_report();
  EXPECT_THROW((void)decode_zone_report(std::span(raw.data(), 15)), UnitError);  // no header
  raw[8] = 9;  // nine zones in a buffer of eight
  EXPECT_THROW((void)decode_zone_report(raw), UnitError);
  raw = lab_report();
  const std::uint64_t past = 2 * (kZone >> 9) + 1;  // zone 1's wp one sector into zone 2
  std::memcpy(raw.data() + 16 + 64 + 16, &past, 8);
  EXPECT_THROW((void)decode_zone_report(raw), UnitError);
}

TEST(ZbdZones, SequentialReadTakesTheWrittenBlocksOnly) {
  const std::vector<ZbdZone> z = decode_zone_report(lab_report());
  const std::uint64_t bs = 256 << 10;
  // The whole namespace: zone 0 and the first half of zone 1, one run (they touch).
  std::vector<ZbdRun> runs = zbd_read_runs(z, 0, 8 * kZone, bs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, 0u);
  EXPECT_EQ(runs[0].end, 12 * kMiB);
  ZbdReadWalk walk(runs, 0, bs);
  EXPECT_EQ(walk.blocks(), 12 * kMiB / bs);  // a size-based job reads exactly the written bytes
  for (std::uint64_t k = 0; k < walk.blocks(); ++k) ASSERT_EQ(walk.next(), k);
  EXPECT_EQ(walk.next(), 0u);  // time based: again from the first
  // From 6 MiB in: the rest of zone 0, then zone 1 from its start.
  runs = zbd_read_runs(z, 6 * kMiB, 8 * kZone - 6 * kMiB, bs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, 6 * kMiB);
  EXPECT_EQ(runs[0].end, 12 * kMiB);
  // A region that ends inside zone 1's data: cut at its end.
  runs = zbd_read_runs(z, 0, 10 * kMiB, bs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].end, 10 * kMiB);
  // Only empty zones: nothing to read.
  EXPECT_TRUE(zbd_read_runs(z, 2 * kZone, 6 * kZone, bs).empty());
}

TEST(ZbdZones, SkipsToTheNextZoneWithABlockOfData) {
  auto zone = [](std::uint64_t k, std::uint64_t written, std::uint8_t cond) {
    return ZbdZone{k * kZone, kZone, kZone, k * kZone + written, 2, cond};
  };
  const std::uint64_t bs = 1 * kMiB;
  // Zone 0 with 2.5 MiB (the half block is not read: fio's I/O would cross the write pointer),
  // zone 1 with less than a block (skipped), zone 2 offline, zone 3 with 1 MiB, zone 4 a
  // conventional zone (no write pointer: all of it).
  const std::vector<ZbdZone> z = {zone(0, 5 * kMiB / 2, 2), zone(1, kMiB / 2, 4),
                                  ZbdZone{2 * kZone, kZone, kZone, 2 * kZone, 2, 0xf},
                                  zone(3, kMiB, 4), ZbdZone{4 * kZone, kZone, kZone, 0, 1, 0}};
  const std::vector<ZbdRun> runs = zbd_read_runs(z, 0, 5 * kZone, bs);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].end, 2 * kMiB);
  EXPECT_EQ(runs[1].start, 3 * kZone);
  EXPECT_EQ(runs[1].end, 3 * kZone + kMiB);
  EXPECT_EQ(runs[2].start, 4 * kZone);
  EXPECT_EQ(runs[2].end, 5 * kZone);
  ZbdReadWalk walk(runs, 0, bs);
  EXPECT_EQ(walk.blocks(), 2u + 1u + 8u);
  EXPECT_EQ(walk.next(), 0u);
  EXPECT_EQ(walk.next(), 1u);
  EXPECT_EQ(walk.next(), 3 * kZone / bs);  // past zone 0's data: the next zone with a block
  EXPECT_EQ(walk.next(), 4 * kZone / bs);
}

FioImport import_text(const std::string& text) {
  return testing::import_fio_text(text);
}

// fio's zbd-seq-read.fio (Debian's fio-examples).
constexpr const char* kSeqRead =
    "[global]\nname=zbd-seq-read\nrw=read\nbs=256K\ndirect=1\nnumjobs=1\nzonemode=zbd\n"
    "zonesize=256M\nread_beyond_wp=0\n\n[dev1]\nfilename=/dev/sdd\noffset=140660178944\n"
    "size=10G\nioengine=libaio\niodepth=16\n";

TEST(ZbdZones, SeqReadImportsAndWritesBack) {
  const FioImport im = import_text(kSeqRead);
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  const WorkloadSpec& w = im.suite.workloads[0].spec;
  EXPECT_TRUE(w.zones.zbd());
  EXPECT_FALSE(w.zones.active());  // not strided
  EXPECT_EQ(w.zones.size, 256 * kMiB);
  const std::vector<std::string> want = {"zonemode=zbd", "zonesize=256m", "read_beyond_wp=0"};
  EXPECT_EQ(zone_options(w), want);
  EXPECT_NE(fio_command(w).find(" --zonemode=zbd --zonesize=256m --read_beyond_wp=0"),
            std::string::npos)
      << fio_command(w);
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  EXPECT_EQ(zone_options(back.workloads.at(0).spec), want);
  const std::string job = fio_job_text(im.suite, "/dev/nvme0n3");
  EXPECT_NE(job.find("zonemode=zbd\nzonesize=256m\nread_beyond_wp=0\n"), std::string::npos) << job;
  EXPECT_EQ(zone_options(import_text(job).suite.workloads.at(0).spec), want);
}

// Writes under zbd import (zbd-rand-write.fio) and are refused at the run (job_start.cpp).
TEST(ZbdZones, RandWriteImportsWithMaxOpenZones) {
  const FioImport im = import_text(
      "[global]\nname=zbd-rand-write\nrw=randwrite\nbs=4K\ndirect=1\nzonemode=zbd\n"
      "max_open_zones=32\n[dev1]\nfilename=/dev/sdd\nsize=1g\nioengine=libaio\n");
  const WorkloadSpec& w = im.suite.workloads.at(0).spec;
  EXPECT_EQ(w.zones.max_open_zones, 32u);
  const std::vector<std::string> want = {"zonemode=zbd", "read_beyond_wp=0", "max_open_zones=32"};
  EXPECT_EQ(zone_options(w), want);
  WorkloadSpec plain;
  plain.params.rw = "read";
  set_workload_option(plain, "read_beyond_wp", "1");
  EXPECT_THROW(validate(plain), UnitError);  // needs zonemode=zbd, as fio's
}

}  // namespace
}  // namespace storqual::runner
