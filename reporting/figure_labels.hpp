// SPDX-License-Identifier: Apache-2.0
// What each figure is, in words a reader meets next to the number: which direction (read, write
// or read+write), summed over how many jobs or per job, which latency (lat or clat) and statistic,
// over which interval. The console, the HTML and the verdict messages use the same words, and the
// glossary (docs/reports.md, "Glossary") defines each term once.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// "4 jobs" / "1 job".
[[nodiscard]] std::string jobs_text(unsigned numjobs);

// The definition of a claim metric's measured value on workload `w`, e.g. for "iops" on a randrw
// workload with 4 jobs: "read+write IOPS, sum over 4 jobs, mean over 600 s"; for "lat.p99":
// "p99 of lat (submission to completion) over every I/O of 1 job, the worse of read and write";
// a latency search adds "at iodepth 32, the search's choice".
[[nodiscard]] std::string metric_definition(std::string_view metric, const WorkloadResult& w);

// The definition of a throughput figure of `w` shown without a claim: "read+write, sum over 4
// jobs, mean over 600 s" (direction: "read", "write" or "read+write").
[[nodiscard]] std::string throughput_definition(std::string_view direction,
                                                const WorkloadResult& w);

// "lat.mean" -> "mean of lat (submission to completion)"; "clat.p99" -> "p99 of clat (completion
// only, submission excluded)".
[[nodiscard]] std::string latency_stat_definition(std::string_view stat);

// The offsets' pattern of a random workload: "random map (each block once per pass)" or
// "norandommap (drawn with replacement)"; "" for a sequential one.
[[nodiscard]] std::string offset_pattern(const WorkloadParams& p);

// The glossary: (term, definition), in the order docs/reports.md lists them.
[[nodiscard]] const std::vector<std::pair<std::string, std::string>>& glossary();

}  // namespace storqual::reporting
