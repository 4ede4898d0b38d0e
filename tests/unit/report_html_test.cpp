// SPDX-License-Identifier: Apache-2.0
// The HTML report: self-contained, every hostile string shown as text, one <svg> per chart,
// small even with long timelines, and the content the issue asks for.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <regex>
#include <string>

#include "reporting/html_report.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// Elements in the page, by a tag-opening scan (what a browser's tokenizer would start a tag on).
std::size_t tags(const std::string& html) {
  static const std::regex open_tag("<[A-Za-z!/]");
  return static_cast<std::size_t>(std::distance(
      std::sregex_iterator(html.begin(), html.end(), open_tag), std::sregex_iterator()));
}

// The sample has 5 workloads with timelines and percentiles (3 charts each) and 4 claims with
// both numbers (one ratio chart).
constexpr std::size_t kSampleCharts = 5 * 3 + 1;

TEST(ReportHtml, SelfContainedWithOneSvgPerChart) {
  const std::string html = render_html(sample::run(true));
  EXPECT_EQ(count(html, "<svg"), kSampleCharts);
  EXPECT_EQ(count(html, "<figure class=\"chart-block\""), kSampleCharts);
  EXPECT_EQ(count(html, "data-chart=\"percentiles\""), 5u);
  EXPECT_EQ(count(html, "data-chart=\"ratios\""), 1u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg\"") == std::string::npos, false);
  // No reference that a browser would fetch: only the SVG namespace URI appears.
  EXPECT_EQ(count(html, "http"),
            count(html, "http://www.w3.org/2000/svg") + count(html, "http-equiv"));
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("thead{display:table-header-group}"), std::string::npos);
  EXPECT_NE(html.find("break-inside:avoid"), std::string::npos);
}

TEST(ReportHtml, ShowsVerdictClaimsFlagsHealthAndEnvironment) {
  const std::string html = render_html(sample::run(true));
  EXPECT_NE(html.find("<div class=\"banner FAIL\" id=\"verdict\"><div class=\"big\">FAIL</div>"),
            std::string::npos);
  EXPECT_NE(html.find("3 pass, 1 fail, 0 error, 1 skipped"), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"claim "), 5u);
  EXPECT_NE(html.find("<span class=\"status fail\">FAIL</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"status skipped\">SKIPPED</span>"), std::string::npos);
  EXPECT_NE(html.find("-17.8%"), std::string::npos);
  EXPECT_NE(html.find("claim iops 88.0k IOPS (tolerance 10.0%)"), std::string::npos);
  EXPECT_NE(html.find(">CPU-bound</span>"), std::string::npos);
  EXPECT_NE(html.find(">not steady</span>"), std::string::npos);
  EXPECT_NE(html.find("<mark>media_errors 0 -&gt; 3</mark>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"changed\"><td>media_errors</td>"), std::string::npos);
  EXPECT_NE(html.find("udev:ID_SERIAL_SHORT"), std::string::npos);
  EXPECT_NE(html.find("9f2c4e0d5b6a7c8d9e0f"), std::string::npos);
  EXPECT_NE(html.find("  read: IOPS=98.4k, BW=384MiB/s (403MB/s)"), std::string::npos);
  EXPECT_NE(html.find("fio --name=randread-4k-qd32"), std::string::npos);
  EXPECT_NE(html.find("AMD EPYC 7302P"), std::string::npos);
  EXPECT_NE(html.find("2026-11-29T18:06:10Z"), std::string::npos);
  EXPECT_NE(render_html(sample::run(false)).find("<div class=\"big\">PASS</div>"),
            std::string::npos);
}

