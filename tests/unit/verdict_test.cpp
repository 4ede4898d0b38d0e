// SPDX-License-Identifier: Apache-2.0
// Verdicts: pass/fail on the right side of the tolerance, aggregates, latency, error, skipped,
// measured-only, messages with both numbers, exit codes.
#include "runner/judge/verdict.hpp"

#include <gtest/gtest.h>

#include "reporting/verdict_status.hpp"
#include "runner/cli/cli.hpp"
#include "runner/methods/steady_state/steady_state.hpp"

namespace storqual::runner {
namespace {

using reporting::ClaimVerdict;
using reporting::DirectionResult;
using reporting::VerdictStatus;
using reporting::WorkloadResult;

DirectionResult direction(double iops, double bw, double lat_mean_ns, std::uint64_t p99_ns,
                          std::uint64_t samples = 1000) {
  DirectionResult d;
  d.iops = iops;
  d.bw_bytes = bw;
  d.ios = samples;
  for (auto* s : {&d.lat, &d.clat}) {
    s->samples = samples;
    s->mean_ns = lat_mean_ns;
    s->percentiles = {{50, p99_ns / 2}, {99, p99_ns}, {99.9, p99_ns * 2}};
  }
  d.clat.mean_ns = lat_mean_ns * 0.9;  // clat excludes submission
  return d;
}

WorkloadResult reads(const std::string& id, double iops, double bw, double lat = 1e5,
                     std::uint64_t p99 = 200000) {
  WorkloadResult r;
  r.id = id;
  r.params.rw = "randread";
  r.read = direction(iops, bw, lat, p99);
  r.elapsed_s = 60;
  return r;
}

WorkloadResult writes(const std::string& id, double iops, double bw, double lat = 1e5,
                      std::uint64_t p99 = 200000) {
  WorkloadResult r;
  r.id = id;
  r.params.rw = "randwrite";
  r.write = direction(iops, bw, lat, p99);
  r.elapsed_s = 60;
  return r;
}

const Suite& sata_suite() {
  static const Suite s = Suite::parse(R"(<suite name="sata-ssd">
    <defaults runtime="60s" size="5g"/>
    <workload id="randread-4k-qd32" rw="randread" iodepth="32"/>
    <workload id="randwrite-4k-qd32" rw="randwrite" iodepth="32"/>
    <workload id="seqread-1m-qd32" rw="read" bs="1m" iodepth="32"/>
    <workload id="seqwrite-1m-qd32" rw="write" bs="1m" iodepth="32"/>
    <workload id="randread-4k-qd1" rw="randread"/>
    <workload id="unclaimed" rw="randread"/>
  </suite>)",
                                      "sata-ssd.xml");
  return s;
}

SpecSheet sheet(const std::string& claims) {
  return SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"sata-ssd\"><match model=\"*\"/>"
      "<claims tolerance=\"10%\">" +
          claims + "</claims></spec-sheet>",
      "sheet.xml");
}

const ClaimVerdict& find(const std::vector<ClaimVerdict>& vs, const std::string& workload,
                         const std::string& metric) {
  for (const auto& v : vs)
    if (reporting::workload_text(v) == workload && v.metric == metric) return v;
  static ClaimVerdict none;
  ADD_FAILURE() << "no verdict for " << workload << " " << metric;
  return none;
}

// The datasheet corners: the vendor's claims against a by-hand fio measurement.
// A skipped claim (it has a claimed value) is never a pass: the qualification is incomplete, and
// that outranks a failed claim; a skipped verdict without a claim (measured only) does not count.
TEST(Verdict, ASkippedClaimIsIncompleteAndOutranksAFailure) {
  ClaimVerdict skipped_claim;
  skipped_claim.status = VerdictStatus::Skipped;
  skipped_claim.claimed = 97000;
  ClaimVerdict skipped_unclaimed;
  skipped_unclaimed.status = VerdictStatus::Skipped;
  ClaimVerdict pass;
  pass.status = VerdictStatus::Pass;
  pass.claimed = 1;
  ClaimVerdict fail = pass;
  fail.status = VerdictStatus::Fail;
  EXPECT_EQ(exit_code_for({pass, skipped_unclaimed}), kExitPass);
  EXPECT_EQ(exit_code_for({pass, skipped_claim}), kExitRuntime);
  EXPECT_EQ(exit_code_for({fail, skipped_claim}), kExitRuntime);
  EXPECT_EQ(exit_code_for({fail, skipped_unclaimed}), kExitClaimFailed);
  ClaimVerdict skipped_baseline = skipped_claim;  // the baseline has no clean figure to compare
  skipped_baseline.kind = reporting::VerdictKind::Baseline;
  EXPECT_EQ(exit_code_for({pass, skipped_baseline}), kExitPass);
}

