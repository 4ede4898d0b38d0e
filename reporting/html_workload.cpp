// SPDX-License-Identifier: Apache-2.0
// One workload's section of the HTML report page (html_workload.hpp): its parameters, flags,
// timelines, percentiles, its method's own section and fio's numbers.
#include "reporting/html_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "model/metric.hpp"
#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/figure_labels.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/run_console.hpp"
#include "reporting/svg_chart.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

constexpr const char* kReadColour = kHtmlReadColour;
constexpr const char* kWriteColour = kHtmlWriteColour;
constexpr const char* kTotalColour = kHtmlTotalColour;
// The height of each workload's timelines and percentile chart (940 wide): three of them and fio's
// numbers make a printed workload about one page.
constexpr double kWorkloadChartHeight = 230;

std::string esc(const std::string& s) {
  return html_escape(s);
}

std::string figure_text(double value, std::string_view unit) {
  return format_html_figure(value, unit);
}

void figure(std::string& o, const std::string& kind, const std::string& svg) {
  html_chart_figure(o, kind, svg);
}

std::string latency_tick(double ns) {
  return html_latency_tick(ns);
}

std::optional<ClaimLine> claim_line(const ClaimVerdict& v, double scale, const std::string& text) {
  if (!v.claimed || !std::isfinite(*v.claimed)) return std::nullopt;
  ClaimLine c;
  const double value = *v.claimed / scale;
  const double tol = v.tolerance_pct / 100.0;
  c.value = value;
  if (reporting::higher_is_better(v.metric)) {
    c.band_low = value * (1 - tol);
    c.band_high = value;
  } else {
    c.band_low = value;
    c.band_high = value * (1 + tol);
  }
  const std::size_t workloads = v.workloads.size();
  // A result written before verdicts named their aggregate: "mean", the only one there was then.
  const std::string how = v.aggregate.empty() ? "mean" : v.aggregate;
  c.label = "claim " + v.metric + " " + text + " (tolerance " +
            format_percent_signed(v.tolerance_pct).substr(1) +
            (workloads > 1 ? ", " + how + " of " + std::to_string(workloads) + " workloads" : "") +
            ")";
  return c;
}

// Which side(s) of the timeline a metric is about.
bool metric_is(const std::string& metric, const char* kind) {
  return metric == kind || metric == std::string("read.") + kind ||
         metric == std::string("write.") + kind;
}

// The marks the workload's method puts on its timeline (a steady window, a cache cliff).
void add_method_marks(LineChart& c, const WorkloadResult& w) {
  if (!w.method) return;
  std::vector<TimelineMark> marks;
  w.method->timeline_marks(marks);
  for (auto& m : marks) {
    if (m.to_s) {
      XBand b;
      b.from = m.from_s;
      b.to = *m.to_s;
      b.label = std::move(m.label);
      if (!m.color.empty()) b.color = std::move(m.color);
      c.x_bands.push_back(std::move(b));
    } else {
      XMarker x;
      x.x = m.from_s;
      x.label = std::move(m.label);
      if (!m.color.empty()) x.color = std::move(m.color);
      c.x_markers.push_back(std::move(x));
    }
  }
}

// The spans the drive throttled (SMART thermal management counters), as red bands.
std::vector<XBand> throttle_bands(const WorkloadResult& w) {
  std::vector<XBand> out;
  for (const auto& t : w.throttled) {
    XBand b;
    b.from = t.start_s;
    b.to = t.end_s;
    b.label = "throttled (" + t.level + ", " + std::to_string(t.seconds) + " s)";
    b.color = "#d62728";
    out.push_back(std::move(b));
  }
  return out;
}

