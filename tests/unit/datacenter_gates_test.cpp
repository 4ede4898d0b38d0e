// SPDX-License-Identifier: Apache-2.0
// Datacenter acceptance gates: per-TB claims against two capacities, write amplification and
// endurance from captured SMART and OCP C0h pages, and thermal throttling from a captured sequence
// of SMART pages during a sustained write (the drop is the drive throttling, not its cache).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "devices/health.hpp"
#include "reporting/html_report.hpp"
#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/methods/gates/thermal_watch.hpp"
#include "runner/methods/gates/wear.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;
using reporting::ClaimVerdict;
using reporting::VerdictStatus;
using reporting::WorkloadResult;

const fs::path kPages = fs::path(STORQUAL_TEST_DATA) / "nvme";

const Suite& dc_suite() {
  static const Suite s = Suite::parse(R"(<suite name="dc">
    <workload id="randread-4k-qd32" rw="randread" iodepth="32"/>
    <workload id="seqread-128k" rw="read" bs="128k" iodepth="32"/>
    <workload id="fill" rw="write" bs="128k" iodepth="32"/>
  </suite>)",
                                      "dc.xml");
  return s;
}

WorkloadResult reads(const std::string& id, double iops, double bw) {
  WorkloadResult r;
  r.id = id;
  r.params.rw = "randread";
  r.read.emplace();
  r.read->iops = iops;
  r.read->bw_bytes = bw;
  r.read->ios = 1000;
  r.elapsed_s = 60;
  return r;
}

const ClaimVerdict& find(const std::vector<ClaimVerdict>& v, const std::string& metric) {
  for (const auto& x : v)
    if (x.metric == metric) return x;
  throw std::runtime_error("no verdict on " + metric);
}

// ---- per-TB claims ----

const char* kPerTbSheet = R"(<spec-sheet name="dc" suite="dc"><match model="*"/><claims>
    <claim workload="randread-4k-qd32" metric="iops" value="50k IOPS/TB"/>
    <claim workload="seqread-128k" metric="bw" value_per_tb="400MB/s"/>
  </claims></spec-sheet>)";

TEST(PerTbClaims, ParseAsAValuePerDecimalTerabyte) {
  SpecSheet s = SpecSheet::parse(kPerTbSheet, "dc-sheet.xml");
  ASSERT_EQ(s.claims.size(), 2u);
  EXPECT_TRUE(s.claims[0].per_tb);
  EXPECT_DOUBLE_EQ(s.claims[0].value, 50'000);
  EXPECT_TRUE(s.claims[1].per_tb);
  EXPECT_DOUBLE_EQ(s.claims[1].value, 400e6);
  EXPECT_DOUBLE_EQ(claim_threshold(s.claims[0], 3.84e12), 192'000);
  bool per_tb = false;
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("iops"), "50kIOPS/TB", per_tb), 50'000);
  EXPECT_TRUE(per_tb);
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("read.bw"), "1.2 GB/s/TB", per_tb), 1.2e9);
  EXPECT_DOUBLE_EQ(parse_claim_value(parse_metric("iops"), "50k", per_tb), 50'000);
  EXPECT_FALSE(per_tb);
}

TEST(PerTbClaims, LatencyPerTbAndBothValuesAreRefused) {
  try {
    (void)SpecSheet::parse(R"(<spec-sheet name="x" suite="dc"><match model="*"/><claims>
      <claim workload="randread-4k-qd32" metric="lat.p99" value="100us/TB"/>
    </claims></spec-sheet>)",
                           "bad.xml");
    FAIL() << "a per-TB latency was accepted";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("does not scale with capacity"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)SpecSheet::parse(R"(<spec-sheet name="x" suite="dc"><match model="*"/><claims>
      <claim workload="randread-4k-qd32" metric="iops" value="1k" value_per_tb="1k"/>
    </claims></spec-sheet>)",
                                      "bad.xml"),
               FileError);
}

