// SPDX-License-Identifier: Apache-2.0
// The console lines of a run and of a fleet (reporting/run_console.hpp): the exact bytes the
// system tests and users read, including printf's padding of the fleet table.
#include "reporting/run_console.hpp"

#include <gtest/gtest.h>

#include <string>

namespace storqual::reporting {
namespace {

TEST(RunConsole, HeaderNamesTargetDeviceSheetAndSuite) {
  RunHeader h;
  h.target = "/dev/nvme0n1";
  h.vendor = "ACME";
  h.model = "X1";
  h.transport = "nvme";
  h.sheet = "ACME X1 datasheet";
  h.sheet_why = "its <match> fits";
  h.suite = "client";
  h.workloads = 3;
  EXPECT_EQ(format_run_header(h),
            "storqual run: /dev/nvme0n1, ACME X1 (nvme)\n"
            "  spec sheet: ACME X1 datasheet (its <match> fits)\n"
            "  suite: client, 3 workloads\n");
}

TEST(RunConsole, HeaderWithoutVendorModelOrSheetHasNoDoubleSpace) {
  RunHeader h;
  h.target = "scratch.img";
  h.transport = "file";
  h.sheet_why = "--measure-only";
  h.suite = "quick";
  h.workloads = 1;
  EXPECT_EQ(format_run_header(h),
            "storqual run: scratch.img, (file)\n"
            "  spec sheet: none (--measure-only)\n"
            "  suite: quick, 1 workload\n");
  h.vendor = "ACME";
  EXPECT_EQ(format_run_header(h).substr(0, 35), "storqual run: scratch.img, ACME (fi");
  h.vendor.clear();
  h.model = "X1";
  EXPECT_EQ(format_run_header(h).substr(0, 33), "storqual run: scratch.img, X1 (fi");
}

TEST(RunConsole, WorkloadLines) {
  EXPECT_EQ(format_workload_skipped("seq-1m", "bs 1m is not a multiple of 4096"),
            "  seq-1m: skipped: bs 1m is not a multiple of 4096\n");
  EXPECT_EQ(format_workload_error("rand-4k", "open: Read-only file system"),
            "  rand-4k: error: open: Read-only file system\n");
  EXPECT_EQ(format_workload_errors("w", {"a", "b"}), "  w: error: a\n  w: error: b\n");
  EXPECT_EQ(format_workload_errors("w", {}), "");
  EXPECT_EQ(format_device_gone("No such device (ENODEV)", 2),
            "  device gone: No such device (ENODEV); 2 workloads not run\n");
  EXPECT_EQ(format_device_gone("x no longer exists", 1),
            "  device gone: x no longer exists; 1 workload not run\n");
}

TEST(RunConsole, DeviationsStrictAndReports) {
  std::vector<Deviation> d(2);
  d[0].text = "runtimes scaled by 0.05 (--runtime-scale 0.05)";
  d[1].text = "engine psync instead of io_uring";
  EXPECT_EQ(format_deviation_lines(d),
            "  deviation: runtimes scaled by 0.05 (--runtime-scale 0.05)\n"
            "  deviation: engine psync instead of io_uring\n");
  EXPECT_EQ(format_deviation_lines({}), "");
  EXPECT_EQ(format_strict_incomplete(true, 0),
            "  --strict: no claim was judged: incomplete (exit 3)\n");
  EXPECT_EQ(format_strict_incomplete(false, 1), "  --strict: 1 deviation: incomplete (exit 3)\n");
  EXPECT_EQ(format_strict_incomplete(false, 2), "  --strict: 2 deviations: incomplete (exit 3)\n");
  ReportSet r{"out/r.json", "out/r.xml", "out/r.html", false, ""};
  EXPECT_EQ(format_reports_line(r), "reports: out/r.xml out/r.json out/r.html\n");
}

TEST(RunConsole, FleetBannersAndResult) {
  EXPECT_EQ(format_baseline_line("matches model X1"), "  baseline: matches model X1\n");
  EXPECT_EQ(format_target_error("/dev/sdz", "no such file"),
            "storqual run: /dev/sdz: no such file\n");
  EXPECT_EQ(format_fleet_parallel_start(3),
            "storqual run: 3 targets in parallel (output of each when it ends)\n");
  EXPECT_EQ(format_fleet_target_output("/dev/sdb", "sdb", "line 1\nline 2\n"),
            "==== /dev/sdb (sdb) ====\nline 1\nline 2\n");
  EXPECT_EQ(format_fleet_target_start(2, 3, "/dev/sdb", "sdb"), "==== [2/3] /dev/sdb (sdb) ====\n");
  ReportSet merged{"m.json", "m.xml", "m.html", false, ""};
  EXPECT_EQ(format_merged_reports(3, 1, merged),
            "merged reports (3 devices, 1 lot outliers): m.xml m.json m.html\n");
  EXPECT_EQ(format_fleet_result("FAIL", 1, 3, 1),
            "RESULT: FAIL, exit 1 (3 targets, 1 lot outlier)\n");
  EXPECT_EQ(format_fleet_result("PASS", 0, 1, 0),
            "RESULT: PASS, exit 0 (1 target, 0 lot outliers)\n");
}

// A column of the fleet table: `s` left-aligned in `width`, then the separating space.
std::string column(const std::string& s, std::size_t width) {
  return s + std::string(s.size() < width ? width - s.size() : 0, ' ') + " ";
}

TEST(RunConsole, FleetTableIsPaddedAsPrintfPadsIt) {
  EXPECT_EQ(format_fleet_table_header(), "\n" + column("#", 3) + column("target", 22) +
                                             column("model", 24) + column("serial", 20) +
                                             column("verdict", 9) + column("exit", 5) +
                                             "counts or error\n");
  RunResult run;
  run.device.identity = {{"model", "X1", "udev"}, {"serial", "S1", "udev"}};
  ClaimVerdict pass, fail;
  pass.status = VerdictStatus::Pass;
  fail.status = VerdictStatus::Fail;
  run.verdicts = {pass, pass, fail};
  EXPECT_EQ(format_fleet_row(1, "/dev/sdb", run, 1, 1, "out/sdb.json"),
            column("1", 3) + column("/dev/sdb", 22) + column("X1", 24) + column("S1", 20) +
                column("FAIL", 9) + column("1", 5) +
                "2 pass, 1 fail (1 lot), 0 error, 0 skipped -> out/sdb.json\n");
  EXPECT_EQ(format_fleet_row(12, "/dev/sdc", run, 0, 1, "c.json"),
            column("12", 3) + column("/dev/sdc", 22) + column("X1", 24) + column("S1", 20) +
                column("FAIL", 9) + column("1", 5) +
                "2 pass, 1 fail, 0 error, 0 skipped -> c.json\n");
  EXPECT_EQ(format_fleet_not_run_row(2, "/dev/sdz", 2, "no such file"),
            column("2", 3) + column("/dev/sdz", 22) + column("-", 24) + column("-", 20) +
                column("NOT RUN", 9) + column("2", 5) + "no such file\n");
}

TEST(RunConsole, FleetRowCountsStopAt159Characters) {
  RunResult run;
  const std::string path(300, 'p');
  const std::string row = format_fleet_row(1, "t", run, 0, 0, path);
  const std::string counts = "0 pass, 0 fail, 0 error, 0 skipped -> ";
  const std::size_t start = row.find(counts);
  ASSERT_NE(start, std::string::npos);
  EXPECT_EQ(row.size() - start, 159u + 1u);  // the counts, cut, and '\n'
  EXPECT_EQ(row.back(), '\n');
}

}  // namespace
}  // namespace storqual::reporting
