// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS write saturation, demand intensity, cross-stimulus and host idle recovery tests
// (see pts_tests.hpp).
#include "runner/methods/pts/pts_tests.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "model/metric.hpp"
#include "runner/base/units.hpp"
#include "runner/methods/steady_state/steady_state.hpp"

namespace storqual::runner {
namespace {

using reporting::Figure;
using reporting::TimelinePoint;
using reporting::WorkloadResult;

double total_iops(const WorkloadResult& r) {
  return (r.read ? r.read->iops : 0) + (r.write ? r.write->iops : 0);
}

double total_bw(const WorkloadResult& r) {
  return (r.read ? r.read->bw_bytes : 0) + (r.write ? r.write->bw_bytes : 0);
}

double mean_lat(const WorkloadResult& r) {
  double sum = 0, n = 0;
  for (const auto* d : {&r.read, &r.write})
    if (*d && (*d)->lat.samples) {
      sum += (*d)->lat.mean_ns * static_cast<double>((*d)->lat.samples);
      n += static_cast<double>((*d)->lat.samples);
    }
  return n > 0 ? sum / n : 0;
}

double max_lat(const WorkloadResult& r) {
  double m = 0;
  for (const auto* d : {&r.read, &r.write})
    if (*d) m = std::max(m, static_cast<double>((*d)->lat.max_ns));
  return m;
}

void add_figure(PtsReport& r, std::string_view name, double value) {
  reporting::add_figure(r.figures, name, value);
}

WorkloadSpec with(const WorkloadSpec& spec, const std::string& id, const std::string& rw,
                  std::uint64_t bs, unsigned threads, unsigned depth, double runtime_s,
                  double interval_s) {
  WorkloadSpec w = spec;
  w.id = id;
  w.params.rw = rw;
  w.params.bs = bs;
  w.params.numjobs = threads;
  w.params.iodepth = depth;
  w.params.runtime_s = runtime_s;
  w.params.ramp_time_s = 0;
  w.interval_s = interval_s;
  return w;
}

// The WorkloadResult a test returns: `main`'s totals under the test's id, kind "pts-<test>".
WorkloadResult finish(WorkloadResult main, const WorkloadSpec& spec, PtsReport report,
                      double elapsed, std::vector<TimelinePoint> timeline) {
  main.id = spec.id;
  main.elapsed_s = elapsed;
  main.timeline = std::move(timeline);
  main.lat_histogram.clear();
  main.figures = report.figures;  // what claims read (model/metric.hpp figure_table())
  auto method = std::make_shared<PtsMethodReport>();
  method->kind_text = "pts-" + report.test;
  method->pts = std::move(report);
  main.method = std::move(method);
  return main;
}

void append_timeline(std::vector<TimelinePoint>& all, const WorkloadResult& r, double t0) {
  for (auto p : r.timeline) {
    p.t_s += t0;
    all.push_back(p);
  }
}

// run_rounds's measure, naming its rounds "<id> (<what> round N)" instead of "<id> (round N)".
RunWorkload renamed_rounds(const std::string& id, const std::string& what,
                           const RunWorkload& measure) {
  return [id, what, &measure](const WorkloadSpec& r) {
    WorkloadSpec named = r;
    const std::string plain = id + " (round ";
    if (named.id.starts_with(plain))
      named.id = id + " (" + what + " round " + named.id.substr(plain.size());
    return measure(named);
  };
}

bool failed(const WorkloadResult& r) {
  return !r.errors.empty() || r.interrupted;
}

void sleep_unless_stopped(double seconds, const std::atomic<bool>* stop) {
  using namespace std::chrono;
  const auto until =
      steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(seconds));
  while (steady_clock::now() < until) {
    if (stop && stop->load()) return;
    const steady_clock::duration left = until - steady_clock::now();
    std::this_thread::sleep_for(std::min<steady_clock::duration>(left, milliseconds(100)));
  }
}

// ---- WSAT ----
WorkloadResult run_wsat(const WorkloadSpec& spec, const WsatConfig& c, const RunWorkload& measure) {
  WorkloadSpec w = with(spec, spec.id, spec.params.rw, spec.params.bs, spec.params.numjobs,
                        spec.params.iodepth, c.time_limit_s, c.interval_s);
  const double range = static_cast<double>(spec.params.size);
  w.io_limit = static_cast<std::uint64_t>(c.fills * range);
  w.io_limit -= w.io_limit % std::max<std::uint64_t>(1, spec.params.bs);
  WorkloadResult r = measure(w);
  PtsReport report = analyze_wsat(r.timeline, c);
  report.stimulus = pts_stimulus(spec);
  report.range_bytes = spec.params.size;
  const double elapsed = r.elapsed_s;
  auto tl = r.timeline;
  return finish(std::move(r), spec, std::move(report), elapsed, std::move(tl));
}

// ---- DIRTH ----
WorkloadResult run_dirth(const WorkloadSpec& spec, const DirthConfig& c,
                         const RunWorkload& measure) {
  PtsReport report;
  report.test = "dirth";
  report.interval_s = c.round_time_s;
  report.range_bytes = spec.params.size;
  report.ceiling_ns = c.ceiling_ns;
  const unsigned t_max = *std::max_element(c.threads.begin(), c.threads.end());
  const unsigned q_max = *std::max_element(c.depths.begin(), c.depths.end());
  WorkloadSpec tracking = with(spec, spec.id, spec.params.rw, spec.params.bs, t_max, q_max,
                               c.round_time_s, std::max(0.01, c.round_time_s / 4));
  PtsTest as_run;
  as_run.kind = PtsKind::Dirth;
  as_run.dirth = c;
  report.stimulus = describe_pts(as_run, spec) + ", tracking T" + std::to_string(t_max) + "Q" +
                    std::to_string(q_max);
  SteadyStateConfig sc;
  sc.max_rounds = c.max_rounds;
  sc.round_time_s = c.round_time_s;
  double elapsed = 0;
  std::vector<TimelinePoint> timeline;
  WorkloadResult rounds = run_rounds(tracking, sc, renamed_rounds(spec.id, "tracking", measure));
  elapsed += rounds.elapsed_s;
  append_timeline(timeline, rounds, 0);
  if (const auto* ss = steady_state_of(rounds)) report.steady_state = *ss;
  if (failed(rounds)) return finish(std::move(rounds), spec, std::move(report), elapsed, timeline);

  // The grid from the highest total outstanding I/O down, as the PTS runs it.
  std::vector<std::pair<unsigned, unsigned>> order;
  for (unsigned t : c.threads)
    for (unsigned q : c.depths) order.emplace_back(t, q);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first * a.second > b.first * b.second;
  });
  WorkloadResult last = rounds;
  for (auto [t, q] : order) {
    WorkloadSpec point = with(
        spec, spec.id + " (T" + std::to_string(t) + "Q" + std::to_string(q) + ")", spec.params.rw,
        spec.params.bs, t, q, c.round_time_s, std::max(0.01, c.round_time_s / 4));
    WorkloadResult r = measure(point);
    elapsed += r.elapsed_s;
    if (failed(r)) return finish(std::move(r), spec, std::move(report), elapsed, timeline);
    PtsGridPoint g;
    g.threads = t;
    g.qd = q;
    g.iops = total_iops(r);
    g.lat_mean_ns = mean_lat(r);
    g.lat_max_ns = max_lat(r);
    report.grid.push_back(g);
    last = std::move(r);
  }
  const DirthChoice choice = choose_dirth_points(report.grid, c.ceiling_ns);
  struct Chosen {
    const char* label;
    std::optional<std::size_t> index;
  };
  WorkloadResult main = last;
  for (const Chosen& k : {Chosen{"MaxIOPS", choice.max_iops}, Chosen{"MidIOPS", choice.mid_iops},
                          Chosen{"MinIOPS", choice.min_iops}}) {
    if (!k.index) continue;
    const auto& g = report.grid[*k.index];
    bool seen = false;
    for (const auto& h : report.histograms)
      if (h.threads == g.threads && h.qd == g.qd) seen = true;
    if (seen) continue;  // a small grid: two labels on one point
    WorkloadSpec point = with(spec,
                              spec.id + " (" + k.label + " T" + std::to_string(g.threads) + "Q" +
                                  std::to_string(g.qd) + " histogram)",
                              spec.params.rw, spec.params.bs, g.threads, g.qd, c.histogram_time_s,
                              std::max(0.01, c.histogram_time_s / 4));
    point.keep_lat_histogram = true;
    WorkloadResult r = measure(point);
    elapsed += r.elapsed_s;
    if (failed(r)) return finish(std::move(r), spec, std::move(report), elapsed, timeline);
    PtsHistogram h = bin_histogram(r.lat_histogram);
    h.label = k.label;
    h.threads = g.threads;
    h.qd = g.qd;
    h.iops = total_iops(r);
    h.lat_mean_ns = mean_lat(r);
    h.lat_max_ns = max_lat(r);
    report.histograms.push_back(std::move(h));
    if (std::string_view(k.label) == "MaxIOPS") main = std::move(r);
  }
  if (choice.max_iops) {
    const auto& g = report.grid[*choice.max_iops];
    add_figure(report, "dirth.max_iops", g.iops);
    add_figure(report, "dirth.max_iops_lat", g.lat_mean_ns);
    for (const auto& h : report.histograms)
      if (h.label == "MaxIOPS") add_figure(report, "dirth.max_iops_p99999", h.lat_p99999_ns);
  }
  if (choice.min_iops) {
    const auto& g = report.grid[*choice.min_iops];
    add_figure(report, "dirth.min_iops", g.iops);
    add_figure(report, "dirth.min_iops_lat", g.lat_mean_ns);
  }
  return finish(std::move(main), spec, std::move(report), elapsed, timeline);
}

