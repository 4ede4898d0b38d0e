// SPDX-License-Identifier: Apache-2.0
// JSON writer and a defensive reader that names the JSON path of every problem.
#include "reporting/result_json.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;
using Percentiles = std::vector<std::pair<double, std::uint64_t>>;

constexpr int kMaxDepth = 64;

// A member's key, and whether the reader refuses a file without it.
struct Key {
  Key(const char* key_name, bool is_required = false) : name(key_name), required(is_required) {}
  const char* name;
  bool required;
};
constexpr bool kRequired = true;

// ---- the keys of each plain struct, in output order ----
//
// One list per struct serves both directions: `visit(key, member)` for every member, with the
// struct const when writing and mutable when reading. How a member is written and read follows
// from its type (value_json and read_value below): doubles that are not finite become null,
// vectors become arrays, structs with a key list become objects, and std::optional members are
// omitted when empty (null reads back as empty).

template <class T, class Plain>
concept Either = std::same_as<std::remove_const_t<T>, Plain>;

void visit_fields(Either<Environment> auto& e, auto&& visit) {
  visit("host", e.host);
  visit("kernel", e.kernel);
  visit("cpu_model", e.cpu_model);
  visit("cpus", e.cpus);
  visit("storqual_version", e.storqual_version);
  visit("command_line", e.command_line);
  visit("start_utc", e.start_utc);
  visit("end_utc", e.end_utc);
  visit("wall_time_s", e.wall_time_s);
}

void visit_fields(Either<FieldRow> auto& r, auto&& visit) {
  visit({"field", kRequired}, r.field);
  visit("value", r.value);
  visit("source", r.source);
}

void visit_fields(Either<DeviceReport> auto& d, auto&& visit) {
  visit("name", d.name);
  visit("path", d.path);
  visit("identity", d.identity);
  visit("health_before", d.health_before);
  visit("health_after", d.health_after);
  visit("health_changes", d.health_changes);
  visit("wear", d.wear);
}

void visit_fields(Either<SpecReport> auto& s, auto&& visit) {
  visit("name", s.name);
  visit("vendor", s.vendor);
  visit("source", s.source);
  visit("path", s.path);
  visit("sha256", s.sha256);
  visit("suite", s.suite);
  visit("suite_path", s.suite_path);
  visit("suite_sha256", s.suite_sha256);
}

void visit_fields(Either<Deviation> auto& d, auto&& visit) {
  visit({"kind", kRequired}, d.kind);
  visit("text", d.text);
  visit("workloads", d.workloads);
}

void visit_fields(Either<WorkloadParams> auto& p, auto&& visit) {
  visit("rw", p.rw);
  visit("bs", p.bs);
  visit("iodepth", p.iodepth);
  visit("numjobs", p.numjobs);
  visit("runtime_s", p.runtime_s);
  visit("ramp_time_s", p.ramp_time_s);
  visit("size", p.size);
  visit("offset", p.offset);
  visit("rwmixread", p.rwmixread);
  visit("ioengine", p.ioengine);
  visit("direct", p.direct);
  visit("randommap", p.randommap);
  visit("target", p.target);
}

void visit_fields(Either<LatencySummary> auto& s, auto&& visit) {
  visit("min", s.min_ns);
  visit("max", s.max_ns);
  visit("mean", s.mean_ns);
  visit("stdev", s.stdev_ns);
  visit("samples", s.samples);
  visit("percentiles", s.percentiles);
}

void visit_fields(Either<DirectionResult> auto& d, auto&& visit) {
  visit("ios", d.ios);
  visit("bytes", d.bytes);
  visit("iops", d.iops);
  visit("bw_bytes", d.bw_bytes);
  visit("errors", d.errors);
  visit("first_errno", d.first_errno);
  visit("first_error_offset", d.first_error_offset);
  visit("short_ios", d.short_ios);
  visit("eagain_retries", d.eagain_retries);
  visit("slat_ns", d.slat);
  visit("clat_ns", d.clat);
  visit("lat_ns", d.lat);
}

void visit_fields(Either<CpuUsage> auto& c, auto&& visit) {
  visit("usr_pct", c.usr_pct);
  visit("sys_pct", c.sys_pct);
  visit("max_thread_pct", c.max_thread_pct);
  visit("spin_pct", c.spin_pct);
}

