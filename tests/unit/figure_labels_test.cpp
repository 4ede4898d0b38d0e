// SPDX-License-Identifier: Apache-2.0
// What each figure is, in the words every report uses: the definitions of claim metrics on mixed
// and single-direction workloads, with several jobs, of latency statistics (lat or clat, mean or
// a percentile), of a latency search's result; the verdicts carry them; the HTML shows them next
// to the numbers and ends with the glossary, every term of which docs/reports.md defines too.
#include "reporting/figure_labels.hpp"
#include "runner/methods/latency_search/latency_search.hpp"

#include <gtest/gtest.h>

#include "reporting/html_report.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

WorkloadResult cloud_like() {
  WorkloadResult w = sample::workload("randrw70-4k", "randrw", 4096, 64, 28100, 12000, 1e6, 600);
  w.params.numjobs = 4;
  return w;
}

TEST(FigureLabels, MetricDefinitions) {
  const WorkloadResult w = cloud_like();
  EXPECT_EQ(metric_definition("iops", w), "read+write IOPS, sum over 4 jobs, mean over 600 s");
  EXPECT_EQ(metric_definition("read.iops", w), "read IOPS, sum over 4 jobs, mean over 600 s");
  EXPECT_EQ(metric_definition("write.bw", w), "write bandwidth, sum over 4 jobs, mean over 600 s");
  EXPECT_EQ(metric_definition("lat.mean", w),
            "mean of lat (submission to completion) over every read and write I/O of 4 jobs");
  EXPECT_EQ(metric_definition("clat.p99", w),
            "p99 of clat (completion only, submission excluded) over every read and write I/O "
            "of 4 jobs, the worse of read and write");
  const WorkloadResult rr =
      sample::workload("randread-4k-qd32", "randread", 4096, 32, 98400, 0, 310e3, 60);
  EXPECT_EQ(metric_definition("iops", rr), "read IOPS, sum over 1 job, mean over 60 s");
  EXPECT_EQ(metric_definition("read.lat.p99", rr),
            "p99 of lat (submission to completion) over every read I/O of 1 job");
  WorkloadResult search = rr;
  search.method = std::make_shared<runner::LatencySearchMethodReport>();
  EXPECT_EQ(metric_definition("iops", search),
            "read IOPS, sum over 1 job, mean over 60 s, at iodepth 32 (the search's choice)");
  EXPECT_EQ(latency_stat_definition("clat.mean"),
            "mean of clat (completion only, submission excluded)");
  EXPECT_EQ(latency_stat_definition("p99"), "p99 of lat (submission to completion)");  // old files
  EXPECT_EQ(offset_pattern(rr.params), "random map (each block once per pass)");
  EXPECT_EQ(offset_pattern(sample::workload("s", "read", 1 << 20, 1, 1, 0, 1, 1).params), "");
}

// The verdicts of one claim "mean iops of `ids` = 40k" over results like the cloud tier's, judged
// with a suite of those workloads (4k, 8k, 16k by their ids' ends).
std::vector<reporting::ClaimVerdict> judge_mean_iops_claim(const std::vector<std::string>& ids) {
  std::vector<WorkloadResult> results;
  std::string workloads;
  for (const auto& id : ids) {
    WorkloadResult w = cloud_like();
    w.id = id;
    results.push_back(w);
    workloads += "  <workload id=\"" + id + "\" bs=\"" + id.substr(id.rfind('-') + 1) + "\"/>\n";
  }
  runner::SpecSheet sheet;
  runner::Claim c;
  c.workloads = ids;
  c.metric = runner::parse_metric("iops");
  c.value = 40000;
  c.aggregate = runner::Aggregate::Mean;
  sheet.claims.push_back(c);
  const runner::Suite suite = runner::Suite::parse(
      "<suite name=\"tier\">\n"
      "  <defaults rw=\"randrw\" rwmixread=\"70\" iodepth=\"64\" numjobs=\"4\" "
      "runtime=\"600s\"/>\n" +
          workloads + "</suite>",
      "tier.xml");
  return runner::judge(sheet, suite, results);
}

// The aggregate verdict of a tier claim says each figure is read+write summed over the 4 jobs.
TEST(FigureLabels, VerdictsCarryTheirFigure) {
  const auto v = judge_mean_iops_claim({"randrw70-4k", "randrw70-8k", "randrw70-16k"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].figure,
            "aggregate of 3 workloads, each: read+write IOPS, sum over 4 jobs, mean over 600 s");
  EXPECT_NE(v[0].message.find("mean of 3 workloads"), std::string::npos) << v[0].message;
}

// An aggregate over a list of one workload is that workload's figure: the message says nothing of
// an aggregate (never "of 1 workloads").
TEST(FigureLabels, AggregateOfOneWorkloadIsThatWorkloadsFigure) {
  const auto v = judge_mean_iops_claim({"randrw70-4k"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "measured 40.1k IOPS, 0.2% above the claimed 40k (tolerance 10%)");
  EXPECT_EQ(v[0].figure.find("aggregate"), std::string::npos) << v[0].figure;
}

TEST(FigureLabels, HtmlShowsFiguresAndTheGlossaryDocsDefine) {
  RunResult run = sample::run(false);
  run.workloads[4].params.numjobs = 4;
  run.verdicts[0].figure = "read IOPS, sum over 1 job, mean over 60 s";
  const std::string html = render_html(run);
  EXPECT_NE(html.find("read IOPS, sum over 1 job, mean over 60 s"), std::string::npos);
  EXPECT_NE(html.find("IOPS over time (sum over 4 jobs, per 1.000 s interval)"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#glossary\">glossary</a>"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"glossary\">"), std::string::npos);
  EXPECT_NE(html.find("offsets: random map (each block once per pass)"), std::string::npos);
  EXPECT_NE(html.find("per job on average (fio's cpu line)"), std::string::npos);
  const std::string docs = storqual::testing::read_file(STORQUAL_SOURCE_DIR "/docs/reports.md");
  ASSERT_NE(docs.find("## Glossary"), std::string::npos);
  for (const auto& [term, text] : glossary()) {
    EXPECT_NE(docs.find("| " + term + " | " + text + " |"), std::string::npos)
        << "docs/reports.md's glossary lacks: " << term;
  }
}

}  // namespace
}  // namespace storqual::reporting
