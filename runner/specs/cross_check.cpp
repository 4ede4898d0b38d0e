// SPDX-License-Identifier: Apache-2.0
// A spec sheet read against its suite (see cross_check.hpp).
#include "runner/specs/cross_check.hpp"

#include <algorithm>

namespace storqual::runner {
namespace {

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "; did you mean 'randread-4k-qd16'?" for the suite's nearest id, or the suite's ids when none is
// near.
std::string nearest_id(const Suite& suite, const std::string& id) {
  const SuiteWorkload* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& w : suite.workloads) {
    const std::size_t d = edit_distance(id, w.id());
    if (!best || d < best_distance) best = &w, best_distance = d;
  }
  if (!best) return " (it has no workloads)";
  if (best_distance <= std::max<std::size_t>(2, id.size() / 4))
    return "; did you mean '" + best->id() + "'?";
  std::string ids;
  for (const auto& w : suite.workloads) ids += (ids.empty() ? "" : ", ") + w.id();
  return " (its workloads: " + ids + ")";
}

// The member job `name` of a group workload into `job`; else why not ("which has no job of that
// name (its jobs: a, b)").
std::string find_job(const WorkloadSpec& workload, const std::string& name, WorkloadSpec& job) {
  if (workload.jobs.empty()) return "which is not a group of jobs (it has no <job>)";
  std::string names;
  for (WorkloadSpec& m : group_members(workload)) {
    if (m.id == name) {
      job = std::move(m);
      return "";
    }
    names += (names.empty() ? "" : ", ") + m.id;
  }
  return "which has no job of that name (its jobs: " + names + ")";
}

}  // namespace

std::vector<std::string> cross_check(const SpecSheet& sheet, const Suite& suite) {
  std::vector<std::string> warnings;
  for (const Claim& c : sheet.claims) {
    for (const std::string& id : c.workloads) {
      const SuiteWorkload* w = suite.find(id);
      if (!w) {
        warnings.push_back(c.location + ": claim on workload '" + id + "', which suite '" +
                           suite.name + "' lacks" + nearest_id(suite, id));
        continue;
      }
      if (!w->method->claimable()) {
        warnings.push_back(c.location + ": claim on workload '" + id + "', a <" +
                           std::string(w->method->element()) +
                           "> whose result is a testcase of its own, with no figure to claim");
        continue;
      }
      // The claim's subject: the workload (a group: its jobs together), or one job of a group.
      WorkloadSpec subject = w->spec;
      std::string label = "workload '" + id + "'";
      if (!c.job.empty()) {
        const std::string found = find_job(w->spec, c.job, subject);
        if (!found.empty()) {
          warnings.push_back(c.location + ": claim on job '" + c.job + "' of workload '" + id +
                             "', " + found);
          continue;
        }
        label = "job '" + c.job + "' of workload '" + id + "'";
      }
      // A named figure is its method's (the surface scan's scan.read_bw reads although its
      // workload's rw is write); the direction is checked for a workload's own counts.
      if (c.metric.figure) continue;
      const std::string rw = subject.jobs.empty() ? "rw=" + subject.params.rw : "none of its jobs";
      if (c.metric.direction == MetricDirection::Read && !reads(subject))
        warnings.push_back(c.location + ": metric '" + c.metric.name + "' on " + label +
                           ", which does not read (" + rw + ")");
      if (c.metric.direction == MetricDirection::Write && !writes(subject))
        warnings.push_back(c.location + ": metric '" + c.metric.name + "' on " + label +
                           ", which does not write (" + rw + ")");
    }
  }
  return warnings;
}

}  // namespace storqual::runner
