// SPDX-License-Identifier: Apache-2.0
// The HTML report in a real browser (Debian's headless chromium): the DOM holds the verdict, every
// claim row and one <svg> per chart; a screenshot is not blank; printing gives a PDF. First for the
// report of a real `storqual run` (the quick suite on a scratch file, the demo sheet), then for
// the sample results (a failing report with every kind of chart).
// Fails, naming it, when chromium is not installed (STORQUAL_CHROMIUM names another browser).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reporting/console_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::CommandResult;
using storqual::testing::run_command;
using storqual::testing::ScratchDir;

using ::storqual::testing::chromium_missing;
using ::storqual::testing::find_chromium;
using ::storqual::testing::run_chromium;

using storqual::testing::count;
using storqual::testing::read_file;

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(static_cast<unsigned char>(s[at])) << 24) |
         (std::uint32_t(static_cast<unsigned char>(s[at + 1])) << 16) |
         (std::uint32_t(static_cast<unsigned char>(s[at + 2])) << 8) |
         std::uint32_t(static_cast<unsigned char>(s[at + 3]));
}

class HtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = find_chromium();
    STORQUAL_REQUIRE(!binary_.empty(), chromium_missing());
  }
  std::string binary_;
};

// A real run: storqual run on a scratch file with the quick suite at a tenth of its runtime, judged
// by the demo sheet; the page it wrote is what the browser loads.
TEST_F(HtmlBrowser, ReportOfARealRun) {
  ScratchDir dir("html-browser-run");
  std::filesystem::create_directories(dir / "target");
  const std::string source = STORQUAL_SOURCE_DIR;
  const auto run =
      run_command({STORQUAL_BINARY, "run", "--target", (dir / "target").string(), "--suite",
                   source + "/suites/quick.xml", "--spec", source + "/specs/demo.xml",
                   "--runtime-scale", "0.1", "--size", "16m", "--out", (dir / "out").string()});
  ASSERT_LT(run.exit_code, 2) << run.out << run.err;
  const auto page = dir / "out" / "storqual-report.html";
  ASSERT_TRUE(std::filesystem::exists(page)) << run.out;
  const RunResult result = load_run_result((dir / "out" / "storqual-result.json").string());
  ASSERT_EQ(result.workloads.size(), 4u);
  ASSERT_FALSE(result.verdicts.empty());

  const auto dom = run_chromium(binary_, dir / "profile-dom", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  // The headline counts the run's deviations (here at least --runtime-scale and --size).
  const std::string headline = count_verdicts(result).headline();
  EXPECT_NE(headline.find(" with "), std::string::npos) << headline;
  EXPECT_NE(dom.out.find("<div class=\"big\">" + headline + "</div>"), std::string::npos)
      << headline;
  EXPECT_NE(dom.out.find("id=\"deviations\""), std::string::npos);
  EXPECT_EQ(count(dom.out, "<tr class=\"claim "), result.verdicts.size());
  for (const auto& v : result.verdicts) {
    // The workload, marked "*" when a deviation touches it (every one here), then the metric.
    const std::string row = "<td>" + reporting::workload_text(v) + "<span class=\"dev\"";
    const auto at = dom.out.find(row);
    EXPECT_NE(at, std::string::npos) << row;
    if (at != std::string::npos) {
      EXPECT_NE(dom.out.find("</span></td><td>" + v.metric + "</td>", at), std::string::npos)
          << v.metric;
    }
  }
  // Every chart is one <svg> in one figure: IOPS and bandwidth over time and clat percentiles per
  // workload, and the ratio chart (the demo sheet's claims all have a measurement).
  std::size_t charts = 1;
  for (const auto& w : result.workloads) {
    if (!w.timeline.empty()) charts += 2;
    if ((w.read && !w.read->clat.percentiles.empty()) ||
        (w.write && !w.write->clat.percentiles.empty()))
      charts += 1;
  }
  EXPECT_EQ(count(dom.out, "<svg"), charts);
  EXPECT_EQ(count(dom.out, "class=\"chart-block\""), charts);
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);

  const auto png = dir / "report.png";
  const auto shot = run_chromium(
      binary_, dir / "profile-png",
      {"--window-size=1200,1600", "--hide-scrollbars", "--screenshot=" + png.string()}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  const std::string image = read_file(png);
  ASSERT_GT(image.size(), 33u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(image.size(), 60u * 1024) << "screenshot suspiciously small: blank?";

  const auto pdf = dir / "report.pdf";
  const auto printed =
      run_chromium(binary_, dir / "profile-pdf",
                   {"--no-pdf-header-footer", "--print-to-pdf=" + pdf.string()}, page);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  const std::string document = read_file(pdf);
  ASSERT_GE(document.size(), 5u);
  EXPECT_EQ(document.substr(0, 5), "%PDF-");
}

TEST_F(HtmlBrowser, DomScreenshotAndPdf) {
  ScratchDir dir("html-browser");
  RunResult run = sample::run(true);
  // Without its skipped claim (which would make it INCOMPLETE): a FAIL, with the red banner.
  std::erase_if(run.verdicts,
                [](const ClaimVerdict& v) { return v.status == VerdictStatus::Skipped; });
  const auto page = dir / "report.html";
  write_html(page.string(), run);

  // 1. The DOM as the browser built it.
  const auto dom = run_chromium(binary_, dir / "profile-dom", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("<div class=\"big\">FAIL</div>"), std::string::npos);
  EXPECT_EQ(count(dom.out, "<tr class=\"claim "), run.verdicts.size());
  for (const auto& v : run.verdicts) {
    const std::string row = "<td>" + reporting::workload_text(v) + "</td><td>" + v.metric + "</td>";
    EXPECT_NE(dom.out.find(row), std::string::npos) << row;
  }
  // Charts: per workload IOPS, bandwidth and percentiles, plus the ratio chart.
  const std::size_t charts = run.workloads.size() * 3 + 1;
  EXPECT_EQ(count(dom.out, "<svg"), charts);
  EXPECT_EQ(count(dom.out, "class=\"chart-block\""), charts);
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);

  // 2. A screenshot that is not blank.
  const auto png = dir / "report.png";
  const auto shot = run_chromium(
      binary_, dir / "profile-png",
      {"--window-size=1200,1600", "--hide-scrollbars", "--screenshot=" + png.string()}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  const std::string image = read_file(png);
  ASSERT_GT(image.size(), 33u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(image.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(image, 16), 1200u);
  EXPECT_EQ(be32(image, 20), 1600u);
  // A blank 1200x1600 page compresses to a few kB; ours has text, tables and charts.
  EXPECT_GT(image.size(), 60u * 1024) << "screenshot suspiciously small: blank?";
  const auto pil = run_command({"/usr/bin/python3", "-c", "import PIL"});
  if (pil.exit_code == 0) {
    // Count colours and non-white pixels with Pillow (python3-pil) when it is there.
    const auto stats = run_command(
        {"/usr/bin/python3", "-c",
         "import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1]).convert('RGB')\n"
         "px = im.getdata()\nnonwhite = sum(1 for p in px if p != (255, 255, 255))\n"
         "print(len(set(px)), nonwhite * 1000 // len(px))",
         png.string()});
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    std::istringstream in(stats.out);
    long colours = 0, nonwhite_permille = 0;
    in >> colours >> nonwhite_permille;
    EXPECT_GT(colours, 50) << stats.out;
    EXPECT_GT(nonwhite_permille, 30) << "less than 3% of the pixels are not white";
    // The FAIL banner's red is on the page.
    const auto red = run_command(
        {"/usr/bin/python3", "-c",
         "import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1]).convert('RGB')\n"
         "print(sum(1 for p in im.getdata() if p == (0xb3, 0x26, 0x1e)))",
         png.string()});
    EXPECT_GT(std::stol(red.out.empty() ? "0" : red.out), 10000) << red.out;
  }

  // 3. Printing to PDF.
  const auto pdf = dir / "report.pdf";
  const auto printed =
      run_chromium(binary_, dir / "profile-pdf",
                   {"--no-pdf-header-footer", "--print-to-pdf=" + pdf.string()}, page);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  const std::string document = read_file(pdf);
  ASSERT_GE(document.size(), 5u);
  EXPECT_EQ(document.substr(0, 5), "%PDF-");
  EXPECT_GT(count(document, "/Type /Page\n") + count(document, "/Type /Page "), 1u)
      << "a report with five workloads takes more than one page";
}

// The data points of each <figure data-chart="pts-KIND"> in a DOM: polyline vertices, lone
// points (circles) and histogram bars.
std::vector<std::size_t> pts_chart_points(const std::string& dom, const std::string& kind) {
  std::vector<std::size_t> out;
  const std::string open = "data-chart=\"pts-" + kind + "\"";
  for (auto at = dom.find(open); at != std::string::npos; at = dom.find(open, at + 1)) {
    const std::string svg = dom.substr(at, dom.find("</figure>", at) - at);
    if (svg.find("<svg") == std::string::npos) {
      out.push_back(0);
      continue;
    }
    std::size_t points = count(svg, "<circle ") + count(svg, "<rect class=\"bin\"");
    for (auto p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) {
      const auto a = svg.find("points=\"", p) + 8;
      points += count(svg.substr(a, svg.find('"', a) - a), ",");
    }
    out.push_back(points);
  }
  return out;
}

// The SNIA PTS sections of real runs (issue 19): snia-wsat, snia-dirth, snia-xsr and snia-hir on
// scratch files at a small runtime scale, side by side; in the browser's DOM each section has the
// PTS's plots, each an <svg> carrying data points.
TEST_F(HtmlBrowser, PtsSectionsOfRealRunsHaveTheirPlotsWithData) {
  ScratchDir dir("html-browser-pts");
  struct Case {
    std::string suite, scale;
    std::vector<std::pair<std::string, std::size_t>> charts;  // kind, fewest points
  };
  const std::vector<Case> cases = {
      {"snia-wsat", "0.0002", {{"wsat-time", 5}, {"wsat-tgbw", 5}, {"wsat-latency", 5}}},
      {"snia-dirth",
       "0.0005",
       {{"dirth-intensity", 49}, {"dirth-variation", 49}, {"dirth-histogram", 1}}},
      {"snia-xsr", "0.0001", {{"xsr-throughput", 10}, {"xsr-latency", 10}}},
      {"snia-hir", "0.0002", {{"hir-time", 10}, {"hir-wait", 5}}}};
  std::vector<std::future<CommandResult>> runs;
  for (const auto& c : cases) {
    std::filesystem::create_directories(dir / c.suite / "target");
    runs.push_back(std::async(std::launch::async, [&dir, c] {
      return run_command({STORQUAL_BINARY, "run", "--target", (dir / c.suite / "target").string(),
                          "--suite", c.suite, "--runtime-scale", c.scale, "--size", "16m", "--out",
                          (dir / c.suite / "out").string()});
    }));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE(c.suite);
    const CommandResult run = runs[i].get();
    ASSERT_LT(run.exit_code, 2) << run.out << run.err;
    const auto page = dir / c.suite / "out" / "storqual-report.html";
    const auto dom = run_chromium(binary_, dir / c.suite / "profile", {"--dump-dom"}, page);
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_EQ(count(dom.out, "<div class=\"box pts\""), 1u);
    EXPECT_NE(dom.out.find("<th>purge method</th>"), std::string::npos);
    for (const auto& [kind, fewest] : c.charts) {
      const auto points = pts_chart_points(dom.out, kind);
      ASSERT_FALSE(points.empty()) << kind << " is not on the page";
      for (std::size_t n : points) EXPECT_GE(n, fewest) << kind;
    }
  }
}

// The layout as the browser lays it out (issue 26): the claims table fits the window, each claim
// row is a few lines high, nothing overflows sideways; printed, the verdict and the claims are on
// page 1, the report is at most 6 pages and no heading ends a page. The page forbids scripts
// (Content-Security-Policy), so the measuring script goes into a copy without the policy; it writes
// the boxes into <pre id="layout">, which --dump-dom brings back.
constexpr const char* kMeasureScript = R"js(<script>(function () {
  const out = [], doc = document.documentElement;
  out.push('viewport ' + doc.clientWidth);
  out.push('scroll ' + doc.scrollWidth);
  const table = document.querySelector('table.claims');
  if (table) out.push('table ' + table.getBoundingClientRect().right);
  for (const tr of document.querySelectorAll('table.claims tr.claim')) {
    const style = getComputedStyle(tr), cell = getComputedStyle(tr.cells[0]);
    let line = parseFloat(style.lineHeight);
    if (!(line > 0)) line = 1.2 * parseFloat(style.fontSize);
    const inner = parseFloat(cell.paddingTop) + parseFloat(cell.paddingBottom) +
                  parseFloat(cell.borderTopWidth) + parseFloat(cell.borderBottomWidth);
    // The most text lines in one of its cells: the cell's content box over its own line-height.
    let lines = 0;
    for (const td of tr.cells) {
      const range = document.createRange();
      range.selectNodeContents(td);
      const own = parseFloat(getComputedStyle(td).lineHeight) || line;
      lines = Math.max(lines, Math.round(range.getBoundingClientRect().height / own));
    }
    out.push('row ' + tr.getBoundingClientRect().height + ' ' + inner + ' ' + line + ' ' + lines);
  }
  for (const h of document.querySelectorAll('h1, h2, h3, h4'))
    out.push('heading ' + h.textContent.trim());
  const pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();</script>)js";

struct Layout {
  double viewport = 0, scroll_width = 0, table_right = 0;
  struct Row {
    double height, padding, line;
    int text_lines;
  };
  std::vector<Row> rows;
  std::vector<std::string> headings;
};

// Text as --dump-dom serialises it, back to the characters.
std::string unescape(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                 {"&gt;", ">"},
                                 {"&nbsp;", " "},
                                 {"&amp;", "&"}})
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  return s;
}

