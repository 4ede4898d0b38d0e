// SPDX-License-Identifier: Apache-2.0
// A small SVG chart writer for the HTML report: line charts (linear or log y, optional claim line
// with a tolerance band, shaded x bands and vertical markers) and a horizontal bar chart of ratios.
// Output is one <svg> element, inline, with no script, no external reference, every text escaped,
// coordinates with one decimal.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace storqual::reporting {

struct ChartSeries {
  std::string name;   // legend text
  std::string color;  // CSS colour, e.g. "#1f77b4" (ours, not user data)
  std::vector<std::pair<double, double>> points;  // (x, y); non-finite points are skipped
};

// A horizontal line at `value` (the claim), and a shaded band [band_low, band_high] (the values
// that still pass within tolerance).
struct ClaimLine {
  std::string label;
  double value = 0;
  double band_low = 0, band_high = 0;
};

// A shaded span of the x axis drawn under the data, labelled at the top of the plot: the
// steady-state window on a timeline or on the rounds chart.
struct XBand {
  double from = 0, to = 0;
  std::string label;
  std::string color = "#9467bd";  // ours, not user data
};

// A dashed vertical line at `x` with its label, e.g. where a write cache ran out.
struct XMarker {
  double x = 0;
  std::string label;
  std::string color = "#ff7f0e";
};

struct LineChart {
  std::string title;  // also the SVG <title> (tooltip and accessible name)
  std::string x_label, y_label;
  std::vector<ChartSeries> series;
  std::optional<ClaimLine> claim;
  bool log_y = false;  // log10 y axis; values <= 0 are skipped
  // Explicit x ticks (position, label); empty: about 6 "nice" ticks over the data range.
  std::vector<std::pair<double, std::string>> x_ticks;
  std::function<std::string(double)> format_y;  // tick label; default "%g"
  std::function<std::string(double)> format_x;  // default "%g"
  std::vector<std::string> flags;               // e.g. "CPU-bound", drawn as a badge
  // Bands and markers widen the x range of a chart with data to include themselves (alone they
  // draw nothing); their labels have class "bl" / "ml".
  std::vector<XBand> x_bands;
  std::vector<XMarker> x_markers;
  double width = 940, height = 280;
};

[[nodiscard]] std::string render_line_chart(const LineChart& chart);

struct RatioBar {
  std::string label;            // "randread-4k-qd32 iops"
  std::optional<double> ratio;  // measured / claimed; nullopt: not measured
  std::string css_class;        // "pass", "fail", "error", "skipped"
  std::string value_text;       // printed at the end of the bar, e.g. "0.91x"
};

// Bars from 0 with a reference line at 1.0 ("as claimed").
[[nodiscard]] std::string render_ratio_bars(const std::string& title,
                                            const std::vector<RatioBar>& bars, double width = 940);

// One row of a value chart: a unit's measured value, drawn from 0, with its own claim marker (the
// units of a fleet may be judged against different spec sheets).
struct ValueBar {
  std::string label;            // "host-a loop3"
  std::optional<double> value;  // nullopt: not measured
  std::optional<double> claim;  // drawn as a green tick across the row
  std::string css_class;        // "pass", "fail", "error", "skipped", "lot" (a lot outlier)
  std::string value_text;       // printed after the bar
};

// Horizontal bars of measured values (a claim across a fleet), with x tick labels from
// `format_x` (default "%g"). A claim marker per row shows which units fall short of their claim;
// the eye finds an outlier among equal bars. The label column is sized from the longest label,
// and the chart widened past `width` when the labels need it.
[[nodiscard]] std::string render_value_bars(const std::string& title,
                                            const std::vector<ValueBar>& bars,
                                            const std::function<std::string(double)>& format_x,
                                            double width = 940);

// One bin of a histogram: its label under the bar (e.g. "0.5 ms") and its count.
struct HistogramBin {
  std::string label;
  double count = 0;
};

// Vertical bars, one per bin in order, on a log10 count axis (counts of 0 draw no bar), the way
// the SNIA PTS draws response-time histograms. Each bar is <rect class="bin" data-count="N">.
[[nodiscard]] std::string render_histogram(const std::string& title, const std::string& x_label,
                                           const std::vector<HistogramBin>& bins,
                                           double width = 940, double height = 260);

// About `count` round tick values covering [low, high] (1, 2, 2.5, 5 x 10^n steps).
[[nodiscard]] std::vector<double> nice_ticks(double low, double high, int count = 5);

}  // namespace storqual::reporting
