// SPDX-License-Identifier: Apache-2.0
// `storqual check FILE...`: validate spec sheets and suites, and each sheet against its suite (a
// claim the suite cannot judge is an error); exit 2 on the first bad file.
#include <boost/program_options.hpp>
#include <cstdio>

#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

namespace po = boost::program_options;

namespace {

// Each per-TB claim with the threshold it has at every capacity given (decimal sizes: 1.92TB).
void print_per_tb(const SpecSheet& sheet, const std::vector<double>& capacities) {
  for (const Claim& c : sheet.claims) {
    if (!c.per_tb) continue;
    std::string line = "per-TB claim: " + c.workload_label() + " " + c.metric.name + " " +
                       format_metric_value(c.metric.kind, c.value) + " per TB";
    if (capacities.empty()) line += " (judged against the device's capacity; --capacity shows it)";
    for (double cap : capacities)
      line += "; at " + format_metric_value(MetricKind::Capacity, cap) + ": " +
              format_metric_value(c.metric.kind, claim_threshold(c, cap));
    std::printf("  %s\n", line.c_str());
  }
}

// `--explain`: every claim as it will be judged, one line each: where it is written, the workload
// and metric, the value as written and as read (in the metric's base unit), the tolerance and the
// bound a measurement must meet.
void print_explained(const SpecSheet& sheet) {
  for (const Claim& c : sheet.claims) {
    const std::string where = c.location.substr(c.location.find(':') + 1);
    const double tol = c.tolerance_pct / 100.0;
    const bool higher = c.metric.higher_is_better();
    const double bound = higher ? c.value * (1 - tol) : c.value * (1 + tol);
    char tolerance[32];
    std::snprintf(tolerance, sizeof tolerance, "%g%%", c.tolerance_pct);
    char base[64];
    std::snprintf(base, sizeof base, "%.6g %s%s", c.value, c.metric.unit(), c.per_tb ? "/TB" : "");
    std::printf(
        "  claim at line %s: %s %s \"%s\" = %s (%s), tolerance %s, passes when measured "
        "%s %s%s%s\n",
        where.substr(0, where.find(':')).c_str(), c.workload_label().c_str(), c.metric.name.c_str(),
        c.value_text.c_str(), base, format_metric_value(c.metric.kind, c.value).c_str(), tolerance,
        higher ? ">=" : "<=", format_metric_value(c.metric.kind, bound).c_str(),
        c.per_tb ? " per TB" : "", c.value_note.empty() ? "" : ("; " + c.value_note).c_str());
  }
}

}  // namespace

int cmd_check(const Args& args) {
  po::options_description visible("storqual check FILE... [options]");
  std::vector<std::string> suite_dirs;
  std::vector<std::string> capacity_texts;
  bool explain = false;
  visible.add_options()("help,h", "show this help")(
      "explain", po::bool_switch(&explain),
      "print every claim as it will be judged: workload, metric, the value as written and in "
      "the metric's base unit, the tolerance and the bound a measurement must meet")(
      "capacity", po::value<std::vector<std::string>>(&capacity_texts),
      "show the threshold of each per-TB claim at this device capacity (decimal: 1.92TB, 3840GB; "
      "repeatable)")(
      "suites-dir", po::value<std::vector<std::string>>(&suite_dirs),
      "look for the suites that spec sheets name here (repeatable; default: the installed "
      "share directory, then the source tree's suites/)");
  po::options_description all;
  std::vector<std::string> files;
  all.add(visible).add_options()("file", po::value<std::vector<std::string>>(&files));
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional,
                            "Validates spec sheets and suites (see docs/formats.md); exits 2 on "
                            "the first bad file."))
    return kExitPass;
  if (files.empty()) throw UsageError("expected one or more spec sheet or suite files");

  std::vector<double> capacities;
  for (const auto& t : capacity_texts) {
    try {
      Metric bytes;  // a device capacity in bytes, written as claims write sizes
      bytes.name = "--capacity";
      bytes.kind = MetricKind::Capacity;
      capacities.push_back(parse_claim_value(bytes, t));
    } catch (const UnitError& e) {
      throw UsageError(std::string("--capacity: ") + e.what());
    }
  }
  std::vector<std::filesystem::path> dirs(suite_dirs.begin(), suite_dirs.end());
  if (dirs.empty()) dirs = default_suite_dirs();

  for (const std::string& file : files) {
    try {
      if (is_fio_job_file(file)) {  // a fio job file as a suite (docs/fio-files.md)
        const FioImport im = import_fio_file(file);
        for (const std::string& note : im.ignored) std::fprintf(stderr, "note: %s\n", note.c_str());
        std::printf("ok: %s (fio job file, suite '%s', %s)\n", file.c_str(), im.suite.name.c_str(),
                    reporting::count_of(im.suite.workloads.size(), "workload").c_str());
        continue;
      }
      if (detect_file_kind(file) == FileKind::Suite) {
        Suite suite = Suite::load(file);
        std::printf("ok: %s (suite '%s', %s)\n", file.c_str(), suite.name.c_str(),
                    reporting::count_of(suite.workloads.size(), "workload").c_str());
        continue;
      }
      SpecSheet sheet = SpecSheet::load(file);
      std::filesystem::path suite_path;
      std::string suite_warning;
      try {
        suite_path = resolve_suite_for_sheet(sheet.suite, file, dirs);
      } catch (const FileError& e) {
        suite_warning = e.what();
      }
      if (!suite_path.empty()) {
        // A claim the suite cannot judge is an error: `run` refuses the pair too.
        const std::vector<std::string> problems = cross_check(sheet, Suite::load(suite_path));
        for (const std::string& p : problems)
          std::fprintf(stderr, "storqual check: %s\n", p.c_str());
        if (!problems.empty()) return kExitUsage;
      }
      // "5 claims", and its health limits when it has any: "0 claims, 3 health limits".
      std::string what =
          std::to_string(sheet.claims.size()) + (sheet.claims.size() == 1 ? " claim" : " claims");
      if (const std::size_t n = sheet.health_limits.size())
        what += ", " + std::to_string(n) + (n == 1 ? " health limit" : " health limits");
      std::printf("ok: %s (spec sheet '%s', %s)\n", file.c_str(), sheet.name.c_str(), what.c_str());
      if (!suite_warning.empty())
        std::fprintf(stderr, "warning: %s: %s (its claims are not checked against it)\n",
                     file.c_str(), suite_warning.c_str());
      print_per_tb(sheet, capacities);
      if (explain) print_explained(sheet);
    } catch (const FileError& e) {
      std::fprintf(stderr, "storqual check: %s\n", e.what());
      return kExitUsage;
    }
  }
  return kExitPass;
}

}  // namespace storqual::runner
