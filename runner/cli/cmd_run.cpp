// SPDX-License-Identifier: Apache-2.0
// `storqual run`: the qualification of one device (or several: runner/qualification/fleet_run.hpp)
// against its spec sheet, optionally compared with an earlier result (runner/judge/baseline.hpp).
#include <boost/program_options.hpp>
#include <cstdio>
#include <string>
#include <string_view>

#include "reporting/report_names.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/judge/baseline.hpp"
#include "runner/measure/early_stop.hpp"
#include "runner/measure/fault_spec.hpp"
#include "runner/qualification/deviations.hpp"
#include "runner/qualification/fleet_run.hpp"
#include "runner/qualification/qualification.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

// "JUnit XML file [OUT/storqual-junit.xml]": a report option's help with its default name.
std::string report_help(const char* what, std::string_view file) {
  return std::string(what) + " [OUT/" + std::string(file) + "]";
}

// The visible options of `storqual run` (its --help).
po::options_description run_options() {
  po::options_description visible(
      "storqual run --target PATH [--target PATH...] [--spec FILE | --specs DIR] [options]");
  visible.add_options()("help,h", "this help")(
      "target", po::value<std::vector<std::string>>(),
      "block device, or a directory (a scratch file is made in it) or file; repeat for several "
      "devices (reports get the device's name inserted, plus merged fleet reports)")(
      "parallel", po::bool_switch(), "with several targets: qualify them at the same time")(
      "lot-tolerance", po::value<std::string>()->default_value("10%"),
      "with several targets: flag a unit this much worse than its model's median")(
      "baseline", po::value<std::string>(),
      "an earlier result (JSON) of this device or model: adds a 'baseline: <id> iops' test per "
      "workload")(
      "regression", po::value<std::string>()->default_value("5%"),
      "with --baseline: the allowed drop of IOPS or bandwidth (or rise of mean latency)")(
      "baseline-any-model", po::bool_switch(),
      "with --baseline: compare even when the baseline is of another model")(
      "spec", po::value<std::string>(), "the spec sheet to judge against")(
      "specs", po::value<std::string>(), "a directory of spec sheets: the one matching the device")(
      "suite", po::value<std::string>(),
      "standard suite name or suite file (default: the sheet's; another one is a deviation)")(
      "measure-only", po::bool_switch(),
      "allow a run that judges nothing: when no sheet of --specs matches the device (an error "
      "without it); the reports say 'measured only'")(
      "strict", po::bool_switch(),
      "exit 3 (incomplete) when the run deviates from its suite and sheet as written (scaled "
      "runtimes, --size, another engine or suite, a memory-backed target, a busy or host-limited "
      "host, ...: docs/reports.md) or judged no claim")(
      "accept-deviation", po::value<std::vector<std::string>>()->value_name("KIND"),
      "judge the claims anyway when the run has this deviation, which makes a verdict about "
      "something else (match, memory-target, unwritten-reads; docs/reports.md); repeatable; "
      "listed as accepted in every report")(
      "no-fill", po::bool_switch(),
      "do not write a read workload's region before it reads (docs/measurement.md, \"Reads of "
      "written data\"); its read claims are then inconclusive")(
      "out", po::value<std::string>()->default_value("."), "directory for the reports")(
      "junit", po::value<std::string>(),
      report_help("JUnit XML file", reporting::kJunitFileName).c_str())(
      "junit-rich", po::bool_switch(),
      "JUnit with testcase properties and file/line attributes (GitLab, GitHub actions, Jenkins "
      "JUnit plugin; rejected by schema-checking readers: docs/reports.md)")(
      "html", po::value<std::string>(),
      report_help("HTML report", reporting::kHtmlFileName).c_str())(
      "json", po::value<std::string>(),
      report_help("JSON result", reporting::kResultFileName).c_str())(
      "ocp-diag", po::value<std::string>()->value_name("F"),
      "also write the run as OCP Test & Validation output (JSON Lines) to F; when F is a "
      "directory, to storqual-ocp.jsonl in it (docs/reports.md, OCP Test & Validation output)")(
      "ioengine", po::value<std::string>(), "override every workload's engine")(
      "runtime-scale", po::value<double>()->default_value(1.0),
      "multiply every runtime and ramp_time (e.g. 0.01 for a CI smoke run)")(
      "size", po::value<std::string>(),
      "override every workload's size (e.g. a small scratch file)")(
      "early-stop", po::value<std::string>()->implicit_value("ci:1%@95"),
      "stop each time-limited workload once its IOPS interval is within +-H% and steady: "
      "ci:H%@C[,min=T][,cover=P] (alone: ci:1%@95; off: the suite's full runtimes; "
      "docs/measurement.md)")("allow-destructive", po::bool_switch(),
                              "allow write workloads on a block device or file")(
      "force", po::bool_switch(),
      "with --allow-destructive: ignore a filesystem/partition signature")(
      "allow-nvme-purge", po::bool_switch(),
      "let a suite's purge=\"format\" or \"sanitize\" erase the whole NVMe namespace or subsystem")(
      "resume", po::bool_switch(),
      "continue an interrupted surface scan from its checkpoint beside the reports "
      "(docs/burn-in.md)")(
      "allow-self-test", po::bool_switch(),
      "let a suite's <self-test> start the drive's own self-test (ATA, SCSI, NVMe); it changes the "
      "drive's state and stays in its self-test log, writes no data")(
      "thermal-interval", po::value<std::string>()->default_value("5s"),
      "NVMe: read the SMART log's temperature and thermal management counters this often during "
      "each workload, to mark throttled intervals (0 = off)");
  return visible;
}

}  // namespace

