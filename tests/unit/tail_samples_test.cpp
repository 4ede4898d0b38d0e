// SPDX-License-Identifier: Apache-2.0
// Tail latency that knows its sample count (runner/measure/tail_samples.hpp): the rule, the
// reported list, a p99.9999 claim on 10^5 I/Os inconclusive with the count and runtime it needs,
// and the same claim judged once the null engine has done 10^7 I/Os; JUnit, console and HTML say
// which.
#include "runner/measure/tail_samples.hpp"

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "reporting/console_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "runner/cli/cli.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

using reporting::VerdictStatus;

TEST(TailSamples, TenSamplesBeyondThePercentile) {
  EXPECT_EQ(samples_needed(50), 20u);
  EXPECT_EQ(samples_needed(99), 1000u);
  EXPECT_EQ(samples_needed(99.9), 10'000u);
  EXPECT_EQ(samples_needed(99.99), 100'000u);
  EXPECT_EQ(samples_needed(99.999), 1'000'000u);
  EXPECT_EQ(samples_needed(99.9999), 10'000'000u);
  EXPECT_FALSE(percentile_supported(99.9999, 9'999'999));
  EXPECT_TRUE(percentile_supported(99.9999, 10'000'000));
}

TEST(TailSamples, TheReportedListGrowsToSixNinesWithTheSamples) {
  EXPECT_EQ(reported_percentiles(100'000).size(), kFioPercentiles.size());
  auto five = reported_percentiles(1'000'000);
  ASSERT_EQ(five.size(), kFioPercentiles.size() + 1);
  EXPECT_DOUBLE_EQ(five.back(), 99.999);
  auto six = reported_percentiles(10'000'000);
  ASSERT_EQ(six.size(), kFioPercentiles.size() + 2);
  EXPECT_DOUBLE_EQ(six.back(), 99.9999);
}

TEST(TailSamples, ShortfallNamesTheCountAndTheRuntime) {
  EXPECT_EQ(describe_shortfall(99.9999, 100'000, 50'000),
            "p99.9999 needs 10000000 I/Os (10 beyond it), 100000 measured; at the measured 50000 "
            "IOPS that is a runtime of 3.33 min");
}

const Suite& tail_suite() {
  static const Suite s = Suite::parse(R"(<suite name="tail">
    <workload id="read-4k" rw="read" bs="4k" iodepth="8" size="400m"/>
  </suite>)",
                                      "tail.xml");
  return s;
}

SpecSheet tail_sheet() {
  return SpecSheet::parse(R"(<spec-sheet name="tail" suite="tail"><match model="*"/><claims>
    <claim workload="read-4k" metric="lat.p99.9999" value="1s"/>
  </claims></spec-sheet>)",
                          "tail-sheet.xml");
}

// A sequential read of `ios` 4 KiB blocks on the null engine (no device, exact count).
reporting::WorkloadResult null_reads(std::uint64_t ios) {
  WorkloadSpec w;
  w.id = "read-4k";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "read";
  w.params.bs = 4096;
  w.params.iodepth = 8;
  w.params.size = 4096 * ios;
  return run_workload(w);
}

reporting::RunResult run_of(const reporting::WorkloadResult& r,
                            std::vector<reporting::ClaimVerdict> verdicts) {
  reporting::RunResult run;
  run.device.name = "null";
  run.workloads.push_back(r);
  run.verdicts = std::move(verdicts);
  run.exit_code = exit_code_for(run.verdicts);
  return run;
}

TEST(TailSamples, SixNinesOnOneHundredThousandIosIsInconclusive) {
  const auto r = null_reads(100'000);
  ASSERT_EQ(r.read->lat.samples, 100'000u);
  auto v = judge(tail_sheet(), tail_suite(), {r});
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].status, VerdictStatus::Inconclusive) << v[0].message;
  EXPECT_NE(v[0].message.find("inconclusive: too few samples for lat.p99.9999: p99.9999 needs "
                              "10000000 I/Os (10 beyond it), 100000 measured; at the measured "),
            std::string::npos)
      << v[0].message;
  EXPECT_NE(v[0].message.find("that is a runtime of"), std::string::npos) << v[0].message;
  EXPECT_FALSE(v[0].measured.has_value());
  EXPECT_EQ(exit_code_for(v), kExitRuntime);  // incomplete, never a pass

  const auto run = run_of(r, v);
  const std::string table = reporting::format_verdict_table(run);
  EXPECT_NE(table.find("INCONCLUSIVE"), std::string::npos) << table;
  EXPECT_NE(table.find("RESULT: INCONCLUSIVE"), std::string::npos) << table;
  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_string(reporting::render_junit({run}).c_str()));
  auto tc = junit.select_node("//testcase[contains(@name, ' read-4k lat.p99.9999')]").node();
  ASSERT_TRUE(tc);
  auto error = tc.child("error");
  ASSERT_TRUE(error) << reporting::render_junit({run});
  EXPECT_STREQ(error.attribute("type").value(), "inconclusive");
  // "<device> <claim>: inconclusive: ..." (docs/reports.md, JUnit naming).
  EXPECT_NE(std::string(error.attribute("message").value()).find(" lat.p99.9999: inconclusive: "),
            std::string::npos)
      << error.attribute("message").value();
  const std::string html = reporting::render_html(run);
  EXPECT_NE(html.find("<span class=\"status inconclusive\">INCONCLUSIVE</span>"),
            std::string::npos);
}

TEST(TailSamples, SixNinesOnTenMillionIosIsJudged) {
  const auto r = null_reads(10'000'000);
  ASSERT_EQ(r.read->lat.samples, 10'000'000u);
  ASSERT_FALSE(r.read->lat.percentiles.empty());
  EXPECT_DOUBLE_EQ(r.read->lat.percentiles.back().first, 99.9999);  // printed up to six nines
  auto v = judge(tail_sheet(), tail_suite(), {r});
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].status, VerdictStatus::Pass) << v[0].message;
  ASSERT_TRUE(v[0].measured.has_value());
  EXPECT_NE(v[0].message.find("measured p99.9999 "), std::string::npos) << v[0].message;
  const auto run = run_of(r, v);
  EXPECT_NE(reporting::format_verdict_table(run).find("RESULT: PASS"), std::string::npos);
  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_string(reporting::render_junit({run}).c_str()));
  auto tc = junit.select_node("//testcase[contains(@name, ' read-4k lat.p99.9999')]").node();
  ASSERT_TRUE(tc);
  EXPECT_FALSE(tc.child("error"));
  EXPECT_FALSE(tc.child("failure"));
}

TEST(TailSamples, ExitCodeInconclusiveOutranksAFailure) {
  std::vector<reporting::ClaimVerdict> v(2);
  v[0].status = VerdictStatus::Fail;
  v[1].status = VerdictStatus::Inconclusive;
  EXPECT_EQ(exit_code_for(v), kExitRuntime);
  v[1].status = VerdictStatus::Pass;
  EXPECT_EQ(exit_code_for(v), kExitClaimFailed);
}

}  // namespace
}  // namespace storqual::runner
