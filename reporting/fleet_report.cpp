// SPDX-License-Identifier: Apache-2.0
// The fleet report: lot acceptance, the fleet JSON and the fleet HTML page (see fleet_report.hpp).
#include "reporting/fleet_report.hpp"
#include "model/metric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "model/errors.hpp"

#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;

bool is_claim(const ClaimVerdict& v) {
  return v.kind == VerdictKind::Claim;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string pct_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", std::fabs(pct));
  return buf;
}

Json number_or_null(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string esc(const std::string& s) {
  return escape_html(s);
}

std::string unit_label(const RunResult& run) {
  const std::string& host = run.environment.host;
  return (host.empty() ? std::string() : host + " ") + run.device.name;
}

std::string status_span(const std::string& overall) {
  std::string lower = overall;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "measured") lower = "measured-only";
  return "<span class=\"status " + lower + "\">" + overall + "</span>";
}

// The outcome of a fleet: ERROR if any unit is in error, else FAIL if any failed (a claim, a
// baseline or the lot), else PASS if any passed, else MEASURED.
std::string fleet_overall(const std::vector<RunResult>& runs) {
  bool error = false, fail = false, pass = false;
  for (const auto& r : runs) {
    const std::string o = count_verdicts(r).overall();
    // Inconclusive and incomplete units are not judged: the fleet is as incomplete as an error.
    error = error || o == "ERROR" || o == "INCONCLUSIVE" || o == "INCOMPLETE";
    fail = fail || o == "FAIL";
    pass = pass || o == "PASS";
  }
  return error ? "ERROR" : fail ? "FAIL" : pass ? "PASS" : "MEASURED";
}

