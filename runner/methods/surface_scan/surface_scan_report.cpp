// SPDX-License-Identifier: Apache-2.0
// The surface scan's report: its JSON, the HTML box (latency-class table, MB/s along the LBA
// range, slow regions and blocks), the console's class table and the words its verdicts add (see
// surface_scan.hpp).
#include <cstdio>
#include <cstring>
#include <numeric>

#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/svg_chart.hpp"
#include "runner/methods/surface_scan/surface_scan.hpp"
#include "runner/methods/surface_scan/surface_scan_json.hpp"

namespace storqual::runner {

void SurfaceScanMethodReport::write_json(nlohmann::ordered_json& result) const {
  reporting::json::put(result, "surface_scan", scan);
}

std::shared_ptr<const reporting::MethodReport> read_surface_scan_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w) {
  if (kind != "surface-scan") return nullptr;
  auto report = std::make_shared<SurfaceScanMethodReport>();
  workload.get("surface_scan", report->scan);
  if (report->scan && report->scan->read_classes.size() != kScanClasses)
    throw reporting::ResultJsonError("surface_scan.read_classes: expected " +
                                     std::to_string(kScanClasses) + " classes");
  if (report->scan && (report->scan->lba_size == 0 || report->scan->block_size == 0))
    throw reporting::ResultJsonError("surface_scan: lba_size and block_size must not be 0");
  if (report->scan && w.figures.empty()) add_scan_figures(*report->scan, w.figures);
  return report;
}

const SurfaceScanReport* surface_scan_report_of(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const SurfaceScanMethodReport*>(w.method.get());
  return report && report->scan ? &*report->scan : nullptr;
}

namespace {

std::uint64_t reads_timed(const SurfaceScanReport& r) {
  return std::accumulate(r.read_classes.begin(), r.read_classes.end(), std::uint64_t{0});
}

std::string share_text(std::uint64_t n, std::uint64_t total) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f%%",
                total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0);
  return text;
}

std::string lba_range(std::uint64_t first, std::uint64_t last) {
  return "LBA " + std::to_string(first) + "-" + std::to_string(last);
}

double slowest_bin(const SurfaceScanReport& r) {
  double slowest = 0;
  for (const auto& b : r.bins)
    if (b.read_ns) {
      const double rate = bin_rate(b.read_bytes, b.read_ns);
      if (slowest == 0 || rate < slowest) slowest = rate;
    }
  return slowest;
}

// The chart's x: GiB from the start of the target.
double gib(std::uint64_t offset) {
  return static_cast<double>(offset) / static_cast<double>(1ull << 30);
}

std::string lba_chart(const SurfaceScanReport& r) {
  reporting::LineChart chart;
  chart.title =
      "MB/s along the LBA range (" + std::to_string(r.bins.size()) + " bins of " +
      reporting::format_bytes_iec(r.bins.empty() ? 0.0 : static_cast<double>(r.bins[0].bytes)) +
      ")";
  chart.x_label = "position (GiB from LBA 0)";
  chart.y_label = "MB/s";
  chart.format_y = [](double v) { return reporting::format_fixed(v, v < 10 ? 1 : 0); };
  reporting::ChartSeries read{"read-and-verify pass", reporting::kHtmlReadColour, {}};
  reporting::ChartSeries write{"write pass", reporting::kHtmlWriteColour, {}};
  for (const auto& b : r.bins) {
    const double mid = gib(b.offset + b.bytes / 2);
    if (b.read_ns) read.points.emplace_back(mid, bin_rate(b.read_bytes, b.read_ns) / 1e6);
    if (b.write_ns) write.points.emplace_back(mid, bin_rate(b.write_bytes, b.write_ns) / 1e6);
  }
  chart.series = {read, write};
  // Shaded; only the first is labelled, so that many narrow ones do not write over each other.
  for (const auto& s : r.slow_regions)
    chart.x_bands.push_back({gib(s.first_lba * r.lba_size), gib((s.last_lba + 1) * r.lba_size),
                             chart.x_bands.empty() ? "slow regions" : "", "#d62728"});
  return reporting::render_line_chart(chart);
}

