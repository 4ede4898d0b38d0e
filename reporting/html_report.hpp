// SPDX-License-Identifier: Apache-2.0
// The HTML audit report: one self-contained file (inline CSS and SVG, no script, no network, no
// external fonts) that prints cleanly to PDF.
//
// Sections, in order: verdict banner (PASS/FAIL/ERROR/MEASURED with counts), device identity (with
// the source of each field), spec sheet and suite, claims table, measured/claimed ratio chart,
// block size x read mix tables, one section per workload, health before/after, environment.
// Block size x read mix: when the plain workloads (kind "workload") form a complete grid of at
// least 2 block sizes x 2 read mixes, detected from params bs, rw and rwmixread (not from ids),
// one <table class="matrix" data-matrix="iops|bw|lat" data-cells="N">: random grids show total
// IOPS (mean latency when every cell ran at iodepth 1, numjobs 1), sequential grids total
// bandwidth; rows by block size, columns by read/write percent; a skipped cell reads "skipped"
// with the reason as its title. snia-iops gives 56 cells, snia-throughput 2 x 2.
// Per workload, where the result has them: a "skipped" box with the reason (and no numbers), the
// preconditioning lines, a host-limit box (reasons, evidence, PCIe link) or a one-line "not the
// limit", the steady-state box (verdict "steady/not steady after N rounds", window, mean, range
// and slope against their limits, a rounds chart with the window shaded and a rounds table), the
// sustained-write box (cache size, drop time, initial and post-cache rates), the integrity box and
// the capacity box (counts per class, the first findings with offsets and what they held; usable
// against reported and claimed capacity, aliasing, sample density).
// Charts (each one <svg class="chart"> inside <figure class="chart-block">):
//   - the ratio chart when at least one verdict has both a measured and a claimed value;
//   - per workload with a timeline: IOPS over time and bandwidth over time (read, write, and total
//     for mixed workloads), with the claim line and tolerance band of a claim on that metric;
//   - per workload with clat percentiles: a log-scale percentile chart (read and write);
//   - per latency-search workload: latency against IOPS over the iodepth sweep, with the limit;
//   - per workload run in rounds: the tracked value per round (data-chart="steady-rounds"); its
//     timeline charts shade the steady window (rounds mapped to time by summing elapsed_s), a
//     sustained write's mark the time the write cache ran out.
// Every string from the result is passed through escape_html(); the file stays small (coordinates
// with one decimal: a 600-point timeline adds about 30 kB).
#pragma once

#include <string>
#include <string_view>

#include "model/result.hpp"

namespace storqual::reporting {

[[nodiscard]] std::string render_html(const RunResult& run);

// THE number format of the HTML pages (this report, its SNIA PTS sections, the fleet page's run
// sections): every figure on them (the claims table and its messages, the charts' claim lines,
// the boxes, the matrix and curve tables) is printed by this one function. It is the verdict
// messages' format (format_metric_value(MetricKind, ...) in model/metric.hpp, that is
// format_verdict_value() of model/quantity_format.hpp: three significant digits, "197k IOPS",
// "548 MB/s", "1.5 ms", "64 GB"), so a quantity reads the same in every cell and in the message
// beside it: 196,808 IOPS is "197k IOPS" everywhere, never "196k" in one place. Only the block
// "Numbers as fio prints them" keeps fio's spelling (format_fio_summary()) and the chart axes their
// tick labels. `unit`: a verdict's base unit ("IOPS", "B/s", "ns", "B", "x", "DWPD", "%"); ""
// prints the scaled count alone ("197k").
[[nodiscard]] std::string format_html_figure(double value, std::string_view unit);
// format_html_figure() in the units the pages show most: IOPS, bytes/s and ns (the report and the
// SNIA PTS sections, reporting/pts_html.cpp).
[[nodiscard]] std::string html_iops(double iops);
[[nodiscard]] std::string html_rate(double bytes_per_s);
[[nodiscard]] std::string html_latency(double ns);

// The pieces of render_html(), for pages that hold several runs (reporting/fleet_report.hpp).
// html_page_start(): doctype, head (escaped `title`, the report's CSS plus `extra_css`, which must
// be our own), "<body>". The caller closes with "</body></html>".
[[nodiscard]] std::string html_page_start(const std::string& title, const std::string& extra_css);
struct RunSectionsOptions {
  std::string anchor_prefix;  // prepended to every id="..." of the run ("d3-" -> "d3-w0")
  bool nested = false;        // headings one level down (h2 -> h3 ...), under a device heading
};
// Everything of one run's page between <body> and </body>: banner, claims (and baseline and lot
// verdicts, marked with their kind), ratio chart, device, spec, workloads, health, environment.
[[nodiscard]] std::string render_run_sections(const RunResult& run,
                                              const RunSectionsOptions& options);
// render_html() then write_file_atomically().
void write_html(const std::string& path, const RunResult& run);

}  // namespace storqual::reporting
