// SPDX-License-Identifier: Apache-2.0
// How a method's own report (model/method_report.hpp) is read back from a result's JSON: each
// method registers a reader (runner/methods/method_registry.cpp, register_method_reports, before
// anything reads a result), and the reader of reporting/result_json.cpp asks them in turn. A
// reader returns the report when the workload object is its method's (by its "kind", or its keys),
// null otherwise; it may fill what the method publishes beside it (WorkloadResult::figures). A
// workload whose kind no reader takes is refused, naming the kind: a result is never read with
// part of it silently dropped.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "model/method_report.hpp"
#include "model/result.hpp"

namespace storqual::reporting {

namespace json {
class Node;
}  // namespace json

using MethodReportReader = std::shared_ptr<const MethodReport> (*)(const json::Node& workload,
                                                                   std::string_view kind,
                                                                   WorkloadResult& result);

// Sets the readers, once for the process, before any result is read (later calls are ignored).
void set_method_report_readers(std::span<const MethodReportReader> readers);
[[nodiscard]] std::span<const MethodReportReader> method_report_readers() noexcept;

}  // namespace storqual::reporting
