// SPDX-License-Identifier: Apache-2.0
// `storqual audit`: the selection read from the archive, its HTML page and CSV (audit_report.hpp).
#include "archive/audit_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <tuple>
#include <utility>

#include "archive/history_format.hpp"
#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/svg_chart.hpp"

namespace storqual::reporting {
namespace {

// A model's IOPS charts: the first workloads (by their first run) that have an IOPS figure.
constexpr std::size_t kChartsPerModel = 4;
// The lot a run belongs to: its tag of this key.
constexpr const char* kLotKey = "lot";
// The model's other runs in muted colours, the selection's in strong ones (never user data).
constexpr const char* kOtherColours[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b",
                                         "#17becf", "#bcbd22", "#7f7f7f", "#e377c2"};
constexpr const char* kSelectedColours[] = {"#d62728", "#ff7f0e", "#6b4e00", "#000000"};
constexpr const char* kOtherEarlierColour = "#b0b4b8";
constexpr const char* kSelectedEarlierColour = "#f4a582";
// Lines per group (the selection's lots, the model's other lots) before the earliest are merged.
constexpr std::size_t kLinesPerGroup = 3;
constexpr const char* kReportKinds[] = {"json", "junit", "html", "ocp-diag"};

constexpr const char* kAuditCss = R"css(
table.units td,table.units th{font-size:12.5px}table.units td.tags{font-size:12px;word-break:break-word}
table.units td.nw{white-space:nowrap}table.summary th:not(:first-child){text-align:right}
table.files td.hash{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:11px;word-break:break-all;width:46%}
table.files td.path{font-size:11.5px;word-break:break-all}
.chain{font-size:13px}.chain code{word-break:break-all}
@media print{table.units td,table.units th,table.files td.path{font-size:9px}table.files td.hash{font-size:8.5px}}
)css";

std::string esc(const std::string& s) {
  return html_escape(s);
}

std::string tag_value(const HistoryRow& r, const std::string& key) {
  for (const auto& t : r.tags)
    if (t.key == key) return t.value;
  return {};
}

std::string tags_text(const HistoryRow& r) {
  std::string out;
  for (const auto& t : r.tags) out += (out.empty() ? "" : " ") + t.key + "=" + t.value;
  return out;
}

// start_utc (YYYY-MM-DDTHH:MM:SS...) as days since 1970; NaN when it is not one.
double days_of(const std::string& utc) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(utc.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed < 19)
    return std::nan("");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) / 86400.0;
}

