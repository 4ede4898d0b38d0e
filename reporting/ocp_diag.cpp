// SPDX-License-Identifier: Apache-2.0
// The run as an OCP Test & Validation output artifact stream (see ocp_diag.hpp).
#include "reporting/ocp_diag.hpp"

#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "reporting/atomic_file.hpp"
#include "reporting/result_json.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;
constexpr std::string_view kDut = "dut";      // the one hardwareInfoId
constexpr std::string_view kRunStep = "run";  // the step of verdicts of no one workload
constexpr std::string_view kEpoch = "1970-01-01T00:00:00Z";  // a result without times

// Writes the artifacts in order, numbering them.
class Stream {
 public:
  void add(const char* key, Json body, const std::string& timestamp) {
    Json line;
    line[key] = std::move(body);
    line["timestamp"] = timestamp;
    line["sequenceNumber"] = next_++;
    text_ += line.dump(-1, ' ', false, Json::error_handler_t::replace);
    text_ += '\n';
  }
  void run(const char* key, Json body, const std::string& timestamp) {
    Json artifact;
    artifact[key] = std::move(body);
    add("testRunArtifact", std::move(artifact), timestamp);
  }
  void step(const std::string& id, const char* key, Json body, const std::string& timestamp) {
    Json artifact;
    artifact["testStepId"] = id;
    artifact[key] = std::move(body);
    add("testStepArtifact", std::move(artifact), timestamp);
  }
  [[nodiscard]] std::string take() { return std::move(text_); }

 private:
  std::string text_;
  long long next_ = 0;
};

std::string identity_value(const RunResult& run, std::string_view field) {
  for (const auto& row : run.device.identity)
    if (row.field == field) return row.value;
  return "";
}