TEST(ReportHtml, HostileStringsAreTextAndAddNoElement) {
  // No spaces: a verdict's workload field is a space-separated list of ids.
  const std::string evil = "<script>alert(1)</script>\"&amp;'\x01\x1b[0m\x7f<img/src=x/onerror=y>";
  RunResult plain = sample::run(true);
  RunResult hostile = sample::run(true);
  // Same lengths of lists, so the page has the same structure; only the text differs.
  hostile.device.identity[0].value = evil;
  hostile.spec.name = evil;
  hostile.workloads[0].id = evil;
  hostile.verdicts[0].workload = evil;
  hostile.environment.command_line = evil;
  hostile.workloads[2].fio_command = evil;
  plain.workloads[0].id = "x";
  plain.verdicts[0].workload = "x";
  const std::string html = render_html(hostile);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), kSampleCharts);
  EXPECT_EQ(tags(html), tags(render_html(plain))) << "a hostile string added an element";
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;amp;&#39;[0m&lt;img/src=x/"
                      "onerror=y&gt;"),
            std::string::npos);
  for (unsigned char c : html)
    EXPECT_FALSE((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
        << "control byte " << int(c);
  // The SVG parts are well-formed XML (a broken escape would break them).
  std::size_t pos = 0;
  while ((pos = html.find("<svg", pos)) != std::string::npos) {
    const auto end = html.find("</svg>", pos);
    ASSERT_NE(end, std::string::npos);
    pugi::xml_document doc;
    const auto svg = html.substr(pos, end + 6 - pos);
    EXPECT_TRUE(doc.load_string(svg.c_str())) << svg.substr(0, 300);
    pos = end;
  }
}

TEST(ReportHtml, SixHundredSecondTimelineStaysUnderTwoMegabytes) {
  const RunResult long_run = sample::run(true, 600);
  ASSERT_EQ(long_run.workloads[4].timeline.size(), 600u);
  const std::string html = render_html(long_run);
  EXPECT_LT(html.size(), 2u * 1024 * 1024) << html.size();
  EXPECT_EQ(count(html, "<svg"), kSampleCharts);
  // All 600 points are drawn (read, write and total lines of the mixed workload).
  const auto section = html.find("<h3>randrw70-4k</h3>");
  const auto poly = html.find("<polyline", section);
  const auto points = html.find("points=\"", poly);
  const auto end = html.find('"', points + 8);
  EXPECT_EQ(count(html.substr(points, end - points), ","), 600u);
}

TEST(ReportHtml, LatencySearchGetsItsCurveWithTheLimit) {
  RunResult r = sample::run(false);
  auto& w = r.workloads[0];
  w.kind = "latency-search";
  w.latency_stat = "mean";
  w.latency_limit_ns = 10e6;
  w.latency_curve = {{1, 9100, 109e3, true}, {32, 98000, 3.2e6, true}, {64, 99000, 12.5e6, false}};
  const std::string html = render_html(r);
  EXPECT_EQ(count(html, "<svg"), kSampleCharts + 1);
  EXPECT_EQ(count(html, "data-chart=\"latency-curve\""), 1u);
  EXPECT_NE(html.find("limit 10.00 ms"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">64</td><td class=\"num\">99.0k IOPS</td><td "
                      "class=\"num\">12.50 ms</td><td>no</td>"),
            std::string::npos);
}

TEST(ReportHtml, EscaperDropsControlsAndBrokenUtf8) {
  EXPECT_EQ(escape_html("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(escape_html("x\x01\x02y\tz\n"), "xy\tz\n");
  EXPECT_EQ(escape_html("\xc3\xa9t\xc3"), "\xc3\xa9t");                // truncated sequence dropped
  EXPECT_EQ(escape_html("\xc0\xaf"), "");                              // overlong '/'
  EXPECT_EQ(escape_html("\xed\xa0\x80"), "");                          // lone surrogate
  EXPECT_EQ(escape_html("\xef\xbf\xbf\xef\xbf\xbd"), "\xef\xbf\xbd");  // U+FFFF dropped
  EXPECT_EQ(escape_html("\xc2\x85"), "");                              // C1 control
  EXPECT_EQ(escape_html("\xf0\x9f\x92\xbe"), "\xf0\x9f\x92\xbe");      // U+1F4BE kept
}

TEST(ReportHtml, ChartsHaveAxesTicksClaimBandAndLogScale) {
  LineChart c;
  c.title = "t";
  c.series.push_back({"read", "#1f77b4", {{1, 100}, {2, 1000}, {3, 100000}}});
  c.log_y = true;
  c.claim = ClaimLine{"claim", 500, 500, 550};
  const std::string svg = render_line_chart(c);
  for (const char* tick : {">100<", ">1000<", ">10000<", ">100000<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\""), std::string::npos);
  EXPECT_NE(svg.find("fill-opacity=\"0.12\""), std::string::npos);
  EXPECT_EQ(nice_ticks(0, 97000, 5), (std::vector<double>{0, 20000, 40000, 60000, 80000}));
  EXPECT_EQ(nice_ticks(0, 1, 4), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  LineChart empty;
  EXPECT_NE(render_line_chart(empty).find("no data"), std::string::npos);
}

}  // namespace
}  // namespace storqual::reporting
