// SPDX-License-Identifier: Apache-2.0
// `storqual history --serial S | --model M | --tag K=V [--since D] [--until D] [--json|--csv]`:
// every archived run of a unit, a model or a tag (docs/archive.md, "History").
#include <boost/program_options.hpp>
#include <cstdio>

#include "archive/archive.hpp"
#include "archive/history_format.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
int cmd_history(const Args& args) {
  po::options_description visible(
      "usage: storqual history --serial S | --model M | --tag K=V [--since D] [--until D] "
      "[--json | --csv] [--archive X]\n\nEvery run the archive holds of a unit, a model or a "
      "tag, oldest first: date, host, serial, model, firmware, suite, verdict (exit code) and "
      "each workload's IOPS.\n\noptions");
  visible.add_options()("help,h", "this help")("serial", po::value<std::string>(), "the unit")(
      "model", po::value<std::string>(), "the model")(
      "tag", po::value<std::vector<std::string>>()->value_name("K=V"),
      "runs recorded with this tag (repeat: all of them)")(
      "since", po::value<std::string>()->value_name("D"), "runs that started at or after D (UTC)")(
      "until", po::value<std::string>()->value_name("D"), "runs that started before D (UTC)")(
      "json", po::bool_switch(), "print JSON")("csv", po::bool_switch(), "print CSV");
  visible.add(archive_location_option());
  po::variables_map vm;
  if (parse_command_options(args, visible, visible, vm)) return kExitPass;
  reporting::HistoryQuery q;
  if (vm.count("serial")) q.serial = vm["serial"].as<std::string>();
  if (vm.count("model")) q.model = vm["model"].as<std::string>();
  q.tags = archive_tags_of(vm);
  if (!q.serial && !q.model && q.tags.empty())
    throw UsageError("give --serial, --model or --tag (see --help)");
  if (vm.count("since"))
    q.since = reporting::parse_history_time(vm["since"].as<std::string>(), "--since");
  if (vm.count("until"))
    q.until = reporting::parse_history_time(vm["until"].as<std::string>(), "--until");
  const bool json = vm["json"].as<bool>(), csv = vm["csv"].as<bool>();
  if (json && csv) throw UsageError("give --json or --csv, not both");
  const reporting::ArchiveLocation where = archive_location_of(vm);
  require_archive_to_read(where, "no history");
  const auto rows = reporting::Archive::open_to_read(where)->history(q);
  const std::string text = json  ? reporting::format_history_json(rows)
                           : csv ? reporting::format_history_csv(rows)
                                 : reporting::format_history_table(rows);
  std::fputs(text.c_str(), stdout);
  return kExitPass;
}

}  // namespace storqual::runner
