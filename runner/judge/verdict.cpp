// SPDX-License-Identifier: Apache-2.0
// Claims judged against measured results.
#include "runner/judge/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/quantity_format.hpp"
#include "reporting/figure_labels.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/units.hpp"
#include "runner/judge/figure_verdicts.hpp"
#include "runner/measure/host_load.hpp"
#include "runner/measure/tail_samples.hpp"
#include "runner/methods/gates/thermal_watch.hpp"

namespace storqual::runner {
namespace {

using reporting::ClaimVerdict;
using reporting::DirectionResult;
using reporting::ErrorCause;
using reporting::LatencySummary;
using reporting::VerdictStatus;
using reporting::WorkloadResult;

// A relative slack far below any printed digit, so that a value exactly on the bound (which
// floating point may land a hair to either side of) passes as documented.
constexpr double kBoundSlack = 1e-9;

std::string percent_text(double p, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, p);
  return buf;
}

std::string tolerance_text(double t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g%%", t);
  return buf;
}

const char* direction_word(MetricDirection d) {
  switch (d) {
    case MetricDirection::Read:
      return "read ";
    case MetricDirection::Write:
      return "write ";
    case MetricDirection::Both:
      break;
  }
  return "";
}

std::string percentile_name(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%g", p);
  return buf;
}

// "80.5k IOPS", "read 547 MB/s", "p99 310 us", "write clat mean 1.2 ms"
std::string subject(const Metric& m, double v) {
  std::string dir = direction_word(m.direction);
  switch (m.kind) {
    case MetricKind::Iops:
      return format_metric_value(m.kind, v) + " " + dir + "IOPS";
    case MetricKind::Bandwidth:
      return dir + format_metric_value(m.kind, v);
    case MetricKind::Latency: {
      std::string stat =
          m.percentile ? percentile_name(*m.percentile)
                       : std::string(m.latency == LatencyKind::Clat ? "mean" : "mean latency");
      std::string kind = m.latency == LatencyKind::Clat ? "clat " : "";
      return dir + kind + stat + " " + format_metric_value(m.kind, v);
    }
    case MetricKind::Capacity: {  // a figure in bytes, in its own words ("1 GiB usable")
      const std::string value = format_metric_value(m.kind, v);
      if (!m.figure || m.figure->verdict_form.empty()) return m.name + " " + value;
      std::string text(m.figure->verdict_form);
      if (const auto at = text.find("{value}"); at != std::string::npos) text.replace(at, 7, value);
      return text;
    }
    case MetricKind::Waf:
      return "write amplification " + format_metric_value(m.kind, v);
    case MetricKind::Dwpd:
      return "endurance " + format_metric_value(m.kind, v);
    case MetricKind::Percent:
      return m.name + " " + format_metric_value(m.kind, v);
  }
  return "";
}

const WorkloadResult* find_result(const std::vector<WorkloadResult>& results,
                                  const std::string& id) {
  for (const auto& r : results)
    if (r.id == id) return &r;
  return nullptr;
}

bool run_was_interrupted(const std::vector<WorkloadResult>& results) {
  return std::any_of(results.begin(), results.end(),
                     [](const WorkloadResult& r) { return r.interrupted; });
}

// Why a result cannot be judged at all, or "" when it can. Sets `status` to Error or Skipped.
std::string unusable(const WorkloadResult* r, const std::string& id, bool interrupted_run,
                     VerdictStatus& status) {
  status = VerdictStatus::Error;
  if (!r) {
    if (interrupted_run) {
      status = VerdictStatus::Skipped;
      return "workload '" + id + "' did not run (the run was interrupted)";
    }
    return "workload '" + id + "' did not run";
  }
  if (r->skipped) {
    status = VerdictStatus::Skipped;
    return "workload '" + id + "' skipped: " + *r->skipped;
  }
  if (r->interrupted) return "workload '" + id + "' was interrupted";
  if (!r->errors.empty())
    return "workload '" + id + "' failed: " + reporting::join_text(r->errors, "; ");
  return "";
}

// Why a verdict on `r` is an error: its workload was interrupted, or anything else.
ErrorCause error_cause_of(const WorkloadResult* r) {
  return r && r->interrupted ? ErrorCause::Interrupted : ErrorCause::WorkloadError;
}

double percentile_of(const LatencySummary& s, double pct, bool& found) {
  for (const auto& [p, ns] : s.percentiles)
    if (std::fabs(p - pct) < 1e-9) {
      found = true;
      return static_cast<double>(ns);
    }
  found = false;
  return 0;
}

// Whether job threads that waited for a CPU can account for `measured` missing claim `c`: the job
// threads were ready to run `factor` times as long as they ran (HostLimitReport::cpu_wait_factor;
// on a CPU-bound device such as zram the kernel's workers that complete their I/O waited alike),
// so a free host would have given about that many times the IOPS or bandwidth, or a latency that
// many times shorter; the claim is excused when that figure meets its bound. Other metrics are not
// excused by the host's CPUs.
bool cpu_wait_accounts_for(const Claim& c, double measured, double factor) {
  const double tol = c.tolerance_pct / 100.0;
  factor = std::max(1.0, factor);
  switch (c.metric.kind) {
    case MetricKind::Iops:
    case MetricKind::Bandwidth:
      return measured * factor >= c.value * (1 - tol);
    case MetricKind::Latency:
      return measured / factor <= c.value * (1 + tol);
    default:
      return false;
  }
}

// Why the host (not the device) may have limited `r` (whose figure for claim `c` is `measured`);
// "" when nothing says so.
std::string host_limit_reason(const Claim& c, const WorkloadResult& r, double measured) {
  std::vector<std::string> reasons;
  if (r.host_limit) {
    reasons = r.host_limit->reasons;
    const auto& h = *r.host_limit;
    // A device far below its claim stays a failure on a crowded host: the wait must account for
    // the shortfall (a CI host running other jobs would otherwise excuse every real failure).
    if (!h.cpu_wait_reason.empty() && !cpu_wait_accounts_for(c, measured, h.cpu_wait_factor))
      std::erase(reasons, h.cpu_wait_reason);
    if (c.metric.kind == MetricKind::Bandwidth && h.link_bw_bytes > 0 &&
        c.value > h.link_bw_bytes) {
      reasons.push_back(
          "the PCIe link (" + h.link_speed + " x" + std::to_string(h.link_width) +
          ") carries at most " + format_metric_value(MetricKind::Bandwidth, h.link_bw_bytes) +
          ", less than the claimed " + format_metric_value(MetricKind::Bandwidth, c.value));
    }
  }
  return reporting::join_text(reasons, ", ");
}

// "file:line:column" (Claim::location) into the verdict's file and line, for reports that point
// a reader at the claim (JUnit's file and line).
void set_claim_position(const std::string& location, ClaimVerdict& v) {
  const auto column_colon = location.rfind(':');
  if (column_colon == std::string::npos || column_colon == 0) return;
  const auto line_colon = location.rfind(':', column_colon - 1);
  if (line_colon == std::string::npos) return;
  const std::string line = location.substr(line_colon + 1, column_colon - line_colon - 1);
  if (line.empty() || line.size() > 9 || line.find_first_not_of("0123456789") != std::string::npos)
    return;
  v.file = location.substr(0, line_colon);
  v.line = static_cast<unsigned>(std::stoul(line));
}

// A named figure: what the workload's method published under that name (model/metric.hpp
// figure_table()), looked up by name whatever the method.
std::optional<double> figure_value(const Metric& metric, const WorkloadResult& r,
                                   std::string& why) {
  const std::string_view source = metric.figure->source;
  if (source == "run") {
    why = metric.name +
          " is measured over the whole run (NVMe health before and after), not in workload '" +
          r.id + "'";
    return std::nullopt;
  }
  bool same_method = false;
  for (const auto& f : r.figures) {
    if (f.name == metric.name) return f.value;
    const reporting::FigureInfo* info = reporting::find_figure(f.name);
    same_method = same_method || (info && info->source == source);
  }
  why = same_method
            ? "workload '" + r.id + "' has no " + metric.name + " (not measured in this run)"
            : "workload '" + r.id + "' is not a <" + std::string(source) + ">, so it has no " +
                  metric.name;
  return std::nullopt;
}

}  // namespace

