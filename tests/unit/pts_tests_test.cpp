// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS WSAT, DIRTH, XSR and HIR tests (runner/methods/pts/pts_tests.hpp) against the fault
// engine on a manual clock (the null engine underneath, so nothing sleeps and every figure is
// deterministic): WSAT finds the injected throughput cliff within one sample interval; DIRTH's
// MaxIOPS point moves when the latency-by-depth law moves; HIR's burst IOPS grow with the idle wait
// when the device recovers while idle. Then the suite elements, scaling, claims on the figures and
// the JSON round trip of the report.
#include <gtest/gtest.h>

#include <memory>

#include "engines/fault_engine.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/methods/pts/pts_tests.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

using engines::FaultPlan;
using engines::ManualClock;
using std::chrono::microseconds;

// The manual clock the job runner reads (RunOptions::now is a plain function pointer).
ManualClock* g_clock = nullptr;
std::uint64_t manual_now() noexcept {
  return static_cast<std::uint64_t>(g_clock->now().count());
}

// A RunWorkload running `spec` on the null engine inside a FaultEngine with `plan`, all on one
// manual clock (one job: the manual clock is not shared across threads).
struct ManualDevice {
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  FaultPlan plan;
  ManualDevice() { g_clock = clock.get(); }
  [[nodiscard]] RunWorkload measure() {
    return [this](const WorkloadSpec& s) {
      RunOptions ro;
      ro.now = manual_now;
      ro.wrap_engine = [this](std::unique_ptr<engines::Engine> inner) {
        return std::unique_ptr<engines::Engine>(
            std::make_unique<engines::FaultEngine>(std::move(inner), plan, clock));
      };
      return run_workload(s, ro);
    };
  }
};

WorkloadSpec null_spec(const std::string& id, std::uint64_t size) {
  WorkloadSpec w;
  w.id = id;
  w.params.ioengine = "null";
  w.params.target = "null";
  w.params.rw = "randwrite";
  w.params.bs = 4096;
  w.params.iodepth = 4;
  w.params.numjobs = 1;
  w.params.size = size;
  return w;
}

const reporting::Figure& figure(const reporting::WorkloadResult& r, std::string_view name) {
  static const reporting::Figure none{"missing", -1, ""};
  const auto* f = pts_figure(*pts_report_of(r), name);
  return f ? *f : none;
}

// WSAT: 100 us per I/O at QD4 (40k IOPS) until 40 MiB, then 10x slower; 2 fills of 64 MiB.
TEST(PtsWsat, FindsTheInjectedCliffWithinOneSampleInterval) {
  constexpr std::uint64_t kCliff = 40ull << 20;
  ManualDevice dev;
  dev.plan.latency = FaultPlan::Latency{.base = microseconds(100)};
  dev.plan.throughput_cliff = FaultPlan::ThroughputCliff{.after_bytes = kCliff, .slowdown = 10};
  PtsTest t;
  t.kind = PtsKind::Wsat;
  t.wsat.fills = 2;
  t.wsat.time_limit_s = 100;
  t.wsat.interval_s = 0.02;
  const auto r = run_pts_test(null_spec("wsat", 64ull << 20), t, dev.measure());
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(pts_report_of(r));
  const auto& p = *pts_report_of(r);
  EXPECT_EQ(r.kind(), "pts-wsat");
  ASSERT_GT(p.samples.size(), 100u);
  EXPECT_NEAR(p.samples.back().tgbw, 128.0 * (1 << 20), 4096 * 4);  // both fills, no more
  // One sample interval at the fast rate (the widest interval around the cliff) in bytes.
  const double interval_bytes = p.samples.front().iops * 0.02 * 4096;
  ASSERT_GE(p.cliff_tgbw, 0);
  EXPECT_NEAR(p.cliff_tgbw, static_cast<double>(kCliff), interval_bytes)
      << "found at " << p.cliff_tgbw << " B, one interval is " << interval_bytes << " B";
  EXPECT_NEAR(figure(r, "wsat.fob_iops").value, 40000, 2000);
  EXPECT_NEAR(figure(r, "wsat.iops").value, 4000, 200);
  EXPECT_NEAR(figure(r, "wsat.drop_pct").value, 90, 1);
  EXPECT_EQ(figure(r, "wsat.cliff_tgbw").value, p.cliff_tgbw);
  // The steady region is the flat tail after the cliff, on both axes.
  ASSERT_TRUE(p.steady_state);
  EXPECT_TRUE(p.steady_state->steady);
  EXPECT_GT(p.steady_from_tgbw, static_cast<double>(kCliff));
  EXPECT_GE(p.steady_to_tgbw, p.samples[p.samples.size() - 2].tgbw);  // the last full sample
  EXPECT_LT(p.steady_from_s, p.steady_to_s);

  // Moving the cliff moves the finding with it.
  dev.plan.throughput_cliff->after_bytes = kCliff / 2;
  const auto earlier = run_pts_test(null_spec("wsat", 64ull << 20), t, dev.measure());
  EXPECT_NEAR(pts_report_of(earlier)->cliff_tgbw, static_cast<double>(kCliff / 2), interval_bytes);
}

