// SPDX-License-Identifier: Apache-2.0
// Step 4 of a qualification run, measuring (qualification_measure.cpp; docs/architecture.md, "The
// path of a run"): health before, each planned workload through its method (preconditioning, the
// fill of what reads need, progress, busy host, thermal sampler, fault injection), health between
// and after; internal to runner/qualification/ (qualification.cpp runs it after steps 1 to 3,
// qualification_target.hpp, and judges and reports what it measured).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "runner/measure/workload.hpp"
#include "runner/qualification/qualification.hpp"
#include "runner/qualification/qualification_target.hpp"
#include "runner/qualification/read_fill.hpp"

namespace storqual::runner {

// The region the whole plan touches, from 0: what the suite-level <precondition> runs over.
[[nodiscard]] WorkloadSpec suite_region(const std::vector<WorkloadSpec>& plan);

// Step 4: health before, every workload of the plan in order (until a stop request or the device
// going away), health after (and between workloads); each result in run.workloads, the notes of
// health reads in `notes` (and run.device). Returns the device-health testcase when the health
// degraded during the run.
[[nodiscard]] std::optional<reporting::ClaimVerdict> measure_plan(
    const ChosenSuite& chosen, const std::vector<WorkloadSpec>& plan, const QualificationOptions& o,
    const IdentifiedTarget& target, ReadPreparation& read_data, std::vector<std::string>& notes,
    reporting::RunResult& run);

}  // namespace storqual::runner
