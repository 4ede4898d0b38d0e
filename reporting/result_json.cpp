// SPDX-License-Identifier: Apache-2.0
// JSON writer and a defensive reader that names the JSON path of every problem.
#include "reporting/result_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxDepth = 64;

Json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

std::string percentile_key(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

Json latency_json(const LatencySummary& s) {
  Json j;
  j["min"] = s.min_ns;
  j["max"] = s.max_ns;
  j["mean"] = number(s.mean_ns);
  j["stdev"] = number(s.stdev_ns);
  j["samples"] = s.samples;
  Json p = Json::object();
  for (const auto& [pct, ns] : s.percentiles) p[percentile_key(pct)] = ns;
  j["percentiles"] = std::move(p);
  return j;
}

Json direction_json(const DirectionResult& d) {
  Json j;
  j["ios"] = d.ios;
  j["bytes"] = d.bytes;
  j["iops"] = number(d.iops);
  j["bw_bytes"] = number(d.bw_bytes);
  j["errors"] = d.errors;
  j["first_errno"] = d.first_errno;
  j["first_error_offset"] = d.first_error_offset;
  j["short_ios"] = d.short_ios;
  j["slat_ns"] = latency_json(d.slat);
  j["clat_ns"] = latency_json(d.clat);
  j["lat_ns"] = latency_json(d.lat);
  return j;
}

Json rows_json(const std::vector<FieldRow>& rows) {
  Json a = Json::array();
  for (const auto& r : rows)
    a.push_back({{"field", r.field}, {"value", r.value}, {"source", r.source}});
  return a;
}

Json workload_json(const WorkloadResult& w) {
  Json j;
  j["id"] = w.id;
  j["kind"] = w.kind;
  const auto& p = w.params;
  j["params"] = {{"rw", p.rw},
                 {"bs", p.bs},
                 {"iodepth", p.iodepth},
                 {"numjobs", p.numjobs},
                 {"runtime_s", number(p.runtime_s)},
                 {"ramp_time_s", number(p.ramp_time_s)},
                 {"size", p.size},
                 {"offset", p.offset},
                 {"rwmixread", p.rwmixread},
                 {"ioengine", p.ioengine},
                 {"direct", p.direct},
                 {"target", p.target}};
  if (w.read) j["read"] = direction_json(*w.read);
  if (w.write) j["write"] = direction_json(*w.write);
  j["cpu"] = {{"usr_pct", number(w.cpu.usr_pct)},
              {"sys_pct", number(w.cpu.sys_pct)},
              {"max_thread_pct", number(w.cpu.max_thread_pct)},
              {"spin_pct", number(w.cpu.spin_pct)}};
  j["elapsed_s"] = number(w.elapsed_s);
  Json timeline = Json::array();
  for (const auto& t : w.timeline)
    timeline.push_back({{"t_s", number(t.t_s)},
                        {"read_iops", number(t.read_iops)},
                        {"write_iops", number(t.write_iops)},
                        {"read_bw", number(t.read_bw)},
                        {"write_bw", number(t.write_bw)},
                        {"read_lat_mean_ns", number(t.read_lat_mean_ns)},
                        {"write_lat_mean_ns", number(t.write_lat_mean_ns)}});
  j["timeline"] = std::move(timeline);
  j["errors"] = w.errors;
  j["interrupted"] = w.interrupted;
  j["fio_command"] = w.fio_command;
  if (w.steady) j["steady"] = *w.steady;
  if (!w.latency_curve.empty() || w.latency_limit_ns != 0 || !w.latency_stat.empty()) {
    Json curve = Json::array();
    for (const auto& c : w.latency_curve)
      curve.push_back({{"iodepth", c.iodepth},
                       {"iops", number(c.iops)},
                       {"latency_ns", number(c.latency_ns)},
                       {"within_limit", c.within_limit}});
    j["latency_curve"] = std::move(curve);
    j["latency_limit_ns"] = number(w.latency_limit_ns);
    j["latency_stat"] = w.latency_stat;
  }
  // Data verification and the capacity check (runner/verify.hpp, runner/capacity_check.hpp).
  auto findings_json = [](const std::vector<IntegrityFinding>& findings) {
    Json a = Json::array();
    for (const auto& f : findings)
      a.push_back({{"kind", f.kind},
                   {"offset", f.offset},
                   {"found_offset", f.found_offset},
                   {"expected_sequence", f.expected_sequence},
                   {"found_sequence", f.found_sequence}});
    return a;
  };
  if (w.integrity) {
    const auto& i = *w.integrity;
    j["integrity"] = {{"algorithm", i.algorithm},
                      {"run_id", i.run_id},
                      {"blocks_written", i.blocks_written},
                      {"verified_inline", i.verified_inline},
                      {"verified_at_end", i.verified_at_end},
                      {"corrupted", i.corrupted},
                      {"misplaced", i.misplaced},
                      {"stale", i.stale},
                      {"foreign", i.foreign},
                      {"read_errors", i.read_errors},
                      {"bad_inline", i.bad_inline},
                      {"tracking_bytes", i.tracking_bytes},
                      {"findings", findings_json(i.findings)}};
  }
  if (w.capacity) {
    const auto& c = *w.capacity;
    Json cj = {{"reported_bytes", c.reported_bytes},
               {"usable_bytes", c.usable_bytes},
               {"sample_interval", c.sample_interval},
               {"samples", c.samples},
               {"samples_good", c.samples_good},
               {"block_size", c.block_size},
               {"corrupted", c.corrupted},
               {"misplaced", c.misplaced},
               {"stale", c.stale},
               {"foreign", c.foreign},
               {"read_errors", c.read_errors},
               {"findings", findings_json(c.findings)}};
    if (c.aliasing_start) cj["aliasing_start"] = *c.aliasing_start;
    if (c.aliased_to) cj["aliased_to"] = *c.aliased_to;
    j["capacity"] = std::move(cj);
  }
  return j;
}

Json verdict_json(const ClaimVerdict& v) {
  Json j;
  j["workload"] = v.workload;
  j["metric"] = v.metric;
  j["status"] = std::string(to_string(v.status));
  if (v.measured) j["measured"] = number(*v.measured);
  if (v.claimed) j["claimed"] = number(*v.claimed);
  j["unit"] = v.unit;
  j["tolerance_pct"] = number(v.tolerance_pct);
  if (v.diff_pct) j["diff_pct"] = number(*v.diff_pct);
  j["message"] = v.message;
  j["time_s"] = number(v.time_s);
  // Only baseline and lot verdicts carry a kind, so plain results keep their old shape.
  if (!v.kind.empty() && v.kind != "claim") j["kind"] = v.kind;
  return j;
}

// ---- reading ----

// A JSON value with the path that led to it, for error messages.
class Node {
 public:
  Node(const Json& j, std::string path) : j_(j), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& expected) const {
    throw ResultJsonError((path_.empty() ? std::string("(top level)") : path_) + ": expected " +
                          expected + ", got " + j_.type_name());
  }
  const Json& json() const { return j_; }
  const std::string& path() const { return path_; }

  const Node object() const {
    if (!j_.is_object()) fail("an object");
    return *this;
  }
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  Node at(const char* key) const {
    object();
    auto it = j_.find(key);
    if (it == j_.end())
      throw ResultJsonError((path_.empty() ? std::string() : path_ + ".") + key +
                            ": missing (required)");
    return Node(*it, child_path(key));
  }
  std::string child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  std::vector<Node> array() const {
    if (!j_.is_array()) fail("an array");
    std::vector<Node> out;
    out.reserve(j_.size());
    for (std::size_t i = 0; i < j_.size(); ++i)
      out.emplace_back(j_[i], path_ + "[" + std::to_string(i) + "]");
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

  // Optional members: absent keeps the default.
  void get(const char* key, std::string& out) const {
    if (has(key)) out = at(key).string();
  }
  void get(const char* key, double& out) const {
    if (has(key)) out = at(key).real();
  }
  void get(const char* key, std::uint64_t& out) const {
    if (has(key)) out = at(key).unsigned64();
  }
  void get(const char* key, unsigned& out) const {
    if (has(key)) out = at(key).unsigned32();
  }
  void get(const char* key, int& out) const {
    if (has(key)) out = at(key).integer();
  }
  void get(const char* key, bool& out) const {
    if (has(key)) out = at(key).boolean();
  }
  void get(const char* key, std::optional<double>& out) const {
    if (has(key) && !at(key).json().is_null()) out = at(key).real();
  }

 private:
  const Json& j_;
  std::string path_;
};

LatencySummary read_latency(const Node& n) {
  n.object();
  LatencySummary s;
  n.get("min", s.min_ns);
  n.get("max", s.max_ns);
  n.get("mean", s.mean_ns);
  n.get("stdev", s.stdev_ns);
  n.get("samples", s.samples);
  if (n.has("percentiles")) {
    const Node p = n.at("percentiles").object();
    for (const auto& [key, value] : p.json().items()) {
      const Node v(value, p.child_path(key));
      char* end = nullptr;
      const double pct = std::strtod(key.c_str(), &end);
      if (key.empty() || end != key.c_str() + key.size() || !(pct >= 0 && pct <= 100))
        throw ResultJsonError(p.child_path(key) + ": a percentile key must be a number 0..100");
      s.percentiles.emplace_back(pct, v.unsigned64());
    }
    std::sort(s.percentiles.begin(), s.percentiles.end());
  }
  return s;
}

DirectionResult read_direction(const Node& n) {
  n.object();
  DirectionResult d;
  n.get("ios", d.ios);
  n.get("bytes", d.bytes);
  n.get("iops", d.iops);
  n.get("bw_bytes", d.bw_bytes);
  n.get("errors", d.errors);
  n.get("first_errno", d.first_errno);
  n.get("first_error_offset", d.first_error_offset);
  n.get("short_ios", d.short_ios);
  if (n.has("slat_ns")) d.slat = read_latency(n.at("slat_ns"));
  if (n.has("clat_ns")) d.clat = read_latency(n.at("clat_ns"));
  if (n.has("lat_ns")) d.lat = read_latency(n.at("lat_ns"));
  return d;
}

std::vector<FieldRow> read_rows(const Node& n) {
  std::vector<FieldRow> rows;
  for (const auto& r : n.array()) {
    r.object();
    FieldRow row;
    row.field = r.at("field").string();
    r.get("value", row.value);
    r.get("source", row.source);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> read_strings(const Node& n) {
  std::vector<std::string> out;
  for (const auto& s : n.array()) out.push_back(s.string());
  return out;
}

WorkloadResult read_workload(const Node& n) {
  n.object();
  WorkloadResult w;
  w.id = n.at("id").string();
  n.get("kind", w.kind);
  if (n.has("params")) {
    const Node p = n.at("params").object();
    auto& q = w.params;
    p.get("rw", q.rw);
    p.get("bs", q.bs);
    p.get("iodepth", q.iodepth);
    p.get("numjobs", q.numjobs);
    p.get("runtime_s", q.runtime_s);
    p.get("ramp_time_s", q.ramp_time_s);
    p.get("size", q.size);
    p.get("offset", q.offset);
    p.get("rwmixread", q.rwmixread);
    p.get("ioengine", q.ioengine);
    p.get("direct", q.direct);
    p.get("target", q.target);
  }
  if (n.has("read")) w.read = read_direction(n.at("read"));
  if (n.has("write")) w.write = read_direction(n.at("write"));
  if (n.has("cpu")) {
    const Node c = n.at("cpu").object();
    c.get("usr_pct", w.cpu.usr_pct);
    c.get("sys_pct", w.cpu.sys_pct);
    c.get("max_thread_pct", w.cpu.max_thread_pct);
    c.get("spin_pct", w.cpu.spin_pct);
  }
  n.get("elapsed_s", w.elapsed_s);
  if (n.has("timeline")) {
    for (const auto& t : n.at("timeline").array()) {
      t.object();
      TimelinePoint pt;
      t.get("t_s", pt.t_s);
      t.get("read_iops", pt.read_iops);
      t.get("write_iops", pt.write_iops);
      t.get("read_bw", pt.read_bw);
      t.get("write_bw", pt.write_bw);
      t.get("read_lat_mean_ns", pt.read_lat_mean_ns);
      t.get("write_lat_mean_ns", pt.write_lat_mean_ns);
      w.timeline.push_back(pt);
    }
  }
  if (n.has("errors")) w.errors = read_strings(n.at("errors"));
  n.get("interrupted", w.interrupted);
  n.get("fio_command", w.fio_command);
  if (n.has("steady") && !n.at("steady").json().is_null()) w.steady = n.at("steady").boolean();
  if (n.has("latency_curve")) {
    for (const auto& c : n.at("latency_curve").array()) {
      c.object();
      LatencyCurvePoint pt;
      c.get("iodepth", pt.iodepth);
      c.get("iops", pt.iops);
      c.get("latency_ns", pt.latency_ns);
      c.get("within_limit", pt.within_limit);
      w.latency_curve.push_back(pt);
    }
  }
  n.get("latency_limit_ns", w.latency_limit_ns);
  n.get("latency_stat", w.latency_stat);
  auto read_findings = [](const Node& a) {
    std::vector<IntegrityFinding> out;
    for (const auto& f : a.array()) {
      f.object();
      IntegrityFinding x;
      f.get("kind", x.kind);
      f.get("offset", x.offset);
      f.get("found_offset", x.found_offset);
      f.get("expected_sequence", x.expected_sequence);
      f.get("found_sequence", x.found_sequence);
      out.push_back(std::move(x));
    }
    return out;
  };
  if (n.has("integrity")) {
    const Node i = n.at("integrity").object();
    IntegrityReport r;
    i.get("algorithm", r.algorithm);
    i.get("run_id", r.run_id);
    i.get("blocks_written", r.blocks_written);
    i.get("verified_inline", r.verified_inline);
    i.get("verified_at_end", r.verified_at_end);
    i.get("corrupted", r.corrupted);
    i.get("misplaced", r.misplaced);
    i.get("stale", r.stale);
    i.get("foreign", r.foreign);
    i.get("read_errors", r.read_errors);
    i.get("bad_inline", r.bad_inline);
    i.get("tracking_bytes", r.tracking_bytes);
    if (i.has("findings")) r.findings = read_findings(i.at("findings"));
    w.integrity = std::move(r);
  }
  if (n.has("capacity")) {
    const Node c = n.at("capacity").object();
    CapacityReport r;
    c.get("reported_bytes", r.reported_bytes);
    c.get("usable_bytes", r.usable_bytes);
    c.get("sample_interval", r.sample_interval);
    c.get("samples", r.samples);
    c.get("samples_good", r.samples_good);
    c.get("block_size", r.block_size);
    c.get("corrupted", r.corrupted);
    c.get("misplaced", r.misplaced);
    c.get("stale", r.stale);
    c.get("foreign", r.foreign);
    c.get("read_errors", r.read_errors);
    if (c.has("aliasing_start")) r.aliasing_start = c.at("aliasing_start").unsigned64();
    if (c.has("aliased_to")) r.aliased_to = c.at("aliased_to").unsigned64();
    if (c.has("findings")) r.findings = read_findings(c.at("findings"));
    w.capacity = std::move(r);
  }
  return w;
}

ClaimVerdict read_verdict(const Node& n) {
  n.object();
  ClaimVerdict v;
  v.workload = n.at("workload").string();
  v.metric = n.at("metric").string();
  const Node status = n.at("status");
  const auto parsed = verdict_status_from_string(status.string());
  if (!parsed)
    throw ResultJsonError(status.path() +
                          ": expected one of pass, fail, error, skipped, measured-only");
  v.status = *parsed;
  n.get("measured", v.measured);
  n.get("claimed", v.claimed);
  n.get("unit", v.unit);
  n.get("tolerance_pct", v.tolerance_pct);
  n.get("diff_pct", v.diff_pct);
  n.get("message", v.message);
  n.get("time_s", v.time_s);
  n.get("kind", v.kind);
  return v;
}

}  // namespace

Json to_json(const RunResult& r) {
  Json j;
  j["storqual_version"] = r.environment.storqual_version;
  const auto& e = r.environment;
  j["environment"] = {{"host", e.host},
                      {"kernel", e.kernel},
                      {"cpu_model", e.cpu_model},
                      {"cpus", e.cpus},
                      {"storqual_version", e.storqual_version},
                      {"command_line", e.command_line},
                      {"start_utc", e.start_utc},
                      {"end_utc", e.end_utc}};
  const auto& d = r.device;
  j["device"] = {{"name", d.name},
                 {"path", d.path},
                 {"identity", rows_json(d.identity)},
                 {"health_before", rows_json(d.health_before)},
                 {"health_after", rows_json(d.health_after)},
                 {"health_changes", d.health_changes}};
  const auto& s = r.spec;
  j["spec"] = {
      {"name", s.name},     {"vendor", s.vendor}, {"source", s.source},        {"path", s.path},
      {"sha256", s.sha256}, {"suite", s.suite},   {"suite_path", s.suite_path}};
  Json workloads = Json::array();
  for (const auto& w : r.workloads) workloads.push_back(workload_json(w));
  j["workloads"] = std::move(workloads);
  Json verdicts = Json::array();
  for (const auto& v : r.verdicts) verdicts.push_back(verdict_json(v));
  j["verdicts"] = std::move(verdicts);
  j["exit_code"] = r.exit_code;
  return j;
}

std::string to_json_text(const RunResult& result) {
  // Replace invalid UTF-8 from devices instead of throwing halfway through a report.
  return to_json(result).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunResult run_result_from_json_value(const Json& json) {
  const Node top(json, "");
  top.object();
  RunResult r;
  if (top.has("environment")) {
    const Node e = top.at("environment").object();
    auto& env = r.environment;
    e.get("host", env.host);
    e.get("kernel", env.kernel);
    e.get("cpu_model", env.cpu_model);
    e.get("cpus", env.cpus);
    e.get("storqual_version", env.storqual_version);
    e.get("command_line", env.command_line);
    e.get("start_utc", env.start_utc);
    e.get("end_utc", env.end_utc);
  }
  if (r.environment.storqual_version.empty())
    top.get("storqual_version", r.environment.storqual_version);
  if (top.has("device")) {
    const Node d = top.at("device").object();
    d.get("name", r.device.name);
    d.get("path", r.device.path);
    if (d.has("identity")) r.device.identity = read_rows(d.at("identity"));
    if (d.has("health_before")) r.device.health_before = read_rows(d.at("health_before"));
    if (d.has("health_after")) r.device.health_after = read_rows(d.at("health_after"));
    if (d.has("health_changes")) r.device.health_changes = read_strings(d.at("health_changes"));
  }
  if (top.has("spec")) {
    const Node s = top.at("spec").object();
    s.get("name", r.spec.name);
    s.get("vendor", r.spec.vendor);
    s.get("source", r.spec.source);
    s.get("path", r.spec.path);
    s.get("sha256", r.spec.sha256);
    s.get("suite", r.spec.suite);
    s.get("suite_path", r.spec.suite_path);
  }
  for (const auto& w : top.at("workloads").array()) r.workloads.push_back(read_workload(w));
  for (const auto& v : top.at("verdicts").array()) r.verdicts.push_back(read_verdict(v));
  top.get("exit_code", r.exit_code);
  return r;
}

RunResult run_result_from_json(std::string_view text) {
  Json json;
  try {
    // The callback sees every value with its depth; refuse deep nesting before it costs stack.
    json = Json::parse(text.begin(), text.end(), [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth)
        throw ResultJsonError("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return true;
    });
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
