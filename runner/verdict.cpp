// SPDX-License-Identifier: Apache-2.0
// Claims judged against measured results.
#include "runner/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reporting/figure_labels.hpp"
#include "runner/capacity_check.hpp"
#include "runner/cli.hpp"
#include "runner/steady_state.hpp"
#include "runner/units.hpp"

namespace storqual::runner {
namespace {

using reporting::ClaimVerdict;
using reporting::DirectionResult;
using reporting::LatencySummary;
using reporting::VerdictStatus;
using reporting::WorkloadResult;

// A relative slack far below any printed digit, so that a value exactly on the bound (which
// floating point may land a hair to either side of) passes as documented.
constexpr double kBoundSlack = 1e-9;

std::string strip_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Three significant digits, the largest unit that keeps the number at or above 1.
std::string three_digits(double v, const double* scales, const char* const* units, int n) {
  int i = 0;
  while (i + 1 < n && std::fabs(v) >= scales[i + 1]) ++i;
  double x = v / scales[i];
  auto render = [](double y) {
    int decimals = 0;
    if (y != 0) decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(y)))));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, y);
    return strip_zeros(buf);
  };
  std::string text = render(x);
  if (text == "1000" && i + 1 < n) {  // 999.7 rounds up: print it in the next unit
    ++i;
    text = render(v / scales[i]);
  }
  return text + units[i];
}

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
    case MetricKind::Capacity:
      return format_metric_value(m.kind, v) + " usable";
  }
  return "";
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
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
  if (!r->errors.empty()) return "workload '" + id + "' failed: " + join(r->errors, "; ");
  return "";
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

// Why the host (not the device) may have limited `r` for claim `c`; "" when nothing says so.
std::string host_limit_reason(const Claim& c, const WorkloadResult& r) {
  std::vector<std::string> reasons;
  if (r.host_limit) {
    reasons = r.host_limit->reasons;
    const auto& h = *r.host_limit;
    if (c.metric.kind == MetricKind::Bandwidth && h.link_bw_bytes > 0 &&
        c.value > h.link_bw_bytes) {
      reasons.push_back(
          "the PCIe link (" + h.link_speed + " x" + std::to_string(h.link_width) +
          ") carries at most " + format_metric_value(MetricKind::Bandwidth, h.link_bw_bytes) +
          ", less than the claimed " + format_metric_value(MetricKind::Bandwidth, c.value));
    }
  }
  return join(reasons, ", ");
}

}  // namespace

std::string format_metric_value(MetricKind kind, double value) {
  switch (kind) {
    case MetricKind::Iops: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9};
      static constexpr const char* u[] = {"", "k", "M", "G"};
      return three_digits(value, s, u, 4);
    }
    case MetricKind::Bandwidth: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12};
      static constexpr const char* u[] = {" B/s", " kB/s", " MB/s", " GB/s", " TB/s"};
      return three_digits(value, s, u, 5);
    }
    case MetricKind::Latency: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9};
      static constexpr const char* u[] = {" ns", " us", " ms", " s"};
      return three_digits(value, s, u, 4);
    }
    case MetricKind::Capacity: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15};
      static constexpr const char* u[] = {" B", " kB", " MB", " GB", " TB", " PB"};
      return three_digits(value, s, u, 6);
    }
  }
  return "";
}