// DIRTH: one thread, QD 1..32, the response time 50 us + per_in_flight x QD; ceiling 1 ms.
PtsGridPoint dirth_max_point(std::chrono::nanoseconds per_in_flight,
                             reporting::WorkloadResult* out = nullptr) {
  ManualDevice dev;
  dev.plan.latency = FaultPlan::Latency{.base = microseconds(50), .per_in_flight = per_in_flight};
  PtsTest t;
  t.kind = PtsKind::Dirth;
  t.dirth.threads = {1};
  t.dirth.depths = {32, 16, 8, 4, 2, 1};
  t.dirth.round_time_s = 0.05;
  t.dirth.max_rounds = 5;
  t.dirth.ceiling_ns = 1e6;
  t.dirth.histogram_time_s = 0.05;
  WorkloadSpec w = null_spec("dirth", 16ull << 20);
  w.params.rw = "randrw";
  w.params.rwmixread = 65;
  w.params.bs = 8192;
  auto r = run_pts_test(w, t, dev.measure());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(pts_report_of(r) && pts_report_of(r)->steady_state &&
              pts_report_of(r)->steady_state->steady);
  EXPECT_EQ(pts_report_of(r)->grid.size(), 6u);
  PtsGridPoint best;
  for (const auto& g : pts_report_of(r)->grid)
    if (g.within_ceiling && g.iops > best.iops) best = g;
  EXPECT_EQ(figure(r, "dirth.max_iops").value, best.iops);
  if (out) *out = std::move(r);
  return best;
}

TEST(PtsDirth, TheMaxIopsPointMovesWhenTheLatencyLawMoves) {
  reporting::WorkloadResult gentle;
  const auto a = dirth_max_point(microseconds(20), &gentle);  // QD32: 690 us, within 1 ms
  const auto b = dirth_max_point(microseconds(60));           // QD16: 1010 us, over; QD8 within
  EXPECT_EQ(a.qd, 32u);
  EXPECT_EQ(b.qd, 8u);
  EXPECT_GT(a.iops, b.iops);
  EXPECT_NEAR(a.lat_mean_ns, 50e3 + 20e3 * 32, 30e3);
  // The chosen points have their histograms: MaxIOPS, MidIOPS, MinIOPS (T1Q1).
  const auto& p = *pts_report_of(gentle);
  ASSERT_EQ(p.histograms.size(), 3u);
  EXPECT_EQ(p.histograms[0].label, "MaxIOPS");
  EXPECT_EQ(p.histograms[2].label, "MinIOPS");
  EXPECT_EQ(p.histograms[2].qd, 1u);
  for (const auto& h : p.histograms) {
    std::uint64_t n = 0;
    for (const auto& bin : h.bins) n += bin.count;
    EXPECT_GT(n, 0u) << h.label;
    EXPECT_GE(h.lat_p99999_ns, h.lat_p99_ns) << h.label;
  }
  EXPECT_NEAR(figure(gentle, "dirth.min_iops_lat").value, 50e3 + 20e3, 10e3);
}

