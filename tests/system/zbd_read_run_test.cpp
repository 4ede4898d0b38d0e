// SPDX-License-Identifier: Apache-2.0
// zonemode=zbd at the run's start (runner/measure/job_start.cpp check_zbd, docs/formats.md): a
// target that is not zoned (a loop device: queue/zoned "none"; a file) and writes under zbd are
// refused naming the workload, before any I/O. The reads on a zoned device run in the QEMU lab
// (tests/lab/lab.py check_zbd_read: this machine has no zoned block device).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual::runner {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

WorkloadSpec zbd_job(const std::string& target, const std::string& rw) {
  WorkloadSpec w;
  w.id = "zbd-" + rw;
  w.params.rw = rw;
  w.params.bs = 256 << 10;
  w.params.iodepth = 4;
  w.params.ioengine = "psync";
  w.params.direct = true;
  w.params.size = 4 * kMiB;
  w.params.target = target;
  set_workload_option(w, "zonemode", "zbd");
  set_workload_option(w, "zonesize", "1m");
  validate(w);
  return w;
}

std::string refusal(const WorkloadSpec& w) {
  try {
    (void)run_workload(w, RunOptions{});
  } catch (const UnitError& e) {
    return e.what();
  }
  return "";
}

TEST(ZbdReadRun, ATargetThatIsNotZonedIsRefusedAtTheStart) {
  storqual::testing::ScratchDir dir("storqual-zbd-run");
  const auto file = dir / "target";
  storqual::testing::write_random_file(file, 8 * kMiB);
  const std::string on_file = refusal(zbd_job(file.string(), "read"));
  EXPECT_NE(on_file.find("workload 'zbd-read': zonemode=zbd: " + file.string() +
                         " is not a zoned block device (queue/zoned \"none\"): zonemode=zbd "
                         "needs one"),
            std::string::npos)
      << on_file;
  STORQUAL_REQUIRE_ROOT();
  storqual::testing::LoopDevice loop(file);
  const std::string on_loop = refusal(zbd_job(loop.path(), "read"));
  EXPECT_NE(on_loop.find(loop.path() + " is not a zoned block device (queue/zoned \"none\")"),
            std::string::npos)
      << on_loop;
}

TEST(ZbdReadRun, WritesUnderZbdAreRefusedAsNotBuiltYet) {
  storqual::testing::ScratchDir dir("storqual-zbd-run");
  const auto file = dir / "target";
  storqual::testing::write_random_file(file, 8 * kMiB);
  for (const char* rw : {"write", "randwrite", "rw"}) {
    const std::string e = refusal(zbd_job(file.string(), rw));
    EXPECT_NE(e.find("writes under zonemode=zbd (at each zone's write pointer, zone resets, "
                     "max_open_zones) are not built yet"),
              std::string::npos)
        << rw << ": " << e;
  }
}

}  // namespace
}  // namespace storqual::runner
