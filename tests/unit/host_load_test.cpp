// SPDX-License-Identifier: Apache-2.0
// Busy-host sampling on captured procfs trees, and the judgement on its figures.
#include "runner/measure/host_load.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;

class FakeProc {
 public:
  FakeProc() {
    root_ = fs::temp_directory_path() /
            ("storqual-proc-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(root_ / "pressure");
    fs::create_directories(root_ / "self" / "task");
  }
  ~FakeProc() { fs::remove_all(root_); }
  // busy_ticks is the host's user time (the cpu line's first field), own_user this process's.
  void set(unsigned procs_running, std::uint64_t busy_ticks, std::uint64_t steal_ticks,
           std::uint64_t pressure_us, std::initializer_list<char> own_states,
           std::uint64_t own_user = 0) {
    std::ofstream(root_ / "stat") << "cpu  " << busy_ticks << " 0 0 1000 0 0 0 " << steal_ticks
                                  << " 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\nctxt 99\n"
                                  << "procs_running " << procs_running << "\nprocs_blocked 0\n";
    // The process's own stat line: utime is the 14th field.
    std::ofstream(root_ / "self" / "stat")
        << "4242 (storqual (job) 1) R 1 1 1 0 -1 4194560 100 0 0 0 " << own_user << " 7 0 0\n";
    std::ofstream(root_ / "pressure" / "cpu")
        << "some avg10=0.00 avg60=0.00 avg300=0.00 total=" << pressure_us << "\n"
        << "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
    fs::remove_all(root_ / "self" / "task");
    int tid = 100;
    for (char st : own_states) {
      fs::create_directories(root_ / "self" / "task" / std::to_string(tid));
      // A command name with a space and a parenthesis, as a thread may have.
      std::ofstream(root_ / "self" / "task" / std::to_string(tid) / "stat")
          << tid << " (storqual (job) 1) " << st << " 1 1 1 0 -1\n";
      ++tid;
    }
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
  static inline int counter_ = 0;
};

TEST(HostLoad, ReadsProcStatPressureAndOwnThreads) {
  FakeProc proc;
  proc.set(5, 700, 40, 123456, {'R', 'S', 'R'});
  const auto s = read_host_load(proc.path());
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.procs_running, 5u);
  EXPECT_EQ(s.own_running, 2u);
  EXPECT_EQ(s.cpu_total, 700u + 1000u + 40u);
  EXPECT_EQ(s.cpu_steal, 40u);
  EXPECT_EQ(s.cpu_user, 700u);
  EXPECT_TRUE(s.has_own_user);
  EXPECT_EQ(s.own_user, 0u);
  EXPECT_TRUE(s.has_pressure);
  EXPECT_EQ(s.pressure_some_us, 123456u);
  EXPECT_FALSE(read_host_load(proc.path() + "/missing").ok);
}

TEST(HostLoad, TrackerJudgesOtherUserTimeStealAndPressure) {
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto ticks = [&](double cpu_seconds) {
    return static_cast<std::uint64_t>(cpu_seconds * hz + 0.5);
  };
  FakeProc proc;
  // A tracker on 2 CPUs over one second: `running` runnable tasks (ours among them: R and S),
  // `user_s` CPU-seconds of the host's user time of which `own_s` ours, `steal` ticks of steal,
  // `pressure_us` of CPU pressure.
  const auto over_one_second = [&](unsigned running, double user_s, std::uint64_t steal,
                                   std::uint64_t pressure_us, double own_s) {
    HostLoadTracker tracker(proc.path(), 2);
    proc.set(running, 0, 0, 0, {'R', 'S'}, 0);
    tracker.sample(0);
    proc.set(running, ticks(user_s), steal, pressure_us, {'R', 'S'}, ticks(own_s));
    tracker.sample(1'000'000'000);
    return tracker.report();
  };
  // Over one second the host ran 1.5 CPU-seconds of user time, 0.3 of them ours: others 1.2 of
  // 2 CPUs. 60% steal; pressure half the time; two other runnable tasks (a figure only).
  const auto r = over_one_second(3, 1.5, 600, 500000, 0.3);
  EXPECT_TRUE(r.busy);
  EXPECT_EQ(r.samples, 2u);
  EXPECT_NEAR(r.other_user_cpus, 1.2, 1e-9);
  EXPECT_DOUBLE_EQ(r.other_runnable, 2);
  EXPECT_NEAR(r.cpu_pressure_pct, 50, 1e-9);
  ASSERT_EQ(r.reasons.size(), 3u);
  EXPECT_EQ(r.reasons[0], "other processes used 1.20 of 2 CPUs (user time, on average)");
  EXPECT_NE(host_busy_reason(r).find("steal time"), std::string::npos);

  // The same user time, all of it ours (4 job threads in user space): not busy, however many
  // tasks procfs happened to show runnable.
  const auto q = over_one_second(9, 1.5, 0, 1000, 1.5);
  EXPECT_FALSE(q.busy) << host_busy_reason(q);
  EXPECT_NEAR(q.other_user_cpus, 0, 1e-9);
  EXPECT_DOUBLE_EQ(q.other_runnable, 8);
  EXPECT_TRUE(q.reasons.empty());
  EXPECT_EQ(host_busy_reason(q), "");
}

TEST(HostLoad, ThresholdsAsDocumented) {
  // kBusyOtherUserCpuPerCpu 0.25 per CPU: on 4 CPUs others need a whole CPU of user time.
  EXPECT_FALSE(assess_host_busy(0.99, 8, 0, 90, 4, 10).busy);
  EXPECT_TRUE(assess_host_busy(1.0, 0, 0, 0, 4, 10).busy);
  EXPECT_TRUE(assess_host_busy(0, 0, kBusyStealPct, 0, 4, 10).busy);
  EXPECT_FALSE(assess_host_busy(0, 0, kBusyStealPct - 0.1, 0, 4, 10).busy);
  // Pressure alone (our own threads waiting for each other) is not a busy host, nor are
  // runnable tasks alone.
  EXPECT_FALSE(assess_host_busy(0, 0, 0, 100, 1, 10).busy);
  EXPECT_FALSE(assess_host_busy(0, 5, 0, 0, 1, 10).busy);
  EXPECT_FALSE(assess_host_busy(5, 5, 50, 100, 1, 0).busy);  // no samples: nothing to say
}

TEST(HostLoad, PassesOfOneWorkloadAreJudgedTogether) {
  // Three idle passes of 100 samples and one busy one of 50 (a competitor used 1.6 of 2 CPUs).
  const auto idle = assess_host_busy(0.05, 0.1, 1, 3, 2, 100);
  const auto loaded = assess_host_busy(1.6, 2, 1, 60, 2, 50);
  ASSERT_FALSE(idle.busy);
  ASSERT_TRUE(loaded.busy);
  EXPECT_FALSE(merge_host_busy({}));
  EXPECT_FALSE(merge_host_busy({idle})->busy);
  auto m = merge_host_busy({idle, idle, loaded, idle});
  ASSERT_TRUE(m);
  // The sample-weighted mean, (3 x 100 x 0.05 + 50 x 1.6) / 350 = 0.27 CPUs: below the 0.5 of
  // 2 CPUs on average, yet one pass was busy, and a figure may be that pass's.
  EXPECT_NEAR(m->other_user_cpus, (300 * 0.05 + 50 * 1.6) / 350, 1e-9);
  EXPECT_EQ(m->samples, 350u);
  EXPECT_TRUE(m->busy);
  ASSERT_EQ(m->reasons.size(), 1u);
  EXPECT_EQ(m->reasons[0].rfind("in 1 of 4 passes: other processes used 1.60 of 2 CPUs", 0), 0u)
      << m->reasons[0];
  // Busy on average too: the average's reasons, and how many passes were busy.
  m = merge_host_busy({loaded, loaded, idle});
  ASSERT_TRUE(m && m->busy);
  EXPECT_EQ(m->reasons.back(), "busy in 2 of 3 passes");
  EXPECT_FALSE(merge_host_busy({idle, idle})->busy);
}

}  // namespace
}  // namespace storqual::runner
