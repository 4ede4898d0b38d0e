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

}  // namespace storqual::runner
