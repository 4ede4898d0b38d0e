// SPDX-License-Identifier: Apache-2.0
// `storqual history` as a table, JSON or CSV (docs/archive.md, "History"): one line per run, its
// date, host, unit, firmware, suite, verdict and each workload's IOPS and bandwidth.
#pragma once

#include <string>
#include <vector>

#include "archive/archive.hpp"

namespace storqual::reporting {

// For the terminal: every string without control characters (terminal_text).
[[nodiscard]] std::string format_history_table(const std::vector<HistoryRow>& rows);
// {"runs": [{"start_utc": ..., "figures": [{"workload", "name", "value", "unit"}],
//            "tags": [{"key", "value"}]}]} (every tag, a key given twice twice)
[[nodiscard]] std::string format_history_json(const std::vector<HistoryRow>& rows);
// RFC 4180: a header line, fields quoted when they hold a comma, quote or line break.
[[nodiscard]] std::string format_history_csv(const std::vector<HistoryRow>& rows);
// One RFC 4180 field: quoted when it holds a comma, quote or line break (quotes doubled); one
// that starts with = + - @, a tab or CR gets a leading ' (OWASP, CSV injection) and is quoted.
[[nodiscard]] std::string csv_field(const std::string& s);

// A re-test against the unit's acceptance record and its last one (docs/archive.md, "Drift"): each
// IOPS and bandwidth figure both runs have, flagged DRIFT only when their early-stop intervals
// separate (without an interval on both runs it is shown, not judged); the firmware and the wear
// (percentage_used) since. "" when the archive has no earlier record of the unit.
[[nodiscard]] std::string format_drift(const DriftReport& drift);

}  // namespace storqual::reporting
