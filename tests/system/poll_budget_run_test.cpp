// SPDX-License-Identifier: Apache-2.0
// A real io_uring workload on a scratch file says whether its jobs polled for completions and why
// (runner/measure/poll_budget.hpp), and how long its job threads waited for a CPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engines/engine.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

TEST(PollBudget, AnIoUringWorkloadSaysWhetherItPolledAndWhy) {
  if (auto a = engines::available("io_uring"); !a.ok)
    GTEST_FAIL() << "cannot run: io_uring: " << a.reason;
  storqual::testing::ScratchDir dir;
  const std::string file = (dir / "f").string();
  std::ofstream(file).close();
  std::filesystem::resize_file(file, 8 << 20);
  WorkloadSpec w;
  w.id = "p";
  w.params.ioengine = "io_uring";
  w.params.target = file;
  w.params.rw = "randread";
  w.params.bs = 4096;
  w.params.iodepth = 8;
  w.params.runtime_s = 0.5;
  auto r = run_workload(w);
  EXPECT_EQ(r.cpu.poll.rfind("spin_wait auto: polling allowed in ", 0), 0u) << r.cpu.poll;
  EXPECT_NE(r.cpu.poll.find(" looks at the host ("), std::string::npos) << r.cpu.poll;
  EXPECT_GE(r.cpu.wait_pct, 0) << "schedstat is kept by this kernel";
  w.spin_wait_s = 0;
  w.params.runtime_s = 0.1;
  EXPECT_EQ(run_workload(w).cpu.poll, "spin_wait 0: no polling");
  w.params.ioengine = "psync";
  EXPECT_EQ(run_workload(w).cpu.poll, "");
}

}  // namespace
}  // namespace storqual::runner