std::optional<double> metric_value(const Metric& metric, const WorkloadResult& r,
                                   std::string& why) {
  if (metric.figure) return figure_value(metric, r, why);
  std::vector<const DirectionResult*> dirs;
  if (metric.direction != MetricDirection::Write && r.read) dirs.push_back(&*r.read);
  if (metric.direction != MetricDirection::Read && r.write) dirs.push_back(&*r.write);
  if (dirs.empty()) {
    if (metric.direction == MetricDirection::Read)
      why = "workload '" + r.id + "' does not read (rw=" + r.params.rw + "), so it has no " +
            metric.name;
    else if (metric.direction == MetricDirection::Write)
      why = "workload '" + r.id + "' does not write (rw=" + r.params.rw + "), so it has no " +
            metric.name;
    else
      why = "workload '" + r.id + "' has no read or write results";
    return std::nullopt;
  }
  switch (metric.kind) {
    case MetricKind::Iops: {
      double sum = 0;
      for (auto* d : dirs) sum += d->iops;
      return sum;
    }
    case MetricKind::Bandwidth: {
      double sum = 0;
      for (auto* d : dirs) sum += d->bw_bytes;
      return sum;
    }
    case MetricKind::Latency:
    case MetricKind::Capacity:
    case MetricKind::Waf:
    case MetricKind::Dwpd:
    case MetricKind::Percent:
      break;
  }
  std::vector<const LatencySummary*> sums;
  for (auto* d : dirs) {
    const LatencySummary& s = metric.latency == LatencyKind::Clat ? d->clat : d->lat;
    if (s.samples > 0) sums.push_back(&s);
  }
  if (sums.empty()) {
    why = "workload '" + r.id + "' has no latency samples for " + metric.name;
    return std::nullopt;
  }
  if (!metric.percentile) {  // the mean over both directions, weighted by their samples
    double total = 0, n = 0;
    for (auto* s : sums) {
      total += s->mean_ns * static_cast<double>(s->samples);
      n += static_cast<double>(s->samples);
    }
    return total / n;
  }
  // A percentile of read and write together cannot be rebuilt from two summaries; the larger of
  // the two is the conservative answer (documented in docs/formats.md).
  double worst = 0;
  for (auto* s : sums) {
    bool found = false;
    double v = percentile_of(*s, *metric.percentile, found);
    if (!found) {
      why = "workload '" + r.id + "' reports no " + percentile_name(*metric.percentile);
      return std::nullopt;
    }
    worst = std::max(worst, v);
  }
  return worst;
}