// HIR: fast writes (40k IOPS) for 8 MiB, then 10x slower; the device wins back 10 MiB of fast
// writes per idle second. Bursts of 0.1 s after idle waits of 0.1..1 s.
// Every pass of a test is named for what it measures (the progress line and the logs show it):
// the tracking point's rounds, each grid point, each chosen point's histogram run.
TEST(PtsDirth, EachPassIsNamedForWhatItMeasures) {
  std::vector<std::string> ids;
  const RunWorkload fake = [&](const WorkloadSpec& s) {
    ids.push_back(s.id);
    reporting::WorkloadResult r;
    r.id = s.id;
    r.elapsed_s = s.params.runtime_s;
    r.read.emplace();
    r.read->iops = 1000;
    r.read->lat.samples = 100;
    r.read->lat.mean_ns = 1e5;
    return r;
  };
  PtsTest t;
  t.kind = PtsKind::Dirth;
  t.dirth.threads = {2, 1};
  t.dirth.depths = {1};
  WorkloadSpec spec = null_spec("dirth-8k", 1 << 20);
  spec.params.rw = "randrw";
  const auto r = run_pts_test(spec, t, fake);
  ASSERT_EQ(ids.size(), 9u) << ::testing::PrintToString(ids);
  EXPECT_EQ(ids[0], "dirth-8k (tracking round 1)");
  EXPECT_EQ(ids[4], "dirth-8k (tracking round 5)");  // a flat series is steady after the window
  EXPECT_EQ(ids[5], "dirth-8k (T2Q1)");              // the most outstanding I/O first
  EXPECT_EQ(ids[6], "dirth-8k (T1Q1)");
  EXPECT_EQ(ids[7], "dirth-8k (MaxIOPS T2Q1 histogram)");
  EXPECT_EQ(ids[8], "dirth-8k (MinIOPS T1Q1 histogram)");
  EXPECT_EQ(r.id, "dirth-8k");
  EXPECT_EQ(r.kind(), "pts-dirth");
}

TEST(PtsHir, BurstIopsGrowWithTheIdleWaitWhenTheDeviceRecoversWhileIdle) {
  ManualDevice dev;
  dev.plan.latency = FaultPlan::Latency{.base = microseconds(100)};
  dev.plan.throughput_cliff = FaultPlan::ThroughputCliff{
      .after_bytes = 8ull << 20, .slowdown = 10, .recover_bytes_per_s = 10.0 * (1 << 20)};
  dev.plan.throughput_cliff->state = std::make_shared<engines::CliffState>(
      dev.plan.throughput_cliff->after_bytes, dev.plan.throughput_cliff->recover_bytes_per_s);
  PtsTest t;
  t.kind = PtsKind::Hir;
  t.hir.burst_s = 0.1;
  t.hir.waits_s = {0.1, 0.2, 0.3, 0.5, 1.0};
  t.hir.cycles = 3;
  t.hir.baseline_s = 0.2;
  t.hir.saturation_rounds = 10;  // round 1 has the fast writes: steady from round 2
  t.hir.round_time_s = 0.2;
  auto clock = dev.clock;
  const auto r =
      run_pts_test(null_spec("hir", 16ull << 20), t, dev.measure(), nullptr, [clock](double s) {
        clock->advance(std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9)));
      });
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  const auto& p = *pts_report_of(r);
  ASSERT_EQ(p.segments.size(), 5u);
  EXPECT_EQ(p.samples.size(), 15u);
  const double baseline = figure(r, "hir.baseline_iops").value;
  EXPECT_NEAR(baseline, 4000, 400);
  for (std::size_t i = 0; i < p.segments.size(); ++i) {
    EXPECT_EQ(p.segments[i].bursts, 3u);
    EXPECT_GT(p.segments[i].settled_iops, baseline * 1.2) << p.segments[i].label;
    if (i) {
      EXPECT_GT(p.segments[i].settled_iops, p.segments[i - 1].settled_iops * 1.05) << i;
    }
  }
  EXPECT_GT(figure(r, "hir.gain_pct").value, 100);
  EXPECT_EQ(figure(r, "hir.iops_longest_wait").value, p.segments.back().settled_iops);

  // Without idle recovery the bursts stay at the baseline whatever the wait.
  dev.plan.throughput_cliff->recover_bytes_per_s = 0;
  dev.plan.throughput_cliff->state =
      std::make_shared<engines::CliffState>(dev.plan.throughput_cliff->after_bytes, 0);
  const auto flat =
      run_pts_test(null_spec("hir", 16ull << 20), t, dev.measure(), nullptr, [clock](double s) {
        clock->advance(std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9)));
      });
  for (const auto& s : pts_report_of(flat)->segments)
    EXPECT_NEAR(s.settled_iops, baseline, baseline * 0.1) << s.label;
}