void throttle_block(std::string& o, const WorkloadResult& w) {
  if (w.thermal.empty()) return;
  int peak = w.thermal.front().temperature_c;
  for (const auto& s : w.thermal) peak = std::max(peak, s.temperature_c);
  o += "<div class=\"box thermal\"><h4>Temperature and throttling</h4><p>" +
       std::to_string(w.thermal.size()) + " SMART readings, composite temperature peak " +
       std::to_string(peak) + " C. ";
  if (w.throttled.empty()) {
    o += "No thermal management transitions.</p></div>";
    return;
  }
  o += "<strong>Throttled:</strong></p><ul class=\"throttled\">";
  char buf[160];
  for (const auto& t : w.throttled) {
    std::snprintf(buf, sizeof buf, "%s, %u s, between %.1f s and %.1f s", t.level.c_str(),
                  t.seconds, t.start_s, t.end_s);
    o += "<li><mark>" + esc(buf) + "</mark></li>";
  }
  o += "</ul></div>";
}

void host_limit_block(std::string& o, const HostLimitReport& h) {
  std::string link;
  if (!h.link_speed.empty() || h.link_width) {
    auto lanes = [](unsigned w) { return w ? " x" + std::to_string(w) : std::string(" x?"); };
    link = "PCIe link " + (h.link_speed.empty() ? std::string("?") : h.link_speed) +
           lanes(h.link_width);
    if (!h.max_link_speed.empty() || h.max_link_width)
      link += " (device maximum " + (h.max_link_speed.empty() ? "?" : h.max_link_speed) +
              lanes(h.max_link_width) + ")";
    if (h.link_bw_bytes > 0) link += ", usable " + html_rate(h.link_bw_bytes);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "busiest job thread %.0f%% of a CPU", h.max_thread_cpu_pct);
  std::string evidence = buf;
  if (h.engine_ceiling_iops > 0) evidence += ", engine ceiling " + html_iops(h.engine_ceiling_iops);
  if (!h.limited) {
    o += "<p class=\"small muted host-limit\">Host not the limit: " + esc(evidence) +
         (link.empty() ? "" : "; " + esc(link)) + ".</p>";
    return;
  }
  o += "<div class=\"box host-limit bad\"><h4>Host-limited</h4><p>The host, not the device, "
       "limited this workload; a claim it misses is not a device failure.</p><ul>";
  for (const auto& r : h.reasons) o += "<li>" + esc(r) + "</li>";
  o += "</ul><p class=\"small\">" + esc(evidence) + "</p>";
  if (!link.empty()) o += "<p class=\"small\">" + esc(link) + "</p>";
  o += "</div>";
}

void integrity_block(std::string& o, const IntegrityReport& i) {
  const std::uint64_t bad = i.corrupted + i.misplaced + i.stale + i.foreign;
  const bool clean = bad == 0 && i.read_errors == 0 && i.bad_inline == 0;
  o += "<div class=\"box integrity " + std::string(clean ? "ok" : "bad") +
       "\"><h4>Data integrity</h4><p><span class=\"status " +
       (clean ? "pass\">VERIFIED" : "fail\">BAD BLOCKS") + "</span> ";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(i.run_id));
  o += esc(i.algorithm) + ", run id " + buf + ": " + std::to_string(i.blocks_written) +
       " blocks written, " + std::to_string(i.verified_inline) + " verified inline, " +
       std::to_string(i.verified_at_end) + " at the end" +
       (i.bad_inline ? ", " + std::to_string(i.bad_inline) + " bad inline" : "") + ".</p>";
  html_class_counts(o, i.corrupted, i.misplaced, i.stale, i.foreign, i.read_errors);
  html_findings_table(o, i.findings, bad);
  if (i.tracking_bytes)
    o += "<p class=\"small muted\">Ledger of written blocks: " +
         esc(format_bytes_iec(static_cast<double>(i.tracking_bytes))) + ".</p>";
  o += "</div>";
}

// A result that did no I/O of its own (a self-test: the drive's own test) and is neither skipped
// nor in error: no parameters, no figures, no fio numbers.
bool did_no_io(const WorkloadResult& w) {
  return !w.read && !w.write && w.errors.empty() && !w.skipped;
}