namespace {

// The run's write amplification or endurance, or empty with `why`.
std::optional<double> wear_value(const Metric& m, const JudgeContext& ctx, std::string& why) {
  if (!ctx.wear) {
    why = m.name + " needs the NVMe SMART log before and after the run, which this device lacks";
    return std::nullopt;
  }
  const reporting::WearReport& w = *ctx.wear;
  if (m.kind == MetricKind::Waf) {
    if (w.waf) return *w.waf;
    why = !w.media_written_bytes ? "waf needs the OCP C0h log (physical media units written)"
                                 : "waf: the host wrote nothing during the run";
    return std::nullopt;
  }
  if (!ctx.warranty_years) {
    why = "endurance.dwpd needs warranty_years on the spec sheet";
    return std::nullopt;
  }
  if (w.dwpd) return *w.dwpd;
  why = "endurance.dwpd: " + w.basis;
  return std::nullopt;
}

// Why a percentile claim cannot be judged on `r` (too few samples beyond it,
// runner/measure/tail_samples.hpp); "" when every direction the metric reads has enough.
std::string tail_shortfall(const Metric& m, const WorkloadResult& r) {
  if (m.kind != MetricKind::Latency || !m.percentile) return "";
  std::vector<const DirectionResult*> dirs;
  if (m.direction != MetricDirection::Write && r.read) dirs.push_back(&*r.read);
  if (m.direction != MetricDirection::Read && r.write) dirs.push_back(&*r.write);
  for (const DirectionResult* d : dirs) {
    const LatencySummary& s = m.latency == LatencyKind::Clat ? d->clat : d->lat;
    if (s.samples == 0 || percentile_supported(*m.percentile, s.samples)) continue;
    std::string side = dirs.size() > 1 ? (d == &*r.read ? "read " : "write ") : "";
    return side + describe_shortfall(*m.percentile, s.samples, d->iops);
  }
  return "";
}

// The results a claim on job `c.job` of its one workload reads: that job's result under the
// workload's id, with what holds for the whole group (its run conditions, errors, interruption;
// its host limit where the job has none of its own); the group's result with an error when it
// holds no such job.
std::vector<WorkloadResult> job_results(const std::vector<WorkloadResult>& results,
                                        const Claim& c) {
  const WorkloadResult* group = find_result(results, c.workloads.front());
  if (!group) return {};
  const auto job = std::find_if(group->jobs.begin(), group->jobs.end(),
                                [&](const WorkloadResult& j) { return j.id == c.job; });
  if (job == group->jobs.end()) {
    WorkloadResult none = *group;
    none.jobs.clear();
    if (none.errors.empty() && !none.skipped)
      none.errors.push_back("the result holds no job '" + c.job + "'");
    return {std::move(none)};
  }
  WorkloadResult r = *job;
  r.id = group->id;
  r.errors = group->errors;  // every job's, and the group's: a group in error is so for each job
  r.interrupted = r.interrupted || group->interrupted;
  r.skipped = group->skipped;
  if (!r.host_limit) r.host_limit = group->host_limit;  // a run assesses each job's own
  r.host_busy = group->host_busy;
  r.thermal = group->thermal;
  r.throttled = group->throttled;
  return {std::move(r)};
}

// What the results of a claim's workloads say about it: the figures, or the first problem (an
// error outranks a skip), and what qualifies them (steady state, host limits).
struct ClaimFigures {
  std::vector<double> values;
  std::string problem;
  VerdictStatus problem_status = VerdictStatus::Pass;
  ErrorCause problem_cause = ErrorCause::WorkloadError;
  bool not_steady = false, steady_unknown = false;
  std::string inconclusive, host_limited, host_busy;
  std::string too_few;    // a percentile's samples (runner/measure/tail_samples.hpp)
  std::string throttled;  // the drive throttled while the claim's workload was measured
  const WorkloadResult* early = nullptr;  // the one workload of the claim, with early_stop
};

ClaimFigures gather_figures(const Claim& c, const std::vector<WorkloadResult>& results,
                            bool interrupted_run, ClaimVerdict& v) {
  ClaimFigures f;
  for (const auto& id : c.workloads) {
    const WorkloadResult* r = find_result(results, id);
    if (r) v.time_s += r->elapsed_s;
    VerdictStatus st;
    std::string why = unusable(r, id, interrupted_run, st);
    if (why.empty()) {
      if (std::string short_by = tail_shortfall(c.metric, *r); !short_by.empty()) {
        if (!f.too_few.empty()) f.too_few += "; ";
        f.too_few += (c.workloads.size() > 1 ? id + ": " : std::string()) + short_by;
        continue;
      }
      std::optional<double> m = metric_value(c.metric, *r, why);
      if (m) {
        f.values.push_back(*m);
        const std::optional<bool> steady = r->method ? r->method->steady() : std::nullopt;
        const bool in_rounds = steady.has_value(), became_steady = steady.value_or(false);
        if (c.steady && !in_rounds) f.steady_unknown = true;
        if (c.steady && in_rounds && !became_steady) f.not_steady = true;
        if (c.steady_required && f.inconclusive.empty()) {
          const std::string rounds = r->method ? r->method->steadiness() : std::string();
          if (rounds.empty())
            f.inconclusive = "inconclusive: steady state was not measured (workload '" + id +
                             "' does not run in rounds)";
          else if (!became_steady)
            f.inconclusive = "inconclusive: " + rounds;
        }
        // Performance claims only: a capacity or integrity finding does not depend on CPU time
        // (the bytes before a PTS write cliff, wsat.cliff_tgbw, are a performance figure).
        if (r->host_busy && r->host_busy->busy &&
            (!c.metric.figure || c.metric.figure->performance)) {
          if (!f.host_busy.empty()) f.host_busy += ", ";
          f.host_busy += (c.workloads.size() > 1 ? id + ": " : std::string()) +
                         host_busy_reason(*r->host_busy);
        }
        if (r->early_stop && c.workloads.size() == 1) f.early = r;
        if (std::string hot = describe_throttling(*r); !hot.empty()) {
          if (!f.throttled.empty()) f.throttled += "; ";
          f.throttled += (c.workloads.size() > 1 ? id + ": " : std::string()) + hot;
        }
        if (std::string why_host = host_limit_reason(c, *r, *m); !why_host.empty()) {
          if (!f.host_limited.empty()) f.host_limited += ", ";
          f.host_limited += (c.workloads.size() > 1 ? id + ": " : std::string()) + why_host;
        }
        continue;
      }
      st = VerdictStatus::Error;
    }
    // An error outranks a skip: keep the first error, else the first skip.
    if (f.problem.empty() ||
        (st == VerdictStatus::Error && f.problem_status != VerdictStatus::Error)) {
      f.problem = why;
      f.problem_status = st;
      f.problem_cause = error_cause_of(r);
    }
  }
  return f;
}

// The claim's figure over its workloads: min, max or mean (one workload: its value).
double aggregate_value(const Claim& c, const std::vector<double>& values) {
  if (c.aggregate == Aggregate::Min) return *std::min_element(values.begin(), values.end());
  if (c.aggregate == Aggregate::Max) return *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double x : values) sum += x;
  return values.size() > 1 ? sum / static_cast<double>(values.size()) : values.front();
}

