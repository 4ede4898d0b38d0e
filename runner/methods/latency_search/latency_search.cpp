// SPDX-License-Identifier: Apache-2.0
// Latency-bounded IOPS search (see latency_search.hpp).
#include "runner/methods/latency_search/latency_search.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
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

std::vector<std::pair<std::string, std::string>> LatencySearchMethod::element_attributes() const {
  std::vector<std::pair<std::string, std::string>> a = {
      {"max_iodepth", std::to_string(search_.max_iodepth)},
      {"limit", format_duration_fio(search_.limit_ns / 1e9)}};
  if (search_.stat != "mean") a.emplace_back("stat", search_.stat);
  if (search_.latency != "lat") a.emplace_back("latency", search_.latency);
  if (search_.bisect) a.emplace_back("search", "bisect");
  return a;
}

std::vector<std::string> LatencySearchMethod::fio_job_options(WorkloadSpec& spec) const {
  if (!search_.percentile || search_.latency != "lat") return {};
  char pct[32];
  std::snprintf(pct, sizeof pct, "%g", *search_.percentile);
  // fio's one job ramps 1, 2, 4 .. max_iodepth, a window a step: its runtime holds that ramp.
  unsigned steps = 1;
  for (unsigned d = 1; d < search_.max_iodepth; d *= 2) ++steps;
  std::vector<std::string> out = {
      "latency_target=" + std::to_string(std::llround(search_.limit_ns / 1000)),
      "latency_percentile=" + std::string(pct)};
  if (spec.params.runtime_s > 0) {
    out.push_back("latency_window=" + std::to_string(std::llround(spec.params.runtime_s * 1e6)));
    spec.params.runtime_s *= steps;
  }
  spec.params.iodepth = search_.max_iodepth;
  return out;
}

namespace {

// fio's times of the latency options: microseconds without a unit (options.c is_time).
double fio_latency_seconds(const FioMethodOption& o) {
  const bool bare = !o.value.empty() && std::all_of(o.value.begin(), o.value.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
  try {
    return parse_duration(bare ? o.value + "us" : o.value);
  } catch (const UnitError& e) {
    throw FileError(o.location + ": option '" + o.name + "=" + o.value + "': " + e.what());
  }
}

}  // namespace

std::shared_ptr<const Method> latency_search_from_fio(const std::vector<FioMethodOption>& options,
                                                      WorkloadSpec& spec,
                                                      std::vector<std::string>& notes) {
  LatencySearch s;
  s.bisect = true;  // fio doubles the depth while the target holds and bisects on a miss
  s.max_iodepth = spec.params.iodepth;
  double percentile = 100;
  const FioMethodOption* target = nullptr;
  std::string where;
  for (const FioMethodOption& o : options) {
    where = o.location;
    if (o.name == "latency_target") {
      target = &o;
      s.limit_ns = fio_latency_seconds(o) * 1e9;
    } else if (o.name == "latency_window") {
      spec.params.runtime_s = fio_latency_seconds(o);
    } else if (o.name == "latency_percentile") {
      const auto [end, ec] =
          std::from_chars(o.value.data(), o.value.data() + o.value.size(), percentile);
      if (ec != std::errc() || end != o.value.data() + o.value.size() || percentile < 0 ||
          percentile > 100)
        throw FileError(o.location + ": option 'latency_percentile=" + o.value +
                        "': expected a percent 0..100");
    } else if (o.name == "latency_run" && o.value != "0") {
      throw FileError(o.location + ": option 'latency_run=" + o.value +
                      "': fio keeps moving the depth for the whole run; storqual's search ends "
                      "at the best depth");
    }
  }
  if (!target) {
    notes.push_back(where +
                    ": option 'latency_window' or 'latency_percentile' ignored: without "
                    "latency_target fio runs the job at its iodepth");
    return nullptr;
  }
  if (!(s.limit_ns > 0)) throw FileError(target->location + ": option 'latency_target': 0 is off");
  char stat[32];
  std::snprintf(stat, sizeof stat, "p%g", percentile);
  s.stat = stat;
  try {
    s.percentile = parse_percentile_stat(s.stat, "latency_percentile");
  } catch (const UnitError& e) {
    throw FileError(target->location + ": option 'latency_percentile=" + std::string(stat + 1) +
                    "': " + e.what() +
                    (percentile == 100 ? " (fio's default 100: every I/O within the target)" : ""));
  }
  if (spec.params.runtime_s <= 0)
    throw FileError(target->location +
                    ": option 'latency_target' without latency_window: storqual runs each depth "
                    "of its search for a time, the window (fio then checks after every I/O)");
  notes.push_back(
      target->location + ": option 'latency_target' as a <latency-search> (docs/fio-files.md): " +
      "fio's one job starts at iodepth 1, doubles it after each latency_window whose " + stat +
      " of lat is within the target and bisects back on a miss, then runs the depth it settles on "
      "for one more window and reports that; storqual runs iodepth 1, 2, 4 .. " +
      std::to_string(s.max_iodepth) + " a window each, bisects after the first miss, and reports " +
      "the depth with the most IOPS within the target, with every step's figures");
  spec.params.iodepth = 1;
  return std::make_shared<const LatencySearchMethod>(std::move(s));
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

namespace {

constexpr std::string_view kFioLatencyOptions[] = {"latency_target", "latency_window",
                                                   "latency_percentile", "latency_run"};

std::span<const std::string_view> fio_latency_options() noexcept {
  return kFioLatencyOptions;
}

}  // namespace

MethodEntry latency_search_method_entry() {
  return {"latency-search",
          true,
          &load_latency_search,
          nullptr,
          &read_latency_search_report,
          nullptr,
          &fio_latency_options,
          &latency_search_from_fio};
}

}  // namespace storqual::runner
