// SPDX-License-Identifier: Apache-2.0
// Issue 19, "what it must show" 1, through the storqual binary as a user runs it: `storqual
// suites` lists snia-wsat, snia-dirth, snia-xsr and snia-hir with what each takes at full scale;
// each suite runs on a zram device at a small --runtime-scale, its JSON carries the PTS report
// (samples, figures, the test header's facts), its JUnit has a testcase per figure and its HTML
// section has the test header and the PTS's plots, each an SVG with data points.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using storqual::testing::count;
using storqual::testing::read_file;

struct PtsRun {
  testing::CommandResult command;
  nlohmann::json result;
  std::string html, junit;
  double seconds = 0;
};

PtsRun run_suite(const std::string& device, const std::string& suite, const std::string& scale,
                 const fs::path& out) {
  PtsRun r;
  const auto start = std::chrono::steady_clock::now();
  r.command = testing::run_command({STORQUAL_BINARY, "run", "--target", device, "--suite", suite,
                                    "--runtime-scale", scale, "--size", "32m",
                                    "--allow-destructive", "--force", "--out", out.string()});
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s on %s at --runtime-scale %s: exit %d in %.1f s\n", suite.c_str(), device.c_str(),
              scale.c_str(), r.command.exit_code, r.seconds);
  if (fs::exists(out / "storqual-result.json"))
    r.result = nlohmann::json::parse(read_file(out / "storqual-result.json"));
  if (fs::exists(out / "storqual-report.html")) r.html = read_file(out / "storqual-report.html");
  if (fs::exists(out / "storqual-junit.xml")) r.junit = read_file(out / "storqual-junit.xml");
  return r;
}

// The <figure data-chart="pts-KIND"> blocks of the page, and the data points of their SVGs:
// polyline vertices, single-point circles and histogram bars.
std::vector<std::size_t> chart_points(const std::string& html, const std::string& kind) {
  std::vector<std::size_t> out;
  const std::string open = "data-chart=\"pts-" + kind + "\"";
  for (auto at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const auto end = html.find("</figure>", at);
    const std::string svg = html.substr(at, end - at);
    std::size_t points = count(svg, "<circle ") + count(svg, "<rect class=\"bin\"");
    static const std::regex poly("<polyline[^>]*points=\"([^\"]*)\"");
    for (std::sregex_iterator it(svg.begin(), svg.end(), poly), e; it != e; ++it)
      points += count((*it)[1].str(), ",");
    out.push_back(points);
  }
  return out;
}

const nlohmann::json& pts_of(const PtsRun& r) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!r.result.is_object() || r.result["workloads"].empty()) return empty;
  const auto& w = r.result["workloads"][0];
  return w.contains("pts") ? w["pts"] : empty;
}

double figure(const nlohmann::json& pts, const std::string& name) {
  for (const auto& f : pts["figures"])
    if (f["name"] == name) return f["value"].get<double>();
  return -1;
}

// What every PTS section has: the run worked, the test header, a testcase per figure.
void expect_common(const PtsRun& r, const std::string& test, std::size_t figures) {
  SCOPED_TRACE(test);
  ASSERT_LE(r.command.exit_code, 1) << r.command.out << r.command.err;
  const auto& pts = pts_of(r);
  ASSERT_TRUE(pts.contains("test")) << r.command.out;
  EXPECT_EQ(pts["test"], test);
  EXPECT_EQ(r.result["workloads"][0]["kind"], "pts-" + test);
  EXPECT_TRUE(r.result["workloads"][0]["errors"].empty()) << r.result["workloads"][0]["errors"];
  EXPECT_EQ(pts["range_bytes"].get<std::uint64_t>(), 32ull << 20);
  EXPECT_GT(pts["full_scale_s"].get<double>(), 3600);
  EXPECT_EQ(pts["figures"].size(), figures) << pts["figures"];
  for (const auto& f : pts["figures"]) {
    // "<device label> <workload> <figure> measured only" (docs/reports.md, JUnit names)
    EXPECT_NE(r.junit.find(" " + r.result["workloads"][0]["id"].get<std::string>() + " " +
                           f["name"].get<std::string>() + " measured only\""),
              std::string::npos)
        << f["name"];
  }
  // The PTS test header.
  const auto box = r.html.find("<div class=\"box pts\" data-pts=\"" + test + "\">");
  ASSERT_NE(box, std::string::npos);
  const std::string header = r.html.substr(box, r.html.find("</table>", box) - box);
  for (const char* row :
       {"<th>test</th>", "<th>stimulus</th>", "<th>device</th>", "<th>capacity</th>",
        "<th>firmware</th>", "<th>purge method</th>", "<th>preconditioning</th>",
        "<th>steady-state convergence</th>", "<th>time at full scale</th>"})
    EXPECT_NE(header.find(row), std::string::npos) << row;
  EXPECT_NE(header.find("<th>purge method</th><td>suite: purge: BLKDISCARD of [0, 32m)"),
            std::string::npos)
      << "the purge is named";
}

