// SPDX-License-Identifier: Apache-2.0
// The power-cut cycles added up (powercut_summary.hpp).
#include "runner/methods/power_cut/powercut_summary.hpp"

#include <algorithm>

#include "model/errors.hpp"

namespace storqual::runner {

namespace {

using reporting::ClaimVerdict;
using reporting::VerdictStatus;

std::string cut_name(const ClaimVerdict& v) {
  return v.workloads.empty() ? std::string("cut") : v.workloads.front();
}

std::string status_word(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::Pass:
      return "pass";
    case VerdictStatus::Fail:
      return "FAIL";
    case VerdictStatus::Skipped:
      return "not readable";
    case VerdictStatus::Inconclusive:
      return "inconclusive";
    case VerdictStatus::MeasuredOnly:
      return "measured";
    case VerdictStatus::Error:
      break;
  }
  return "error";
}

std::string names_of(const std::vector<CutCycle>& cycles, bool (*pick)(const CutCycle&)) {
  std::string out;
  for (const auto& c : cycles)
    if (pick(c)) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

}  // namespace

CutCycle cut_cycle_of(const reporting::RunResult& result, const std::string& file) {
  CutCycle c;
  c.file = file;
  bool found = false;
  for (const auto& v : result.verdicts) {
    if (v.metric == "powercut") {
      if (found)
        throw UsageError(file +
                         ": two cut verdicts (one `storqual powercut check` result per cut)");
      found = true;
      c.name = cut_name(v);
      c.status = v.status;
      c.message = v.message;
      c.failing = v.measured;
    } else if (v.metric == "powercut.unsafe_shutdowns") {
      c.shutdowns = v.status;
      c.shutdowns_message = v.message;
    } else if (v.metric.starts_with("powercut.") && v.measured) {
      for (std::size_t i = 0; i < kCutClasses; ++i)
        if (v.metric.substr(9) == to_string(static_cast<CutClass>(i)))
          c.counts[i] = *v.measured > 0 ? static_cast<std::uint64_t>(*v.measured) : 0;
    }
  }
  if (!found)
    throw UsageError(file +
                     ": no cut verdict (metric \"powercut\"): not a result of "
                     "`storqual powercut check`");
  return c;
}

PowercutSummary summarize_cuts(std::vector<CutCycle> cycles,
                               std::optional<unsigned> claimed_cycles) {
  PowercutSummary s;
  s.cycles = std::move(cycles);
  s.claimed_cycles = claimed_cycles;
  for (const auto& c : s.cycles) {
    for (std::size_t i = 0; i < kCutClasses; ++i) s.totals[i] += c.counts[i];
    if (c.status == VerdictStatus::Pass)
      ++s.passed;
    else if (c.status == VerdictStatus::Inconclusive)
      ++s.unchecked;
    else
      ++s.failed;
    if (c.shutdowns == VerdictStatus::Pass)
      ++s.shutdowns_passed;
    else if (c.shutdowns == VerdictStatus::Fail)
      ++s.shutdowns_failed;
    else
      ++s.shutdowns_unread;
  }
  const auto n = static_cast<unsigned>(s.cycles.size()) - s.unchecked;
  const std::string unchecked =
      s.unchecked
          ? " (" + std::to_string(s.unchecked) + " more with no acknowledged write: not checked, " +
                names_of(
                    s.cycles,
                    [](const CutCycle& c) { return c.status == VerdictStatus::Inconclusive; }) +
                ")"
          : std::string();
  const std::string checked =
      std::to_string(n) + (n == 1 ? " cut" : " cuts") + " checked" + unchecked;
  // Without a claim, the cuts given are the claim: each must have been checked.
  const unsigned wanted = claimed_cycles ? *claimed_cycles : static_cast<unsigned>(s.cycles.size());
  if (s.failed > 0 || s.shutdowns_failed > 0) {
    s.status = VerdictStatus::Fail;
    s.reason = checked;
    if (s.failed > 0)
      s.reason +=
          ", " + std::to_string(s.failed) + " failed (" +
          names_of(s.cycles, [](const CutCycle& c) { return c.status != VerdictStatus::Pass; }) +
          ")";
    if (s.shutdowns_failed > 0)
      s.reason +=
          ", the unsafe-shutdown count did not rise by exactly 1 in " +
          std::to_string(s.shutdowns_failed) + " (" +
          names_of(s.cycles, [](const CutCycle& c) { return c.shutdowns == VerdictStatus::Fail; }) +
          ")";
  } else if (n == 0) {
    s.status = VerdictStatus::Inconclusive;
    s.reason = "no cut checked" + unchecked;
  } else if (n < wanted) {
    s.status = VerdictStatus::Inconclusive;
    s.reason = checked + ", every one passed, but " + std::to_string(wanted) +
               (claimed_cycles ? " cycles are claimed: " : " cuts were given: ") +
               std::to_string(wanted - n) + " more cuts to judge the claim";
  } else {
    s.status = VerdictStatus::Pass;
    s.reason =
        checked + ", every one passed" +
        (claimed_cycles ? " (" + std::to_string(*claimed_cycles) + " claimed)" : std::string());
  }
  if (s.shutdowns_unread > 0)
    s.reason += "; unsafe-shutdown count not readable in " + std::to_string(s.shutdowns_unread) +
                " of " + std::to_string(s.cycles.size());  // of every cut given, checked or not
  return s;
}

std::string format_cut_summary(const PowercutSummary& s) {
  std::vector<std::size_t> widths;
  auto cell = [](const std::string& text, std::size_t width) {
    return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
  };
  std::size_t name_width = 5;
  for (const auto& c : s.cycles) name_width = std::max(name_width, c.name.size() + 1);
  std::string out = cell("cut", name_width) + cell("result", 7);
  for (std::size_t i = 0; i < kCutClasses; ++i) {
    const std::string h(to_string(static_cast<CutClass>(i)));
    widths.push_back(h.size() + 1);
    out += " " + h;
  }
  out += "  unsafe-shutdowns\n";
  auto row = [&](const std::string& name, const std::string& result,
                 const std::array<std::uint64_t, kCutClasses>& counts, const std::string& tail) {
    std::string r = cell(name, name_width) + cell(result, 7);
    for (std::size_t i = 0; i < kCutClasses; ++i)
      r += cell(" " + std::to_string(counts[i]), widths[i]);
    return r + "  " + tail + "\n";
  };
  for (const auto& c : s.cycles)
    out += row(c.name, status_word(c.status), c.counts,
               c.shutdowns ? status_word(*c.shutdowns) : "not in the result");
  out += row("total", std::to_string(s.passed) + "/" + std::to_string(s.cycles.size()), s.totals,
             std::to_string(s.shutdowns_passed) + " pass, " + std::to_string(s.shutdowns_failed) +
                 " fail, " + std::to_string(s.shutdowns_unread) + " not readable");
  out += "device: " + status_word(s.status) + ": " + s.reason + "\n";
  return out;
}

std::vector<ClaimVerdict> cut_summary_verdicts(const PowercutSummary& s) {
  std::vector<ClaimVerdict> out;
  for (const auto& c : s.cycles) {
    ClaimVerdict v;
    v.workloads = {c.name};
    v.metric = "powercut";
    v.status = c.status;
    v.measured = c.failing;
    v.claimed = 0;
    v.unit = "sectors";
    v.higher_is_better = false;
    v.message = c.message + (c.shutdowns_message.empty() ? "" : "; " + c.shutdowns_message);
    out.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < kCutClasses; ++i) {
    const auto cls = static_cast<CutClass>(i);
    ClaimVerdict v;
    v.workloads = {"all cuts"};
    v.metric = "powercut.total." + std::string(to_string(cls));
    v.status = VerdictStatus::MeasuredOnly;
    v.measured = static_cast<double>(s.totals[i]);
    v.unit = cls == CutClass::Unserializable ? "requests" : "sectors";
    v.higher_is_better = cls == CutClass::Intact;
    v.message = std::to_string(s.totals[i]) + " " + v.unit + " " + std::string(to_string(cls)) +
                " over " + std::to_string(s.cycles.size()) + " cuts";
    out.push_back(std::move(v));
  }
  ClaimVerdict d;
  d.workloads = {"all cuts"};
  d.metric = "powercut.cycles";
  d.status = s.status;
  d.measured = s.passed;
  d.claimed = s.claimed_cycles ? *s.claimed_cycles : static_cast<double>(s.cycles.size());
  d.unit = "cuts";
  d.higher_is_better = true;
  d.figure = "cuts that passed";
  d.message = s.reason;
  out.push_back(std::move(d));
  return out;
}

}  // namespace storqual::runner
