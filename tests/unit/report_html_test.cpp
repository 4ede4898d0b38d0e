// SPDX-License-Identifier: Apache-2.0
// The HTML report: self-contained, every hostile string shown as text, one <svg> per chart,
// small even with long timelines, and the content the issues ask for: steady state, sustained
// writes, host limits, preconditioning, skipped workloads, integrity and capacity, and the
// block size x read mix table of the SNIA suites.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "model/quantity_format.hpp"
#include "reporting/html_report.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "runner/methods/capacity/capacity_check.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "runner/methods/steady_state/steady_state.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::count;

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
  EXPECT_NE(
      html.find(
          "<div class=\"banner INCOMPLETE\" id=\"verdict\"><div class=\"big\">INCOMPLETE</div>"),
      std::string::npos);
  EXPECT_NE(html.find("3 pass, 1 fail, 0 error, 1 skipped"), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"claim "), 5u);
  EXPECT_NE(html.find("<span class=\"status fail\">FAIL</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"status skipped\">SKIPPED</span>"), std::string::npos);
  EXPECT_NE(html.find("-17.8%"), std::string::npos);
  EXPECT_NE(html.find("claim iops 88k IOPS (tolerance 10.0%)"), std::string::npos);
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
  hostile.verdicts[0].workloads = {evil};
  hostile.environment.command_line = evil;
  hostile.workloads[2].fio_command = evil;
  plain.workloads[0].id = "x";
  plain.verdicts[0].workloads = {"x"};
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
  auto search = std::make_shared<runner::LatencySearchMethodReport>();
  search->stat = "mean";
  search->limit_ns = 10e6;
  search->curve = {{1, 9100, 109e3, true}, {32, 98000, 3.2e6, true}, {64, 99000, 12.5e6, false}};
  w.method = std::move(search);
  const std::string html = render_html(r);
  EXPECT_EQ(count(html, "<svg"), kSampleCharts + 1);
  EXPECT_EQ(count(html, "data-chart=\"latency-curve\""), 1u);
  EXPECT_NE(html.find("limit 10 ms"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">64</td><td class=\"num\">99k IOPS</td><td "
                      "class=\"num\">12.5 ms</td><td>no</td>"),
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

// The randwrite workload of the sample ran in 8 rounds of 7.5 s (its 60-second timeline is the
// rounds one after the other); rounds 4-8 form the steady window.
RunResult with_steady_state(bool steady) {
  RunResult r = sample::run(false);
  auto& w = r.workloads[1];
  SteadyStateReport s;
  s.metric = "iops";
  const double values[] = {140000, 120000, 100000, 91000, 90500, 90100, 89800, 90300};
  for (double v : values) s.rounds.push_back({v, 7.5, false});
  s.rounds.back().steady = steady;
  s.round_time_s = 7.5;
  s.window_first = 3;
  s.window_last = 7;
  s.mean = 90340;
  s.range = 1200;
  s.slope = -140;
  s.range_pct = 1.33;
  s.slope_pct = steady ? 0.62 : 12.4;
  s.steady = steady;
  auto rounds = std::make_shared<runner::SteadyStateRoundsReport>();
  rounds->rounds = s;
  rounds->steady_flag = steady;
  w.method = std::move(rounds);
  return r;
}

std::string section_of(const std::string& html, const std::string& id) {
  const auto start = html.find("<h3>" + id + "</h3>");
  if (start == std::string::npos) return {};
  const auto end = html.find("</section>", start);
  return html.substr(start, end - start);
}

TEST(ReportHtml, SteadyStateShowsRoundsWindowCriteriaVerdictAndTheWindowOnTheTimeline) {
  const std::string html = render_html(with_steady_state(true));
  const std::string w = section_of(html, "randwrite-4k-qd32");
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.find("<strong class=\"verdict\">steady after 8 rounds</strong>"), std::string::npos);
  EXPECT_NE(w.find("<tr><th>window</th><td>rounds 4 to 8</td></tr>"), std::string::npos);
  EXPECT_NE(w.find("<tr><th>window mean</th><td>90.3k IOPS</td></tr>"), std::string::npos);
  EXPECT_NE(w.find("1.2k IOPS = 1.3% of the mean (limit 20.0%) ok"), std::string::npos);
  EXPECT_NE(w.find("-140 per round, excursion 0.6% of the mean over the window (limit 10.0%) ok"),
            std::string::npos);
  EXPECT_EQ(count(w, "data-chart=\"steady-rounds\""), 1u);
  // One row per round, the window's five highlighted, the verdict of the window ending at each.
  EXPECT_EQ(count(w, "<tr class=\"window\">"), 5u);
  EXPECT_NE(w.find("<td class=\"num\">1</td><td class=\"num\">140k IOPS</td>"), std::string::npos);
  EXPECT_NE(w.find("<td class=\"num\">8</td><td class=\"num\">90.3k IOPS</td><td "
                   "class=\"num\">7.50 s</td><td>steady</td>"),
            std::string::npos);
  // The rounds chart: the window band over rounds 4-8, the mean with the +/-10% band.
  EXPECT_NE(w.find(">steady window</text>"), std::string::npos);
  EXPECT_NE(w.find("window mean 90.3k IOPS, band +/-10.0% (range limit 20.0%)"), std::string::npos);
  // On both timeline charts the window spans 22.5 s .. 60 s: x from 1 to 60 s maps onto 64..924.
  const std::string band = "<rect class=\"xband\" x=\"377.4\" y=\"48.0\" width=\"546.6\"";
  EXPECT_EQ(count(w, band), 2u) << w.substr(w.find("xband") - 20, 200);
  EXPECT_EQ(count(w, ">steady window, rounds 4-8</text>"), 2u);
  EXPECT_EQ(count(html, "<svg"), kSampleCharts + 1);

  const std::string unsteady =
      section_of(render_html(with_steady_state(false)), "randwrite-4k-qd32");
  EXPECT_NE(unsteady.find("<span class=\"status fail\">NOT STEADY</span> <strong "
                          "class=\"verdict\">not steady after 8 rounds</strong>"),
            std::string::npos);
  EXPECT_NE(unsteady.find("excursion 12.4% of the mean over the window (limit 10.0%) "
                          "<strong>exceeded</strong>"),
            std::string::npos);
  EXPECT_EQ(count(unsteady, ">last window (not steady), rounds 4-8</text>"), 2u);
  EXPECT_NE(unsteady.find(">not steady</span>"), std::string::npos);
}