// A tick label fine enough for the chart's span of `span` days.
std::string date_tick(double days, double span) {
  const auto t = static_cast<std::time_t>(std::llround(days * 86400.0));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const char* format = span < 1.0 / 24 ? "%H:%M:%S" : span < 3 ? "%m-%d %H:%M" : "%Y-%m-%d";
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string verdict_class(const std::string& verdict) {
  if (verdict == "pass" || verdict == "fail" || verdict == "measured-only") return verdict;
  return "error";  // incomplete, interrupted
}

std::string verdict_group(const std::string& verdict) {
  if (verdict == "interrupted") return "incomplete";
  return verdict;
}

struct ModelCounts {
  int units = 0, pass = 0, fail = 0, incomplete = 0, measured_only = 0;
};

std::map<std::string, ModelCounts> counts_by_model(const AuditPage& page) {
  std::map<std::string, ModelCounts> out;
  for (const auto& u : page.units) {
    ModelCounts& c = out[u.run.model];
    ++c.units;
    const std::string g = verdict_group(u.run.verdict);
    if (g == "pass") ++c.pass;
    if (g == "fail") ++c.fail;
    if (g == "incomplete") ++c.incomplete;
    if (g == "measured-only") ++c.measured_only;
  }
  return out;
}

void chain_section(std::string& o, const AuditPage& page) {
  const bool whole = !page.chain.problem;
  o += "<div class=\"box chain " + std::string(whole ? "ok" : "bad") +
       "\" id=\"chain\"><h4>The archive's chain (storqual archive verify)</h4><p>";
  o += esc(page.archive) + ": " + std::to_string(page.chain.records) + " records, ";
  o += whole ? "<strong>the chain is whole</strong>"
             : "<strong>the chain is broken</strong>: " + esc(*page.chain.problem);
  o += "<br>head <code id=\"head-hash\">" + esc(page.chain.head_hash) + "</code></p>";
  o += "<p class=\"small muted\">Keep this head hash: a later <code>storqual archive verify</code> "
       "that prints another head with fewer records means records were cut from the end.</p>";
  o += "</div>";
}

void summary_section(std::string& o, const AuditPage& page) {
  o += "<h2 id=\"summary\">Summary</h2><table class=\"summary\"><thead><tr><th>model</th><th>"
       "units</th><th>pass</th><th>fail</th><th>incomplete</th><th>measured-only</th></tr>"
       "</thead><tbody>";
  ModelCounts all;
  for (const auto& [model, c] : counts_by_model(page)) {
    o += "<tr><td>" + esc(model) + "</td>";
    for (int n : {c.units, c.pass, c.fail, c.incomplete, c.measured_only})
      o += "<td class=\"num\">" + std::to_string(n) + "</td>";
    o += "</tr>";
    all.units += c.units;
    all.pass += c.pass;
    all.fail += c.fail;
    all.incomplete += c.incomplete;
    all.measured_only += c.measured_only;
  }
  o += "<tr><th>all</th>";
  for (int n : {all.units, all.pass, all.fail, all.incomplete, all.measured_only})
    o += "<th class=\"num\">" + std::to_string(n) + "</th>";
  o += "</tr></tbody></table>";
}

void units_section(std::string& o, const AuditPage& page) {
  o += "<h2 id=\"units\">Units</h2><p class=\"small muted\">Each unit's latest run in the "
       "selection.</p><table class=\"units\"><thead><tr><th>serial</th><th>model</th><th>"
       "verdict</th><th>health</th><th>started (UTC)</th><th>host</th><th>storqual</th><th>"
       "tags</th></tr></thead><tbody>";
  for (const auto& u : page.units) {
    const std::string cls = verdict_class(u.run.verdict);
    o += "<tr class=\"unit " + cls + "\"><td class=\"nw\">" + esc(u.run.serial) +
         "</td><td class=\"nw\">" + esc(u.run.model) + "</td><td><span class=\"status " + cls +
         "\">" + esc(u.run.verdict) + "</span></td><td" +
         (u.health.failed.empty() ? "" : " class=\"bad\"") + ">" +
         esc(audit_health_text(u.health)) + "</td><td class=\"nw\">" + esc(u.run.start_utc) +
         "</td><td>" + esc(u.run.host) + "</td><td>" + esc(u.run.tool_version) +
         "</td><td class=\"tags\">" + esc(tags_text(u.run)) + "</td></tr>";
  }
  o += "</tbody></table>";
}

void files_section(std::string& o, const AuditPage& page) {
  o += "<h2 id=\"files\">Files and their SHA-256</h2><p class=\"small muted\">The result JSON as "
       "the archive keeps it (<code>storqual report</code> renders it again) and each report file "
       "the run wrote, as it was when recorded: <code>sha256sum FILE</code> must print the same."
       "</p><table class=\"files\"><thead><tr><th>serial</th><th>file</th><th>SHA-256</th><th>"
       "path</th></tr></thead><tbody>";
  for (const auto& u : page.units) {
    o += "<tr class=\"file\"><td>" + esc(u.run.serial) + "</td><td>result</td><td class=\"hash\">" +
         esc(u.run.result_sha256) + "</td><td class=\"path muted\">in the archive</td></tr>";
    for (const auto& f : u.files)
      o += "<tr class=\"file\"><td>" + esc(u.run.serial) + "</td><td>" + esc(f.kind) +
           "</td><td class=\"hash\">" + esc(f.sha256) + "</td><td class=\"path\">" + esc(f.path) +
           "</td></tr>";
  }
  o += "</tbody></table>";
}

// The workloads of a model's runs that have an IOPS figure, in the order they first appear.
std::vector<std::string> iops_workloads(const AuditModelRuns& m) {
  std::vector<std::string> out;
  for (const auto& r : m.runs)
    for (const auto& f : r.figures)
      if (f.name == "iops" && std::find(out.begin(), out.end(), f.workload) == out.end())
        out.push_back(f.workload);
  if (out.size() > kChartsPerModel) out.resize(kChartsPerModel);
  return out;
}

struct LotLine {
  std::string lot;
  bool selected = false;  // the runs of this lot in the selection
  std::vector<std::pair<double, double>> points;
};

// The lines of a chart, the model's other runs first (the selection's drawn over them): at most
// kLinesPerGroup of each group: the latest lots keep their lines, the earlier ones are drawn as one
// line ("4 other lots", "3 lots (this audit)") so that the legend stays one row.
std::vector<ChartSeries> lot_series(std::vector<LotLine>& lines) {
  std::vector<ChartSeries> out;
  for (const bool selected : {false, true}) {
    std::vector<LotLine*> group;  // in the order the lots first ran
    for (auto& l : lines)
      if (l.selected == selected) group.push_back(&l);
    const std::size_t merged =
        group.size() > kLinesPerGroup ? group.size() - (kLinesPerGroup - 1) : 0;
    const std::string mark = selected ? " (this audit)" : "";
    if (merged > 0) {
      ChartSeries s{std::to_string(merged) + (selected ? " lots" : " other lots") + mark,
                    selected ? kSelectedEarlierColour : kOtherEarlierColour,
                    {}};
      for (std::size_t i = 0; i < merged; ++i)
        s.points.insert(s.points.end(), group[i]->points.begin(), group[i]->points.end());
      std::sort(s.points.begin(), s.points.end());
      out.push_back(std::move(s));
    }
    std::size_t colour = 0;
    for (std::size_t i = merged; i < group.size(); ++i, ++colour)
      out.push_back({(group[i]->lot.empty() ? "no lot tag" : "lot " + group[i]->lot) + mark,
                     selected ? kSelectedColours[colour % std::size(kSelectedColours)]
                              : kOtherColours[colour % std::size(kOtherColours)],
                     std::move(group[i]->points)});
  }
  return out;
}

std::string lot_chart(const AuditPage& page, const AuditModelRuns& m, const std::string& workload) {
  std::vector<LotLine> lines;  // one per (lot, in the selection), in the order they first ran
  double low = INFINITY, high = -INFINITY;
  for (const auto& r : m.runs)
    for (const auto& f : r.figures) {
      if (f.name != "iops" || f.workload != workload) continue;
      const double x = days_of(r.start_utc);
      if (!std::isfinite(x)) continue;
      const std::string lot = tag_value(r, kLotKey);
      const bool selected = page.selected.contains(r.record);
      auto at = std::find_if(lines.begin(), lines.end(), [&](const LotLine& l) {
        return l.lot == lot && l.selected == selected;
      });
      if (at == lines.end()) at = lines.insert(lines.end(), LotLine{lot, selected, {}});
      at->points.emplace_back(x, f.value);
      low = std::min(low, x);
      high = std::max(high, x);
    }
  if (lines.empty()) return {};
  LineChart c;
  c.title = m.model + ": " + workload + " IOPS by lot";
  c.x_label = "run started (UTC)";
  c.y_label = "IOPS";
  c.series = lot_series(lines);
  c.format_x = [span = high - low](double d) { return date_tick(d, span); };
  c.format_y = [](double v) { return fio_num2str(v); };  // as the run report's IOPS charts
  c.height = 260;
  return render_line_chart(c);
}

void charts_section(std::string& o, const AuditPage& page) {
  o += "<h2 id=\"charts\">Figures by lot</h2><p class=\"small muted\">Each model's IOPS per "
       "workload, every run the archive holds of the model, one line per lot (tag "
       "<code>lot</code>); the runs of this selection are marked \"this audit\".</p>";
  for (const auto& m : page.models) {
    o += "<h3>" + esc(m.model.empty() ? "(no model)" : m.model) + "</h3>";
    const auto workloads = iops_workloads(m);
    if (workloads.empty()) o += "<p class=\"muted\">No IOPS figure recorded.</p>";
    for (const auto& w : workloads) {
      const std::string svg = lot_chart(page, m, w);
      if (!svg.empty()) html_chart_figure(o, "lots", svg);
    }
  }
}

}  // namespace