void class_table_html(std::string& o, const SurfaceScanReport& r) {
  using reporting::html_escape;
  const std::uint64_t total = reads_timed(r);
  o += "<table class=\"scan-classes\"><thead><tr><th>read time</th><th>blocks</th><th>share</th>"
       "</tr></thead><tbody>";
  for (std::size_t c = 0; c < r.read_classes.size(); ++c) {
    const bool bad = c >= kSlowBlockClass && r.read_classes[c] > 0;
    o += "<tr data-class=\"" + std::to_string(c) + "\"" + (bad ? " class=\"bad\"" : "") + "><th>" +
         html_escape(scan_class_label(c)) + "</th><td class=\"num\">" +
         std::to_string(r.read_classes[c]) + "</td><td class=\"num\">" +
         share_text(r.read_classes[c], total) + "</td></tr>";
  }
  o += "</tbody></table>";
}

void slow_tables_html(std::string& o, const SurfaceScanReport& r) {
  using reporting::html_escape;
  if (r.slow_regions.empty()) {
    o += "<p>No slow region: every bin read at least " +
         reporting::format_fixed(kSlowRegionShare * 100, 0) + "% of the median bin's rate.</p>";
  } else {
    o += "<table class=\"scan-slow-regions\"><thead><tr><th>slow region</th><th>read rate</th>"
         "<th>of the median bin</th></tr></thead><tbody>";
    for (const auto& s : r.slow_regions)
      o += "<tr><td>" + html_escape(lba_range(s.first_lba, s.last_lba)) +
           "</td><td class=\"num\">" + html_escape(reporting::format_rate_mb(s.read_bw)) +
           "</td><td class=\"num\">" + reporting::html_percent(s.share_of_median * 100) +
           "</td></tr>";
    o += "</tbody></table>";
  }
  if (r.slowest.empty()) return;
  o += "<table class=\"scan-slow-blocks\"><thead><tr><th>block (LBA)</th><th>read time</th>"
       "<th>error</th></tr></thead><tbody>";
  for (const auto& s : r.slowest)
    o += "<tr><td class=\"num\">" + std::to_string(s.lba) + "</td><td class=\"num\">" +
         html_escape(reporting::format_latency(static_cast<double>(s.ns))) + "</td><td>" +
         (s.error ? html_escape(std::strerror(s.error)) : std::string()) + "</td></tr>";
  o += "</tbody></table>";
}

}  // namespace

void add_scan_figures(const SurfaceScanReport& r, std::vector<reporting::Figure>& out) {
  if (r.block_size == 0 || r.bytes_read + r.read_errors * r.block_size < r.region_size) return;
  auto rate = [](std::uint64_t bytes, double s) {
    return static_cast<double>(bytes) / (s > 0 ? s : 1e-9);
  };
  reporting::add_figure(out, "scan.write_bw", rate(r.bytes_written, r.write_seconds));
  reporting::add_figure(out, "scan.read_bw", rate(r.bytes_read, r.read_seconds));
  reporting::add_figure(out, "scan.min_read_bw", slowest_bin(r));
}

std::string scan_class_table(const SurfaceScanReport& r) {
  const std::uint64_t total = reads_timed(r);
  std::string out = "read time   blocks        share\n";
  for (std::size_t c = 0; c < r.read_classes.size(); ++c) {
    char line[96];
    std::snprintf(line, sizeof line, "%-10s  %-12llu  %s\n", scan_class_label(c).c_str(),
                  static_cast<unsigned long long>(r.read_classes[c]),
                  share_text(r.read_classes[c], total).c_str());
    out += line;
  }
  return out;
}

