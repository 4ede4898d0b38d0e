// SPDX-License-Identifier: Apache-2.0
// `storqual suites import FILE.fio | --fio-cmd '...' [--out F]` and `storqual suites export
// NAME|FILE --fio [--target T] [--out F]`: fio job files and command lines as suite XML, and suites
// as fio job files (runner/specs/fio_suite.hpp, docs/fio-files.md).
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>

#include "runner/base/xml_file.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/specs/fio_suite.hpp"

namespace storqual::runner {
namespace {

namespace po = boost::program_options;

void write_out(const std::string& text, const std::string& out) {
  if (out.empty() || out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw FileError(out + ": cannot write");
}

void print_ignored(const FioImport& im) {
  for (const std::string& line : im.ignored) std::fprintf(stderr, "note: %s\n", line.c_str());
}

}  // namespace

int cmd_suites_import(const Args& args) {
  po::options_description visible(
      "storqual suites import FILE.fio | --fio-cmd 'fio ...' [options]");
  std::string out, command, name;
  visible.add_options()("help,h", "show this help")(
      "fio-cmd", po::value<std::string>(&command),
      "a fio command line (several --name jobs; quoted as a shell would)")(
      "out,o", po::value<std::string>(&out), "write the suite XML here (default: stdout)")(
      "name", po::value<std::string>(&name), "the suite's name (default: the file's stem)");
  po::options_description all;
  std::vector<std::string> files;
  all.add(visible).add_options()("file", po::value<std::vector<std::string>>(&files));
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional,
                            "Reads a fio job file or command line and writes the suite XML of "
                            "its jobs; an option storqual cannot honour is an error naming it, "
                            "options that only shape fio's output are listed as notes."))
    return kExitPass;
  if (files.size() + (vm.count("fio-cmd") ? 1 : 0) != 1)
    throw UsageError("expected one job file or --fio-cmd");
  try {
    FioImport im = files.empty() ? import_fio_command(command) : import_fio_file(files.front());
    if (!name.empty()) im.suite.name = name;
    print_ignored(im);
    write_out(suite_xml_text(im.suite), out);
  } catch (const FileError& e) {
    std::fprintf(stderr, "storqual suites import: %s\n", e.what());
    return kExitUsage;
  }
  return kExitPass;
}

int cmd_suites_export(const Args& args) {
  po::options_description visible("storqual suites export NAME|FILE --fio [options]");
  std::string out, target;
  std::vector<std::string> suite_dirs;
  visible.add_options()("help,h", "show this help")("fio", "write a fio job file (the only form)")(
      "target", po::value<std::string>(&target), "the filename= of the job file")(
      "out,o", po::value<std::string>(&out), "write it here (default: stdout)")(
      "suites-dir", po::value<std::vector<std::string>>(&suite_dirs),
      "where standard suites are (repeatable)");
  po::options_description all;
  std::vector<std::string> names;
  all.add(visible).add_options()("name", po::value<std::vector<std::string>>(&names));
  po::positional_options_description positional;
  positional.add("name", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional,
                            "Writes a fio job file that fio runs as storqual runs the suite: one "
                            "job per workload, one after another."))
    return kExitPass;
  if (names.size() != 1) throw UsageError("expected one suite name or file");
  if (!vm.count("fio")) throw UsageError("expected --fio (the form to export to)");
  std::vector<std::filesystem::path> dirs(suite_dirs.begin(), suite_dirs.end());
  if (dirs.empty()) dirs = default_suite_dirs();
  try {
    const std::filesystem::path path = resolve_suite(names.front(), dirs);
    const Suite suite = is_fio_job_file(path) ? import_fio_file(path).suite : Suite::load(path);
    // A standard suite by its name, a file by its absolute path: the header's command then works
    // from any directory.
    const std::string source = std::filesystem::exists(names.front())
                                   ? std::filesystem::absolute(path).lexically_normal().string()
                                   : names.front();
    write_out(fio_job_text(suite, target, source), out);
  } catch (const FileError& e) {
    std::fprintf(stderr, "storqual suites export: %s\n", e.what());
    return kExitUsage;
  }
  return kExitPass;
}

}  // namespace storqual::runner