// Pass or fail against the claim within its tolerance, and the message that says by how much.
void compare_with_claim(const Claim& c, double measured, ClaimVerdict& v) {
  const double tol = c.tolerance_pct / 100.0;
  bool pass = c.metric.higher_is_better() ? measured >= c.value * (1 - tol) * (1 - kBoundSlack)
                                          : measured <= c.value * (1 + tol) * (1 + kBoundSlack);
  double diff = (measured - c.value) / c.value * 100.0;
  v.measured = measured;
  v.diff_pct = diff;
  v.status = pass ? VerdictStatus::Pass : VerdictStatus::Fail;

  // One decimal, more when one decimal would print the tolerance itself for a value beyond it
  // (or the other way round), so the message never contradicts the status.
  const double beyond = c.metric.higher_is_better() ? -diff : diff;  // > 0: on the bad side
  int decimals = 1;
  while (decimals < 4) {
    double shown = std::round(std::fabs(diff) * std::pow(10, decimals)) / std::pow(10, decimals);
    bool looks_outside = beyond > 0 && shown > c.tolerance_pct;
    bool looks_inside = beyond <= 0 || shown <= c.tolerance_pct;
    if ((pass && looks_inside) || (!pass && looks_outside)) break;
    ++decimals;
  }
  std::string relation = measured == c.value  ? std::string("equal to")
                         : measured < c.value ? percent_text(-diff, decimals) + " below"
                                              : percent_text(diff, decimals) + " above";
  std::string agg;
  if (c.workloads.size() > 1) {
    agg = " (" + v.aggregate + " of " + reporting::count_of(c.workloads.size(), "workload") + ")";
  }
  v.message = "measured " + subject(c.metric, measured) + agg + ", " + relation + " the claimed " +
              format_metric_value(c.metric.kind, c.value) + " (tolerance " +
              tolerance_text(c.tolerance_pct) + ")";
}