// The workload's parameters as run, and how long it was measured.
void workload_heading(std::string& o, const WorkloadResult& w, std::size_t index,
                      const std::string& anchor_prefix) {
  o += "<section class=\"workload\" id=\"" + anchor_prefix + "w" + std::to_string(index) + "\">";
  o += "<h3>" + esc(w.id) + "</h3>";
  if (did_no_io(w)) return;
  const auto& p = w.params;
  const auto pattern_of = [](const WorkloadParams& q) {
    return "rw=" + esc(q.rw) + ", bs=" + std::to_string(q.bs) +
           " B, iodepth=" + std::to_string(q.iodepth) + ", numjobs=" + std::to_string(q.numjobs) +
           ", ioengine=" + esc(q.ioengine) + ", direct=" + (q.direct ? "1" : "0");
  };
  o += "<p class=\"small muted\">";
  if (w.jobs.empty()) {
    o += pattern_of(p);
  } else {  // a group: the workload's own parameters are only its jobs' defaults
    o += std::to_string(w.jobs.size()) + " jobs run together: ";
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      const WorkloadParams& q = w.jobs[i].params;
      o += (i ? "; " : "") + esc(w.jobs[i].id) + " (" + pattern_of(q);
      if (const std::string pattern = offset_pattern(q); !pattern.empty())
        o += ", offsets: " + esc(pattern);
      o += ")";
    }
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, ", runtime %.1f s (ramp %.1f s), measured %.1f s", p.runtime_s,
                p.ramp_time_s, w.elapsed_s);
  o += buf;
  if (const std::string pattern = offset_pattern(p); w.jobs.empty() && !pattern.empty())
    o += ", offsets: " + esc(pattern);
  o += "</p>";
  o += "<p class=\"small muted definition\">IOPS and bandwidth below: per direction (and "
       "read+write), sum over " +
       esc(jobs_text(p.numjobs)) +
       ", mean over the measured time; latencies: per I/O over every "
       "I/O of the jobs (<a href=\"#glossary\">glossary</a>).</p>";
}

