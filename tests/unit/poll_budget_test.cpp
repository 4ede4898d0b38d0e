// SPDX-License-Identifier: Apache-2.0
// The host's poll budget (runner/measure/poll_budget.hpp): the rule on numbers, /proc/stat read
// for the CPUs of the process, the gate over looks at a captured procfs, the job threads of
// several workloads counted together (a real workload: tests/system/poll_budget_run_test.cpp).
#include "runner/measure/poll_budget.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <string>

#include <thread>

#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

TEST(NextPolling, JobsAsManyAsCpusNeverPoll) {
  PollState s;
  s.open = true;
  next_polling(s, 2, 2, 1.5);
  EXPECT_FALSE(s.open);
  EXPECT_EQ(s.reason, "2 job threads on 2 CPUs: no CPU left to poll on");
}

TEST(NextPolling, AWholeIdleCpuWhileTheJobsSleptOpensTheGate) {
  PollState s;
  next_polling(s, 2, 1, std::nullopt);
  EXPECT_FALSE(s.open);
  EXPECT_EQ(s.reason, "1 job thread on 2 CPUs: looking at the host first");
  // One job and the kernel's io-wq workers on a 2-CPU host: 0.4 CPU idle is not a spare core.
  next_polling(s, 2, 1, 0.4);
  EXPECT_FALSE(s.open);
  EXPECT_EQ(
      s.reason,
      "0.4 of 2 CPUs idle while the jobs slept (1 job thread): polling needs a whole idle CPU");
  next_polling(s, 16, 4, 10.8);
  EXPECT_TRUE(s.open);
  EXPECT_EQ(s.reason, "10.8 of 16 CPUs idle while the jobs slept (4 job threads)");
}

TEST(NextPolling, IdleAsLongAsTheJobsSleptOpensTheGate) {
  PollState s;
  next_polling(s, 2, 1, std::nullopt, 0.6);
  EXPECT_FALSE(s.open) << "nothing measured yet";
  // One job on 2 CPUs whose io-wq worker keeps the other CPU busy: the job slept 0.6 of its CPU
  // and 0.5 CPU stayed idle, so nothing else ran in its sleep and polling takes nobody's CPU.
  next_polling(s, 2, 1, 0.5, 0.6);
  EXPECT_TRUE(s.open);
  EXPECT_EQ(s.reason,
            "0.5 of 2 CPUs idle while the jobs slept 0.6 CPUs' worth (1 job thread): polling "
            "takes only the jobs' own sleep");
  ASSERT_TRUE(s.sleep_cpus);
  EXPECT_DOUBLE_EQ(*s.sleep_cpus, 0.6);
  // Half of the jobs' sleep went to other threads: polling would take it from them.
  PollState t;
  next_polling(t, 2, 1, 0.3, 0.6);
  EXPECT_FALSE(t.open);
  EXPECT_EQ(t.reason,
            "0.3 of 2 CPUs idle while the jobs slept 0.6 CPUs' worth (1 job thread): polling "
            "needs a whole idle CPU or the jobs' own sleep idle");
  // Jobs that hardly sleep gain nothing from polling, however idle the host is in their sleep.
  next_polling(t, 2, 1, 0.05, 0.05);
  EXPECT_FALSE(t.open) << t.reason;
  // A whole idle CPU opens it whatever the jobs slept.
  next_polling(t, 4, 1, 1.2, 0.0);
  EXPECT_TRUE(t.open);
  EXPECT_EQ(t.reason, "1.2 of 4 CPUs idle while the jobs slept 0.0 CPUs' worth (1 job thread)");
}

