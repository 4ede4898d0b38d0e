// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS analyses (pts_tests.hpp, "the analyses"): pure functions over measured data, the
// samples of a timeline, WSAT's cliff and steady region, DIRTH's operating points, the
// response-time histogram and XSR's settled level; the runs that measure them are pts_tests.cpp.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "model/metric.hpp"
#include "runner/methods/pts/pts_tests.hpp"
#include "runner/methods/steady_state/steady_state.hpp"

namespace storqual::runner {
namespace {

using reporting::TimelinePoint;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Drops a last sample much shorter than the others (the run ended inside it): its rate is made
// of a handful of I/Os (as runner/methods/sustained_write/sustained_write.hpp does).
std::size_t full_samples(std::span<const PtsSample> s, double t0) {
  std::size_t n = s.size();
  if (n < 3) return n;
  std::vector<double> spans;
  for (std::size_t i = 1; i + 1 < n; ++i) spans.push_back(s[i].t_s - s[i - 1].t_s);
  const double usual = median(spans);
  const double last = s[n - 1].t_s - (n > 1 ? s[n - 2].t_s : t0);
  return last < 0.5 * usual ? n - 1 : n;
}

void add_figure(PtsReport& r, std::string_view name, double value) {
  reporting::add_figure(r.figures, name, value);
}

// The window of the PTS steady-state criteria ending at each sample.
reporting::SteadyStateReport steady_over(std::span<const double> series, unsigned window) {
  SteadyStateConfig c;
  c.window = window;
  c.max_rounds = static_cast<unsigned>(series.size());
  reporting::SteadyStateReport out = evaluate_window(series, c);
  out.rounds.clear();
  for (std::size_t i = 0; i < series.size(); ++i) {
    reporting::SteadyStateRound round;
    round.value = series[i];
    round.steady = i + 1 >= window && evaluate_window(series.subspan(0, i + 1), c).steady;
    out.rounds.push_back(round);
  }
  return out;
}

}  // namespace

std::vector<PtsSample> pts_samples_of(std::span<const TimelinePoint> tl, double t0, double tgbw0,
                                      unsigned segment) {
  std::vector<PtsSample> out;
  double prev = 0, written = tgbw0;
  for (const auto& p : tl) {
    const double dt = std::max(0.0, p.t_s - prev);
    prev = p.t_s;
    written += p.write_bw * dt;
    PtsSample s;
    s.t_s = t0 + p.t_s;
    s.tgbw = written;
    s.iops = p.read_iops + p.write_iops;
    s.bw = p.read_bw + p.write_bw;
    const double n = p.read_iops + p.write_iops;
    s.lat_mean_ns =
        n > 0 ? (p.read_lat_mean_ns * p.read_iops + p.write_lat_mean_ns * p.write_iops) / n : 0;
    s.segment = segment;
    out.push_back(s);
  }
  return out;
}

PtsReport analyze_wsat(std::span<const TimelinePoint> timeline, const WsatConfig& c) {
  PtsReport r;
  r.test = "wsat";
  r.interval_s = c.interval_s;
  r.samples = pts_samples_of(timeline, 0, 0, 0);
  const std::size_t n = full_samples(r.samples, 0);
  if (n == 0) return r;
  std::vector<double> iops;
  for (std::size_t i = 0; i < n; ++i) iops.push_back(r.samples[i].iops);
  const double fob = median(
      std::vector<double>(iops.begin(), iops.begin() + std::min<long>(5, static_cast<long>(n))));
  // The cliff: the same drop analysis as a sustained write's cache, over write bandwidth (IOPS
  // times the block size: a fixed bs makes the two proportional).
  const auto drop = analyze_sustained_write(timeline, c.drop_fraction, 5);
  if (drop.dropped) r.cliff_tgbw = static_cast<double>(drop.cache_bytes);
  // The steady region: the run of steady windows that reaches the last sample.
  const unsigned window = 5;
  r.steady_state = steady_over(iops, window);
  double saturated = 0;
  if (n >= window && r.steady_state->steady) {
    std::size_t first = n - window;
    while (first > 0 && r.steady_state->rounds[first - 1 + window - 1].steady) --first;
    // The region must not start before the cliff: a flat FOB and a flat tail are two levels.
    r.steady_from_s = first ? r.samples[first - 1].t_s : 0;
    r.steady_to_s = r.samples[n - 1].t_s;
    r.steady_from_tgbw = first ? r.samples[first - 1].tgbw : 0;
    r.steady_to_tgbw = r.samples[n - 1].tgbw;
    double sum = 0;
    for (std::size_t i = first; i < n; ++i) sum += iops[i];
    saturated = sum / static_cast<double>(n - first);
  } else {
    const std::size_t from = n > window ? n - window : 0;
    double sum = 0;
    for (std::size_t i = from; i < n; ++i) sum += iops[i];
    saturated = sum / static_cast<double>(n - from);
  }
  add_figure(r, "wsat.iops", saturated);
  add_figure(r, "wsat.fob_iops", fob);
  add_figure(r, "wsat.drop_pct", fob > 0 ? std::max(0.0, (fob - saturated) / fob * 100) : 0);
  if (r.cliff_tgbw >= 0) add_figure(r, "wsat.cliff_tgbw", r.cliff_tgbw);
  return r;
}

DirthChoice choose_dirth_points(std::vector<PtsGridPoint>& grid, double ceiling_ns) {
  DirthChoice c;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    auto& g = grid[i];
    g.within_ceiling = g.lat_mean_ns > 0 && g.lat_mean_ns <= ceiling_ns;
    if (g.within_ceiling && (!c.max_iops || g.iops > grid[*c.max_iops].iops)) c.max_iops = i;
    if (!c.min_iops || g.threads * g.qd < grid[*c.min_iops].threads * grid[*c.min_iops].qd)
      c.min_iops = i;
  }
  if (c.max_iops && c.min_iops) {
    const double half = (grid[*c.max_iops].iops + grid[*c.min_iops].iops) / 2;
    for (std::size_t i = 0; i < grid.size(); ++i) {
      if (!grid[i].within_ceiling || i == *c.max_iops || i == *c.min_iops) continue;
      if (!c.mid_iops || std::abs(grid[i].iops - half) < std::abs(grid[*c.mid_iops].iops - half))
        c.mid_iops = i;
    }
  }
  return c;
}