TEST(PerTbClaims, OneClaimTwoCapacitiesTwoThresholds) {
  SpecSheet s = SpecSheet::parse(kPerTbSheet, "dc-sheet.xml");
  const std::vector<WorkloadResult> results = {reads("randread-4k-qd32", 150'000, 6e8),
                                               reads("seqread-128k", 12'000, 1.2e9)};
  JudgeContext small, big;
  small.capacity_bytes = 1.92e12;
  big.capacity_bytes = 3.84e12;
  auto a = judge(s, dc_suite(), results, small);
  auto b = judge(s, dc_suite(), results, big);
  const auto& iops_a = find(a, "iops");
  const auto& iops_b = find(b, "iops");
  EXPECT_DOUBLE_EQ(*iops_a.claimed, 96'000);
  EXPECT_DOUBLE_EQ(*iops_b.claimed, 192'000);
  EXPECT_EQ(iops_a.status, VerdictStatus::Pass) << iops_a.message;
  EXPECT_EQ(iops_b.status, VerdictStatus::Fail) << iops_b.message;
  EXPECT_NE(iops_a.message.find("the claimed 96k (tolerance 10%); 50k per TB x 1.92 TB"),
            std::string::npos)
      << iops_a.message;
  EXPECT_NE(iops_b.message.find("the claimed 192k (tolerance 10%); 50k per TB x 3.84 TB"),
            std::string::npos)
      << iops_b.message;
  EXPECT_DOUBLE_EQ(*find(a, "bw").claimed, 768e6);
  EXPECT_DOUBLE_EQ(*find(b, "bw").claimed, 1536e6);
  // Without a capacity the per-TB claim cannot be judged.
  auto none = judge(s, dc_suite(), results);
  EXPECT_EQ(find(none, "iops").status, VerdictStatus::Error);
}

TEST(PerTbClaims, CheckPrintsTheThresholdAtEachCapacity) {
  storqual::testing::ScratchDir dir;
  std::ofstream(dir / "dc.xml") << R"(<suite name="dc">
    <workload id="randread-4k-qd32" rw="randread" iodepth="32"/>
    <workload id="seqread-128k" rw="read" bs="128k" iodepth="32"/>
  </suite>)";
  std::string sheet = kPerTbSheet;
  sheet.replace(sheet.find("suite=\"dc\""), 10, "suite=\"dc.xml\"");
  std::ofstream(dir / "sheet.xml") << sheet;
  auto r = storqual::testing::run_command({STORQUAL_BINARY, "check", "--capacity", "1.92TB",
                                           "--capacity", "3840GB", (dir / "sheet.xml").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("per-TB claim: randread-4k-qd32 iops 50k per TB; at 1.92 TB: 96k; at "
                       "3.84 TB: 192k"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("per-TB claim: seqread-128k bw 400 MB/s per TB; at 1.92 TB: 768 MB/s; at "
                       "3.84 TB: 1.54 GB/s"),
            std::string::npos)
      << r.out;
}

// ---- write amplification and endurance ----

struct Snapshots {
  devices::HealthSnapshot before, after;
};

Snapshots captured_snapshots(bool with_ocp) {
  devices::CapturedNvmeAdmin admin(kPages, {"smart-before.bin", "smart-after.bin"});
  if (with_ocp) admin.set_ocp_pages(kPages, {"ocp-before.bin", "ocp-after.bin"});
  Snapshots s;
  s.before = devices::take_health_snapshot(admin);
  s.after = devices::take_health_snapshot(admin);
  return s;
}

constexpr double kCapacity = 244190646.0 * 4096;  // identify-ns.bin: NSZE x 4 KiB

TEST(Wear, WriteAmplificationIsMediaBytesOverHostBytes) {
  auto s = captured_snapshots(true);
  ASSERT_TRUE(s.before.ocp && s.after.ocp);
  auto w = assess_wear(s.before, s.after, kCapacity, 5);
  EXPECT_DOUBLE_EQ(w.host_written_bytes, 1'024'000'000);  // 2000 data units x 512000
  ASSERT_TRUE(w.media_written_bytes);
  EXPECT_DOUBLE_EQ(*w.media_written_bytes, 2'560'000'000);
  ASSERT_TRUE(w.waf);
  EXPECT_DOUBLE_EQ(*w.waf, 2.5);
  // 104% -> 105% used for 1.024 GB: 102.4 GB per 100%, over 5 years of a 1 TB drive.
  ASSERT_TRUE(w.projected_write_bytes);
  EXPECT_DOUBLE_EQ(*w.projected_write_bytes, 1.024e11);
  ASSERT_TRUE(w.dwpd);
  EXPECT_DOUBLE_EQ(*w.dwpd, 1.024e11 / (kCapacity * 365.25 * 5));
  EXPECT_NE(w.basis.find("percentage used went 104% -> 105%"), std::string::npos) << w.basis;
}

TEST(Wear, WithoutTheOcpLogThereIsNoWaf) {
  auto s = captured_snapshots(false);
  EXPECT_FALSE(s.before.ocp);
  EXPECT_NE(s.before.ocp_note.find("no captured log page C0h"), std::string::npos);
  auto w = assess_wear(s.before, s.after, kCapacity, 5);
  EXPECT_FALSE(w.waf);
  EXPECT_TRUE(w.dwpd);
}

TEST(Wear, WafAndDwpdAreClaimsASheetCanMake) {
  auto s = captured_snapshots(true);
  auto wear = assess_wear(s.before, s.after, kCapacity, 5);
  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="dc" suite="dc" warranty_years="5">
    <match model="*"/><claims>
    <claim workload="fill" metric="waf" value="3"/>
    <claim workload="fill" metric="endurance.dwpd" value="1 DWPD"/>
  </claims></spec-sheet>)",
                                     "wear.xml");
  ASSERT_TRUE(sheet.warranty_years);
  WorkloadResult fill;
  fill.id = "fill";
  fill.params.rw = "write";
  fill.write.emplace();
  JudgeContext ctx;
  ctx.capacity_bytes = kCapacity;
  ctx.wear = &wear;
  ctx.warranty_years = 5.0;
  auto v = judge(sheet, dc_suite(), {fill}, ctx);
  const auto& waf = find(v, "waf");
  EXPECT_EQ(waf.status, VerdictStatus::Pass) << waf.message;  // 2.5 <= 3 x 1.1
  EXPECT_DOUBLE_EQ(*waf.measured, 2.5);
  EXPECT_NE(waf.message.find("measured write amplification 2.5x"), std::string::npos)
      << waf.message;
  const auto& dwpd = find(v, "endurance.dwpd");
  EXPECT_EQ(dwpd.status, VerdictStatus::Fail) << dwpd.message;  // a worn drive: far below 1
  // No wear data (not NVMe): an error naming what is missing.
  auto none = judge(sheet, dc_suite(), {fill}, JudgeContext{});
  EXPECT_EQ(find(none, "waf").status, VerdictStatus::Error);
  EXPECT_NE(find(none, "waf").message.find("needs the NVMe SMART log"), std::string::npos);
  EXPECT_THROW((void)parse_claim_value(parse_metric("waf"), "3 IOPS"), UnitError);
}

// ---- thermal throttling ----

// A sustained write whose rate falls from 3 GB/s to 1 GB/s at t = 12 s, over 25 one-second
// intervals.
WorkloadResult sustained_write_with_drop() {
  WorkloadResult r;
  r.id = "fill";
  r.params.rw = "write";
  r.write.emplace();
  r.write->bw_bytes = 2e9;
  r.elapsed_s = 25;
  for (int i = 1; i <= 25; ++i) {
    reporting::TimelinePoint p;
    p.t_s = i;
    p.write_bw = i <= 12 ? 3e9 : 1e9;
    r.timeline.push_back(p);
  }
  auto report = std::make_shared<SustainedWriteMethodReport>();
  report->sustained = analyze_sustained_write(r.timeline, 0.5, 5);
  r.method = std::move(report);
  return r;
}

// The captured SMART pages read every 5 s during the write, as the sampler does.
std::vector<reporting::ThermalSample> readings(const std::vector<std::string>& pages) {
  devices::CapturedNvmeAdmin admin(kPages, pages);
  std::vector<reporting::ThermalSample> out;
  for (int i = 0; i < 6; ++i) out.push_back(thermal_sample(admin, 5.0 * i));
  return out;
}

TEST(Throttling, ACapturedThermalTransitionMarksTheIntervalAndExplainsTheDrop) {
  auto r = sustained_write_with_drop();
  ASSERT_TRUE(sustained_write_report(r)->dropped);
  EXPECT_NEAR(sustained_write_report(r)->cache_time_s, 12, 1);
  attach_thermal(r,
                 readings({"smart-thermal-0.bin", "smart-thermal-1.bin", "smart-thermal-2.bin",
                           "smart-thermal-3.bin", "smart-thermal-4.bin", "smart-thermal-5.bin"}),
                 r.elapsed_s);
  ASSERT_EQ(r.thermal.size(), 6u);
  EXPECT_EQ(r.thermal[3].temperature_c, 352 - 273);
  // TMT1: one transition between the readings at 10 s and 15 s, 40 s of it by 20 s.
  ASSERT_EQ(r.throttled.size(), 1u);
  EXPECT_DOUBLE_EQ(r.throttled[0].start_s, 10);
  EXPECT_DOUBLE_EQ(r.throttled[0].end_s, 20);
  EXPECT_EQ(r.throttled[0].level, "TMT1");
  EXPECT_EQ(r.throttled[0].seconds, 40u);
  EXPECT_EQ(sustained_write_report(r)->drop_cause, "thermal throttling");

  // The verdicts say so: a claim over the workload names the throttled span, and the
  // measured-only summary attributes the drop to throttling rather than the cache.
  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="dc" suite="dc"><match model="*"/>
    <claims><claim workload="fill" metric="write.bw" value="1.5GB/s"/></claims></spec-sheet>)",
                                     "t.xml");
  auto v = judge(sheet, dc_suite(), {r});
  EXPECT_NE(v[0].message.find("thermal throttling during the measurement (TMT1 40 s between "
                              "10.0 s and 20.0 s)"),
            std::string::npos)
      << v[0].message;
  auto m = judge_measured_only(dc_suite(), {r});
  bool said = false;
  for (const auto& x : m)
    if (reporting::workload_text(x) == "fill")
      said = x.message.find("by thermal throttling (not the write cache)") != std::string::npos;
  EXPECT_TRUE(said);

  // JSON keeps the readings and the span; HTML marks it on the timeline.
  reporting::RunResult run;
  run.workloads.push_back(r);
  run.verdicts = v;
  auto back = reporting::run_result_from_json(reporting::to_json_text(run));
  ASSERT_EQ(back.workloads[0].throttled.size(), 1u);
  EXPECT_DOUBLE_EQ(back.workloads[0].throttled[0].start_s, 10);
  EXPECT_EQ(back.workloads[0].thermal.size(), 6u);
  EXPECT_EQ(sustained_write_report(back.workloads[0])->drop_cause, "thermal throttling");
  const std::string html = reporting::render_html(run);
  EXPECT_NE(html.find("throttled (TMT1, 40 s)"), std::string::npos);
  EXPECT_NE(html.find("throughput drop (thermal throttling, not the cache)"), std::string::npos);
}

TEST(Throttling, WithoutThermalTransitionsTheDropIsTheCache) {
  auto r = sustained_write_with_drop();
  attach_thermal(r, readings({"smart-thermal-0.bin", "smart-thermal-1.bin", "smart-thermal-2.bin"}),
                 r.elapsed_s);
  EXPECT_TRUE(r.throttled.empty());
  EXPECT_EQ(sustained_write_report(r)->drop_cause, "cache cliff");
}

TEST(Throttling, ReadingsOverTheWholeWorkloadAreShiftedOntoTheMeasuredPart) {
  auto r = sustained_write_with_drop();  // 25 s measured
  auto raw = readings({"smart-thermal-0.bin", "smart-thermal-1.bin", "smart-thermal-2.bin",
                       "smart-thermal-3.bin", "smart-thermal-4.bin", "smart-thermal-5.bin"});
  attach_thermal(r, raw, 30);  // 5 s of preconditioning and ramp came first
  ASSERT_EQ(r.throttled.size(), 1u);
  EXPECT_DOUBLE_EQ(r.throttled[0].start_s, 5);
  EXPECT_DOUBLE_EQ(r.throttled[0].end_s, 15);
}

TEST(Throttling, TheSamplerThreadReadsThroughTheSerializedAdmin) {
  devices::CapturedNvmeAdmin inner(kPages, {"smart-thermal-0.bin", "smart-thermal-3.bin"});
  SerializedNvmeAdmin admin(inner);
  ThermalSampler sampler(admin, 3600);  // one reading at the start, one at stop(): no waiting
  auto samples = sampler.stop();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_LE(samples[0].t_s, samples[1].t_s);
  EXPECT_EQ(samples[0].tmt1_transitions, 2u);
  EXPECT_EQ(samples[1].tmt1_transitions, 3u);
  EXPECT_EQ(throttled_intervals(samples).size(), 1u);
}

}  // namespace
}  // namespace storqual::runner