// What qualifies a pass or fail: steady state (an unsettled device makes a steady claim an error)
// and host limits (a failure the host caused is an error, not the device's).
void qualify_verdict(const ClaimFigures& f, ClaimVerdict& v) {
  if (!f.inconclusive.empty()) {
    // A claim on a steady-state figure cannot be judged on a device that did not settle.
    v.status = VerdictStatus::Error;
    v.message = f.inconclusive + "; " + v.message;
  } else {
    if (f.not_steady) v.message += "; not steady (SNIA PTS rounds gave up)";
    if (f.steady_unknown) v.message += "; steady state was not measured";
  }
  if (!f.host_limited.empty()) {
    if (v.status == VerdictStatus::Fail) {
      // Not a device failure: the host could not drive the device to its claim, so the claim is
      // not decided (inconclusive, never an error of the run).
      v.status = VerdictStatus::Inconclusive;
      v.message = "inconclusive: host-limited: " + f.host_limited + "; " + v.message;
    } else {
      v.message += "; host-limited: " + f.host_limited;
    }
  }
}

// What the run's conditions do to a verdict: an early-stop interval that straddles the claim's
// bound makes it inconclusive; a verdict measured on a busy host is marked so (status kept).
void qualify_by_run_conditions(const Claim& c, const ClaimFigures& f, double measured,
                               ClaimVerdict& v) {
  if (f.early && f.inconclusive.empty() &&
      (c.metric.kind == MetricKind::Iops || c.metric.kind == MetricKind::Bandwidth)) {
    // The confidence interval of the early-stop figure, carried over to the claimed metric
    // (same relative width: bs is fixed), against the bound the claim is judged at.
    const auto& es = *f.early->early_stop;
    const double tol = c.tolerance_pct / 100.0;
    const double bound = c.metric.higher_is_better() ? c.value * (1 - tol) : c.value * (1 + tol);
    const double lo = measured * (1 - es.half_width_pct / 100);
    const double hi = measured * (1 + es.half_width_pct / 100);
    if (lo < bound && bound < hi) {
      v.status = VerdictStatus::Inconclusive;
      v.message = "inconclusive: the " + percent_text(es.confidence_pct, 0) + " interval " +
                  format_metric_value(c.metric.kind, lo) + ".." +
                  format_metric_value(c.metric.kind, hi) + " straddles the claim's bound " +
                  format_metric_value(c.metric.kind, bound) + " (" + es.reason + "); " + v.message;
    }
  }
  if (!f.host_busy.empty()) {
    // Measured while other processes took the CPU: the figure is marked, the status kept. A
    // failure stays a failure (a CI host running several jobs would otherwise turn every real
    // failure into an error); the mark says to measure again on an idle host (docs/formats.md).
    v.message = "host busy: " + f.host_busy + "; " + v.message;
  }
}

