// SPDX-License-Identifier: Apache-2.0
// A spec sheet read against its suite (see cross_check.hpp).
#include "runner/specs/cross_check.hpp"

#include <algorithm>
#include <cctype>

#include "runner/base/nearest_name.hpp"
#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

// The block size an id names ("randread-4k-qd16": 4096), or 0: its first part that reads as a
// size with a unit (4k, 128k, 1m).
std::uint64_t block_size_in_id(const std::string& id) {
  std::size_t at = 0;
  while (at <= id.size()) {
    const std::size_t end = std::min(id.find_first_of("-_.", at), id.size());
    const std::string part = id.substr(at, end - at);
    if (part.size() >= 2 && std::isdigit(static_cast<unsigned char>(part.front())) &&
        std::isalpha(static_cast<unsigned char>(part.back()))) {
      try {
        return parse_size(part);
      } catch (const UnitError&) {
      }
    }
    at = end + 1;
  }
  return 0;
}

// "; did you mean 'randread-4k-qd16'?" for the suite's nearest id of the same block size as the
// id names (never one of another: that would judge a claim on the wrong workload), or the suite's
// ids when none is near.
std::string nearest_id(const Suite& suite, const std::string& id) {
  if (suite.workloads.empty()) return " (it has no workloads)";
  const std::uint64_t bs = block_size_in_id(id);
  std::vector<std::string> same_size;
  for (const auto& w : suite.workloads)
    if (bs == 0 || (w.spec.jobs.empty() && w.spec.params.bs == bs)) same_size.push_back(w.id());
  if (const auto near = nearest_name(id, same_size)) return "; did you mean '" + *near + "'?";
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