PtsHistogram bin_histogram(std::span<const reporting::LatencyBucket> b) {
  PtsHistogram h;
  std::uint64_t total = 0, lo = UINT64_MAX, hi = 0;
  for (const auto& x : b) {
    total += x.count;
    lo = std::min(lo, x.low_ns);
    hi = std::max(hi, x.low_ns);
  }
  if (total == 0) return h;
  // 1-2-5 bin edges from the decade below the fastest to above the slowest.
  std::vector<double> edges;
  double decade =
      std::pow(10.0, std::floor(std::log10(std::max<double>(1, static_cast<double>(lo)))));
  while (edges.empty() || edges.back() <= static_cast<double>(hi)) {
    for (double m : {1.0, 2.0, 5.0})
      if (decade * m > static_cast<double>(lo) || edges.empty()) edges.push_back(decade * m);
    decade *= 10;
  }
  for (double e : edges) h.bins.push_back({e, 0});
  for (const auto& x : b) {
    auto it = std::lower_bound(edges.begin(), edges.end(), static_cast<double>(x.low_ns) + 0.5);
    const std::size_t i =
        std::min<std::size_t>(static_cast<std::size_t>(it - edges.begin()), edges.size() - 1);
    h.bins[i].count += x.count;
  }
  // Percentiles from the buckets (the bucket's low value: within 1/64 of the true value).
  auto at = [&](double pct) {
    const double want = std::ceil(pct / 100 * static_cast<double>(total));
    double seen = 0;
    for (const auto& x : b) {
      seen += static_cast<double>(x.count);
      if (seen >= want) return static_cast<double>(x.low_ns);
    }
    return static_cast<double>(hi);
  };
  h.lat_p99_ns = at(99);
  h.lat_p99999_ns = at(99.999);
  return h;
}

void analyze_xsr_group(std::span<const PtsSample> s, double start_s, double tolerance,
                       PtsSegment& g) {
  const std::size_t n = full_samples(s, start_s);
  if (n == 0) return;
  const std::size_t tail = std::max<std::size_t>(3, n / 5);
  std::vector<double> last;
  for (std::size_t i = n > tail ? n - tail : 0; i < n; ++i) last.push_back(s[i].bw);
  g.settled_bw = median(last);
  g.recovery_s = -1;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> three;
    for (std::size_t k = i; k < std::min(n, i + 3); ++k) three.push_back(s[k].bw);
    if (std::abs(median(three) - g.settled_bw) <= tolerance * g.settled_bw &&
        std::abs(s[i].bw - g.settled_bw) <= tolerance * g.settled_bw) {
      g.recovery_s = s[i].t_s - start_s;
      break;
    }
  }
}

const reporting::Figure* pts_figure(const PtsReport& report, std::string_view name) noexcept {
  for (const auto& f : report.figures)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace storqual::runner
