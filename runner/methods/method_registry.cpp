// SPDX-License-Identifier: Apache-2.0
// The registry of methods: one line per suite element (method.hpp); each entry carries its
// method's report reader and figures, registered once from here.
#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

#include "model/metric.hpp"
#include "runner/methods/capacity/capacity_check.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/power_cut/power_cut.hpp"
#include "runner/methods/pts/pts_tests.hpp"
#include "runner/methods/self_test/self_test.hpp"
#include "runner/methods/steady_state/steady_state.hpp"
#include "runner/methods/surface_scan/surface_scan.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"

namespace storqual::runner {

namespace {

// One line per suite element; a method's files and its line here are all a method takes
// (docs/architecture.md, "Where to add").
const std::array<MethodEntry, 10>& entries() {
  static const auto all = [] {
    const auto pts = pts_method_entries();
    return std::array<MethodEntry, 10>{workload_method_entry(),  // plain, or rounds to steady state
                                       latency_search_method_entry(),
                                       sustained_write_method_entry(),
                                       capacity_method_entry(),
                                       surface_scan_method_entry(),
                                       pts[0],  // wsat
                                       pts[1],  // dirth
                                       pts[2],  // xsr
                                       pts[3],  // hir
                                       self_test_method_entry()};
  }();
  return all;
}

// One line per method run in steps of their own (method.hpp SteppedMethodEntry).
const std::array<SteppedMethodEntry, 1>& stepped_entries() {
  static const std::array<SteppedMethodEntry, 1> all{power_cut_method_entry()};
  return all;
}

}  // namespace

void register_method_reports() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The run's figures, then each method's in the registry's order (a name is added once).
    reporting::add_figure_rows(reporting::run_figure_rows());
    std::vector<reporting::MethodReportReader> readers;
    for (const MethodEntry& e : entries()) {
      if (e.figure_rows) reporting::add_figure_rows(e.figure_rows());
      if (e.read_report &&
          std::find(readers.begin(), readers.end(), e.read_report) == readers.end())
        readers.push_back(e.read_report);
    }
    reporting::set_method_report_readers(readers);
  });
}

std::span<const MethodEntry> method_entries() noexcept {
  register_method_reports();
  return entries();
}

std::span<const SteppedMethodEntry> stepped_method_entries() noexcept {
  return stepped_entries();
}

const SteppedMethodEntry* find_stepped_method(std::string_view command) noexcept {
  for (const SteppedMethodEntry& e : stepped_entries())
    if (e.command == command) return &e;
  return nullptr;
}

const MethodStep* find_method_step(const SteppedMethodEntry& method,
                                   std::string_view name) noexcept {
  for (const MethodStep& s : method.steps)
    if (s.name == name) return &s;
  return nullptr;
}

std::string stepped_method_help(const SteppedMethodEntry& method) {
  constexpr std::size_t kAboutColumn = 8;  // after "storqual COMMAND "
  std::string out;
  for (const MethodStep& s : method.steps) {
    const std::size_t width = s.name.size() + s.operands.size();
    out += "storqual " + std::string(method.command) + " " + std::string(s.name) +
           std::string(s.operands) +
           std::string(width + 2 > kAboutColumn ? 2 : kAboutColumn - width, ' ') +
           std::string(s.about) + "\n";
  }
  return out + std::string(method.doc);
}

std::string stepped_method_step_names(const SteppedMethodEntry& method) {
  std::string out;
  for (std::size_t i = 0; i < method.steps.size(); ++i) {
    if (i > 0) out += i + 1 == method.steps.size() ? " or " : ", ";
    out += method.steps[i].name;
  }
  return out;
}

}  // namespace storqual::runner