// XSR's settle time on synthetic samples: 1 s per sample; the group settles at 100 after 4 s.
TEST(PtsXsr, RecoveryIsTheTimeToTheFirstSampleThatStaysNearTheSettledLevel) {
  std::vector<PtsSample> s;
  for (double v : {300.0, 250.0, 180.0, 130.0, 105.0, 98.0, 101.0, 99.0, 100.0, 102.0}) {
    PtsSample x;
    x.t_s = 10 + static_cast<double>(s.size()) + 1;
    x.bw = v;
    s.push_back(x);
  }
  PtsSegment g;
  analyze_xsr_group(s, 10, 0.2, g);
  EXPECT_DOUBLE_EQ(g.settled_bw, 100);
  EXPECT_DOUBLE_EQ(g.recovery_s, 5);  // the fifth sample (105) is the first within 20%
  // A group that never gets there.
  std::vector<PtsSample> up;
  for (int i = 0; i < 6; ++i) {
    PtsSample x;
    x.t_s = i + 1;
    x.bw = i < 5 ? 10 : 1000;
    up.push_back(x);
  }
  PtsSegment h;
  analyze_xsr_group(up, 0, 0.2, h);
  EXPECT_EQ(h.settled_bw, 10);
  EXPECT_EQ(h.recovery_s, 1);
}

TEST(PtsXsr, ThreeAccessGroupsOnTheNullEngine) {
  ManualDevice dev;
  dev.plan.latency = FaultPlan::Latency{.base = microseconds(200)};
  PtsTest t;
  t.kind = PtsKind::Xsr;
  t.xsr.seq_time_s = 0.5;
  t.xsr.rnd_time_s = 0.3;
  t.xsr.interval_s = 0.05;
  const auto r = run_pts_test(null_spec("xsr", 64ull << 20), t, dev.measure());
  ASSERT_TRUE(r.errors.empty());
  const auto& p = *pts_report_of(r);
  ASSERT_EQ(p.segments.size(), 3u);
  EXPECT_EQ(p.segments[0].bs, 1u << 20);
  EXPECT_EQ(p.segments[1].bs, 8192u);
  EXPECT_EQ(p.segments[1].rw, "randwrite");
  EXPECT_NEAR(p.samples.back().t_s, 1.3, 0.06);
  // 4 in flight at 200 us: 20k I/Os per second, 20 GB/s of 1 MiB writes, 160 MB/s of 8 KiB ones.
  EXPECT_NEAR(figure(r, "xsr.seq_bw").value, 20000.0 * (1 << 20), 0.05 * 20000.0 * (1 << 20));
  EXPECT_NEAR(figure(r, "xsr.rnd_bw").value, 20000.0 * 8192, 0.05 * 20000.0 * 8192);
  EXPECT_GE(figure(r, "xsr.recovery_rnd").value, 0);
  EXPECT_LE(figure(r, "xsr.recovery_rnd").value, 0.05e9 + 1);
  for (const auto& s : p.samples) EXPECT_LT(s.segment, 3u);
}

TEST(PtsSuites, TheFourStandardSuitesLoadWithTheSpecsParameters) {
  const std::string dir = std::string(STORQUAL_SOURCE_DIR) + "/suites/";
  const Suite wsat = Suite::load(dir + "snia-wsat.xml");
  ASSERT_EQ(wsat.workloads.size(), 1u);
  ASSERT_TRUE(wsat.workloads[0].method_as<PtsMethod>());
  EXPECT_EQ(wsat.workloads[0].method_as<PtsMethod>()->test().kind, PtsKind::Wsat);
  EXPECT_EQ(wsat.workloads[0].method_as<PtsMethod>()->test().wsat.fills, 4);
  EXPECT_EQ(wsat.workloads[0].method_as<PtsMethod>()->test().wsat.time_limit_s, 24 * 3600);
  EXPECT_EQ(pts_stimulus(wsat.workloads[0].spec), "RND 4KiB W T4Q32");
  EXPECT_EQ(
      pts_duration_s(wsat.workloads[0].method_as<PtsMethod>()->test(), wsat.workloads[0].spec),
      24 * 3600);
  const Suite dirth = Suite::load(dir + "snia-dirth.xml");
  const auto& d = dirth.workloads[0].method_as<PtsMethod>()->test();
  EXPECT_EQ(d.dirth.threads, (std::vector<unsigned>{32, 16, 8, 6, 4, 2, 1}));
  EXPECT_EQ(d.dirth.ceiling_ns, 5e6);
  EXPECT_EQ(pts_stimulus(dirth.workloads[0].spec), "RND 8KiB R/W 65:35 T1Q1");
  const Suite xsr = Suite::load(dir + "snia-xsr.xml");
  EXPECT_EQ(pts_duration_s(xsr.workloads[0].method_as<PtsMethod>()->test(), xsr.workloads[0].spec),
            22 * 3600);
  const Suite hir = Suite::load(dir + "snia-hir.xml");
  const auto& h = hir.workloads[0].method_as<PtsMethod>()->test();
  EXPECT_EQ(h.hir.waits_s, (std::vector<double>{5, 10, 15, 25, 50}));
  EXPECT_EQ(h.hir.cycles, 360u);
  // 25 rounds of a minute, 360 x (5 s + wait) per state, 4 returns to baseline of 30 min.
  EXPECT_EQ(pts_duration_s(h, hir.workloads[0].spec), 25 * 60 + 360 * (25 + 105) + 4 * 1800);
}

