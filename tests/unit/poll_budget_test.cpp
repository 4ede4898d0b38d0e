// SPDX-License-Identifier: Apache-2.0
// The host's poll budget (runner/measure/poll_budget.hpp): the rule on numbers, /proc/stat read
// for the CPUs of the process, the gate over looks at a captured procfs, the job threads of
// several workloads counted together (a real workload: tests/system/poll_budget_run_test.cpp).
#include "runner/measure/poll_budget.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <thread>

#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

TEST(PollDecision, JobsAsManyAsCpusNeverPoll) {
  auto d = decide_polling(2, 2, 0.1, true);
  EXPECT_FALSE(d.allow);
  EXPECT_EQ(d.reason, "2 job threads on 2 CPUs: no CPU left to poll on");
  EXPECT_FALSE(decide_polling(16, 20, std::nullopt, true).allow);
}

TEST(PollDecision, AWholeIdleCpuOpensTheGateAndHysteresisKeepsItOpen) {
  EXPECT_TRUE(decide_polling(2, 1, std::nullopt, false).allow) << "before any look: the job count";
  auto open = decide_polling(16, 4, 5.2, false);
  EXPECT_TRUE(open.allow);
  EXPECT_EQ(open.reason,
            "10.8 of 16 CPUs spare (4 job threads; the host's work besides polling "
            "5.2 CPUs)");
  // One job and the kernel's io-wq worker on a 2-CPU host: 0.6 CPU idle is not a spare core.
  auto closed = decide_polling(2, 1, 1.4, false);
  EXPECT_FALSE(closed.allow);
  EXPECT_EQ(closed.reason,
            "0.6 of 2 CPUs spare (1 job thread; the host's work besides polling "
            "1.4 CPUs): polling needs a whole idle CPU");
  EXPECT_FALSE(decide_polling(2, 1, 1.2, false).allow);  // 0.8 spare: not enough to open
  EXPECT_TRUE(decide_polling(2, 1, 1.2, true).allow);    // ... nor little enough to close
  EXPECT_FALSE(decide_polling(2, 1, 1.3, true).allow);
  EXPECT_TRUE(decide_polling(2, 1, -0.5, false).allow);  // rounding below zero: nothing busy
}

TEST(CpuTicks, TheProcessCpusOnlyIdleAndIowaitNotBusyGuestNotTwice) {
  const std::string stat =
      "cpu  1000 0 500 8000 100 0 0 0 0 0\n"
      "cpu0 100 10 50 800 40 5 5 0 7 0\n"
      "cpu1 900 0 450 100 60 0 0 0 0 0\n"
      "cpu2 1 1 1 1\n"
      "intr 12345\n";
  auto both = cpu_ticks(stat, {0, 1});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->total, (100 + 10 + 50 + 800 + 40 + 5 + 5) + (900 + 450 + 100 + 60u));
  EXPECT_EQ(both->busy, (100 + 10 + 50 + 5 + 5) + (900 + 450u));
  auto two = cpu_ticks(stat, {2});
  ASSERT_TRUE(two);
  EXPECT_EQ(two->busy, 3u);
  EXPECT_FALSE(cpu_ticks(stat, {0, 5})) << "a CPU of the mask without a line";
  EXPECT_FALSE(cpu_ticks("cpu0 1 2\n", {0})) << "too few fields";
}

// A captured /proc with a stat file the test rewrites between looks.
class FakeProc {
 public:
  void write(std::uint64_t busy0, std::uint64_t idle0, std::uint64_t busy1, std::uint64_t idle1) {
    std::ofstream(dir_ / "stat") << "cpu  0 0 0 0\ncpu0 " << busy0 << " 0 0 " << idle0
                                 << " 0 0 0 0 0 0\ncpu1 " << busy1 << " 0 0 " << idle1
                                 << " 0 0 0 0 0 0\n";
  }
  [[nodiscard]] std::string root() const { return dir_.path().string(); }

 private:
  storqual::testing::ScratchDir dir_;
};

TEST(PollBudget, LooksAtTheHostAndCountsEveryWorkloadsJobs) {
  FakeProc proc;
  proc.write(0, 0, 0, 0);
  PollBudget budget(proc.root(), {0, 1}, std::chrono::milliseconds(200), false);
  auto lease = budget.enter(1);
  EXPECT_TRUE(budget.open()) << budget.reason();  // no demand measured yet: 1 job on 2 CPUs
  // 100 ticks per CPU: CPU 0 fully busy, CPU 1 40% busy: 1.4 CPUs of work, 0.6 spare.
  proc.write(100, 0, 40, 60);
  budget.look();
  EXPECT_FALSE(budget.open());
  EXPECT_NE(budget.reason().find("0.6 of 2 CPUs spare"), std::string::npos) << budget.reason();
  // Then the host quietens: 0.3 CPUs of work.
  proc.write(120, 80, 50, 150);
  budget.look();
  EXPECT_TRUE(budget.open()) << budget.reason();
  EXPECT_EQ(lease.summary(),
            "allowed in 1 of 2 looks at the host (50%); last: open: 1.7 of 2 CPUs spare (1 job "
            "thread; the host's work besides polling 0.3 CPUs)");
  {
    // A second target's job: two job threads on two CPUs close the gate at once.
    auto other = budget.enter(1);
    EXPECT_FALSE(budget.open());
    EXPECT_EQ(budget.reason(), "2 job threads on 2 CPUs: no CPU left to poll on");
  }
  EXPECT_TRUE(budget.open()) << "the other target's jobs left: " << budget.reason();
  EXPECT_NE(lease.gate(), nullptr);
  EXPECT_EQ(lease.gate(), &*lease.gate());
}

TEST(PollBudget, PollingTimeIsNotCountedAsTheHostsWork) {
  FakeProc proc;
  proc.write(0, 0, 0, 0);
  PollBudget budget(proc.root(), {0, 1}, std::chrono::milliseconds(200), false);
  auto lease = budget.enter(1);
  // Both CPUs busy, but one of them only because the job polled the whole time: 1 CPU of work.
  proc.write(100, 0, 100, 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto wall = std::chrono::steady_clock::now() - t0;
  lease.gate()->spun_ns.fetch_add(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count()));
  budget.look();
  EXPECT_TRUE(budget.open()) << budget.reason();
  EXPECT_NE(budget.reason().find("of 2 CPUs spare"), std::string::npos) << budget.reason();
}

}  // namespace
}  // namespace storqual::runner
