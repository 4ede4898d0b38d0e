// SPDX-License-Identifier: Apache-2.0
// Command dispatch: one table of commands, exceptions caught once and turned into exit codes.
#include "runner/cli/cli.hpp"

#include <cstdio>
#include <exception>
#include <iostream>
#include <string_view>

#include "runner/base/invocation.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/methods/method.hpp"
#include "runner/qualification/signals.hpp"

namespace storqual::runner {

namespace po = boost::program_options;
namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const Args&);
};

constexpr Command kCommands[] = {
    {"run", "qualify a device: identify, measure the suite, judge the spec sheet's claims",
     cmd_run},
    {"bench", "run one ad-hoc workload and print fio-like numbers", cmd_bench},
    {"identify", "show who a device is (or list every block device)", cmd_identify},
    {"check", "validate spec sheets and suites", cmd_check},
    {"suites", "list the standard suites; import and export fio job files", cmd_suites},
    {"judge", "judge fio's JSON output against a spec sheet, reported as a run", cmd_judge},
    {"report", "re-render or merge result files", cmd_report},
    {"history", "every archived run of a unit, a model or a tag", cmd_history},
    {"archive", "verify the archive's chain, or import result files into it", cmd_archive},
    {"audit", "the units of an order or lot from the archive, as printable HTML and CSV",
     cmd_audit},
    {"powercut",
     "write records, cut the power, check what the drive kept (arm, check, summary, ...)",
     cmd_powercut},
};

void print_usage(std::FILE* to) {
  std::fprintf(to,
               "usage: storqual COMMAND [options]   (storqual COMMAND --help for its options)\n\n");
  for (const auto& c : kCommands)
    std::fprintf(to, "  %-9.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  std::fprintf(to, "\n  --version   print the version and git revision\n");
}

}  // namespace

bool parse_command_options(const Args& args, const po::options_description& all,
                           const po::options_description& visible, po::variables_map& vm,
                           const po::positional_options_description* positional,
                           std::string_view about) {
  po::command_line_parser parser(args);
  parser.options(all);
  if (positional) parser.positional(*positional);
  po::store(parser.run(), vm);
  if (vm.count("help")) {
    std::cout << visible << "\n";
    if (!about.empty()) std::cout << about << "\n";
    return true;
  }
  po::notify(vm);
  return false;
}

int cli_main(int argc, char** argv) {
  set_invocation(argc, argv);
  register_method_reports();  // before any command reads a result back
  ignore_broken_pipe();       // `storqual run ... | head` must still write its reports
  if (argc < 2) {
    print_usage(stderr);
    return kExitUsage;
  }
  std::string_view first = argv[1];
  if (first == "--version" || first == "-V") {
    std::printf("%s\n", version_string().c_str());
    return kExitPass;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(stdout);
    return kExitPass;
  }
  for (const auto& c : kCommands) {
    if (c.name != first) continue;
    Args args(argv + 2, argv + argc);
    try {
      return c.run(args);
    } catch (...) {
      const ErrorReport e = describe_error(std::current_exception());
      std::fprintf(stderr, "storqual %s: %s\n", argv[1], e.message.c_str());
      return e.exit_code;
    }
  }
  std::fprintf(stderr, "storqual: unknown command '%s'\n\n", argv[1]);
  print_usage(stderr);
  return kExitUsage;
}

}  // namespace storqual::runner
