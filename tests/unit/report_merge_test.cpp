// SPDX-License-Identifier: Apache-2.0
// The fleet merge: lot acceptance (a unit more than N% worse than its model's median is flagged
// even when it meets its claim), the fleet JSON read back, the merged JUnit and the fleet HTML
// page.
#include <gtest/gtest.h>

#include <pugixml.hpp>
#include <set>
#include <string>

#include "archive/results_store.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::ScratchDir;

// A unit of the sample model on `host` with serial `serial` whose randread IOPS is `iops`
// (claim 97k, tolerance 10%).
RunResult unit(const std::string& host, const std::string& serial, double iops) {
  RunResult r = sample::run(false, 5);
  r.environment.host = host;
  for (auto& row : r.device.identity)
    if (row.field == "serial") row.value = serial;
  r.workloads[0].read->iops = iops;
  r.verdicts[0] = sample::verdict("randread-4k-qd32", "iops", "IOPS", 97000, iops, 10, 5);
  return r;
}

const ClaimVerdict* find_verdict(const RunResult& r, const std::string& kind,
                                 const std::string& workload, const std::string& metric) {
  for (const auto& v : r.verdicts)
    if (to_string(v.kind) == kind && workload_text(v) == workload && v.metric == metric) return &v;
  return nullptr;
}

using storqual::testing::count;

TEST(LotAcceptance, FlagsAUnitBelowTheMedianEvenWhenItMeetsItsClaim) {
  // Median of {120k, 118k, 121k, 104k} = 119k; 104k is 12.6% below it but above the claimed
  // 97k * 0.9: it passes its claim and is the lot's outlier.
  const auto fleet = build_fleet({unit("a", "S1", 120000), unit("b", "S2", 118000),
                                  unit("c", "S3", 121000), unit("d", "S4", 104000)},
                                 10);
  ASSERT_EQ(fleet.runs.size(), 4u);
  EXPECT_EQ(fleet.runs[3].verdicts[0].status, VerdictStatus::Pass);  // the claim itself
  const auto* lot = find_verdict(fleet.runs[3], "lot", "randread-4k-qd32", "iops");
  ASSERT_NE(lot, nullptr);
  EXPECT_EQ(lot->status, VerdictStatus::Fail);
  EXPECT_DOUBLE_EQ(*lot->claimed, 119000);
  EXPECT_NEAR(*lot->diff_pct, -12.605, 0.01);
  EXPECT_NE(lot->message.find("below the median"), std::string::npos) << lot->message;
  for (int i = 0; i < 3; ++i) {
    const auto* ok = find_verdict(fleet.runs[i], "lot", "randread-4k-qd32", "iops");
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(ok->status, VerdictStatus::Pass) << ok->message;
  }
  EXPECT_EQ(fleet.flagged_count(), 1u);
  // With a 15% lot tolerance nobody is flagged.
  EXPECT_EQ(build_fleet({unit("a", "S1", 120000), unit("b", "S2", 118000), unit("c", "S3", 121000),
                         unit("d", "S4", 104000)},
                        15)
                .flagged_count(),
            0u);
}