TEST(ReportHtml, SustainedWriteShowsCacheSizeDropTimeRatesAndTheDropOnTheTimeline) {
  RunResult r = sample::run(false);
  auto& w = r.workloads[3];  // seqwrite-1m-qd32, 60 s
  runner::SustainedWriteReport s;
  s.bytes_written = 24ull << 30;
  s.initial_bw = 510e6;
  s.drop_fraction = 0.5;
  s.dropped = true;
  s.cache_bytes = 12ull << 30;
  s.cache_time_s = 30.5;
  s.post_cache_bw = 180e6;
  auto with_sustained = [](WorkloadResult& into, const runner::SustainedWriteReport& report) {
    auto method = std::make_shared<runner::SustainedWriteMethodReport>();
    method->sustained = report;
    into.method = std::move(method);
  };
  with_sustained(w, s);
  const std::string sec = section_of(render_html(r), "seqwrite-1m-qd32");
  EXPECT_NE(sec.find("<tr><th>write-cache size</th><td>12884901888 B (12.0 GiB)</td></tr>"),
            std::string::npos);
  EXPECT_NE(sec.find("<tr><th>drop at</th><td>30.50 s after the start</td></tr>"),
            std::string::npos);
  EXPECT_NE(sec.find("<tr><th>initial rate</th><td>510 MB/s</td></tr>"), std::string::npos);
  EXPECT_NE(sec.find("<tr><th>post-cache rate</th><td>180 MB/s</td></tr>"), std::string::npos);
  EXPECT_NE(sec.find("255 MB/s (50.0% of the initial rate)"), std::string::npos);
  // The drop on both timeline charts at 30.5 s: 64 + (30.5 - 1) / 59 * 860 = 494.0.
  EXPECT_EQ(count(sec, "<line class=\"xmark\" x1=\"494.0\""), 2u);
  EXPECT_EQ(count(sec, ">write cache exhausted after 12.0 GiB</text>"), 2u);
  s.dropped = false;
  with_sustained(r.workloads[3], s);
  const std::string flat = section_of(render_html(r), "seqwrite-1m-qd32");
  EXPECT_EQ(flat.find("xmark"), std::string::npos);
  EXPECT_NE(flat.find("no drop: the rate stayed above the threshold over all 24.0 GiB written"),
            std::string::npos);
}

