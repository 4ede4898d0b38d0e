// SPDX-License-Identifier: Apache-2.0
// `storqual audit --tag K=V [--tag ...] [--serial S | --model M] [--since D] [--until D] --html F
// [--csv F]`: the units of a purchase order, a lot or a model for the audit file, with each one's
// latest verdict, the SHA-256 of its files, a summary, the model's figures by lot and the archive's
// chain status (docs/archive.md, "Audit").
#include <boost/program_options.hpp>
#include <cstdio>

#include "archive/archive.hpp"
#include "archive/audit_report.hpp"
#include "reporting/atomic_file.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

// The options as given, for the page's title: "--tag po=4711 --model X".
std::string selection_text(const reporting::HistoryQuery& q) {
  std::string out;
  for (const auto& t : q.tags) out += " --tag " + t.key + "=" + t.value;
  if (q.serial) out += " --serial " + *q.serial;
  if (q.model) out += " --model " + *q.model;
  if (q.since) out += " --since " + *q.since;
  if (q.until) out += " --until " + *q.until;
  return out.empty() ? out : out.substr(1);
}

reporting::HistoryQuery audit_query(const po::variables_map& vm) {
  reporting::HistoryQuery q;
  q.tags = archive_tags_of(vm);
  if (vm.count("serial")) q.serial = vm["serial"].as<std::string>();
  if (vm.count("model")) q.model = vm["model"].as<std::string>();
  if (q.serial && q.model) throw UsageError("audit: give --serial or --model, not both");
  if (q.tags.empty() && !q.serial && !q.model)
    throw UsageError("audit: give --tag K=V (and --serial or --model to narrow it; see --help)");
  if (vm.count("since"))
    q.since = reporting::parse_history_time(vm["since"].as<std::string>(), "--since");
  if (vm.count("until"))
    q.until = reporting::parse_history_time(vm["until"].as<std::string>(), "--until");
  return q;
}

}  // namespace

int cmd_audit(const Args& args) {
  po::options_description visible(
      "usage: storqual audit --tag K=V [--tag K=V...] [--serial S | --model M] [--since D] "
      "[--until D] --html FILE [--csv FILE] [--archive X]\n\nThe units of a selection (every "
      "--tag, narrowed by the others; --serial or --model alone selects too) for the audit file: "
      "each unit's latest verdict, health, "
      "date, host, storqual version, the SHA-256 of its result and report files and its tags; "
      "the pass/fail/incomplete counts per model; each model's IOPS by lot over time (tag lot), "
      "this selection against the model's other runs; and the archive's chain status (archive "
      "verify). A self-contained printable HTML page, and CSV for spreadsheets. Exit 0, or 1 "
      "when the archive's chain is broken (the page says where).\n\noptions");
  visible.add_options()("help,h", "this help")(
      "tag", po::value<std::vector<std::string>>()->value_name("K=V"),
      "runs recorded with this tag (repeat: all of them)")(
      "serial", po::value<std::string>(), "only this unit")("model", po::value<std::string>(),
                                                            "only this model")(
      "since", po::value<std::string>()->value_name("D"), "runs that started at or after D (UTC)")(
      "until", po::value<std::string>()->value_name("D"), "runs that started before D (UTC)")(
      "html", po::value<std::string>()->value_name("FILE"), "write the audit page here")(
      "csv", po::value<std::string>()->value_name("FILE"), "and one CSV line per unit here");
  visible.add(archive_location_option());
  po::variables_map vm;
  if (parse_command_options(args, visible, visible, vm)) return kExitPass;
  const reporting::HistoryQuery q = audit_query(vm);
  if (!vm.count("html")) throw UsageError("audit: --html FILE is required");
  const reporting::ArchiveLocation where = archive_location_of(vm);
  require_archive_to_read(where, "nothing to audit");
  const auto archive = reporting::Archive::open_to_read(where);
  const std::string selection = selection_text(q);
  const auto page = reporting::collect_audit(*archive, q, selection, version_string());
  if (page.units.empty())
    throw UsageError("audit: no run in " + where.display() + " matches " + selection);
  reporting::write_file_atomically(vm["html"].as<std::string>(),
                                   reporting::format_audit_html(page));
  if (vm.count("csv"))
    reporting::write_file_atomically(vm["csv"].as<std::string>(),
                                     reporting::format_audit_csv(page));
  std::printf("audit %s: %zu units, %zu runs; archive %s: %lld records, %s; head %s\n",
              selection.c_str(), page.units.size(), page.selected.size(), where.display().c_str(),
              static_cast<long long>(page.chain.records),
              page.chain.problem ? ("the chain is broken: " + *page.chain.problem).c_str()
                                 : "the chain is whole",
              page.chain.head_hash.c_str());
  std::printf("wrote %s%s%s\n", vm["html"].as<std::string>().c_str(), vm.count("csv") ? ", " : "",
              vm.count("csv") ? vm["csv"].as<std::string>().c_str() : "");
  return page.chain.problem ? kExitClaimFailed : kExitPass;
}

}  // namespace storqual::runner
