// SPDX-License-Identifier: Apache-2.0
// fio's JSON judged against a spec sheet (see fio_judgement.hpp).
#include "runner/qualification/fio_judgement.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "devices/device_identity.hpp"
#include "devices/sysfs.hpp"
#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/report_names.hpp"
#include "reporting/run_console.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/fio_verdicts.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/qualification/deviations.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/fio_json.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FileError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Who the device is: its report rows, capacity and the fields a sheet's <match> names.
struct JudgedDevice {
  reporting::DeviceReport report;
  double capacity = 0;
  std::map<std::string, std::string> match;  // empty: no identity given
  std::string summary;                       // for the console
};

std::string row_value(const std::vector<reporting::FieldRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return "";
}

void complete_device(JudgedDevice& d, const std::string& target_word) {
  const auto& rows = d.report.identity;
  d.capacity = std::strtod(row_value(rows, "capacity_bytes").c_str(), nullptr);
  for (const char* f : {"model", "firmware", "vendor", "serial", "transport"})
    d.match[f] = row_value(rows, f);
  d.match["target"] = target_word;
  const std::string model = row_value(rows, "model");
  d.summary = d.report.name + (model.empty() ? "" : " (" + model + ")");
}

// --target: the identification path of `run` and `identify` (sysfs, udev, NVMe identify), which
// only reads.
JudgedDevice device_of_target(const std::string& target, const std::string& sysfs_root) {
  JudgedDevice d;
  devices::Sysfs sysfs{sysfs_root};
  const devices::ResolvedTarget resolved = sysfs.resolve(target);
  DeviceIdentification id = read_full_identity(sysfs, resolved.device, NvmeAccess{});
  d.report.path = target;
  d.report.name = resolved.kind == devices::TargetKind::BlockDevice
                      ? resolved.device
                      : "file " + target + " (on " + resolved.device + ")";
  for (const auto& r : devices::identity_rows(id.identity))
    d.report.identity.push_back({r.field, r.value, r.source});
  if (!id.identify_error.empty())
    d.report.identity.push_back({"note", "NVMe identify failed: " + id.identify_error, "storqual"});
  complete_device(d, std::string(match_target(resolved.kind)));
  return d;
}

// --identity: what `storqual identify --target T --json` printed.
JudgedDevice device_of_identity_file(const std::string& path) {
  JudgedDevice d;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_bytes(path));
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": not valid JSON: " + e.what());
  }
  auto text = [&](const nlohmann::json& o, const char* key) -> std::string {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (!j.is_object() || !j.contains("identity") || !j["identity"].is_array())
    throw FileError(path +
                    ": not the output of `storqual identify --target PATH --json` (no "
                    "\"identity\" rows)");
  for (const auto& row : j["identity"]) {
    if (!row.is_object() || text(row, "field").empty())
      throw FileError(path + ": an \"identity\" row without a \"field\"");
    d.report.identity.push_back({text(row, "field"), text(row, "value"), text(row, "source")});
  }
  d.report.path = text(j, "target");
  const nlohmann::json resolved = j.value("resolved", nlohmann::json::object());
  const std::string kind = resolved.is_object() ? text(resolved, "kind") : "";
  const std::string device = resolved.is_object() ? text(resolved, "device") : "";
  d.report.name = kind == "block device" || kind.empty() ? device : kind + " " + d.report.path;
  d.report.identity.push_back({"note", "identity read from " + path, "storqual"});
  complete_device(d, kind == "file" ? "file" : kind == "directory" ? "scratch" : "block");
  return d;
}

// The jobs to judge: client/server output holds several hosts' jobs; one host is one device.
std::vector<FioJsonJob> jobs_of_host(const FioJsonOutput& fio, const FioJudgeOptions& o) {
  const std::vector<std::string> hosts = fio.hosts();
  if (hosts.empty()) {
    if (o.host) throw UsageError("--host: " + o.fio_json + " is not client/server output");
    return fio.jobs;
  }
  std::string host = o.host.value_or(hosts.size() == 1 ? hosts.front() : "");
  if (std::find(hosts.begin(), hosts.end(), host) == hosts.end())
    throw UsageError(o.fio_json + " holds the jobs of " + std::to_string(hosts.size()) +
                     " hosts (" + reporting::join_text(hosts, ", ") +
                     "): choose one device's with --host" +
                     (o.host ? " ('" + *o.host + "' is none of them)" : std::string()));
  std::vector<FioJsonJob> out;
  for (const auto& j : fio.jobs)
    if (j.hostname == host && !j.all_clients) out.push_back(j);
  return out;
}

struct Loaded {
  SpecSheet sheet;
  Suite suite;
  fs::path suite_path;
};