void visit_fields(Either<TimelinePoint> auto& t, auto&& visit) {
  visit("t_s", t.t_s);
  visit("read_iops", t.read_iops);
  visit("write_iops", t.write_iops);
  visit("read_bw", t.read_bw);
  visit("write_bw", t.write_bw);
  visit("read_lat_mean_ns", t.read_lat_mean_ns);
  visit("write_lat_mean_ns", t.write_lat_mean_ns);
}

void visit_fields(Either<LatencyCurvePoint> auto& c, auto&& visit) {
  visit("iodepth", c.iodepth);
  visit("iops", c.iops);
  visit("latency_ns", c.latency_ns);
  visit("within_limit", c.within_limit);
}

void visit_fields(Either<SteadyStateRound> auto& r, auto&& visit) {
  visit("value", r.value);
  visit("elapsed_s", r.elapsed_s);
  visit("steady", r.steady);
}

void visit_fields(Either<SteadyStateReport> auto& s, auto&& visit) {
  visit("metric", s.metric);
  visit("rounds", s.rounds);
  visit("max_rounds", s.max_rounds);
  visit("window", s.window);
  visit("round_time_s", s.round_time_s);
  visit("window_first", s.window_first);
  visit("window_last", s.window_last);
  visit("mean", s.mean);
  visit("range", s.range);
  visit("slope", s.slope);
  visit("range_pct", s.range_pct);
  visit("slope_pct", s.slope_pct);
  visit("range_limit_pct", s.range_limit_pct);
  visit("slope_limit_pct", s.slope_limit_pct);
  visit("steady", s.steady);
}

void visit_fields(Either<SustainedWriteReport> auto& s, auto&& visit) {
  visit("bytes_written", s.bytes_written);
  visit("initial_bw", s.initial_bw);
  visit("drop_fraction", s.drop_fraction);
  visit("dropped", s.dropped);
  visit("cache_bytes", s.cache_bytes);
  visit("cache_time_s", s.cache_time_s);
  visit("post_cache_bw", s.post_cache_bw);
  visit("drop_cause", s.drop_cause);
}

void visit_fields(Either<ThermalSample> auto& s, auto&& visit) {
  visit("t_s", s.t_s);
  visit("temperature_c", s.temperature_c);
  visit("tmt1_transitions", s.tmt1_transitions);
  visit("tmt2_transitions", s.tmt2_transitions);
  visit("tmt1_seconds", s.tmt1_seconds);
  visit("tmt2_seconds", s.tmt2_seconds);
}

void visit_fields(Either<ThrottleInterval> auto& t, auto&& visit) {
  visit("start_s", t.start_s);
  visit("end_s", t.end_s);
  visit("level", t.level);
  visit("seconds", t.seconds);
}

void visit_fields(Either<WearReport> auto& w, auto&& visit) {
  visit("host_written_bytes", w.host_written_bytes);
  visit("media_written_bytes", w.media_written_bytes);
  visit("waf", w.waf);
  visit("percentage_used_before", w.percentage_used_before);
  visit("percentage_used_after", w.percentage_used_after);
  visit("projected_write_bytes", w.projected_write_bytes);
  visit("dwpd", w.dwpd);
  visit("warranty_years", w.warranty_years);
  visit("basis", w.basis);
}

void visit_fields(Either<HostLimitReport> auto& h, auto&& visit) {
  visit("limited", h.limited);
  visit("reasons", h.reasons);
  visit("max_thread_cpu_pct", h.max_thread_cpu_pct);
  visit("engine_ceiling_iops", h.engine_ceiling_iops);
  visit("link_speed", h.link_speed);
  visit("link_width", h.link_width);
  visit("max_link_speed", h.max_link_speed);
  visit("max_link_width", h.max_link_width);
  visit("link_bw_bytes", h.link_bw_bytes);
}

void visit_fields(Either<HostBusyReport> auto& h, auto&& visit) {
  visit("busy", h.busy);
  visit("reasons", h.reasons);
  visit("other_user_cpus", h.other_user_cpus);
  visit("other_runnable", h.other_runnable);
  visit("cpu_pressure_pct", h.cpu_pressure_pct);
  visit("steal_pct", h.steal_pct);
  visit("cpus", h.cpus);
  visit("samples", h.samples);
}

