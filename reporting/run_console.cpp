// SPDX-License-Identifier: Apache-2.0
// The console lines of a run and of a fleet (see run_console.hpp).
#include "reporting/run_console.hpp"

#include <cstdarg>
#include <cstdio>

#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/text_sanitize.hpp"

namespace storqual::reporting {
namespace {

// printf into a string of whatever length it takes.
__attribute__((format(printf, 1, 2))) std::string printf_text(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), format, again);
    out.resize(static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

// The summary table's row layout: number, target, model, serial, verdict, exit, the rest.
constexpr const char* kFleetRow = "%-3zu %-22s %-24s %-20s %-9s %-5d %s\n";

}  // namespace

std::string format_run_header(const RunHeader& h) {
  // The vendor, model and transport came from the device: no control character to the terminal.
  std::string who = terminal_text(h.vendor);  // either may be unknown (""): no double space
  if (!h.model.empty()) who += (who.empty() ? "" : " ") + terminal_text(h.model);
  return printf_text("storqual run: %s, %s%s(%s)\n", h.target.c_str(), who.c_str(),
                     who.empty() ? "" : " ", terminal_text(h.transport).c_str()) +
         printf_text("  spec sheet: %s (%s)\n", h.sheet ? h.sheet->c_str() : "none",
                     h.sheet_why.c_str()) +
         printf_text("  suite: %s, %s\n", h.suite.c_str(),
                     count_of(h.workloads, "workload").c_str());
}

std::string format_deviation_lines(const std::vector<Deviation>& deviations) {
  std::string out;
  for (const auto& d : deviations)
    out += printf_text("  deviation: %s%s\n", d.text.c_str(),
                       d.accepted ? (" [accepted: --accept-deviation " + d.kind + "]").c_str()
                       : d.changes_subject ? (" [its claims are inconclusive; --accept-deviation " +
                                              d.kind + " judges them]")
                                                 .c_str()
                                           : "");
  return out;
}

std::string format_fill_line(const std::string& id, const FillReport& f) {
  std::string sample;
  if (f.sampled_blocks)
    sample = printf_text(
        "; %u blocks sampled before it read %s", f.sampled_blocks,
        f.sample_all_zero ? "all zeros (never written or deallocated)" : "data (not all zeros)");
  return printf_text(
      "  fill: %s written sequentially (%s blocks, QD%u) in %.2f s (%s) so that "
      "'%s' reads written data, outside its measured time%s\n",
      format_bytes_iec(static_cast<double>(f.bytes)).c_str(),
      format_bytes_iec(static_cast<double>(f.block)).c_str(), f.iodepth, f.seconds,
      format_rate_mib(f.bytes_per_s).c_str(), id.c_str(), sample.c_str());
}

std::string format_workload_skipped(const std::string& id, const std::string& why) {
  return printf_text("  %s: skipped: %s\n", id.c_str(), why.c_str());
}

std::string format_duration_words(double seconds) {
  const long long s = seconds < 0 ? 0 : static_cast<long long>(seconds + 0.5);
  if (s < 60) return printf_text("%lld s", s);
  if (s < 3600)
    return s % 60 ? printf_text("%lld min %lld s", s / 60, s % 60)
                  : printf_text("%lld min", s / 60);
  const long long m = (s % 3600) / 60;
  return m ? printf_text("%lld h %lld min", s / 3600, m) : printf_text("%lld h", s / 3600);
}

std::string format_self_test_progress(const std::string& id, const std::string& what,
                                      std::optional<double> percent_done,
                                      std::optional<double> remaining_s) {
  std::string line = "  " + id + ": " + what + ": running";
  if (percent_done) line += ", " + format_fixed(*percent_done, 0) + "% done";
  if (remaining_s) line += ", about " + format_duration_words(*remaining_s) + " left";
  return line + "\n";
}

std::string format_self_test_end(const std::string& id, const std::string& what,
                                 const std::string& outcome, const std::string& text) {
  return "  " + id + ": " + what + ": " + outcome + (text.empty() ? "" : ": " + text) + "\n";
}

std::string format_workload_error(const std::string& id, const std::string& what) {
  return printf_text("  %s: error: %s\n", id.c_str(), what.c_str());
}

std::string format_workload_errors(const std::string& id, const std::vector<std::string>& errors) {
  std::string out;
  for (const auto& e : errors) out += format_workload_error(id, e);
  return out;
}

std::string format_device_gone(const std::string& why, std::size_t not_run) {
  return printf_text("  device gone: %s; %s not run\n", why.c_str(),
                     count_of(not_run, "workload").c_str());
}

std::string format_strict_incomplete(bool measure_only, std::size_t deviations) {
  const std::string what =
      measure_only ? "no claim was judged"
                   : std::to_string(deviations) + " deviation" + (deviations == 1 ? "" : "s");
  return printf_text("  --strict: %s: incomplete (exit 3)\n", what.c_str());
}

std::string format_reports_line(const ReportSet& reports) {
  return printf_text("reports: %s %s %s\n", reports.junit.c_str(), reports.json.c_str(),
                     reports.html.c_str());
}

std::string format_judge_header(const JudgeHeader& h) {
  std::string out =
      printf_text("storqual judge: measured by %s: %s (SHA-256 %s)\n", h.measured_by.tool.c_str(),
                  h.measured_by.file.c_str(), h.measured_by.sha256.c_str());
  out += printf_text("  device: %s\n", h.device.c_str());
  out += printf_text("  spec sheet: %s\n", h.sheet.c_str());
  out += printf_text("  suite: %s, %zu workloads\n", h.suite.c_str(), h.workloads);
  for (const auto& n : h.notes) out += printf_text("  note: %s\n", n.c_str());
  return out;
}

std::string format_job_matches(const std::vector<JobMatchLine>& lines) {
  std::string out;
  for (const auto& l : lines) {
    if (l.workload.empty())
      out += printf_text("  job '%s': %s\n", l.job.c_str(), l.how.c_str());
    else
      out += printf_text("  job '%s' -> workload '%s' (%s)\n", l.job.c_str(), l.workload.c_str(),
                         l.how.c_str());
    if (!l.differences.empty())
      out += printf_text("    differs: %s\n", join_text(l.differences, ", ").c_str());
  }
  return out;
}

std::string format_workload_unmatched(const std::string& id) {
  return printf_text("  workload '%s': no fio job ran it: skipped\n", id.c_str());
}

std::string format_baseline_line(const std::string& text) {
  return printf_text("  baseline: %s\n", text.c_str());
}

std::string format_target_error(const std::string& target, const std::string& error) {
  return printf_text("storqual run: %s: %s\n", target.c_str(), error.c_str());
}

std::string format_fleet_parallel_start(std::size_t targets) {
  return printf_text("storqual run: %zu targets in parallel (output of each when it ends)\n",
                     targets);
}

std::string format_fleet_target_output(const std::string& target, const std::string& label,
                                       const std::string& output) {
  return printf_text("==== %s (%s) ====\n%s", target.c_str(), label.c_str(), output.c_str());
}

std::string format_fleet_target_start(std::size_t number, std::size_t count,
                                      const std::string& target, const std::string& label) {
  return printf_text("==== [%zu/%zu] %s (%s) ====\n", number, count, target.c_str(), label.c_str());
}

std::string format_fleet_table_header() {
  return printf_text("\n%-3s %-22s %-24s %-20s %-9s %-5s %s\n", "#", "target", "model", "serial",
                     "verdict", "exit", "counts or error");
}

std::string format_fleet_row(std::size_t number, const std::string& target, const RunResult& run,
                             std::size_t lot_flags, int exit_code, const std::string& json_path) {
  const VerdictCounts c = count_verdicts(run);
  const std::string lot = lot_flags ? " (" + std::to_string(lot_flags) + " lot)" : "";
  std::string counts = printf_text("%d pass, %d fail%s, %d error, %d skipped -> %s", c.pass, c.fail,
                                   lot.c_str(), c.error, c.skipped, json_path.c_str());
  // At most 159 characters, as the fixed buffer this text was printed into: a longer JSON path is
  // cut (kept so the console stays byte-identical; the JSON path is also on the "reports:" line).
  if (counts.size() > 159) counts.resize(159);
  return printf_text(kFleetRow, number, target.c_str(), terminal_text(unit_model(run)).c_str(),
                     terminal_text(identity_field(run, "serial")).c_str(), c.overall(), exit_code,
                     counts.c_str());
}

std::string format_fleet_not_run_row(std::size_t number, const std::string& target, int exit_code,
                                     const std::string& error) {
  return printf_text(kFleetRow, number, target.c_str(), "-", "-", "NOT RUN", exit_code,
                     error.c_str());
}

std::string format_merged_reports(std::size_t devices, std::size_t lot_outliers,
                                  const ReportSet& merged) {
  return printf_text("merged reports (%zu devices, %zu lot outliers): %s %s %s\n", devices,
                     lot_outliers, merged.junit.c_str(), merged.json.c_str(), merged.html.c_str());
}

std::string format_fleet_result(const std::string& verdict, int exit_code, std::size_t targets,
                                std::size_t lot_outliers) {
  return printf_text("RESULT: %s, exit %d (%s, %zu lot outlier%s)\n", verdict.c_str(), exit_code,
                     (std::to_string(targets) + (targets == 1 ? " target" : " targets")).c_str(),
                     lot_outliers, lot_outliers == 1 ? "" : "s");
}

}  // namespace storqual::reporting