TEST(LotAcceptance, HostLimitedUnitsAreLeftOutNotFlaggedBusyOnesAreCompared) {
  // Four units on one host run at once: the fourth got half a CPU. Its 60k is the host's figure
  // as much as its own, so it is shown, not compared, and not flagged.
  RunResult starved = unit("a", "S4", 60000);
  HostLimitReport limited;
  limited.limited = true;
  limited.cpu_wait_pct = 45;
  limited.cpu_wait_reason = "job threads waited for a CPU 45% of the time (run queue)";
  limited.reasons = {limited.cpu_wait_reason};
  starved.workloads[0].host_limit = limited;
  auto fleet = build_fleet(
      {unit("a", "S1", 120000), unit("a", "S2", 118000), unit("a", "S3", 121000), starved}, 10);
  EXPECT_EQ(fleet.flagged_count(), 0u);
  const auto* left = find_verdict(fleet.runs[3], "lot", "randread-4k-qd32", "iops");
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->status, VerdictStatus::MeasuredOnly);
  EXPECT_DOUBLE_EQ(*left->claimed, 120000) << "the median of the three units the host let run";
  EXPECT_NE(left->message.find("left out of the lot check, host-limited (randread-4k-qd32: job "
                               "threads waited for a CPU 45% of the time (run queue))"),
            std::string::npos)
      << left->message;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(find_verdict(fleet.runs[i], "lot", "randread-4k-qd32", "iops")->status,
              VerdictStatus::Pass);
  const std::string html = render_fleet_html(fleet);
  EXPECT_NE(html.find("class=\"lot left-out\""), std::string::npos);
  EXPECT_NE(html.find("left out of the lot check: why"), std::string::npos);
  EXPECT_NE(
      html.find("4 metrics compared over 15 unit values (1 more left out: the host limited them)"),
      std::string::npos);
  const auto json = fleet_to_json(fleet);
  EXPECT_EQ(json["lot"]["groups"][0]["units"][3]["left_out"],
            "host-limited (randread-4k-qd32: job threads waited for a CPU 45% of the time (run "
            "queue))");
  EXPECT_EQ(json["lot"]["groups"][0]["units"][0]["left_out"], "");

  // A second starved unit leaves two: too few to judge a lot. A unit measured beside other
  // processes whose jobs did not wait for the CPU (busy, not host-limited) is compared: its low
  // figure is its own.
  RunResult starved2 = starved;
  for (auto& row : starved2.device.identity)
    if (row.field == "serial") row.value = "S5";
  fleet = build_fleet({unit("a", "S1", 120000), unit("a", "S2", 118000), starved, starved2}, 10);
  EXPECT_EQ(fleet.flagged_count(), 0u);
  ASSERT_FALSE(fleet.lot.empty());
  EXPECT_EQ(fleet.lot[0].workload + " " + fleet.lot[0].metric, "randread-4k-qd32 iops");
  EXPECT_EQ(fleet.lot[0].not_judged,
            "a lot check needs at least 3 units that the host did not limit (2 units left out: "
            "host-limited)");
  RunResult crowded = unit("a", "S6", 60000);
  HostBusyReport busy;
  busy.busy = true;
  busy.reasons = {"other processes used 1.9 of 2 CPUs (user time)"};
  crowded.workloads[0].host_busy = busy;
  fleet = build_fleet(
      {unit("a", "S1", 120000), unit("a", "S2", 118000), unit("a", "S3", 121000), crowded}, 10);
  const auto* busy_lot = find_verdict(fleet.runs[3], "lot", "randread-4k-qd32", "iops");
  ASSERT_NE(busy_lot, nullptr);
  EXPECT_EQ(busy_lot->status, VerdictStatus::Fail) << busy_lot->message;
  EXPECT_EQ(fleet.flagged_count(), 1u);
}

TEST(LotAcceptance, LatencyIsFlaggedAboveTheMedianAndModelsAreNotMixed) {
  std::vector<RunResult> runs;
  for (double p99 : {200e3, 210e3, 300e3}) {
    RunResult r = unit("h", "S" + std::to_string(runs.size()), 100000);
    r.verdicts.push_back(sample::verdict("randread-4k-qd32", "lat.p99", "ns", 400e3, p99, 10, 5));
    runs.push_back(std::move(r));
  }
  RunResult other = unit("h", "X1", 10000);  // another model: its low IOPS is no lot finding
  for (auto& row : other.device.identity)
    if (row.field == "model") row.value = "Another SSD";
  runs.push_back(other);
  const auto fleet = build_fleet(runs, 10);
  const auto* slow = find_verdict(fleet.runs[2], "lot", "randread-4k-qd32", "lat.p99");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->status, VerdictStatus::Fail);
  EXPECT_EQ(find_verdict(fleet.runs[3], "lot", "randread-4k-qd32", "iops"), nullptr);
  EXPECT_EQ(fleet.flagged_count(), 1u);
}

// A unit whose <capacity> check found `bytes` usable (claimed 1 TB), as
// runner/methods/capacity/capacity_check.cpp judges it: higher is better.
RunResult capacity_unit(const std::string& serial, double bytes) {
  RunResult r = unit("h", serial, 100000);
  ClaimVerdict v = sample::verdict("capacity", "capacity", "B", 1e12, bytes, 10, 1);
  v.higher_is_better = true;
  r.verdicts.push_back(v);
  return r;
}