TEST(PtsSuites, RejectsUnknownAttributesAndBadValues) {
  auto load = [](const std::string& body) {
    return Suite::parse("<suite name=\"s\">" + body + "</suite>", "s.xml");
  };
  EXPECT_NO_THROW((void)load("<wsat id=\"w\" bs=\"16k\" fills=\"1.5\"/>"));
  EXPECT_THROW((void)load("<wsat id=\"w\" runtime=\"10s\"/>"), FileError);
  EXPECT_THROW((void)load("<wsat id=\"w\" fills=\"0\"/>"), FileError);
  EXPECT_THROW((void)load("<dirth id=\"d\" threads=\"4,x\"/>"), FileError);
  EXPECT_THROW((void)load("<dirth id=\"d\" rounds=\"3\"/>"), FileError);
  EXPECT_THROW((void)load("<hir id=\"h\" waits=\"\"/>"), FileError);
  try {
    (void)load("<xsr id=\"x\" fills=\"2\"/>");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("seq_bs, rnd_bs, seq_time"), std::string::npos)
        << e.what();
  }
}

TEST(PtsScaling, DurationsScaleWithFloorsAndHirKeepsItsShape) {
  PtsTest t;
  t.kind = PtsKind::Hir;
  const PtsTest s = scale_pts_test(t, 0.001);
  EXPECT_DOUBLE_EQ(s.hir.burst_s, 0.05);  // 5 ms floored to 0.05 s
  EXPECT_DOUBLE_EQ(s.hir.waits_s.front(), 0.05);
  EXPECT_DOUBLE_EQ(s.hir.waits_s.back(), 0.5);  // 50 s kept at 10x the burst
  EXPECT_EQ(s.hir.cycles, 2u);
  PtsTest w;
  w.kind = PtsKind::Wsat;
  const PtsTest ws = scale_pts_test(w, 0.01);
  EXPECT_DOUBLE_EQ(ws.wsat.time_limit_s, 864);
  EXPECT_DOUBLE_EQ(ws.wsat.interval_s, 0.6);
  EXPECT_EQ(ws.wsat.fills, 4);  // drive fills do not scale
}

