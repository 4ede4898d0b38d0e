// SPDX-License-Identifier: Apache-2.0
// Internal to runner/specs/ (fio_suite.cpp): a fio job's options that a method takes in place of
// a plain run (MethodEntry::fio_options, e.g. fio's latency_target for a latency search), and a
// job whose file is the kernel's null or zero device (fio's steadystate.fio), which storqual runs
// on its null engine.
#pragma once

#include <string>
#include <vector>

#include "runner/specs/fio_job.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

struct FioJobMethods {
  std::vector<FioMethodOption> options;   // in the order fio applies them
  std::string device_file, device_where;  // filename=/dev/null or /dev/zero, and where
};

// Whether a method takes the option `name` (canonical): then it is kept in `m` and the option
// table is not asked. A filename is looked at and left to the table.
[[nodiscard]] bool collect_method_option(FioJobMethods& m, const FioOption& o,
                                         const std::string& name);

// The job's workload `w` as the method its options name (a plain run where none does), its
// null device file as the null engine; what differs from fio goes to `notes`. `together`: the
// distinct jobs fio runs at the same time as this one (a method takes one job). Throws
// FileError naming the option.
void take_job_method(const FioJobMethods& m, std::size_t together, const std::string& job,
                     SuiteWorkload& w, std::vector<std::string>& notes);

}  // namespace storqual::runner