// Flags (skipped, CPU-bound, host-limited, not steady, ...), errors, the skip reason, the
// preconditioning done before it and the host-limit block. Returns the flags (the charts show
// them).
std::vector<std::string> workload_flags(std::string& o, const WorkloadResult& w) {
  char buf[128];
  std::vector<std::string> flags;
  if (w.skipped) flags.push_back("skipped");
  if (w.cpu.max_thread_pct >= kCpuBoundThreadPct) flags.push_back("CPU-bound");
  if (w.host_limit && w.host_limit->limited) flags.push_back("host-limited");
  if (w.host_busy && w.host_busy->busy) flags.push_back("host busy");
  if (w.early_stop && w.early_stop->stopped_early) flags.push_back("stopped early");
  if (w.steadystate) flags.push_back(w.steadystate->attained ? "ss attained" : "ss not attained");
  if (w.method && w.method->steady() == false) flags.push_back("not steady");
  if (w.interrupted) flags.push_back("interrupted");
  if (!w.errors.empty()) flags.push_back("errors");
  if (!flags.empty()) {
    o += "<p>";
    for (const auto& f : flags) o += "<span class=\"flag\">" + esc(f) + "</span>";
    if (w.cpu.max_thread_pct >= kCpuBoundThreadPct) {
      std::snprintf(buf, sizeof buf,
                    "the busiest job thread used %.0f%% of a CPU: the numbers may "
                    "measure the host, not the device.",
                    w.cpu.max_thread_pct);
      o += "<span class=\"small\">" + std::string(buf) + "</span>";
    }
    o += "</p>";
  }
  if (!w.errors.empty()) {
    o += "<ul>";
    for (const auto& e : w.errors) o += "<li>" + esc(e) + "</li>";
    o += "</ul>";
  }
  if (w.skipped)
    o += "<div class=\"box skipped\"><strong>Skipped:</strong> " + esc(*w.skipped) +
         "<br><span class=\"small muted\">Not run, and not an error: its claims are skipped "
         "with this reason.</span></div>";
  if (!w.preconditioning.empty()) {
    o += "<div class=\"preconditioning\"><strong>Preconditioning before this workload:</strong>"
         "<ol class=\"small\">";
    for (const auto& line : w.preconditioning) o += "<li>" + esc(line) + "</li>";
    o += "</ol></div>";
  }
  if (!w.fill.empty()) {
    // The fill that gave it written data to read (docs/measurement.md, "Reads of written data").
    o += "<div class=\"preconditioning\" id=\"fill-" + esc(w.id) +
         "\"><strong>Fill before this workload read</strong> (outside its measured time):"
         "<ol class=\"small\">";
    for (const auto& f : w.fill) {
      std::string line = format_fill_line(w.id, f);
      while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
      line.erase(0, line.find_first_not_of(' '));
      o += "<li>" + esc(line) + "</li>";
    }
    o += "</ol></div>";
  }
  if (w.host_limit) host_limit_block(o, *w.host_limit);
  if (w.host_busy && w.host_busy->busy) {
    std::string why;
    for (const auto& r : w.host_busy->reasons) why += (why.empty() ? "" : ", ") + r;
    o += "<div class=\"box bad\"><strong>Host busy:</strong> " + esc(why) +
         "<br><span class=\"small muted\">Other processes competed for the CPU during this "
         "workload: its figures are the host's as much as the device's.</span></div>";
  }
  if (w.early_stop)
    o += "<p class=\"small\"><strong>Early stop</strong> (" + esc(w.early_stop->rule) +
         "): " + esc(w.early_stop->reason) + "</p>";
  if (const auto& ss = w.steadystate) {
    char crit[64];
    std::snprintf(crit, sizeof crit, "%.3f%s", ss->criterion, ss->percent ? "%" : "");
    o += "<p class=\"small\"><strong>fio's steady state</strong> (ss=" + esc(ss->ss) +
         ", ss_dur=" + std::to_string(ss->duration) + "s): " +
         (ss->attained ? "attained after " + std::to_string(std::lround(ss->attained_at_s)) +
                             " s, the workload ended there"
                       : std::string("not attained: the workload ran to its end")) +
         "; last criterion " + crit + "</p>";
  }

  return flags;
}

// The claim verdicts (VerdictKind::Claim) that name this workload.
std::vector<const ClaimVerdict*> claims_on(const RunResult& run, const WorkloadResult& w) {
  std::vector<const ClaimVerdict*> claims;
  for (const auto& v : run.verdicts)
    if (v.kind == VerdictKind::Claim)
      for (const auto& id : v.workloads)
        if (id == w.id) claims.push_back(&v);

  return claims;
}