void visit_fields(Either<EarlyStopReport> auto& e, auto&& visit) {
  visit("rule", e.rule);
  visit("metric", e.metric);
  visit("stopped_early", e.stopped_early);
  visit("reason", e.reason);
  visit("target_pct", e.target_pct);
  visit("confidence_pct", e.confidence_pct);
  visit("mean", e.mean);
  visit("half_width", e.half_width);
  visit("half_width_pct", e.half_width_pct);
  visit("lag1", e.lag1);
  visit("n_eff", e.n_eff);
  visit("samples", e.samples);
  visit("sample_s", e.sample_s);
  visit("stopped_at_s", e.stopped_at_s);
  visit("min_time_s", e.min_time_s);
  visit("cover", e.cover);
  visit("region_passes", e.region_passes);
}

void visit_fields(Either<IntegrityFinding> auto& f, auto&& visit) {
  visit("kind", f.kind);
  visit("offset", f.offset);
  visit("found_offset", f.found_offset);
  visit("expected_sequence", f.expected_sequence);
  visit("found_sequence", f.found_sequence);
}

void visit_fields(Either<IntegrityReport> auto& i, auto&& visit) {
  visit("algorithm", i.algorithm);
  visit("run_id", i.run_id);
  visit("blocks_written", i.blocks_written);
  visit("verified_inline", i.verified_inline);
  visit("verified_at_end", i.verified_at_end);
  visit("corrupted", i.corrupted);
  visit("misplaced", i.misplaced);
  visit("stale", i.stale);
  visit("foreign", i.foreign);
  visit("read_errors", i.read_errors);
  visit("bad_inline", i.bad_inline);
  visit("tracking_bytes", i.tracking_bytes);
  visit("findings", i.findings);
}

void visit_fields(Either<IoDepthDistribution> auto& d, auto&& visit) {
  visit("submitted", d.submitted);
}

void visit_fields(Either<DiskStats> auto& d, auto&& visit) {
  visit("name", d.name);
  visit("read_ios", d.read_ios);
  visit("write_ios", d.write_ios);
  visit("read_merges", d.read_merges);
  visit("write_merges", d.write_merges);
  visit("read_ticks_ms", d.read_ticks_ms);
  visit("write_ticks_ms", d.write_ticks_ms);
  visit("in_queue_ms", d.in_queue_ms);
  visit("io_ticks_ms", d.io_ticks_ms);
  visit("util_pct", d.util_pct);
}

void visit_fields(Either<CapacityReport> auto& c, auto&& visit) {
  visit("reported_bytes", c.reported_bytes);
  visit("usable_bytes", c.usable_bytes);
  visit("sample_interval", c.sample_interval);
  visit("samples", c.samples);
  visit("samples_good", c.samples_good);
  visit("block_size", c.block_size);
  visit("corrupted", c.corrupted);
  visit("misplaced", c.misplaced);
  visit("stale", c.stale);
  visit("foreign", c.foreign);
  visit("read_errors", c.read_errors);
  visit("findings", c.findings);
  visit("aliasing_start", c.aliasing_start);
  visit("aliased_to", c.aliased_to);
}

void visit_fields(Either<PtsSample> auto& p, auto&& visit) {
  visit("t_s", p.t_s);
  visit("tgbw", p.tgbw);
  visit("iops", p.iops);
  visit("bw", p.bw);
  visit("lat_mean_ns", p.lat_mean_ns);
  visit("segment", p.segment);
}

void visit_fields(Either<Figure> auto& f, auto&& visit) {
  visit({"name", kRequired}, f.name);
  visit("value", f.value);
  visit("unit", f.unit);
}

void visit_fields(Either<PtsSegment> auto& g, auto&& visit) {
  visit("label", g.label);
  visit("rw", g.rw);
  visit("bs", g.bs);
  visit("start_s", g.start_s);
  visit("end_s", g.end_s);
  visit("wait_s", g.wait_s);
  visit("bursts", g.bursts);
  visit("mean_iops", g.mean_iops);
  visit("mean_bw", g.mean_bw);
  visit("mean_lat_ns", g.mean_lat_ns);
  visit("settled_bw", g.settled_bw);
  visit("recovery_s", g.recovery_s);
  visit("settled_iops", g.settled_iops);
}

void visit_fields(Either<PtsGridPoint> auto& g, auto&& visit) {
  visit("threads", g.threads);
  visit("qd", g.qd);
  visit("iops", g.iops);
  visit("lat_mean_ns", g.lat_mean_ns);
  visit("lat_max_ns", g.lat_max_ns);
  visit("within_ceiling", g.within_ceiling);
}

