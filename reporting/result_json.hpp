// SPDX-License-Identifier: Apache-2.0
// The result file: RunResult <-> JSON with the stable keys documented in docs/reports.md ("JSON").
//
// Shape (keys in this order): {"storqual_version", "environment", "device", "spec", "workloads",
// "verdicts", "exit_code"}. A workload: {"id", "kind", "params": {rw, bs, iodepth, numjobs,
// runtime_s, ramp_time_s, size, offset, rwmixread, ioengine, direct, target}, "read"?, "write"?,
// "cpu": {usr_pct, sys_pct, max_thread_pct, spin_pct}, "elapsed_s", "timeline": [...], "errors":
// [...], "interrupted", "fio_command", "steady"?, "steady_state"?, for latency searches
// "latency_curve": [{iodepth, iops, latency_ns, within_limit}], "latency_limit_ns",
// "latency_stat", then "sustained"?, "host_limit"?, "preconditioning"? (omitted when empty),
// "skipped"?, "integrity"?, "capacity"?}; the members of those objects are keyed by their names in
// result.hpp (docs/reports.md lists them). A direction:
// {"ios", "bytes", "iops", "bw_bytes", "errors", "first_errno", "first_error_offset", "short_ios",
// "slat_ns", "clat_ns", "lat_ns"}, each latency {"min", "max", "mean", "stdev", "samples",
// "percentiles": {"99.900000": N, ...}} with percentile keys printed as fio does ("%f"). A side
// that did not run is omitted ("?": written only when set; null reads back as not set).
// Non-finite numbers are written as null and read back as NaN.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/errors.hpp"
#include "model/result.hpp"

namespace storqual::reporting {

// Bad result JSON: the message starts with the JSON path, e.g.
// "workloads[1].read.clat_ns.min: expected a non-negative integer, got string".
class ResultJsonError : public storqual::Error {
 public:
  explicit ResultJsonError(const std::string& what) : Error(what, kExitUsage) {}
};

[[nodiscard]] nlohmann::ordered_json to_json(const RunResult& result);
[[nodiscard]] std::string to_json_text(const RunResult& result);  // pretty, 2-space indent, "\n"

// Parses and validates. Throws ResultJsonError (never crashes) on any input: syntax errors,
// nesting deeper than 64, wrong types, negative counts, unknown verdict statuses. Unknown keys are
// ignored (newer writers may add fields).
[[nodiscard]] RunResult run_result_from_json(std::string_view text);
[[nodiscard]] RunResult run_result_from_json_value(const nlohmann::ordered_json& json);
// Reads a result file; ResultJsonError names the file.
[[nodiscard]] RunResult load_run_result(const std::string& path);

}  // namespace storqual::reporting
