// SPDX-License-Identifier: Apache-2.0
// The PTS-style HTML section of a wsat/dirth/xsr/hir test (PtsMethodReport::render_html, see
// pts_tests.hpp), in the style of the PTS report: the test and device header (device, capacity,
// firmware, purge method, preconditioning, steady-state convergence and its 5-round window), the
// plots the PTS names for the test (SVG, reporting/svg_chart.hpp) and the figures claims judge.
// Charts are <figure class="chart-block" data-chart="pts-...">.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "model/quantity_format.hpp"
#include "reporting/html_report.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "runner/methods/pts/pts_tests.hpp"

namespace storqual::runner {
namespace {

using namespace reporting;

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string esc(const std::string& s) {
  return escape_html(s);
}

void row(std::string& o, const std::string& key, const std::string& value) {
  o += "<tr><th>" + esc(key) + "</th><td>" + esc(value) + "</td></tr>";
}

void figure(std::string& o, const std::string& kind, const std::string& svg) {
  o += "<figure class=\"chart-block\" data-chart=\"pts-" + kind + "\">" + svg + "</figure>";
}

std::string identity(const RunResult& run, const std::string& field) {
  for (const auto& r : run.device.identity)
    if (r.field == field) return r.value;
  return "";
}

std::string seconds_text(double s) {
  char buf[64];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// The page's one number format (format_html_figure(), reporting/html_report.hpp): a PTS figure
// reads here as in its verdict and in the claims table.
std::string figure_text(const Figure& f) {
  return format_html_figure(f.value, f.unit.empty() ? std::string_view("%") : f.unit);
}

std::string test_name(const std::string& t) {
  if (t == "wsat") return "WSAT: write saturation";
  if (t == "dirth") return "DIRTH: demand intensity / response-time histogram";
  if (t == "xsr") return "XSR: cross-stimulus recovery";
  if (t == "hir") return "HIR: host idle recovery";
  return t;
}

std::string steady_text(const SteadyStateReport& s) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "%s after %zu rounds: window mean %.4g %s, range %.1f%% of the mean (limit %.0f%%), "
      "slope excursion %.1f%% (limit %.0f%%)",
      s.steady ? "steady" : "not steady", s.rounds.size(), s.mean, s.metric.c_str(), s.range_pct,
      s.range_limit_pct, s.slope_pct, s.slope_limit_pct);
  return buf;
}

// The PTS's test and device header.
void header(std::string& o, const RunResult& run, const WorkloadResult& w) {
  const PtsReport& p = *pts_report_of(w);
  o += "<table class=\"pts-header\"><tbody>";
  row(o, "test", test_name(p.test) + " (SNIA SSS PTS 2.0.x)");
  row(o, "stimulus", p.stimulus);
  std::string device = run.device.name;
  const std::string model = identity(run, "model");
  if (!model.empty()) device += ", " + model;
  row(o, "device", device);
  const std::string capacity = identity(run, "capacity_bytes");
  if (!capacity.empty()) {
    char* end = nullptr;
    const double bytes = std::strtod(capacity.c_str(), &end);
    row(o, "capacity", capacity + " B (" + reporting::format_bytes_iec(bytes) + ")");
  }
  row(o, "tested range", reporting::format_bytes_iec(static_cast<double>(p.range_bytes)));
  const std::string firmware = identity(run, "firmware");
  row(o, "firmware", firmware.empty() ? "not reported" : firmware);
  std::string purge = "none", pre;
  for (const auto& line : w.preconditioning) {
    if (line.find("purge") != std::string::npos || line.find("discard") != std::string::npos)
      purge = line;
    pre += (pre.empty() ? "" : "; ") + line;
  }
  row(o, "purge method", purge);
  row(o, "preconditioning", pre.empty() ? "none" : pre);
  if (p.steady_state) {
    const auto& s = *p.steady_state;
    row(o, "steady-state convergence", steady_text(s));
    if (!s.rounds.empty() && s.window_last < s.rounds.size())
      row(o, "steady-state window",
          std::to_string(s.window) + " rounds: " + std::to_string(s.window_first + 1) + " to " +
              std::to_string(s.window_last + 1));
  } else {
    row(o, "steady-state convergence", "not part of this test");
  }
  row(o, "sample interval", seconds_text(p.interval_s));
  row(o, "time as run", seconds_text(w.elapsed_s));
  if (p.full_scale_s > 0) row(o, "time at full scale", seconds_text(p.full_scale_s));
  o += "</tbody></table>";
}

void figures_table(std::string& o, const PtsReport& p) {
  if (p.figures.empty()) return;
  o += "<table class=\"pts-figures\"><thead><tr><th>figure</th><th>measured</th></tr></thead>"
       "<tbody>";
  for (const auto& f : p.figures)
    o += "<tr><td>" + esc(f.name) + "</td><td class=\"num\">" + esc(figure_text(f)) + "</td></tr>";
  o += "</tbody></table>";
}

std::string iops_tick(double v) {
  return fio_num2str(v);
}

void wsat(std::string& o, const WorkloadResult& w) {
  const PtsReport& p = *pts_report_of(w);
  const bool region = p.steady_from_s >= 0;
  for (const bool by_tgbw : {false, true}) {
    LineChart c;
    c.title = w.id + ": WSAT IOPS vs " + (by_tgbw ? "TGBW" : "time");
    c.x_label = by_tgbw ? "total GB written" : "time (s)";
    c.y_label = "IOPS";
    c.format_y = iops_tick;
    ChartSeries s{"IOPS per interval", kColours[0], {}};
    for (const auto& pt : p.samples)
      s.points.emplace_back(by_tgbw ? pt.tgbw / 1e9 : pt.t_s, pt.iops);
    c.series.push_back(std::move(s));
    if (region) {
      XBand b;
      b.from = by_tgbw ? p.steady_from_tgbw / 1e9 : p.steady_from_s;
      b.to = by_tgbw ? p.steady_to_tgbw / 1e9 : p.steady_to_s;
      b.label = "steady state";
      b.color = "#2ca02c";
      c.x_bands.push_back(b);
    }
    if (p.cliff_tgbw >= 0) {
      double x = p.cliff_tgbw / 1e9;
      if (!by_tgbw) {  // the cliff's time: where the samples' TGBW passes it
        x = 0;
        double prev_t = 0, prev_b = 0;
        for (const auto& pt : p.samples) {
          if (pt.tgbw >= p.cliff_tgbw) {
            const double f = pt.tgbw > prev_b ? (p.cliff_tgbw - prev_b) / (pt.tgbw - prev_b) : 0;
            x = prev_t + f * (pt.t_s - prev_t);
            break;
          }
          prev_t = pt.t_s;
          prev_b = pt.tgbw;
        }
      }
      c.x_markers.push_back({x, "cliff at " + reporting::format_bytes_iec(p.cliff_tgbw)});
    }
    if (const Figure* sat = [&]() -> const Figure* {
          for (const auto& f : p.figures)
            if (f.name == "wsat.iops") return &f;
          return nullptr;
        }())
      c.claim = ClaimLine{"saturated " + html_iops(sat->value), sat->value, sat->value, sat->value};
    figure(o, by_tgbw ? "wsat-tgbw" : "wsat-time", render_line_chart(c));
  }
  LineChart r;
  r.title = w.id + ": WSAT response time vs TGBW";
  r.x_label = "total GB written";
  r.y_label = "average response time";
  r.format_y = [](double v) { return format_latency(v); };
  ChartSeries s{"mean response time", kColours[1], {}};
  for (const auto& pt : p.samples) s.points.emplace_back(pt.tgbw / 1e9, pt.lat_mean_ns);
  r.series.push_back(std::move(s));
  r.height = 220;
  figure(o, "wsat-latency", render_line_chart(r));
}

void dirth(std::string& o, const WorkloadResult& w) {
  const PtsReport& p = *pts_report_of(w);
  std::map<unsigned, std::vector<const PtsGridPoint*>> by_threads;
  for (const auto& g : p.grid) by_threads[g.threads].push_back(&g);
  // Demand intensity: response time against IOPS, one series per thread count along QD.
  LineChart di;
  di.title = w.id + ": demand intensity (response time vs IOPS)";
  di.x_label = "IOPS";
  di.y_label = "average response time";
  di.format_x = iops_tick;
  di.format_y = [](double v) { return format_latency(v); };
  LineChart dv;
  dv.title = w.id + ": demand variation (IOPS vs queue depth)";
  dv.x_label = "queue depth per thread";
  dv.y_label = "IOPS";
  dv.format_y = iops_tick;
  std::size_t k = 0;
  for (auto it = by_threads.rbegin(); it != by_threads.rend(); ++it, ++k) {
    auto points = it->second;
    std::sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->qd < b->qd; });
    ChartSeries a{"T" + std::to_string(it->first), kColours[k % 10], {}};
    ChartSeries b = a;
    for (const auto* g : points) {
      a.points.emplace_back(g->iops, g->lat_mean_ns);
      b.points.emplace_back(g->qd, g->iops);
    }
    di.series.push_back(std::move(a));
    dv.series.push_back(std::move(b));
  }
  di.claim = ClaimLine{"ceiling " + html_latency(p.ceiling_ns), p.ceiling_ns, 0, p.ceiling_ns};
  for (const auto& h : p.histograms)  // at the grid point's IOPS (the curve's), not the rerun's
    for (const auto& g : p.grid)
      if (g.threads == h.threads && g.qd == h.qd)
        di.x_markers.push_back(
            {g.iops, h.label + " T" + std::to_string(h.threads) + "Q" + std::to_string(h.qd)});
  figure(o, "dirth-intensity", render_line_chart(di));
  figure(o, "dirth-variation", render_line_chart(dv));
  for (const auto& h : p.histograms) {
    std::vector<HistogramBin> bins;
    for (const auto& b : h.bins)
      bins.push_back({format_latency(b.upper_ns), static_cast<double>(b.count)});
    char sub[200];
    std::snprintf(sub, sizeof sub, " T%uQ%u: %s, mean %s, 5 nines %s, max %s", h.threads, h.qd,
                  html_iops(h.iops).c_str(), html_latency(h.lat_mean_ns).c_str(),
                  html_latency(h.lat_p99999_ns).c_str(), html_latency(h.lat_max_ns).c_str());
    figure(o, "dirth-histogram",
           render_histogram(w.id + ": response-time histogram at " + h.label + sub,
                            "response time (bin upper bound)", bins));
  }
  o += "<table class=\"pts-grid\"><thead><tr><th>threads</th><th>QD</th><th>OIO</th><th>IOPS</th>"
       "<th>avg response</th><th>max response</th><th>within ceiling</th></tr></thead><tbody>";
  for (const auto& g : p.grid)
    o += "<tr><td class=\"num\">" + std::to_string(g.threads) + "</td><td class=\"num\">" +
         std::to_string(g.qd) + "</td><td class=\"num\">" + std::to_string(g.threads * g.qd) +
         "</td><td class=\"num\">" + esc(html_iops(g.iops)) + "</td><td class=\"num\">" +
         esc(html_latency(g.lat_mean_ns)) + "</td><td class=\"num\">" +
         esc(html_latency(g.lat_max_ns)) + "</td><td>" + (g.within_ceiling ? "yes" : "no") +
         "</td></tr>";
  o += "</tbody></table>";
}

