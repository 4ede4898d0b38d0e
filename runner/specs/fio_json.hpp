// SPDX-License-Identifier: Apache-2.0
// fio 3.x's JSON output (`--output-format=json` and `json+`) read into the result model, and its
// jobs matched to a suite's workloads (docs/fio-files.md, "Judging fio's JSON"). fio's own stat.c
// is the reference: `global options` are merged under each job's `job options`; with
// group_reporting one entry stands for a group; the entries of one job's numjobs copies (the same
// jobname and group without group_reporting) are summed into one result; client/server output
// (`client_stats`) carries each entry's `hostname`, and fio's sum over the hosts ("All clients") is
// read but never judged (a result is one device's). Percentiles: fio's own list from `percentile`;
// with json+ `bins`, every claimable percentile (kClaimablePercentiles) computed as fio computes
// its list (stat.c calc_clat_percentiles: the first bin value at which the cumulative count reaches
// p/100 of the samples). Bad input throws FileError "FILE: what" (exit 2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

struct FioJsonJob {
  std::string name;  // jobname
  int groupid = 0;
  std::string hostname;      // client/server output: the server this entry came from; "" otherwise
  bool all_clients = false;  // client/server: fio's sum over every host ("All clients")
  unsigned entries = 1;      // fio entries summed into this one (numjobs copies reported apart)
  // The effective options: `global options`, then the job's own over them.
  std::map<std::string, std::string> options;
  // id = the job's name, params from the options, per-direction counts and latency summaries.
  reporting::WorkloadResult result;
};

struct FioJsonOutput {
  std::string version;             // "fio-3.33"
  std::vector<std::string> notes;  // text before the JSON that was skipped, percentiles, ...
  std::vector<FioJsonJob> jobs;    // in fio's order; numjobs copies already summed
  // fio's groups of different jobs (one host's entries with one groupid and several jobnames, no
  // group_reporting): each the sum of its jobs, named "group N", its jobs' results in
  // result.jobs; a group workload of the suite takes one (fold_fio_groups).
  std::vector<FioJsonJob> groups;
  [[nodiscard]] std::vector<std::string> hosts() const;  // client/server: the hostnames, in order
};

// Parses fio's output as written to a file: text before the first '{' (fio's warnings) is skipped
// and said in a note. `file` names the input in messages.
[[nodiscard]] FioJsonOutput parse_fio_json(std::string_view text, const std::string& file);
[[nodiscard]] FioJsonOutput load_fio_json(const std::filesystem::path& path);

// fio's percentiles of a histogram: `bins` (bin value, count), any order; `samples` fio's N. For
// each p of `percentiles` (ascending), the first bin value at which the running count reaches
// p/100 * samples (long double, as fio); a p the counts never reach is left out.
[[nodiscard]] std::vector<std::pair<double, std::uint64_t>> fio_bin_percentiles(
    std::vector<std::pair<std::uint64_t, std::uint64_t>> bins, std::uint64_t samples,
    std::span<const double> percentiles);

// Which suite workload each job is (docs/fio-files.md, "Judging fio's JSON"): a job whose name is a
// workload's id is that workload; otherwise a job whose rw, bs, iodepth and numjobs (and rwmixread
// for a mix) equal those of exactly one workload not taken by name; else it is measured only. A
// workload takes the first job that matches it.
struct FioJobMatch {
  std::string job;       // the job's name (with its host in client/server output)
  std::string workload;  // the suite workload's id; "" when measured only
  std::string how;       // "by name", "by rw, bs, iodepth, numjobs", or why it is measured only
  std::vector<std::string> differences;  // options of the job that differ from the workload's
};
[[nodiscard]] std::vector<FioJobMatch> match_fio_jobs(const Suite& suite,
                                                      const std::vector<FioJsonJob>& jobs);

// fio's groups for the suite's group workloads: a group workload whose job names are the jobnames
// of one of `groups` (the same names, any order) takes that group, which replaces its jobs in
// `jobs`, named after the workload (so that it is matched by name); its jobs' results are renamed
// and ordered as the workload's jobs. Jobs of no group workload stay as they are.
[[nodiscard]] std::vector<FioJsonJob> fold_fio_groups(const Suite& suite,
                                                      std::vector<FioJsonJob> jobs,
                                                      const std::vector<FioJsonJob>& groups);

}  // namespace storqual::runner
