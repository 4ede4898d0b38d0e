// SPDX-License-Identifier: Apache-2.0
// The matrices of the HTML report (html_matrix.cpp); internal to reporting/ (html_report.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// One grid of workloads: block sizes by read mixes, every combination exactly once.
struct WorkloadMatrix {
  bool random = true;
  std::string value;                 // "iops", "bw" or "lat" (mean latency, for a grid run at T1Q1)
  std::vector<std::uint64_t> sizes;  // ascending
  std::vector<unsigned> mixes;       // read percent, descending (100 ... 0)
  std::map<std::pair<std::uint64_t, unsigned>, std::size_t> cells;  // -> workload index
};

// The grids the run's plain workloads form (random and sequential apart).
std::vector<WorkloadMatrix> find_matrices(const RunResult& run);
// One grid as a table, each cell linking to its workload (`prefix` before the anchors).
void matrix_section(std::string& o, const RunResult& run, const WorkloadMatrix& m,
                    const std::string& prefix);

}  // namespace storqual::reporting
