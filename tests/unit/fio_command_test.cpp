// SPDX-License-Identifier: Apache-2.0
// The printed fio command (fio_command, runner/measure/workload.hpp) drives the device as storqual
// did: every option whose fio default differs from what storqual does is spelled out, and fio
// itself (3.33, where installed) takes the command, both to parse and for a short run on a file.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "runner/measure/workload.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::run_command;

bool has(const std::string& cmd, const std::string& part) {
  return (cmd + " ").find(" " + part + " ") != std::string::npos;
}

WorkloadSpec spec(const std::string& target, const std::string& rw, unsigned iodepth) {
  WorkloadSpec w;
  w.id = "t";
  w.params.target = target;
  w.params.rw = rw;
  w.params.bs = 4096;
  w.params.iodepth = iodepth;
  w.params.size = 1 << 20;
  return w;
}

TEST(FioCommand, SpellsOutWhereFioDefaultsDiffer) {
  const std::string cmd = fio_command(spec("/dev/sdb", "randread", 32));
  for (const char* part :
       {"--filename=/dev/sdb", "--ioengine=io_uring", "--direct=1", "--thread", "--iodepth=32",
        "--iodepth_batch_submit=32", "--iodepth_batch_complete_max=32", "--fixedbufs",
        "--registerfiles", "--randrepeat=0", "--size=1m"})
    EXPECT_TRUE(has(cmd, part)) << part << " missing: " << cmd;
  EXPECT_FALSE(has(cmd, "--norandommap")) << cmd;  // fio's map is its default, as storqual's
  EXPECT_FALSE(has(cmd, "--time_based")) << "size based: " << cmd;
}

TEST(FioCommand, BatchOptionsAsStorqualUsesThem) {
  // At iodepth 1 fio's default batch of 1 is storqual's.
  EXPECT_EQ(fio_command(spec("/dev/sdb", "randread", 1)).find("iodepth_batch"), std::string::npos);
  WorkloadSpec w = spec("/dev/sdb", "randread", 32);
  w.iodepth_batch = 8;
  w.iodepth_batch_complete = 4;
  const std::string cmd = fio_command(w);
  EXPECT_TRUE(has(cmd, "--iodepth_batch_submit=8")) << cmd;
  EXPECT_TRUE(has(cmd, "--iodepth_batch_complete_min=4")) << cmd;
  // storqual takes every completion that is ready, fio at most its minimum unless told.
  EXPECT_TRUE(has(cmd, "--iodepth_batch_complete_max=32")) << cmd;
  w.iodepth_batch_complete_max = 4;
  EXPECT_FALSE(has(fio_command(w), "iodepth_batch_complete_max")) << "fio's default is the minimum";
  w.iodepth_batch_complete_max = 6;
  EXPECT_TRUE(has(fio_command(w), "--iodepth_batch_complete_max=6"));
  EXPECT_FALSE(has(cmd, "fadvise_hint")) << "fio's default hint is storqual's";
  w.fadvise_hint = FadviseHint::None;
  EXPECT_TRUE(has(fio_command(w), "--fadvise_hint=0"));
}

TEST(FioCommand, WriteContents) {
  WorkloadSpec w = spec("/dev/sdb", "randwrite", 4);
  EXPECT_FALSE(has(fio_command(w), "buffers")) << "fio scrambles by default; stamp has no option";
  w.write_contents = WriteContents::Fixed;
  EXPECT_TRUE(has(fio_command(w), "--scramble_buffers=0"));
  w.write_contents = WriteContents::Refill;
  EXPECT_TRUE(has(fio_command(w), "--refill_buffers=1"));
  w.params.rw = "randread";
  EXPECT_FALSE(has(fio_command(w), "buffers")) << "a reader writes nothing";
}

TEST(FioCommand, JobsTimeBudgetAndErrors) {
  WorkloadSpec w = spec("/dev/sdb", "randwrite", 4);
  w.params.numjobs = 4;
  w.params.runtime_s = 60;
  w.params.ramp_time_s = 5;
  w.params.offset = 1 << 20;
  w.io_limit = 1 << 20;  // all jobs together; fio's io_size is per job
  w.continue_on_error = true;
  w.params.randommap = false;
  const std::string cmd = fio_command(w);
  for (const char* part :
       {"--numjobs=4", "--group_reporting", "--runtime=60s", "--ramp_time=5s", "--offset=1m",
        "--io_size=256k", "--continue_on_error=io", "--norandommap"})
    EXPECT_TRUE(has(cmd, part)) << part << " missing: " << cmd;
  // With io_size, fio would ignore it under --time_based: whichever comes first, as storqual.
  EXPECT_FALSE(has(cmd, "--time_based")) << cmd;
}

TEST(FioCommand, NullEngineGetsTheSizeStorqualGivesIt) {
  WorkloadSpec w = spec("anything", "randread", 8);
  w.params.ioengine = "null";
  w.params.size = 0;
  const std::string cmd = fio_command(w);
  EXPECT_TRUE(has(cmd, "--size=1t")) << cmd;
  EXPECT_EQ(cmd.find("--filename"), std::string::npos) << cmd;
  EXPECT_EQ(cmd.find("--fixedbufs"), std::string::npos) << cmd;
}

std::vector<std::string> words(const std::string& cmd) {
  std::istringstream in(cmd);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(FioCommand, ParsesWithFioAndRunsOnAFile) {
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio)");
  storqual::testing::ScratchDir dir("storqual-fio-command");
  const std::string file = (dir / "data.bin").string();
  storqual::testing::write_random_file(file, 4 << 20);
  std::vector<WorkloadSpec> specs;
  specs.push_back(spec(file, "randread", 32));
  WorkloadSpec mixed = spec(file, "randrw", 8);
  mixed.params.numjobs = 2;
  mixed.params.rwmixread = 70;
  mixed.iodepth_batch = 4;
  mixed.iodepth_batch_complete = 2;
  mixed.io_limit = 2 << 20;
  mixed.continue_on_error = true;
  mixed.params.randommap = false;
  specs.push_back(mixed);
  WorkloadSpec timed = spec(file, "read", 4);
  timed.params.ioengine = "libaio";
  timed.params.runtime_s = 0.5;
  timed.params.offset = 1 << 20;
  specs.push_back(timed);
  WorkloadSpec verified = spec(file, "write", 4);
  verified.verify = VerifyAlgorithm::Crc32c;
  verified.verify_backlog = 16;
  specs.push_back(verified);
  WorkloadSpec null = spec("", "randread", 8);
  null.params.ioengine = "null";
  null.params.size = 0;
  specs.push_back(null);
  for (const WorkloadSpec& w : specs) {
    const std::string cmd = fio_command(w);
    SCOPED_TRACE(cmd);
    std::vector<std::string> parse = words(cmd);
    parse.insert(parse.begin() + 1, "--parse-only");
    auto parsed = run_command(parse);
    EXPECT_EQ(parsed.exit_code, 0) << parsed.out << parsed.err;
    if (w.params.ioengine == "null") continue;  // 1 TiB of nothing: parsing is the check
    std::vector<std::string> run = words(cmd);
    run.push_back("--output-format=terse");
    auto ran = run_command(run);
    EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
    EXPECT_EQ(ran.err.find("fio: "), std::string::npos) << ran.err;
  }
}

}  // namespace
}  // namespace storqual::runner
