// SPDX-License-Identifier: Apache-2.0
// `storqual report RESULT.json... [--junit F] [--html F] [--json F] [--lot-tolerance P]`: re-render
// saved results, or merge several into one fleet report (docs/fleet.md).
#include <boost/program_options.hpp>
#include <cstdio>
#include <system_error>

#include "archive/results_store.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fleet_report.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"

namespace storqual::runner {

namespace po = boost::program_options;

int cmd_report(const Args& args) {
  po::options_description visible(
      "usage: storqual report RESULT.json... [--junit F] [--html F] [--json F] [--ocp-diag F]\n\n"
      "Re-renders saved result files (written by `storqual run --json`) without measuring again.\n"
      "Several results (or fleet files) are merged into one fleet report: one JUnit <testsuite>\n"
      "per device, an HTML page with the fleet table, per-claim charts and every device, and a\n"
      "fleet JSON. Units of one model are compared with each other (lot acceptance): a unit more\n"
      "than --lot-tolerance worse than the lot median is flagged (testcase \"lot: <workload>\n"
      "<metric>\"). Without an output option, prints the verdict table of each result.\n\noptions");
  std::string junit, html, json, ocp_diag, lot_tolerance = "10%";
  bool junit_rich = false;
  visible.add_options()("help,h", "show this help")("junit", po::value(&junit)->value_name("F"),
                                                    "write JUnit XML to F")(
      "junit-rich", po::bool_switch(&junit_rich),
      "JUnit with testcase properties and file/line attributes (GitLab, GitHub actions, Jenkins "
      "JUnit plugin; rejected by schema-checking readers: docs/reports.md)")(
      "html", po::value(&html)->value_name("F"), "write the HTML report (or fleet page) to F")(
      "json", po::value(&json)->value_name("F"),
      "write the result JSON (normalised), or the fleet JSON, to F")(
      "ocp-diag", po::value(&ocp_diag)->value_name("F"),
      "write one result as OCP Test & Validation output (JSON Lines) to F")(
      "lot-tolerance", po::value(&lot_tolerance)->value_name("P")->default_value("10%"),
      "flag a unit more than P worse than its lot's median (same model)");
  visible.add(archive_record_options());
  po::options_description hidden;
  std::vector<std::string> inputs;
  hidden.add_options()("result", po::value(&inputs), "result files");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("result", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional)) return kExitPass;
  if (inputs.empty()) throw UsageError("give at least one RESULT.json (see --help)");
  double lot_tolerance_pct = 0;
  try {
    lot_tolerance_pct = parse_percent(lot_tolerance);
  } catch (const UnitError& e) {
    throw UsageError(std::string("--lot-tolerance: ") + e.what());
  }
  if (!(lot_tolerance_pct >= 0 && lot_tolerance_pct < 100))
    throw UsageError("--lot-tolerance must be at least 0% and below 100%, got " + lot_tolerance);

  // The files; a merge then goes to the acceptance archive too (docs/archive.md).
  const auto recording = recording_store(vm, stderr);
  reporting::ResultsStore& files = reporting::default_results_store();
  reporting::ResultsStore& store = files;
  std::vector<reporting::RunResult> results;
  std::vector<std::string> origins;  // the input file of each result, for the console
  for (const auto& path : inputs) {
    for (auto& r : store.load(path)) {
      results.push_back(std::move(r));
      origins.push_back(path);
    }
  }
  if (results.empty()) throw UsageError("the inputs hold no result");
  const bool merged = results.size() > 1;
  if (merged && !ocp_diag.empty())
    throw UsageError("--ocp-diag writes one result; the inputs hold " +
                     std::to_string(results.size()));
  reporting::FleetReport fleet;
  if (merged) {
    fleet = reporting::build_fleet(std::move(results), lot_tolerance_pct);
    results = fleet.runs;
  }
  try {
    const reporting::ReportSet reports{json, junit, html, junit_rich, ocp_diag};
    merged ? recording->save(fleet, reports) : store.save(results.front(), reports);
  } catch (const std::system_error& e) {
    throw UsageError(std::string("cannot write the report: ") + e.what());
  }
  if (merged) {
    std::fprintf(stderr, "merged %zu results from %zu files; lot: %zu comparisons, %zu flagged\n",
                 results.size(), inputs.size(), fleet.lot.size(), fleet.flagged_count());
    std::printf("fleet: %s\n", reporting::fleet_summary(fleet).c_str());
  }
  if (junit.empty() && html.empty() && json.empty() && ocp_diag.empty()) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results.size() > 1) std::printf("%s:\n", origins[i].c_str());
      std::fputs(reporting::format_verdict_table(results[i]).c_str(), stdout);
    }
  } else {
    for (const auto* f : {&junit, &html, &json, &ocp_diag})
      if (!f->empty()) std::fprintf(stderr, "wrote %s\n", f->c_str());
  }
  return kExitPass;
}

}  // namespace storqual::runner
