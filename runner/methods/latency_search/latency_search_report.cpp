// SPDX-License-Identifier: Apache-2.0
// The latency search's report: its JSON, HTML curve and table, console curve and verdict words
// (see latency_search.hpp).
#include <cstdio>

#include "model/quantity_format.hpp"
#include "reporting/figure_labels.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/json_codec.hpp"
#include "reporting/svg_chart.hpp"
#include "runner/methods/latency_search/latency_search.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<LatencyCurvePoint> auto& c, auto&& visit) {
  visit("iodepth", c.iodepth);
  visit("iops", c.iops);
  visit("latency_ns", c.latency_ns);
  visit("within_limit", c.within_limit);
}

void LatencySearchMethodReport::write_json(nlohmann::ordered_json& result) const {
  // The three keys together, as a latency search always wrote them.
  if (curve.empty() && limit_ns == 0 && stat.empty()) return;
  reporting::json::put(result, "latency_curve", curve);
  reporting::json::put(result, "latency_limit_ns", limit_ns);
  reporting::json::put(result, "latency_stat", stat);
}

std::shared_ptr<const reporting::MethodReport> read_latency_search_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult&) {
  if (kind != "latency-search") return nullptr;
  auto report = std::make_shared<LatencySearchMethodReport>();
  workload.get("latency_curve", report->curve);
  workload.get("latency_limit_ns", report->limit_ns);
  workload.get("latency_stat", report->stat);
  return report;
}

void LatencySearchMethodReport::render_html(std::string& o, const reporting::RunResult&,
                                            const reporting::WorkloadResult& w) const {
  using namespace reporting;
  if (curve.empty()) return;
  const std::string stat_name = stat.empty() ? std::string("latency") : stat;
  LineChart c;
  c.title = w.id + ": latency-bounded IOPS search (" + stat_name +
            " by iodepth; IOPS read+write, sum over " + jobs_text(w.params.numjobs) + ")";
  c.x_label = "IOPS";
  c.y_label = "latency";
  c.log_y = true;
  c.format_y = html_latency_tick;
  c.format_x = [](double v) { return fio_num2str(v); };
  ChartSeries s{stat_name, kHtmlReadColour, {}};
  for (const auto& pt : curve) s.points.emplace_back(pt.iops, pt.latency_ns);
  c.series.push_back(std::move(s));
  if (limit_ns > 0)
    c.claim = ClaimLine{"limit " + html_latency(limit_ns), limit_ns, limit_ns, limit_ns};
  html_chart_figure(o, "latency-curve", render_line_chart(c));
  o += "<p class=\"small definition\">Every depth run; the bound: " +
       html_escape(latency_stat_definition(stat)) + " &le; " + html_escape(html_latency(limit_ns)) +
       "; chosen: iodepth " + std::to_string(w.params.iodepth) +
       " (the most IOPS within the limit).</p>";
  o += "<table class=\"curve\"><thead><tr><th>iodepth</th><th>IOPS (read+write, sum over " +
       html_escape(jobs_text(w.params.numjobs)) + ")</th><th>" + html_escape(stat_name) +
       "</th><th>within the limit</th></tr></thead><tbody>";
  for (const auto& pt : curve)
    o += "<tr><td class=\"num\">" + std::to_string(pt.iodepth) + "</td><td class=\"num\">" +
         html_escape(html_iops(pt.iops)) + "</td><td class=\"num\">" +
         (pt.latency_ns >= 0 ? html_escape(html_latency(pt.latency_ns)) : "&ndash;") + "</td><td>" +
         (pt.within_limit ? "yes" : "no") + "</td></tr>";
  o += "</tbody></table>";
}

std::string LatencySearchMethodReport::console_block(const reporting::WorkloadResult& w) const {
  if (curve.empty()) return "";
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "  latency search: %s <= %s; IOPS per step: read+write, sum over %u job%s\n",
                stat.c_str(), reporting::format_latency(limit_ns).c_str(), w.params.numjobs,
                w.params.numjobs == 1 ? "" : "s");
  out += line;
  std::snprintf(line, sizeof line, "    %8s  %10s  %12s  %s\n", "iodepth", "IOPS", stat.c_str(),
                "within");
  out += line;
  for (const auto& pt : curve) {
    std::snprintf(line, sizeof line, "    %8u  %10s  %12s  %s%s\n", pt.iodepth,
                  reporting::format_iops(pt.iops).c_str(),
                  pt.latency_ns >= 0 ? reporting::format_latency(pt.latency_ns).c_str() : "-",
                  pt.within_limit ? "yes" : "no",
                  pt.iodepth == w.params.iodepth ? "  <- chosen" : "");
    out += line;
  }
  return out;
}

std::string LatencySearchMethodReport::measured_note(const reporting::WorkloadResult& w) const {
  return ", at iodepth " + std::to_string(w.params.iodepth);
}

std::string LatencySearchMethodReport::figure_note(const reporting::WorkloadResult& w) const {
  return ", at iodepth " + std::to_string(w.params.iodepth) + " (the search's choice)";
}

}  // namespace storqual::runner
