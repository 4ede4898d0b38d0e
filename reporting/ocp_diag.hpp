// SPDX-License-Identifier: Apache-2.0
// The run as an OCP Test & Validation output artifact stream (ocp-diag-core, schema version 2.0):
// JSON Lines, one OutputArtifact per line, valid against the published output schema
// (tests/data/ocp/schema, its source named in tests/data/ocp/README.md). docs/reports.md ("OCP Test
// & Validation output") has the mapping; in short:
//   schemaVersion 2.0;
//   testRunStart: name "storqual", the version and command line, parameters (suite and spec sheet
//     with their SHA-256), the DUT (hardware info "dut": model, serial, vendor, the target; the
//     firmware as a FIRMWARE software info; every identity row in its metadata);
//   a WARNING log per deviation of the run;
//   one test step per workload (its id the step's name): a log of a skip's reason, an error per
//     workload error, measurements of its figures (per direction iops, bw, lat.mean, lat.p99; a
//     SNIA PTS test's named figures) with a validator per claim on the figure (its bound: at least
//     claimed * (1 - tolerance) when higher is better, at most claimed * (1 + tolerance) when
//     lower is), and a diagnosis per judged verdict (PASS, FAIL; UNKNOWN for error, inconclusive
//     and skipped), the verdict's message its message;
//   a step "run" for the verdicts not of one workload (device health, aggregate claims);
//   testRunEnd: COMPLETE/PASS, COMPLETE/FAIL, ERROR/NOT_APPLICABLE (a workload or verdict in
//     error), SKIP/NOT_APPLICABLE (interrupted, inconclusive, measured only, a claim not measured,
//     a --strict run with deviations): the four combinations the specification allows.
// Sequence numbers count from 0; every artifact is stamped with the run's start time
// (Environment::start_utc) except testRunEnd, stamped with its end. The stream is rendered from
// the result as its JSON reads back, so that `storqual report RESULT.json --ocp-diag F` writes
// the same bytes as the run did.
#pragma once

#include <string>

#include "model/result.hpp"

namespace storqual::reporting {

inline constexpr int kOcpSchemaMajor = 2;
inline constexpr int kOcpSchemaMinor = 0;

// The artifact stream, one compact JSON object per line, each line ending in "\n".
[[nodiscard]] std::string render_ocp_diag(const RunResult& run);
// Writes render_ocp_diag(run) to `path` atomically (reporting/atomic_file.hpp).
void write_ocp_diag(const std::string& path, const RunResult& run);

}  // namespace storqual::reporting