void visit_fields(Either<PtsBin> auto& b, auto&& visit) {
  visit("upper_ns", b.upper_ns);
  visit("count", b.count);
}

void visit_fields(Either<PtsHistogram> auto& h, auto&& visit) {
  visit("label", h.label);
  visit("threads", h.threads);
  visit("qd", h.qd);
  visit("iops", h.iops);
  visit("lat_mean_ns", h.lat_mean_ns);
  visit("lat_p99_ns", h.lat_p99_ns);
  visit("lat_p99999_ns", h.lat_p99999_ns);
  visit("lat_max_ns", h.lat_max_ns);
  visit("bins", h.bins);
}

void visit_fields(Either<PtsReport> auto& r, auto&& visit) {
  visit({"test", kRequired}, r.test);
  visit("stimulus", r.stimulus);
  visit("interval_s", r.interval_s);
  visit("range_bytes", r.range_bytes);
  visit("full_scale_s", r.full_scale_s);
  visit("samples", r.samples);
  visit("steady_state", r.steady_state);
  visit("steady_from_s", r.steady_from_s);
  visit("steady_to_s", r.steady_to_s);
  visit("steady_from_tgbw", r.steady_from_tgbw);
  visit("steady_to_tgbw", r.steady_to_tgbw);
  visit("cliff_tgbw", r.cliff_tgbw);
  visit("segments", r.segments);
  visit("grid", r.grid);
  visit("ceiling_ns", r.ceiling_ns);
  visit("histograms", r.histograms);
  visit("figures", r.figures);
}

// A visitor that does nothing, to ask whether a type has a key list.
struct IgnoreMembers {
  template <class M>
  void operator()(Key, M&) const {}
};

template <class T>
concept HasKeyList = requires(T& t) {
  visit_fields(t, IgnoreMembers{});
};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// ---- writing ----

Json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

