// SPDX-License-Identifier: Apache-2.0
// N cuts added up (runner/methods/power_cut/powercut_summary.hpp): constructed check results (as
// `storqual powercut check` writes them, through the result JSON and back), the class totals, the
// cuts passed and failed, the unsafe-shutdown testcases and the device's verdict against the
// sheet's cycles.
#include <gtest/gtest.h>

#include "model/errors.hpp"
#include "reporting/result_json.hpp"
#include "runner/methods/power_cut/powercut_summary.hpp"

namespace storqual::runner {
namespace {

using reporting::VerdictStatus;

// The result of one check: a cut with `counts` (class -> sectors), judged as check judges it, and
// its unsafe-shutdown testcase, read back from JSON as summary reads it.
reporting::RunResult check_result(const std::string& name,
                                  std::initializer_list<std::pair<CutClass, std::uint64_t>> counts,
                                  std::optional<std::uint64_t> shutdown_rise = 1) {
  CutCheck c;
  for (const auto& [cls, n] : counts) c.counts[static_cast<std::size_t>(cls)] = n;
  c.acknowledged_writes = counts.size() == 0 ? 0 : 10;  // none: a journal cut to its header
  reporting::RunResult r;
  r.verdicts.push_back(cut_verdict(c, name));
  for (auto& v : cut_class_verdicts(c, name)) r.verdicts.push_back(std::move(v));
  JournalContents j;
  JournalShutdowns before, after;
  if (shutdown_rise) {
    before.readable = after.readable = true;
    before.source = after.source = "nvme:smart-log";
    before.count = 10;
    after.count = 10 + *shutdown_rise;
  } else {
    before.source = after.source = "a SCSI disk's log pages have no unsafe-shutdown counter";
  }
  j.shutdowns_before = before;
  r.verdicts.push_back(unsafe_shutdown_verdict(j, after, name));
  return reporting::run_result_from_json(reporting::to_json_text(r));
}

TEST(PowercutSummary, ACutIsReadBackWithItsClassCountsAndShutdowns) {
  const CutCycle c = cut_cycle_of(check_result("reorder-1", {{CutClass::Intact, 900},
                                                             {CutClass::LostAfterFlush, 40},
                                                             {CutClass::Unserializable, 7}}),
                                  "r1.json");
  EXPECT_EQ(c.name, "reorder-1");
  EXPECT_EQ(c.status, VerdictStatus::Fail);
  EXPECT_EQ(c.counts[static_cast<std::size_t>(CutClass::Intact)], 900u);
  EXPECT_EQ(c.counts[static_cast<std::size_t>(CutClass::LostAfterFlush)], 40u);
  EXPECT_EQ(c.counts[static_cast<std::size_t>(CutClass::Unserializable)], 7u);
  EXPECT_EQ(c.counts[static_cast<std::size_t>(CutClass::Shorn)], 0u);
  EXPECT_EQ(c.shutdowns, VerdictStatus::Pass);
  EXPECT_EQ(c.failing, 47);
  EXPECT_THROW((void)cut_cycle_of(reporting::RunResult{}, "other.json"), UsageError);
}

TEST(PowercutSummary, AnyFailedCutFailsTheDeviceAndIsNamed) {
  std::vector<CutCycle> cycles;
  cycles.push_back(cut_cycle_of(check_result("c1", {{CutClass::Intact, 100}}), "1"));
  cycles.push_back(cut_cycle_of(
      check_result("c2", {{CutClass::Intact, 90}, {CutClass::LostAfterFlush, 10}}), "2"));
  cycles.push_back(cut_cycle_of(
      check_result("c3", {{CutClass::Intact, 95}, {CutClass::LostBeforeFlush, 5}}), "3"));
  const PowercutSummary s = summarize_cuts(cycles, 3u);
  EXPECT_EQ(s.passed, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.totals[static_cast<std::size_t>(CutClass::Intact)], 285u);
  EXPECT_EQ(s.totals[static_cast<std::size_t>(CutClass::LostBeforeFlush)], 5u);
  EXPECT_EQ(s.status, VerdictStatus::Fail);
  EXPECT_EQ(s.reason, "3 cuts checked, 1 failed (c2)");
  const auto verdicts = cut_summary_verdicts(s);
  ASSERT_EQ(verdicts.size(), 3u + kCutClasses + 1u);
  EXPECT_EQ(verdicts.back().metric, "powercut.cycles");
  EXPECT_EQ(*verdicts.back().measured, 2);
  EXPECT_EQ(*verdicts.back().claimed, 3);
  EXPECT_EQ(verdicts[3].metric, "powercut.total.intact");
  EXPECT_EQ(*verdicts[3].measured, 285);
  const std::string table = format_cut_summary(s);
  EXPECT_NE(table.find("device: FAIL: 3 cuts checked, 1 failed (c2)"), std::string::npos) << table;
}

TEST(PowercutSummary, FewerCutsThanTheSheetClaimsAreInconclusive) {
  std::vector<CutCycle> cycles;
  for (const char* n : {"c1", "c2"})
    cycles.push_back(cut_cycle_of(check_result(n, {{CutClass::Intact, 100}}), n));
  PowercutSummary s = summarize_cuts(cycles, 10u);
  EXPECT_EQ(s.status, VerdictStatus::Inconclusive);
  EXPECT_EQ(s.reason,
            "2 cuts checked, every one passed, but 10 cycles are claimed: 8 more cuts to judge "
            "the claim");
  s = summarize_cuts(cycles, 2u);
  EXPECT_EQ(s.status, VerdictStatus::Pass);
  EXPECT_EQ(s.reason, "2 cuts checked, every one passed (2 claimed)");
  s = summarize_cuts(cycles, std::nullopt);
  EXPECT_EQ(s.status, VerdictStatus::Pass);
  EXPECT_EQ(summarize_cuts({}, std::nullopt).status, VerdictStatus::Inconclusive);
}

TEST(PowercutSummary, TheUnsafeShutdownCountFailsOrIsNamedNotReadable) {
  std::vector<CutCycle> cycles;
  cycles.push_back(cut_cycle_of(check_result("c1", {{CutClass::Intact, 1}}, 1), "1"));
  cycles.push_back(cut_cycle_of(check_result("c2", {{CutClass::Intact, 1}}, 0), "2"));
  cycles.push_back(cut_cycle_of(check_result("c3", {{CutClass::Intact, 1}}, std::nullopt), "3"));
  const PowercutSummary s = summarize_cuts(cycles, std::nullopt);
  EXPECT_EQ(s.passed, 3u);
  EXPECT_EQ(s.shutdowns_passed, 1u);
  EXPECT_EQ(s.shutdowns_failed, 1u);
  EXPECT_EQ(s.shutdowns_unread, 1u);
  EXPECT_EQ(s.status, VerdictStatus::Fail);
  EXPECT_EQ(s.reason,
            "3 cuts checked, the unsafe-shutdown count did not rise by exactly 1 in 1 (c2); "
            "unsafe-shutdown count not readable in 1 of 3");
}

TEST(PowercutSummary, ACutWithNoAcknowledgedWriteIsNotCounted) {
  std::vector<CutCycle> cycles;
  cycles.push_back(cut_cycle_of(check_result("empty", {}, std::nullopt), "e"));
  EXPECT_EQ(cycles[0].status, VerdictStatus::Inconclusive);
  PowercutSummary s = summarize_cuts(cycles, 1u);
  EXPECT_EQ(s.unchecked, 1u);
  EXPECT_EQ(s.passed, 0u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.status, VerdictStatus::Inconclusive);
  EXPECT_EQ(s.reason,
            "no cut checked (1 more with no acknowledged write: not checked, empty); "
            "unsafe-shutdown count not readable in 1 of 1");
  cycles.push_back(cut_cycle_of(check_result("c1", {{CutClass::Intact, 100}}), "1"));
  s = summarize_cuts(cycles, std::nullopt);  // without a claim, the two cuts given are the claim
  EXPECT_EQ(s.status, VerdictStatus::Inconclusive);
  EXPECT_NE(s.reason.find("1 cut checked (1 more with no acknowledged write: not checked, empty)"),
            std::string::npos)
      << s.reason;
  EXPECT_EQ(summarize_cuts(cycles, 1u).status, VerdictStatus::Pass);
}

}  // namespace
}  // namespace storqual::runner
