// SPDX-License-Identifier: Apache-2.0
// The HTML report page, assembled from escaped text, tables and our own SVG charts: the banner,
// claims, device, spec, health, environment and glossary sections; each workload's section is
// html_workload.cpp.
#include "reporting/html_report.hpp"

#include "model/metric.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "model/quantity_format.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/console_report.hpp"
#include "reporting/figure_labels.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_matrix.hpp"
#include "reporting/html_workload.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/run_console.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

std::string esc(const std::string& s) {
  return html_escape(s);
}

// format_html_figure() (html_report.hpp) is the one number format of the page (html_iops(),
// html_rate() and html_latency() name its most common units).
std::string figure_text(double value, std::string_view unit) {
  return format_html_figure(value, unit);
}

std::string status_upper(VerdictStatus s) {
  std::string t(to_string(s));
  for (auto& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return t;
}

std::string status_cell(VerdictStatus s) {
  const std::string name(to_string(s));
  return "<span class=\"status " + name + "\">" + status_upper(s) + "</span>";
}

void rows_table(std::string& o, const std::vector<FieldRow>& rows) {
  o += "<table><thead><tr><th>field</th><th>value</th><th>source</th></tr></thead><tbody>";
  for (const auto& r : rows)
    o += "<tr><td>" + esc(r.field) + "</td><td>" + esc(r.value) +
         "</td><td class=\"muted small\">" + esc(r.source) + "</td></tr>";
  o += "</tbody></table>";
}

void kv_row(std::string& o, const std::string& key, const std::string& value, bool code = false) {
  html_kv_row(o, key, value, code);
}

void figure(std::string& o, const std::string& kind, const std::string& svg) {
  html_chart_figure(o, kind, svg);
}

// What each figure is: the glossary of docs/reports.md ("Glossary"), which the figures link to.
void glossary_section(std::string& o) {
  o += "<section id=\"glossary\"><h2>Glossary</h2><p class=\"small muted\">What each figure "
       "means (also in docs/reports.md, \"Glossary\").</p><dl class=\"small\">";
  for (const auto& [term, text] : glossary())
    o += "<dt>" + esc(term) + "</dt><dd>" + esc(text) + "</dd>";
  o += "</dl></section>";
}

void health_section(std::string& o, const DeviceReport& d) {
  o += "<h2>Health before and after</h2>";
  if (d.health_before.empty() && d.health_after.empty()) {
    o += "<p class=\"muted\">The device reports no health log (no NVMe SMART data).</p>";
    return;
  }
  if (!d.health_changes.empty()) {
    o += "<p><strong>Changes that matter:</strong></p><ul class=\"changed\">";
    for (const auto& c : d.health_changes) o += "<li><mark>" + esc(c) + "</mark></li>";
    o += "</ul>";
  }
  std::map<std::string, std::string> after;
  for (const auto& r : d.health_after) after[r.field] = r.value;
  std::set<std::string> seen;
  o += "<table><thead><tr><th>field</th><th>before</th><th>after</th><th>source</th></tr></thead>"
       "<tbody>";
  for (const auto& r : d.health_before) {
    seen.insert(r.field);
    const auto it = after.find(r.field);
    const std::string a = it == after.end() ? "" : it->second;
    const bool changed = it != after.end() && a != r.value;
    o += std::string(changed ? "<tr class=\"changed\">" : "<tr>") + "<td>" + esc(r.field) +
         "</td><td>" + esc(r.value) + "</td><td>" + esc(a) + "</td><td class=\"muted small\">" +
         esc(r.source) + "</td></tr>";
  }
  for (const auto& r : d.health_after)
    if (!seen.count(r.field))
      o += "<tr class=\"changed\"><td>" + esc(r.field) + "</td><td></td><td>" + esc(r.value) +
           "</td><td class=\"muted small\">" + esc(r.source) + "</td></tr>";
  o += "</tbody></table>";
  if (d.wear) {  // runner/methods/gates/wear.hpp
    const auto& w = *d.wear;
    char buf[96];
    o += "<h3>Write amplification and endurance</h3><table class=\"wear\"><tbody>";
    kv_row(o, "host writes (SMART)", format_bytes_iec(w.host_written_bytes));
    kv_row(o, "media writes (OCP C0h)",
           w.media_written_bytes ? format_bytes_iec(*w.media_written_bytes) : "no C0h log");
    if (w.waf) std::snprintf(buf, sizeof buf, "%.3g", *w.waf);
    kv_row(o, "write amplification", w.waf ? std::string(buf) : "not measured");
    kv_row(o, "percentage used",
           std::to_string(w.percentage_used_before) + "% -> " +
               std::to_string(w.percentage_used_after) + "%");
    if (w.dwpd)
      std::snprintf(buf, sizeof buf, "%.3g DWPD over %g years", *w.dwpd, w.warranty_years);
    kv_row(o, "endurance", w.dwpd ? std::string(buf) : "no projection");
    kv_row(o, "projected from", w.basis);
    o += "</tbody></table>";
  }
}

// Our own markup only ever writes bare <h2>..<h4> (user text is escaped, so "<h2>" cannot come
// from a device or a file): nesting a run in the fleet page moves each heading one level down.
std::string shift_headings(std::string html) {
  for (const char* level : {"4", "3", "2"}) {
    const std::string open = std::string("<h") + level + ">",
                      close = std::string("</h") + level + ">";
    const std::string deeper = std::to_string(std::stoi(level) + 1);
    for (const auto* pair : {&open, &close}) {
      const std::string to = (pair == &open ? "<h" : "</h") + deeper + ">";
      for (auto pos = html.find(*pair); pos != std::string::npos;
           pos = html.find(*pair, pos + to.size()))
        html.replace(pos, pair->size(), to);
    }
  }
  return html;
}

// "*" after a claim's workload when a deviation touches it, with the deviations as its title.
std::string deviation_mark(const RunResult& run, const ClaimVerdict& v) {
  std::string title;
  for (const auto& id : v.workloads)
    for (const Deviation* d : deviations_of(run, id))
      if (title.find(d->text) == std::string::npos) title += (title.empty() ? "" : "; ") + d->text;
  if (title.empty()) return "";
  return "<span class=\"dev\" title=\"" + esc(title) + "\">*</span>";
}

}  // namespace