std::string percentile_key(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

Json workload_json(const WorkloadResult& w);
Json verdict_json(const ClaimVerdict& v);
template <class T>
void put(Json& j, const char* key, const T& member);

template <class T>
Json value_json(const T& v) {
  if constexpr (std::is_same_v<T, double>) {
    return number(v);
  } else if constexpr (std::is_same_v<T, Percentiles>) {
    Json p = Json::object();
    for (const auto& [pct, ns] : v) p[percentile_key(pct)] = ns;
    return p;
  } else if constexpr (IsVector<T>::value) {
    Json a = Json::array();
    for (const auto& item : v) a.push_back(value_json(item));
    return a;
  } else if constexpr (std::is_same_v<T, WorkloadResult>) {
    return workload_json(v);
  } else if constexpr (std::is_same_v<T, ClaimVerdict>) {
    return verdict_json(v);
  } else if constexpr (HasKeyList<T>) {
    Json j = Json::object();
    visit_fields(v, [&j](Key key, const auto& member) { put(j, key.name, member); });
    return j;
  } else {
    static_assert(std::is_same_v<T, std::string> || std::is_integral_v<T>, "no JSON form");
    return v;
  }
}

// `j[key] = value_json(member)`, or nothing for an empty std::optional.
template <class T>
void put(Json& j, const char* key, const T& member) {
  if constexpr (IsOptional<T>::value) {
    if (member) j[key] = value_json(*member);
  } else {
    j[key] = value_json(member);
  }
}

Json workload_json(const WorkloadResult& w) {
  Json j;
  put(j, "id", w.id);
  put(j, "kind", w.kind);
  put(j, "params", w.params);
  put(j, "read", w.read);
  put(j, "write", w.write);
  put(j, "cpu", w.cpu);
  put(j, "elapsed_s", w.elapsed_s);
  put(j, "timeline", w.timeline);
  put(j, "errors", w.errors);
  put(j, "interrupted", w.interrupted);
  put(j, "fio_command", w.fio_command);
  put(j, "steady", w.steady);
  put(j, "steady_state", w.steady_state);
  // A latency search writes its three keys together; other workloads none of them.
  if (!w.latency_curve.empty() || w.latency_limit_ns != 0 || !w.latency_stat.empty()) {
    put(j, "latency_curve", w.latency_curve);
    put(j, "latency_limit_ns", w.latency_limit_ns);
    put(j, "latency_stat", w.latency_stat);
  }
  put(j, "sustained", w.sustained);
  put(j, "host_limit", w.host_limit);
  if (!w.preconditioning.empty()) put(j, "preconditioning", w.preconditioning);
  put(j, "skipped", w.skipped);
  put(j, "integrity", w.integrity);
  put(j, "capacity", w.capacity);
  put(j, "host_busy", w.host_busy);
  put(j, "early_stop", w.early_stop);
  if (!w.thermal.empty()) put(j, "thermal", w.thermal);
  if (!w.throttled.empty()) put(j, "throttled", w.throttled);
  if (!w.io_depths.submitted.empty()) put(j, "io_depths", w.io_depths);
  put(j, "disk_stats", w.disk_stats);
  put(j, "pts", w.pts);
  return j;
}

Json verdict_json(const ClaimVerdict& v) {
  Json j;
  put(j, "workload", workload_text(v));
  put(j, "metric", v.metric);
  j["status"] = std::string(to_string(v.status));
  put(j, "measured", v.measured);
  put(j, "claimed", v.claimed);
  put(j, "unit", v.unit);
  if (!v.aggregate.empty()) put(j, "aggregate", v.aggregate);
  put(j, "tolerance_pct", v.tolerance_pct);
  put(j, "diff_pct", v.diff_pct);
  put(j, "message", v.message);
  if (!v.figure.empty()) put(j, "figure", v.figure);
  put(j, "time_s", v.time_s);
  // Claims carry no kind (baseline, lot and health verdicts do), so plain results keep their old
  // shape.
  if (v.kind != VerdictKind::Claim) put(j, "kind", std::string(to_string(v.kind)));
  if (!v.file.empty()) put(j, "file", v.file);
  if (v.line > 0) put(j, "line", v.line);
  put(j, "higher_is_better", v.higher_is_better);
  return j;
}

// ---- reading ----

// A JSON value and how it was reached, for error messages. The path is spelled out only for an
// error ("workloads[1].read.ios"): building it for every value made reading a third slower. A
// Node refers to its parent, so it must not outlive it.
class Node {
 public:
  explicit Node(const Json& j) : j_(j) {}  // the top level
  Node(const Json& j, const Node& parent, std::string_view key)
      : j_(j), parent_(&parent), key_(key) {}
  Node(const Json& j, const Node& parent, std::size_t index)
      : j_(j), parent_(&parent), index_(index) {}

  [[noreturn]] void fail(const std::string& expected) const {
    const std::string where = path();
    throw ResultJsonError((where.empty() ? std::string("(top level)") : where) + ": expected " +
                          expected + ", got " + j_.type_name());
  }
  const Json& json() const { return j_; }
  std::string path() const {
    if (parent_ == nullptr) return {};
    std::string out = parent_->path();
    if (key_.data() == nullptr) return out + "[" + std::to_string(index_) + "]";
    return out.empty() ? std::string(key_) : out + "." + std::string(key_);
  }

  const Node object() const {
    if (!j_.is_object()) fail("an object");
    return *this;
  }
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  Node at(const char* key) const {
    object();
    auto it = j_.find(key);
    if (it == j_.end()) throw ResultJsonError(Node(j_, *this, key).path() + ": missing (required)");
    return Node(*it, *this, key);
  }
  std::vector<Node> array() const {
    if (!j_.is_array()) fail("an array");
    std::vector<Node> out;
    out.reserve(j_.size());
    for (std::size_t i = 0; i < j_.size(); ++i) out.emplace_back(j_[i], *this, i);
    return out;
  }
  std::string string() const {
    if (!j_.is_string()) fail("a string");
    return j_.get<std::string>();
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("true or false");
    return j_.get<bool>();
  }
  double real() const {
    if (j_.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!j_.is_number()) fail("a number");
    return j_.get<double>();
  }
  std::uint64_t unsigned64() const {
    if (j_.is_number_unsigned()) return j_.get<std::uint64_t>();
    if (j_.is_number_integer()) {
      if (j_.get<std::int64_t>() < 0) fail("a non-negative integer (negative number)");
      return static_cast<std::uint64_t>(j_.get<std::int64_t>());
    }
    if (j_.is_number_float()) {
      const double d = j_.get<double>();
      if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d))
        return static_cast<std::uint64_t>(d);
      fail("a non-negative integer (a fraction or out of range)");
    }
    fail("a non-negative integer");
  }
  unsigned unsigned32() const {
    const auto v = unsigned64();
    if (v > std::numeric_limits<unsigned>::max()) fail("an integer below 2^32");
    return static_cast<unsigned>(v);
  }
  int integer() const {
    if (j_.is_number_integer() || j_.is_number_unsigned()) {
      if (j_.is_number_unsigned() && j_.get<std::uint64_t>() > 0x7fffffffULL)
        fail("an integer in the int range");
      const auto v = j_.get<std::int64_t>();
      if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        fail("an integer in the int range");
      return static_cast<int>(v);
    }
    fail("an integer");
  }

  // The member `key` into `out` (read_value below): absent keeps the default, and so does null
  // for a std::optional. A required key that is absent is an error.
  template <class T>
  void get(Key key, T& out) const;

 private:
  const Json& j_;
  const Node* parent_ = nullptr;
  std::string_view key_;   // a member: its key (null for an array element)
  std::size_t index_ = 0;  // an array element: its index
};

