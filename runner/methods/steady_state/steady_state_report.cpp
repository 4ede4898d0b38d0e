// SPDX-License-Identifier: Apache-2.0
// The rounds' report: JSON, the HTML box with the rounds chart and table, the window's band on the
// timeline and the words verdicts add (see steady_state.hpp).
#include <cstdio>

#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/json_codec.hpp"
#include "reporting/svg_chart.hpp"
#include "runner/methods/steady_state/steady_state.hpp"

namespace storqual::runner {
namespace {

using namespace reporting;

// A value of the steady-state tracked variable in its unit (iops, bw or lat.mean).
std::string steady_value(const std::string& metric, double v) {
  if (metric == "bw") return html_rate(v);
  if (metric.rfind("lat", 0) == 0) return html_latency(v);
  if (metric == "iops") return html_iops(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "steady after 7 rounds" / "not steady after 25 rounds".
std::string steady_verdict(const SteadyStateReport& s) {
  const auto n = s.rounds.size();
  return std::string(s.steady ? "steady" : "not steady") + " after " + std::to_string(n) +
         " round" + (n == 1 ? "" : "s");
}

// Where the window's rounds lie on the workload's timeline: the rounds' timelines follow one
// another, each round `elapsed_s` long, so round i spans the sum of the ones before it.
std::optional<TimelineMark> steady_band_on_timeline(const SteadyStateReport& s) {
  if (s.rounds.empty() || s.window_first > s.window_last || s.window_last >= s.rounds.size())
    return std::nullopt;
  double start = 0;
  for (std::size_t i = 0; i < s.window_first; ++i) start += s.rounds[i].elapsed_s;
  double end = start;
  for (std::size_t i = s.window_first; i <= s.window_last; ++i) end += s.rounds[i].elapsed_s;
  TimelineMark b;
  b.from_s = start;
  b.to_s = end;
  b.label = std::string(s.steady ? "steady window" : "last window (not steady)") + ", rounds " +
            std::to_string(s.window_first + 1) + "-" + std::to_string(s.window_last + 1);
  b.color = s.steady ? "#2ca02c" : "#9467bd";
  return b;
}

void steady_state_block(std::string& o, const WorkloadResult& w, const SteadyStateReport& s) {
  const bool window_ok =
      !s.rounds.empty() && s.window_first <= s.window_last && s.window_last < s.rounds.size();
  o += "<div class=\"box steady-state " + std::string(s.steady ? "ok" : "bad") +
       "\"><h4>Steady state (SNIA PTS)</h4><p><span class=\"status " +
       (s.steady ? "pass\">STEADY" : "fail\">NOT STEADY") + "</span> <strong class=\"verdict\">" +
       html_escape(steady_verdict(s)) + "</strong> <span class=\"small muted\">(at most " +
       std::to_string(s.max_rounds) + " rounds, window of " + std::to_string(s.window) +
       ", tracked variable " + html_escape(s.metric) + ")</span></p>";
  o += "<table class=\"steady-criteria\"><tbody>";
  if (window_ok)
    html_kv_row(o, "window",
                "rounds " + std::to_string(s.window_first + 1) + " to " +
                    std::to_string(s.window_last + 1));
  html_kv_row(o, "window mean", steady_value(s.metric, s.mean));
  o += "<tr><th>range</th><td>" + html_escape(steady_value(s.metric, s.range)) + " = " +
       html_escape(html_percent(s.range_pct)) + " of the mean (limit " +
       html_escape(html_percent(s.range_limit_pct)) + ") " +
       (s.range_pct <= s.range_limit_pct ? "ok" : "<strong>exceeded</strong>") + "</td></tr>";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g per round", s.slope);
  o += "<tr><th>slope</th><td>" + std::string(buf) + ", excursion " +
       html_escape(html_percent(s.slope_pct)) + " of the mean over the window (limit " +
       html_escape(html_percent(s.slope_limit_pct)) + ") " +
       (s.slope_pct <= s.slope_limit_pct ? "ok" : "<strong>exceeded</strong>") + "</td></tr>";
  if (s.round_time_s > 0) {
    std::snprintf(buf, sizeof buf, "%.2f s", s.round_time_s);
    html_kv_row(o, "round time", buf);
  }
  o += "</tbody></table>";

  if (!s.rounds.empty()) {
    LineChart c;
    c.title = w.id + ": steady-state rounds (" + s.metric + ")";
    c.x_label = "round";
    c.y_label = s.metric;
    if (s.metric == "bw") {
      c.format_y = [](double v) { return fio_num2str(v) + "B/s"; };
    } else if (s.metric.rfind("lat", 0) == 0) {
      c.format_y = html_latency_tick;
    } else {
      c.format_y = [](double v) { return fio_num2str(v); };
    }
    c.format_x = [](double v) {
      char b[16];
      std::snprintf(b, sizeof b, "%g", v);
      return std::string(b);
    };
    ChartSeries values{"value per round", kHtmlReadColour, {}};
    for (std::size_t i = 0; i < s.rounds.size(); ++i)
      values.points.emplace_back(static_cast<double>(i + 1), s.rounds[i].value);
    c.series.push_back(std::move(values));
    if (window_ok) {
      const double first = static_cast<double>(s.window_first + 1),
                   last = static_cast<double>(s.window_last + 1), centre = (first + last) / 2;
      ChartSeries fit{"least-squares fit", kHtmlTotalColour, {}};
      for (double x : {first, last}) fit.points.emplace_back(x, s.mean + s.slope * (x - centre));
      c.series.push_back(std::move(fit));
      XBand band;
      band.from = first - 0.5;
      band.to = last + 0.5;
      band.label = s.steady ? "steady window" : "last window";
      band.color = s.steady ? "#2ca02c" : "#9467bd";
      c.x_bands.push_back(std::move(band));
      const double half = s.range_limit_pct / 200.0;
      c.claim = ClaimLine{"window mean " + steady_value(s.metric, s.mean) + ", band +/-" +
                              html_percent(s.range_limit_pct / 2) + " (range limit " +
                              html_percent(s.range_limit_pct) + ")",
                          s.mean, s.mean * (1 - half), s.mean * (1 + half)};
    }
    for (std::size_t i = 1; i <= s.rounds.size(); ++i)
      if (s.rounds.size() <= 30 || i % 5 == 0 || i == 1)
        c.x_ticks.emplace_back(static_cast<double>(i), std::to_string(i));
    c.height = 240;
    html_chart_figure(o, "steady-rounds", render_line_chart(c));

    o += "<table class=\"rounds\"><thead><tr><th>round</th><th>" + html_escape(s.metric) +
         "</th><th>measured</th><th>window ending here</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < s.rounds.size(); ++i) {
      const auto& r = s.rounds[i];
      const bool in_window = window_ok && i >= s.window_first && i <= s.window_last;
      std::snprintf(buf, sizeof buf, "%.2f s", r.elapsed_s);
      o += std::string(in_window ? "<tr class=\"window\">" : "<tr>") + "<td class=\"num\">" +
           std::to_string(i + 1) + "</td><td class=\"num\">" +
           html_escape(steady_value(s.metric, r.value)) + "</td><td class=\"num\">" + buf +
           "</td><td>" +
           (r.steady           ? "steady"
            : i + 1 < s.window ? "not steady (window not full)"
                               : "not steady") +
           "</td></tr>";
    }
    o += "</tbody></table>";
  }
  o += "</div>";
}

}  // namespace

void SteadyStateRoundsReport::write_json(nlohmann::ordered_json& result) const {
  json::put(result, "steady", steady_flag);
  json::put(result, "steady_state", rounds);
}

std::shared_ptr<const reporting::MethodReport> read_steady_state_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult&) {
  if (kind != "workload" || !(workload.has("steady") || workload.has("steady_state")))
    return nullptr;
  auto report = std::make_shared<SteadyStateRoundsReport>();
  workload.get("steady", report->steady_flag);
  workload.get("steady_state", report->rounds);
  if (!report->steady_flag && !report->rounds) return nullptr;  // both null: a plain run
  return report;
}

const reporting::SteadyStateReport* steady_state_of(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const SteadyStateRoundsReport*>(w.method.get());
  return report && report->rounds ? &*report->rounds : nullptr;
}

void SteadyStateRoundsReport::render_html(std::string& out, const reporting::RunResult&,
                                          const reporting::WorkloadResult& w) const {
  if (rounds) steady_state_block(out, w, *rounds);
}

void SteadyStateRoundsReport::timeline_marks(std::vector<reporting::TimelineMark>& marks) const {
  if (!rounds) return;
  if (auto band = steady_band_on_timeline(*rounds)) marks.push_back(std::move(*band));
}

std::string SteadyStateRoundsReport::measured_note(const reporting::WorkloadResult&) const {
  return rounds ? ", " + describe(*rounds) : std::string();
}

std::string SteadyStateRoundsReport::steadiness() const {
  return rounds ? describe(*rounds) : std::string();
}

}  // namespace storqual::runner
