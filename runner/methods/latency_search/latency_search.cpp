// SPDX-License-Identifier: Apache-2.0
// Latency-bounded IOPS search (see latency_search.hpp).
#include "runner/methods/latency_search/latency_search.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

#include "runner/base/units.hpp"
#include "runner/measure/tail_samples.hpp"

namespace storqual::runner {
namespace {

double side_statistic(const reporting::DirectionResult& d, const LatencySearch& s) {
  const reporting::LatencySummary& l = s.latency == "clat" ? d.clat : d.lat;
  if (l.samples == 0) return -1;
  if (!s.percentile) return l.mean_ns;
  for (const auto& [p, v] : l.percentiles)
    if (p == *s.percentile) return static_cast<double>(v);
  return -1;
}

double total_iops(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->iops : 0) + (r.write ? r.write->iops : 0);
}

}  // namespace

double latency_statistic(const reporting::WorkloadResult& r, const LatencySearch& s) {
  double worst = -1;
  if (r.read) worst = std::max(worst, side_statistic(*r.read, s));
  if (r.write) worst = std::max(worst, side_statistic(*r.write, s));
  return worst;
}

LatencySearchOutcome search_latency_bound(const WorkloadSpec& base, const LatencySearch& search,
                                          const RunWorkload& measure) {
  LatencySearchOutcome out;
  std::map<unsigned, reporting::WorkloadResult> runs;
  bool stopped = false;
  auto step = [&](unsigned depth) -> bool {  // true when within the limit
    WorkloadSpec w = base;
    w.params.iodepth = depth;
    reporting::WorkloadResult r = measure(w);
    double stat = latency_statistic(r, search);
    bool ok = stat >= 0 && stat <= search.limit_ns && r.errors.empty();
    out.curve.push_back({depth, total_iops(r), stat, ok});
    if (!r.errors.empty() || r.interrupted) stopped = true;
    runs.emplace(depth, std::move(r));
    return ok;
  };

  unsigned last_good = 0, first_bad = 0;
  for (unsigned depth = 1;; depth = std::min(depth * 2, search.max_iodepth)) {
    if (step(depth)) {
      last_good = depth;
    } else if (!first_bad) {
      first_bad = depth;
      if (search.bisect) break;  // the sweep goes on: a curve need not be monotone
    }
    if (stopped || depth == search.max_iodepth) break;
  }
  // Bisection: between the last good and the first bad depth, to within an eighth of the depth.
  while (search.bisect && !stopped && last_good && first_bad &&
         first_bad - last_good > std::max(1u, last_good / 8)) {
    unsigned mid = last_good + (first_bad - last_good) / 2;
    if (step(mid))
      last_good = mid;
    else
      first_bad = mid;
  }
  std::sort(out.curve.begin(), out.curve.end(),
            [](const auto& a, const auto& b) { return a.iodepth < b.iodepth; });
  // The answer: the highest IOPS among the depths within the limit.
  unsigned best = 0;
  double best_iops = -1;
  for (const auto& p : out.curve) {
    if (p.within_limit && p.iops > best_iops) {
      best = p.iodepth;
      best_iops = p.iops;
    }
  }
  out.limit_met = best != 0;
  if (!out.limit_met) best = out.curve.empty() ? 1 : out.curve.front().iodepth;
  out.best = runs.at(best);
  auto report = std::make_shared<LatencySearchMethodReport>();
  report->curve = out.curve;
  report->limit_ns = search.limit_ns;
  report->stat = search.label();
  out.best.method = std::move(report);
  if (!out.limit_met && out.best.errors.empty()) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "latency limit %.0f ns (%s) not met at any iodepth 1..%u",
                  search.limit_ns, search.label().c_str(), out.curve.back().iodepth);
    out.best.errors.push_back(msg);
  }
  return out;
}

void LatencySearchMethod::plan(WorkloadSpec& workload) const {
  workload.params.iodepth = std::min(search_.max_iodepth, 32u);
}