TEST(PtsClaims, FiguresAreMetricsWithTheirUnitsAndDirection) {
  const Metric drop = parse_metric("wsat.drop_pct");
  EXPECT_EQ(drop.kind, MetricKind::Percent);
  EXPECT_FALSE(drop.higher_is_better());
  EXPECT_DOUBLE_EQ(parse_claim_value(drop, "30%"), 30);
  EXPECT_THROW((void)parse_claim_value(drop, "30"), UnitError);
  EXPECT_EQ(parse_metric("wsat.iops").kind, MetricKind::Iops);
  EXPECT_TRUE(parse_metric("dirth.max_iops").higher_is_better());
  EXPECT_EQ(parse_metric("xsr.recovery_rnd").kind, MetricKind::Latency);
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("xsr.recovery_rnd"), "30s"), 30e9);
  EXPECT_EQ(parse_metric("wsat.cliff_tgbw").kind, MetricKind::Capacity);
  EXPECT_THROW((void)parse_metric("wsat.nothing"), UnitError);
  // The reports know each figure by name from model/metric.hpp (HTML, fleet, JUnit).
  EXPECT_FALSE(reporting::higher_is_better("wsat.drop_pct"));
  EXPECT_TRUE(reporting::higher_is_better("hir.gain_pct"));
  EXPECT_FALSE(reporting::higher_is_better("xsr.recovery_seq"));
  EXPECT_EQ(reporting::metric_kind_of("hir.gain_pct"), MetricKind::Percent);
  EXPECT_EQ(reporting::metric_kind_of("dirth.max_iops_p99999"), MetricKind::Latency);
  EXPECT_EQ(reporting::format_metric_value(MetricKind::Percent, 12.345), "12.3%");

  const Suite suite = Suite::parse(
      "<suite name=\"s\"><wsat id=\"wsat-4k\"/><workload id=\"plain\"/></suite>", "s.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"s\"><match model=\"*\"/><claims>"
      "<claim workload=\"wsat-4k\" metric=\"wsat.iops\" value=\"5k\" tolerance=\"10%\"/>"
      "<claim workload=\"wsat-4k\" metric=\"wsat.drop_pct\" value=\"80%\" tolerance=\"0%\"/>"
      "<claim workload=\"wsat-4k\" metric=\"dirth.max_iops\" value=\"5k\"/>"
      "<claim workload=\"plain\" metric=\"wsat.iops\" value=\"5k\"/>"
      "</claims></spec-sheet>",
      "x.xml");
  reporting::WorkloadResult w;
  w.id = "wsat-4k";
  auto report = std::make_shared<PtsMethodReport>();
  report->kind_text = "pts-wsat";
  report->pts.test = "wsat";
  report->pts.figures = {{"wsat.iops", 4800, "IOPS"}, {"wsat.drop_pct", 85, "%"}};
  w.figures = report->pts.figures;  // as the test publishes them
  w.method = std::move(report);
  w.write.emplace();
  w.write->iops = 5000;
  reporting::WorkloadResult plain;
  plain.id = "plain";
  plain.write.emplace();
  plain.write->iops = 1;
  const auto v = judge(sheet, suite, {w, plain});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].status, reporting::VerdictStatus::Pass) << v[0].message;
  EXPECT_EQ(v[1].status, reporting::VerdictStatus::Fail) << v[1].message;  // 85% > 80%: worse
  EXPECT_NE(v[1].message.find("85.0%"), std::string::npos) << v[1].message;
  EXPECT_EQ(v[2].status, reporting::VerdictStatus::Error);
  EXPECT_EQ(v[2].message, "workload 'wsat-4k' is not a <dirth>, so it has no dirth.max_iops");
  EXPECT_EQ(v[3].status, reporting::VerdictStatus::Error);
  EXPECT_EQ(v[3].message, "workload 'plain' is not a <wsat>, so it has no wsat.iops");

  // Without a sheet: one measured-only testcase per figure after the workload's own.
  const auto m = judge_measured_only(suite, {w, plain});
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].metric, "wsat.iops");
  EXPECT_EQ(m[2].metric, "wsat.drop_pct");
  EXPECT_EQ(*m[2].measured, 85);
  EXPECT_EQ(m[1].higher_is_better, true);
  EXPECT_EQ(m[2].higher_is_better, false);  // a drop: less is better
  EXPECT_EQ(m[2].message, "measured 85.0%; no claim");
}

// The bytes before the write cliff are a performance figure: measured on a busy host, the
// verdict says so (a capacity check's usable bytes would not).
TEST(PtsClaims, ACliffMeasuredOnABusyHostIsMarked) {
  const Suite suite = Suite::parse("<suite name=\"s\"><wsat id=\"wsat-4k\"/></suite>", "s.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"s\"><match model=\"*\"/><claims>"
      "<claim workload=\"wsat-4k\" metric=\"wsat.cliff_tgbw\" value=\"1GB\"/>"
      "</claims></spec-sheet>",
      "x.xml");
  reporting::WorkloadResult w;
  w.id = "wsat-4k";
  auto report = std::make_shared<PtsMethodReport>();
  report->kind_text = "pts-wsat";
  report->pts.test = "wsat";
  report->pts.figures = {{"wsat.cliff_tgbw", 2e9, "B"}};
  w.figures = report->pts.figures;
  w.method = std::move(report);
  w.write.emplace();
  w.write->iops = 5000;
  const auto quiet = judge(sheet, suite, {w});
  ASSERT_EQ(quiet.size(), 1u);
  EXPECT_EQ(quiet[0].status, reporting::VerdictStatus::Pass) << quiet[0].message;
  EXPECT_EQ(quiet[0].message.find("host busy"), std::string::npos) << quiet[0].message;
  w.host_busy.emplace();
  w.host_busy->busy = true;
  w.host_busy->reasons = {"other processes used 1.10 of 2 CPUs (user time, on average)"};
  const auto busy = judge(sheet, suite, {w});
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].status, reporting::VerdictStatus::Pass) << busy[0].message;
  EXPECT_EQ(busy[0].message.rfind("host busy: ", 0), 0u) << busy[0].message;
}

