// SPDX-License-Identifier: Apache-2.0
// The pieces of the HTML report (html_blocks.hpp), the number texts of its pages and the start of
// a page with its style sheet (html_report.hpp: html_page_start).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "model/metric.hpp"
#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

constexpr const char* kStyle = R"css(
:root{--pass:#1e7b34;--fail:#b3261e;--error:#8a4b00;--skip:#5f6368;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;color:#1b1f24;margin:0 auto;max-width:1000px;padding:16px;background:#fff}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:22px 0 6px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;border:1px solid var(--line);padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.banner{border-radius:6px;padding:14px 18px;color:#fff;margin:8px 0 16px}
.banner .big{font-size:30px;font-weight:700;letter-spacing:1px}
.banner.PASS{background:var(--pass)}.banner.FAIL{background:var(--fail)}.banner.ERROR{background:var(--error)}.banner.INCONCLUSIVE{background:#6b4f8a}.banner.INCOMPLETE{background:#8a5a00}.banner.MEASURED{background:#5b6570}
.deviations{border-left:4px solid #b7791f;background:#fdf6e7;padding:6px 12px;margin:-8px 0 14px}
.deviations ul{margin:4px 0;padding-left:20px}.deviations li{margin:2px 0}
.dev{color:#b7791f;font-weight:700}
.status{font-weight:700;padding:1px 6px;border-radius:3px;color:#fff;white-space:nowrap}
.status.pass{background:var(--pass)}.status.fail{background:var(--fail)}.status.error{background:var(--error)}.status.inconclusive{background:#6b4f8a}
.status.skipped,.status.measured-only{background:var(--skip)}
tr.fail td{background:#fdecea}tr.error td{background:#fff4e5}tr.inconclusive td{background:#f3eefa}
.bar.pass{fill:#2e9d4a}.bar.fail{fill:#d0443a}.bar.error{fill:#c77700}.bar.inconclusive{fill:#8e6cb8}.bar.skipped,.bar.measured-only{fill:#9aa0a6}
.flag{display:inline-block;background:#fff3cd;border:1px solid #b8860b;border-radius:3px;padding:0 6px;margin-right:6px;font-weight:600}
.changed td{background:#fff3cd;font-weight:600}
figure.chart-block{margin:8px 0 14px}
svg.chart{width:100%;max-width:100%;height:auto;display:block}
svg .ct{font-size:13px;font-weight:600;fill:#1b1f24}svg .tk{font-size:11px;fill:#444}svg .al{font-size:11px;fill:#444}
svg .lg{font-size:11px;fill:#222}svg .cl{font-size:11px;fill:#1e7b34;font-weight:600}svg .fl{font-size:11px;fill:#6b4e00;font-weight:600}
.two{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}.two table{table-layout:fixed;word-break:break-word}
table.claims th,table.claims td{padding:4px 5px}table.claims th{font-size:12px;white-space:nowrap}
table.claims td.num{font-size:12.5px}table.claims td:nth-child(-n+2){white-space:nowrap;font-size:12px}
table.claims td.details{font-size:12px;line-height:1.35;overflow-wrap:break-word;width:50%}
abbr[title]{text-decoration:none}
.muted{color:#57606a}.small{font-size:12px}
section.workload{border-top:1px solid var(--line);margin-top:18px}
.box{border:1px solid var(--line);border-left:5px solid #24527a;border-radius:4px;padding:6px 12px;margin:8px 0 12px;background:#f8fafc}
.box.ok{border-left-color:var(--pass)}.box.bad{border-left-color:var(--fail);background:#fdf3f2}.box.skipped{border-left-color:var(--skip)}
.box h4{margin:4px 0}
tr.window td{background:#eef7ee;font-weight:600}td.bad{background:#fdecea;font-weight:700}
table.matrix td.cell a{color:inherit;text-decoration:none}table.matrix td.skipped{color:var(--skip);font-style:italic;text-align:center}
table.matrix td.error{background:#fff4e5;text-align:center}
svg .bl,svg .ml{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}svg .bl{fill:#3d2a63}svg .ml{fill:#8a4b00;font-weight:600}
@media print{
 body{max-width:none;padding:0;font-size:10px;line-height:1.3}
 .banner,.status,.bar,tr.fail td,tr.error td,.changed td,.box,tr.window td,td.bad{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 .banner{padding:8px 14px;margin:0 0 8px}.banner .big{font-size:22px}
 h1{font-size:16px;margin:4px 0}h2{font-size:14px;margin:10px 0 4px}h3{font-size:12.5px;margin:8px 0 3px}h4{margin:6px 0 3px}
 p{margin:4px 0}.small{font-size:9px}
 th,td{padding:2px 5px}table{margin:4px 0 8px}.two table{table-layout:auto}
 table.claims th,table.claims td{padding:2px 4px}
 table.claims th,table.claims td.num,table.claims td:nth-child(-n+2),table.claims td{font-size:10px}table.claims td.details{font-size:9.5px}
 dl{columns:2;column-gap:24px;font-size:9px}dd{margin:0 0 3px 12px}
 code,pre{font-size:8px;line-height:1.25}pre{padding:4px 6px}
 section.workload{margin-top:8px}.box{padding:3px 8px;margin:4px 0 6px}
 figure.chart-block{margin:4px auto 8px;max-width:72%}
 figure.chart-block,tr,.box h4,dt{break-inside:avoid;page-break-inside:avoid}
 thead{display:table-header-group}
 h2,h3,h4,dt{break-after:avoid;page-break-after:avoid}
 pre{white-space:pre-wrap}
}
@page{margin:10mm}
)css";

}  // namespace

std::string html_latency_tick(double ns) {
  char buf[32];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%g ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%g us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%g s", ns / 1e9);
  return buf;
}

namespace {

// What a bad block held, as the reader of the finding needs it.
std::string finding_detail(const IntegrityFinding& f) {
  if (f.kind == "misplaced")
    return "held the block written for offset " + html_offset_text(f.found_offset);
  if (f.kind == "stale")
    return "held write sequence " + std::to_string(f.found_sequence) + ", expected " +
           std::to_string(f.expected_sequence) + " (a lost write)";
  if (f.kind == "corrupted") return "header of this block, payload checksum wrong";
  if (f.kind == "foreign") return "not written by this run";
  return "";
}

}  // namespace

void html_class_counts(std::string& o, std::uint64_t corrupted, std::uint64_t misplaced,
                       std::uint64_t stale, std::uint64_t foreign, std::uint64_t read_errors) {
  o += "<table class=\"classes\"><thead><tr><th>corrupted</th><th>misplaced</th><th>stale</th>"
       "<th>foreign</th><th>read errors</th></tr></thead><tbody><tr>";
  for (auto n : {corrupted, misplaced, stale, foreign, read_errors})
    o += std::string("<td class=\"num") + (n ? " bad" : "") + "\">" + std::to_string(n) + "</td>";
  o += "</tr></tbody></table>";
}

void html_findings_table(std::string& o, const std::vector<IntegrityFinding>& findings,
                         std::uint64_t total_bad) {
  if (findings.empty()) return;
  o += "<p class=\"small\">First " + std::to_string(findings.size()) + " of " +
       std::to_string(std::max<std::uint64_t>(total_bad, findings.size())) +
       " bad blocks, by offset:</p><table class=\"findings\"><thead><tr><th>class</th>"
       "<th>offset</th><th>what the block held</th></tr></thead><tbody>";
  for (const auto& f : findings)
    o += "<tr class=\"" + html_escape(f.kind) + "\"><td>" + html_escape(f.kind) +
         "</td><td class=\"num\">" + html_escape(html_offset_text(f.offset)) + "</td><td>" +
         html_escape(finding_detail(f)) + "</td></tr>";
  o += "</tbody></table>";
}

std::string html_escape(const std::string& s) {
  return escape_html(s);
}

void html_kv_row(std::string& o, const std::string& key, const std::string& value, bool code) {
  o += "<tr><th>" + html_escape(key) + "</th><td>" + (code ? "<code>" : "") + html_escape(value) +
       (code ? "</code>" : "") + "</td></tr>";
}

void html_chart_figure(std::string& o, const std::string& kind, const std::string& svg) {
  o += "<figure class=\"chart-block\" data-chart=\"" + kind + "\">" + svg + "</figure>";
}

std::string html_bytes_text(std::uint64_t bytes) {
  return std::to_string(bytes) + " B (" + format_bytes_iec(static_cast<double>(bytes)) + ")";
}

std::string html_offset_text(std::uint64_t offset) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(offset));
  return std::to_string(offset) + " (" + buf + ")";
}

std::string html_percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string html_iops(double iops) {
  return format_html_figure(iops, "IOPS");
}
std::string html_rate(double bytes_per_s) {
  return format_html_figure(bytes_per_s, "B/s");
}
std::string html_latency(double ns) {
  return format_html_figure(ns, "ns");
}

std::string format_html_figure(double value, std::string_view unit) {
  if (unit == "%") return format_metric_value(MetricKind::Percent, value);
  if (unit == "x") return format_metric_value(MetricKind::Waf, value);
  if (unit == "DWPD") return format_metric_value(MetricKind::Dwpd, value);
  return format_verdict_value(value, unit);  // IOPS, B/s, ns, B: format_metric_value's own
}

std::string html_page_start(const std::string& title, const std::string& extra_css) {
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  // No network: forbid every fetch, even if a browser found something to load.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; img-src data:\">";
  o += "<title>" + html_escape(title) + "</title>";
  o += "<style>";
  o += kStyle;
  o += extra_css;
  o += "</style></head><body>\n";
  return o;
}

}  // namespace storqual::reporting