// A copy of `page` without its Content-Security-Policy, with `extra` before </body>.
std::filesystem::path page_copy(const std::filesystem::path& page, const std::filesystem::path& to,
                                const std::string& head_extra, const std::string& body_extra) {
  std::string html = read_file(page);
  const auto csp = html.find("<meta http-equiv=\"Content-Security-Policy\"");
  if (csp != std::string::npos) html.erase(csp, html.find('>', csp) + 1 - csp);
  if (!head_extra.empty()) html.insert(html.find("</head>"), head_extra);
  if (!body_extra.empty()) html.insert(html.rfind("</body>"), body_extra);
  std::ofstream(to) << html;
  return to;
}

Layout measure(const std::string& binary, const std::filesystem::path& dir,
               const std::filesystem::path& page, int width) {
  const std::string tag = std::to_string(width);
  const auto copy = page_copy(page, dir / ("measure-" + tag + ".html"), "", kMeasureScript);
  const auto dom = run_chromium(binary, dir / ("profile-measure-" + tag),
                                {"--window-size=" + tag + ",2000", "--hide-scrollbars",
                                 "--run-all-compositor-stages-before-draw", "--dump-dom"},
                                copy);
  Layout l;
  EXPECT_EQ(dom.exit_code, 0) << dom.err;
  const auto from = dom.out.find("<pre id=\"layout\">");
  if (from == std::string::npos) {
    ADD_FAILURE() << "the measuring script wrote nothing";
    return l;
  }
  std::istringstream in(dom.out.substr(from, dom.out.find("</pre>", from) - from));
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "viewport") f >> l.viewport;
    if (key == "scroll") f >> l.scroll_width;
    if (key == "table") f >> l.table_right;
    if (key == "row") {
      Layout::Row r{};
      f >> r.height >> r.padding >> r.line >> r.text_lines;
      l.rows.push_back(r);
    }
    if (key == "heading") {
      std::string text;
      std::getline(f >> std::ws, text);
      l.headings.push_back(unescape(text));
    }
  }
  return l;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\f\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\f\n") - a + 1);
}

