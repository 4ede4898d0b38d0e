// SPDX-License-Identifier: Apache-2.0
// `storqual report RESULT.json... [--junit F] [--html F] [--json F]`: re-render saved results.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <system_error>

#include "reporting/atomic_file.hpp"
#include "reporting/console_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "runner/cli.hpp"

namespace storqual::runner {

namespace po = boost::program_options;

int cmd_report(const Args& args) {
  po::options_description visible(
      "usage: storqual report RESULT.json... [--junit F] [--html F] [--json F]\n\n"
      "Re-renders saved result files (written by `storqual run --json`) without measuring again.\n"
      "Several results go into one JUnit file, one <testsuite> each; HTML and JSON take one.\n"
      "Without an output option, prints the verdict table of each result.\n\noptions");
  std::string junit, html, json;
  visible.add_options()("help,h", "show this help")("junit", po::value(&junit)->value_name("F"),
                                                    "write JUnit XML to F")(
      "html", po::value(&html)->value_name("F"), "write the HTML report to F")(
      "json", po::value(&json)->value_name("F"), "write the result JSON (normalised) to F");
  po::options_description hidden;
  std::vector<std::string> inputs;
  hidden.add_options()("result", po::value(&inputs), "result files");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("result", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return kExitPass;
  }
  po::notify(vm);
  if (inputs.empty()) throw UsageError("give at least one RESULT.json (see --help)");
  if (inputs.size() > 1 && (!html.empty() || !json.empty()))
    throw UsageError("--html and --json take one result; merging " + std::to_string(inputs.size()) +
                     " results into one fleet report is not built yet (--junit takes several)");

  std::vector<reporting::RunResult> results;
  for (const auto& path : inputs) {
    try {
      results.push_back(reporting::load_run_result(path));
    } catch (const reporting::ResultJsonError& e) {
      throw UsageError(e.what());
    }
  }
  try {
    if (!junit.empty()) reporting::write_junit(junit, results);
    if (!html.empty()) reporting::write_html(html, results.front());
    if (!json.empty())
      reporting::write_file_atomically(json, reporting::to_json_text(results.front()));
  } catch (const std::system_error& e) {
    throw UsageError(std::string("cannot write the report: ") + e.what());
  }
  if (junit.empty() && html.empty() && json.empty()) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results.size() > 1) std::printf("%s:\n", inputs[i].c_str());
      std::fputs(reporting::format_verdict_table(results[i]).c_str(), stdout);
    }
  } else {
    for (const auto* f : {&junit, &html, &json})
      if (!f->empty()) std::fprintf(stderr, "wrote %s\n", f->c_str());
  }
  return kExitPass;
}

}  // namespace storqual::runner
