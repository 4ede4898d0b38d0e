// SPDX-License-Identifier: Apache-2.0
// The qualification run (see qualification.hpp).
#include "runner/qualification/qualification.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "archive/results_store.hpp"
#include "devices/device_identity.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/safety_guard.hpp"
#include "devices/scsi_log.hpp"
#include "devices/self_test.hpp"
#include "devices/sysfs.hpp"
#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/report_names.hpp"
#include "reporting/run_console.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/baseline.hpp"
#include "runner/judge/drift_verdict.hpp"
#include "runner/judge/health_verdict.hpp"
#include "runner/judge/stall_check.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/fault_spec.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/methods/gates/host_limits.hpp"
#include "runner/methods/gates/thermal_watch.hpp"
#include "runner/methods/gates/wear.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/preconditioning/preconditioning.hpp"
#include "runner/qualification/deviations.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/qualification_measure.hpp"
#include "runner/qualification/qualification_target.hpp"
#include "runner/qualification/read_fill.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/qualification/target_preparation.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

// Step 5: the verdicts (claims, data integrity, baseline) and the exit code they make.
void judge_run(const ChosenSuite& chosen, const QualificationOptions& o, double capacity,
               std::optional<reporting::ClaimVerdict> health, reporting::RunResult& run) {
  JudgeContext context;  // per-TB claims scale with the capacity
  if (capacity > 0) context.capacity_bytes = capacity;
  if (run.device.wear) context.wear = &*run.device.wear;
  if (chosen.choice.sheet) context.warranty_years = chosen.choice.sheet->warranty_years;
  run.verdicts = chosen.choice.sheet
                     ? judge(*chosen.choice.sheet, chosen.suite, run.workloads, context)
                     : judge_measured_only(chosen.suite, run.workloads);
  // A deviation that makes the verdict about something else: its claims are inconclusive.
  apply_subject_deviations(run.deviations, run.verdicts);
  // Data integrity of verified workloads is a testcase of its own, claim or not.
  auto integrity = integrity_verdicts(run.workloads);
  run.verdicts.insert(run.verdicts.end(), integrity.begin(), integrity.end());
  // The device's own health is a testcase of its own too: a new critical warning fails the run.
  if (health) run.verdicts.push_back(std::move(*health));
  if (o.baseline) {
    auto against = compare_with_baseline(*o.baseline, run, o.regression_pct);
    run.verdicts.insert(run.verdicts.end(), against.begin(), against.end());
  } else if (o.acceptance) {
    // A re-test of a unit the archive accepted before: judged against that acceptance.
    if (const auto accepted = o.acceptance(reporting::identity_field(run, "serial"))) {
      auto drift = drift_verdicts(*accepted, run);
      run.verdicts.insert(run.verdicts.end(), drift.begin(), drift.end());
    }
  }
  int code = exit_code_for(run.verdicts);
  // --strict: a qualification that deviated from its suite and sheet as written, or judged no
  // claim, is not an acceptance.
  run.strict = o.strict;
  if (o.strict && code == kExitPass && (!run.deviations.empty() || run.measure_only)) {
    code = kExitRuntime;
    std::fputs(reporting::format_strict_incomplete(run.measure_only, run.deviations.size()).c_str(),
               o.console);
  }
  if (int sig = interrupted_exit_code()) code = sig;
  run.exit_code = code;
  run.environment.end_utc = utc_now();
}

// What the command line and the sheet changed, for planned_deviations.
RunOverrides overrides_of(const QualificationOptions& o, const ChosenSuite& chosen,
                          const IdentifiedTarget& target) {
  RunOverrides r;
  r.runtime_scale = o.runtime_scale;
  r.size = o.size;
  r.ioengine = o.ioengine;
  r.early_stop = o.early_stop;
  r.suite = o.suite;
  if (chosen.choice.sheet) r.sheet_suite = chosen.choice.sheet->suite;
  r.sheet_does_not_match = chosen.choice.does_not_match;
  r.drive_sheet = chosen.choice.sheet && is_drive_sheet(*chosen.choice.sheet);
  if (r.sheet_does_not_match)
    r.identity_summary = identity_summary(match_fields(target.identity, target.resolved.kind));
  r.faults_injected = o.fault_plan.has_value();
  return r;
}