std::string audit_health_text(const RecordHealth& h) {
  const std::string wear = h.wear.empty() ? "" : " (wear " + h.wear + "%)";
  if (!h.failed.empty()) {
    std::string out = "fail:";
    for (const auto& f : h.failed) out += " " + f;
    return out;
  }
  if (h.judged > 0) return "pass" + wear;
  if (h.read) return "read, not judged" + wear;
  return "not read";
}

bool serial_before(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  int zeros = 0;  // fewer leading zeros first, when nothing else differs
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::size_t zi = i, zj = j;  // leading zeros apart, the longer number is the larger
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      const auto na = a.substr(zi, ei - zi), nb = b.substr(zj, ej - zj);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      if (zeros == 0 && zi - i != zj - j) zeros = zi - i < zj - j ? -1 : 1;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return zeros < 0;
}

AuditPage collect_audit(Archive& archive, const HistoryQuery& q, std::string selection,
                        std::string tool_version) {
  AuditPage page;
  page.selection = std::move(selection);
  page.archive = archive.location().display();
  page.tool_version = std::move(tool_version);
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  page.generated_utc = buf;
  std::map<std::string, std::size_t> unit_of;  // serial -> index in units
  for (auto& r : archive.history(q)) {
    page.selected.insert(r.record);
    const std::string key = r.serial.empty() ? "#" + std::to_string(r.record) : r.serial;
    auto [at, fresh] = unit_of.try_emplace(key, page.units.size());
    if (fresh) page.units.emplace_back();
    AuditUnit& u = page.units[at->second];
    ++u.runs;
    u.run = std::move(r);  // oldest first: the last one is the latest
  }
  std::sort(page.units.begin(), page.units.end(), [](const AuditUnit& a, const AuditUnit& b) {
    if (a.run.model != b.run.model) return a.run.model < b.run.model;
    if (a.run.serial != b.run.serial) return serial_before(a.run.serial, b.run.serial);
    return a.run.record < b.run.record;
  });
  for (auto& u : page.units) {
    u.health = archive.record_health(u.run.record);
    u.files = archive.report_files(u.run.record);
    if (page.models.empty() || page.models.back().model != u.run.model) {
      HistoryQuery mq;
      mq.model = u.run.model;
      page.models.push_back({u.run.model, archive.history(mq)});
    }
  }
  page.chain = archive.verify();
  return page;
}