TEST(LotAcceptance, CapacityDirectionComesFromTheVerdictNotTheMetricName) {
  // Median 1 TB of {1 TB, 1 TB, 0.9 TB}: the unit 10% short is flagged (lot tolerance 5%).
  const auto low = build_fleet(
      {capacity_unit("S1", 1e12), capacity_unit("S2", 1e12), capacity_unit("S3", 0.9e12)}, 5);
  const auto* flagged = find_verdict(low.runs[2], "lot", "capacity", "capacity");
  ASSERT_NE(flagged, nullptr);
  EXPECT_EQ(flagged->status, VerdictStatus::Fail) << flagged->message;
  EXPECT_NE(flagged->message.find("10.0% below the median"), std::string::npos) << flagged->message;
  EXPECT_EQ(low.flagged_count(), 1u);
  // 10% more capacity than the lot is no defect.
  const auto high = build_fleet(
      {capacity_unit("S1", 1e12), capacity_unit("S2", 1e12), capacity_unit("S3", 1.1e12)}, 5);
  const auto* roomy = find_verdict(high.runs[2], "lot", "capacity", "capacity");
  ASSERT_NE(roomy, nullptr);
  EXPECT_EQ(roomy->status, VerdictStatus::Pass) << roomy->message;
  EXPECT_EQ(high.flagged_count(), 0u);
  // The direction is what the verdict says: the same numbers as a lower-is-better metric flip.
  std::vector<RunResult> runs = {capacity_unit("S1", 1e12), capacity_unit("S2", 1e12),
                                 capacity_unit("S3", 1.1e12)};
  for (auto& r : runs) r.verdicts.back().higher_is_better = false;
  EXPECT_EQ(build_fleet(runs, 5).flagged_count(), 1u);
}

TEST(LotAcceptance, TwoUnitsAreNeverFlaggedTheirSpreadIsShown) {
  // 120k and 60k IOPS, p99 200us and 900us: far apart, and still no finding with two units.
  std::vector<RunResult> runs = {unit("a", "S1", 120000), unit("b", "S2", 60000)};
  runs[0].verdicts.push_back(
      sample::verdict("randread-4k-qd32", "lat.p99", "ns", 1e6, 200e3, 10, 1));
  runs[1].verdicts.push_back(
      sample::verdict("randread-4k-qd32", "lat.p99", "ns", 1e6, 900e3, 10, 1));
  const auto fleet = build_fleet(runs, 10);
  EXPECT_EQ(fleet.flagged_count(), 0u);
  ASSERT_FALSE(fleet.lot.empty());
  for (const auto& c : fleet.lot) {
    EXPECT_NE(c.not_judged.find("at least 3 units"), std::string::npos) << c.not_judged;
    for (const auto& u : c.units) EXPECT_FALSE(u.flagged);
  }
  const auto* slow = find_verdict(fleet.runs[1], "lot", "randread-4k-qd32", "iops");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->status, VerdictStatus::MeasuredOnly) << slow->message;
  EXPECT_NE(slow->message.find("33.3% below the median"), std::string::npos) << slow->message;
  EXPECT_NE(slow->message.find("not judged"), std::string::npos) << slow->message;
  for (const auto& r : fleet.runs)
    for (const auto& v : r.verdicts)
      if (v.kind == reporting::VerdictKind::Lot) {
        EXPECT_NE(v.status, VerdictStatus::Fail) << v.message;
      }
  const auto json = fleet_to_json(fleet);
  EXPECT_EQ(json["lot"]["min_units"], 3);
  EXPECT_EQ(json["lot"]["groups"][0]["judged"], false);
  const std::string html = render_fleet_html(fleet);
  EXPECT_NE(html.find("class=\"lot not-judged\""), std::string::npos);
  EXPECT_EQ(html.find("LOT OUTLIER"), std::string::npos);
  // A third unit makes it a lot: the 60k unit is then flagged.
  runs.push_back(unit("c", "S3", 118000));
  runs[2].verdicts.push_back(
      sample::verdict("randread-4k-qd32", "lat.p99", "ns", 1e6, 210e3, 10, 1));
  EXPECT_EQ(build_fleet(runs, 10).flagged_count(), 2u) << "its IOPS and its p99";
}