TEST(NextPolling, AnOpenGateClosesForALookEveryTenLooks) {
  PollState s;
  next_polling(s, 16, 4, 10.8);
  ASSERT_TRUE(s.open);
  // While the jobs poll, the host looks busy: what a look sees then decides nothing.
  for (unsigned i = 1; i < kPollProbeEvery; ++i) {
    next_polling(s, 16, 4, 0.0);
    EXPECT_TRUE(s.open) << i;
  }
  next_polling(s, 16, 4, 0.0);
  EXPECT_FALSE(s.open);
  EXPECT_EQ(s.reason,
            "closed for a look at the host (10.8 of 16 CPUs idle when last looked at, 4 job "
            "threads)");
  next_polling(s, 16, 4, 0.5);  // the look: the host is full now
  EXPECT_FALSE(s.open);
  next_polling(s, 16, 4, 3.0);
  EXPECT_TRUE(s.open);
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
  EXPECT_FALSE(budget.open()) << budget.reason();
  EXPECT_EQ(budget.reason(), "1 job thread on 2 CPUs: looking at the host first");
  // 100 ticks per CPU: CPU 0 fully busy, CPU 1 40% busy: 0.6 CPUs idle.
  proc.write(100, 0, 40, 60);
  budget.look();
  EXPECT_FALSE(budget.open());
  EXPECT_NE(budget.reason().find("0.6 of 2 CPUs idle"), std::string::npos) << budget.reason();
  // Then the host quietens: 1.5 CPUs idle.
  proc.write(120, 80, 70, 130);
  budget.look();
  EXPECT_TRUE(budget.open()) << budget.reason();
  EXPECT_EQ(lease.summary(),
            "allowed in 1 of 2 looks at the host (50%); last: open: 1.5 of 2 CPUs idle while the "
            "jobs slept (1 job thread)");
  {
    // A second target's job: two job threads on two CPUs close the gate at once.
    auto other = budget.enter(1);
    EXPECT_FALSE(budget.open());
    EXPECT_EQ(budget.reason(), "2 job threads on 2 CPUs: no CPU left to poll on");
  }
  // The other target's jobs left in the middle of a period: that period says nothing, the next
  // one decides.
  EXPECT_FALSE(budget.open());
  proc.write(140, 160, 90, 210);
  budget.look();
  EXPECT_FALSE(budget.open()) << budget.reason();
  proc.write(160, 240, 110, 290);
  budget.look();
  EXPECT_TRUE(budget.open()) << budget.reason();
  EXPECT_NE(lease.gate(), nullptr);
}

TEST(PollBudget, AWatchedJobThreadsSleepIsMeasuredFromItsCpuClock) {
  FakeProc proc;
  proc.write(0, 0, 0, 0);
  PollBudget budget(proc.root(), {0, 1}, std::chrono::milliseconds(200), false);
  auto lease = budget.enter(1);
  std::promise<void> watching, done;
  std::thread job([&] {
    // A job thread that sleeps in its waits: its CPU clock hardly moves.
    auto watch = lease.watch_this_thread();
    watching.set_value();
    done.get_future().wait();
  });
  watching.get_future().wait();
  budget.look();  // the period in which the thread began to be watched says nothing
  EXPECT_FALSE(budget.open()) << budget.reason();
  // CPU 0 fully busy (the io-wq worker), CPU 1 80% idle while the job slept a whole CPU's worth.
  proc.write(100, 0, 20, 80);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  budget.look();
  EXPECT_TRUE(budget.open()) << budget.reason();
  EXPECT_NE(budget.reason().find("0.8 of 2 CPUs idle while the jobs slept 1.0 CPUs' worth"),
            std::string::npos)
      << budget.reason();
  done.set_value();
  job.join();
  // Its watch ended with it: the job's sleep is not known for the next period, and 0.8 idle CPU
  // alone is not a spare one.
  budget.look();  // the period in which its watch ended says nothing
  EXPECT_FALSE(budget.open()) << budget.reason();
  proc.write(200, 0, 40, 160);
  budget.look();
  EXPECT_FALSE(budget.open()) << budget.reason();
  EXPECT_EQ(budget.reason().find("CPUs' worth"), std::string::npos) << budget.reason();
}

}  // namespace
}  // namespace storqual::runner
