// SPDX-License-Identifier: Apache-2.0
// One workload's section of the HTML report page (html_report.cpp renders the page around it):
// its parameters as run, its flags and errors, the timelines with claim lines and the method's
// marks, the completion-latency percentiles, the method's own section (MethodReport::render_html),
// integrity, fio's numbers and the equivalent fio command.
#pragma once

#include <cstddef>
#include <string>

#include "model/result.hpp"

namespace storqual::reporting {

// Appends the section of run.workloads[index] (`w`) to `o`; its id is anchor_prefix + "w" + index.
void html_workload_section(std::string& o, const RunResult& run, const WorkloadResult& w,
                           std::size_t index, const std::string& anchor_prefix);

}  // namespace storqual::reporting