TEST(LotAcceptance, FilesWithoutTheDirectionAreShownNotJudged) {
  std::vector<RunResult> runs = {unit("a", "S1", 120000), unit("b", "S2", 60000),
                                 unit("c", "S3", 121000)};
  runs[1].verdicts[0].higher_is_better.reset();  // a result of an older storqual
  const auto fleet = build_fleet(runs, 10);
  const auto* v = find_verdict(fleet.runs[1], "lot", "randread-4k-qd32", "iops");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::MeasuredOnly) << v->message;
  EXPECT_NE(v->message.find("do not record whether higher or lower is better"), std::string::npos)
      << v->message;
}

TEST(FleetHtml, OneHeadingSingularCountsAndChartLabelsThatFit) {
  const std::string host(48, 'h');
  const auto fleet = build_fleet({unit(host, "S1", 120000), unit(host, "S2", 90000)}, 10);
  const std::string html = render_fleet_html(fleet);
  EXPECT_EQ(count(html, "<h1"), 1u) << "one <h1> a page; the device sections nest below it";
  EXPECT_NE(html.find("2 devices on 1 host, 1 model<"), std::string::npos);
  EXPECT_EQ(html.find("1 hosts"), std::string::npos);
  EXPECT_EQ(html.find("1 models"), std::string::npos);
  // Each bar label is right-aligned at x; its 11 px glyphs (at most 7 px each) must fit left of it.
  const std::string label = "1. " + host + " " + fleet.runs[0].device.name;
  const auto at = html.find(">" + label + "</text>");
  ASSERT_NE(at, std::string::npos);
  const auto x_at = html.rfind("<text x=\"", at);
  const double x = std::stod(html.substr(x_at + 9));
  EXPECT_GE(x, 7.0 * static_cast<double>(label.size())) << label;
}

TEST(FleetJson, RoundTripsAndDoesNotDuplicateLotVerdicts) {
  ScratchDir dir("report-merge");
  const auto fleet =
      build_fleet({unit("a", "S1", 120000), unit("b", "S2", 90000), unit("c", "S3", 121000)}, 10);
  const auto json = fleet_to_json(fleet);
  EXPECT_EQ(json["fleet_format"], 1);
  EXPECT_EQ(json["lot"]["flagged"], 1);
  EXPECT_EQ(json["fleet"].size(), 3u);
  EXPECT_EQ(json["fleet"][1]["verdicts"].back()["kind"], "lot");
  const auto path = (dir / "fleet.json").string();
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string text = fleet_to_json_text(fleet);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  const auto back = FileResultsStore().load(path);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1].environment.host, "b");
  const auto again = build_fleet(back, 10);
  EXPECT_EQ(again.runs[1].verdicts.size(), fleet.runs[1].verdicts.size());
  EXPECT_EQ(again.flagged_count(), 1u);
}

TEST(FleetJUnit, OneSuitePerDeviceWithLotTestcases) {
  const auto fleet =
      build_fleet({unit("a", "S1", 120000), unit("b", "S2", 90000), unit("c", "S3", 121000)}, 10);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(render_junit(fleet.runs).c_str()));
  std::set<std::string> names;
  int suites = 0;
  for (auto s : doc.child("testsuites").children("testsuite")) {
    ++suites;
    names.insert(s.attribute("name").value());
  }
  EXPECT_EQ(suites, 3);
  EXPECT_EQ(names.size(), 3u);
  const auto failing = doc.select_node(
      "//testsuite[@hostname='b']/testcase[@name='S2 lot: randread-4k-qd32 iops']/failure");
  ASSERT_TRUE(failing);
  EXPECT_STREQ(failing.node().attribute("type").value(), "lot-outlier");
  EXPECT_EQ(std::string(failing.node().attribute("message").value())
                .rfind("S2 lot: randread-4k-qd32 iops: measured 90k IOPS", 0),
            0u)
      << failing.node().attribute("message").value();
  EXPECT_TRUE(doc.select_node(
      "//testsuite[@hostname='a']/testcase[@name='S1 lot: randread-4k-qd32 iops']"));
  EXPECT_FALSE(doc.select_node(
      "//testsuite[@hostname='a']/testcase[@name='S1 lot: randread-4k-qd32 iops']/failure"));
}