TEST(ReportHtml, HostLimitPreconditioningAndSkippedAreShown) {
  RunResult r = sample::run(false);
  HostLimitReport h;
  h.limited = true;
  h.reasons = {"job thread CPU 98%", "IOPS at 91% of the engine's ceiling"};
  h.max_thread_cpu_pct = 98;
  h.engine_ceiling_iops = 1.2e6;
  h.link_speed = "8.0 GT/s PCIe";
  h.link_width = 2;
  h.max_link_speed = "16.0 GT/s PCIe";
  h.max_link_width = 4;
  h.link_bw_bytes = 1.97e9;
  r.workloads[0].host_limit = h;
  HostLimitReport fine;
  fine.max_thread_cpu_pct = 12;
  r.workloads[2].host_limit = fine;
  r.workloads[0].preconditioning = {"suite: purge: BLKDISCARD of [0, 1g) on /dev/sdb",
                                    "suite: workload-independent: sequential 128 KiB writes"};
  auto& skipped = r.workloads[4];
  skipped.skipped = "bs 512 is not a multiple of the device's logical block size 4096";
  skipped.timeline.clear();
  skipped.read.reset();
  skipped.write.reset();
  const std::string html = render_html(r);
  const std::string limited = section_of(html, "randread-4k-qd32");
  EXPECT_NE(limited.find("<div class=\"box host-limit bad\"><h4>Host-limited</h4>"),
            std::string::npos);
  EXPECT_NE(limited.find("<li>job thread CPU 98%</li><li>IOPS at 91% of the engine&#39;s "
                         "ceiling</li>"),
            std::string::npos);
  EXPECT_NE(limited.find("busiest job thread 98% of a CPU, engine ceiling 1.2M IOPS"),
            std::string::npos);
  EXPECT_NE(limited.find("PCIe link 8.0 GT/s PCIe x2 (device maximum 16.0 GT/s PCIe x4), usable "
                         "1.97 GB/s"),
            std::string::npos);
  EXPECT_NE(limited.find(">host-limited</span>"), std::string::npos);
  EXPECT_NE(limited.find("<li>suite: purge: BLKDISCARD of [0, 1g) on /dev/sdb</li><li>suite: "
                         "workload-independent: sequential 128 KiB writes</li>"),
            std::string::npos);
  const std::string not_limited = section_of(html, "seqread-1m-qd32");
  EXPECT_NE(not_limited.find("Host not the limit: busiest job thread 12% of a CPU."),
            std::string::npos);
  EXPECT_EQ(not_limited.find("host-limit bad"), std::string::npos);
  const std::string sk = section_of(html, "randrw70-4k");
  EXPECT_NE(sk.find("<div class=\"box skipped\"><strong>Skipped:</strong> bs 512 is not a "
                    "multiple of the device&#39;s logical block size 4096"),
            std::string::npos);
  EXPECT_NE(sk.find(">skipped</span>"), std::string::npos);
  EXPECT_EQ(sk.find("Numbers as fio prints them"), std::string::npos);
  EXPECT_EQ(sk.find("<svg"), std::string::npos);
}