constexpr const char* kFleetStyle = R"css(
table.fleet td{font-size:13px}table.fleet td.figs{font-size:12px;color:#333}
tr.flagged td{background:#f3e8fd}.bar.lot{fill:#7b3fb3}
.status.lot{background:#7b3fb3}
section.device{border-top:4px solid #24527a;margin-top:36px;padding-top:4px}
section.device>h2{font-size:20px;border:none}
@media print{section.device{break-before:page;page-break-before:always}tr.flagged td{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
)css";

}  // namespace

std::string identity_field(const RunResult& run, const std::string& field) {
  for (const auto& row : run.device.identity)
    if (row.field == field) return row.value;
  return {};
}

std::string unit_model(const RunResult& run) {
  const std::string model = identity_field(run, "model");
  if (!model.empty()) return model;
  const std::string transport = identity_field(run, "transport");
  return transport.empty() ? std::string() : transport + " (no model)";
}

std::size_t FleetReport::flagged_count() const {
  std::size_t n = 0;
  for (const auto& c : lot)
    for (const auto& u : c.units) n += u.flagged ? 1 : 0;
  return n;
}

namespace {

// Why a unit's figure for `workloads` is left out of its lot's comparison: one of them was
// host-limited ("" when none was). A busy host alone does not leave a unit out: other processes
// took CPU time, but unless the jobs waited for it (the run-queue rule) the figure is the unit's.
std::string host_left_out(const RunResult& run, const std::vector<std::string>& workloads) {
  for (const auto& id : workloads)
    for (const auto& w : run.workloads)
      if (w.id == id && w.host_limit && w.host_limit->limited)
        return "host-limited (" + id + ": " + join_text(w.host_limit->reasons, ", ") + ")";
  return "";
}

}  // namespace

FleetReport build_fleet(std::vector<RunResult> runs, double lot_tolerance_pct) {
  if (!(lot_tolerance_pct >= 0 && lot_tolerance_pct < 100))
    throw UsageError("the lot tolerance must be at least 0% and below 100%");
  FleetReport fleet;
  fleet.lot_tolerance_pct = lot_tolerance_pct;
  for (auto& r : runs)
    r.verdicts.erase(
        std::remove_if(r.verdicts.begin(), r.verdicts.end(),
                       [](const ClaimVerdict& v) { return v.kind == VerdictKind::Lot; }),
        r.verdicts.end());
  fleet.runs = std::move(runs);

  // model -> one run per unit, in input order; (model, workload, metric) in first-seen order. A
  // unit qualified more than once (two runs of one serial merged) is one unit of its lot, counted
  // by its latest run, so that it is never compared with itself.
  std::map<std::string, std::map<std::string, std::size_t>> units_of_model;
  for (std::size_t i = 0; i < fleet.runs.size(); ++i) {
    const RunResult& r = fleet.runs[i];
    const std::string model = unit_model(r);
    if (model.empty()) continue;
    const std::string serial = identity_field(r, "serial");
    const std::string unit =
        serial.empty() ? "target " + r.environment.host + ":" + r.device.path : "serial " + serial;
    auto [it, fresh] = units_of_model[model].try_emplace(unit, i);
    if (!fresh && fleet.runs[it->second].environment.start_utc <= r.environment.start_utc)
      it->second = i;
  }
  std::map<std::string, std::vector<std::size_t>> by_model;
  for (const auto& [model, units] : units_of_model) {
    auto& members = by_model[model];
    for (const auto& [unit, i] : units) members.push_back(i);
    std::sort(members.begin(), members.end());
  }
  for (const auto& [model, members] : by_model) {
    if (members.size() < 2) continue;
    using Key = std::pair<std::vector<std::string>, std::string>;  // workloads, metric
    std::vector<Key> keys;
    std::set<Key> seen;
    for (std::size_t i : members)
      for (const auto& v : fleet.runs[i].verdicts)
        if (is_claim(v) && v.measured && std::isfinite(*v.measured) &&
            seen.insert({v.workloads, v.metric}).second)
          keys.emplace_back(v.workloads, v.metric);
    for (const auto& [workloads, metric] : keys) {
      LotComparison c;
      c.model = model;
      c.workload = join_text(workloads, " ");
      c.metric = metric;
      // The direction is what the judging code recorded from the metric's definition; a lot whose
      // files do not all record the same one is shown, not judged.
      std::optional<bool> direction;
      bool direction_known = true;
      std::vector<double> values, all_values;
      for (std::size_t i : members)
        for (const auto& v : fleet.runs[i].verdicts)
          if (is_claim(v) && v.workloads == workloads && v.metric == metric && v.measured &&
              std::isfinite(*v.measured)) {
            c.unit = v.unit;
            c.units.push_back({i, *v.measured, 0, false, host_left_out(fleet.runs[i], workloads)});
            if (c.units.back().left_out.empty()) values.push_back(*v.measured);
            all_values.push_back(*v.measured);
            if (!v.higher_is_better || (direction && *direction != *v.higher_is_better))
              direction_known = false;
            else
              direction = v.higher_is_better;
            break;
          }
      if (all_values.size() < 2) continue;
      const std::size_t left_out = all_values.size() - values.size();
      c.median = median_of(values.empty() ? all_values : values);
      if (!(c.median > 0)) continue;
      c.higher_is_better = direction.value_or(true);
      if (values.size() < kMinLotUnits)
        c.not_judged = "a lot check needs at least " + std::to_string(kMinLotUnits) + " units" +
                       (left_out ? " that the host did not limit (" + count_of(left_out, "unit") +
                                       " left out: host-limited)"
                                 : std::string());
      else if (!direction_known)
        c.not_judged = "the result files do not record whether higher or lower is better";
      const double tol = lot_tolerance_pct / 100;
      for (auto& u : c.units) {
        u.diff_pct = (u.measured - c.median) / c.median * 100;
        u.flagged = c.not_judged.empty() && u.left_out.empty() &&
                    (c.higher_is_better ? u.measured < c.median * (1 - tol)
                                        : u.measured > c.median * (1 + tol));
        ClaimVerdict v;
        v.kind = VerdictKind::Lot;
        v.workloads = workloads;
        v.metric = metric;
        v.unit = c.unit;
        v.measured = u.measured;
        v.claimed = c.median;
        v.tolerance_pct = lot_tolerance_pct;
        v.diff_pct = u.diff_pct;
        v.higher_is_better = direction;
        v.status = !c.not_judged.empty() || !u.left_out.empty() ? VerdictStatus::MeasuredOnly
                   : u.flagged                                  ? VerdictStatus::Fail
                                                                : VerdictStatus::Pass;
        const bool above = u.diff_pct >= 0;
        v.message =
            "measured " + format_verdict_value(u.measured, c.unit) + ", " + pct_text(u.diff_pct) +
            (above ? " above" : " below") + " the median " +
            format_verdict_value(c.median, c.unit) + " of " + std::to_string(c.units.size()) +
            " units of model " + model +
            (c.not_judged.empty() ? " (lot tolerance " + pct_text(lot_tolerance_pct) + ")"
                                  : ": not judged, " + c.not_judged) +
            (u.left_out.empty() ? std::string() : ": left out of the lot check, " + u.left_out) +
            (u.flagged ? ": an outlier of its lot" : "");
        fleet.runs[u.run].verdicts.push_back(std::move(v));
      }
      fleet.lot.push_back(std::move(c));
    }
  }
  return fleet;
}

std::string fleet_verdict(const FleetReport& fleet) {
  return fleet_overall(fleet.runs);
}

std::string fleet_summary(const FleetReport& fleet) {
  std::set<std::string> hosts, models;
  int pass = 0, fail = 0, error = 0, measured = 0;
  for (const auto& r : fleet.runs) {
    hosts.insert(r.environment.host);
    if (const auto m = unit_model(r); !m.empty()) models.insert(m);
    const std::string o = count_verdicts(r).overall();
    pass += o == "PASS";
    fail += o == "FAIL";
    error += o == "ERROR" || o == "INCONCLUSIVE" || o == "INCOMPLETE";
    measured += o == "MEASURED";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "; units: %d pass, %d fail, %d error, %d measured only; ", pass,
                fail, error, measured);
  return fleet_verdict(fleet) + ": " + count_of(fleet.runs.size(), "device") + " on " +
         count_of(hosts.size(), "host") + ", " + count_of(models.size(), "model") + buf +
         count_of(fleet.flagged_count(), "lot outlier") + " (lot tolerance " +
         pct_text(fleet.lot_tolerance_pct) + ")";
}

Json fleet_to_json(const FleetReport& fleet) {
  Json j;
  j["fleet_format"] = 1;
  j["storqual_version"] =
      fleet.runs.empty() ? std::string() : fleet.runs.front().environment.storqual_version;
  Json groups = Json::array();
  for (const auto& c : fleet.lot) {
    Json units = Json::array();
    for (const auto& u : c.units) {
      const RunResult& r = fleet.runs[u.run];
      units.push_back({{"index", u.run},
                       {"host", r.environment.host},
                       {"device", r.device.name},
                       {"serial", identity_field(r, "serial")},
                       {"measured", number_or_null(u.measured)},
                       {"diff_pct", number_or_null(u.diff_pct)},
                       {"flagged", u.flagged},
                       {"left_out", u.left_out}});
    }
    groups.push_back({{"model", c.model},
                      {"workload", c.workload},
                      {"metric", c.metric},
                      {"unit", c.unit},
                      {"median", number_or_null(c.median)},
                      {"higher_is_better", c.higher_is_better},
                      {"judged", c.not_judged.empty()},
                      {"not_judged", c.not_judged},
                      {"units", std::move(units)}});
  }
  j["lot"] = {{"tolerance_pct", fleet.lot_tolerance_pct},
              {"min_units", kMinLotUnits},
              {"comparisons", fleet.lot.size()},
              {"flagged", fleet.flagged_count()},
              {"groups", std::move(groups)}};
  Json runs = Json::array();
  for (const auto& r : fleet.runs) runs.push_back(to_json(r));
  j["fleet"] = std::move(runs);
  return j;
}

std::string fleet_to_json_text(const FleetReport& fleet) {
  return fleet_to_json(fleet).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// Which (run, workload, metric) the lot flagged, and how many flags each run has, for the table and
// the charts.
struct LotFlags {
  std::set<std::tuple<std::size_t, std::string, std::string>> flagged;
  std::map<std::size_t, int> per_run;
};

LotFlags lot_flags(const FleetReport& fleet) {
  LotFlags flags;
  for (const auto& c : fleet.lot)
    for (const auto& u : c.units)
      if (u.flagged) {
        flags.flagged.insert({u.run, c.workload, c.metric});
        ++flags.per_run[u.run];
      }
  return flags;
}

// The page's start and its verdict banner: the fleet's outcome, its size and the units' outcomes.
std::string fleet_page_start(const FleetReport& fleet) {
  const auto& runs = fleet.runs;
  const std::string overall = fleet_overall(runs);
  std::set<std::string> hosts, models;
  int pass = 0, fail = 0, error = 0, measured = 0;
  for (const auto& r : runs) {
    hosts.insert(r.environment.host);
    if (const auto m = unit_model(r); !m.empty()) models.insert(m);
    const std::string o = count_verdicts(r).overall();
    pass += o == "PASS";
    fail += o == "FAIL";
    error += o == "ERROR" || o == "INCONCLUSIVE" || o == "INCOMPLETE";
    measured += o == "MEASURED";
  }
  const std::string devices = count_of(runs.size(), "device"),
                    on_hosts = count_of(hosts.size(), "host");
  std::string o = html_page_start("storqual fleet " + overall + ": " + devices + " on " + on_hosts,
                                  kFleetStyle);
  char buf[256];
  o += "<h1>Fleet qualification report</h1>\n<div class=\"banner " + overall +
       "\" id=\"verdict\"><div class=\"big\">" + overall + "</div><div>Fleet of " + devices +
       " on " + on_hosts + ", " + count_of(models.size(), "model") + "</div><div class=\"small\">";
  std::snprintf(buf, sizeof buf,
                "%d pass, %d fail, %d error, %d measured only &middot; %s (lot tolerance %g%%)",
                pass, fail, error, measured, count_of(fleet.flagged_count(), "lot outlier").c_str(),
                fleet.lot_tolerance_pct);
  o += buf;
  o += "</div></div>\n";
  return o;
}

// The fleet table: one row per unit with its identity, verdict, key figures and lot flags.
std::string fleet_table(const FleetReport& fleet, const LotFlags& lot) {
  const auto& runs = fleet.runs;
  std::string o =
      "<h2>Fleet</h2><table class=\"fleet\" id=\"fleet-table\"><thead><tr><th>#</th>"
      "<th>host</th><th>device</th><th>model</th><th>serial</th><th>firmware</th><th>spec "
      "sheet</th><th>verdict</th><th>key figures</th><th>lot</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string anchor = "d" + std::to_string(i + 1);
    const auto counted = lot.per_run.find(i);
    const int flags = counted == lot.per_run.end() ? 0 : counted->second;
    o += std::string("<tr class=\"device") + (flags ? " flagged" : "") + "\"><td class=\"num\">" +
         std::to_string(i + 1) + "</td><td>" + esc(r.environment.host) + "</td><td><a href=\"#" +
         anchor + "\">" + esc(r.device.name.empty() ? r.device.path : r.device.name) +
         "</a></td><td>" + esc(unit_model(r)) + "</td><td>" + esc(identity_field(r, "serial")) +
         "</td><td>" + esc(identity_field(r, "firmware")) + "</td><td>" +
         esc(r.spec.name.empty() ? "none" : r.spec.name) + "</td><td>" +
         status_span(count_verdicts(r).overall()) + "</td><td class=\"figs\">";
    int shown = 0;
    // Every figure of the fleet page in the HTML's one number format (format_html_figure()), as in
    // the run sections below it.
    for (const auto& v : r.verdicts) {
      if (!is_claim(v) || !v.measured || shown == 4) continue;
      o += (shown++ ? "<br>" : "") + esc(workload_job_text(v) + " " + v.metric) + ": " +
           esc(format_html_figure(*v.measured, v.unit));
    }
    o += "</td><td>" +
         (flags ? "<span class=\"status lot\">" + std::to_string(flags) + " flagged</span>"
                : std::string("ok")) +
         "</td></tr>";
  }
  o += "</tbody></table>";
  return o;
}

// Lot acceptance: what it means, the comparisons shown and not judged, and the outliers.
std::string lot_section(const FleetReport& fleet) {
  const auto& runs = fleet.runs;
  std::string o;
  o += "<h2>Lot acceptance</h2><p>Units of one model are compared with each other: a unit more "
       "than " +
       pct_text(fleet.lot_tolerance_pct) +
       " worse than the lot median (below it where higher is better, above it where lower is "
       "better) is flagged, even when it meets its claim. A lot of fewer than " +
       std::to_string(kMinLotUnits) + " units is shown, not judged.</p>";
  if (fleet.lot.empty()) {
    o += "<p class=\"muted\">No model has two or more units with the same measured metric: "
         "nothing to compare.</p>";
  } else {
    std::size_t compared = 0, left_out = 0;
    for (const auto& c : fleet.lot)
      for (const auto& u : c.units) ++(u.left_out.empty() ? compared : left_out);
    o += "<p>" + count_of(fleet.lot.size(), "metric") + " compared over " +
         count_of(compared, "unit value") +
         (left_out ? " (" + std::to_string(left_out) + " more left out: the host limited them)"
                   : std::string()) +
         "; " + count_of(fleet.flagged_count(), "outlier") +
         (fleet.flagged_count() ? " (below)" : "") +
         ". Every comparison is a <code>lot:</code> row in its device's claims table.</p>";
    // What was shown and not judged: the spread of each such metric.
    std::string rows;
    for (const auto& c : fleet.lot) {
      if (c.not_judged.empty()) continue;
      double lo = c.units.front().diff_pct, hi = lo;
      for (const auto& u : c.units) {
        lo = std::min(lo, u.diff_pct);
        hi = std::max(hi, u.diff_pct);
      }
      rows += "<tr><td>" + esc(c.model) + "</td><td>" + esc(c.workload) + "</td><td>" +
              esc(c.metric) + "</td><td class=\"num\">" + std::to_string(c.units.size()) +
              "</td><td class=\"num\">" + esc(format_html_figure(c.median, c.unit)) +
              "</td><td class=\"num\">" + esc(format_percent_signed(lo)) + " .. " +
              esc(format_percent_signed(hi)) + "</td><td>" + esc(c.not_judged) + "</td></tr>";
    }
    if (!rows.empty())
      o += "<table class=\"lot not-judged\"><thead><tr><th>model</th><th>workload</th>"
           "<th>metric</th><th>units</th><th>lot median</th><th>spread</th><th>not judged: "
           "why</th></tr></thead><tbody>" +
           rows + "</tbody></table>";
  }
  if (fleet.flagged_count()) {
    o += "<table class=\"lot\"><thead><tr><th>model</th><th>workload</th><th>metric</th>"
         "<th>unit</th><th>measured</th><th>lot median</th><th>difference</th><th>status</th>"
         "</tr></thead><tbody>";
    for (const auto& c : fleet.lot)
      for (const auto& u : c.units) {
        if (!u.flagged) continue;
        const auto& r = runs[u.run];
        o += "<tr class=\"lot flagged\"><td>" + esc(c.model) + "</td><td>" + esc(c.workload) +
             "</td><td>" + esc(c.metric) + "</td><td><a href=\"#d" + std::to_string(u.run + 1) +
             "\">" + esc(unit_label(r)) + "</a></td><td class=\"num\">" +
             esc(format_html_figure(u.measured, c.unit)) + "</td><td class=\"num\">" +
             esc(format_html_figure(c.median, c.unit)) + "</td><td class=\"num\">" +
             esc(format_percent_signed(u.diff_pct)) +
             "</td><td><span class=\"status lot\">OUTLIER</span></td></tr>";
      }
    o += "</tbody></table>";
  }
  // Units whose figure is the host's as much as theirs: shown, never compared.
  std::string left;
  for (const auto& c : fleet.lot)
    for (const auto& u : c.units) {
      if (u.left_out.empty()) continue;
      left += "<tr><td>" + esc(c.model) + "</td><td>" + esc(c.workload) + "</td><td>" +
              esc(c.metric) + "</td><td><a href=\"#d" + std::to_string(u.run + 1) + "\">" +
              esc(unit_label(runs[u.run])) + "</a></td><td class=\"num\">" +
              esc(format_html_figure(u.measured, c.unit)) + "</td><td>" + esc(u.left_out) +
              "</td></tr>";
    }
  if (!left.empty())
    o += "<table class=\"lot left-out\"><thead><tr><th>model</th><th>workload</th>"
         "<th>metric</th><th>unit</th><th>measured</th><th>left out of the lot check: why</th>"
         "</tr></thead><tbody>" +
         left + "</tbody></table>";
  return o;
}

// One chart per claim (workload, metric) across the fleet, in first-seen order.
std::string claim_charts(const FleetReport& fleet, const LotFlags& lot) {
  const auto& runs = fleet.runs;
  const auto& flagged = lot.flagged;
  std::string o = "<h2>Claims across the fleet</h2>";
  std::vector<std::pair<std::string, std::string>> keys;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : runs)
    for (const auto& v : r.verdicts)
      if (is_claim(v) && v.status != VerdictStatus::MeasuredOnly &&
          seen.insert({workload_job_text(v), v.metric}).second)
        keys.emplace_back(workload_job_text(v), v.metric);
  if (keys.empty()) o += "<p class=\"muted\">No unit was judged against a spec sheet.</p>";
  for (const auto& [workload, metric] : keys) {
    std::vector<ValueBar> bars;
    std::string unit;
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (const auto& v : runs[i].verdicts) {
        if (!is_claim(v) || workload_job_text(v) != workload || v.metric != metric) continue;
        unit = v.unit;
        const double scale = v.unit == "B/s" ? 1e6 : v.unit == "ns" ? 1e3 : 1;
        ValueBar b;
        b.label = std::to_string(i + 1) + ". " + unit_label(runs[i]);
        if (v.measured) b.value = *v.measured / scale;
        if (v.claimed) b.claim = *v.claimed / scale;
        const bool outlier = flagged.count({i, workload, metric}) > 0;
        b.css_class = outlier ? "lot" : std::string(to_string(v.status));
        std::string status(to_string(v.status));
        for (auto& ch : status)
          ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        b.value_text = (v.measured ? format_html_figure(*v.measured, v.unit) : "not measured") +
                       " " + (outlier ? std::string("LOT OUTLIER") : status);
        bars.push_back(std::move(b));
        break;
      }
    const std::string axis = unit == "B/s" ? "MB/s" : unit == "ns" ? "us" : unit;
    o += "<figure class=\"chart-block\" data-chart=\"fleet-claim\">" +
         render_value_bars(workload + " " + metric + " across the fleet (" + axis +
                               "; green tick: each unit's claim)",
                           bars, [](double v) { return fio_num2str(v); }) +
         "</figure>";
  }
  return o;
}

// One section per device: the single-run report nested, its anchors prefixed "d<N>-".
std::string device_sections(const FleetReport& fleet) {
  const auto& runs = fleet.runs;
  std::string o;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string anchor = "d" + std::to_string(i + 1);
    o += "<section class=\"device\" id=\"" + anchor + "\"><h2>" + std::to_string(i + 1) + ". " +
         esc(runs[i].environment.host) + ": " + esc(device_title(runs[i])) + "</h2>";
    o += render_run_sections(runs[i], {anchor + "-", true});
    o += "<p class=\"small\"><a href=\"#fleet-table\">back to the fleet table</a></p></section>\n";
  }
  return o;
}

}  // namespace

std::string render_fleet_html(const FleetReport& fleet) {
  const LotFlags lot = lot_flags(fleet);
  std::string o = fleet_page_start(fleet);
  o += fleet_table(fleet, lot);
  o += lot_section(fleet);
  o += claim_charts(fleet, lot);
  o += device_sections(fleet);
  o += "</body></html>\n";
  return o;
}

}  // namespace storqual::reporting
