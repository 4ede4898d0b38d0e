// SPDX-License-Identifier: Apache-2.0
// Several targets in one run, and the merged summary (see fleet_run.hpp).
#include "runner/qualification/fleet_run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "archive/results_store.hpp"
#include "devices/device_identity.hpp"
#include "devices/safety_guard.hpp"
#include "devices/scratch_file.hpp"
#include "devices/sysfs.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/report_names.hpp"
#include "reporting/run_console.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/baseline.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/signals.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

struct TargetRun {
  std::string target, label;
  std::optional<QualificationOutcome> outcome;
  std::string error;         // why it did not run
  bool interrupted = false;  // by a signal, before or while it ran
  int exit_code = 0;
};

// The reports a single run of `base` would write: the fleet's merged ones, and with a target's
// label inserted, that target's own.
reporting::ReportSet base_reports(const QualificationOptions& base) {
  return reporting::default_reports(base.out_dir, base.json_path, base.junit_path, base.html_path,
                                    base.junit_rich, base.ocp_diag_path);
}

// One target, every exception turned into an exit code and a message (as cli_main would).
void qualify_one(TargetRun& t, QualificationOptions o, bool any_model) {
  try {
    if (o.baseline)
      std::fputs(reporting::format_baseline_line(check_baseline_for_target(o, any_model)).c_str(),
                 o.console);
    t.outcome = run_qualification(o);
    t.exit_code = t.outcome->exit_code;
  } catch (...) {
    const ErrorReport e = describe_error(std::current_exception());
    t.error = e.message;
    t.exit_code = e.exit_code;
    t.interrupted = interrupted_exit_code() != 0;
  }
  if (!t.error.empty())
    std::fputs(reporting::format_target_error(t.target, t.error).c_str(), o.console);
}

QualificationOptions options_for(const QualificationOptions& base, const TargetRun& t) {
  QualificationOptions o = base;
  o.target = t.target;
  const reporting::ReportSet own = reporting::with_label(base_reports(base), t.label);
  o.json_path = own.json;
  o.junit_path = own.junit;
  o.html_path = own.html;
  if (base.ocp_diag_path) o.ocp_diag_path = own.ocp_diag;
  return o;
}

// A target that did not run is still a unit of the fleet: in error, with the reason, so the
// merged JUnit and the fleet page show it as the table and the exit code do.
reporting::RunResult not_run_result(const TargetRun& t) {
  reporting::RunResult r;
  r.environment = capture_environment();
  r.device.name = t.target;
  r.device.path = t.target;
  reporting::ClaimVerdict v;
  v.workloads = {"storqual run"};
  v.metric = "result";
  v.status = reporting::VerdictStatus::Error;
  if (t.interrupted) v.error_cause = reporting::ErrorCause::Interrupted;
  v.message = "not run (exit " + std::to_string(t.exit_code) + "): " + t.error;
  r.verdicts.push_back(std::move(v));
  r.exit_code = t.exit_code;
  return r;
}

int severity(int code) {
  switch (code) {
    case kExitPass:
      return 0;
    case kExitClaimFailed:
      return 1;
    case kExitUsage:
      return 2;
    case kExitRuntime:
      return 3;
    default:
      return 4;  // interrupted
  }
}

}  // namespace

std::vector<std::string> target_labels(const std::vector<std::string>& targets) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const auto& t : targets) {
    fs::path p(t);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "dir/" -> "dir"
    std::string label = p.filename().string();
    if (label.empty() || label == "/" || label == "." || label == "..") label = "target";
    for (auto& c : label)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
        c = '_';
    const int n = ++seen[label];
    out.push_back(n == 1 ? label : label + "-" + std::to_string(n));
  }
  return out;
}

std::string check_baseline_for_target(const QualificationOptions& o, bool any_model) {
  if (!o.baseline) return {};
  std::string model, serial;
  devices::Sysfs sysfs{o.sysfs_root};
  const auto resolved = sysfs.resolve(o.target);
  const auto id = devices::read_identity(sysfs, resolved.device);
  model = id.model.value.empty() ? std::string(devices::to_string(id.transport)) + " (no model)"
                                 : id.model.value;
  serial = id.serial.value;
  return check_baseline_identity(*o.baseline, model, serial, any_model);
}