TEST(ReportHtml, IntegrityBoxCountsEachClassAndListsTheFirstFindings) {
  RunResult r = sample::run(false);
  IntegrityReport i;
  i.algorithm = "xxh3";
  i.run_id = 0x1234abcd;
  i.blocks_written = 4096;
  i.verified_inline = 1000;
  i.verified_at_end = 4096;
  i.corrupted = 1;
  i.misplaced = 2;
  i.stale = 3;
  i.foreign = 4;
  i.findings = {{"corrupted", 4096, 0, 0, 0},
                {"misplaced", 8192, 1 << 20, 0, 0},
                {"stale", 12288, 0, 7, 3},
                {"foreign", 16384, 0, 0, 0}};
  r.workloads[1].integrity = i;
  const std::string sec = section_of(render_html(r), "randwrite-4k-qd32");
  EXPECT_NE(
      sec.find("<span class=\"status fail\">BAD BLOCKS</span> xxh3, run id "
               "000000001234abcd: 4096 blocks written, 1000 verified inline, 4096 at the end"),
      std::string::npos);
  EXPECT_NE(sec.find("<tr><td class=\"num bad\">1</td><td class=\"num bad\">2</td><td "
                     "class=\"num bad\">3</td><td class=\"num bad\">4</td><td "
                     "class=\"num\">0</td></tr>"),
            std::string::npos);
  EXPECT_NE(sec.find("First 4 of 10 bad blocks"), std::string::npos);
  EXPECT_NE(sec.find("<td>misplaced</td><td class=\"num\">8192 (0x2000)</td><td>held the block "
                     "written for offset 1048576 (0x100000)</td>"),
            std::string::npos);
  EXPECT_NE(sec.find("<td>stale</td><td class=\"num\">12288 (0x3000)</td><td>held write sequence "
                     "3, expected 7 (a lost write)</td>"),
            std::string::npos);
  EXPECT_NE(sec.find("<td>corrupted</td><td class=\"num\">4096 (0x1000)</td>"), std::string::npos);
  EXPECT_NE(sec.find("<td>foreign</td><td class=\"num\">16384 (0x4000)</td><td>not written by "
                     "this run</td>"),
            std::string::npos);

  IntegrityReport clean;
  clean.algorithm = "crc32c";
  clean.blocks_written = 10;
  clean.verified_at_end = 10;
  r.workloads[1].integrity = clean;
  const std::string ok = section_of(render_html(r), "randwrite-4k-qd32");
  EXPECT_NE(ok.find("<div class=\"box integrity ok\">"), std::string::npos);
  EXPECT_NE(ok.find("<span class=\"status pass\">VERIFIED</span> crc32c"), std::string::npos);
  EXPECT_EQ(ok.find("class=\"findings\""), std::string::npos);
}

TEST(ReportHtml, CapacityBoxShowsClaimedAndRealCapacityAliasingAndSampleDensity) {
  RunResult r = sample::run(false);
  WorkloadResult w;
  w.id = "capacity";
  runner::CapacityReport c;
  c.reported_bytes = 64ull << 30;
  c.usable_bytes = 8ull << 30;
  c.sample_interval = 64ull << 20;
  c.samples = 1024;
  c.samples_good = 128;
  c.block_size = 4096;
  c.aliasing_start = 8ull << 30;
  c.aliased_to = 0;
  c.misplaced = 896;
  c.findings = {{"misplaced", 8ull << 30, 0, 0, 0}};
  auto capacity = std::make_shared<runner::CapacityMethodReport>();
  capacity->capacity = c;
  w.method = std::move(capacity);
  r.workloads.push_back(w);
  ClaimVerdict v;
  v.workloads = {"capacity"};
  v.metric = "capacity";
  v.unit = "B";
  v.claimed = 64.0 * (1ull << 30);
  v.measured = 8.0 * (1ull << 30);
  v.status = VerdictStatus::Fail;
  r.verdicts.push_back(v);
  const std::string sec = section_of(render_html(r), "capacity");
  EXPECT_NE(sec.find("<div class=\"box capacity bad\"><h4>Real capacity</h4>"), std::string::npos);
  EXPECT_NE(sec.find("<tr><th>reported by the device</th><td>68719476736 B (64.0 GiB)</td></tr>"),
            std::string::npos);
  EXPECT_NE(sec.find("<tr><th>claimed (spec sheet)</th><td>68.7 GB</td></tr>"), std::string::npos);
  EXPECT_NE(sec.find("<tr><th>usable capacity found</th><td>8589934592 B (8.0 GiB), 12.5% of the "
                     "reported (within one sample interval)</td></tr>"),
            std::string::npos);
  EXPECT_NE(sec.find("starts at offset 8589934592 (0x200000000), which shows the block of offset "
                     "0 (0x0)"),
            std::string::npos);
  EXPECT_NE(sec.find("1024 samples of 4.0 KiB, one every 64.0 MiB, 128 read back their own data"),
            std::string::npos);
  EXPECT_NE(sec.find("<td class=\"num bad\">896</td>"), std::string::npos);
  EXPECT_NE(sec.find("<td>misplaced</td><td class=\"num\">8589934592 (0x200000000)</td><td>held "
                     "the block written for offset 0 (0x0)</td>"),
            std::string::npos);
}

