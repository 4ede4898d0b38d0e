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

#include "reporting/json_codec.hpp"
#include "reporting/method_reports.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {

// ---- the keys of each plain struct, in output order ----
//
// One list per struct serves both directions (reporting/json_codec.hpp): `visit(key, member)` for
// every member, with the struct const when writing and mutable when reading. They are in this
// namespace, not an unnamed one, so that the codec's templates find them by argument-dependent
// lookup; a method's own structs have theirs in the method's files.

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

void visit_fields(Either<MeasuredBy> auto& m, auto&& visit) {
  visit({"tool", kRequired}, m.tool);
  visit("file", m.file);
  visit("sha256", m.sha256);
}

void visit_fields(Either<Deviation> auto& d, auto&& visit) {
  visit({"kind", kRequired}, d.kind);
  visit("text", d.text);
  visit("workloads", d.workloads);
  visit("changes_subject", d.changes_subject);
  visit("accepted", d.accepted);
}

void visit_fields(Either<FillReport> auto& f, auto&& visit) {
  visit("offset", f.offset);
  visit("bytes", f.bytes);
  visit("block", f.block);
  visit("iodepth", f.iodepth);
  visit("seconds", f.seconds);
  visit("bytes_per_s", f.bytes_per_s);
  visit("sampled_blocks", f.sampled_blocks);
  visit("sample_bytes", f.sample_bytes);
  visit("sample_all_zero", f.sample_all_zero);
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
  visit("bs_mix", p.bs_mix);
  visit("random_distribution", p.random_distribution);
}

void visit_fields(Either<BlockSizeCount> auto& c, auto&& visit) {
  visit({"bs", kRequired}, c.bs);
  visit("ios", c.ios);
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
  visit("block_sizes", d.block_sizes);
}

void visit_fields(Either<CpuUsage> auto& c, auto&& visit) {
  visit("usr_pct", c.usr_pct);
  visit("sys_pct", c.sys_pct);
  visit("max_thread_pct", c.max_thread_pct);
  visit("spin_pct", c.spin_pct);
  visit("wait_pct", c.wait_pct);
  visit("process_pct", c.process_pct);
  visit("poll", c.poll);
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
  visit("cpu_wait_pct", h.cpu_wait_pct);
  visit("cpu_wait_reason", h.cpu_wait_reason);
  visit("cpu_wait_factor", h.cpu_wait_factor);
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

void visit_fields(Either<FioSteadyStateReport> auto& e, auto&& visit) {
  visit("ss", e.ss);
  visit("duration", e.duration);
  visit("ramp_s", e.ramp_s);
  visit("attained", e.attained);
  visit("attained_at_s", e.attained_at_s);
  visit("criterion", e.criterion);
  visit("percent", e.percent);
  visit("limit", e.limit);
  visit("max_deviation", e.max_deviation);
  visit("slope", e.slope);
  visit("samples", e.samples);
  visit("iops", e.iops);
  visit("bw", e.bw);
  visit("iops_mean", e.iops_mean);
  visit("bw_mean", e.bw_mean);
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

namespace json {
namespace {

// The keys a method's report adds at `slot` (model/method_report.hpp ReportSlot).
void method_keys(Json& j, const WorkloadResult& w, ReportSlot slot) {
  if (w.method && w.method->json_slot() == slot) w.method->write_json(j);
}

// The method's report of a workload object, from the registered readers; null for a plain one.
std::shared_ptr<const MethodReport> read_method_report(const Node& n, std::string_view kind,
                                                       WorkloadResult& w) {
  for (MethodReportReader reader : method_report_readers())
    if (auto report = reader(n, kind, w)) return report;
  if (kind != "workload")
    throw ResultJsonError(n.at("kind").path() + ": unknown kind '" + std::string(kind) +
                          "' (no method of this storqual writes it)");
  return nullptr;
}

}  // namespace

Json workload_json(const WorkloadResult& w) {
  Json j;
  put(j, "id", w.id);
  put(j, "kind", std::string(w.kind()));
  put(j, "params", w.params);
  put(j, "read", w.read);
  put(j, "write", w.write);
  put(j, "cpu", w.cpu);
  put(j, "elapsed_s", w.elapsed_s);
  put(j, "timeline", w.timeline);
  put(j, "errors", w.errors);
  put(j, "interrupted", w.interrupted);
  put(j, "fio_command", w.fio_command);
  method_keys(j, w, ReportSlot::AfterFioCommand);
  put(j, "host_limit", w.host_limit);
  if (!w.preconditioning.empty()) put(j, "preconditioning", w.preconditioning);
  if (!w.fill.empty()) put(j, "fill", w.fill);
  put(j, "skipped", w.skipped);
  put(j, "integrity", w.integrity);
  method_keys(j, w, ReportSlot::AfterIntegrity);
  put(j, "host_busy", w.host_busy);
  put(j, "early_stop", w.early_stop);
  put(j, "steadystate", w.steadystate);
  if (!w.thermal.empty()) put(j, "thermal", w.thermal);
  if (!w.throttled.empty()) put(j, "throttled", w.throttled);
  if (!w.io_depths.submitted.empty()) put(j, "io_depths", w.io_depths);
  put(j, "disk_stats", w.disk_stats);
  // A group's member jobs, each a workload object of its own (absent for one job spec).
  if (!w.jobs.empty()) put(j, "jobs", w.jobs);
  method_keys(j, w, ReportSlot::Last);
  return j;
}

Json verdict_json(const ClaimVerdict& v) {
  Json j;
  put(j, "workload", workload_text(v));
  if (!v.job.empty()) put(j, "job", v.job);
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

WorkloadResult read_workload(const Node& n) {
  n.object();
  WorkloadResult w;
  n.get({"id", kRequired}, w.id);
  std::string kind = "workload";
  n.get("kind", kind);
  n.get("params", w.params);
  n.get("read", w.read);
  n.get("write", w.write);
  n.get("cpu", w.cpu);
  n.get("elapsed_s", w.elapsed_s);
  n.get("timeline", w.timeline);
  n.get("errors", w.errors);
  n.get("interrupted", w.interrupted);
  n.get("fio_command", w.fio_command);
  n.get("host_limit", w.host_limit);
  n.get("preconditioning", w.preconditioning);
  if (n.has("fill")) n.get("fill", w.fill);
  n.get("skipped", w.skipped);
  n.get("integrity", w.integrity);
  n.get("host_busy", w.host_busy);
  n.get("early_stop", w.early_stop);
  n.get("steadystate", w.steadystate);
  if (n.has("thermal")) n.get("thermal", w.thermal);
  if (n.has("throttled")) n.get("throttled", w.throttled);
  n.get("io_depths", w.io_depths);
  n.get("disk_stats", w.disk_stats);
  n.get("jobs", w.jobs);
  w.method = read_method_report(n, kind, w);
  return w;
}

ClaimVerdict read_verdict(const Node& n) {
  n.object();
  ClaimVerdict v;
  std::string workloads;
  n.get({"workload", kRequired}, workloads);
  v.workloads = split_ids(workloads);
  n.get("job", v.job);
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

}  // namespace json

namespace {

using json::Json;
using json::Node;
using json::put;

constexpr int kMaxDepth = 64;

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
  put(j, "measured_by", r.measured_by);  // only when another tool measured
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
  top.get("measured_by", r.measured_by);
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