int run_several_targets(const QualificationOptions& base, const std::vector<std::string>& targets,
                        bool parallel, bool baseline_any_model, double lot_tolerance_pct) {
  const auto labels = target_labels(targets);
  std::vector<TargetRun> runs(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    runs[i].target = targets[i];
    runs[i].label = labels[i];
  }
  std::FILE* con = base.console;
  std::error_code ec;
  fs::create_directories(base.out_dir, ec);
  if (parallel) {
    std::mutex print;
    std::vector<std::thread> threads;
    std::fputs(reporting::format_fleet_parallel_start(targets.size()).c_str(), con);
    std::fflush(con);
    for (auto& t : runs)
      threads.emplace_back([&t, &base, &print, con, baseline_any_model] {
        char* text = nullptr;
        std::size_t size = 0;
        std::FILE* buffer = open_memstream(&text, &size);
        QualificationOptions o = options_for(base, t);
        o.console = buffer ? buffer : con;
        qualify_one(t, o, baseline_any_model);
        if (buffer) {
          std::fclose(buffer);
          std::lock_guard lock(print);
          std::fputs(
              reporting::format_fleet_target_output(t.target, t.label, text ? text : "").c_str(),
              con);
          std::fflush(con);
          std::free(text);
        }
      });
    for (auto& th : threads) th.join();
  } else {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (interrupted_exit_code()) {
        runs[i].error = "not started: the run was interrupted";
        runs[i].interrupted = true;
        runs[i].exit_code = interrupted_exit_code();
        continue;
      }
      std::fputs(
          reporting::format_fleet_target_start(i + 1, runs.size(), runs[i].target, runs[i].label)
              .c_str(),
          con);
      qualify_one(runs[i], options_for(base, runs[i]), baseline_any_model);
    }
  }

  // The merged summary: lot acceptance first, so the table, the exit code, the merged JUnit and
  // the fleet page all count a lot outlier as a failed check (docs/fleet.md, "Lot acceptance").
  // fleet.runs[i] is runs[i]'s result.
  std::vector<reporting::RunResult> results;
  for (const auto& t : runs) results.push_back(t.outcome ? t.outcome->result : not_run_result(t));
  const auto fleet = reporting::build_fleet(std::move(results), lot_tolerance_pct);
  std::vector<std::size_t> flags(fleet.runs.size(), 0);
  for (const auto& c : fleet.lot)
    for (const auto& u : c.units) flags[u.run] += u.flagged ? 1 : 0;

  int worst = kExitPass;
  std::fputs(reporting::format_fleet_table_header().c_str(), con);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& t = runs[i];
    if (t.outcome) {
      const auto& r = fleet.runs[i];
      const std::size_t lot_flags = flags[i];
      // A unit that passed its own claims but is its lot's outlier fails, as in the JUnit.
      if (lot_flags && t.exit_code == kExitPass) t.exit_code = kExitClaimFailed;
      std::fputs(reporting::format_fleet_row(i + 1, t.target, r, lot_flags, t.exit_code,
                                             t.outcome->json_path)
                     .c_str(),
                 con);
    } else {
      std::fputs(reporting::format_fleet_not_run_row(i + 1, t.target, t.exit_code, t.error).c_str(),
                 con);
    }
    if (severity(t.exit_code) > severity(worst)) worst = t.exit_code;
  }
  {
    // The merged reports take the paths a single run would have used.
    const reporting::ReportSet merged = base_reports(base);
    (base.store ? *base.store : reporting::default_results_store()).save(fleet, merged);
    std::fputs(
        reporting::format_merged_reports(fleet.runs.size(), fleet.flagged_count(), merged).c_str(),
        con);
  }
  std::fputs(reporting::format_fleet_result(reporting::fleet_verdict(fleet), worst, runs.size(),
                                            fleet.flagged_count())
                 .c_str(),
             con);
  return worst;
}

}  // namespace storqual::runner
