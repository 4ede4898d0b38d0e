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
  void set(unsigned procs_running, std::uint64_t busy_ticks, std::uint64_t steal_ticks,
           std::uint64_t pressure_us, std::initializer_list<char> own_states) {
    std::ofstream(root_ / "stat") << "cpu  " << busy_ticks << " 0 0 1000 0 0 0 " << steal_ticks
                                  << " 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2 3\nctxt 99\n"
                                  << "procs_running " << procs_running << "\nprocs_blocked 0\n";
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
  EXPECT_TRUE(s.has_pressure);
  EXPECT_EQ(s.pressure_some_us, 123456u);
  EXPECT_FALSE(read_host_load(proc.path() + "/missing").ok);
}

TEST(HostLoad, TrackerJudgesOtherRunnableStealAndPressure) {
  FakeProc proc;
  HostLoadTracker busy(proc.path(), 2);
  // Two other runnable tasks beside our one running thread; 60% steal; pressure half the time.
  proc.set(3, 0, 0, 0, {'R', 'S'});
  busy.sample(0);
  proc.set(3, 400, 600, 500000, {'R', 'S'});
  busy.sample(1'000'000'000);
  const auto r = busy.report();
  EXPECT_TRUE(r.busy);
  EXPECT_EQ(r.samples, 2u);
  EXPECT_DOUBLE_EQ(r.other_runnable, 2);
  EXPECT_NEAR(r.steal_pct, 60, 1e-9);  // 600 of the 1000 ticks between the samples
  EXPECT_NEAR(r.cpu_pressure_pct, 50, 1e-9);
  ASSERT_EQ(r.reasons.size(), 3u);
  EXPECT_EQ(r.reasons[0], "2.0 runnable tasks of other processes on average for 2 CPUs");
  EXPECT_NE(host_busy_reason(r).find("steal time 60%"), std::string::npos);

  HostLoadTracker idle(proc.path(), 2);
  proc.set(2, 0, 0, 0, {'R', 'R'});  // everything runnable is ours
  idle.sample(0);
  proc.set(2, 1000, 0, 1000, {'R', 'R'});
  idle.sample(1'000'000'000);
  const auto q = idle.report();
  EXPECT_FALSE(q.busy);
  EXPECT_DOUBLE_EQ(q.other_runnable, 0);
  EXPECT_TRUE(q.reasons.empty());
  EXPECT_EQ(host_busy_reason(q), "");
}

TEST(HostLoad, ThresholdsAsDocumented) {
  // kBusyOtherRunnablePerCpu 0.5 per CPU: 4 CPUs need 2 other runnable tasks on average.
  EXPECT_FALSE(assess_host_busy(1.9, 0, 90, 4, 10).busy);
  EXPECT_TRUE(assess_host_busy(2.0, 0, 0, 4, 10).busy);
  EXPECT_TRUE(assess_host_busy(0, kBusyStealPct, 0, 4, 10).busy);
  EXPECT_FALSE(assess_host_busy(0, kBusyStealPct - 0.1, 0, 4, 10).busy);
  // Pressure alone (our own threads waiting for each other) is not a busy host.
  EXPECT_FALSE(assess_host_busy(0, 0, 100, 1, 10).busy);
  EXPECT_FALSE(assess_host_busy(5, 50, 100, 1, 0).busy);  // no samples: nothing to say
}

}  // namespace
}  // namespace storqual::runner
