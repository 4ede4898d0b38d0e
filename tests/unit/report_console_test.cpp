// SPDX-License-Identifier: Apache-2.0
// Console output: fio's number spelling and layout, the verdict table, the live progress line.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>

#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fio_summary.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

TEST(ReportConsole, NumbersAreSpelledAsFioSpellsThem) {
  EXPECT_EQ(fio_num2str(97000), "97.0k");
  EXPECT_EQ(fio_num2str(1234), "1234");
  EXPECT_EQ(fio_num2str(12345), "12.3k");
  EXPECT_EQ(fio_num2str(123456), "123k");
  EXPECT_EQ(fio_num2str(1205000), "1205k");
  EXPECT_EQ(fio_num2str(99960), "99.9k");  // truncated like fio, never "100.0k"
  EXPECT_EQ(fio_num2str(379.0 * 1048576, 4, 1024), "379Mi");
  EXPECT_EQ(fio_num2str(397e6, 4, 1000), "397M");
  EXPECT_EQ(fio_num2str(2560.0 * 1048576, 4, 1024), "2560Mi");
  EXPECT_EQ(fio_num2str(-1), "-");
  EXPECT_EQ(format_iops(97000), "97.0k IOPS");
  EXPECT_EQ(format_rate_mb(540e6), "540.0 MB/s");
  EXPECT_EQ(format_rate_mib(540e6), "515.0 MiB/s");
  EXPECT_EQ(format_latency(850), "850 ns");
  EXPECT_EQ(format_latency(95400), "95.4 us");
  EXPECT_EQ(format_latency(1234567), "1.23 ms");
  EXPECT_EQ(format_metric_value(250e3, "ns"), "250.0 us");
  EXPECT_EQ(format_metric_value(8388608, "B"), "8.39 MB");  // capacities: decimal, as on labels
  EXPECT_EQ(format_metric_value(64e9, "B"), "64 GB");
  EXPECT_EQ(format_metric_value(512, "B"), "512 B");
  EXPECT_EQ(format_percent_signed(-8.54), "-8.5%");
  EXPECT_EQ(format_seconds_fixed(60), "60.000");
  EXPECT_EQ(format_seconds_fixed(1e7), "10000000.000");  // fixed, never 1e+07
}

// The one fixed-decimals formatter (the early-stop and busy-host reasons print with it too): what
// printf's "%.*f" prints, at any length.
TEST(ReportConsole, FixedDecimalsArePrintfsFixed) {
  EXPECT_EQ(format_fixed(2.5, 1), "2.5");
  EXPECT_EQ(format_fixed(0.456, 2), "0.46");
  EXPECT_EQ(format_fixed(59.6, 0), "60");
  EXPECT_EQ(format_fixed(95, 0), "95");
  EXPECT_EQ(format_fixed(1.0 / 3, 2), "0.33");
  EXPECT_EQ(format_fixed(-0.04, 1), "-0.0");
  EXPECT_EQ(format_fixed(1e7, 3), "10000000.000");
  EXPECT_EQ(format_fixed(1e300, 0).size(), 301u);  // no buffer to cut it short
  EXPECT_EQ(format_fixed(std::numeric_limits<double>::infinity(), 1), "inf");
  EXPECT_EQ(format_percent_signed(0.0), "+0.0%");
  EXPECT_EQ(format_percent_signed(-0.04), "-0.0%");
  EXPECT_EQ(format_percent_signed(12.34), "+12.3%");
  EXPECT_EQ(format_bytes_iec(512), "512 B");
  EXPECT_EQ(format_bytes_iec(1536), "1.5 KiB");
  EXPECT_EQ(format_metric_value(12.34, "%"), "12.3%");
}

