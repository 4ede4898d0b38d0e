// SPDX-License-Identifier: Apache-2.0
// fio's jobs matched to a suite's workloads (see fio_json.hpp, match_fio_jobs).
#include <algorithm>
#include <cmath>

#include "runner/base/units.hpp"
#include "runner/specs/fio_json.hpp"

namespace storqual::runner {
namespace {

bool is_mix(const std::string& rw) {
  return rw == "rw" || rw == "randrw";
}

// The options that say which workload a job is: rw, bs, iodepth, numjobs, rwmixread for a mix.
bool same_pattern(const reporting::WorkloadParams& job, const reporting::WorkloadParams& w) {
  return job.rw == w.rw && job.bs == w.bs && job.iodepth == w.iodepth && job.numjobs == w.numjobs &&
         (!is_mix(w.rw) || job.rwmixread == w.rwmixread);
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", s);
  return buf;
}

// How the job ran the workload otherwise than the suite says: "bs 8k (suite: 4k)", ...
std::vector<std::string> differences(const reporting::WorkloadParams& job,
                                     const reporting::WorkloadParams& w) {
  std::vector<std::string> out;
  auto differ = [&](const char* name, const std::string& got, const std::string& want) {
    if (got != want) out.push_back(std::string(name) + " " + got + " (suite: " + want + ")");
  };
  differ("rw", job.rw, w.rw);
  differ("bs", format_size_fio(job.bs), format_size_fio(w.bs));
  differ("iodepth", std::to_string(job.iodepth), std::to_string(w.iodepth));
  differ("numjobs", std::to_string(job.numjobs), std::to_string(w.numjobs));
  if (is_mix(w.rw)) differ("rwmixread", std::to_string(job.rwmixread), std::to_string(w.rwmixread));
  if (std::fabs(job.runtime_s - w.runtime_s) > 1e-9)
    differ("runtime", seconds(job.runtime_s), w.runtime_s > 0 ? seconds(w.runtime_s) : "none");
  if (job.size != w.size)
    differ("size", job.size ? format_size_fio(job.size) : "none",
           w.size ? format_size_fio(w.size) : "the whole target");
  differ("ioengine", job.ioengine, w.ioengine);
  differ("direct", job.direct ? "1" : "0", w.direct ? "1" : "0");
  return out;
}

// A group's: each of its jobs against the workload's job of that name ("job writer: bs 64k (suite:
// 128k)"); the jobs' results are in the workload's order (fold_fio_groups).
std::vector<std::string> group_differences(const reporting::WorkloadResult& job,
                                           const WorkloadSpec& w) {
  std::vector<std::string> out;
  const std::vector<WorkloadSpec> members = group_members(w);
  for (std::size_t k = 0; k < members.size() && k < job.jobs.size(); ++k)
    for (const std::string& d : differences(job.jobs[k].params, members[k].params))
      out.push_back("job " + members[k].id + ": " + d);
  return out;
}

std::string label(const FioJsonJob& j) {
  std::string name = j.name;
  if (!j.result.jobs.empty()) {  // a group's (fold_fio_groups): its jobs, fio's group
    name.clear();
    for (const auto& r : j.result.jobs) name += (name.empty() ? "" : ", ") + r.id;
    name += " (fio group " + std::to_string(j.groupid) + ")";
  }
  return j.hostname.empty() ? name : name + " (" + j.hostname + ")";
}

}  // namespace

std::vector<FioJobMatch> match_fio_jobs(const Suite& suite, const std::vector<FioJsonJob>& jobs) {
  std::vector<FioJobMatch> out(jobs.size());
  std::vector<std::string> taken;  // workload ids already given a job
  auto take = [&](std::size_t i, const SuiteWorkload& w, const char* how) {
    out[i].workload = w.id();
    out[i].how = how;
    out[i].differences = w.spec.jobs.empty() || jobs[i].result.jobs.empty()
                             ? differences(jobs[i].result.params, w.spec.params)
                             : group_differences(jobs[i].result, w.spec);
    taken.push_back(w.id());
  };
  auto is_taken = [&](const std::string& id) {
    return std::find(taken.begin(), taken.end(), id) != taken.end();
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    out[i].job = label(jobs[i]);
    if (jobs[i].all_clients) {
      out[i].how = "measured only: fio's sum over every host (judge one host with --host)";
      continue;
    }
    const SuiteWorkload* w = suite.find(jobs[i].name);
    if (w && !is_taken(w->id()))
      take(i, *w, jobs[i].result.jobs.empty() ? "by name" : "by its jobs' names");
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!out[i].workload.empty() || jobs[i].all_clients) continue;
    std::vector<const SuiteWorkload*> fits;
    for (const auto& w : suite.workloads)  // a group is matched by its jobs' names only
      if (!is_taken(w.id()) && w.spec.jobs.empty() &&
          same_pattern(jobs[i].result.params, w.spec.params))
        fits.push_back(&w);
    if (fits.size() == 1) {
      take(i, *fits.front(), "by rw, bs, iodepth, numjobs");
    } else if (fits.size() > 1) {
      std::string ids;
      for (const auto* f : fits) ids += (ids.empty() ? "" : ", ") + f->id();
      out[i].how = "measured only: its options fit " + std::to_string(fits.size()) +
                   " workloads (" + ids + "); name the job after one";
    } else {
      const SuiteWorkload* named = suite.find(jobs[i].name);
      out[i].how = named ? "measured only: workload '" + named->id() + "' was taken by another job"
                         : "measured only: no workload of suite '" + suite.name +
                               "' has its name or its rw, bs, iodepth, numjobs";
    }
  }
  return out;
}

std::vector<FioJsonJob> fold_fio_groups(const Suite& suite, std::vector<FioJsonJob> jobs,
                                        const std::vector<FioJsonJob>& groups) {
  for (const SuiteWorkload& w : suite.workloads) {
    if (w.spec.jobs.empty()) continue;
    std::vector<std::string> names;
    for (const GroupJob& j : w.spec.jobs) names.push_back(j.name);
    std::sort(names.begin(), names.end());
    for (const FioJsonJob& g : groups) {
      std::vector<std::string> got;
      for (const auto& r : g.result.jobs) got.push_back(r.id);
      std::sort(got.begin(), got.end());
      auto in_group = [&](const FioJsonJob& j) {
        return !j.all_clients && j.groupid == g.groupid && j.hostname == g.hostname;
      };
      const auto first = std::find_if(jobs.begin(), jobs.end(), in_group);
      if (got != names || first == jobs.end()) continue;  // another host's, or taken
      FioJsonJob folded = g;
      folded.name = w.id();
      folded.result.id = w.id();
      folded.result.jobs.clear();
      for (const GroupJob& j : w.spec.jobs)
        folded.result.jobs.push_back(
            *std::find_if(g.result.jobs.begin(), g.result.jobs.end(),
                          [&](const reporting::WorkloadResult& r) { return r.id == j.name; }));
      const auto at = first - jobs.begin();
      jobs.erase(std::remove_if(jobs.begin(), jobs.end(), in_group), jobs.end());
      jobs.insert(jobs.begin() + std::min<std::ptrdiff_t>(at, std::ssize(jobs)), std::move(folded));
      break;
    }
  }
  return jobs;
}

}  // namespace storqual::runner
