// SPDX-License-Identifier: Apache-2.0
// Verdict table and live progress for the terminal.
#include "reporting/console_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "model/quantity_format.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", s / 60, s % 60);
  return buf;
}

// Terminal text: no control characters from device or file strings.
std::string clean(const std::string& s) {
  std::string out = sanitize_text(s);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return out;
}

}  // namespace

const char* VerdictCounts::overall() const {
  if (error) return "ERROR";
  if (inconclusive) return "INCONCLUSIVE";
  if (skipped_claims) return "INCOMPLETE";
  if (fail) return "FAIL";
  if (pass) return strict && deviations ? "INCOMPLETE" : "PASS";
  return "MEASURED";
}

std::string VerdictCounts::headline() const {
  std::string out = overall();
  if (out == "MEASURED") out = "MEASURED ONLY";
  if (deviations)
    out += " with " + std::to_string(deviations) + " deviation" + (deviations == 1 ? "" : "s");
  return out;
}

std::vector<const Deviation*> deviations_of(const RunResult& run, const std::string& workload) {
  std::vector<const Deviation*> out;
  for (const auto& d : run.deviations)
    if (d.workloads.empty() ||
        std::find(d.workloads.begin(), d.workloads.end(), workload) != d.workloads.end())
      out.push_back(&d);
  return out;
}

VerdictCounts count_verdicts(const RunResult& run) {
  VerdictCounts c;
  c.deviations = static_cast<int>(run.deviations.size());
  c.strict = run.strict;
  for (const auto& v : run.verdicts) {
    if (v.status == VerdictStatus::Skipped && v.claimed && v.kind == VerdictKind::Claim)
      ++c.skipped_claims;
    switch (v.status) {
      case VerdictStatus::Pass:
        ++c.pass;
        break;
      case VerdictStatus::Fail:
        ++c.fail;
        break;
      case VerdictStatus::Error:
        ++c.error;
        break;
      case VerdictStatus::Skipped:
        ++c.skipped;
        break;
      case VerdictStatus::MeasuredOnly:
        ++c.measured_only;
        break;
      case VerdictStatus::Inconclusive:
        ++c.inconclusive;
        break;
    }
  }
  return c;
}

std::string format_verdict_table(const RunResult& run) {
  const std::vector<std::string> header = {"workload", "metric", "claimed", "measured",
                                           "diff",     "tol",    "status"};
  std::vector<std::vector<std::string>> rows;
  // A row that is ERROR or INCONCLUSIVE says why: a numbered note under the table.
  std::vector<std::string> notes;
  for (const auto& v : run.verdicts) {
    std::string status(to_string(v.status));
    for (auto& ch : status) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if ((v.status == VerdictStatus::Error || v.status == VerdictStatus::Inconclusive) &&
        v.kind != VerdictKind::Health && !v.message.empty()) {
      notes.push_back(clean(v.message));
      status += " [" + std::to_string(notes.size()) + "]";
    }
    rows.push_back({clean(verdict_subject(v)), clean(v.metric),
                    v.claimed ? format_verdict_value(*v.claimed, v.unit) : "-",
                    v.measured ? format_verdict_value(*v.measured, v.unit) : "-",
                    v.diff_pct ? format_percent_signed(*v.diff_pct) : "-",
                    v.claimed ? format_percent_signed(v.tolerance_pct).substr(1) : "-", status});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool right = i >= 2 && i <= 5;  // numbers right-aligned
      const std::string pad(width[i] - cells[i].size(), ' ');
      out += right ? pad + cells[i] : cells[i] + pad;
      out += i + 1 < cells.size() ? "  " : "";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& r : rows) out += line(r);
  for (std::size_t i = 0; i < notes.size(); ++i)
    out += "  [" + std::to_string(i + 1) + "] " + notes[i] + "\n";
  // A device whose health degraded during the run is said in words, not only as a table row; a
  // health testcase that was skipped (a self-test the drive has not, limits without a reading)
  // says why.
  for (const auto& v : run.verdicts)
    if (v.kind == VerdictKind::Health && v.status != VerdictStatus::Pass)
      out += "DEVICE HEALTH " +
             std::string(v.status == VerdictStatus::Fail      ? "FAILED"
                         : v.status == VerdictStatus::Skipped ? "SKIPPED"
                                                              : "ERROR") +
             ": " + clean(v.message) + "\n";
  // What each measured figure is (docs/reports.md, "Glossary"), once per workload and metric.
  std::vector<std::string> defined;
  for (const auto& v : run.verdicts) {
    if (!v.measured || v.figure.empty()) continue;
    const std::string text =
        "  " + clean(workload_job_text(v)) + " " + clean(v.metric) + ": " + clean(v.figure);
    if (std::find(defined.begin(), defined.end(), text) == defined.end()) defined.push_back(text);
  }
  if (!defined.empty()) {
    out += "measured figures:\n";
    for (const auto& d : defined) out += d + "\n";
  }
  const auto c = count_verdicts(run);
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "RESULT: %s (%d pass, %d fail, %d error, %d skipped, %d measured-only",
                c.headline().c_str(), c.pass, c.fail, c.error, c.skipped, c.measured_only);
  out += buf;
  if (c.inconclusive) out += ", " + std::to_string(c.inconclusive) + " inconclusive";
  out += ")\n";
  if (run.measure_only) out += "measured only: no spec sheet judged this run, nothing passed\n";
  if (run.measured_by)
    out += "measured by " + clean(run.measured_by->tool) + ": " + clean(run.measured_by->file) +
           " (SHA-256 " + run.measured_by->sha256 + ")\n";
  for (const auto& d : run.deviations)
    out += "deviation: " + clean(d.text) +
           (d.workloads.empty() ? "" : " [" + clean(join_text(d.workloads, ", ")) + "]") +
           (d.accepted ? " (accepted: --accept-deviation " + d.kind + ")" : "") + "\n";
  return out;
}