Loaded load_sheet_and_suite(const FioJudgeOptions& o) {
  Loaded l{SpecSheet::load(o.spec_file), {}, {}};
  std::vector<fs::path> dirs(o.suite_dirs.begin(), o.suite_dirs.end());
  if (dirs.empty()) dirs = default_suite_dirs();
  l.suite_path = o.suite ? resolve_suite(*o.suite, dirs)
                         : resolve_suite_for_sheet(l.sheet.suite, l.sheet.path, dirs);
  l.suite = Suite::load(l.suite_path);
  const std::vector<std::string> problems = cross_check(l.sheet, l.suite);
  if (!problems.empty())
    throw UsageError("spec sheet " + o.spec_file + " has claims that suite '" + l.suite.name +
                     "' cannot judge:\n  " + reporting::join_text(problems, "\n  "));
  return l;
}

// The results in suite order (a workload no job ran is skipped), then the jobs that match no
// workload, measured only; `judged` is the suite with those jobs added, for `judge`.
void assemble_results(const std::vector<FioJsonJob>& jobs, const std::vector<FioJobMatch>& matches,
                      const FioJudgeOptions& o, Suite& judged, reporting::RunResult& run) {
  for (const auto& w : judged.workloads) {
    auto m = std::find_if(matches.begin(), matches.end(),
                          [&](const FioJobMatch& x) { return x.workload == w.id(); });
    reporting::WorkloadResult r;
    if (m != matches.end()) {
      r = jobs[static_cast<std::size_t>(m - matches.begin())].result;
      r.id = w.id();
      if (!m->differences.empty())
        run.deviations.push_back({"fio-job",
                                  "fio job '" + m->job + "' ran workload '" + w.id() + "' with " +
                                      reporting::join_text(m->differences, ", "),
                                  {w.id()}});
    } else {
      r.id = w.id();
      r.params = w.spec.params;
      r.skipped = "no job of " + o.fio_json + " ran it (docs/fio-files.md, \"Judging fio's JSON\")";
      std::fputs(reporting::format_workload_unmatched(w.id()).c_str(), o.console);
    }
    run.workloads.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!matches[i].workload.empty()) continue;
    reporting::WorkloadResult r = jobs[i].result;
    r.id = matches[i].job;
    for (int n = 2; judged.find(r.id); ++n) r.id = matches[i].job + " #" + std::to_string(n);
    SuiteWorkload extra;
    extra.spec.id = r.id;
    extra.spec.params = r.params;
    judged.workloads.push_back(std::move(extra));
    run.workloads.push_back(std::move(r));
  }
}

// Whether fio's `filename` (one path, or several joined by ':') names `target`: the same path, or
// paths that resolve to the same device (a block device) or the same file.
bool names_target(const std::string& filename, const std::string& target,
                  const std::string& sysfs_root) {
  if (filename.empty() || target.empty()) return false;
  devices::Sysfs sysfs{sysfs_root};
  std::error_code ec;
  const fs::path want = fs::weakly_canonical(target, ec);
  std::optional<devices::ResolvedTarget> resolved_target;
  try {
    resolved_target = sysfs.resolve(target);
  } catch (const std::exception&) {
  }
  std::size_t at = 0;
  while (at <= filename.size()) {
    const std::size_t end = std::min(filename.find(':', at), filename.size());
    const std::string one = filename.substr(at, end - at);
    at = end + 1;
    std::error_code ec2;
    if (!ec && !ec2 && fs::weakly_canonical(one, ec2) == want) continue;
    try {
      const devices::ResolvedTarget r = sysfs.resolve(one);
      if (resolved_target && r.kind == devices::TargetKind::BlockDevice &&
          resolved_target->kind == devices::TargetKind::BlockDevice &&
          r.device == resolved_target->device)
        continue;
    } catch (const std::exception&) {
    }
    return false;
  }
  return true;
}

// What makes fio's figures another device's, or no device's (deviations.hpp, changes_subject):
// a job of the null engine, and, with --target or --identity, a job whose filename is not it.
void subject_deviations(const FioJudgeOptions& o, const JudgedDevice& device,
                        reporting::RunResult& run) {
  std::vector<std::string> null_jobs, elsewhere;
  std::string where;
  const std::string target = o.target ? *o.target : device.report.path;
  for (const auto& r : run.workloads) {
    if (r.skipped) continue;
    if (r.params.ioengine == "null") null_jobs.push_back(r.id);
    if ((o.target || o.identity_file) && r.params.ioengine != "null" &&
        !names_target(r.params.target, target, o.sysfs_root)) {
      if (elsewhere.empty())
        where = r.params.target.empty() ? "a file fio named after the job (no filename)"
                                        : r.params.target;
      elsewhere.push_back(r.id);
    }
  }
  if (!null_jobs.empty()) {
    run.deviations.push_back({"null-engine",
                              "fio ran " + reporting::join_text(null_jobs, ", ") +
                                  " on ioengine=null: nothing reached a device",
                              null_jobs});
    run.deviations.back().changes_subject = true;
  }
  if (!elsewhere.empty()) {
    run.deviations.push_back({"fio-target",
                              "fio ran " + reporting::join_text(elsewhere, ", ") + " on " + where +
                                  ", not on " +
                                  (target.empty() ? std::string("the device given") : target) +
                                  (o.target ? " (--target)" : " (--identity)"),
                              elsewhere});
    run.deviations.back().changes_subject = true;
  }
}