TEST(Verdict, DatasheetCornersClaimsAgainstFioMeasurements) {
  SpecSheet s = sheet(R"(
    <claim workload="randread-4k-qd32"  metric="iops" value="97K"/>
    <claim workload="randwrite-4k-qd32" metric="iops" value="88K"/>
    <claim workload="seqread-1m-qd32"   metric="bw"   value="540MB/s"/>
    <claim workload="seqwrite-1m-qd32"  metric="bw"   value="520MB/s" tolerance="15%"/>
    <claim workload="randread-4k-qd1"   metric="lat.p99" value="250us"/>)");
  std::vector<WorkloadResult> results = {
      reads("randread-4k-qd32", 96900, 397e6),
      writes("randwrite-4k-qd32", 80500, 330e6),
      reads("seqread-1m-qd32", 521, 547e6),
      writes("seqwrite-1m-qd32", 388, 407e6),
      reads("randread-4k-qd1", 9000, 37e6, 1e5, 310000),
      reads("unclaimed", 1000, 4e6, 2.5e6),
  };
  auto v = judge(s, sata_suite(), results);
  ASSERT_EQ(v.size(), 6u);

  EXPECT_EQ(v[0].status, VerdictStatus::Pass);
  EXPECT_EQ(v[0].message, "measured 96.9k IOPS, 0.1% below the claimed 97k (tolerance 10%)");
  EXPECT_EQ(v[1].status, VerdictStatus::Pass);  // 8.5% below is inside 10%
  EXPECT_EQ(v[1].message, "measured 80.5k IOPS, 8.5% below the claimed 88k (tolerance 10%)");
  EXPECT_EQ(v[2].status, VerdictStatus::Pass);
  EXPECT_EQ(v[2].message, "measured 547 MB/s, 1.3% above the claimed 540 MB/s (tolerance 10%)");
  EXPECT_EQ(v[3].status, VerdictStatus::Fail);
  EXPECT_EQ(v[3].message, "measured 407 MB/s, 21.7% below the claimed 520 MB/s (tolerance 15%)");
  EXPECT_EQ(v[4].status, VerdictStatus::Fail);
  EXPECT_EQ(v[4].message, "measured p99 310 us, 24.0% above the claimed 250 us (tolerance 10%)");

  // Numbers travel with the verdict for JUnit properties and JSON.
  EXPECT_EQ(reporting::workload_text(v[3]), "seqwrite-1m-qd32");
  EXPECT_EQ(v[3].metric, "bw");
  EXPECT_EQ(v[3].unit, "B/s");
  EXPECT_DOUBLE_EQ(*v[3].measured, 407e6);
  EXPECT_DOUBLE_EQ(*v[3].claimed, 520e6);
  EXPECT_DOUBLE_EQ(v[3].tolerance_pct, 15);
  EXPECT_NEAR(*v[3].diff_pct, -21.73, 0.01);
  EXPECT_DOUBLE_EQ(v[3].time_s, 60);
  EXPECT_EQ(v[4].unit, "ns");

  EXPECT_EQ(reporting::workload_text(v[5]), "unclaimed");
  EXPECT_EQ(v[5].status, VerdictStatus::MeasuredOnly);
  EXPECT_EQ(v[5].message, "measured 1k IOPS, 4 MB/s, mean lat 2.5 ms; no claim");
  EXPECT_DOUBLE_EQ(*v[5].measured, 1000);

  EXPECT_EQ(exit_code_for(v), kExitClaimFailed);
}