std::string format_audit_html(const AuditPage& page) {
  std::string o = html_page_start("storqual audit: " + page.selection, kAuditCss);
  o += "<h1>Audit: " + esc(page.selection) + "</h1>";
  o += "<table class=\"about\"><tbody>";
  html_kv_row(o, "selection", page.selection, true);
  html_kv_row(
      o, "units",
      std::to_string(page.units.size()) + " (" + std::to_string(page.selected.size()) + " runs)");
  html_kv_row(o, "archive", page.archive, true);
  html_kv_row(o, "written", page.generated_utc + " by " + page.tool_version);
  o += "</tbody></table>";
  chain_section(o, page);
  summary_section(o, page);
  units_section(o, page);
  files_section(o, page);
  charts_section(o, page);
  o += "</body></html>\n";
  return o;
}

std::string format_audit_csv(const AuditPage& page) {
  std::string out =
      "serial,model,verdict,exit_code,health,start_utc,host,tool_version,firmware,runs,"
      "result_sha256,json_sha256,junit_sha256,html_sha256,ocp_diag_sha256,tags\r\n";
  for (const auto& u : page.units) {
    const HistoryRow& r = u.run;
    std::vector<std::string> fields = {r.serial,
                                       r.model,
                                       r.verdict,
                                       std::to_string(r.exit_code),
                                       audit_health_text(u.health),
                                       r.start_utc,
                                       r.host,
                                       r.tool_version,
                                       r.firmware,
                                       std::to_string(u.runs),
                                       r.result_sha256};
    for (const char* kind : kReportKinds) {
      std::string hashes;
      for (const auto& f : u.files)
        if (f.kind == kind) hashes += (hashes.empty() ? "" : " ") + f.sha256;
      fields.push_back(hashes);
    }
    fields.push_back(tags_text(r));
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    out += "\r\n";
  }
  return out;
}

}  // namespace storqual::reporting