namespace {

// The banner: the outcome with its deviations ("PASS with 2 deviations"), listed under it.
void banner_section(std::string& o, const RunResult& run, const VerdictCounts& counts,
                    const std::string& prefix) {
  o += "<div class=\"banner " + std::string(counts.overall()) + "\" id=\"" + prefix +
       "verdict\"><div class=\"big\">" + esc(counts.headline()) + "</div><div>" +
       esc(device_title(run)) + (run.spec.name.empty() ? "" : " against " + esc(run.spec.name)) +
       "</div><div class=\"small\">";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d pass, %d fail, %d error, %d skipped, %d measured-only &middot; %s", counts.pass,
                counts.fail, counts.error, counts.skipped, counts.measured_only,
                count_of(run.workloads.size(), "workload").c_str());
  o += buf;
  if (counts.inconclusive)
    o += " &middot; " + std::to_string(counts.inconclusive) + " inconclusive";
  if (run.measure_only) o += " &middot; measured only: no spec sheet judged this run";
  if (run.measured_by)
    o += "</div><div class=\"small\" id=\"" + prefix + "measured-by\">measured by " +
         esc(run.measured_by->tool) + ": " + esc(run.measured_by->file) + " (SHA-256 " +
         esc(run.measured_by->sha256) + ")";
  o += "</div></div>\n";
  if (!run.deviations.empty()) {
    o += "<div class=\"deviations\" id=\"" + prefix + "deviations\"><b>" +
         std::to_string(run.deviations.size()) + " deviation" +
         (run.deviations.size() == 1 ? "" : "s") + " from the suite and sheet as written</b>" +
         (run.strict ? " (--strict: a deviation makes a pass incomplete)" : "") + "<ul>";
    for (const auto& d : run.deviations) {
      const std::string affected = join_text(d.workloads, ", ");
      // One that changes what the verdict is about says so, and whether the lab accepted it.
      const std::string subject =
          d.accepted          ? " <b>[accepted: --accept-deviation " + esc(d.kind) + "]</b>"
          : d.changes_subject ? " <b>[its claims are inconclusive; --accept-deviation " +
                                    esc(d.kind) + " judges them]</b>"
                              : std::string();
      o += "<li>" + esc(d.text) +
           (affected.empty() ? "" : " <span class=\"muted\">(" + esc(affected) + ")</span>") +
           subject + "</li>";
    }
    o += "</ul><span class=\"small muted\"><span class=\"dev\">*</span> marks a claim whose "
         "workload ran with a deviation.</span></div>\n";
  }
}

