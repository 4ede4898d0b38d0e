// SPDX-License-Identifier: Apache-2.0
// The lines a run prints to the console while it goes (the verdict table at its end and the live
// progress are console_report.hpp, a workload's fio-layout block fio_summary.hpp): the header of a
// run, its deviations, what happened to a workload, --strict, where the reports went, and a
// fleet's banners and summary table. Each function returns the text, ending in '\n', built from
// model types and plain values; runner/qualification/ decides when to print it and where.
// Strings are printed as given (as printf's %s: up to a NUL), plain ASCII otherwise.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "reporting/report_names.hpp"

namespace storqual::reporting {

// The three lines a run starts with.
struct RunHeader {
  std::string target;                // as the user gave it
  std::string vendor, model;         // of the identity, either may be "" (unknown)
  std::string transport;             // "nvme", "sata", ...
  std::optional<std::string> sheet;  // the chosen sheet's name; none: "none"
  std::string sheet_why;             // why that sheet (or none)
  std::string suite;                 // the suite's name
  std::size_t workloads = 0;         // in the suite
};
// "storqual run: /dev/nvme0n1, ACME X1 (nvme)\n"
// "  spec sheet: ACME X1 (matched model)\n"
// "  suite: client, 3 workloads\n"
[[nodiscard]] std::string format_run_header(const RunHeader& header);

// "  deviation: TEXT\n" for each deviation, in order; "" for none.
[[nodiscard]] std::string format_deviation_lines(const std::vector<Deviation>& deviations);
// "  fill: 1.00 GiB written sequentially (1.00 MiB blocks, QD8) in 2.31 s (443.2 MiB/s) so that
// 'randread-4k-qd32' reads written data, outside its measured time; 64 blocks sampled before it
// read all zeros (...)": the fill before a read workload (model/result.hpp FillReport).
[[nodiscard]] std::string format_fill_line(const std::string& id, const FillReport& f);

// "  ID: skipped: WHY\n": a workload not run (its block size does not fit the device).
[[nodiscard]] std::string format_workload_skipped(const std::string& id, const std::string& why);
// "  ID: short self-test (ata): 40% done, about 1 min 12 s left\n": a running self-test's poll
// (runner/methods/self_test/self_test.hpp); what the drive does not say is left out.
[[nodiscard]] std::string format_self_test_progress(const std::string& id, const std::string& what,
                                                    std::optional<double> percent_done,
                                                    std::optional<double> remaining_s);
// "  ID: short self-test (ata): passed: completed without error\n"
[[nodiscard]] std::string format_self_test_end(const std::string& id, const std::string& what,
                                               const std::string& outcome, const std::string& text);
// A time in the words of a progress line: "45 s", "1 min 12 s", "3 h 5 min".
[[nodiscard]] std::string format_duration_words(double seconds);
// "  ID: error: WHAT\n": a workload that threw, or one of its errors.
[[nodiscard]] std::string format_workload_error(const std::string& id, const std::string& what);
// format_workload_error for each of `errors`, in order; "" for none.
[[nodiscard]] std::string format_workload_errors(const std::string& id,
                                                 const std::vector<std::string>& errors);
// "  device gone: WHY; 2 workloads not run\n"
[[nodiscard]] std::string format_device_gone(const std::string& why, std::size_t not_run);
// --strict made a pass exit 3: "  --strict: no claim was judged: incomplete (exit 3)\n" for a
// measure-only run, else "  --strict: 2 deviations: incomplete (exit 3)\n".
[[nodiscard]] std::string format_strict_incomplete(bool measure_only, std::size_t deviations);
// "reports: JUNIT JSON HTML\n"
[[nodiscard]] std::string format_reports_line(const ReportSet& reports);

// A fleet (runner/qualification/fleet_run.cpp).
// "  baseline: TEXT\n": what the baseline check said of a target.
[[nodiscard]] std::string format_baseline_line(const std::string& text);
// "storqual run: TARGET: ERROR\n": a target that did not run, or stopped in error.
[[nodiscard]] std::string format_target_error(const std::string& target, const std::string& error);
// "storqual run: 3 targets in parallel (output of each when it ends)\n"
[[nodiscard]] std::string format_fleet_parallel_start(std::size_t targets);
// "==== TARGET (LABEL) ====\n" then `output`, the target's console text (of a parallel run).
[[nodiscard]] std::string format_fleet_target_output(const std::string& target,
                                                     const std::string& label,
                                                     const std::string& output);
// "==== [2/3] TARGET (LABEL) ====\n": `number` counts from 1 (of a sequential run).
[[nodiscard]] std::string format_fleet_target_start(std::size_t number, std::size_t count,
                                                    const std::string& target,
                                                    const std::string& label);
// The summary table: an empty line and the header, then one row per target.
[[nodiscard]] std::string format_fleet_table_header();
// A target that ran: `number` (from 1), its model and serial, its overall verdict, `exit_code`
// and "3 pass, 1 fail (1 lot), 0 error, 0 skipped -> JSON" (`lot_flags`: the checks in which
// it is its lot's outlier).
[[nodiscard]] std::string format_fleet_row(std::size_t number, const std::string& target,
                                           const RunResult& run, std::size_t lot_flags,
                                           int exit_code, const std::string& json_path);
// A target that did not run: "-" for model and serial, "NOT RUN", the exit code and why.
[[nodiscard]] std::string format_fleet_not_run_row(std::size_t number, const std::string& target,
                                                   int exit_code, const std::string& error);
// "merged reports (3 devices, 1 lot outliers): JUNIT JSON HTML\n"
[[nodiscard]] std::string format_merged_reports(std::size_t devices, std::size_t lot_outliers,
                                                const ReportSet& merged);
// "RESULT: FAIL, exit 1 (3 targets, 1 lot outlier)\n"
[[nodiscard]] std::string format_fleet_result(const std::string& verdict, int exit_code,
                                              std::size_t targets, std::size_t lot_outliers);

// `storqual judge` (runner/qualification/fio_judgement.hpp): what it judges and how fio's jobs
// matched the suite's workloads.
struct JudgeHeader {
  MeasuredBy measured_by;
  std::string device;  // "loop3 (ACME X1)", or what says there is no identity
  std::string sheet, suite;
  std::size_t workloads = 0;       // in the suite
  std::vector<std::string> notes;  // of the parser: text skipped before the JSON, jobs summed
};
// "storqual judge: measured by fio-3.33: FILE (SHA-256 HEX)\n", the device, sheet and suite lines
// and a "  note: ..." line each.
[[nodiscard]] std::string format_judge_header(const JudgeHeader& header);
// One line per fio job: "  job 'JOB' -> workload 'ID' (by name)" or "  job 'JOB': measured only:
// WHY", and "    differs: bs 8k (suite: 4k), ..." when it ran the workload otherwise.
struct JobMatchLine {
  std::string job, workload, how;
  std::vector<std::string> differences;
};
[[nodiscard]] std::string format_job_matches(const std::vector<JobMatchLine>& lines);
// "  workload 'ID': no fio job ran it: skipped\n"
[[nodiscard]] std::string format_workload_unmatched(const std::string& id);

}  // namespace storqual::reporting