TEST(Verdict, ExactlyOnTheBoundPassesAndJustBeyondFails) {
  SpecSheet s = sheet(R"(
    <claim workload="randwrite-4k-qd32" metric="iops" value="88K"/>
    <claim workload="randread-4k-qd1" metric="lat.p99" value="250us"/>)");
  auto on_bound =
      judge(s, sata_suite(),
            {writes("randwrite-4k-qd32", 79200, 1), reads("randread-4k-qd1", 1, 1, 1, 275000)});
  EXPECT_EQ(find(on_bound, "randwrite-4k-qd32", "iops").status, VerdictStatus::Pass);
  EXPECT_EQ(find(on_bound, "randread-4k-qd1", "lat.p99").status, VerdictStatus::Pass);
  EXPECT_EQ(find(on_bound, "randwrite-4k-qd32", "iops").message,
            "measured 79.2k IOPS, 10.0% below the claimed 88k (tolerance 10%)");

  auto beyond =
      judge(s, sata_suite(),
            {writes("randwrite-4k-qd32", 79199, 1), reads("randread-4k-qd1", 1, 1, 1, 275001)});
  const ClaimVerdict& iops = find(beyond, "randwrite-4k-qd32", "iops");
  EXPECT_EQ(iops.status, VerdictStatus::Fail);
  // One decimal would print "10.0% below" for a failure: more decimals make the reason visible.
  EXPECT_EQ(iops.message, "measured 79.2k IOPS, 10.001% below the claimed 88k (tolerance 10%)");
  EXPECT_EQ(find(beyond, "randread-4k-qd1", "lat.p99").status, VerdictStatus::Fail);
}

TEST(Verdict, TheRightSideOfTheToleranceDependsOnTheMetric) {
  SpecSheet s = sheet(R"(
    <claim workload="randread-4k-qd32" metric="iops" value="1000" tolerance="0%"/>
    <claim workload="randread-4k-qd1" metric="lat.mean" value="1ms" tolerance="0%"/>)");
  // Far better than claimed: more IOPS, less latency. Both pass.
  auto good = judge(s, sata_suite(),
                    {reads("randread-4k-qd32", 5000, 1), reads("randread-4k-qd1", 1, 1, 2e5)});
  EXPECT_EQ(good[0].status, VerdictStatus::Pass);
  EXPECT_EQ(good[0].message, "measured 5k IOPS, 400.0% above the claimed 1k (tolerance 0%)");
  EXPECT_EQ(good[1].status, VerdictStatus::Pass);
  EXPECT_EQ(good[1].message,
            "measured mean latency 200 us, 80.0% below the claimed 1 ms (tolerance 0%)");
  // Worse: fewer IOPS, more latency. Both fail.
  auto bad = judge(s, sata_suite(),
                   {reads("randread-4k-qd32", 999, 1), reads("randread-4k-qd1", 1, 1, 1.2e6)});
  EXPECT_EQ(bad[0].status, VerdictStatus::Fail);
  EXPECT_EQ(bad[1].status, VerdictStatus::Fail);
  EXPECT_EQ(bad[1].message,
            "measured mean latency 1.2 ms, 20.0% above the claimed 1 ms (tolerance 0%)");
  auto equal = judge(s, sata_suite(),
                     {reads("randread-4k-qd32", 1000, 1), reads("randread-4k-qd1", 1, 1, 1e6)});
  EXPECT_EQ(equal[0].message, "measured 1k IOPS, equal to the claimed 1k (tolerance 0%)");
}

const Suite& cloud_suite() {
  static const Suite s = Suite::parse(R"(<suite name="cloud-disk">
    <defaults rw="randrw" rwmixread="70" iodepth="64" numjobs="4"/>
    <workload id="randrw70-4k" bs="4k"/>
    <workload id="randrw70-8k" bs="8k"/>
    <workload id="randrw70-16k" bs="16k"/>
  </suite>)",
                                      "cloud-disk.xml");
  return s;
}

WorkloadResult mixed(const std::string& id, double read_iops, double write_iops) {
  WorkloadResult r;
  r.id = id;
  r.params.rw = "randrw";
  r.read = direction(read_iops, read_iops * 4096, 5.18e6, 16'700'000, 7000);
  r.write = direction(write_iops, write_iops * 4096, 9.16e6, 20'800'000, 3000);
  r.elapsed_s = 600;
  return r;
}