LiveProgress::LiveProgress(std::FILE* out, bool is_terminal, double plain_interval_s)
    : out_(out),
      terminal_(is_terminal),
      interval_s_(plain_interval_s > 0 ? plain_interval_s : 10) {}

bool LiveProgress::is_terminal(std::FILE* stream) {
  return stream && ::isatty(::fileno(stream)) == 1;
}

void LiveProgress::start_workload(std::size_t index, std::size_t count, const std::string& id,
                                  double expected_s) {
  index_ = index;
  count_ = count;
  id_ = clean(id);
  expected_s_ = expected_s;
  next_plain_s_ = interval_s_;
  last_width_ = 0;
  window_t_ = 0;
  window_ios_ = window_bytes_ = 0;
  window_measuring_ = false;
  done_text_.clear();
  measuring_t_ = 0;
  measuring_bytes_ = 0;
}

std::string LiveProgress::line(double elapsed_s, double iops, double bw) const {
  std::string text = "[" + std::to_string(index_) + "/" + std::to_string(count_) + "] " + id_ +
                     "  " + clock_text(elapsed_s);
  if (!done_text_.empty()) {
    text += " " + done_text_;
  } else if (expected_s_ > 0) {
    text += " ETA " + clock_text(std::max(0.0, expected_s_ - elapsed_s));
  }
  text += "  " + format_iops(iops) + "  " + format_rate_mb(bw);
  return text;
}

void LiveProgress::update(double elapsed_s, double iops, double bw) {
  if (!out_) return;
  if (terminal_) {
    std::string text = line(elapsed_s, iops, bw);
    const std::size_t width = text.size();
    if (width < last_width_) text += std::string(last_width_ - width, ' ');
    last_width_ = width;
    std::fprintf(out_, "\r%s", text.c_str());
    std::fflush(out_);
    return;
  }
  if (elapsed_s + 1e-9 < next_plain_s_) return;
  while (next_plain_s_ <= elapsed_s + 1e-9) next_plain_s_ += interval_s_;
  std::fprintf(out_, "%s\n", line(elapsed_s, iops, bw).c_str());
  std::fflush(out_);
}

void LiveProgress::update_totals(double elapsed_s, std::uint64_t ios, std::uint64_t bytes,
                                 bool measuring, std::uint64_t total_bytes) {
  if (!out_) return;
  if (measuring && !window_measuring_) {
    // The ramp is over: the first window starts now, from the totals counted so far.
    window_measuring_ = true;
    window_t_ = elapsed_s;
    window_ios_ = ios;
    window_bytes_ = bytes;
    measuring_t_ = elapsed_s;
    measuring_bytes_ = bytes;
  }
  if (total_bytes > 0 && measuring) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%",
                  100.0 * static_cast<double>(std::min(bytes, total_bytes)) /
                      static_cast<double>(total_bytes));
    done_text_ = pct;
    const double moved = static_cast<double>(bytes - std::min(bytes, measuring_bytes_));
    const double dt = elapsed_s - measuring_t_;
    if (moved > 0 && dt > 0)
      done_text_ +=
          " ETA " + clock_text(static_cast<double>(total_bytes - std::min(bytes, total_bytes)) /
                               (moved / dt));
  }
  if (!terminal_ && elapsed_s + 1e-9 < next_plain_s_) return;  // not a line yet: keep the window
  const double dt = elapsed_s - window_t_;
  if (!measuring || dt <= 0) {
    std::string text = "[" + std::to_string(index_) + "/" + std::to_string(count_) + "] " + id_ +
                       "  " + clock_text(elapsed_s) + "  ramp";
    if (terminal_) {
      const std::size_t width = text.size();
      if (width < last_width_) text += std::string(last_width_ - width, ' ');
      last_width_ = width;
      std::fprintf(out_, "\r%s", text.c_str());
    } else {
      while (next_plain_s_ <= elapsed_s + 1e-9) next_plain_s_ += interval_s_;
      std::fprintf(out_, "%s\n", text.c_str());
    }
    std::fflush(out_);
    return;
  }
  const double iops = static_cast<double>(ios - std::min(ios, window_ios_)) / dt;
  const double bw = static_cast<double>(bytes - std::min(bytes, window_bytes_)) / dt;
  window_t_ = elapsed_s;
  window_ios_ = ios;
  window_bytes_ = bytes;
  update(elapsed_s, iops, bw);
}

void LiveProgress::finish_workload(double elapsed_s, double iops, double bw) {
  if (!out_) return;
  done_text_.clear();  // the done line says what it measured, not how far it had come
  // The figures of the done line are the workload's result: read+write, summed over its jobs.
  const std::string text = line(elapsed_s, iops, bw) + "  done (read+write, all jobs)";
  if (terminal_) {
    std::string padded = text;
    if (padded.size() < last_width_) padded += std::string(last_width_ - padded.size(), ' ');
    std::fprintf(out_, "\r%s\n", padded.c_str());
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
  last_width_ = 0;
}

}  // namespace storqual::reporting