int cmd_run(const Args& args) {
  po::options_description visible = run_options();
  visible.add(archive_record_options());
  po::options_description hidden;
  hidden.add_options()("sysfs-root", po::value<std::string>()->default_value("/sys"))(
      "nvme-capture", po::value<std::string>())("inject-fault", po::value<std::string>())(
      "suite-dir", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm)) return kExitPass;
  QualificationOptions o;
  if (!vm.count("target")) throw UsageError("--target is required");
  const auto targets = vm["target"].as<std::vector<std::string>>();
  o.target = targets.front();
  if (vm.count("spec") && vm.count("specs")) throw UsageError("give --spec or --specs, not both");
  if (vm.count("spec")) o.spec_file = vm["spec"].as<std::string>();
  if (vm.count("specs")) o.specs_dir = vm["specs"].as<std::string>();
  if (vm.count("suite")) o.suite = vm["suite"].as<std::string>();
  o.measure_only = vm["measure-only"].as<bool>();
  if (o.measure_only && o.spec_file)
    throw UsageError("--measure-only judges nothing: it does not go with --spec");
  o.strict = vm["strict"].as<bool>();
  if (vm.count("accept-deviation"))
    o.accept_deviations = vm["accept-deviation"].as<std::vector<std::string>>();
  check_accepted_kinds(o.accept_deviations);
  o.fill = !vm["no-fill"].as<bool>();
  o.out_dir = vm["out"].as<std::string>();
  if (vm.count("junit")) o.junit_path = vm["junit"].as<std::string>();
  o.junit_rich = vm["junit-rich"].as<bool>();
  if (vm.count("html")) o.html_path = vm["html"].as<std::string>();
  if (vm.count("json")) o.json_path = vm["json"].as<std::string>();
  if (vm.count("ocp-diag")) o.ocp_diag_path = vm["ocp-diag"].as<std::string>();
  if (vm.count("ioengine")) o.ioengine = vm["ioengine"].as<std::string>();
  o.runtime_scale = vm["runtime-scale"].as<double>();
  if (!(o.runtime_scale > 0 && o.runtime_scale <= 1000))
    throw UsageError("--runtime-scale must be greater than 0 and at most 1000");
  if (vm.count("size")) o.size = parse_size(vm["size"].as<std::string>());
  if (vm.count("early-stop")) {
    o.early_stop = vm["early-stop"].as<std::string>();
    try {
      (void)parse_early_stop(*o.early_stop);
    } catch (const UnitError& e) {
      throw UsageError(std::string("--early-stop: ") + e.what());
    }
  }
  o.allow_destructive = vm["allow-destructive"].as<bool>();
  o.force = vm["force"].as<bool>();
  o.allow_nvme_purge = vm["allow-nvme-purge"].as<bool>();
  o.resume = vm["resume"].as<bool>();
  o.allow_self_test = vm["allow-self-test"].as<bool>();
  if (o.allow_nvme_purge && !o.allow_destructive)
    throw UsageError("--allow-nvme-purge needs --allow-destructive");
  o.sysfs_root = vm["sysfs-root"].as<std::string>();
  if (vm.count("nvme-capture")) o.nvme_capture = vm["nvme-capture"].as<std::string>();
  o.thermal_interval_s = parse_duration(vm["thermal-interval"].as<std::string>());
  if (o.thermal_interval_s != 0 && o.thermal_interval_s < 0.01)
    throw UsageError("--thermal-interval must be 0 (off) or at least 10ms");
  if (vm.count("inject-fault"))
    o.fault_plan = parse_fault_plan(vm["inject-fault"].as<std::string>());
  if (vm.count("suite-dir")) o.suite_dirs = vm["suite-dir"].as<std::vector<std::string>>();
  const bool any_model = vm["baseline-any-model"].as<bool>();
  if (vm.count("baseline")) {
    o.baseline = load_baseline(vm["baseline"].as<std::string>());
    o.regression_pct = parse_percent(vm["regression"].as<std::string>());
    if (!(o.regression_pct >= 0 && o.regression_pct < 100))
      throw UsageError("--regression must be at least 0% and below 100%");
  }
  const double lot_tolerance = parse_percent(vm["lot-tolerance"].as<std::string>());
  if (!(lot_tolerance >= 0 && lot_tolerance < 100))
    throw UsageError("--lot-tolerance must be at least 0% and below 100%");
  // The files, then the acceptance archive (docs/archive.md).
  const auto store = recording_store(vm, o.console);
  o.store = store.get();
  if (!o.baseline)
    o.acceptance = [s = store.get()](const std::string& serial) {
      return s->acceptance_of(serial);
    };
  if (targets.size() > 1)
    return run_several_targets(o, targets, vm["parallel"].as<bool>(), any_model, lot_tolerance);
  if (o.baseline)
    std::fprintf(o.console, "  baseline: %s\n", check_baseline_for_target(o, any_model).c_str());
  return run_qualification(o).exit_code;
}

}  // namespace storqual::runner