void print_deviations(std::FILE* con, const std::vector<reporting::Deviation>& deviations) {
  std::fputs(reporting::format_deviation_lines(deviations).c_str(), con);
}

// How the read workloads get written data (read_fill.hpp): the scratch file is laid out already;
// else a fill where the run may write, unless --no-fill.
ReadPreparation read_preparation(const QualificationOptions& o,
                                 const devices::AdmittedTarget& admitted, bool read_only) {
  if (admitted.kind == devices::AdmittedKind::ScratchFile)
    return ReadPreparation(FillPolicy::LaidOut, admitted.offset + admitted.size);
  if (!o.fill) return ReadPreparation(FillPolicy::NoFill);
  if (read_only) return ReadPreparation(FillPolicy::MayNotWrite, 0, "the device is read-only");
  if (!o.allow_destructive)
    return ReadPreparation(FillPolicy::MayNotWrite, 0,
                           "the run may not write to fill them (--allow-destructive)");
  return ReadPreparation(FillPolicy::Fill);
}

// Whether the identity says the block device is read-only (sysfs `ro`): no fill can run there.
bool read_only_device(const devices::DeviceIdentity& id) {
  for (const auto& row : id.details)
    if (row.field == "read_only") return row.value == "yes";
  return false;
}

// "  writes: this run will write 4.00 GiB in fill passes, ... on /dev/sdb" before anything is
// written.
void print_planned_writes(const Suite& suite, const std::vector<WorkloadSpec>& plan,
                          const QualificationOptions& o, const devices::AdmittedTarget& admitted,
                          const devices::DeviceIdentity& identity, std::FILE* con) {
  if (plan.empty()) return;
  const bool scratch = admitted.kind == devices::AdmittedKind::ScratchFile;
  WrittenRegions written;
  if (scratch) written.add(0, admitted.offset + admitted.size);
  std::uint64_t preconditioning = 0;
  if (suite.precondition && suite.precondition->independent) {
    const WorkloadSpec region = suite_region(plan);
    preconditioning += precondition_bytes(region, o.runtime_scale);
    written.add(0, region.params.size);
  }
  std::vector<bool> preconditioned;
  for (std::size_t i = 0; i < plan.size() && i < suite.workloads.size(); ++i) {
    const auto& p = suite.workloads[i].precondition;
    preconditioned.push_back(p && p->independent);
    if (p && p->independent) preconditioning += precondition_bytes(plan[i], o.runtime_scale);
  }
  const bool fills = !scratch && o.fill && o.allow_destructive && !read_only_device(identity);
  const std::uint64_t fill_bytes = fills ? planned_fill_bytes(plan, written, preconditioned) : 0;
  const std::string text = planned_writes_text(plan, fill_bytes, preconditioning);
  if (!text.empty())
    std::fprintf(con, "  writes: this run will write %s on %s\n", text.c_str(), o.target.c_str());
}

