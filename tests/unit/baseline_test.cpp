// SPDX-License-Identifier: Apache-2.0
// Baseline comparison: the regression rule per workload (IOPS, bandwidth; mean latency reported),
// what is skipped or an error, and the identity check (same device, same model, another model
// refused).
#include <gtest/gtest.h>

#include "model/result.hpp"
#include "runner/cli/cli.hpp"
#include "runner/judge/baseline.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::runner {
namespace {

using reporting::RunResult;
using reporting::VerdictStatus;

RunResult scaled(double iops_factor, double lat_factor) {
  RunResult r = reporting::sample::run(false, 5);
  for (auto& w : r.workloads)
    for (auto* side : {&w.read, &w.write})
      if (*side) {
        (*side)->iops *= iops_factor;
        (*side)->bw_bytes *= iops_factor;
        (*side)->lat.mean_ns *= lat_factor;
      }
  return r;
}

TEST(Baseline, UnchangedRunPassesEveryWorkload) {
  const RunResult old = scaled(1, 1);
  const auto v = compare_with_baseline(old, scaled(0.97, 1.03), 5);
  ASSERT_EQ(v.size(), old.workloads.size());
  for (const auto& x : v) {
    EXPECT_EQ(x.kind, reporting::VerdictKind::Baseline);
    EXPECT_EQ(x.metric, "iops");
    EXPECT_EQ(x.status, VerdictStatus::Pass) << x.message;
    EXPECT_NE(x.message.find("no regression"), std::string::npos);
  }
}

TEST(Baseline, TwentyPercentFewerIopsInOneWorkloadFailsOnlyThatOne) {
  const RunResult old = scaled(1, 1);
  RunResult now = scaled(1, 1);
  now.workloads[1].write->iops *= 0.8;  // randwrite-4k-qd32
  const auto v = compare_with_baseline(old, now, 5);
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(v[i].status, i == 1 ? VerdictStatus::Fail : VerdictStatus::Pass) << v[i].message;
  EXPECT_NEAR(*v[1].diff_pct, -20, 1e-9);
  EXPECT_NE(v[1].message.find("regression in IOPS"), std::string::npos) << v[1].message;
}

TEST(Baseline, BandwidthDropAloneFailsALatencyRiseIsReportedNotFailed) {
  const RunResult old = scaled(1, 1);
  RunResult bw = scaled(1, 1);
  bw.workloads[2].read->bw_bytes *= 0.9;
  EXPECT_EQ(compare_with_baseline(old, bw, 5)[2].status, VerdictStatus::Fail);
  // The testcase judges throughput; a mean latency 20% higher is in its message only.
  const auto lat = compare_with_baseline(old, scaled(1, 1.2), 5);
  EXPECT_EQ(lat[0].status, VerdictStatus::Pass);
  EXPECT_NE(lat[0].message.find("mean latency"), std::string::npos) << lat[0].message;
  EXPECT_NE(lat[0].message.find("+20.0%"), std::string::npos) << lat[0].message;
}

TEST(Baseline, MissingWorkloadIsSkippedAndAFailedOneIsAnError) {
  RunResult old = scaled(1, 1);
  old.workloads.erase(old.workloads.begin());
  RunResult now = scaled(1, 1);
  now.workloads[1].errors.push_back("EIO at offset 4096");
  const auto v = compare_with_baseline(old, now, 5);
  EXPECT_EQ(v[0].status, VerdictStatus::Skipped);
  EXPECT_EQ(v[1].status, VerdictStatus::Error);
}

TEST(Baseline, IdentityCheck) {
  const RunResult old = scaled(1, 1);  // Example SSD 500GB, serial S5X9NG0R123456
  EXPECT_EQ(check_baseline_identity(old, "Example SSD 500GB", "S5X9NG0R123456", false),
            "same device (serial S5X9NG0R123456)");
  EXPECT_EQ(check_baseline_identity(old, "Example SSD 500GB", "OTHER", false),
            "same model (Example SSD 500GB)");
  EXPECT_THROW((void)check_baseline_identity(old, "Other SSD 1TB", "X", false), UsageError);
  try {
    (void)check_baseline_identity(old, "Other SSD 1TB", "X", false);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("Example SSD 500GB"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--baseline-any-model"), std::string::npos);
  }
  EXPECT_NE(check_baseline_identity(old, "Other SSD 1TB", "X", true).find("another model"),
            std::string::npos);
}

}  // namespace
}  // namespace storqual::runner