void xsr(std::string& o, const WorkloadResult& w) {
  const PtsReport& p = *pts_report_of(w);
  for (const bool latency : {false, true}) {
    LineChart c;
    c.title = w.id + ": XSR " + (latency ? "response time" : "throughput") + " vs time";
    c.x_label = "time (s)";
    c.y_label = latency ? "average response time" : "throughput";
    c.format_y =
        latency
            ? std::function<std::string(double)>([](double v) { return format_latency(v); })
            : std::function<std::string(double)>([](double v) { return fio_num2str(v) + "B/s"; });
    ChartSeries s{latency ? "mean response time" : "throughput", kColours[latency ? 1 : 0], {}};
    for (const auto& pt : p.samples)
      s.points.emplace_back(pt.t_s, latency ? pt.lat_mean_ns : pt.bw);
    c.series.push_back(std::move(s));
    for (std::size_t i = 0; i < p.segments.size(); ++i) {
      const auto& g = p.segments[i];
      XBand b;
      b.from = g.start_s;
      b.to = g.end_s;
      b.label = "AG" + std::to_string(i + 1) + " " + g.label;
      b.color = i % 2 ? "#ff7f0e" : "#1f77b4";
      c.x_bands.push_back(b);
      if (i > 0 && g.recovery_s >= 0)
        c.x_markers.push_back(
            {g.start_s + g.recovery_s, "settled after " + seconds_text(g.recovery_s)});
    }
    figure(o, latency ? "xsr-latency" : "xsr-throughput", render_line_chart(c));
  }
  o += "<table class=\"pts-segments\"><thead><tr><th>access group</th><th>mean</th>"
       "<th>settled</th><th>time to settle</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < p.segments.size(); ++i) {
    const auto& g = p.segments[i];
    o += "<tr><td>" + std::to_string(i + 1) + ": " + esc(g.label) + "</td><td class=\"num\">" +
         esc(html_rate(g.mean_bw)) + "</td><td class=\"num\">" + esc(html_rate(g.settled_bw)) +
         "</td><td class=\"num\">" +
         (i == 0              ? std::string("&ndash;")
          : g.recovery_s >= 0 ? esc(seconds_text(g.recovery_s))
                              : std::string("never")) +
         "</td></tr>";
  }
  o += "</tbody></table>";
}