// One claim: skipped when the suite lacks a workload of it, the problem when a result is unusable,
// else compared with the claim and qualified.
ClaimVerdict judge_claim(const Claim& as_written, const Suite& suite,
                         const std::vector<WorkloadResult>& all_results, bool interrupted_run,
                         const JudgeContext& context) {
  Claim c = as_written;  // a per-TB claim becomes the threshold for this device's capacity
  // A claim on one job of a group judges that job's result in the group's place.
  const std::vector<WorkloadResult> job_scope =
      c.job.empty() ? std::vector<WorkloadResult>{} : job_results(all_results, c);
  const std::vector<WorkloadResult>& results = c.job.empty() ? all_results : job_scope;
  ClaimVerdict v;
  v.workloads = c.workloads;
  v.job = c.job;
  v.metric = c.metric.name;
  v.unit = c.metric.unit();
  v.higher_is_better = c.metric.higher_is_better();
  if (c.workloads.size() > 1) v.aggregate = to_string(c.aggregate);
  v.claimed = c.value;
  v.tolerance_pct = c.tolerance_pct;
  set_claim_position(c.location, v);
  std::string per_tb_note;  // "; 50k IOPS per TB x 3.84 TB"
  if (c.per_tb) {
    if (!context.capacity_bytes || !(*context.capacity_bytes > 0)) {
      v.status = VerdictStatus::Error;
      v.message = "per-TB claim '" + c.value_text +
                  "' needs the device's capacity, which is unknown (identity capacity_bytes)";
      return v;
    }
    c.value = claim_threshold(as_written, *context.capacity_bytes);
    v.claimed = c.value;
    per_tb_note = "; " + format_metric_value(c.metric.kind, as_written.value) + " per TB x " +
                  format_metric_value(MetricKind::Capacity, *context.capacity_bytes);
  }

  std::vector<std::string> missing;
  for (const auto& id : c.workloads)
    if (!suite.find(id)) missing.push_back(id);
  if (!missing.empty()) {
    v.status = VerdictStatus::Skipped;
    v.message =
        (missing.size() == 1 ? "workload '" + missing[0] + "' is"
                             : "workloads '" + reporting::join_text(missing, "', '") + "' are") +
        " not in suite '" + suite.name + "'";
    return v;
  }
  const bool wear_metric = c.metric.kind == MetricKind::Waf || c.metric.kind == MetricKind::Dwpd;
  ClaimFigures f;
  if (wear_metric) {  // one figure of the whole run (runner/methods/gates/wear.hpp)
    for (const auto& id : c.workloads)
      if (const WorkloadResult* r = find_result(results, id)) v.time_s += r->elapsed_s;
    std::string why;
    std::optional<double> m = wear_value(c.metric, context, why);
    if (!m) {
      v.status = VerdictStatus::Error;
      v.message = why;
      return v;
    }
    f.values.push_back(*m);
  } else {
    f = gather_figures(c, results, interrupted_run, v);
  }
  if (!f.problem.empty()) {
    v.status = f.problem_status;
    v.error_cause = f.problem_cause;
    v.message = f.problem;
    return v;
  }
  if (!f.too_few.empty()) {
    // Too few I/Os beyond the percentile: the value is a handful of samples, not the tail.
    v.status = VerdictStatus::Inconclusive;
    v.message = "inconclusive: too few samples for " + c.metric.name + ": " + f.too_few +
                " (claimed " + format_metric_value(c.metric.kind, c.value) + ")";
    return v;
  }
  const double measured = aggregate_value(c, f.values);
  compare_with_claim(c, measured, v);
  // What the measured figure is (docs/reports.md, "Glossary").
  if (const WorkloadResult* r = find_result(results, c.workloads.front()))
    v.figure = (c.workloads.size() > 1
                    ? "aggregate of " + std::to_string(c.workloads.size()) + " workloads, each: "
                    : std::string()) +
               reporting::metric_definition(c.metric.name, *r);
  v.message += per_tb_note;
  if (wear_metric && context.wear)
    v.message += "; over the whole run, projected from " + context.wear->basis;
  if (c.metric.kind == MetricKind::Capacity && c.workloads.size() == 1) {
    // What was found where: samples good, sample interval, where aliasing starts.
    if (const WorkloadResult* r = find_result(results, c.workloads.front()); r && r->method)
      if (const std::string note = r->method->claim_note(c.metric.name); !note.empty())
        v.message += "; " + note;
  }
  qualify_by_run_conditions(c, f, measured, v);
  qualify_verdict(f, v);
  if (!f.throttled.empty()) v.message += "; " + f.throttled;
  return v;
}

}  // namespace

