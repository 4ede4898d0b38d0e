// SPDX-License-Identifier: Apache-2.0
// `storqual judge --fio-json OUT.json --spec SHEET [--target PATH | --identity FILE]`: fio's JSON
// judged against a spec sheet and reported as a run (runner/qualification/fio_judgement.hpp).
#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "reporting/report_names.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/qualification/deviations.hpp"
#include "runner/qualification/fio_judgement.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

po::options_description judge_options(FioJudgeOptions& o) {
  po::options_description visible(
      "storqual judge --fio-json OUT.json --spec SHEET [--target PATH | --identity FILE] "
      "[options]\n\n"
      "Judges what fio measured (its --output-format=json or json+) against a spec sheet, as\n"
      "`storqual run` judges what it measures, and writes the same reports, marked \"measured by\n"
      "fio VERSION\" with the file's SHA-256. fio's jobs are matched to the sheet's suite by "
      "name,\n"
      "else by rw, bs, iodepth and numjobs (docs/fio-files.md, \"Judging fio's JSON\"). Nothing "
      "is\n"
      "written to any device.\n\noptions");
  visible.add_options()("help,h", "this help")(
      "fio-json", po::value(&o.fio_json)->value_name("FILE"),
      "fio's JSON output (text before the JSON, such as fio's warnings, is skipped)")(
      "spec", po::value(&o.spec_file)->value_name("SHEET"), "the spec sheet to judge against")(
      "target", po::value<std::string>()->value_name("PATH"),
      "the device fio measured: identified as `storqual identify` does (read only)")(
      "identity", po::value<std::string>()->value_name("FILE"),
      "the device's identity saved by `storqual identify --target PATH --json`")(
      "host", po::value<std::string>()->value_name("NAME"),
      "client/server output: judge this server's jobs (its \"hostname\")")(
      "suite", po::value<std::string>()->value_name("NAME|FILE"),
      "standard suite name or suite file (default: the sheet's)")(
      "strict", po::bool_switch(&o.strict),
      "exit 3 (incomplete) when fio ran a workload otherwise than the suite says, or the "
      "sheet's <match> does not fit the device")(
      "accept-deviation", po::value(&o.accept_deviations)->value_name("KIND"),
      "judge the claims anyway when fio's figures are about something else: match (the sheet "
      "does not fit the device), fio-target (fio ran on another file or device than --target), "
      "null-engine; repeatable, listed as accepted in every report")(
      "out", po::value(&o.out_dir)->default_value("."), "directory for the reports")(
      "junit", po::value<std::string>(), "JUnit XML file [OUT/storqual-junit.xml]")(
      "junit-rich", po::bool_switch(&o.junit_rich),
      "JUnit with testcase properties and file/line attributes (docs/reports.md)")(
      "html", po::value<std::string>(), "HTML report [OUT/storqual-report.html]")(
      "json", po::value<std::string>(), "JSON result [OUT/storqual-result.json]")(
      "ocp-diag", po::value<std::string>()->value_name("F"),
      "also write OCP Test & Validation output (JSON Lines) to F");
  return visible;
}

}  // namespace

int cmd_judge(const Args& args) {
  FioJudgeOptions o;
  po::options_description visible = judge_options(o);
  visible.add(archive_record_options());
  po::options_description hidden;
  hidden.add_options()("sysfs-root", po::value(&o.sysfs_root)->default_value("/sys"))(
      "suite-dir", po::value(&o.suite_dirs));
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm)) return kExitPass;
  if (o.fio_json.empty()) throw UsageError("--fio-json is required");
  if (o.spec_file.empty()) throw UsageError("--spec is required");
  check_accepted_kinds(o.accept_deviations);
  auto take = [&](const char* name, std::optional<std::string>& into) {
    if (vm.count(name)) into = vm[name].as<std::string>();
  };
  take("target", o.target);
  take("identity", o.identity_file);
  take("host", o.host);
  take("suite", o.suite);
  take("junit", o.junit_path);
  take("html", o.html_path);
  take("json", o.json_path);
  take("ocp-diag", o.ocp_diag_path);
  // The files, then the acceptance archive (docs/archive.md), as a run's.
  const auto store = recording_store(vm, o.console);
  o.store = store.get();
  return judge_fio_json(o).exit_code;
}

}  // namespace storqual::runner