// The snia-iops matrix: 8 block sizes x 7 read mixes, each cell's IOPS known from its place.
constexpr std::uint64_t kSniaSizes[] = {512, 4096, 8192, 16384, 32768, 65536, 131072, 1048576};
constexpr unsigned kSniaMixes[] = {100, 95, 65, 50, 35, 5, 0};

double cell_iops(std::size_t size_index, std::size_t mix_index) {
  return 1000.0 * static_cast<double>(size_index + 1) + 10.0 * static_cast<double>(mix_index) + 1;
}

RunResult snia_run(bool four_k_native, bool id_names = true) {
  RunResult r = sample::run(false);
  r.workloads.clear();
  r.verdicts.clear();
  for (std::size_t m = 0; m < 7; ++m)
    for (std::size_t b = 0; b < 8; ++b) {
      const unsigned mix = kSniaMixes[m];
      const std::uint64_t bs = kSniaSizes[b];
      const std::string rw = mix == 100 ? "randread" : mix == 0 ? "randwrite" : "randrw";
      const double total = cell_iops(b, m);
      const std::string id = id_names ? "iops-" +
                                            (bs < 1024        ? std::to_string(bs)
                                             : bs < (1 << 20) ? std::to_string(bs / 1024) + "k"
                                                              : std::string("1m")) +
                                            "-r" + std::to_string(mix)
                                      : "cell" + std::to_string(r.workloads.size());
      WorkloadResult w = sample::workload(id, rw, bs, 32, total * mix / 100.0,
                                          total * (100 - mix) / 100.0, 300e3, 3);
      w.params.rwmixread = mix;
      w.params.numjobs = 4;
      if (four_k_native && bs == 512) {
        w = WorkloadResult{};
        w.id = id;
        w.params.rw = rw;
        w.params.bs = bs;
        w.params.rwmixread = mix;
        w.skipped = "bs 512 is not a multiple of the device's logical block size 4096 (direct I/O)";
      }
      r.workloads.push_back(std::move(w));
    }
  return r;
}

// The cells of the first table.matrix, row by row: (row header, cell texts).
std::vector<std::pair<std::string, std::vector<std::string>>> matrix_cells(
    const std::string& html, const std::string& which) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  const auto start = html.find("<table class=\"matrix\" data-matrix=\"" + which + "\"");
  if (start == std::string::npos) return rows;
  const std::string table = html.substr(start, html.find("</table>", start) - start);
  static const std::regex row("<tr><th>([^<]*)</th>(.*?)</tr>");
  static const std::regex cell("<td[^>]*>(?:<a[^>]*>)?([^<]*)");
  const std::string body = table.substr(table.find("<tbody>"));
  for (std::sregex_iterator it(body.begin(), body.end(), row), end; it != end; ++it) {
    std::vector<std::string> cells;
    const std::string text = (*it)[2];
    for (std::sregex_iterator c(text.begin(), text.end(), cell); c != end; ++c)
      cells.push_back((*c)[1]);
    rows.emplace_back((*it)[1], cells);
  }
  return rows;
}

