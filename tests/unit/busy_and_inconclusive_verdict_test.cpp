// SPDX-License-Identifier: Apache-2.0
// Verdicts on a busy host (marked "host busy: ...", pass or fail, the status kept) and
// with early stop (a claim inside the interval is inconclusive), in JUnit too.
#include <gtest/gtest.h>

#include "reporting/junit_report.hpp"
#include "runner/cli/cli.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/host_load.hpp"

namespace storqual::runner {
namespace {

using reporting::ClaimVerdict;
using reporting::VerdictStatus;
using reporting::WorkloadResult;

WorkloadResult reads(double iops) {
  WorkloadResult r;
  r.id = "rr";
  r.params.rw = "randread";
  r.read.emplace();
  r.read->iops = iops;
  r.read->bw_bytes = iops * 4096;
  r.read->ios = 1000;
  r.read->lat.samples = r.read->clat.samples = 1000;
  r.read->lat.mean_ns = r.read->clat.mean_ns = 1e5;
  r.elapsed_s = 10;
  return r;
}

const Suite& suite() {
  static const Suite s = Suite::parse(R"(<suite name="s">
    <defaults runtime="10s" size="1g"/>
    <workload id="rr" rw="randread" iodepth="32"/>
  </suite>)",
                                      "s.xml");
  return s;
}

ClaimVerdict judge_one(const WorkloadResult& r, double claimed, double tolerance_pct = 0) {
  SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"s\"><match model=\"*\"/><claims tolerance=\"" +
          std::to_string(tolerance_pct) + "%\"><claim workload=\"rr\" metric=\"iops\" value=\"" +
          std::to_string(claimed) + "\"/></claims></spec-sheet>",
      "sheet.xml");
  auto v = judge(sheet, suite(), {r});
  EXPECT_FALSE(v.empty());
  return v.empty() ? ClaimVerdict{} : v.front();
}

TEST(BusyHostVerdict, FailAndPassOnABusyHostAreMarkedAndKeepTheirStatus) {
  WorkloadResult r = reads(50000);
  r.host_busy = assess_host_busy(1.6, 2.5, 0, 80, 2, 20);
  ASSERT_TRUE(r.host_busy->busy);
  auto v = judge_one(r, 100000);
  EXPECT_EQ(v.status, VerdictStatus::Fail);
  EXPECT_EQ(v.message.rfind("host busy: other processes used 1.60 of 2 CPUs", 0), 0u) << v.message;
  EXPECT_NE(v.message.find("below the claimed"), std::string::npos) << v.message;
  v = judge_one(r, 40000);
  EXPECT_EQ(v.status, VerdictStatus::Pass);
  EXPECT_EQ(v.message.rfind("host busy: other processes used 1.60", 0), 0u) << v.message;
  // The same figures on an idle host: a plain fail.
  r.host_busy = assess_host_busy(0.05, 0.1, 0, 3, 2, 20);
  v = judge_one(r, 100000);
  EXPECT_EQ(v.status, VerdictStatus::Fail);
  EXPECT_EQ(v.message.find("host busy"), std::string::npos) << v.message;
}

TEST(EarlyStopVerdict, ClaimInsideTheIntervalIsInconclusive) {
  WorkloadResult r = reads(100000);
  reporting::EarlyStopReport es;
  es.rule = "ci:1%@95";
  es.confidence_pct = 95;
  es.half_width_pct = 3;  // 97k..103k
  es.reason = "ran to its time limit: interval +-3.00% at 95% (n_eff 9.0)";
  r.early_stop = es;
  auto v = judge_one(r, 101000);  // inside: a plain judgement would say fail
  EXPECT_EQ(v.status, VerdictStatus::Inconclusive);
  EXPECT_EQ(v.message.rfind("inconclusive: the 95% interval 97k..103k straddles", 0), 0u)
      << v.message;
  EXPECT_NE(v.message.find("ran to its time limit"), std::string::npos) << v.message;
  EXPECT_EQ(exit_code_for({v}), kExitRuntime);
  // Outside the interval either way: decided.
  EXPECT_EQ(judge_one(r, 90000).status, VerdictStatus::Pass);
  EXPECT_EQ(judge_one(r, 110000).status, VerdictStatus::Fail);
  // The bound is claimed * (1 - tolerance): 105k at 5% is 99.75k, inside.
  EXPECT_EQ(judge_one(r, 105000, 5).status, VerdictStatus::Inconclusive);
  // Without early stop the same figure is simply judged.
  r.early_stop.reset();
  EXPECT_EQ(judge_one(r, 101000).status, VerdictStatus::Fail);
}

TEST(EarlyStopVerdict, JUnitShowsInconclusiveAsAnError) {
  reporting::RunResult run;
  ClaimVerdict v;
  v.workloads = {"rr"};
  v.metric = "iops";
  v.status = VerdictStatus::Inconclusive;
  v.message = "inconclusive: the 95% interval straddles the bound";  // as judge_claim words it
  run.verdicts.push_back(v);
  const std::string xml = reporting::render_junit({run});
  EXPECT_NE(xml.find("<error message=\"unknown-device rr iops: inconclusive: the 95% interval "
                     "straddles the bound\" type=\"inconclusive\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("errors=\"1\""), std::string::npos) << xml;
}

}  // namespace
}  // namespace storqual::runner