void hir(std::string& o, const WorkloadResult& w) {
  const PtsReport& p = *pts_report_of(w);
  double baseline = 0;
  for (const auto& f : p.figures)
    if (f.name == "hir.baseline_iops") baseline = f.value;
  LineChart t;
  t.title = w.id + ": HIR burst IOPS vs time";
  t.x_label = "time (s)";
  t.y_label = "IOPS";
  t.format_y = iops_tick;
  for (std::size_t i = 0; i < p.segments.size(); ++i) {
    ChartSeries s{p.segments[i].label, kColours[i % 10], {}};
    for (const auto& pt : p.samples)
      if (pt.segment == i) s.points.emplace_back(pt.t_s, pt.iops);
    t.series.push_back(std::move(s));
  }
  if (baseline > 0)
    t.claim = ClaimLine{"baseline " + html_iops(baseline), baseline, baseline, baseline};
  figure(o, "hir-time", render_line_chart(t));
  LineChart v;
  v.title = w.id + ": HIR IOPS vs wait state";
  v.x_label = "idle wait after each burst (s)";
  v.y_label = "burst IOPS";
  v.format_y = iops_tick;
  ChartSeries s{"burst IOPS (mean of the state)", kColours[0], {}};
  for (const auto& g : p.segments) s.points.emplace_back(g.wait_s, g.settled_iops);
  v.series.push_back(std::move(s));
  if (baseline > 0)
    v.claim = ClaimLine{"baseline " + html_iops(baseline), baseline, baseline, baseline};
  figure(o, "hir-wait", render_line_chart(v));
}

}  // namespace

void PtsMethodReport::render_html(std::string& out, const RunResult& run,
                                  const WorkloadResult& w) const {
  const PtsReport& p = pts;
  std::string o = "<div class=\"box pts\" data-pts=\"" + esc(p.test) + "\"><h4>SNIA PTS " +
                  esc(test_name(p.test)) + "</h4>";
  header(o, run, w);
  if (p.test == "wsat") wsat(o, w);
  if (p.test == "dirth") dirth(o, w);
  if (p.test == "xsr") xsr(o, w);
  if (p.test == "hir") hir(o, w);
  figures_table(o, p);
  o += "</div>";
  out += o;
}

}  // namespace storqual::runner