// IOPS and bandwidth over time, with the claim line, steady-state band and cache marker.
void timeline_charts(std::string& o, const WorkloadResult& w, const std::vector<std::string>& flags,
                     const std::vector<const ClaimVerdict*>& claims) {
  if (!w.timeline.empty()) {
    const bool both = w.read && w.write;
    for (const char* kind : {"iops", "bw"}) {
      const bool iops = std::string(kind) == "iops";
      const double scale = iops ? 1.0 : 1e6;
      LineChart c;
      c.title = w.id + (iops ? ": IOPS over time" : ": bandwidth over time") + " (sum over " +
                jobs_text(w.params.numjobs) + ", per " +
                (w.timeline.size() > 1 ? format_seconds_fixed(w.timeline[1].t_s - w.timeline[0].t_s)
                                       : format_seconds_fixed(w.timeline[0].t_s)) +
                " s interval)";
      c.x_label = "seconds";
      c.height = kWorkloadChartHeight;
      c.y_label = iops ? "IOPS" : "MB/s";
      c.flags = flags;
      if (iops) c.format_y = [](double v) { return fio_num2str(v); };
      ChartSeries r{"read", kReadColour, {}}, wr{"write", kWriteColour, {}},
          t{"total", kTotalColour, {}};
      for (const auto& pt : w.timeline) {
        const double rv = (iops ? pt.read_iops : pt.read_bw) / scale;
        const double wv = (iops ? pt.write_iops : pt.write_bw) / scale;
        r.points.emplace_back(pt.t_s, rv);
        wr.points.emplace_back(pt.t_s, wv);
        t.points.emplace_back(pt.t_s, rv + wv);
      }
      if (w.read) c.series.push_back(std::move(r));
      if (w.write) c.series.push_back(std::move(wr));
      if (both) c.series.push_back(std::move(t));
      add_method_marks(c, w);
      for (auto& band : throttle_bands(w)) c.x_bands.push_back(std::move(band));
      for (const auto* v : claims) {
        if (!metric_is(v->metric, kind) || !v->claimed) continue;
        c.claim = claim_line(*v, scale, figure_text(*v->claimed, v->unit));
        break;
      }
      figure(o, std::string("timeline-") + kind, render_line_chart(c));
    }
  }
  throttle_block(o, w);
}

// Completion latency percentiles on a log scale, with a latency claim's line.
void percentile_chart(std::string& o, const WorkloadResult& w,
                      const std::vector<const ClaimVerdict*>& claims) {
  char buf[128];
  const bool has_percentiles = (w.read && !w.read->clat.percentiles.empty()) ||
                               (w.write && !w.write->clat.percentiles.empty());
  if (has_percentiles) {
    LineChart c;
    c.title = w.id + ": completion latency percentiles (clat, per I/O over every I/O of " +
              jobs_text(w.params.numjobs) + ", log scale)";
    c.x_label = "percentile";
    c.height = kWorkloadChartHeight;
    c.y_label = "latency";
    c.log_y = true;
    c.format_y = latency_tick;
    auto nines = [](double pct) { return -std::log10(1.0 - pct / 100.0); };
    double lo = INFINITY, hi = -INFINITY;
    for (const auto* side : {&w.read, &w.write}) {
      if (!*side || (*side)->clat.percentiles.empty()) continue;
      ChartSeries s{
          side == &w.read ? "read" : "write", side == &w.read ? kReadColour : kWriteColour, {}};
      for (const auto& [pct, ns] : (*side)->clat.percentiles) {
        if (!(pct >= 0 && pct < 100)) continue;
        s.points.emplace_back(nines(pct), static_cast<double>(ns));
        lo = std::min(lo, pct);
        hi = std::max(hi, pct);
      }
      c.series.push_back(std::move(s));
    }
    for (double pct : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999})
      if (pct >= lo - 1e-9 && pct <= hi + 1e-9) {
        std::snprintf(buf, sizeof buf, "%g", pct);
        c.x_ticks.emplace_back(nines(pct), buf);
      }
    for (const auto* v : claims) {
      // A PTS figure (dirth.max_iops_lat) is not a point of this curve.
      if (metric_kind_of(v->metric) != MetricKind::Latency || find_figure(v->metric)) continue;
      if (!v->claimed) continue;
      c.claim = claim_line(*v, 1.0, figure_text(*v->claimed, v->unit));
      break;
    }
    figure(o, "percentiles", render_line_chart(c));
  }
}

