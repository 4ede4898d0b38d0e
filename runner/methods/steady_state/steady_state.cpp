// SPDX-License-Identifier: Apache-2.0
// Steady-state detection and rounds (see steady_state.hpp).
#include "runner/methods/steady_state/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/metric.hpp"
#include "runner/base/units.hpp"

namespace storqual::runner {

double tracked_value(const reporting::WorkloadResult& r, const std::string& metric) {
  double total = 0;
  if (metric == "bw") {
    if (r.read) total += r.read->bw_bytes;
    if (r.write) total += r.write->bw_bytes;
    return total;
  }
  if (metric == "lat.mean") {
    double n = 0;
    for (const auto* d : {r.read ? &*r.read : nullptr, r.write ? &*r.write : nullptr}) {
      if (!d || d->lat.samples == 0) continue;
      total += d->lat.mean_ns * static_cast<double>(d->lat.samples);
      n += static_cast<double>(d->lat.samples);
    }
    return n > 0 ? total / n : 0;
  }
  if (r.read) total += r.read->iops;
  if (r.write) total += r.write->iops;
  return total;
}

reporting::WorkloadResult run_rounds(const WorkloadSpec& spec, const SteadyStateConfig& config,
                                     const RunWorkload& measure) {
  WorkloadSpec round_spec = spec;
  if (config.round_time_s > 0) round_spec.params.runtime_s = config.round_time_s;
  std::vector<double> series;
  std::vector<reporting::SteadyStateRound> rounds;
  std::vector<reporting::TimelinePoint> timeline;
  double elapsed = 0;
  reporting::WorkloadResult last;
  reporting::SteadyStateReport report;
  const unsigned bound = std::max(1u, config.max_rounds);
  for (unsigned round = 1; round <= bound; ++round) {
    WorkloadSpec named = round_spec;
    named.id = spec.id + " (round " + std::to_string(round) + ")";
    last = measure(named);
    for (auto p : last.timeline) {
      p.t_s += elapsed;
      timeline.push_back(p);
    }
    elapsed += last.elapsed_s;
    if (!last.errors.empty() || last.interrupted) break;  // a broken round says nothing
    series.push_back(tracked_value(last, config.metric));
    report = evaluate_window(series, config);
    rounds.push_back({series.back(), last.elapsed_s, report.steady});
    if (report.steady) break;
  }
  if (series.empty()) report = evaluate_window(series, config);
  report.rounds = std::move(rounds);
  report.round_time_s = round_spec.params.runtime_s;
  last.id = spec.id;
  last.timeline = std::move(timeline);
  last.elapsed_s = elapsed;
  auto method = std::make_shared<SteadyStateRoundsReport>();
  method->steady_flag = report.steady;
  method->rounds = std::move(report);
  last.method = std::move(method);
  return last;
}

std::string describe(const reporting::SteadyStateReport& r) {
  using reporting::MetricKind;
  MetricKind kind = r.metric == "bw"         ? MetricKind::Bandwidth
                    : r.metric == "lat.mean" ? MetricKind::Latency
                                             : MetricKind::Iops;
  std::string mean =
      reporting::format_metric_value(kind, r.mean) + (kind == MetricKind::Iops ? " IOPS" : "");
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s after %zu round%s (window mean %s, range %.1f%% of mean, slope %.1f%% of "
                "mean)",
                r.steady ? "steady" : "not steady", r.rounds.size(),
                r.rounds.size() == 1 ? "" : "s", mean.c_str(), r.range_pct, r.slope_pct);
  return buf;
}

reporting::WorkloadResult SteadyStateRounds::run(const WorkloadSpec& w,
                                                 const MethodContext& context) const {
  SteadyStateConfig config = config_;
  WorkloadSpec rounds = w;
  if (config.round_time_s > 0) {
    config.round_time_s = std::max(0.2, config.round_time_s * context.runtime_scale);
    if (rounds.interval_s > config.round_time_s / 4)
      rounds.interval_s = std::max(0.01, config.round_time_s / 10);
  }
  return run_rounds(rounds, config, context.measure);
}

namespace {

// <workload rounds round_time steady_metric>: empty when none of them is given.
std::optional<SteadyStateConfig> load_rounds(const XmlFile& file, pugi::xml_node node) {
  pugi::xml_attribute rounds = node.attribute("rounds");
  pugi::xml_attribute round_time = node.attribute("round_time");
  pugi::xml_attribute metric = node.attribute("steady_metric");
  if (!rounds && !round_time && !metric) return std::nullopt;
  SteadyStateConfig c;
  if (rounds) c.max_rounds = parse_count_attribute(file, rounds, 5, 1000);
  if (round_time) {
    try {
      c.round_time_s = parse_duration(round_time.value());
    } catch (const UnitError& e) {
      throw file.error_value(round_time, std::string("round_time: ") + e.what());
    }
    if (!(c.round_time_s > 0))
      throw file.error_value(round_time, "round_time must be greater than 0");
  }
  if (metric) {
    std::string_view m = metric.value();
    if (m != "iops" && m != "bw" && m != "lat.mean")
      throw file.error_value(
          metric, "steady_metric: expected iops, bw or lat.mean, got '" + std::string(m) + "'");
    c.metric = std::string(m);
  }
  return c;
}

std::shared_ptr<const Method> load_workload(const XmlFile& file, pugi::xml_node node,
                                            WorkloadSpec& spec) {
  apply_workload_attributes(file, node, spec, {"id", "rounds", "round_time", "steady_metric"},
                            true);
  if (auto config = load_rounds(file, node))
    return std::make_shared<const SteadyStateRounds>(std::move(*config));
  return plain_method();
}

std::shared_ptr<const Method> workload_in_rounds(const std::shared_ptr<const Method>& method) {
  if (dynamic_cast<const SteadyStateRounds*>(method.get())) return method;
  return std::make_shared<const SteadyStateRounds>(SteadyStateConfig{});
}

}  // namespace

MethodEntry workload_method_entry() {
  return {"workload", true, &load_workload, &workload_in_rounds, &read_steady_state_report};
}

}  // namespace storqual::runner
