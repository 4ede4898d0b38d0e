// SPDX-License-Identifier: Apache-2.0
// Sustained writes and the cache-size analysis (see sustained_write.hpp).
#include "runner/methods/sustained_write/sustained_write.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "model/metric.hpp"
#include "runner/base/units.hpp"

namespace storqual::runner {

SustainedWriteReport analyze_sustained_write(std::span<const reporting::TimelinePoint> tl,
                                             double drop_fraction, unsigned initial_intervals) {
  SustainedWriteReport r;
  r.drop_fraction = drop_fraction;
  if (tl.empty()) return r;
  std::vector<double> dt(tl.size());
  double total = 0;
  for (std::size_t i = 0; i < tl.size(); ++i) {
    dt[i] = std::max(0.0, tl[i].t_s - (i ? tl[i - 1].t_s : 0.0));
    total += tl[i].write_bw * dt[i];
  }
  r.bytes_written = static_cast<std::uint64_t>(std::llround(total));
  // A last interval much shorter than the others (the run ended inside it) has a rate made of a
  // handful of I/Os: it counts for bytes, not for levels.
  std::size_t n = tl.size();
  if (n > 2) {
    std::vector<double> spans(dt.begin(), dt.end() - 1);
    std::nth_element(spans.begin(), spans.begin() + static_cast<long>(spans.size() / 2),
                     spans.end());
    if (dt[n - 1] < 0.5 * spans[spans.size() / 2]) --n;
  }
  auto median_bw = [&](std::size_t from, std::size_t count) {
    std::vector<double> v;
    for (std::size_t i = from; i < std::min(n, from + count); ++i) v.push_back(tl[i].write_bw);
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  r.initial_bw = median_bw(0, std::max(1u, initial_intervals));
  const double threshold = r.initial_bw * drop_fraction;
  std::size_t drop = tl.size();
  for (std::size_t i = 0; i < n; ++i)
    if (tl[i].write_bw < threshold && median_bw(i, 3) < threshold) {
      drop = i;
      break;
    }
  if (drop == tl.size()) {  // never dropped: the cache (if any) is larger than what was written
    r.dropped = false;
    r.cache_bytes = r.bytes_written;
    r.cache_time_s = tl.back().t_s;
    r.post_cache_bw = tl.back().t_s > 0 ? total / tl.back().t_s : 0;
    return r;
  }
  r.dropped = true;
  double before = 0;
  for (std::size_t i = 0; i < drop; ++i) before += tl[i].write_bw * dt[i];
  double after_bytes = 0, after_time = 0;
  for (std::size_t i = drop + 1; i < n; ++i) {
    after_bytes += tl[i].write_bw * dt[i];
    after_time += dt[i];
  }
  r.post_cache_bw = after_time > 0 ? after_bytes / after_time : tl[drop].write_bw;
  const double fast = r.initial_bw, slow = r.post_cache_bw, span = dt[drop];
  const double bytes = tl[drop].write_bw * span;
  double x = fast > slow ? (bytes - slow * span) / (fast - slow) : 0;
  x = std::clamp(x, 0.0, span);
  r.cache_bytes = static_cast<std::uint64_t>(std::llround(before + fast * x));
  r.cache_time_s = (drop ? tl[drop - 1].t_s : 0.0) + x;
  return r;
}

reporting::WorkloadResult run_sustained_write(const WorkloadSpec& spec, const SustainedWrite& how,
                                              const RunWorkload& measure) {
  std::vector<WorkloadSpec> passes;
  WorkloadSpec pass = spec;
  pass.params.rw = "write";
  if (how.volume_factor > 0) {
    pass.params.runtime_s = 0;
    pass.params.ramp_time_s = 0;
    const std::uint64_t range = spec.params.size;
    double whole = std::floor(how.volume_factor + 1e-9);
    for (double i = 0; i < whole; ++i) passes.push_back(pass);
    std::uint64_t rest =
        static_cast<std::uint64_t>((how.volume_factor - whole) * static_cast<double>(range));
    rest -= rest % std::max<std::uint64_t>(1, spec.params.bs);
    if (rest >= spec.params.bs) {
      pass.params.size = rest;
      passes.push_back(pass);
    }
  } else {
    passes.push_back(pass);
  }

  reporting::WorkloadResult out;
  std::vector<reporting::TimelinePoint> timeline;
  double elapsed = 0;
  std::uint64_t ios = 0, bytes = 0, longest = 0;
  bool first = true;
  for (const auto& p : passes) {
    reporting::WorkloadResult r = measure(p);
    for (auto pt : r.timeline) {
      pt.t_s += elapsed;
      timeline.push_back(pt);
    }
    elapsed += r.elapsed_s;
    if (r.write) {
      ios += r.write->ios;
      bytes += r.write->bytes;
      if (first || r.write->ios >= longest) {
        longest = r.write->ios;
        std::uint64_t keep_ios = ios, keep_bytes = bytes;
        out = r;
        ios = keep_ios;
        bytes = keep_bytes;
      }
    } else if (first) {
      out = r;
    }
    first = false;
    if (!r.errors.empty() || r.interrupted) {
      out.errors = r.errors;
      out.interrupted = r.interrupted;
      break;
    }
  }
  out.id = spec.id;
  out.params = pass.params;
  out.params.size = spec.params.size;
  out.elapsed_s = elapsed;
  if (out.write && elapsed > 0) {
    out.write->ios = ios;
    out.write->bytes = bytes;
    out.write->iops = static_cast<double>(ios) / elapsed;
    out.write->bw_bytes = static_cast<double>(bytes) / elapsed;
  }
  out.timeline = std::move(timeline);
  auto report = std::make_shared<SustainedWriteMethodReport>();
  report->sustained =
      analyze_sustained_write(out.timeline, how.drop_fraction, how.initial_intervals);
  reporting::add_figure(out.figures, "sustained.bw", report->sustained->post_cache_bw);
  reporting::add_figure(out.figures, "sustained.initial_bw", report->sustained->initial_bw);
  out.method = std::move(report);
  return out;
}

namespace {

SustainedWrite load_sustained(const XmlFile& file, pugi::xml_node node, WorkloadSpec& spec) {
  SustainedWrite s;
  if (pugi::xml_attribute rw = node.attribute("rw"); rw && std::string_view(rw.value()) != "write")
    throw file.error_value(rw, "a sustained write is sequential writes (rw=write), got '" +
                                   std::string(rw.value()) + "'");
  spec.params.rw = "write";
  pugi::xml_attribute volume = node.attribute("volume");
  if (volume) {
    std::string_view v = volume.value();
    if (v.ends_with("x")) v.remove_suffix(1);
    double f = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), f);
    if (ec != std::errc() || p != v.data() + v.size() || !(f > 0) || f > 1000)
      throw file.error_value(volume,
                             "volume: expected a multiple of size such as 2x (0 < x <= "
                             "1000), got '" +
                                 std::string(volume.value()) + "'");
    s.volume_factor = f;
    spec.params.runtime_s = 0;
  } else if (!node.attribute("runtime")) {
    s.volume_factor = 2;  // SNIA's write saturation covers the range at least twice
    spec.params.runtime_s = 0;
  }
  if (pugi::xml_attribute drop = node.attribute("drop")) {
    double pct = 0;
    try {
      pct = parse_percent(drop.value());
    } catch (const UnitError& e) {
      throw file.error_value(drop, std::string("drop: ") + e.what());
    }
    if (!(pct > 0) || pct >= 100)
      throw file.error_value(drop, "drop: expected a percentage between 0 and 100 (exclusive)");
    s.drop_fraction = pct / 100;
  }
  spec.params.ramp_time_s = 0;  // the first second is the cache: it must be counted
  return s;
}

std::shared_ptr<const Method> load_sustained_write(const XmlFile& file, pugi::xml_node node,
                                                   WorkloadSpec& spec) {
  apply_workload_attributes(file, node, spec, {"id", "volume", "drop"}, true);
  return std::make_shared<const SustainedWriteMethod>(load_sustained(file, node, spec));
}

}  // namespace

MethodEntry sustained_write_method_entry() {
  return {"sustained-write",
          true,
          &load_sustained_write,
          nullptr,
          &read_sustained_write_report,
          &sustained_write_figure_rows};
}

std::span<const reporting::FigureInfo> sustained_write_figure_rows() noexcept {
  using K = reporting::MetricKind;
  using reporting::MetricDirection;
  static constexpr reporting::FigureInfo kRows[] = {
      {"sustained.bw", K::Bandwidth, false, "sustained-write",
       "write bandwidth after the cache (mean after the drop), sum over {jobs}",
       MetricDirection::Write},
      {"sustained.initial_bw", K::Bandwidth, false, "sustained-write",
       "write bandwidth before any drop (median of the first intervals: the burst rate), sum over "
       "{jobs}",
       MetricDirection::Write},
  };
  return kRows;
}

}  // namespace storqual::runner
