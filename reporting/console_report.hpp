// SPDX-License-Identifier: Apache-2.0
// What a person sees in the terminal: the verdict table at the end of a run, and a live progress
// line while a workload runs.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// Counts of verdicts by status and the overall outcome: ERROR (the run could not judge
// everything) over INCONCLUSIVE over INCOMPLETE (a claim was skipped, or --strict with a
// deviation) over FAIL over PASS; a run that judged no claim is MEASURED ("MEASURED ONLY" in
// headlines, never a pass).
struct VerdictCounts {
  int pass = 0, fail = 0, error = 0, skipped = 0, measured_only = 0;
  int inconclusive = 0;    // not decided (too few samples): incomplete, outranks fail
  int skipped_claims = 0;  // skipped claims of the sheet: incomplete, outranks fail
  int deviations = 0;      // RunResult::deviations
  bool strict = false;     // --strict: a deviation makes a pass incomplete
  [[nodiscard]] const char* overall() const;
  // overall() as a headline says it: "PASS with 3 deviations", "MEASURED ONLY".
  [[nodiscard]] std::string headline() const;
};
[[nodiscard]] VerdictCounts count_verdicts(const RunResult& run);

// The deviations that touch a workload: those naming it, and those of the whole run.
[[nodiscard]] std::vector<const Deviation*> deviations_of(const RunResult& run,
                                                          const std::string& workload);

// A fixed-width table: workload, metric, claimed, measured, diff, tolerance, status; then a line
// "RESULT: PASS with 2 deviations (3 pass, 0 fail, 0 error, 1 skipped, 2 measured-only)" and the
// deviations, one a line. Plain ASCII.
[[nodiscard]] std::string format_verdict_table(const RunResult& run);

// The live progress of a run. On a terminal one line is rewritten with '\r' at every update();
// otherwise a plain line is printed every `plain_interval_s` of workload time (and at the end of
// each workload), so logs of CI jobs stay readable. Time comes from the caller (no clock inside).
// Not thread-safe: call from one thread.
class LiveProgress {
 public:
  LiveProgress(std::FILE* out, bool is_terminal, double plain_interval_s = 10.0);
  // `expected_s`: ramp + runtime of the workload, 0 when unknown (no ETA then).
  void start_workload(std::size_t index, std::size_t count, const std::string& id,
                      double expected_s);
  void update(double elapsed_s, double iops, double bw_bytes_per_s);
  // From the workload's running totals (I/Os and bytes counted so far, summed over its jobs):
  // each line shows the rate since the line before it (on a terminal the previous call; in log
  // mode the previous printed line, so a line every 10 s is the mean of those 10 s, not of the
  // last instant). Before `measuring` (the ramp) the line says "ramp" instead of a rate. With
  // `total_bytes` (the bytes the workload moves in all; `bytes` may start above 0, what an earlier
  // session did) the line shows the share done and an ETA from the mean rate since measuring began:
  // "[1/1] scan  00:01:10 37.2% ETA 00:01:58  1.2k IOPS  152.3 MB/s".
  void update_totals(double elapsed_s, std::uint64_t ios, std::uint64_t bytes, bool measuring,
                     std::uint64_t total_bytes = 0);
  void finish_workload(double elapsed_s, double iops, double bw_bytes_per_s);
  [[nodiscard]] static bool is_terminal(std::FILE* stream);
  // The text of one progress line (without '\r' or '\n'), for tests and the printer.
  [[nodiscard]] std::string line(double elapsed_s, double iops, double bw_bytes_per_s) const;

 private:
  std::FILE* out_;
  bool terminal_;
  double interval_s_;
  std::size_t index_ = 0, count_ = 0;
  std::string id_;
  double expected_s_ = 0;
  double next_plain_s_ = 0;
  std::size_t last_width_ = 0;
  // update_totals: the totals at the start of the current rate window.
  double window_t_ = 0;
  std::uint64_t window_ios_ = 0, window_bytes_ = 0;
  bool window_measuring_ = false;
  // update_totals with total_bytes: the share done and the ETA of the last line ("" when unknown).
  std::string done_text_;
  double measuring_t_ = 0;
  std::uint64_t measuring_bytes_ = 0;
};

}  // namespace storqual::reporting