WorkloadResult read_workload(const Node& n);
ClaimVerdict read_verdict(const Node& n);

template <class T>
void read_value(const Node& n, T& out) {
  if constexpr (std::is_same_v<T, double>) {
    out = n.real();
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = n.string();
  } else if constexpr (std::is_same_v<T, bool>) {
    out = n.boolean();
  } else if constexpr (std::is_same_v<T, int>) {
    out = n.integer();
  } else if constexpr (std::is_same_v<T, unsigned>) {
    out = n.unsigned32();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    out = n.unsigned64();
  } else if constexpr (std::is_same_v<T, Percentiles>) {
    const Node p = n.object();
    out.clear();
    for (const auto& [key, value] : p.json().items()) {
      char* end = nullptr;
      const double pct = std::strtod(key.c_str(), &end);
      if (key.empty() || end != key.c_str() + key.size() || !(pct >= 0 && pct <= 100))
        throw ResultJsonError(Node(value, p, key).path() +
                              ": a percentile key must be a number 0..100");
      out.emplace_back(pct, Node(value, p, key).unsigned64());
    }
    std::sort(out.begin(), out.end());
  } else if constexpr (IsVector<T>::value) {
    out.clear();
    for (const auto& item : n.array()) read_value(item, out.emplace_back());
  } else if constexpr (std::is_same_v<T, WorkloadResult>) {
    out = read_workload(n);
  } else if constexpr (std::is_same_v<T, ClaimVerdict>) {
    out = read_verdict(n);
  } else {
    static_assert(HasKeyList<T>, "no JSON form");
    n.object();
    visit_fields(out, [&n](Key key, auto& member) { n.get(key, member); });
  }
}

template <class T>
void Node::get(Key key, T& out) const {
  if (!key.required && !has(key.name)) return;
  const Node member = at(key.name);
  if constexpr (IsOptional<T>::value) {
    if (member.json().is_null()) return;
    read_value(member, out.emplace());
  } else {
    read_value(member, out);
  }
}

WorkloadResult read_workload(const Node& n) {
  n.object();
  WorkloadResult w;
  n.get({"id", kRequired}, w.id);
  n.get("kind", w.kind);
  n.get("params", w.params);
  n.get("read", w.read);
  n.get("write", w.write);
  n.get("cpu", w.cpu);
  n.get("elapsed_s", w.elapsed_s);
  n.get("timeline", w.timeline);
  n.get("errors", w.errors);
  n.get("interrupted", w.interrupted);
  n.get("fio_command", w.fio_command);
  n.get("steady", w.steady);
  n.get("steady_state", w.steady_state);
  n.get("latency_curve", w.latency_curve);
  n.get("latency_limit_ns", w.latency_limit_ns);
  n.get("latency_stat", w.latency_stat);
  n.get("sustained", w.sustained);
  n.get("host_limit", w.host_limit);
  n.get("preconditioning", w.preconditioning);
  n.get("skipped", w.skipped);
  n.get("integrity", w.integrity);
  n.get("capacity", w.capacity);
  n.get("host_busy", w.host_busy);
  n.get("early_stop", w.early_stop);
  if (n.has("thermal")) n.get("thermal", w.thermal);
  if (n.has("throttled")) n.get("throttled", w.throttled);
  n.get("io_depths", w.io_depths);
  n.get("disk_stats", w.disk_stats);
  n.get("pts", w.pts);
  if (w.pts) w.figures = w.pts->figures;
  return w;
}