// Each page's text, pdftotext -layout (a table row stays one line).
std::vector<std::string> pdf_pages(const std::filesystem::path& pdf) {
  std::vector<std::string> pages;
  const auto info = run_command({"pdfinfo", pdf.string()});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  const auto at = info.out.find("Pages:");
  if (at == std::string::npos) return pages;
  const int n = std::stoi(info.out.substr(at + 6));
  for (int i = 1; i <= n; ++i) {
    const auto text = run_command({"pdftotext", "-layout", "-f", std::to_string(i), "-l",
                                   std::to_string(i), pdf.string(), "-"});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    pages.push_back(text.out);
  }
  return pages;
}

// The checks on one report: at 1000 and 1400 px, then printed on Letter (chromium's default) and
// on A4, in at most `max_pages` pages.
void check_layout(const std::string& binary, const std::filesystem::path& dir,
                  const std::filesystem::path& page, const RunResult& result,
                  std::size_t max_pages) {
  std::set<std::string> headings;
  for (int width : {1000, 1400}) {
    SCOPED_TRACE("window width " + std::to_string(width));
    const Layout l = measure(binary, dir, page, width);
    ASSERT_GT(l.viewport, 0);
    EXPECT_LE(l.table_right, l.viewport) << "the claims table runs past the window";
    EXPECT_LE(l.scroll_width, l.viewport) << "the page scrolls sideways";
    ASSERT_EQ(l.rows.size(), result.verdicts.size());
    for (std::size_t i = 0; i < l.rows.size(); ++i) {
      const auto& r = l.rows[i];
      std::printf(
          "[layout] %d px: claim row %zu (%s %s) %.0f px high (%.1f line-heights), %d "
          "text lines; table right edge %.0f of %.0f\n",
          width, i, reporting::workload_text(result.verdicts[i]).c_str(),
          result.verdicts[i].metric.c_str(), r.height, (r.height - r.padding) / r.line,
          r.text_lines, l.table_right, l.viewport);
      // A claim measured on a busy or host-limited host carries that sentence too (a demo run
      // beside other tests): one line more for each.
      const std::string& message = result.verdicts[i].message;
      const int lines = 4 + (message.find("host-limited: ") != std::string::npos ? 1 : 0) +
                        (message.find("host busy: ") != std::string::npos ? 1 : 0);
      EXPECT_LE(r.text_lines, lines)
          << "claim row " << i << " has a cell of " << r.text_lines << " lines: " << message;
      EXPECT_LE(r.height - r.padding, lines * r.line + 0.5)
          << "claim row " << i << " (" << reporting::workload_text(result.verdicts[i]) << " "
          << result.verdicts[i].metric << ") is " << r.height << " px high, more than " << lines
          << " lines of " << r.line << " px";
    }
    headings.insert(l.headings.begin(), l.headings.end());
  }
  ASSERT_FALSE(headings.empty());

  const auto info = run_command({"sh", "-c", "command -v pdfinfo && command -v pdftotext"});
  if (info.exit_code != 0) {
    std::printf(
        "[layout] print checks skipped: pdfinfo or pdftotext is missing (apt-get install "
        "poppler-utils)\n");
    return;
  }
  const std::string overall = count_verdicts(result).overall();
  for (const char* paper : {"Letter", "A4"}) {
    SCOPED_TRACE(std::string("printed on ") + paper);
    const std::string tag = paper;
    const auto copy = page_copy(page, dir / ("print-" + tag + ".html"),
                                "<style>@page{size:" + tag + "}</style>", "");
    const auto pdf = dir / ("report-" + tag + ".pdf");
    const auto printed =
        run_chromium(binary, dir / ("profile-print-" + tag),
                     {"--no-pdf-header-footer", "--print-to-pdf=" + pdf.string()}, copy);
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    const auto pages = pdf_pages(pdf);
    std::printf("[layout] printed on %s: %zu pages\n", paper, pages.size());
    ASSERT_FALSE(pages.empty());
    // A run on a loaded host (a demo beside other tests) adds its host-busy and host-limited
    // sentences to claims and workloads: a page more.
    bool host_sentences = false;
    for (const auto& v : result.verdicts)
      host_sentences = host_sentences || v.message.find("host-limited: ") != std::string::npos ||
                       v.message.find("host busy: ") != std::string::npos;
    EXPECT_LE(pages.size(), max_pages + (host_sentences ? 1 : 0));
    EXPECT_NE(pages[0].find(overall), std::string::npos) << "the verdict is not on page 1";
    for (const auto& v : result.verdicts)
      EXPECT_NE(pages[0].find(reporting::workload_text(v)), std::string::npos)
          << "claim " << reporting::workload_text(v) << " " << v.metric << " is not on page 1";
    for (std::size_t i = 0; i + 1 < pages.size(); ++i) {
      std::istringstream in(pages[i]);
      std::string last;
      for (std::string line; std::getline(in, line);)
        if (!trim(line).empty()) last = trim(line);
      EXPECT_FALSE(headings.count(last)) << "page " << i + 1 << " ends with the heading " << last;
    }
  }
}