TEST(FleetJUnit, OneDeviceRunTwiceIsTwoSuitesAndOneUnitOfItsLot) {
  // S1 qualified twice (the later run slower), S2 once: the lot has two units, S1 counted by its
  // later run; without that, S1's two runs would be two units and S1 compared with itself.
  RunResult s1_first = unit("a", "S1", 120000);
  RunResult s1_later = unit("a", "S1", 100000);
  s1_later.environment.start_utc = "2026-11-30T07:00:00Z";
  const auto fleet = build_fleet({s1_first, s1_later, unit("b", "S2", 121000)}, 10);
  ASSERT_FALSE(fleet.lot.empty());
  for (const auto& c : fleet.lot) {
    EXPECT_EQ(c.units.size(), 2u) << c.workload << " " << c.metric;
    if (c.workload == "randread-4k-qd32" && c.metric == "iops") {
      EXPECT_DOUBLE_EQ(c.median, (100000 + 121000) / 2.0);
    }
  }
  EXPECT_EQ(find_verdict(fleet.runs[0], "lot", "randread-4k-qd32", "iops"), nullptr);
  EXPECT_NE(find_verdict(fleet.runs[1], "lot", "randread-4k-qd32", "iops"), nullptr);
  // The JUnit keeps both runs of S1 apart, every (classname, name) once.
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(render_junit(fleet.runs).c_str()));
  std::set<std::string> suites;
  std::set<std::pair<std::string, std::string>> cases;
  std::size_t n = 0;
  for (auto s : doc.child("testsuites").children("testsuite")) {
    suites.insert(s.attribute("name").value());
    for (auto c : s.children("testcase")) {
      ++n;
      cases.insert({c.attribute("classname").value(), c.attribute("name").value()});
    }
  }
  EXPECT_EQ(suites.size(), 3u);
  EXPECT_EQ(cases.size(), n);
}

TEST(FleetHtml, FleetTableChartsAndDeviceSectionsWithUniqueAnchors) {
  auto odd = unit("host-<b>", "S2", 90000);
  odd.device.name = "sdb\"<script>";
  const auto fleet =
      build_fleet({unit("host-a", "S1", 120000), odd, unit("host-c", "S3", 121000)}, 10);
  const std::string html = render_fleet_html(fleet);
  EXPECT_NE(html.find("id=\"fleet-table\""), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"device"), 3u);
  for (int i = 1; i <= 3; ++i) {
    const std::string id = "d" + std::to_string(i);
    // The fleet table links every device; the outlier table links the outlier (unit 2) again.
    EXPECT_EQ(count(html, "href=\"#" + id + "\""), i == 2 ? 2u : 1u) << id;
    EXPECT_EQ(count(html, "id=\"" + id + "\""), 1u);
    EXPECT_EQ(count(html, "id=\"" + id + "-w0\""), 1u);
  }
  // One chart per claim of the sample sheet (4 claims), each with a claim tick per unit.
  EXPECT_EQ(count(html, "data-chart=\"fleet-claim\""), 4u);
  EXPECT_GE(count(html, "<line class=\"claim\""), 12u);
  EXPECT_NE(html.find("class=\"bar lot\""), std::string::npos) << "the outlier's bar";
  EXPECT_NE(html.find("LOT OUTLIER"), std::string::npos);
  // Escaped, not markup; no duplicate ids from the nested single-run pages.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("host-&lt;b&gt;"), std::string::npos);
  EXPECT_EQ(count(html, "id=\"verdict\""), 1u);
  EXPECT_EQ(count(html, "<h2>Workloads</h2>"), 0u) << "device pages nest one level down";
  EXPECT_EQ(count(html, "<h3>Workloads</h3>"), 3u);
}

TEST(SingleRunHtml, BaselineAndLotVerdictsAreMarkedButDrawNoClaimLine) {
  RunResult r = sample::run(false, 5);
  ClaimVerdict b = sample::verdict("randread-4k-qd32", "iops", "IOPS", 150000, 98400, 5, 5);
  b.kind = reporting::VerdictKind::Baseline;
  r.verdicts.push_back(b);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<span class=\"kind\">baseline:</span> randread-4k-qd32"), std::string::npos);
  // The timeline's claim line is the sheet's 97k, not the baseline's 150k.
  EXPECT_EQ(html.find("claim iops 150"), std::string::npos);
}

}  // namespace
}  // namespace storqual::reporting