reporting::WorkloadResult LatencySearchMethod::run(const WorkloadSpec& w,
                                                   const MethodContext& context) const {
  reporting::WorkloadResult best =
      search_latency_bound(w, search_, [&](const WorkloadSpec& step) {
        WorkloadSpec named = step;
        named.id = w.id + " (iodepth " + std::to_string(step.params.iodepth) + ")";
        return context.measure(named);
      }).best;
  best.id = w.id;
  return best;
}

std::string LatencySearchMethod::fio_equivalent(const WorkloadSpec& spec) const {
  WorkloadSpec deepest = spec;
  deepest.params.iodepth = search_.max_iodepth;
  return fio_command(deepest) + "  # latency search: iodepth 1.." +
         std::to_string(search_.max_iodepth) +
         (search_.bisect ? " then bisected" : ", every power of two") + ", highest IOPS with " +
         search_.label() + " <= " + format_ns(search_.limit_ns);
}

std::string LatencySearchMethod::summary_line(const WorkloadSpec& spec) const {
  return plain_summary_line(spec, "QD1.." + std::to_string(search_.max_iodepth) + " " +
                                      search_.label() + "<=" + format_ns(search_.limit_ns));
}

namespace {

LatencySearch load_search(const XmlFile& file, pugi::xml_node node) {
  LatencySearch s;
  pugi::xml_attribute limit = required_attribute(file, node, "limit");
  try {
    s.limit_ns = parse_duration(limit.value()) * 1e9;
  } catch (const UnitError& e) {
    throw file.error_value(limit, std::string("limit: ") + e.what());
  }
  if (!(s.limit_ns > 0)) throw file.error_value(limit, "limit must be greater than 0");
  if (s.limit_ns > 3600e9) throw file.error_value(limit, "limit is absurd (more than 1 hour)");
  if (pugi::xml_attribute stat = node.attribute("stat")) {
    s.stat = stat.value();
    try {
      s.percentile = parse_percentile_stat(s.stat, "lat." + s.stat);
    } catch (const UnitError& e) {
      throw file.error_value(stat, std::string("stat: ") + e.what());
    }
  }
  if (pugi::xml_attribute max = node.attribute("max_iodepth")) {
    std::string_view v = max.value();
    unsigned n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < 1 || n > kMaxIodepth)
      throw file.error_value(max, "max_iodepth: expected a whole number 1.." +
                                      std::to_string(kMaxIodepth) + ", got '" + std::string(v) +
                                      "'");
    s.max_iodepth = n;
  }
  if (pugi::xml_attribute lat = node.attribute("latency")) {
    s.latency = lat.value();
    if (s.latency != "lat" && s.latency != "clat")
      throw file.error_value(lat,
                             "latency: expected lat (submission to completion) or clat "
                             "(completion only), got '" +
                                 s.latency + "'");
  }
  if (pugi::xml_attribute mode = node.attribute("search")) {
    const std::string v = mode.value();
    if (v != "sweep" && v != "bisect")
      throw file.error_value(mode,
                             "search: expected sweep (every depth 1, 2, 4 .. max_iodepth) "
                             "or bisect, got '" +
                                 v + "'");
    s.bisect = v == "bisect";
  }
  return s;
}

std::shared_ptr<const Method> load_latency_search(const XmlFile& file, pugi::xml_node node,
                                                  WorkloadSpec& spec) {
  apply_workload_attributes(file, node, spec,
                            {"id", "max_iodepth", "limit", "stat", "latency", "search"}, false);
  auto method = std::make_shared<const LatencySearchMethod>(load_search(file, node));
  spec.params.iodepth = 1;
  return method;
}

}  // namespace

MethodEntry latency_search_method_entry() {
  return {"latency-search", true, &load_latency_search, nullptr, &read_latency_search_report};
}

}  // namespace storqual::runner