// The verdicts as a run's (claims, then measured-only), what fio cannot decide made inconclusive,
// and the exit code (--strict: a deviation makes a pass incomplete).
void judge_results(const Loaded& l, const Suite& judged, const JudgedDevice& device,
                   const FioJudgeOptions& o, reporting::RunResult& run) {
  JudgeContext context;
  if (device.capacity > 0) context.capacity_bytes = device.capacity;
  context.warranty_years = l.sheet.warranty_years;
  run.verdicts = judge(l.sheet, judged, run.workloads, context);
  mark_fio_undecidable(l.sheet, run.workloads, run.verdicts);
  apply_subject_deviations(run.deviations, run.verdicts);
  int code = exit_code_for(run.verdicts);
  run.strict = o.strict;
  if (o.strict && code == kExitPass && !run.deviations.empty()) {
    code = kExitRuntime;
    std::fputs(reporting::format_strict_incomplete(false, run.deviations.size()).c_str(),
               o.console);
  }
  run.exit_code = code;
}

}  // namespace

QualificationOutcome judge_fio_json(const FioJudgeOptions& o) {
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  const auto wall_start = std::chrono::steady_clock::now();
  if (o.target && o.identity_file) throw UsageError("give --target or --identity, not both");
  const std::string bytes = read_bytes(o.fio_json);
  const FioJsonOutput fio = parse_fio_json(bytes, o.fio_json);
  run.measured_by = reporting::MeasuredBy{fio.version, o.fio_json, sha256_hex(bytes)};
  Loaded l = load_sheet_and_suite(o);
  JudgedDevice device;
  if (o.target) device = device_of_target(*o.target, o.sysfs_root);
  if (o.identity_file) device = device_of_identity_file(*o.identity_file);
  if (!o.target && !o.identity_file) {
    device.report.name = "unknown (no --target or --identity)";
    device.summary = device.report.name;
  }
  run.device = device.report;
  run.spec = {l.sheet.name,   l.sheet.vendor, l.sheet.source,        l.sheet.path.string(),
              l.sheet.sha256, l.suite.name,   l.suite_path.string(), l.suite.sha256};
  if (!device.match.empty() && !l.sheet.matches(device.match)) {
    run.deviations.push_back(
        {"match",
         "spec sheet '" + l.sheet.name +
             "': its <match> does not fit the device's identity: its claims are another device's",
         {}});
    run.deviations.back().changes_subject = true;
  }
  reporting::JudgeHeader header{*run.measured_by, device.summary,           l.sheet.name,
                                l.suite.name,     l.suite.workloads.size(), fio.notes};
  std::fputs(reporting::format_judge_header(header).c_str(), o.console);
  // A group workload's jobs, which fio ran together, as the one result of their fio group.
  const std::vector<FioJsonJob> jobs = fold_fio_groups(l.suite, jobs_of_host(fio, o), fio.groups);
  const std::vector<FioJobMatch> matches = match_fio_jobs(l.suite, jobs);
  std::vector<reporting::JobMatchLine> lines;
  for (const auto& m : matches) lines.push_back({m.job, m.workload, m.how, m.differences});
  std::fputs(reporting::format_job_matches(lines).c_str(), o.console);
  Suite judged = l.suite;
  assemble_results(jobs, matches, o, judged, run);
  subject_deviations(o, device, run);
  accept_deviations(o.accept_deviations, run.deviations, o.console);
  std::fputs(reporting::format_deviation_lines(run.deviations).c_str(), o.console);
  judge_results(l, judged, device, o, run);
  run.environment.end_utc = utc_now();
  run.environment.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  save_run_reports(reporting::default_reports(o.out_dir, o.json_path, o.junit_path, o.html_path,
                                              o.junit_rich, o.ocp_diag_path),
                   o.out_dir, o.store, o.console, out);
  out.exit_code = run.exit_code;
  return out;
}

}  // namespace storqual::runner
