// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS tests as suite elements: their attributes, scaling, duration and stimulus, the
// registry's entries and the figures they publish (see pts_tests.hpp).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "model/metric.hpp"
#include "runner/base/units.hpp"
#include "runner/methods/pts/pts_tests.hpp"

namespace storqual::runner {
namespace {

std::vector<unsigned> parse_list(std::string_view name, std::string_view v) {
  std::vector<unsigned> out;
  while (!v.empty()) {
    const auto comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    unsigned n = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (ec != std::errc() || p != item.data() + item.size() || n < 1 || n > 1024)
      throw UnitError(std::string(name) + ": expected a comma-separated list of whole numbers " +
                      "1..1024, got '" + std::string(item) + "'");
    out.push_back(n);
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  if (out.empty()) throw UnitError(std::string(name) + ": expected at least one number");
  return out;
}

double positive_duration(std::string_view name, std::string_view v) {
  double s = 0;
  try {
    s = parse_duration(v);
  } catch (const UnitError& e) {
    throw UnitError(std::string(name) + ": " + e.what());
  }
  if (!(s > 0)) throw UnitError(std::string(name) + " must be greater than 0");
  return s;
}

double positive_number(std::string_view name, std::string_view v, double hi) {
  std::string_view t = v;
  if (t.ends_with("x")) t.remove_suffix(1);
  double f = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
  if (ec != std::errc() || p != t.data() + t.size() || !(f > 0) || f > hi)
    throw UnitError(std::string(name) + ": expected a number above 0 and at most " +
                    std::to_string(static_cast<long>(hi)) + ", got '" + std::string(v) + "'");
  return f;
}

double fraction(std::string_view name, std::string_view v) {
  double pct = 0;
  try {
    pct = parse_percent(v);
  } catch (const UnitError& e) {
    throw UnitError(std::string(name) + ": " + e.what());
  }
  if (!(pct > 0) || pct >= 100)
    throw UnitError(std::string(name) + ": expected a percentage between 0 and 100 (exclusive)");
  return pct / 100;
}

}  // namespace

std::string_view to_string(PtsKind k) noexcept {
  switch (k) {
    case PtsKind::Wsat:
      return "wsat";
    case PtsKind::Hir:
      return "hir";
    case PtsKind::Xsr:
      return "xsr";
    case PtsKind::Dirth:
      return "dirth";
  }
  return "";
}

std::string pts_attribute_names(PtsKind kind) {
  switch (kind) {
    case PtsKind::Wsat:
      return "fills, time_limit, interval, drop";
    case PtsKind::Dirth:
      return "threads, depths, round_time, rounds, ceiling, histogram_time";
    case PtsKind::Xsr:
      return "seq_bs, rnd_bs, seq_time, rnd_time, interval, tolerance";
    case PtsKind::Hir:
      return "burst, waits, cycles, baseline, rounds, round_time";
  }
  return "";
}

bool set_pts_attribute(PtsTest& t, std::string_view name, std::string_view v) {
  switch (t.kind) {
    case PtsKind::Wsat:
      if (name == "fills")
        t.wsat.fills = positive_number(name, v, 1000);
      else if (name == "time_limit")
        t.wsat.time_limit_s = positive_duration(name, v);
      else if (name == "interval")
        t.wsat.interval_s = positive_duration(name, v);
      else if (name == "drop")
        t.wsat.drop_fraction = fraction(name, v);
      else
        return false;
      return true;
    case PtsKind::Dirth:
      if (name == "threads")
        t.dirth.threads = parse_list(name, v);
      else if (name == "depths")
        t.dirth.depths = parse_list(name, v);
      else if (name == "round_time")
        t.dirth.round_time_s = positive_duration(name, v);
      else if (name == "rounds")
        t.dirth.max_rounds = static_cast<unsigned>(positive_number(name, v, 1000));
      else if (name == "ceiling")
        t.dirth.ceiling_ns = positive_duration(name, v) * 1e9;
      else if (name == "histogram_time")
        t.dirth.histogram_time_s = positive_duration(name, v);
      else
        return false;
      if (t.dirth.max_rounds < 5) throw UnitError("rounds: expected at least 5 (the window)");
      return true;
    case PtsKind::Xsr:
      if (name == "seq_bs")
        t.xsr.seq_bs = parse_size(v);
      else if (name == "rnd_bs")
        t.xsr.rnd_bs = parse_size(v);
      else if (name == "seq_time")
        t.xsr.seq_time_s = positive_duration(name, v);
      else if (name == "rnd_time")
        t.xsr.rnd_time_s = positive_duration(name, v);
      else if (name == "interval")
        t.xsr.interval_s = positive_duration(name, v);
      else if (name == "tolerance")
        t.xsr.tolerance = fraction(name, v);
      else
        return false;
      return true;
    case PtsKind::Hir:
      if (name == "burst")
        t.hir.burst_s = positive_duration(name, v);
      else if (name == "waits") {
        t.hir.waits_s.clear();
        for (unsigned s : parse_list(name, v)) t.hir.waits_s.push_back(s);
      } else if (name == "cycles")
        t.hir.cycles = static_cast<unsigned>(positive_number(name, v, 100000));
      else if (name == "baseline")
        t.hir.baseline_s = positive_duration(name, v);
      else if (name == "rounds")
        t.hir.saturation_rounds = static_cast<unsigned>(positive_number(name, v, 1000));
      else if (name == "round_time")
        t.hir.round_time_s = positive_duration(name, v);
      else
        return false;
      if (t.hir.saturation_rounds < 5) throw UnitError("rounds: expected at least 5 (the window)");
      return true;
  }
  return false;
}

PtsTest scale_pts_test(const PtsTest& test, double scale) {
  PtsTest t = test;
  if (scale == 1.0) return t;
  auto at_least = [scale](double v, double floor) { return std::max(floor, v * scale); };
  t.wsat.time_limit_s = at_least(t.wsat.time_limit_s, 0.2);
  t.wsat.interval_s = at_least(t.wsat.interval_s, 0.01);
  t.dirth.round_time_s = at_least(t.dirth.round_time_s, 0.05);
  t.dirth.histogram_time_s = at_least(t.dirth.histogram_time_s, 0.2);
  t.xsr.seq_time_s = at_least(t.xsr.seq_time_s, 0.2);
  t.xsr.rnd_time_s = at_least(t.xsr.rnd_time_s, 0.2);
  t.xsr.interval_s =
      std::min(at_least(t.xsr.interval_s, 0.02), std::min(t.xsr.seq_time_s, t.xsr.rnd_time_s) / 10);
  t.wsat.interval_s = std::min(t.wsat.interval_s, t.wsat.time_limit_s / 10);
  // HIR: bursts and waits keep their ratio; the floor on the burst stretches the waits with it.
  const double burst = at_least(t.hir.burst_s, 0.05);
  const double stretch = burst / t.hir.burst_s;
  t.hir.burst_s = burst;
  for (double& w : t.hir.waits_s) w *= stretch;
  t.hir.cycles = std::max(2u, static_cast<unsigned>(std::lround(t.hir.cycles * scale)));
  t.hir.baseline_s = at_least(t.hir.baseline_s, 0.1);
  t.hir.round_time_s = at_least(t.hir.round_time_s, 0.1);
  return t;
}

double pts_duration_s(const PtsTest& t, const WorkloadSpec& spec) {
  (void)spec;
  switch (t.kind) {
    case PtsKind::Wsat:
      return t.wsat.time_limit_s;
    case PtsKind::Dirth: {
      const double points = static_cast<double>(t.dirth.threads.size() * t.dirth.depths.size());
      return t.dirth.round_time_s * (t.dirth.max_rounds + points) + 3 * t.dirth.histogram_time_s;
    }
    case PtsKind::Xsr:
      return 2 * t.xsr.seq_time_s + t.xsr.rnd_time_s;
    case PtsKind::Hir: {
      double s = t.hir.saturation_rounds * t.hir.round_time_s;
      for (double w : t.hir.waits_s) s += t.hir.cycles * (t.hir.burst_s + w);
      if (!t.hir.waits_s.empty())
        s += static_cast<double>(t.hir.waits_s.size() - 1) * t.hir.baseline_s;
      return s;
    }
  }
  return 0;
}

std::string pts_stimulus(const WorkloadSpec& spec) {
  const auto& p = spec.params;
  RwMode m = parse_rw(p.rw);
  std::string bs = p.bs % 1024 == 0 ? std::to_string(p.bs / 1024) + "KiB"
                                    : (p.bs == 512 ? "0.5KiB" : std::to_string(p.bs) + "B");
  std::string mix;
  if (rw_reads(m) && rw_writes(m))
    mix = "R/W " + std::to_string(p.rwmixread) + ":" + std::to_string(100 - p.rwmixread);
  else
    mix = rw_writes(m) ? "W" : "R";
  return std::string(rw_random(m) ? "RND " : "SEQ ") + bs + " " + mix + " T" +
         std::to_string(p.numjobs) + "Q" + std::to_string(p.iodepth);
}
namespace {

// <wsat|dirth|xsr|hir id=... [own attributes] [workload options]>: the PTS's stimulus as defaults.
PtsTest load_pts(const XmlFile& file, pugi::xml_node node, PtsKind kind, WorkloadSpec& spec) {
  PtsTest t;
  t.kind = kind;
  switch (kind) {  // the PTS's stimulus, before the suite's own attributes
    case PtsKind::Wsat:
    case PtsKind::Hir:
      spec.params.rw = "randwrite";
      spec.params.bs = 4096;
      break;
    case PtsKind::Dirth:
      spec.params.rw = "randrw";
      spec.params.rwmixread = 65;
      spec.params.bs = 8192;
      break;
    case PtsKind::Xsr:
      spec.params.rw = "write";
      break;
  }
  spec.params.ramp_time_s = 0;
  for (pugi::xml_attribute a : node.attributes()) {
    const std::string_view name = a.name();
    if (name == "id") continue;
    try {
      if (set_pts_attribute(t, name, a.value())) continue;
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
    if (!find_workload_option(name) || name == "runtime" || name == "ramp_time")
      throw file.error(a, "unknown attribute '" + std::string(name) + "' on <" + node.name() +
                              "> (expected " + pts_attribute_names(kind) +
                              " or a workload option but runtime and ramp_time: " +
                              workload_option_names(true) + ")");
    try {
      set_workload_option(spec, name, a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
  spec.params.runtime_s = 0;
  return t;
}

template <PtsKind kKind>
std::shared_ptr<const Method> load_pts_element(const XmlFile& file, pugi::xml_node node,
                                               WorkloadSpec& spec) {
  return std::make_shared<const PtsMethod>(load_pts(file, node, kKind, spec));
}

}  // namespace

std::array<MethodEntry, 4> pts_method_entries() {
  auto entry = [](std::string_view element, auto load) {
    return MethodEntry{element, true, load, nullptr, &read_pts_report, &pts_figure_rows};
  };
  return {entry("wsat", &load_pts_element<PtsKind::Wsat>),
          entry("dirth", &load_pts_element<PtsKind::Dirth>),
          entry("xsr", &load_pts_element<PtsKind::Xsr>),
          entry("hir", &load_pts_element<PtsKind::Hir>)};
}

std::span<const reporting::FigureInfo> pts_figure_rows() noexcept {
  using K = reporting::MetricKind;
  using reporting::MetricDirection;
  static constexpr reporting::FigureInfo kRows[] = {
      {"wsat.iops", K::Iops, false, "wsat",
       "WSAT: the saturated level (mean of the steady region)"},
      {"wsat.fob_iops", K::Iops, false, "wsat",
       "WSAT: fresh-out-of-box IOPS (median of the first 5 samples)"},
      {"wsat.drop_pct", K::Percent, true, "wsat",
       "WSAT: how far IOPS fell from FOB to the saturated level"},
      {"wsat.cliff_tgbw", K::Capacity, false, "wsat",
       "WSAT: bytes written when IOPS fell off the cliff"},
      {"dirth.max_iops", K::Iops, false, "dirth",
       "DIRTH: IOPS of the MaxIOPS point (within the ceiling)"},
      {"dirth.max_iops_lat", K::Latency, true, "dirth",
       "DIRTH: average response time at the MaxIOPS point"},
      {"dirth.max_iops_p99999", K::Latency, true, "dirth",
       "DIRTH: 99.999th percentile at the MaxIOPS point"},
      {"dirth.min_iops", K::Iops, false, "dirth", "DIRTH: IOPS of the MinIOPS point (T1Q1)"},
      {"dirth.min_iops_lat", K::Latency, true, "dirth",
       "DIRTH: average response time at the MinIOPS point"},
      {"xsr.seq_bw", K::Bandwidth, false, "xsr",
       "XSR: settled throughput of access group 1 (sequential)"},
      {"xsr.rnd_bw", K::Bandwidth, false, "xsr",
       "XSR: settled throughput of access group 2 (random)"},
      {"xsr.seq2_bw", K::Bandwidth, false, "xsr",
       "XSR: settled throughput of access group 3 (sequential)"},
      {"xsr.recovery_rnd", K::Latency, true, "xsr",
       "XSR: time to settle after the switch to random writes"},
      {"xsr.recovery_seq", K::Latency, true, "xsr",
       "XSR: time to settle after the switch back to sequential"},
      {"hir.baseline_iops", K::Iops, false, "hir", "HIR: IOPS at saturation, before any wait"},
      {"hir.iops_shortest_wait", K::Iops, false, "hir",
       "HIR: burst IOPS with the shortest idle wait"},
      {"hir.iops_longest_wait", K::Iops, false, "hir",
       "HIR: burst IOPS with the longest idle wait"},
      {"hir.gain_pct", K::Percent, false, "hir",
       "HIR: best wait state's burst IOPS over the baseline"},
  };
  return kRows;
}

}  // namespace storqual::runner