TEST_F(HtmlBrowser, LayoutOfTheDemoReportOnScreenAndPaper) {
  STORQUAL_REQUIRE(testing::have_program("pdfinfo") && testing::have_program("pdftotext"),
                   "pdfinfo or pdftotext (apt-get install poppler-utils)");
  ScratchDir dir("html-layout-demo");
  std::filesystem::create_directories(dir / "target");
  const std::string source = STORQUAL_SOURCE_DIR;
  const auto run =
      run_command({STORQUAL_BINARY, "run", "--target", (dir / "target").string(), "--suite",
                   source + "/suites/quick.xml", "--spec", source + "/specs/demo.xml",
                   "--runtime-scale", "0.5", "--size", "16m", "--out", (dir / "out").string()});
  // The demo at half its runtimes and a quarter of its region (`make demo` runs it as written):
  // two deviations under the banner, as a hurried run has; its p99 claim has enough I/Os to be
  // judged even on a loaded host; an inconclusive (3) or failed (1) run still wrote the page
  // measured here.
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1 || run.exit_code == 3) << run.out << run.err;
  const RunResult result = load_run_result((dir / "out" / "storqual-result.json").string());
  ASSERT_FALSE(result.verdicts.empty());
  check_layout(binary_, dir.path(), dir / "out" / "storqual-report.html", result, 6);
}