// ---- XSR ----
WorkloadResult run_xsr(const WorkloadSpec& spec, const XsrConfig& c, const RunWorkload& measure) {
  PtsReport report;
  report.test = "xsr";
  report.interval_s = c.interval_s;
  report.range_bytes = spec.params.size;
  struct Group {
    const char* rw;
    std::uint64_t bs;
    unsigned threads;
    double time_s;
  };
  const std::array<Group, 3> groups = {
      Group{"write", c.seq_bs, 1, c.seq_time_s},
      Group{"randwrite", c.rnd_bs, spec.params.numjobs, c.rnd_time_s},
      Group{"write", c.seq_bs, 1, c.seq_time_s}};
  double elapsed = 0, written = 0;
  std::vector<TimelinePoint> timeline;
  WorkloadResult main;
  std::string stimulus;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    WorkloadSpec w = with(spec, spec.id + " (access group " + std::to_string(i + 1) + ")", g.rw,
                          g.bs, g.threads, spec.params.iodepth, g.time_s, c.interval_s);
    PtsSegment seg;
    seg.label = pts_stimulus(w);
    seg.rw = g.rw;
    seg.bs = g.bs;
    seg.start_s = elapsed;
    stimulus += (stimulus.empty() ? "" : ", then ") + seg.label;
    WorkloadResult r = measure(w);
    auto s = pts_samples_of(r.timeline, elapsed, written, static_cast<unsigned>(i));
    report.samples.insert(report.samples.end(), s.begin(), s.end());
    append_timeline(timeline, r, elapsed);
    elapsed += r.elapsed_s;
    if (!s.empty()) written = s.back().tgbw;
    seg.end_s = elapsed;
    seg.mean_iops = total_iops(r);
    seg.mean_bw = total_bw(r);
    seg.mean_lat_ns = mean_lat(r);
    analyze_xsr_group(s, seg.start_s, c.tolerance, seg);
    report.segments.push_back(seg);
    main = std::move(r);
    if (failed(main)) break;
  }
  report.stimulus = stimulus;
  const auto& segs = report.segments;
  if (segs.size() >= 1) add_figure(report, "xsr.seq_bw", segs[0].settled_bw);
  if (segs.size() >= 2) {
    add_figure(report, "xsr.rnd_bw", segs[1].settled_bw);
    if (segs[1].recovery_s >= 0) add_figure(report, "xsr.recovery_rnd", segs[1].recovery_s * 1e9);
  }
  if (segs.size() >= 3) {
    add_figure(report, "xsr.seq2_bw", segs[2].settled_bw);
    if (segs[2].recovery_s >= 0) add_figure(report, "xsr.recovery_seq", segs[2].recovery_s * 1e9);
  }
  return finish(std::move(main), spec, std::move(report), elapsed, timeline);
}

