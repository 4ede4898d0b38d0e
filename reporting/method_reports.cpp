// SPDX-License-Identifier: Apache-2.0
// The method report readers (see method_reports.hpp).
#include "reporting/method_reports.hpp"

#include <mutex>
#include <vector>

namespace storqual::reporting {
namespace {

std::vector<MethodReportReader>& readers() {
  static std::vector<MethodReportReader> list;
  return list;
}
std::once_flag readers_set;

}  // namespace

void set_method_report_readers(std::span<const MethodReportReader> list) {
  std::call_once(readers_set, [&] { readers().assign(list.begin(), list.end()); });
}

std::span<const MethodReportReader> method_report_readers() noexcept {
  return readers();
}

}  // namespace storqual::reporting
