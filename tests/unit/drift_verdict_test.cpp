// SPDX-License-Identifier: Apache-2.0
// The drift verdicts of a re-test against its acceptance record (runner/judge/drift_verdict.hpp):
// separate intervals fail only when slower, overlapping ones pass, no interval or a workload in
// error gives no verdict, the tracked figure is judged, firmware and wear are named.
#include <gtest/gtest.h>

#include "runner/judge/drift_verdict.hpp"

namespace storqual::runner {
namespace {

using reporting::VerdictStatus;

reporting::AcceptanceRecord accepted(std::optional<std::pair<double, double>> interval) {
  reporting::AcceptanceRecord a;
  a.record = 7;
  a.start_utc = "2026-11-29T18:00:01Z";
  a.firmware = "FW1";
  a.wear = "2";
  a.figures = {{"w", "iops", "IOPS", 1000, interval}, {"w", "bw", "B/s", 4096000, std::nullopt}};
  return a;
}

reporting::RunResult rerun(double iops, std::optional<double> half_width) {
  reporting::RunResult r;
  r.device.identity = {{"serial", "S1", "test"}, {"firmware", "FW1", "test"}};
  reporting::WorkloadResult w;
  w.id = "w";
  w.read = reporting::DirectionResult{};
  w.read->iops = iops;
  w.read->bw_bytes = iops * 4096;
  if (half_width) {
    w.early_stop = reporting::EarlyStopReport{};
    w.early_stop->mean = iops;
    w.early_stop->half_width = *half_width;
    w.early_stop->samples = 50;
  }
  r.workloads.push_back(w);
  return r;
}

TEST(DriftVerdict, SeparateAndSlowerFails) {
  const auto v = drift_verdicts(accepted(std::pair{990.0, 1010.0}), rerun(800, 10));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, reporting::VerdictKind::Baseline);
  EXPECT_EQ(v[0].metric, "iops");
  EXPECT_EQ(v[0].status, VerdictStatus::Fail) << v[0].message;
  EXPECT_DOUBLE_EQ(*v[0].claimed, 1000);
  EXPECT_DOUBLE_EQ(*v[0].measured, 800);
  EXPECT_NEAR(*v[0].diff_pct, -20, 1e-9);
  EXPECT_NE(v[0].message.find("drift against its acceptance record 7 (2026-11-29T18:00:01Z, "
                              "firmware FW1)"),
            std::string::npos)
      << v[0].message;
  EXPECT_NE(v[0].message.find("DRIFT (slower than at acceptance)"), std::string::npos);
}

TEST(DriftVerdict, OverlapOrFasterPasses) {
  auto v = drift_verdicts(accepted(std::pair{990.0, 1010.0}), rerun(1005, 10));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, VerdictStatus::Pass);
  EXPECT_NE(v[0].message.find("overlap, no drift"), std::string::npos) << v[0].message;
  v = drift_verdicts(accepted(std::pair{990.0, 1010.0}), rerun(1500, 10));
  EXPECT_EQ(v[0].status, VerdictStatus::Pass);
  EXPECT_NE(v[0].message.find("faster than at acceptance"), std::string::npos) << v[0].message;
}

TEST(DriftVerdict, WithoutAnIntervalOnEitherRunThereIsNoVerdict) {
  // Half the IOPS, but no interval: a bare percentage never fails, nor is it a skipped testcase.
  EXPECT_TRUE(drift_verdicts(accepted(std::pair{990.0, 1010.0}), rerun(500, std::nullopt)).empty());
  EXPECT_TRUE(drift_verdicts(accepted(std::nullopt), rerun(500, 5)).empty());
}

TEST(DriftVerdict, TheTrackedFigureFirmwareAndWear) {
  auto run = rerun(800, 10);
  run.device.identity[1].value = "FW2";
  run.device.health_after = {{"percentage_used", "5", "test"}};
  run.workloads[0].early_stop->metric = "bw";  // the rule tracked bandwidth: that is judged
  run.workloads[0].early_stop->mean = 800 * 4096;
  run.workloads[0].early_stop->half_width = 10 * 4096;
  // The acceptance has no bw interval: nothing decides it.
  EXPECT_TRUE(drift_verdicts(accepted(std::pair{990.0, 1010.0}), run).empty());
  auto a = accepted(std::pair{990.0, 1010.0});
  a.figures[1].interval = std::pair{990.0 * 4096, 1010.0 * 4096};
  const auto v = drift_verdicts(a, run);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].metric, "bw");
  EXPECT_EQ(v[0].status, VerdictStatus::Fail) << v[0].message;
  EXPECT_NE(v[0].message.find("; firmware FW1 -> FW2"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("; wear (percentage_used) 2% -> 5%"), std::string::npos);
}

TEST(DriftVerdict, AWorkloadInErrorOrUnknownHasNoVerdict) {
  auto run = rerun(800, 10);
  run.workloads[0].errors = {"boom"};
  EXPECT_TRUE(drift_verdicts(accepted(std::pair{990.0, 1010.0}), run).empty());
  run = rerun(800, 10);
  run.workloads[0].id = "other";
  EXPECT_TRUE(drift_verdicts(accepted(std::pair{990.0, 1010.0}), run).empty());
}

}  // namespace
}  // namespace storqual::runner