TEST(ReportHtml, SniaIopsMatrixIsOneTableOf56CellsWithTheModelsValues) {
  for (bool id_names : {true, false}) {
    const std::string html = render_html(snia_run(false, id_names));
    EXPECT_EQ(count(html, "<table class=\"matrix\""), 1u);
    EXPECT_NE(html.find("data-matrix=\"iops\" data-cells=\"56\""), std::string::npos);
    EXPECT_NE(html.find("<th class=\"num\">100/0</th><th class=\"num\">95/5</th><th "
                        "class=\"num\">65/35</th><th class=\"num\">50/50</th><th "
                        "class=\"num\">35/65</th><th class=\"num\">5/95</th><th "
                        "class=\"num\">0/100</th>"),
              std::string::npos);
    const auto rows = matrix_cells(html, "iops");
    ASSERT_EQ(rows.size(), 8u);
    std::size_t cells = 0;
    const char* labels[] = {"0.5 KiB", "4 KiB",  "8 KiB",   "16 KiB",
                            "32 KiB",  "64 KiB", "128 KiB", "1024 KiB"};
    for (std::size_t b = 0; b < 8; ++b) {
      EXPECT_EQ(rows[b].first, labels[b]);
      ASSERT_EQ(rows[b].second.size(), 7u);
      for (std::size_t m = 0; m < 7; ++m, ++cells)
        EXPECT_EQ(rows[b].second[m], format_verdict_value(cell_iops(b, m), "")) << b << "," << m;
    }
    EXPECT_EQ(cells, 56u);
    EXPECT_EQ(count(html, "<td class=\"num cell\""), 56u);
  }
}

TEST(ReportHtml, SkippedMatrixCellsSaySkippedWithTheReasonAsTitle) {
  const std::string html = render_html(snia_run(true));
  const auto rows = matrix_cells(html, "iops");
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& c : rows[0].second) EXPECT_EQ(c, "skipped");
  EXPECT_EQ(rows[1].second[0], format_verdict_value(cell_iops(1, 0), ""));
  EXPECT_EQ(count(html,
                  "<td class=\"cell skipped\" title=\"bs 512 is not a multiple of the "
                  "device&#39;s logical block size 4096 (direct I/O)\">skipped</td>"),
            7u);
  EXPECT_EQ(count(html, "<td class=\"num cell\""), 49u);
}

TEST(ReportHtml, ThroughputGridAndNoGridForAPlainSuite) {
  RunResult r = sample::run(false);
  EXPECT_EQ(render_html(r).find("class=\"matrix\""), std::string::npos);
  r.workloads.clear();
  r.verdicts.clear();
  r.workloads.push_back(sample::workload("tp-1m-write", "write", 1 << 20, 32, 0, 500, 1e6, 3));
  r.workloads.push_back(sample::workload("tp-1m-read", "read", 1 << 20, 32, 520, 0, 1e6, 3));
  r.workloads.push_back(sample::workload("tp-128k-write", "write", 128 << 10, 32, 0, 3000, 1e6, 3));
  r.workloads.push_back(sample::workload("tp-128k-read", "read", 128 << 10, 32, 4000, 0, 1e6, 3));
  auto sustained = sample::workload("sustained-128k", "write", 128 << 10, 32, 0, 2000, 1e6, 3);
  sustained.method = std::make_shared<runner::SustainedWriteMethodReport>();
  r.workloads.push_back(sustained);
  const auto rows = matrix_cells(render_html(r), "bw");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].first, "128 KiB");
  EXPECT_EQ(rows[0].second,
            (std::vector<std::string>{format_verdict_value(4000.0 * (128 << 10), "B/s"),
                                      format_verdict_value(3000.0 * (128 << 10), "B/s")}));
  EXPECT_EQ(rows[1].second,
            (std::vector<std::string>{format_verdict_value(520.0 * (1 << 20), "B/s"),
                                      format_verdict_value(500.0 * (1 << 20), "B/s")}));
}