// The claims table and the measured/claimed ratio bars.
void claims_section(std::string& o, const RunResult& run) {
  o += "<h2>Claims</h2>";
  if (run.verdicts.empty()) {
    o += "<p class=\"muted\">No claims were judged.</p>";
  } else {
    o += "<table class=\"claims\"><thead><tr><th>workload</th><th>metric</th><th>claimed</th>"
         "<th>measured</th><th>difference</th><th><abbr "
         "title=\"tolerance\">tol.</abbr></th><th>status</th>"
         "<th>details</th>"
         "</tr></thead><tbody>";
    for (const auto& v : run.verdicts) {
      const std::string cls(to_string(v.status));
      const bool claim = v.kind == VerdictKind::Claim;
      const std::string kind(to_string(v.kind));
      o += "<tr class=\"claim " + cls + (claim ? "" : " " + esc(kind)) + "\"><td>" +
           (claim ? "" : "<span class=\"kind\">" + esc(kind) + ":</span> ") +
           esc(workload_job_text(v)) + deviation_mark(run, v) + "</td><td>" + esc(v.metric) +
           "</td><td class=\"num\">" +
           (v.claimed ? esc(figure_text(*v.claimed, v.unit)) : "&ndash;") +
           "</td><td class=\"num\">" +
           (v.measured ? esc(figure_text(*v.measured, v.unit)) : "&ndash;") +
           "</td><td class=\"num\">" +
           (v.diff_pct ? esc(format_percent_signed(*v.diff_pct)) : "&ndash;") +
           "</td><td class=\"num\">" +
           (v.claimed ? esc(format_percent_signed(v.tolerance_pct).substr(1)) : "&ndash;") +
           "</td><td>" + status_cell(v.status) + "</td><td class=\"details\">" + esc(v.message) +
           // What the measured number is, under the message: a line that wraps with it, not a
           // second line in the numeric cell (which does not wrap).
           (v.measured && !v.figure.empty()
                ? " <span class=\"muted figure\">(" + esc(v.figure) + ")</span>"
                : std::string()) +
           "</td></tr>";
    }
    o += "</tbody></table>";
    std::vector<RatioBar> bars;
    for (const auto& v : run.verdicts) {
      if (!v.claimed || !v.measured || *v.claimed == 0) continue;
      if (v.kind != VerdictKind::Claim) continue;  // ratios of claims only
      RatioBar b;
      b.label = workload_job_text(v) + " " + v.metric;
      b.ratio = *v.measured / *v.claimed;
      b.css_class = std::string(to_string(v.status));
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2fx %s", *b.ratio, status_upper(v.status).c_str());
      b.value_text = buf;
      bars.push_back(std::move(b));
    }
    if (!bars.empty()) {
      figure(o, "ratios",
             render_ratio_bars("Measured / claimed (IOPS and bandwidth: above 1 is better; "
                               "latency: below 1 is better)",
                               bars));
    }
  }
}

