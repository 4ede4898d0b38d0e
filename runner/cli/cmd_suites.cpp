// SPDX-License-Identifier: Apache-2.0
// `storqual suites [NAME|FILE...]`: list the standard suites, or show suites in full with the
// equivalent fio command of every workload.
#include <boost/program_options.hpp>
#include <cstdio>

#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

namespace po = boost::program_options;

void print_suite(const Suite& suite, bool with_fio) {
  std::printf("%-14s %s (%s)\n", suite.name.c_str(), suite.description.c_str(),
              reporting::count_of(suite.workloads.size(), "workload").c_str());
  for (const SuiteWorkload& w : suite.workloads) {
    if (with_fio) {
      std::printf("  %s\n    %s\n", w.id().c_str(), w.fio_equivalent().c_str());
      continue;
    }
    std::printf("  %-22s %s\n", w.id().c_str(), w.method->summary_line(w.spec).c_str());
  }
}

}  // namespace

int cmd_suites(const Args& args) {
  if (!args.empty() && (args[0] == "import" || args[0] == "export"))  // fio jobs in and out
    return (args[0] == "import" ? cmd_suites_import
                                : cmd_suites_export)(Args(args.begin() + 1, args.end()));
  po::options_description visible("storqual suites [NAME|FILE...] [options]");
  std::vector<std::string> suite_dirs;
  visible.add_options()("help,h", "show this help")("verbose,v",
                                                    "print each workload's equivalent fio command")(
      "suites-dir", po::value<std::vector<std::string>>(&suite_dirs),
      "where standard suites are (repeatable; default: the installed share directory, then the "
      "source tree's suites/)");
  po::options_description all;
  std::vector<std::string> names;
  all.add(visible).add_options()("name", po::value<std::vector<std::string>>(&names));
  po::positional_options_description positional;
  positional.add("name", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional,
                            "Without names: one line per standard suite and its workloads. With "
                            "names or files: those suites, with the equivalent fio command of "
                            "every workload. `storqual suites import FILE.fio` and `storqual "
                            "suites export NAME --fio`: fio job files in and out (--help each)."))
    return kExitPass;
  std::vector<std::filesystem::path> dirs(suite_dirs.begin(), suite_dirs.end());
  if (dirs.empty()) dirs = default_suite_dirs();
  const bool with_fio = vm.count("verbose") > 0 || !names.empty();
  try {
    std::vector<std::filesystem::path> files;
    if (names.empty()) {
      files = list_suite_files(dirs);
      if (files.empty()) throw UsageError("no standard suites found (use --suites-dir DIR)");
    } else {
      for (const auto& n : names) files.push_back(resolve_suite(n, dirs));
    }
    bool first = true;
    for (const auto& f : files) {
      if (!first) std::printf("\n");
      first = false;
      print_suite(Suite::load(f), with_fio);
    }
  } catch (const FileError& e) {
    std::fprintf(stderr, "storqual suites: %s\n", e.what());
    return kExitUsage;
  }
  return kExitPass;
}

}  // namespace storqual::runner