TEST(ReportConsole, FioSummaryHasFiosLayout) {
  const auto run = sample::run(false);
  const std::string text = format_fio_summary(run.workloads[0]);
  EXPECT_NE(text.find("randread-4k-qd32: (jobs=1): err= 0: rw=randread, bs=4k, iodepth=32"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  read: IOPS=98.4k, BW=384MiB/s (403MB/s)(22.5GiB/60000msec)\n"),
            std::string::npos)
      << text;
  // 108.5 us .. 12.4 ms with stdev 124 us: fio switches to usec.
  EXPECT_NE(text.find("    clat (usec): min=108, max=12400, avg=334.80, stdev=124.00\n"),
            std::string::npos)
      << text;
  // slat min 630 ns stays in nsec.
  EXPECT_NE(text.find("    slat (nsec): min=630, max=72000"), std::string::npos) << text;
  EXPECT_NE(text.find("    clat percentiles (usec):\n     |  1.00th=[  109],  5.00th=[  148],"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     | 99.99th=[ 1653]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  cpu          : usr=9.50%, sys=31.20%"), std::string::npos) << text;
  EXPECT_EQ(text.find("write:"), std::string::npos) << "a read-only workload has no write lines";

  const std::string seq = format_fio_summary(run.workloads[3]);
  EXPECT_NE(seq.find("  write: IOPS=481, BW=481MiB/s (504MB/s)"), std::string::npos) << seq;
  EXPECT_NE(seq.find("    clat (msec): min=27,"), std::string::npos) << seq;
  EXPECT_NE(seq.find("    clat percentiles (msec):"), std::string::npos) << seq;

  const std::string mixed = format_fio_summary(run.workloads[4]);
  EXPECT_LT(mixed.find("  read: IOPS=31.0k"), mixed.find("  write: IOPS=13.3k")) << mixed;
}

// Every figure says what it is: per direction and summed over the jobs, latencies per I/O, the
// interval of the bw/iops rows, the offsets' pattern, read+write for a mixed workload; cpu is
// fio's per-job average (the sum over 4 jobs is 4x as much); fio's IO depths and Disk stats lines.
TEST(ReportConsole, FioSummaryLabelsEveryFigure) {
  auto run = sample::run(false);
  WorkloadResult mixed = run.workloads[4];
  mixed.params.numjobs = 4;
  mixed.cpu.usr_pct = 80.0;
  mixed.cpu.sys_pct = 240.0;
  mixed.cpu.max_thread_pct = 90.0;
  mixed.io_depths.submitted = {1, 1, 2, 4, 8, 16, 968};
  mixed.disk_stats = DiskStats{"zram0", 1860000, 798000, 0, 0, 1200, 900, 2100, 59800, 99.67};
  const std::string text = format_fio_summary(mixed);
  EXPECT_NE(text.find("  # IOPS, BW: per direction, sum over the 4 jobs, mean over the measured "
                      "60000 ms; slat/clat/lat: per I/O, over every I/O of the 4 jobs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bw/iops rows: that direction's sum over the 4 jobs per 1 s interval"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("offsets: random map (each block once per pass)"), std::string::npos);
  EXPECT_NE(text.find("  read+write: IOPS=44.3k, "), std::string::npos) << text;
  EXPECT_NE(text.find("(sum of both directions over 4 jobs)"), std::string::npos) << text;
  EXPECT_NE(text.find("  cpu          : usr=20.00%, sys=60.00% (per-job average); all 4 together: "
                      "usr=80.0%, sys=240.0% of one CPU"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  IO depths    : 1=0.1%, 2=0.1%, 4=0.2%, 8=0.4%, 16=0.8%, 32=1.6%, "
                      ">=64=96.8%\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     issued rwts: total=1860000,798000,0,0"), std::string::npos) << text;
  EXPECT_NE(text.find("Disk stats (read/write):\n  zram0: ios=1860000/798000, merge=0/0, "
                      "ticks=1200/900, in_queue=2100, util=99.67%\n"),
            std::string::npos)
      << text;
  mixed.params.randommap = false;
  EXPECT_NE(format_fio_summary(mixed).find("offsets: norandommap (drawn with replacement)"),
            std::string::npos);
}

TEST(ReportConsole, VerdictTableNamesWhatEachMeasuredFigureIs) {
  auto run = sample::run(false);
  run.verdicts[0].figure = "read IOPS, sum over 1 job, mean over 60 s";
  const std::string table = format_verdict_table(run);
  EXPECT_NE(table.find("measured figures:\n  randread-4k-qd32 iops: read IOPS, sum over 1 job, "
                       "mean over 60 s\n"),
            std::string::npos)
      << table;
}

TEST(ReportConsole, VerdictTableCarriesEveryClaimAndTheOutcome) {
  const std::string table = format_verdict_table(sample::run(true));
  EXPECT_NE(table.find("randwrite-4k-qd32  iops     88k IOPS  72.3k IOPS  -17.8%  10.0%  FAIL"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("randread-4k-qd1    lat.p99    250 us"), std::string::npos) << table;
  EXPECT_NE(table.find("SKIPPED"), std::string::npos);
  EXPECT_NE(
      table.find("RESULT: INCOMPLETE (3 pass, 1 fail, 0 error, 1 skipped, 0 measured-only)\n"),
      std::string::npos)
      << table;
  EXPECT_NE(format_verdict_table(sample::run(false)).find("RESULT: PASS (4 pass"),
            std::string::npos);
  RunResult none = sample::run(false);
  none.verdicts.clear();
  EXPECT_NE(format_verdict_table(none).find("RESULT: MEASURED"), std::string::npos);
  RunResult hostile = sample::run(false);
  hostile.verdicts[0].workloads = {"evil\r\x1b[2Jname\n"};
  const std::string t = format_verdict_table(hostile);
  EXPECT_EQ(t.find('\x1b'), std::string::npos);
  EXPECT_EQ(t.find('\r'), std::string::npos);
}

std::string capture(bool terminal, const std::function<void(LiveProgress&)>& body) {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  {
    LiveProgress p(f, terminal, 5.0);
    body(p);
  }
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

TEST(ReportConsole, LiveProgressRewritesOneLineOnATerminal) {
  const std::string out = capture(true, [](LiveProgress& p) {
    p.start_workload(2, 4, "randwrite-4k-qd32", 65);
    p.update(1, 88000, 360e6);
    p.update(2, 9000, 36e6);
    p.finish_workload(65, 90100, 369e6);
  });
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line, ended once: " << out;
  EXPECT_NE(out.find("\r[2/4] randwrite-4k-qd32  00:01 ETA 01:04  88.0k IOPS  360.0 MB/s"),
            std::string::npos)
      << out;
  // The shorter second line is padded so no stale characters remain.
  const auto second = out.find("\r[2/4] randwrite-4k-qd32  00:02");
  const auto third = out.find('\r', second + 1);
  ASSERT_NE(third, std::string::npos);
  const auto first_len = out.find('\r', 1) - 1;
  EXPECT_GE(third - second - 1, first_len);
  EXPECT_NE(out.find("done (read+write, all jobs)\n"), std::string::npos);
}

TEST(ReportConsole, LiveProgressPrintsPlainLinesEveryFewSecondsElsewhere) {
  const std::string out = capture(false, [](LiveProgress& p) {
    p.start_workload(1, 3, "seqread-1m-qd32", 0);
    for (int s = 1; s <= 12; ++s) p.update(s, 523, 548e6);
    p.finish_workload(12, 523, 548e6);
  });
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out,
            "[1/3] seqread-1m-qd32  00:05  523 IOPS  548.0 MB/s\n"
            "[1/3] seqread-1m-qd32  00:10  523 IOPS  548.0 MB/s\n"
            "[1/3] seqread-1m-qd32  00:12  523 IOPS  548.0 MB/s  done (read+write, all jobs)\n");
}

// A workload that knows its bytes (a surface scan, resumed with a quarter already done): the share
// done of all of them and an ETA from the mean rate since this session began.
TEST(ReportConsole, LiveProgressWithTotalBytesShowsShareDoneAndEta) {
  const std::string out = capture(false, [](LiveProgress& p) {
    p.start_workload(1, 1, "surface-scan", 0);
    const std::uint64_t total = 1000e6, before = 250e6;
    p.update_totals(0.25, 0, before, true, total);
    for (int q = 2; q <= 20; ++q)  // 100 MB/s from 0.25 s on
      p.update_totals(q * 0.25, q, before + static_cast<std::uint64_t>((q - 1) * 25e6), true,
                      total);
    p.finish_workload(5, 4, 100e6);
  });
  // At 5 s: 250 + 475 MB of 1000 done (72.5%); 275 MB left at 100 MB/s: 2.75 s, rounded.
  EXPECT_NE(out.find("[1/1] surface-scan  00:05 72.5% ETA 00:03"), std::string::npos) << out;
  EXPECT_NE(out.find("[1/1] surface-scan  00:05  4 IOPS  100.0 MB/s  done"), std::string::npos)
      << out;
}

// Log mode from running totals: each printed line is the mean rate since the line before it, so
// a burst or a stall in the last quarter second before a line cannot make an impossible rate,
// and the ramp says "ramp" rather than 0 IOPS.
TEST(ReportConsole, LiveProgressFromTotalsShowsTheMeanSinceTheLastLine) {
  const std::string out = capture(false, [](LiveProgress& p) {
    p.start_workload(1, 1, "randrw70-4k", 0);
    std::uint64_t ios = 0;
    for (int q = 1; q < 20; ++q) p.update_totals(q * 0.25, 0, 0, false);  // ramp: 5 s
    p.update_totals(5.0, 0, 0, true);
    for (int q = 21; q <= 40; ++q) {  // 5..10 s at 56k IOPS, lumpy: all of it in odd quarters
      ios += q % 2 ? 28000 : 0;
      p.update_totals(q * 0.25, ios, ios * 4096, true);
    }
  });
  EXPECT_EQ(out,
            "[1/1] randrw70-4k  00:05  ramp\n"
            "[1/1] randrw70-4k  00:10  56.0k IOPS  229.4 MB/s\n")
      << out;
}

}  // namespace
}  // namespace storqual::reporting

namespace storqual::reporting {
namespace {

// The outcome word: a skipped claim is incomplete (it outranks a failed one), --strict makes a pass
// with deviations incomplete, and the headline counts the deviations; each is listed under RESULT.
TEST(ReportConsole, OutcomeCountsDeviationsAndASkippedClaimIsIncomplete) {
  RunResult r = sample::run(false);
  EXPECT_STREQ(count_verdicts(r).overall(), "PASS");
  r.deviations.push_back({"runtime", "runtimes scaled by 0.05 (--runtime-scale 0.05)", {}});
  r.deviations.push_back({"busy-host", "host busy during randread-4k-qd32", {"randread-4k-qd32"}});
  EXPECT_STREQ(count_verdicts(r).overall(), "PASS");
  EXPECT_EQ(count_verdicts(r).headline(), "PASS with 2 deviations");
  const std::string table = format_verdict_table(r);
  EXPECT_NE(table.find("RESULT: PASS with 2 deviations (4 pass"), std::string::npos) << table;
  EXPECT_NE(table.find("\ndeviation: runtimes scaled by 0.05 (--runtime-scale 0.05)\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\ndeviation: host busy during randread-4k-qd32 [randread-4k-qd32]\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(deviations_of(r, "randread-4k-qd32").size(), 2u);
  EXPECT_EQ(deviations_of(r, "seqread-1m-qd32").size(), 1u);
  r.strict = true;
  EXPECT_STREQ(count_verdicts(r).overall(), "INCOMPLETE");

  RunResult skipped = sample::run(true);  // one claim on a workload the suite lacks: skipped
  EXPECT_STREQ(count_verdicts(skipped).overall(), "INCOMPLETE");
  RunResult none = sample::run(false);
  none.verdicts.clear();
  none.measure_only = true;
  EXPECT_EQ(count_verdicts(none).headline(), "MEASURED ONLY");
  EXPECT_NE(format_verdict_table(none).find("measured only: no spec sheet judged this run"),
            std::string::npos);
}

}  // namespace
}  // namespace storqual::reporting