// The device's identity beside the spec sheet and suite (with their hashes).
void device_and_spec_section(std::string& o, const RunResult& run) {
  o += "<div class=\"two\"><div><h2>Device</h2><table><tbody>";
  kv_row(o, "name", run.device.name);
  kv_row(o, "target", run.device.path, true);
  o += "</tbody></table>";
  rows_table(o, run.device.identity);
  o += "</div><div>";

  o += "<h2>Spec sheet and suite</h2><table><tbody>";
  if (run.spec.name.empty()) {
    o += "<tr><th>spec sheet</th><td>none: measured only, nothing judged</td></tr>";
  } else {
    kv_row(o, "name", run.spec.name);
    kv_row(o, "vendor", run.spec.vendor);
    kv_row(o, "source", run.spec.source);
    kv_row(o, "file", run.spec.path, true);
    kv_row(o, "sha256", run.spec.sha256, true);
  }
  kv_row(o, "suite", run.spec.suite);
  if (!run.spec.suite_path.empty()) kv_row(o, "suite file", run.spec.suite_path, true);
  if (!run.spec.suite_sha256.empty()) kv_row(o, "suite sha256", run.spec.suite_sha256, true);
  o += "</tbody></table></div></div>\n";
}

// Where and with what it ran.
void environment_section(std::string& o, const RunResult& run) {
  o += "<h2>Environment</h2><table><tbody>";
  const auto& e = run.environment;
  kv_row(o, "host", e.host);
  kv_row(o, "kernel", e.kernel);
  kv_row(o, "CPU", e.cpu_model + (e.cpus ? " (" + std::to_string(e.cpus) + " CPUs)" : ""));
  kv_row(o, "storqual version", e.storqual_version);
  kv_row(o, "command line", e.command_line, true);
  kv_row(o, "start (UTC)", e.start_utc);
  kv_row(o, "end (UTC)", e.end_utc);
  kv_row(o, "spec sha256", run.spec.sha256, true);
  if (!run.spec.suite_sha256.empty()) kv_row(o, "suite sha256", run.spec.suite_sha256, true);
  kv_row(o, "exit code", std::to_string(run.exit_code) + (run.strict ? " (--strict)" : ""));
  o += "</tbody></table>";
  o += "<p class=\"muted small\">Generated by " +
       esc(e.storqual_version.empty() ? "storqual" : e.storqual_version) +
       ". Bandwidth in decimal MB/s (10<sup>6</sup> bytes/s) as vendors print it; fio's lines "
       "show MiB/s and MB/s.</p>";
}

}  // namespace

std::string render_run_sections(const RunResult& run, const RunSectionsOptions& options) {
  const auto counts = count_verdicts(run);
  const std::string& prefix = options.anchor_prefix;
  std::string o;
  o.reserve(64 * 1024);
  banner_section(o, run, counts, prefix);
  // Nested in a fleet page, the device's own heading stands for it: one <h1> a page.
  if (!options.nested) o += "<h1>Storage qualification report</h1>";
  o += "<p class=\"muted\">" + esc(run.environment.start_utc) + " &ndash; " +
       esc(run.environment.end_utc) + " UTC on " + esc(run.environment.host) + "</p>";
  claims_section(o, run);
  device_and_spec_section(o, run);
  const auto matrices = find_matrices(run);
  if (!matrices.empty()) {
    o += "<h2>Block size by read mix</h2>";
    for (const auto& m : matrices) matrix_section(o, run, m, prefix);
  }
  o += "<h2>Workloads</h2>";
  for (std::size_t i = 0; i < run.workloads.size(); ++i)
    html_workload_section(o, run, run.workloads[i], i, prefix);
  health_section(o, run.device);
  environment_section(o, run);
  glossary_section(o);
  return options.nested ? shift_headings(std::move(o)) : o;
}

std::string render_html(const RunResult& run) {
  std::string o = html_page_start(
      std::string("storqual ") + count_verdicts(run).headline() + ": " + device_title(run), "");
  o += render_run_sections(run, {});
  o += "</body></html>\n";
  return o;
}

void write_html(const std::string& path, const RunResult& run) {
  write_file_atomically(path, render_html(run));
}

}  // namespace storqual::reporting