// A host-managed zoned device takes a write only at its zone's write pointer, which no workload
// of storqual's writes at yet (docs/identity-and-safety.md, "Zoned devices"): a plan that writes,
// or fills before reading, is refused before the device is opened, naming the zones and the
// workloads. Reads run (with --no-fill).
void refuse_zoned_writes(const std::vector<WorkloadSpec>& plan, const QualificationOptions& o,
                         const devices::DeviceIdentity& id, bool read_only) {
  if (!id.zones.host_managed()) return;
  std::vector<std::string> writing;
  for (const auto& w : plan)
    if (writes(w)) writing.push_back(w.id);
  const bool fills = o.fill && o.allow_destructive && !read_only &&
                     std::any_of(plan.begin(), plan.end(), [](const auto& w) { return reads(w); });
  if (writing.empty() && !fills) return;
  std::string zones = id.zones.model.value;
  if (id.zones.zones.known()) zones += ", " + id.zones.zones.value + " zones";
  if (id.zones.zone_size_bytes.known())
    zones += " of " + format_bytes_iec(std::stod(id.zones.zone_size_bytes.value));
  std::string what;
  if (!writing.empty())
    what = "the workloads that write (" + reporting::join_text(writing, ", ") + ")";
  if (fills) what += std::string(what.empty() ? "" : " and ") + "the fill before reads (--no-fill)";
  throw devices::SafetyRefusal(
      o.target + " is a zoned block device (" + zones + ", " + id.zones.model.source +
      "): it takes a write only at a zone's write pointer, and storqual's workloads do not write "
      "that way (docs/identity-and-safety.md, \"Zoned devices\"); refusing " +
      what);
}

}  // namespace

// Step 6: the result with its JSON, JUnit and HTML reports, saved through the results store (the
// files by default, archive/results_store.hpp), and the console table.
void save_run_reports(const reporting::ReportSet& reports, const std::string& out_dir,
                      reporting::ResultsStore* store, std::FILE* console,
                      QualificationOutcome& out) {
  const reporting::RunResult& run = out.result;
  out.json_path = reports.json;
  out.junit_path = reports.junit;
  out.html_path = reports.html;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  // An earlier run's reports in the same place are replaced, and the console says so.
  std::vector<std::string> replaced;
  for (const std::string* path : {&reports.json, &reports.junit, &reports.html})
    if (!path->empty() && fs::exists(*path, ec)) replaced.push_back(*path);
  if (!replaced.empty())
    std::fprintf(console, "  note: replacing an earlier run's reports: %s\n",
                 reporting::join_text(replaced, ", ").c_str());
  (store ? *store : reporting::default_results_store()).save(run, reports);
  std::fputs(reporting::format_verdict_table(run).c_str(), console);
  std::fputs(reporting::format_reports_line(reports).c_str(), console);
}

// The path of a run (docs/architecture.md): target and identity, spec sheet and suite, plan and
// admission, measure, judge, report.
QualificationOutcome run_qualification(const QualificationOptions& o) {
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  const auto wall_start = std::chrono::steady_clock::now();
  install_stop_handlers();
  std::vector<std::string> notes;
  IdentifiedTarget target = identify_device(o, run, notes);
  ChosenSuite chosen = choose_suite(o, target, run);
  std::vector<WorkloadSpec> plan = plan_workloads(chosen.suite, o);
  const bool read_only = read_only_device(target.identity);
  refuse_zoned_writes(plan, o, target.identity, read_only);
  const devices::AdmittedTarget admitted =
      admit_plan(plan, o, o.fill && o.allow_destructive && !read_only, notes);  // held to the end
  run.deviations = planned_deviations(chosen.suite, plan, overrides_of(o, chosen, target),
                                      target.identity, target.resolved);
  accept_deviations(o.accept_deviations, run.deviations, nullptr);  // said as accepted already
  print_deviations(o.console, run.deviations);
  ReadPreparation read_data = read_preparation(o, admitted, read_only);
  print_planned_writes(chosen.suite, plan, o, admitted, target.identity, o.console);
  auto health = measure_plan(chosen, plan, o, target, read_data, notes, run);
  auto more = read_data.deviations();
  const auto measured = measured_deviations(run.workloads);
  more.insert(more.end(), measured.begin(), measured.end());
  run.deviations.insert(run.deviations.end(), more.begin(), more.end());
  accept_deviations(o.accept_deviations, run.deviations, o.console);
  judge_run(chosen, o, device_capacity(target.identity), std::move(health), run);
  run.environment.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  save_run_reports(reporting::default_reports(o.out_dir, o.json_path, o.junit_path, o.html_path,
                                              o.junit_rich, o.ocp_diag_path),
                   o.out_dir, o.store, o.console, out);
  out.exit_code = run.exit_code;
  return out;
}

}  // namespace storqual::runner