// ---- HIR ----
WorkloadResult run_hir(const WorkloadSpec& spec, const HirConfig& c, const RunWorkload& measure,
                       const std::atomic<bool>* stop, const IdleFunction& idle) {
  PtsReport report;
  report.test = "hir";
  report.range_bytes = spec.params.size;
  report.stimulus = pts_stimulus(spec);
  double clock_s = 0;  // measured time plus the idle waits
  auto now_s = [&] { return clock_s; };
  WorkloadSpec sat = with(spec, spec.id, spec.params.rw, spec.params.bs, spec.params.numjobs,
                          spec.params.iodepth, c.round_time_s, std::max(0.01, c.round_time_s / 4));
  SteadyStateConfig sc;
  sc.max_rounds = c.saturation_rounds;
  sc.round_time_s = c.round_time_s;
  WorkloadResult rounds = run_rounds(sat, sc, renamed_rounds(spec.id, "saturation", measure));
  if (const auto* ss = steady_state_of(rounds)) report.steady_state = *ss;
  std::vector<TimelinePoint> timeline;
  append_timeline(timeline, rounds, 0);
  double measured = rounds.elapsed_s;
  clock_s = measured;
  if (failed(rounds)) return finish(std::move(rounds), spec, std::move(report), measured, timeline);
  const auto* saturated = steady_state_of(rounds);
  const double baseline = saturated ? saturated->mean : total_iops(rounds);
  report.interval_s = c.burst_s;
  WorkloadResult main = rounds;
  for (std::size_t state = 0; state < c.waits_s.size(); ++state) {
    PtsSegment seg;
    seg.wait_s = c.waits_s[state];
    char label[64];
    std::snprintf(label, sizeof label, "wait %s", format_duration_fio(seg.wait_s).c_str());
    seg.label = label;
    seg.rw = spec.params.rw;
    seg.bs = spec.params.bs;
    seg.start_s = now_s();
    std::vector<double> bursts;
    for (unsigned k = 0; k < c.cycles && !(stop && stop->load()); ++k) {
      WorkloadSpec b =
          with(spec, spec.id + " (" + seg.label + ", burst " + std::to_string(k + 1) + ")",
               spec.params.rw, spec.params.bs, spec.params.numjobs, spec.params.iodepth, c.burst_s,
               c.burst_s);
      WorkloadResult r = measure(b);
      measured += r.elapsed_s;
      clock_s += r.elapsed_s;
      if (failed(r)) return finish(std::move(r), spec, std::move(report), measured, timeline);
      PtsSample s;
      s.t_s = now_s();
      s.iops = total_iops(r);
      s.bw = total_bw(r);
      s.lat_mean_ns = mean_lat(r);
      s.segment = static_cast<unsigned>(state);
      report.samples.push_back(s);
      bursts.push_back(s.iops);
      ++seg.bursts;
      if (idle)
        idle(seg.wait_s);
      else
        sleep_unless_stopped(seg.wait_s, stop);
      clock_s += seg.wait_s;
    }
    seg.end_s = now_s();
    double sum = 0;
    for (double v : bursts) sum += v;
    seg.mean_iops = bursts.empty() ? 0 : sum / static_cast<double>(bursts.size());
    // The first burst follows the continuous writes before the state, not a wait of its own.
    seg.settled_iops = bursts.size() > 1
                           ? (sum - bursts.front()) / static_cast<double>(bursts.size() - 1)
                           : seg.mean_iops;
    report.segments.push_back(seg);
    if (stop && stop->load()) break;
    if (state + 1 < c.waits_s.size() && c.baseline_s > 0) {  // return to baseline
      WorkloadSpec b =
          with(spec, spec.id + " (return to baseline " + std::to_string(state + 1) + ")",
               spec.params.rw, spec.params.bs, spec.params.numjobs, spec.params.iodepth,
               c.baseline_s, std::max(0.01, c.baseline_s / 4));
      WorkloadResult r = measure(b);
      measured += r.elapsed_s;
      clock_s += r.elapsed_s;
      if (failed(r)) return finish(std::move(r), spec, std::move(report), measured, timeline);
      main = std::move(r);
    }
  }
  add_figure(report, "hir.baseline_iops", baseline);
  if (!report.segments.empty()) {
    add_figure(report, "hir.iops_shortest_wait", report.segments.front().settled_iops);
    add_figure(report, "hir.iops_longest_wait", report.segments.back().settled_iops);
    double best = 0;
    for (const auto& s : report.segments) best = std::max(best, s.settled_iops);
    if (baseline > 0) add_figure(report, "hir.gain_pct", (best - baseline) / baseline * 100);
  }
  return finish(std::move(main), spec, std::move(report), now_s(), timeline);
}

}  // namespace