TEST(ReportHtml, HostileTextInTheNewSectionsStaysText) {
  const std::string evil = "<script>alert(1)</script>\"&'<img/src=x/onerror=y>";
  auto build = [](const std::string& text) {
    RunResult r = with_steady_state(false);
    auto& w = r.workloads[1];
    auto rounds = std::make_shared<runner::SteadyStateRoundsReport>(
        dynamic_cast<const runner::SteadyStateRoundsReport&>(*w.method));
    rounds->rounds->metric = text;
    w.method = std::move(rounds);
    w.preconditioning = {text};
    HostLimitReport h;
    h.limited = true;
    h.reasons = {text};
    h.link_speed = text;
    h.link_width = 4;
    w.host_limit = h;
    IntegrityReport i;
    i.algorithm = text;
    i.corrupted = 1;
    i.findings = {{text, 4096, 0, 0, 0}};
    w.integrity = i;
    r.workloads[4].skipped = text;
    return r;
  };
  const std::string html = render_html(build(evil));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(tags(html), tags(render_html(build("x")))) << "a hostile string added an element";
  std::size_t pos = 0;
  while ((pos = html.find("<svg", pos)) != std::string::npos) {
    const auto end = html.find("</svg>", pos);
    ASSERT_NE(end, std::string::npos);
    pugi::xml_document doc;
    const auto svg = html.substr(pos, end + 6 - pos);
    EXPECT_TRUE(doc.load_string(svg.c_str())) << svg.substr(0, 300);
    pos = end;
  }
  // A hostile skip reason in a matrix cell's title stays inside the attribute.
  RunResult grid = snia_run(true);
  for (auto& w : grid.workloads)
    if (w.skipped) w.skipped = evil;
  const std::string g = render_html(grid);
  EXPECT_EQ(g.find("<script"), std::string::npos);
  EXPECT_EQ(count(g,
                  "title=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;&lt;img/"
                  "src=x/onerror=y&gt;\">skipped</td>"),
            7u);
}

TEST(ReportHtml, ChartBandsAndMarkersWidenTheAxisAndAreEscaped) {
  LineChart c;
  c.title = "t";
  c.series.push_back({"s", "#1f77b4", {{10, 1}, {20, 2}}});
  c.x_bands.push_back({0, 5, "<band>", "#2ca02c"});
  c.x_markers.push_back({25, "drop & after", "#ff7f0e"});
  const std::string svg = render_line_chart(c);
  // x from 0 to 25 onto 64..924: the band starts at the left edge, the marker is the right edge.
  EXPECT_NE(svg.find("<rect class=\"xband\" x=\"64.0\" y=\"48.0\" width=\"172.0\""),
            std::string::npos);
  EXPECT_NE(svg.find("<line class=\"xmark\" x1=\"924.0\""), std::string::npos);
  EXPECT_NE(svg.find(">&lt;band&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">drop &amp; after</text>"), std::string::npos);
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(svg.c_str()));
  LineChart only_band;
  only_band.x_bands.push_back({0, 5, "b", "#000"});
  EXPECT_NE(render_line_chart(only_band).find("no data"), std::string::npos);
  EXPECT_EQ(render_line_chart(only_band).find("xband"), std::string::npos);
}

TEST(ReportHtml, HostLimitedFioCommandSaysFioWillReportLess) {
  const RunResult r = sample::host_limited_run();
  const std::string html = render_html(r);
  const std::string section = section_of(html, "randread-4k-qd32");
  const std::size_t cmd = section.find("<h4>Equivalent fio command</h4>");
  ASSERT_NE(cmd, std::string::npos);
  const std::size_t caveat = section.find(
      "<p class=\"fio-caveat\">this figure was host-limited: fio spends more CPU "
      "per I/O than storqual",
      cmd);
  EXPECT_NE(caveat, std::string::npos) << section.substr(cmd);
  for (const char* id : {"randwrite-4k-qd32", "seqread-1m-qd32"})
    EXPECT_EQ(section_of(html, id).find("fio-caveat"), std::string::npos) << id;
}

TEST(ReportHtml, BannerCountsOneWorkloadInTheSingular) {
  RunResult r = sample::run(false);
  r.workloads.resize(1);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("measured-only &middot; 1 workload<"), std::string::npos);
  EXPECT_EQ(html.find("1 workloads"), std::string::npos);
}

}  // namespace
}  // namespace storqual::reporting