TEST(Verdict, AggregateClaimsJudgeTheMeanOverTheirWorkloads) {
  SpecSheet s = SpecSheet::parse(R"(<spec-sheet name="tier" suite="cloud-disk">
    <match transport="virtio"/>
    <claims>
      <claim workloads="randrw70-4k randrw70-8k randrw70-16k" aggregate="mean" metric="iops" value="40000"/>
      <claim workloads="randrw70-4k randrw70-8k randrw70-16k" aggregate="min" metric="read.iops" value="30000"/>
    </claims></spec-sheet>)",
                                 "tier.xml");
  // The cloud method's 4k run by hand: 28.1k read + 12.0k write; the larger blocks a bit lower.
  std::vector<WorkloadResult> results = {mixed("randrw70-4k", 28100, 12000),
                                         mixed("randrw70-8k", 28000, 12000),
                                         mixed("randrw70-16k", 27900, 12000)};
  auto v = judge(s, cloud_suite(), results);
  ASSERT_EQ(v.size(), 2u);  // every workload is named: no measured-only verdicts
  EXPECT_EQ(v[0].workloads,
            (std::vector<std::string>{"randrw70-4k", "randrw70-8k", "randrw70-16k"}));
  EXPECT_EQ(reporting::workload_text(v[0]), "randrw70-4k randrw70-8k randrw70-16k");
  EXPECT_EQ(v[0].status, VerdictStatus::Pass);
  EXPECT_DOUBLE_EQ(*v[0].measured, 40000);
  EXPECT_EQ(v[0].message,
            "measured 40k IOPS (mean of 3 workloads), equal to the claimed 40k (tolerance 10%)");
  EXPECT_DOUBLE_EQ(v[0].time_s, 1800);
  EXPECT_EQ(v[1].status, VerdictStatus::Pass);  // the smallest of the three, 27.9k >= 27k
  EXPECT_DOUBLE_EQ(*v[1].measured, 27900);
  EXPECT_EQ(v[1].message,
            "measured 27.9k read IOPS (min of 3 workloads), 7.0% below the claimed 30k "
            "(tolerance 10%)");

  results[2].read->iops = 12000;  // one slow block size pulls the mean under the bound
  auto low = judge(s, cloud_suite(), results);
  EXPECT_EQ(low[0].status, VerdictStatus::Fail);
  EXPECT_NEAR(*low[0].measured, (40100 + 40000 + 24000) / 3.0, 1e-6);
  EXPECT_EQ(low[1].status, VerdictStatus::Fail);
}

TEST(Verdict, LatencyOfAMixedWorkloadWeighsMeansAndTakesTheWorsePercentile) {
  SpecSheet s = SpecSheet::parse(R"(<spec-sheet name="tier" suite="cloud-disk">
    <match transport="virtio"/>
    <claims>
      <claim workload="randrw70-4k" metric="lat.mean" value="10ms"/>
      <claim workload="randrw70-4k" metric="lat.p99" value="20ms"/>
      <claim workload="randrw70-4k" metric="read.lat.p99" value="20ms"/>
      <claim workload="randrw70-4k" metric="write.clat.mean" value="9ms"/>
    </claims></spec-sheet>)",
                                 "tier.xml");
  auto v = judge(s, cloud_suite(), {mixed("randrw70-4k", 28100, 12000)});
  ASSERT_GE(v.size(), 4u);
  // 7000 reads at 5.18 ms and 3000 writes at 9.16 ms: 6.374 ms over all I/Os.
  EXPECT_NEAR(*v[0].measured, (7000 * 5.18e6 + 3000 * 9.16e6) / 10000, 1e-3);
  EXPECT_EQ(v[0].status, VerdictStatus::Pass);
  EXPECT_DOUBLE_EQ(*v[1].measured, 20'800'000);  // the write p99, the larger
  EXPECT_EQ(v[1].status, VerdictStatus::Pass);
  EXPECT_EQ(v[1].message, "measured p99 20.8 ms, 4.0% above the claimed 20 ms (tolerance 10%)");
  EXPECT_DOUBLE_EQ(*v[2].measured, 16'700'000);
  EXPECT_NEAR(*v[3].measured, 9.16e6 * 0.9, 1e-3);
  EXPECT_EQ(v[3].message,
            "measured write clat mean 8.24 ms, 8.4% below the claimed 9 ms (tolerance 10%)");
}

