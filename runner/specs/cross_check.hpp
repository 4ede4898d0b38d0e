// SPDX-License-Identifier: Apache-2.0
// A spec sheet read against its suite: what a run will skip or judge as an error (`storqual check`
// prints these as warnings). Apart from spec_sheet.hpp so that a sheet does not depend on a suite.
#pragma once

#include <string>
#include <vector>

#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

// Problems between a sheet and its suite that are not errors (a run still works): claims on
// workloads the suite lacks (reported as skipped at run time) and claims on a direction a workload
// does not have (read.iops on a randwrite workload; an error verdict at run time). Each is
// "file:line:column: warning text".
[[nodiscard]] std::vector<std::string> cross_check(const SpecSheet& sheet, const Suite& suite);

}  // namespace storqual::runner