TEST(SniaPtsSuites, ListedWithTheirFullScaleDurations) {
  const auto list = testing::run_command({STORQUAL_BINARY, "suites"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* line :
       {"wsat-4k                wsat      RND 4KiB W T4Q32, full scale up to 24.0 h",
        "dirth-8k-r65           dirth     RND 8KiB R/W 65:35, T1..32 x Q1..32, full scale up to "
        "1.7 h",
        "xsr                    xsr       SEQ 1024KiB W T1Q32, RND 8KiB W T4Q32, SEQ 1024KiB W "
        "T1Q32, full scale up to 22.0 h",
        "hir-4k                 hir       RND 4KiB W T4Q32, full scale up to 15.4 h"})
    EXPECT_NE(list.out.find(line), std::string::npos) << line << "\n" << list.out;
}

TEST(SniaPtsSuites, EachRunsOnZramAndItsSectionHasThePtsPlots) {
  STORQUAL_REQUIRE_ROOT();
  testing::ScratchDir dir("storqual-pts");
  testing::ZramDevice zram(64ull << 20);

  {  // WSAT: IOPS against time and against TGBW, with the data of every sample.
    const PtsRun r = run_suite(zram.path(), "snia-wsat", "0.0002", dir / "wsat");
    expect_common(r, "wsat", 3 + (figure(pts_of(r), "wsat.cliff_tgbw") >= 0 ? 1 : 0));
    const auto& pts = pts_of(r);
    const std::size_t samples = pts["samples"].size();
    EXPECT_GE(samples, 5u);
    EXPECT_NEAR(pts["samples"][samples - 1]["tgbw"].get<double>(), 4.0 * (32 << 20),
                4.0 * (32 << 20) * 0.01);  // four fills of the range
    EXPECT_GT(figure(pts, "wsat.iops"), 0);
    for (const char* kind : {"wsat-time", "wsat-tgbw", "wsat-latency"}) {
      const auto charts = chart_points(r.html, kind);
      ASSERT_EQ(charts.size(), 1u) << kind;
      EXPECT_GE(charts[0], samples) << kind;
    }
  }
  {  // DIRTH: 49 grid points, demand intensity and variation, three histograms.
    const PtsRun r = run_suite(zram.path(), "snia-dirth", "0.0005", dir / "dirth");
    expect_common(r, "dirth", 5);
    const auto& pts = pts_of(r);
    EXPECT_EQ(pts["grid"].size(), 49u);
    EXPECT_TRUE(pts["steady_state"].contains("rounds"));
    EXPECT_GE(pts["histograms"].size(), 2u);
    EXPECT_EQ(pts["histograms"][0]["label"], "MaxIOPS");
    EXPECT_EQ(chart_points(r.html, "dirth-intensity"), std::vector<std::size_t>{49});
    EXPECT_EQ(chart_points(r.html, "dirth-variation"), std::vector<std::size_t>{49});
    const auto bars = chart_points(r.html, "dirth-histogram");
    ASSERT_EQ(bars.size(), pts["histograms"].size());
    for (auto n : bars) EXPECT_GE(n, 1u);
    EXPECT_EQ(count(r.html, "<table class=\"pts-grid\">"), 1u);
  }
  {  // XSR: three access groups, throughput and response time over time.
    const PtsRun r = run_suite(zram.path(), "snia-xsr", "0.0001", dir / "xsr");
    const auto& pts = pts_of(r);
    ASSERT_TRUE(pts.contains("segments")) << r.command.out;
    ASSERT_EQ(pts["segments"].size(), 3u);
    std::size_t figures = 3;
    for (int g : {1, 2})
      if (pts["segments"][g]["recovery_s"].get<double>() >= 0) ++figures;
    expect_common(r, "xsr", figures);
    EXPECT_EQ(pts["segments"][0]["bs"], 1u << 20);
    EXPECT_EQ(pts["segments"][1]["bs"], 8192u);
    for (const char* kind : {"xsr-throughput", "xsr-latency"}) {
      const auto charts = chart_points(r.html, kind);
      ASSERT_EQ(charts.size(), 1u) << kind;
      EXPECT_GE(charts[0], pts["samples"].size()) << kind;
    }
  }
  {  // HIR: five wait states of bursts, IOPS against time and against the wait.
    const PtsRun r = run_suite(zram.path(), "snia-hir", "0.0002", dir / "hir");
    expect_common(r, "hir", 4);
    const auto& pts = pts_of(r);
    ASSERT_EQ(pts["segments"].size(), 5u);
    EXPECT_EQ(pts["samples"].size(), 10u);  // 2 cycles per state at this scale
    EXPECT_GE(chart_points(r.html, "hir-time").at(0), 10u);
    EXPECT_EQ(chart_points(r.html, "hir-wait"), std::vector<std::size_t>{5});
  }
}

}  // namespace
}  // namespace storqual
