// SPDX-License-Identifier: Apache-2.0
// `storqual powercut summary` (docs/power-cut.md, "After N cuts"): the results of N
// `storqual powercut check` runs, one per cut, added up: the class counts per cut and over all
// cuts, the cuts passed and failed, the unsafe-shutdown count's testcases, and the device's verdict
// over the cycles, against the number of cycles the spec sheet claims (powercut_cycles="N").
//
// The device's verdict: fail when any cut failed (a class that fails, a device that did not come
// back) or the unsafe-shutdown count did not rise by exactly one in a cut; else inconclusive when
// no cut was checked or fewer cuts were checked than the sheet claims (without a claim: than the
// cuts given); else pass. A cut whose check was inconclusive (its journal held no acknowledged
// write) is not a checked cut. A cut whose
// unsafe-shutdown count was not readable is counted and named, never a pass of that count.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "runner/methods/power_cut/powercut_check.hpp"

namespace storqual::runner {

struct CutCycle {
  std::string name;  // the cut's testcase ("reorder-3")
  std::string file;  // the result it was read from
  reporting::VerdictStatus status = reporting::VerdictStatus::Fail;
  std::string message;            // the cut verdict's (cut_summary, or why the device is missing)
  std::optional<double> failing;  // the cut verdict's measured: failing sectors and requests
  std::array<std::uint64_t, kCutClasses> counts{};
  // The unsafe-shutdown testcase: nullopt when the result has none (an older check).
  std::optional<reporting::VerdictStatus> shutdowns;
  std::string shutdowns_message;
};

// The cut of one `storqual powercut check` result (its "powercut" verdict, its "powercut.<class>"
// counts and its "powercut.unsafe_shutdowns" testcase). Throws UsageError naming `file` when the
// result holds no cut verdict.
[[nodiscard]] CutCycle cut_cycle_of(const reporting::RunResult& result, const std::string& file);

struct PowercutSummary {
  std::vector<CutCycle> cycles;
  std::array<std::uint64_t, kCutClasses> totals{};
  unsigned passed = 0, failed = 0;
  unsigned unchecked = 0;  // inconclusive cuts (no acknowledged write): not counted as checked
  unsigned shutdowns_passed = 0, shutdowns_failed = 0, shutdowns_unread = 0;
  std::optional<unsigned> claimed_cycles;
  reporting::VerdictStatus status = reporting::VerdictStatus::Inconclusive;
  std::string reason;
};

[[nodiscard]] PowercutSummary summarize_cuts(std::vector<CutCycle> cycles,
                                             std::optional<unsigned> claimed_cycles);

// A table: one row per cut (status and class counts), the totals, then the verdict and its reason.
[[nodiscard]] std::string format_cut_summary(const PowercutSummary& summary);

// The summary's testcases: every cut's verdict again (one testcase per cut), the totals per class
// (measured only, metric "powercut.total.<class>") and the device's verdict over the cycles
// (metric "powercut.cycles": measured = cuts passed, claimed = the sheet's cycles or the cuts
// checked).
[[nodiscard]] std::vector<reporting::ClaimVerdict> cut_summary_verdicts(
    const PowercutSummary& summary);

}  // namespace storqual::runner