void set_if(Json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

Json dut_info(const RunResult& run) {
  const std::string serial = identity_value(run, "serial");
  const std::string model = identity_value(run, "model");
  const std::string firmware = identity_value(run, "firmware");
  Json dut;
  dut["dutInfoId"] = !serial.empty() ? serial : run.device.name;
  set_if(dut, "name", run.device.name);
  const Environment& env = run.environment;
  if (!env.host.empty() || !env.kernel.empty())
    dut["platformInfos"] =
        Json::array({{{"info", env.host + " (" + env.kernel + ", " + env.cpu_model + ", " +
                                   std::to_string(env.cpus) + " CPUs)"}}});
  if (!firmware.empty())
    dut["softwareInfos"] = Json::array({{{"name", "firmware"},
                                         {"version", firmware},
                                         {"softwareType", "FIRMWARE"},
                                         {"softwareInfoId", "firmware"}}});
  Json hw;
  hw["name"] = !model.empty() ? model : run.device.name;
  hw["hardwareInfoId"] = kDut;
  set_if(hw, "location", run.device.path);
  set_if(hw, "serialNumber", serial);
  set_if(hw, "manufacturer", identity_value(run, "vendor"));
  dut["hardwareInfos"] = Json::array({hw});
  Json rows = Json::array();
  for (const auto& row : run.device.identity)
    rows.push_back({{"field", row.field}, {"value", row.value}, {"source", row.source}});
  dut["metadata"] = {{"identity", rows}};
  return dut;
}

Json test_run_start(const RunResult& run) {
  const SpecReport& s = run.spec;
  Json parameters;
  parameters["suite"] = s.suite;
  parameters["suitePath"] = s.suite_path;
  parameters["suiteSha256"] = s.suite_sha256;
  parameters["specSheet"] = s.path;
  parameters["specSheetSha256"] = s.sha256;
  parameters["specName"] = s.name;
  parameters["specVendor"] = s.vendor;
  parameters["target"] = run.device.path;
  parameters["measureOnly"] = run.measure_only;
  parameters["strict"] = run.strict;
  if (run.measured_by)  // `storqual judge`: another tool measured (docs/fio-files.md)
    parameters["measuredBy"] = {{"tool", run.measured_by->tool},
                                {"file", run.measured_by->file},
                                {"sha256", run.measured_by->sha256}};
  Json start;
  start["name"] = "storqual";
  start["version"] = run.environment.storqual_version;
  start["commandLine"] = run.environment.command_line;
  start["parameters"] = std::move(parameters);
  start["dutInfo"] = dut_info(run);
  const Environment& env = run.environment;
  start["metadata"] = {{"host", env.host},
                       {"kernel", env.kernel},
                       {"cpuModel", env.cpu_model},
                       {"cpus", env.cpus},
                       {"startUtc", env.start_utc},
                       {"endUtc", env.end_utc},
                       {"wallTimeS", env.wall_time_s}};
  return start;
}

// ---- measurements and validators

struct Measurement {
  std::string name;
  double value = 0;
  std::string unit;
  Json validators = Json::array();
};

void add_measurement(std::vector<Measurement>& out, std::string name, double value,
                     std::string unit) {
  if (std::isfinite(value)) out.push_back({std::move(name), value, std::move(unit)});
}

std::optional<std::uint64_t> percentile(const LatencySummary& lat, double p) {
  for (const auto& [at, ns] : lat.percentiles)
    if (std::fabs(at - p) < 1e-9) return ns;
  return std::nullopt;
}

void add_direction(std::vector<Measurement>& out, const char* dir,
                   const std::optional<DirectionResult>& d) {
  if (!d) return;
  const std::string p = std::string(dir) + ".";
  add_measurement(out, p + "iops", d->iops, "IOPS");
  add_measurement(out, p + "bw", d->bw_bytes, "B/s");
  if (d->lat.samples > 0) {
    add_measurement(out, p + "lat.mean", d->lat.mean_ns, "ns");
    if (auto p99 = percentile(d->lat, 99)) add_measurement(out, p + "lat.p99", double(*p99), "ns");
  }
}

std::vector<Measurement> workload_figures(const WorkloadResult& w) {
  std::vector<Measurement> out;
  if (w.skipped) return out;
  add_direction(out, "read", w.read);
  add_direction(out, "write", w.write);
  if (w.method && w.method->lists_figures())  // a SNIA PTS test's figures
    for (const auto& f : w.figures) add_measurement(out, f.name, f.value, f.unit);
  return out;
}

// The claim's bound as a validator; none for a verdict without a claimed value or direction.
std::optional<Json> validator(const ClaimVerdict& v) {
  if (!v.claimed || !v.higher_is_better || !std::isfinite(*v.claimed)) return std::nullopt;
  const double tol = v.tolerance_pct / 100.0;
  Json out;
  out["name"] = verdict_name(v);
  out["type"] = *v.higher_is_better ? "GREATER_THAN_OR_EQUAL" : "LESS_THAN_OR_EQUAL";
  out["value"] = *v.higher_is_better ? *v.claimed * (1 - tol) : *v.claimed * (1 + tol);
  out["metadata"] = {
      {"kind", to_string(v.kind)}, {"claimed", *v.claimed}, {"tolerancePct", v.tolerance_pct}};
  if (!v.file.empty()) out["metadata"]["claim"] = v.file + ":" + std::to_string(v.line);
  return out;
}

// The verdict's measured value on the step's measurement of that name (a new one if none).
void add_verdict_measurement(std::vector<Measurement>& out, const ClaimVerdict& v,
                             const std::string& name) {
  if (!v.measured || !std::isfinite(*v.measured)) return;
  Measurement* m = nullptr;
  for (auto& existing : out)
    if (existing.name == name) m = &existing;
  if (!m) {
    out.push_back({name, *v.measured, v.unit});
    m = &out.back();
  }
  m->value = *v.measured;
  if (m->unit.empty()) m->unit = v.unit;
  if (auto val = validator(v)) m->validators.push_back(std::move(*val));
}

Json measurement_json(const Measurement& m) {
  Json out;
  out["name"] = m.name;
  out["value"] = m.value;
  set_if(out, "unit", m.unit);
  if (!m.validators.empty()) out["validators"] = m.validators;
  out["hardwareInfoId"] = kDut;
  return out;
}

// ---- diagnoses and statuses

std::optional<Json> diagnosis(const ClaimVerdict& v) {
  const char* type = nullptr;
  switch (v.status) {
    case VerdictStatus::Pass:
      type = "PASS";
      break;
    case VerdictStatus::Fail:
      type = "FAIL";
      break;
    case VerdictStatus::Error:
    case VerdictStatus::Skipped:
    case VerdictStatus::Inconclusive:
      type = "UNKNOWN";
      break;
    case VerdictStatus::MeasuredOnly:
      return std::nullopt;  // nothing judged
  }
  Json out;
  out["verdict"] = std::string(to_string(v.kind)) + "-" + std::string(to_string(v.status));
  out["type"] = type;
  out["message"] = verdict_name(v) + ": " + v.message;
  out["hardwareInfoId"] = kDut;
  return out;
}

const char* step_status(const WorkloadResult& w) {
  if (w.interrupted) return "SKIP";
  if (!w.errors.empty()) return "ERROR";
  if (w.skipped) return "SKIP";
  return "COMPLETE";
}

// testRunEnd: the four (status, result) pairs the specification allows.
Json test_run_end(const RunResult& run) {
  bool interrupted = run.exit_code == 130, error = false, failed = false, passed = false;
  for (const auto& w : run.workloads) {
    interrupted = interrupted || w.interrupted;
    error = error || !w.errors.empty();
  }
  for (const auto& v : run.verdicts) {
    if (v.status == VerdictStatus::Error) {
      interrupted = interrupted || v.error_cause == ErrorCause::Interrupted;
      error = true;
    }
    failed = failed || v.status == VerdictStatus::Fail;
    passed = passed || v.status == VerdictStatus::Pass;
  }
  const char* status = "SKIP";
  const char* result = "NOT_APPLICABLE";
  if (interrupted) {
    status = "SKIP";  // an external request to abort: no verdict on the hardware
  } else if (error) {
    status = "ERROR";
  } else if (failed) {
    status = "COMPLETE", result = "FAIL";
  } else if (passed && !run.measure_only && run.exit_code == 0) {
    status = "COMPLETE", result = "PASS";
  }
  return {{"status", status}, {"result", result}};
}

// ---- steps

bool is_workload_id(const RunResult& run, const std::string& id) {
  for (const auto& w : run.workloads)
    if (w.id == id) return true;
  return false;
}

// The verdicts of the step of workload `id` (or of the run step when `id` is empty).
std::vector<const ClaimVerdict*> step_verdicts(const RunResult& run, const std::string& id) {
  std::vector<const ClaimVerdict*> out;
  for (const auto& v : run.verdicts) {
    const bool one = v.workloads.size() == 1 && is_workload_id(run, v.workloads.front());
    if (id.empty() ? !one : (one && v.workloads.front() == id)) out.push_back(&v);
  }
  return out;
}

void emit_judgement(Stream& s, const std::string& step_id, std::vector<Measurement> figures,
                    const std::vector<const ClaimVerdict*>& verdicts, bool by_metric,
                    const std::string& t) {
  for (const auto* v : verdicts)  // a claim on a group's job is that job's measurement
    add_verdict_measurement(figures, *v,
                            !by_metric       ? verdict_name(*v)
                            : v->job.empty() ? v->metric
                                             : "job " + v->job + " " + v->metric);
  for (const auto& m : figures) s.step(step_id, "measurement", measurement_json(m), t);
  for (const auto* v : verdicts)
    if (auto d = diagnosis(*v)) s.step(step_id, "diagnosis", std::move(*d), t);
}

void emit_workload(Stream& s, const RunResult& run, const WorkloadResult& w,
                   const std::string& step_id, const std::string& t) {
  s.step(step_id, "testStepStart", {{"name", w.id}}, t);
  if (w.skipped)
    s.step(step_id, "log", {{"severity", "WARNING"}, {"message", "skipped: " + *w.skipped}}, t);
  for (const auto& e : w.errors)
    s.step(step_id, "error",
           {{"symptom", w.interrupted ? "interrupted" : "workload-error"}, {"message", e}}, t);
  if (w.errors.empty() && w.interrupted)
    s.step(step_id, "error", {{"symptom", "interrupted"}, {"message", "the run was interrupted"}},
           t);
  if (!w.fio_command.empty())
    s.step(step_id, "log", {{"severity", "DEBUG"}, {"message", "fio: " + w.fio_command}}, t);
  emit_judgement(s, step_id, workload_figures(w), step_verdicts(run, w.id), true, t);
  s.step(step_id, "testStepEnd", {{"status", step_status(w)}}, t);
}

void emit_run_step(Stream& s, const RunResult& run, const std::string& step_id,
                   const std::string& t) {
  const auto verdicts = step_verdicts(run, "");
  if (verdicts.empty()) return;
  s.step(step_id, "testStepStart", {{"name", kRunStep}}, t);
  bool error = false;
  for (const auto* v : verdicts) error = error || v->status == VerdictStatus::Error;
  emit_judgement(s, step_id, {}, verdicts, false, t);
  s.step(step_id, "testStepEnd", {{"status", error ? "ERROR" : "COMPLETE"}}, t);
}

std::string render_normalised(const RunResult& run) {
  const Environment& env = run.environment;
  const std::string start(env.start_utc.empty() ? (env.end_utc.empty() ? kEpoch : env.end_utc)
                                                : env.start_utc);
  const std::string end = env.end_utc.empty() ? start : env.end_utc;
  Stream s;
  s.add("schemaVersion", {{"major", kOcpSchemaMajor}, {"minor", kOcpSchemaMinor}}, start);
  s.run("testRunStart", test_run_start(run), start);
  for (const auto& d : run.deviations) {
    std::string text = "deviation (" + d.kind + "): " + d.text;
    for (std::size_t i = 0; i < d.workloads.size(); ++i)
      text += (i == 0 ? " [" : " ") + d.workloads[i] + (i + 1 == d.workloads.size() ? "]" : "");
    s.run("log", {{"severity", "WARNING"}, {"message", text}}, start);
  }
  std::size_t step = 0;
  for (const auto& w : run.workloads) emit_workload(s, run, w, std::to_string(step++), start);
  emit_run_step(s, run, std::to_string(step), start);
  s.run("testRunEnd", test_run_end(run), end);
  return s.take();
}

}  // namespace

std::string render_ocp_diag(const RunResult& run) {
  // As the result's JSON reads back: a run and a re-render of its file give the same bytes.
  return render_normalised(run_result_from_json_value(to_json(run)));
}

void write_ocp_diag(const std::string& path, const RunResult& run) {
  write_file_atomically(path, render_ocp_diag(run));
}

}  // namespace storqual::reporting