std::string scan_summary(const SurfaceScanReport& r) {
  std::string out =
      "read " + reporting::format_bytes_iec(static_cast<double>(r.bytes_read)) + " at " +
      reporting::format_rate_mb(
          r.read_seconds > 0 ? static_cast<double>(r.bytes_read) / r.read_seconds : 0) +
      " (slowest bin " + reporting::format_rate_mb(slowest_bin(r)) + "), " +
      std::to_string(reads_timed(r)) + " reads:";
  bool first = true;
  for (std::size_t c = 0; c < r.read_classes.size(); ++c) {
    if (!r.read_classes[c]) continue;
    out += (first ? " " : ", ") + std::to_string(r.read_classes[c]) + " " + scan_class_label(c);
    first = false;
  }
  out += "; " + std::to_string(r.slow_regions.size()) + " slow regions";
  for (const auto& s : r.slow_regions) out += " (" + lba_range(s.first_lba, s.last_lba) + ")";
  return out;
}

std::string SurfaceScanMethodReport::claim_note(std::string_view metric) const {
  return scan && metric.starts_with("scan.") ? scan_summary(*scan) : std::string();
}

std::string SurfaceScanMethodReport::console_block(const reporting::WorkloadResult& w) const {
  if (!scan) return {};
  std::string out = w.id + ": surface scan of " +
                    reporting::format_bytes_iec(static_cast<double>(scan->region_size)) + " in " +
                    std::to_string(scan->sessions) + " session(s)\n" + scan_class_table(*scan);
  for (const auto& s : scan->slow_regions)
    out += "slow region " + lba_range(s.first_lba, s.last_lba) + ": " +
           reporting::format_rate_mb(s.read_bw) + " (" +
           reporting::format_fixed(s.share_of_median * 100, 0) + "% of the median bin)\n";
  return out;
}

void SurfaceScanMethodReport::render_html(std::string& o, const reporting::RunResult& /*run*/,
                                          const reporting::WorkloadResult& /*w*/) const {
  using namespace reporting;
  if (!scan) return;
  const SurfaceScanReport& r = *scan;
  // Red for what a scanner marks bad: failed I/O or reads of 150 ms and over; slow regions are
  // shown (shaded on the chart, listed below) without making the box red.
  bool clean = r.read_errors == 0 && r.write_errors == 0;
  for (std::size_t c = kSlowBlockClass; c < r.read_classes.size(); ++c)
    clean = clean && r.read_classes[c] == 0;
  o += "<div class=\"box surface-scan " + std::string(clean ? "ok" : "bad") +
       "\"><h4>Surface scan</h4><table><tbody>";
  html_kv_row(o, "region",
              html_bytes_text(r.region_size) + " from offset " + html_offset_text(r.region_offset) +
                  ", LBA " + std::to_string(r.region_offset / r.lba_size) + "-" +
                  std::to_string((r.region_offset + r.region_size) / r.lba_size - 1) + " of " +
                  std::to_string(r.lba_size) + " bytes");
  html_kv_row(o, "blocks",
              format_bytes_iec(static_cast<double>(r.block_size)) + " at QD" +
                  std::to_string(r.iodepth) + ", verify " + r.algorithm);
  auto pass = [](std::uint64_t bytes, std::uint64_t errors, double s) {
    return format_bytes_iec(static_cast<double>(bytes)) + " in " + format_fixed(s, 1) + " s, " +
           format_rate_mb(s > 0 ? static_cast<double>(bytes) / s : 0) + ", " +
           std::to_string(errors) + " errors";
  };
  html_kv_row(o, "write pass", pass(r.bytes_written, r.write_errors, r.write_seconds));
  html_kv_row(o, "read-and-verify pass", pass(r.bytes_read, r.read_errors, r.read_seconds));
  html_kv_row(
      o, "sessions",
      std::to_string(r.sessions) + (r.sessions > 1 ? " (resumed from its checkpoint)" : ""));
  o += "</tbody></table>";
  class_table_html(o, r);
  html_chart_figure(o, "scan-lba", lba_chart(r));
  slow_tables_html(o, r);
  o += "</div>";
}

}  // namespace storqual::runner
