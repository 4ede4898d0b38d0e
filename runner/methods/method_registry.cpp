// SPDX-License-Identifier: Apache-2.0
// The registry of methods: one line per suite element, one reader per method report (method.hpp).
// Adding a method is its own files and a line in each list here (docs/architecture.md, "Where to
// add").
#include <array>
#include <mutex>

#include "model/metric.hpp"

#include "runner/methods/capacity_check.hpp"
#include "runner/methods/latency_search.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/pts_tests.hpp"
#include "runner/methods/steady_state.hpp"
#include "runner/methods/sustained_write.hpp"

namespace storqual::runner {

void register_method_reports() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The named figures in the order claims' messages list them: the methods' and the run's.
    reporting::add_figure_rows(sustained_write_figure_rows());
    reporting::add_figure_rows(capacity_figure_rows());
    reporting::add_figure_rows(reporting::run_figure_rows());
    reporting::add_figure_rows(pts_figure_rows());
    static constexpr reporting::MethodReportReader kReaders[] = {
        &read_steady_state_report, &read_latency_search_report, &read_sustained_write_report,
        &read_capacity_report, &read_pts_report};
    reporting::set_method_report_readers(kReaders);
  });
}

std::span<const MethodEntry> method_entries() noexcept {
  static const auto entries = [] {
    register_method_reports();
    const auto pts = pts_method_entries();
    return std::array<MethodEntry, 8>{workload_method_entry(),  // plain, or rounds to steady state
                                      latency_search_method_entry(),
                                      sustained_write_method_entry(),
                                      capacity_method_entry(),
                                      pts[0],   // wsat
                                      pts[1],   // dirth
                                      pts[2],   // xsr
                                      pts[3]};  // hir
  }();
  return entries;
}

}  // namespace storqual::runner