TEST(Verdict, SkippedWhenTheSuiteLacksTheWorkload) {
  SpecSheet s = sheet(R"(
    <claim workload="randrw70-4k" metric="iops" value="1k"/>
    <claim workloads="randread-4k-qd32 randrw70-8k" metric="iops" value="1k"/>)");
  auto v = judge(s, sata_suite(), {reads("randread-4k-qd32", 5000, 1)});
  EXPECT_EQ(v[0].status, VerdictStatus::Skipped);
  EXPECT_EQ(v[0].message, "workload 'randrw70-4k' is not in suite 'sata-ssd'");
  EXPECT_DOUBLE_EQ(*v[0].claimed, 1000);
  EXPECT_FALSE(v[0].measured.has_value());
  EXPECT_EQ(v[1].status, VerdictStatus::Skipped);
  EXPECT_EQ(v[1].message, "workload 'randrw70-8k' is not in suite 'sata-ssd'");
  EXPECT_EQ(exit_code_for(v), kExitRuntime) << "workloads that did not run are errors";
}

TEST(Verdict, EveryClaimVerdictCarriesTheFileAndLineOfItsClaim) {
  SpecSheet s = sheet(
      "\n    <claim workload=\"randread-4k-qd32\" metric=\"iops\" value=\"1k\"/>\n"
      "    <claim workload=\"randrw70-4k\" metric=\"iops\" value=\"1k\"/>");
  auto v = judge(s, sata_suite(), {reads("randread-4k-qd32", 5000, 1)});
  ASSERT_GE(v.size(), 2u);
  EXPECT_EQ(v[0].file, "sheet.xml");
  EXPECT_EQ(v[0].line, 2u);
  EXPECT_EQ(v[1].file, "sheet.xml") << "a skipped claim points at its line too";
  EXPECT_EQ(v[1].line, 3u);
  for (std::size_t i = 2; i < v.size(); ++i)
    EXPECT_EQ(v[i].line, 0u) << reporting::workload_text(v[i])
                             << ": measured-only verdicts have no claim line";
}

TEST(Verdict, ErrorWhenAWorkloadFailedOrDidNotRun) {
  SpecSheet s = sheet(R"(
    <claim workload="randread-4k-qd32" metric="iops" value="1k"/>
    <claim workload="randwrite-4k-qd32" metric="iops" value="1k"/>
    <claim workload="seqread-1m-qd32" metric="write.bw" value="1MB/s"/>
    <claim workloads="seqread-1m-qd32 seqwrite-1m-qd32" metric="bw" value="1MB/s"/>)");
  WorkloadResult broken = reads("randread-4k-qd32", 5000, 1);
  broken.errors = {"EIO at offset 4096", "short read"};
  auto v = judge(s, sata_suite(), {broken, reads("seqread-1m-qd32", 500, 5e8)});
  EXPECT_EQ(v[0].status, VerdictStatus::Error);
  EXPECT_EQ(v[0].message, "workload 'randread-4k-qd32' failed: EIO at offset 4096; short read");
  EXPECT_EQ(v[1].status, VerdictStatus::Error);
  EXPECT_EQ(v[1].message, "workload 'randwrite-4k-qd32' did not run");
  EXPECT_EQ(v[2].status, VerdictStatus::Error);
  EXPECT_EQ(v[2].message,
            "workload 'seqread-1m-qd32' does not write (rw=randread), so it has no write.bw");
  EXPECT_EQ(v[3].status, VerdictStatus::Error);  // one of the aggregate's workloads is missing
  EXPECT_EQ(v[3].message, "workload 'seqwrite-1m-qd32' did not run");
  EXPECT_EQ(v[3].error_cause, reporting::ErrorCause::WorkloadError);
  // The unclaimed workloads that did not run are errors too.
  EXPECT_EQ(find(v, "unclaimed", "iops").status, VerdictStatus::Error);
  EXPECT_EQ(exit_code_for(v), kExitRuntime);
}