std::vector<ClaimVerdict> judge(const SpecSheet& sheet, const Suite& suite,
                                const std::vector<WorkloadResult>& results) {
  return judge(sheet, suite, results, JudgeContext{});
}

std::vector<ClaimVerdict> judge(const SpecSheet& sheet, const Suite& suite,
                                const std::vector<WorkloadResult>& results,
                                const JudgeContext& context) {
  std::vector<ClaimVerdict> out;
  const bool interrupted_run = run_was_interrupted(results);
  for (const Claim& c : sheet.claims)
    out.push_back(judge_claim(c, suite, results, interrupted_run, context));

  std::vector<ClaimVerdict> rest = judge_measured_only(suite, results);
  for (auto& v : rest) {
    bool named = std::any_of(sheet.claims.begin(), sheet.claims.end(), [&](const Claim& c) {
      return std::find(c.workloads.begin(), c.workloads.end(), v.workloads.front()) !=
             c.workloads.end();
    });
    if (!named) out.push_back(std::move(v));
  }
  return out;
}

std::vector<ClaimVerdict> judge_measured_only(const Suite& suite,
                                              const std::vector<WorkloadResult>& results) {
  std::vector<ClaimVerdict> out;
  const bool interrupted_run = run_was_interrupted(results);
  for (const SuiteWorkload& w : suite.workloads) {
    ClaimVerdict v;
    v.workloads = {w.id()};
    v.metric = "iops";
    v.unit = "IOPS";
    const WorkloadResult* r = find_result(results, w.id());
    if (r && r->method && r->method->own_verdict(*r, v)) {
      out.push_back(std::move(v));
      continue;
    }
    VerdictStatus st;
    std::string why = unusable(r, w.id(), interrupted_run, st);
    if (!why.empty()) {
      v.status = st;
      v.error_cause = error_cause_of(r);
      v.message = why;
      if (r) v.time_s = r->elapsed_s;
      out.push_back(std::move(v));
      continue;
    }
    v.time_s = r->elapsed_s;
    std::string ignored;
    Metric iops = parse_metric("iops");
    Metric bw = parse_metric("bw");
    Metric lat = parse_metric("lat.mean");
    v.higher_is_better = iops.higher_is_better();
    std::optional<double> io = metric_value(iops, *r, ignored);
    if (!io) {
      v.status = VerdictStatus::Error;
      v.message = ignored;
      out.push_back(std::move(v));
      continue;
    }
    v.status = VerdictStatus::MeasuredOnly;
    v.measured = *io;
    v.figure = reporting::metric_definition("iops", *r);  // what the table's figure is
    std::string text = "measured " + format_metric_value(MetricKind::Iops, *io) + " IOPS";
    if (r->read && r->write)
      text += " (read " + format_metric_value(MetricKind::Iops, r->read->iops) + ", write " +
              format_metric_value(MetricKind::Iops, r->write->iops) + ")";
    if (auto b = metric_value(bw, *r, ignored))
      text += ", " + format_metric_value(MetricKind::Bandwidth, *b);
    if (auto l = metric_value(lat, *r, ignored))
      text += ", mean lat " + format_metric_value(MetricKind::Latency, *l);
    if (r->method) text += r->method->measured_note(*r);
    if (r->host_limit && r->host_limit->limited)
      text += ", host-limited: " + reporting::join_text(r->host_limit->reasons, ", ");
    if (r->host_busy && r->host_busy->busy)
      text += ", host busy: " + host_busy_reason(*r->host_busy);
    if (r->early_stop) text += ", " + r->early_stop->reason;
    v.message = text + "; no claim";
    out.push_back(std::move(v));
    if (r->method && r->method->lists_figures()) append_figure_verdicts(*r, out);
  }
  return out;
}

int exit_code_for(const std::vector<ClaimVerdict>& verdicts) {
  bool failed = false;
  for (const auto& v : verdicts) {
    if (v.status == VerdictStatus::Error || v.status == VerdictStatus::Inconclusive)
      return kExitRuntime;
    // A claim of the sheet that was not measured leaves the qualification incomplete, never a
    // pass. (A baseline comparison its reference cannot make stays skipped.)
    if (v.status == VerdictStatus::Skipped && v.claimed && v.kind == reporting::VerdictKind::Claim)
      return kExitRuntime;
    if (v.status == VerdictStatus::Fail) failed = true;
  }
  return failed ? kExitClaimFailed : kExitPass;
}

}  // namespace storqual::runner
