// SPDX-License-Identifier: Apache-2.0
// The pieces of the HTML report's workload sections, for a method's own section
// (model/method_report.hpp MethodReport::render_html) as for the report itself
// (reporting/html_report.cpp): the same escaping, rows, chart figures and number texts, so that a
// method's box reads like every other box of the page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// The colours of the page's charts: the read side, the write side, both together.
inline constexpr const char* kHtmlReadColour = "#1f77b4";
inline constexpr const char* kHtmlWriteColour = "#d62728";
inline constexpr const char* kHtmlTotalColour = "#555555";

[[nodiscard]] std::string html_escape(const std::string& s);
// A latency axis tick: "850 ns", "20 us", "1.5 ms", "2 s".
[[nodiscard]] std::string html_latency_tick(double ns);
// <tr><th>key</th><td>value</td></tr>, escaped; `code` sets the value in <code>.
void html_kv_row(std::string& o, const std::string& key, const std::string& value,
                 bool code = false);
// <figure class="chart-block" data-chart="KIND">SVG</figure>.
void html_chart_figure(std::string& o, const std::string& kind, const std::string& svg);
// "1073741824 B (1 GiB)".
[[nodiscard]] std::string html_bytes_text(std::uint64_t bytes);
// "4096 (0x1000)".
[[nodiscard]] std::string html_offset_text(std::uint64_t offset);
// "12.5%".
[[nodiscard]] std::string html_percent(double pct);

// The integrity classes' counts as a one-row table.
void html_class_counts(std::string& o, std::uint64_t corrupted, std::uint64_t misplaced,
                       std::uint64_t stale, std::uint64_t foreign, std::uint64_t read_errors);
// The first bad blocks (of `total_bad`), what each held.
void html_findings_table(std::string& o, const std::vector<IntegrityFinding>& findings,
                         std::uint64_t total_bad);

}  // namespace storqual::reporting