std::string describe_pts(const PtsTest& t, const WorkloadSpec& spec) {
  switch (t.kind) {
    case PtsKind::Wsat:
    case PtsKind::Hir:
      return pts_stimulus(spec);
    case PtsKind::Dirth: {
      std::string s = pts_stimulus(spec);
      s = s.substr(0, s.rfind(" T"));
      auto range = [](const std::vector<unsigned>& v) {
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
      };
      return s + ", T" + range(t.dirth.threads) + " x Q" + range(t.dirth.depths);
    }
    case PtsKind::Xsr: {
      const std::string seq =
          pts_stimulus(with(spec, spec.id, "write", t.xsr.seq_bs, 1, spec.params.iodepth, 0, 1));
      return seq + ", " +
             pts_stimulus(with(spec, spec.id, "randwrite", t.xsr.rnd_bs, spec.params.numjobs,
                               spec.params.iodepth, 0, 1)) +
             ", " + seq;
    }
  }
  return "";
}

WorkloadResult run_pts_test(const WorkloadSpec& spec, const PtsTest& test,
                            const RunWorkload& measure, const std::atomic<bool>* stop,
                            const IdleFunction& idle) {
  switch (test.kind) {
    case PtsKind::Wsat:
      return run_wsat(spec, test.wsat, measure);
    case PtsKind::Dirth:
      return run_dirth(spec, test.dirth, measure);
    case PtsKind::Xsr:
      return run_xsr(spec, test.xsr, measure);
    case PtsKind::Hir:
      return run_hir(spec, test.hir, measure, stop, idle);
  }
  return {};
}

}  // namespace storqual::runner