// The method's own section (MethodReport::render_html), integrity, fio's numbers and the
// equivalent fio command.
void method_and_fio_blocks(std::string& o, const RunResult& run, const WorkloadResult& w) {
  if (w.method) w.method->render_html(o, run, w);  // the method's own section
  if (w.integrity) integrity_block(o, *w.integrity);

  if (!w.skipped && !did_no_io(w)) {
    o += "<h4>Numbers as fio prints them</h4><pre class=\"fio\">" + esc(format_fio_summary(w)) +
         "</pre>";
    const double jobs = w.params.numjobs ? static_cast<double>(w.params.numjobs) : 1.0;
    char cpu[2048];
    std::snprintf(cpu, sizeof cpu,
                  "CPU: usr %.1f%%, sys %.1f%% per job on average (fio's cpu line); all %u job "
                  "threads together usr %.1f%%, sys %.1f%% of one CPU; busiest job thread %.1f%% "
                  "of one CPU",
                  w.cpu.usr_pct / jobs, w.cpu.sys_pct / jobs, w.params.numjobs, w.cpu.usr_pct,
                  w.cpu.sys_pct, w.cpu.max_thread_pct);
    o += "<p>" + std::string(cpu) + "</p>";
  }
  if (!w.fio_command.empty())
    o += "<h4>Equivalent fio command</h4><pre class=\"cmd\">" + esc(w.fio_command) + "</pre>";
  if (const std::string c = fio_command_caveat(w); !c.empty() && !w.fio_command.empty())
    o += "<p class=\"fio-caveat\">" + esc(c) + "</p>";
}

// One workload's section: named steps, in the order a reader meets them.
// A group workload: a row for the group (its jobs together), then a row per job under it.
void group_jobs_table(std::string& o, const WorkloadResult& w) {
  if (w.jobs.empty()) return;
  o += "<table class=\"group\"><thead><tr><th>job</th><th>rw</th><th>bs</th><th>iodepth</th>"
       "<th>numjobs</th><th>read IOPS</th><th>read BW</th><th>write IOPS</th><th>write BW</th>"
       "<th>read lat mean</th><th>write lat mean</th></tr></thead><tbody>";
  auto row = [&](const WorkloadResult& r, const std::string& name, bool job) {
    const auto& p = r.params;
    auto cell = [](const std::optional<DirectionResult>& d, auto value) {
      return "<td>" + (d ? esc(value(*d)) : std::string("&ndash;")) + "</td>";
    };
    o += std::string(job ? "<tr class=\"group-job\"><td>&nbsp;&nbsp;" : "<tr><td><strong>") +
         esc(name) + (job ? "" : "</strong> (the group)") + "</td><td>" +
         (job ? esc(p.rw) : std::string("&ndash;")) + "</td><td>" +
         (job ? esc(format_bytes_iec(static_cast<double>(p.bs))) : std::string("&ndash;")) +
         "</td><td>" + (job ? std::to_string(p.iodepth) : std::string("&ndash;")) + "</td><td>" +
         std::to_string(p.numjobs) + "</td>";
    const auto iops = [](const DirectionResult& d) { return html_iops(d.iops); };
    const auto bw = [](const DirectionResult& d) { return html_rate(d.bw_bytes); };
    const auto lat = [](const DirectionResult& d) { return html_latency(d.lat.mean_ns); };
    o += cell(r.read, iops) + cell(r.read, bw) + cell(r.write, iops) + cell(r.write, bw) +
         cell(r.read, lat) + cell(r.write, lat) + "</tr>";
  };
  row(w, w.id, false);
  for (const WorkloadResult& j : w.jobs) row(j, j.id, true);
  o += "</tbody></table>";
}

}  // namespace

void html_workload_section(std::string& o, const RunResult& run, const WorkloadResult& w,
                           std::size_t index, const std::string& anchor_prefix) {
  workload_heading(o, w, index, anchor_prefix);
  group_jobs_table(o, w);
  const std::vector<std::string> flags = workload_flags(o, w);
  const std::vector<const ClaimVerdict*> claims = claims_on(run, w);
  timeline_charts(o, w, flags, claims);
  percentile_chart(o, w, claims);
  method_and_fio_blocks(o, run, w);
  o += "</section>";
}

}  // namespace storqual::reporting