std::optional<double> measure(const Metric& metric, const WorkloadResult& r, std::string& why) {
  if (metric.kind == MetricKind::Capacity) {  // runner/capacity_check.hpp
    if (!r.capacity) {
      why = "workload '" + r.id + "' is not a <capacity> check, so it has no " + metric.name;
      return std::nullopt;
    }
    return static_cast<double>(r.capacity->usable_bytes);
  }
  if (metric.sustained) {
    if (!r.sustained) {
      why = "workload '" + r.id + "' is not a <sustained-write>, so it has no " + metric.name;
      return std::nullopt;
    }
    return r.sustained->post_cache_bw;
  }
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

std::vector<ClaimVerdict> judge(const SpecSheet& sheet, const Suite& suite,
                                const std::vector<WorkloadResult>& results) {
  std::vector<ClaimVerdict> out;
  const bool interrupted_run = run_was_interrupted(results);
  for (const Claim& c : sheet.claims) {
    ClaimVerdict v;
    v.workload = c.workload_label();
    v.metric = c.metric.name;
    v.unit = c.metric.unit();
    v.claimed = c.value;
    v.tolerance_pct = c.tolerance_pct;

    std::vector<std::string> missing;
    for (const auto& id : c.workloads)
      if (!suite.find(id)) missing.push_back(id);
    if (!missing.empty()) {
      v.status = VerdictStatus::Skipped;
      v.message = (missing.size() == 1 ? "workload '" + missing[0] + "' is"
                                       : "workloads '" + join(missing, "', '") + "' are") +
                  " not in suite '" + suite.name + "'";
      out.push_back(std::move(v));
      continue;
    }

    std::vector<double> values;
    std::string problem;
    VerdictStatus problem_status = VerdictStatus::Pass;
    bool not_steady = false, steady_unknown = false;
    std::string inconclusive, host_limited;
    for (const auto& id : c.workloads) {
      const WorkloadResult* r = find_result(results, id);
      if (r) v.time_s += r->elapsed_s;
      VerdictStatus st;
      std::string why = unusable(r, id, interrupted_run, st);
      if (why.empty()) {
        std::optional<double> m = measure(c.metric, *r, why);
        if (m) {
          values.push_back(*m);
          if (c.steady && !r->steady) steady_unknown = true;
          if (c.steady && r->steady && !*r->steady) not_steady = true;
          if (c.steady_required && inconclusive.empty()) {
            if (!r->steady_state)
              inconclusive = "inconclusive: steady state was not measured (workload '" + id +
                             "' does not run in rounds)";
            else if (!r->steady_state->steady)
              inconclusive = "inconclusive: " + describe(*r->steady_state);
          }
          if (std::string why_host = host_limit_reason(c, *r); !why_host.empty()) {
            if (!host_limited.empty()) host_limited += ", ";
            host_limited += (c.workloads.size() > 1 ? id + ": " : std::string()) + why_host;
          }
          continue;
        }
        st = VerdictStatus::Error;
      }
      // An error outranks a skip: keep the first error, else the first skip.
      if (problem.empty() ||
          (st == VerdictStatus::Error && problem_status != VerdictStatus::Error)) {
        problem = why;
        problem_status = st;
      }
    }
    if (!problem.empty()) {
      v.status = problem_status;
      v.message = problem;
      out.push_back(std::move(v));
      continue;
    }

    double measured = values.front();
    if (c.aggregate == Aggregate::Min)
      measured = *std::min_element(values.begin(), values.end());
    else if (c.aggregate == Aggregate::Max)
      measured = *std::max_element(values.begin(), values.end());
    else if (values.size() > 1) {
      double sum = 0;
      for (double x : values) sum += x;
      measured = sum / static_cast<double>(values.size());
    }
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
      const char* how = c.aggregate == Aggregate::Min   ? "min"
                        : c.aggregate == Aggregate::Max ? "max"
                                                        : "mean";
      agg = " (" + std::string(how) + " of " + std::to_string(c.workloads.size()) + " workloads)";
    }
    v.message = "measured " + subject(c.metric, measured) + agg + ", " + relation +
                " the claimed " + format_metric_value(c.metric.kind, c.value) + " (tolerance " +
                tolerance_text(c.tolerance_pct) + ")";
    // What the measured figure is (docs/reports.md, "Glossary").
    if (const WorkloadResult* r = find_result(results, c.workloads.front()))
      v.figure = (c.workloads.size() > 1
                      ? "aggregate of " + std::to_string(c.workloads.size()) + " workloads, each: "
                      : std::string()) +
                 reporting::metric_definition(c.metric.name, *r);
    if (c.metric.kind == MetricKind::Capacity && c.workloads.size() == 1) {
      // What was found where: samples good, sample interval, where aliasing starts.
      if (const WorkloadResult* r = find_result(results, c.workloads.front()); r && r->capacity)
        v.message += "; " + capacity_summary(*r->capacity);
    }
    if (!inconclusive.empty()) {
      // A claim on a steady-state figure cannot be judged on a device that did not settle.
      v.status = VerdictStatus::Error;
      v.message = inconclusive + "; " + v.message;
    } else {
      if (not_steady) v.message += "; not steady (SNIA PTS rounds gave up)";
      if (steady_unknown) v.message += "; steady state was not measured";
    }
    if (!host_limited.empty()) {
      if (v.status == VerdictStatus::Fail) {
        // Not a device failure: the host could not drive the device to its claim.
        v.status = VerdictStatus::Error;
        v.message = "host-limited: " + host_limited + "; " + v.message;
      } else {
        v.message += "; host-limited: " + host_limited;
      }
    }
    out.push_back(std::move(v));
  }

  std::vector<ClaimVerdict> rest = judge_measured_only(suite, results);
  for (auto& v : rest) {
    bool named = std::any_of(sheet.claims.begin(), sheet.claims.end(), [&](const Claim& c) {
      return std::find(c.workloads.begin(), c.workloads.end(), v.workload) != c.workloads.end();
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
    v.workload = w.id();
    v.metric = "iops";
    v.unit = "IOPS";
    const WorkloadResult* r = find_result(results, w.id());
    VerdictStatus st;
    std::string why = unusable(r, w.id(), interrupted_run, st);
    if (!why.empty()) {
      v.status = st;
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
    std::optional<double> io = measure(iops, *r, ignored);
    if (!io) {
      v.status = VerdictStatus::Error;
      v.message = ignored;
      out.push_back(std::move(v));
      continue;
    }
    v.status = VerdictStatus::MeasuredOnly;
    v.measured = *io;
    std::string text = "measured " + format_metric_value(MetricKind::Iops, *io) + " IOPS";
    if (r->read && r->write)
      text += " (read " + format_metric_value(MetricKind::Iops, r->read->iops) + ", write " +
              format_metric_value(MetricKind::Iops, r->write->iops) + ")";
    if (auto b = measure(bw, *r, ignored))
      text += ", " + format_metric_value(MetricKind::Bandwidth, *b);
    if (auto l = measure(lat, *r, ignored))
      text += ", mean latency " + format_metric_value(MetricKind::Latency, *l);
    if (r->kind == "latency-search") text += ", at iodepth " + std::to_string(r->params.iodepth);
    if (r->sustained) {
      const auto& sw = *r->sustained;
      if (sw.dropped)
        text += ", write cache " + format_bytes_iec(static_cast<double>(sw.cache_bytes)) +
                " then " + format_metric_value(MetricKind::Bandwidth, sw.post_cache_bw);
      else
        text += ", no drop in " + format_bytes_iec(static_cast<double>(sw.bytes_written));
    }
    if (r->steady_state) text += ", " + describe(*r->steady_state);
    if (r->host_limit && r->host_limit->limited)
      text += ", host-limited: " + join(r->host_limit->reasons, ", ");
    v.message = text + "; no claim";
    out.push_back(std::move(v));
  }
  return out;
}

int exit_code_for(const std::vector<ClaimVerdict>& verdicts) {
  bool failed = false;
  for (const auto& v : verdicts) {
    if (v.status == VerdictStatus::Error) return kExitRuntime;
    if (v.status == VerdictStatus::Fail) failed = true;
  }
  return failed ? kExitClaimFailed : kExitPass;
}

}  // namespace storqual::runner