TEST(Verdict, AnInterruptedRunMarksTheCurrentWorkloadErrorAndTheRestSkipped) {
  SpecSheet s = sheet(R"(
    <claim workload="randread-4k-qd32" metric="iops" value="1k"/>
    <claim workload="randwrite-4k-qd32" metric="iops" value="1k"/>
    <claim workload="seqread-1m-qd32" metric="bw" value="1MB/s"/>)");
  WorkloadResult stopped = writes("randwrite-4k-qd32", 3000, 1);
  stopped.interrupted = true;
  stopped.elapsed_s = 12;
  auto v = judge(s, sata_suite(), {reads("randread-4k-qd32", 5000, 1), stopped});
  EXPECT_EQ(v[0].status, VerdictStatus::Pass);  // finished workloads keep their verdicts
  EXPECT_EQ(v[1].status, VerdictStatus::Error);
  EXPECT_EQ(v[1].message, "workload 'randwrite-4k-qd32' was interrupted");
  EXPECT_EQ(v[1].error_cause, reporting::ErrorCause::Interrupted);  // JUnit type "interrupted"
  EXPECT_DOUBLE_EQ(v[1].time_s, 12);
  EXPECT_EQ(v[2].status, VerdictStatus::Skipped);
  EXPECT_EQ(v[2].message, "workload 'seqread-1m-qd32' did not run (the run was interrupted)");
  EXPECT_EQ(find(v, "unclaimed", "iops").status, VerdictStatus::Skipped);
}

TEST(Verdict, EveryUnclaimedWorkloadIsReportedMeasuredOnlyOnce) {
  SpecSheet s = sheet(R"(
    <claim workload="randread-4k-qd32" metric="iops" value="1k"/>
    <claim workload="randread-4k-qd32" metric="lat.p99" value="1ms"/>)");
  std::vector<WorkloadResult> results;
  for (const auto& w : sata_suite().workloads) results.push_back(reads(w.id(), 2000, 8e6));
  auto v = judge(s, sata_suite(), results);
  ASSERT_EQ(v.size(), 2u + 5u);
  for (std::size_t i = 2; i < v.size(); ++i) {
    EXPECT_EQ(v[i].status, VerdictStatus::MeasuredOnly) << reporting::workload_text(v[i]);
    EXPECT_NE(reporting::workload_text(v[i]), "randread-4k-qd32");
  }
  EXPECT_EQ(reporting::workload_text(v[2]), "randwrite-4k-qd32");  // suite order
  EXPECT_EQ(exit_code_for(v), kExitPass);

  auto only = judge_measured_only(sata_suite(), results);
  EXPECT_EQ(only.size(), sata_suite().workloads.size());
}

TEST(Verdict, MeasuredOnlyShowsBothDirectionsOfAMixedWorkload) {
  auto v = judge_measured_only(cloud_suite(), {mixed("randrw70-4k", 28100, 12000)});
  EXPECT_EQ(v[0].message,
            "measured 40.1k IOPS (read 28.1k, write 12k), 164 MB/s, mean lat 6.37 ms; no "
            "claim");
}

TEST(Verdict, SteadyStateClaimsSayWhetherTheRunWasSteady) {
  SpecSheet s =
      sheet(R"(<claim workload="randwrite-4k-qd32" metric="iops" value="10k" steady="1"/>)");
  WorkloadResult r = writes("randwrite-4k-qd32", 10000, 1);
  EXPECT_EQ(judge(s, sata_suite(), {r})[0].message,
            "measured 10k IOPS, equal to the claimed 10k (tolerance 10%); steady state was not "
            "measured");
  auto rounds = std::make_shared<SteadyStateRoundsReport>();
  rounds->steady_flag = false;
  r.method = rounds;
  EXPECT_EQ(judge(s, sata_suite(), {r})[0].message,
            "measured 10k IOPS, equal to the claimed 10k (tolerance 10%); not steady (SNIA PTS "
            "rounds gave up)");
  rounds = std::make_shared<SteadyStateRoundsReport>();
  rounds->steady_flag = true;
  r.method = rounds;
  EXPECT_EQ(judge(s, sata_suite(), {r})[0].message,
            "measured 10k IOPS, equal to the claimed 10k (tolerance 10%)");
}

TEST(ExitCode, ErrorsOutrankFailuresWhichOutrankPasses) {
  auto with = [](std::initializer_list<VerdictStatus> statuses) {
    std::vector<ClaimVerdict> v;
    for (auto s : statuses) {
      ClaimVerdict c;
      c.status = s;
      v.push_back(c);
    }
    return exit_code_for(v);
  };
  EXPECT_EQ(with({}), kExitPass);
  EXPECT_EQ(with({VerdictStatus::Pass, VerdictStatus::Skipped, VerdictStatus::MeasuredOnly}),
            kExitPass);
  EXPECT_EQ(with({VerdictStatus::Pass, VerdictStatus::Fail}), kExitClaimFailed);
  EXPECT_EQ(with({VerdictStatus::Fail, VerdictStatus::Error}), kExitRuntime);
  EXPECT_EQ(with({VerdictStatus::Error, VerdictStatus::Pass}), kExitRuntime);
}

