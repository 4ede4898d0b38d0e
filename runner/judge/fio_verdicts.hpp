// SPDX-License-Identifier: Apache-2.0
// What fio's JSON cannot decide (docs/fio-files.md, "Judging fio's JSON"): after `judge`, a claim
// on a latency percentile that came out in error because fio reported no such value is made
// inconclusive with the reason and what to run instead: a lat.* percentile when fio reported clat
// percentiles only (fio prints lat percentiles only with --lat_percentiles=1), a percentile that is
// not in fio's list when the JSON has no bins to compute it from (--output-format=json+). Too few
// samples beyond a percentile is the judge's own rule (runner/measure/tail_samples.hpp).
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {

// Why fio's output cannot decide claim `c` on `results`, or "" when it can (or the claim is no
// percentile's).
[[nodiscard]] std::string fio_undecidable(const Claim& c,
                                          const std::vector<reporting::WorkloadResult>& results);

// `verdicts` as `judge` returned them for `sheet` (its claims first, in sheet order): each claim
// verdict in error that fio_undecidable explains becomes inconclusive with that reason.
void mark_fio_undecidable(const SpecSheet& sheet,
                          const std::vector<reporting::WorkloadResult>& results,
                          std::vector<reporting::ClaimVerdict>& verdicts);

}  // namespace storqual::runner