ClaimVerdict read_verdict(const Node& n) {
  n.object();
  ClaimVerdict v;
  std::string workloads;
  n.get({"workload", kRequired}, workloads);
  v.workloads = split_ids(workloads);
  n.get({"metric", kRequired}, v.metric);
  const Node status = n.at("status");
  const auto parsed = verdict_status_from_string(status.string());
  if (!parsed)
    throw ResultJsonError(
        status.path() +
        ": expected one of pass, fail, error, skipped, measured-only, inconclusive");
  v.status = *parsed;
  n.get("measured", v.measured);
  n.get("claimed", v.claimed);
  n.get("unit", v.unit);
  n.get("aggregate", v.aggregate);
  n.get("tolerance_pct", v.tolerance_pct);
  n.get("diff_pct", v.diff_pct);
  n.get("message", v.message);
  n.get("figure", v.figure);
  n.get("time_s", v.time_s);
  if (n.has("kind")) {
    const Node kind = n.at("kind");
    const auto k = verdict_kind_from_string(kind.string());
    if (!k) throw ResultJsonError(kind.path() + ": expected one of claim, baseline, lot, health");
    v.kind = *k;
  }
  // The file does not say why an error is one; its message does ("workload 'x' was
  // interrupted", "interrupted" among a workload's errors), as JUnit has always read it.
  if (v.status == VerdictStatus::Error && v.message.find("interrupted") != std::string::npos)
    v.error_cause = ErrorCause::Interrupted;
  n.get("file", v.file);
  n.get("line", v.line);
  n.get("higher_is_better", v.higher_is_better);
  return v;
}

// nlohmann's own DOM builder, refusing nesting deeper than kMaxDepth before it costs stack. (Its
// callback parser could check the depth too, but is a third slower, and the fuzz target of this
// reader spends most of its time parsing.)
class DepthLimitedDomBuilder : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  explicit DepthLimitedDomBuilder(Json& result) : json_sax_dom_parser(result, true) {}
  bool start_object(std::size_t elements) {
    enter();
    return json_sax_dom_parser::start_object(elements);
  }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool start_array(std::size_t elements) {
    enter();
    return json_sax_dom_parser::start_array(elements);
  }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }

 private:
  void enter() {
    if (++depth_ > kMaxDepth)
      throw ResultJsonError("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  int depth_ = 0;
};

}  // namespace

Json to_json(const RunResult& r) {
  Json j;
  put(j, "storqual_version", r.environment.storqual_version);
  put(j, "environment", r.environment);
  put(j, "device", r.device);
  put(j, "spec", r.spec);
  put(j, "workloads", r.workloads);
  put(j, "verdicts", r.verdicts);
  put(j, "deviations", r.deviations);
  put(j, "measure_only", r.measure_only);
  put(j, "strict", r.strict);
  put(j, "exit_code", r.exit_code);
  return j;
}

std::string to_json_text(const RunResult& result) {
  // Replace invalid UTF-8 from devices instead of throwing halfway through a report.
  return to_json(result).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunResult run_result_from_json_value(const Json& json) {
  const Node top(json);
  top.object();
  RunResult r;
  top.get("environment", r.environment);
  // Older files carry the version only at the top.
  if (r.environment.storqual_version.empty())
    top.get("storqual_version", r.environment.storqual_version);
  top.get("device", r.device);
  top.get("spec", r.spec);
  top.get({"workloads", kRequired}, r.workloads);
  top.get({"verdicts", kRequired}, r.verdicts);
  top.get("deviations", r.deviations);  // absent in files before deviations were recorded
  top.get("measure_only", r.measure_only);
  top.get("strict", r.strict);
  top.get("exit_code", r.exit_code);
  return r;
}

RunResult run_result_from_json(std::string_view text) {
  Json json;
  try {
    DepthLimitedDomBuilder builder(json);
    (void)Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    throw ResultJsonError(std::string("not valid JSON: ") + e.what());
  }
  return run_result_from_json_value(json);
}

RunResult load_run_result(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultJsonError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  try {
    return run_result_from_json(std::string_view(content));
  } catch (const ResultJsonError& e) {
    throw ResultJsonError(path + ": " + e.what());
  }
}

}  // namespace storqual::reporting