TEST(FormatMetricValue, ThreeSignificantDigitsInTheFittingUnit) {
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 80500), "80.5k");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 88000), "88k");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 1.2e6), "1.2M");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 521), "521");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 0.5), "0.5");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 999.7), "1k");
  EXPECT_EQ(format_metric_value(MetricKind::Iops, 0), "0");
  EXPECT_EQ(format_metric_value(MetricKind::Bandwidth, 547.3e6), "547 MB/s");
  EXPECT_EQ(format_metric_value(MetricKind::Bandwidth, 3.5e9), "3.5 GB/s");
  EXPECT_EQ(format_metric_value(MetricKind::Bandwidth, 999.96e6), "1 GB/s");
  EXPECT_EQ(format_metric_value(MetricKind::Latency, 310000), "310 us");
  EXPECT_EQ(format_metric_value(MetricKind::Latency, 1.5e6), "1.5 ms");
  EXPECT_EQ(format_metric_value(MetricKind::Latency, 850), "850 ns");
}

// A claim on the group judges the group's figures; job= the job's own, with the group's run
// conditions (its errors) but the job's own host limit; a job the result lacks is an error.
TEST(Verdict, AClaimOnAGroupsJobReadsThatJobsFigures) {
  const Suite suite = Suite::parse(R"(<suite name="g"><defaults runtime="60s"/>
    <workload id="mixed"><job name="reader" rw="randread"/><job name="writer" rw="randwrite"/>
    </workload></suite>)",
                                   "g.xml");
  WorkloadResult group = reads("mixed", 90000, 4e8);
  group.write = direction(30000, 1.2e8, 1e5, 200000);
  group.jobs = {reads("reader", 90000, 4e8), writes("writer", 30000, 1.2e8)};
  group.host_limit = reporting::HostLimitReport{};
  group.host_limit->limited = true;
  group.host_limit->reasons = {"job thread CPU 99%"};
  group.jobs[1].host_limit = reporting::HostLimitReport{};  // the writer's own: not limited
  const SpecSheet s = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"g\"><match model=\"*\"/><claims tolerance=\"10%\">"
      "<claim workload=\"mixed\" metric=\"iops\" value=\"120k\"/>"
      "<claim workload=\"mixed\" job=\"reader\" metric=\"read.iops\" value=\"85k\"/>"
      "<claim workload=\"mixed\" job=\"writer\" metric=\"write.iops\" value=\"60k\"/>"
      "<claim workload=\"mixed\" job=\"ghost\" metric=\"iops\" value=\"1\"/>"
      "</claims></spec-sheet>",
      "g-sheet.xml");
  const auto vs = judge(s, suite, {group});
  ASSERT_GE(vs.size(), 4u);
  EXPECT_EQ(vs[0].job, "");
  EXPECT_DOUBLE_EQ(*vs[0].measured, 120000);  // the group's read + write
  EXPECT_EQ(vs[0].status, VerdictStatus::Pass);
  EXPECT_EQ(vs[1].job, "reader");
  EXPECT_DOUBLE_EQ(*vs[1].measured, 90000);
  EXPECT_EQ(vs[1].status, VerdictStatus::Pass);
  EXPECT_EQ(vs[1].workloads, std::vector<std::string>{"mixed"});
  EXPECT_EQ(reporting::verdict_name(vs[1]), "mixed job reader read.iops");
  // 30k against 60k: a failure the writer's own threads do not excuse (the reader's CPU would).
  EXPECT_DOUBLE_EQ(*vs[2].measured, 30000);
  EXPECT_EQ(vs[2].status, VerdictStatus::Fail) << vs[2].message;
  EXPECT_EQ(vs[3].status, VerdictStatus::Error);
  EXPECT_NE(vs[3].message.find("the result holds no job 'ghost'"), std::string::npos)
      << vs[3].message;
}

}  // namespace
}  // namespace storqual::runner
