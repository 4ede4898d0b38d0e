// SPDX-License-Identifier: Apache-2.0
// A spec sheet read against its suite: the claims the suite cannot judge. `storqual check` and
// `storqual run` refuse such a pair (exit 2, before anything is measured): a claim that cannot be
// measured must never look like a pass. Apart from spec_sheet.hpp so that a sheet does not depend
// on a suite.
#pragma once

#include <string>
#include <vector>

#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

// Claims the suite cannot judge: on a workload the suite lacks (a typo in the id, or another suite
// than the sheet's), or on a direction a workload does not have (read.iops on a randwrite
// workload). Each is "file:line:column: text"; empty when every claim can be judged.
[[nodiscard]] std::vector<std::string> cross_check(const SpecSheet& sheet, const Suite& suite);

}  // namespace storqual::runner