TEST_F(HtmlBrowser, LayoutOfAFailingReportOnScreenAndPaper) {
  STORQUAL_REQUIRE(testing::have_program("pdfinfo") && testing::have_program("pdftotext"),
                   "pdfinfo or pdftotext (apt-get install poppler-utils)");
  ScratchDir dir("html-layout-fail");
  const RunResult result = sample::run(true);
  const auto page = dir / "report.html";
  write_html(page.string(), result);
  check_layout(binary_, dir.path(), page, result, 8);
}

// Not a check: refreshes docs/report-pass.png (the demo's report: `make demo`'s run, the quick
// suite on a scratch file judged by the demo sheet) and docs/report-fail.png (the sample failing
// result) for the README and docs/reports.md; scripts/screenshots.sh runs it. The first screen of
// each: the banner, the claims and the ratio chart, at 1.5 times the pixels (crisp on a
// high-density screen, sharp when scaled down).
TEST_F(HtmlBrowser, RefreshDocScreenshots) {
  const char* wanted = std::getenv("STORQUAL_UPDATE_DOC_SCREENSHOTS");
  if (!wanted || std::string(wanted) != "1")
    GTEST_SKIP() << "set STORQUAL_UPDATE_DOC_SCREENSHOTS=1 (scripts/screenshots.sh) to rewrite "
                    "docs/report-*.png";
  ScratchDir dir("html-screenshots");
  const std::string source = STORQUAL_SOURCE_DIR;
  std::filesystem::create_directories(dir / "target");
  const auto demo = run_command({STORQUAL_BINARY, "run", "--target", (dir / "target").string(),
                                 "--suite", "quick", "--spec", source + "/specs/demo.xml", "--out",
                                 (dir / "demo").string()});
  ASSERT_LT(demo.exit_code, 2) << demo.out << demo.err;
  // The sample failing result as a FAIL (without its skipped claim, which makes it INCOMPLETE),
  // with the deviations box a hurried run on a busy host shows.
  RunResult failing = sample::run(true);
  std::erase_if(failing.verdicts,
                [](const ClaimVerdict& v) { return v.status == VerdictStatus::Skipped; });
  failing.deviations = {
      {"runtime", "runtimes scaled by 0.1 (--runtime-scale 0.1)", {}},
      {"busy-host",
       "host busy during randwrite-4k-qd32 (randwrite-4k-qd32: other processes used 1.10 of 2 "
       "CPUs (user time, on average)): the figures are the host's as much as the device's",
       {"randwrite-4k-qd32"}}};
  write_html((dir / "report-fail.html").string(), failing);
  for (const std::string name : {"pass", "fail"}) {
    const auto page =
        name == "pass" ? dir / "demo" / "storqual-report.html" : dir / ("report-" + name + ".html");
    const auto out = std::filesystem::path(source) / "docs" / ("report-" + name + ".png");
    const auto shot = run_chromium(binary_, dir / ("profile-" + name),
                                   {"--window-size=1000,1150", "--force-device-scale-factor=1.5",
                                    "--hide-scrollbars", "--screenshot=" + out.string()},
                                   page);
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_TRUE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace storqual::reporting