TEST(PtsJson, EveryFieldOfTheReportIsWrittenAndReadBack) {
  reporting::RunResult run;
  reporting::WorkloadResult w;
  w.id = "dirth";
  PtsReport p;
  p.test = "dirth";
  p.stimulus = "RND 8KiB R/W 65:35 T1Q1";
  p.interval_s = 0.25;
  p.range_bytes = 1u << 24;
  p.full_scale_s = 7200;
  p.samples = {{1.5, 4096, 100, 409600, 2500, 2}};
  reporting::SteadyStateReport ss;
  ss.rounds = {{10, 1, false}, {11, 1, true}};
  ss.steady = true;
  p.steady_state = ss;
  p.steady_from_s = 1;
  p.steady_to_s = 2;
  p.steady_from_tgbw = 3;
  p.steady_to_tgbw = 4;
  p.cliff_tgbw = 5;
  PtsSegment g;
  g.label = "wait 10s";
  g.rw = "randwrite";
  g.bs = 4096;
  g.start_s = 1;
  g.end_s = 2;
  g.wait_s = 10;
  g.bursts = 3;
  g.mean_iops = 4;
  g.mean_bw = 5;
  g.mean_lat_ns = 6;
  g.settled_bw = 7;
  g.recovery_s = 8;
  g.settled_iops = 9;
  p.segments = {g};
  p.grid = {{4, 8, 1000, 2e5, 9e5, true}};
  p.ceiling_ns = 5e6;
  PtsHistogram h;
  h.label = "MaxIOPS";
  h.threads = 4;
  h.qd = 8;
  h.iops = 1000;
  h.lat_mean_ns = 1;
  h.lat_p99_ns = 2;
  h.lat_p99999_ns = 3;
  h.lat_max_ns = 4;
  h.bins = {{1e5, 10}, {2e5, 0}, {5e5, 3}};
  p.histograms = {h};
  p.figures = {{"dirth.max_iops", 1000, "IOPS"}};
  auto report = std::make_shared<PtsMethodReport>();
  report->kind_text = "pts-dirth";
  report->pts = p;
  w.method = std::move(report);
  run.workloads.push_back(w);
  const std::string text = reporting::to_json_text(run);
  const reporting::RunResult back = reporting::run_result_from_json(text);
  ASSERT_EQ(back.workloads.size(), 1u);
  ASSERT_TRUE(pts_report_of(back.workloads[0]));
  const auto& q = *pts_report_of(back.workloads[0]);
  EXPECT_EQ(q.stimulus, p.stimulus);
  EXPECT_EQ(q.samples[0].segment, 2u);
  EXPECT_EQ(q.samples[0].tgbw, 4096);
  EXPECT_EQ(q.segments[0].settled_iops, 9);
  EXPECT_EQ(q.segments[0].recovery_s, 8);
  EXPECT_EQ(q.grid[0].qd, 8u);
  EXPECT_TRUE(q.grid[0].within_ceiling);
  EXPECT_EQ(q.histograms[0].bins[2].count, 3u);
  EXPECT_EQ(q.histograms[0].lat_p99999_ns, 3);
  EXPECT_EQ(q.figures[0].name, "dirth.max_iops");
  EXPECT_EQ(q.full_scale_s, 7200);
  EXPECT_TRUE(q.steady_state && q.steady_state->rounds[1].steady);
  EXPECT_EQ(reporting::to_json_text(back), text);  // nothing lost, nothing added
}

}  // namespace
}  // namespace storqual::runner
