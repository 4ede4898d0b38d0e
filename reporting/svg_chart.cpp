// SPDX-License-Identifier: Apache-2.0
// Inline SVG charts: axes, ticks, grid, polylines, claim band, legend, bars.
#include "reporting/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reporting/text_sanitize.hpp"

namespace storqual::reporting {
namespace {

std::string fmt1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string default_format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The opening every chart shares: the <svg> element with its size, the accessible title and a
// white background.
std::string svg_open(double width, double height, const std::string& title) {
  return "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" +
         fmt1(width) + "\" height=\"" + fmt1(height) + "\" viewBox=\"0 0 " + fmt1(width) + " " +
         fmt1(height) + "\"><title>" + escape_html(title) +
         "</title><rect x=\"0\" y=\"0\" width=\"" + fmt1(width) + "\" height=\"" + fmt1(height) +
         "\" fill=\"#fff\"/>";
}

// Plot area in pixels.
struct Frame {
  double left = 64, right = 16, top = 48, bottom = 42;
  double width = 0, height = 0;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  // bottom edge of the plot
  double y1() const { return top; }
};

}  // namespace

std::vector<double> nice_ticks(double low, double high, int count) {
  std::vector<double> ticks;
  if (!std::isfinite(low) || !std::isfinite(high) || count < 1) return ticks;
  if (high <= low) high = low + 1;
  const double raw = (high - low) / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  const double first = std::ceil(low / step - 1e-9) * step;
  for (double t = first; t <= high + step * 1e-9 && ticks.size() < 50; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

namespace {

// The axes of a line chart: the data range in x, the y range (in log10 units on a log axis) with
// its ticks, and the mapping of both into the frame's pixels.
struct LineScale {
  Frame f;
  double xmin = 0, xmax = 1, ylow = 0, yhigh = 1;
  bool log_y = false;
  bool empty = true;  // no drawable point: a frame with "no data"
  std::vector<double> yticks;
  double px(double x) const { return f.x0() + (x - xmin) / (xmax - xmin) * (f.x1() - f.x0()); }
  double py(double y) const {
    const double v = log_y ? std::log10(y) : y;
    return f.y0() - (v - ylow) / (yhigh - ylow) * (f.y0() - f.y1());
  }
  double mid() const { return (f.x0() + f.x1()) / 2; }
};

// The y axis from the data range: decades on a log axis, nice ticks from 0 otherwise.
void scale_y(LineScale& s, double ymin, double ymax) {
  if (s.log_y) {
    if (!(ymin > 0)) ymin = 1;
    if (!(ymax > 0)) ymax = 10;
    s.ylow = std::floor(std::log10(ymin));
    s.yhigh = std::ceil(std::log10(ymax));
    if (s.yhigh <= s.ylow) s.yhigh = s.ylow + 1;
    for (double e = s.ylow; e <= s.yhigh + 1e-9; e += 1) s.yticks.push_back(std::pow(10.0, e));
  } else {
    s.ylow = 0;
    s.yhigh = ymax > 0 ? ymax * 1.08 : 1;
    s.yticks = nice_ticks(0, s.yhigh, 5);
    if (!s.yticks.empty()) s.yhigh = std::max(s.yhigh, s.yticks.back());
  }
}

// The data ranges (points and explicit x ticks; bands, markers and the claim widen an axis that
// has data) and the axes made from them.
LineScale scale_line_chart(const LineChart& c) {
  LineScale s;
  s.f.width = c.width;
  s.f.height = c.height;
  s.log_y = c.log_y;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& series : c.series)
    for (const auto& [x, y] : series.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (c.log_y && y <= 0)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  for (const auto& [x, label] : c.x_ticks) {
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
  }
  const bool has_data = xmin <= xmax;
  // Bands and markers only widen an axis that has data: alone they are no chart.
  if (has_data) {
    for (const auto& b : c.x_bands)
      for (double x : {b.from, b.to})
        if (std::isfinite(x)) {
          xmin = std::min(xmin, x);
          xmax = std::max(xmax, x);
        }
    for (const auto& m : c.x_markers)
      if (std::isfinite(m.x)) {
        xmin = std::min(xmin, m.x);
        xmax = std::max(xmax, m.x);
      }
  }
  if (c.claim) {
    ymax = std::max(ymax, std::max(c.claim->value, c.claim->band_high));
    ymin = std::min(ymin, std::min(c.claim->value, c.claim->band_low));
  }
  s.empty = !has_data;
  if (s.empty) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (xmax <= xmin) xmax = xmin + 1;
  s.xmin = xmin;
  s.xmax = xmax;
  scale_y(s, ymin, ymax);
  return s;
}

// X bands under everything else, their labels along the top of the plot.
void draw_x_bands(std::string& o, const LineChart& c, const LineScale& s) {
  if (s.empty) return;
  const Frame& f = s.f;
  for (const auto& b : c.x_bands) {
    if (!std::isfinite(b.from) || !std::isfinite(b.to)) continue;
    const double a = s.px(std::min(b.from, b.to)), z = s.px(std::max(b.from, b.to));
    o += "<rect class=\"xband\" x=\"" + fmt1(a) + "\" y=\"" + fmt1(f.y1()) + "\" width=\"" +
         fmt1(std::max(z - a, 1.0)) + "\" height=\"" + fmt1(f.y0() - f.y1()) + "\" fill=\"" +
         escape_html(b.color) + "\" fill-opacity=\"0.14\"/>";
    const bool right = a > s.mid();
    o += "<text x=\"" + fmt1(right ? z - 3 : a + 3) + "\" y=\"" + fmt1(f.y1() + 12) +
         "\" text-anchor=\"" + (right ? "end" : "start") + "\" class=\"bl\">" +
         escape_html(b.label) + "</text>";
  }
}

// Claim band and line under the data.
void draw_claim(std::string& o, const LineChart& c, const LineScale& s) {
  if (!c.claim) return;
  const Frame& f = s.f;
  const double top = s.py(c.claim->band_high), bottom = s.py(c.claim->band_low);
  o += "<rect x=\"" + fmt1(f.x0()) + "\" y=\"" + fmt1(std::min(top, bottom)) + "\" width=\"" +
       fmt1(f.x1() - f.x0()) + "\" height=\"" + fmt1(std::abs(bottom - top)) +
       "\" fill=\"#2ca02c\" fill-opacity=\"0.12\"/>";
  const double y = s.py(c.claim->value);
  o += "<line x1=\"" + fmt1(f.x0()) + "\" y1=\"" + fmt1(y) + "\" x2=\"" + fmt1(f.x1()) +
       "\" y2=\"" + fmt1(y) +
       "\" stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>";
}

// Grid and y ticks, x ticks, the axes and their labels.
void draw_axes(std::string& o, const LineChart& c, const LineScale& s) {
  const Frame& f = s.f;
  const auto fy = c.format_y ? c.format_y : default_format;
  const auto fx = c.format_x ? c.format_x : default_format;
  for (double t : s.yticks) {
    const double y = s.py(t);
    o += "<line x1=\"" + fmt1(f.x0()) + "\" y1=\"" + fmt1(y) + "\" x2=\"" + fmt1(f.x1()) +
         "\" y2=\"" + fmt1(y) + "\" stroke=\"#ddd\"/>";
    o += "<text x=\"" + fmt1(f.x0() - 6) + "\" y=\"" + fmt1(y + 4) +
         "\" text-anchor=\"end\" class=\"tk\">" + escape_html(fy(t)) + "</text>";
  }
  std::vector<std::pair<double, std::string>> xt = c.x_ticks;
  if (xt.empty())
    for (double t : nice_ticks(s.xmin, s.xmax, 6))
      if (t >= s.xmin - 1e-9 && t <= s.xmax + 1e-9) xt.emplace_back(t, fx(t));
  for (const auto& [t, label] : xt) {
    const double x = s.px(t);
    o += "<line x1=\"" + fmt1(x) + "\" y1=\"" + fmt1(f.y0()) + "\" x2=\"" + fmt1(x) + "\" y2=\"" +
         fmt1(f.y0() + 4) + "\" stroke=\"#555\"/>";
    o += "<text x=\"" + fmt1(x) + "\" y=\"" + fmt1(f.y0() + 16) +
         "\" text-anchor=\"middle\" class=\"tk\">" + escape_html(label) + "</text>";
  }
  o += "<path d=\"M" + fmt1(f.x0()) + " " + fmt1(f.y1()) + "V" + fmt1(f.y0()) + "H" + fmt1(f.x1()) +
       "\" fill=\"none\" stroke=\"#555\"/>";
  o += "<text x=\"" + fmt1((f.x0() + f.x1()) / 2) + "\" y=\"" + fmt1(c.height - 6) +
       "\" text-anchor=\"middle\" class=\"al\">" + escape_html(c.x_label) + "</text>";
  o += "<text transform=\"translate(14 " + fmt1((f.y0() + f.y1()) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" class=\"al\">" + escape_html(c.y_label) + "</text>";
}

// Each series as a polyline (one point: a dot), clamped to the y axis.
void draw_series(std::string& o, const LineChart& c, const LineScale& s) {
  for (const auto& series : c.series) {
    std::string pts;
    pts.reserve(series.points.size() * 12);
    std::size_t n = 0;
    for (const auto& [x, y] : series.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (c.log_y && y <= 0)) continue;
      if (n++) pts += ' ';
      pts += fmt1(s.px(x));
      pts += ',';
      pts += fmt1(s.py(std::clamp(y, c.log_y ? std::pow(10.0, s.ylow) : s.ylow,
                                  c.log_y ? std::pow(10.0, s.yhigh) : s.yhigh)));
    }
    if (n == 0) continue;
    if (n == 1) {
      const auto comma = pts.find(',');
      o += "<circle cx=\"" + pts.substr(0, comma) + "\" cy=\"" + pts.substr(comma + 1) +
           "\" r=\"3\" fill=\"" + escape_html(series.color) + "\"/>";
    } else {
      o += "<polyline fill=\"none\" stroke=\"" + escape_html(series.color) +
           "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"" + pts + "\"/>";
    }
  }
}

// Vertical markers over the data.
void draw_x_markers(std::string& o, const LineChart& c, const LineScale& s) {
  if (s.empty) return;
  const Frame& f = s.f;
  for (const auto& m : c.x_markers) {
    if (!std::isfinite(m.x)) continue;
    const double x = s.px(m.x);
    o += "<line class=\"xmark\" x1=\"" + fmt1(x) + "\" y1=\"" + fmt1(f.y1()) + "\" x2=\"" +
         fmt1(x) + "\" y2=\"" + fmt1(f.y0()) + "\" stroke=\"" + escape_html(m.color) +
         "\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>";
    const bool right = x > s.mid();
    o += "<text x=\"" + fmt1(right ? x - 4 : x + 4) + "\" y=\"" + fmt1(f.y1() + 26) +
         "\" text-anchor=\"" + (right ? "end" : "start") + "\" class=\"ml\">" +
         escape_html(m.label) + "</text>";
  }
}

// Legend under the title, left to right; the claim last.
void draw_legend(std::string& o, const LineChart& c, const LineScale& s) {
  double lx = s.f.x0();
  for (const auto& series : c.series) {
    o += "<rect x=\"" + fmt1(lx) + "\" y=\"31\" width=\"14\" height=\"3\" fill=\"" +
         escape_html(series.color) + "\"/>";
    o += "<text x=\"" + fmt1(lx + 18) + "\" y=\"36\" class=\"lg\">" + escape_html(series.name) +
         "</text>";
    lx += 30 + 6.5 * static_cast<double>(series.name.size());
  }
  if (c.claim) {
    o += "<line x1=\"" + fmt1(lx) + "\" y1=\"32.5\" x2=\"" + fmt1(lx + 14) +
         "\" y2=\"32.5\" stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/>";
    o += "<rect x=\"" + fmt1(lx + 18) +
         "\" y=\"28\" width=\"10\" height=\"9\" fill=\"#2ca02c\" "
         "fill-opacity=\"0.15\"/>";
    o += "<text x=\"" + fmt1(lx + 32) + "\" y=\"36\" class=\"cl\">" + escape_html(c.claim->label) +
         "</text>";
  }
}

// Flags as badges at the right of the title, right to left.
void draw_flags(std::string& o, const LineChart& c, const LineScale& s) {
  double fxpos = s.f.x1();
  for (auto it = c.flags.rbegin(); it != c.flags.rend(); ++it) {
    const double w = 14 + 7.0 * static_cast<double>(it->size());
    fxpos -= w;
    o += "<rect x=\"" + fmt1(fxpos) + "\" y=\"4\" width=\"" + fmt1(w) +
         "\" height=\"18\" rx=\"3\" fill=\"#fff3cd\" stroke=\"#b8860b\"/>";
    o +=
        "<text x=\"" + fmt1(fxpos + 7) + "\" y=\"17\" class=\"fl\">" + escape_html(*it) + "</text>";
    fxpos -= 6;
  }
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const LineScale s = scale_line_chart(c);
  const Frame& f = s.f;
  std::string o;
  o.reserve(4096);
  o += svg_open(c.width, c.height, c.title);
  o += "<text x=\"" + fmt1(f.x0()) + "\" y=\"17\" class=\"ct\">" + escape_html(c.title) + "</text>";
  draw_x_bands(o, c, s);
  draw_claim(o, c, s);
  draw_axes(o, c, s);
  draw_series(o, c, s);
  draw_x_markers(o, c, s);
  draw_legend(o, c, s);
  draw_flags(o, c, s);
  if (s.empty)
    o += "<text x=\"" + fmt1((f.x0() + f.x1()) / 2) + "\" y=\"" + fmt1((f.y0() + f.y1()) / 2) +
         "\" text-anchor=\"middle\" class=\"tk\">no data</text>";
  o += "</svg>";
  return o;
}

std::string render_ratio_bars(const std::string& title, const std::vector<RatioBar>& bars,
                              double width) {
  const double row = 24, top = 30, bottom = 34, label_w = 300, right = 110;
  const double height =
      top + bottom + row * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double max_ratio = 1.25;
  for (const auto& b : bars)
    if (b.ratio && std::isfinite(*b.ratio)) max_ratio = std::max(max_ratio, *b.ratio * 1.05);
  max_ratio = std::min(max_ratio, 10.0);
  const double x0 = label_w, x1 = width - right;
  auto px = [&](double r) { return x0 + std::clamp(r, 0.0, max_ratio) / max_ratio * (x1 - x0); };

  std::string o;
  o += svg_open(width, height, title);
  o += "<text x=\"8\" y=\"18\" class=\"ct\">" + escape_html(title) + "</text>";
  const double plot_bottom = height - bottom;
  for (double t : nice_ticks(0, max_ratio, 5)) {
    const double x = px(t);
    o += "<line x1=\"" + fmt1(x) + "\" y1=\"" + fmt1(top) + "\" x2=\"" + fmt1(x) + "\" y2=\"" +
         fmt1(plot_bottom) + "\" stroke=\"#ddd\"/>";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gx", t);
    o += "<text x=\"" + fmt1(x) + "\" y=\"" + fmt1(plot_bottom + 16) +
         "\" text-anchor=\"middle\" class=\"tk\">" + buf + "</text>";
  }
  double y = top;
  for (const auto& b : bars) {
    o += "<text x=\"" + fmt1(x0 - 8) + "\" y=\"" + fmt1(y + 16) +
         "\" text-anchor=\"end\" class=\"tk\">" + escape_html(b.label) + "</text>";
    if (b.ratio && std::isfinite(*b.ratio)) {
      const double w = px(*b.ratio) - x0;
      o += "<rect class=\"bar " + escape_html(b.css_class) + "\" x=\"" + fmt1(x0) + "\" y=\"" +
           fmt1(y + 4) + "\" width=\"" + fmt1(std::max(w, 1.0)) + "\" height=\"" + fmt1(row - 8) +
           "\"/>";
      o += "<text x=\"" + fmt1(x1 + 8) + "\" y=\"" + fmt1(y + 16) + "\" class=\"tk\">" +
           escape_html(b.value_text) + "</text>";
    } else {
      o += "<text x=\"" + fmt1(x0 + 4) + "\" y=\"" + fmt1(y + 16) + "\" class=\"tk\">" +
           escape_html(b.value_text.empty() ? "not measured" : b.value_text) + "</text>";
    }
    y += row;
  }
  const double one = px(1.0);
  o += "<line x1=\"" + fmt1(one) + "\" y1=\"" + fmt1(top - 4) + "\" x2=\"" + fmt1(one) +
       "\" y2=\"" + fmt1(plot_bottom) + "\" stroke=\"#2ca02c\" stroke-width=\"1.5\" " +
       "stroke-dasharray=\"6 4\"/>";
  o += "<path d=\"M" + fmt1(x0) + " " + fmt1(top) + "V" + fmt1(plot_bottom) + "H" + fmt1(x1) +
       "\" fill=\"none\" stroke=\"#555\"/>";
  o += "</svg>";
  return o;
}

std::string render_value_bars(const std::string& title, const std::vector<ValueBar>& bars,
                              const std::function<std::string(double)>& format_x, double width) {
  // The label column is as wide as the longest label (11 px sans-serif, at most 7 px a character,
  // plus the gap), so "12. host-name scratch file /srv/x (on sdb)" is not cut at the left edge;
  // the plot keeps at least 300 px and the whole chart grows instead.
  std::size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  const double row = 22, top = 30, bottom = 34, right = 170;
  const double label_w = std::max(120.0, 7.0 * static_cast<double>(longest) + 16);
  width = std::max(width, label_w + 300 + right);
  const double height =
      top + bottom + row * static_cast<double>(std::max<std::size_t>(bars.size(), 1));
  double max_value = 0;
  for (const auto& b : bars) {
    if (b.value && std::isfinite(*b.value)) max_value = std::max(max_value, *b.value);
    if (b.claim && std::isfinite(*b.claim)) max_value = std::max(max_value, *b.claim);
  }
  if (!(max_value > 0)) max_value = 1;
  const auto ticks = nice_ticks(0, max_value * 1.05, 5);
  const double axis_max = std::max(max_value * 1.05, ticks.empty() ? 0.0 : ticks.back());
  const double x0 = label_w, x1 = width - right;
  auto px = [&](double v) { return x0 + std::clamp(v, 0.0, axis_max) / axis_max * (x1 - x0); };

  std::string o;
  o += svg_open(width, height, title);
  o += "<text x=\"8\" y=\"18\" class=\"ct\">" + escape_html(title) + "</text>";
  const double plot_bottom = height - bottom;
  for (double t : ticks) {
    if (t > axis_max) break;
    const double x = px(t);
    o += "<line x1=\"" + fmt1(x) + "\" y1=\"" + fmt1(top) + "\" x2=\"" + fmt1(x) + "\" y2=\"" +
         fmt1(plot_bottom) + "\" stroke=\"#ddd\"/>";
    std::string label;
    if (format_x) {
      label = format_x(t);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", t);
      label = buf;
    }
    o += "<text x=\"" + fmt1(x) + "\" y=\"" + fmt1(plot_bottom + 16) +
         "\" text-anchor=\"middle\" class=\"tk\">" + escape_html(label) + "</text>";
  }
  double y = top;
  bool any_claim = false;
  for (const auto& b : bars) {
    o += "<text x=\"" + fmt1(x0 - 8) + "\" y=\"" + fmt1(y + 15) +
         "\" text-anchor=\"end\" class=\"tk\">" + escape_html(b.label) + "</text>";
    if (b.value && std::isfinite(*b.value)) {
      o += "<rect class=\"bar " + escape_html(b.css_class) + "\" x=\"" + fmt1(x0) + "\" y=\"" +
           fmt1(y + 4) + "\" width=\"" + fmt1(std::max(px(*b.value) - x0, 1.0)) + "\" height=\"" +
           fmt1(row - 8) + "\"/>";
    }
    o += "<text x=\"" + fmt1(x1 + 8) + "\" y=\"" + fmt1(y + 15) + "\" class=\"tk\">" +
         escape_html(b.value_text.empty() && !b.value ? "not measured" : b.value_text) + "</text>";
    if (b.claim && std::isfinite(*b.claim)) {
      any_claim = true;
      const double x = px(*b.claim);
      o += "<line class=\"claim\" x1=\"" + fmt1(x) + "\" y1=\"" + fmt1(y + 1) + "\" x2=\"" +
           fmt1(x) + "\" y2=\"" + fmt1(y + row - 1) +
           "\" stroke=\"#2ca02c\" stroke-width=\"2.5\"/>";
    }
    y += row;
  }
  if (any_claim)
    o += "<text x=\"" + fmt1(x1) + "\" y=\"18\" text-anchor=\"end\" class=\"cl\">| claim</text>";
  o += "<path d=\"M" + fmt1(x0) + " " + fmt1(top) + "V" + fmt1(plot_bottom) + "H" + fmt1(x1) +
       "\" fill=\"none\" stroke=\"#555\"/>";
  o += "</svg>";
  return o;
}

std::string render_histogram(const std::string& title, const std::string& x_label,
                             const std::vector<HistogramBin>& bins, double width, double height) {
  Frame f;
  f.width = width;
  f.height = height;
  f.top = 30;
  f.bottom = 48;
  double max_count = 1;
  for (const auto& b : bins)
    if (std::isfinite(b.count)) max_count = std::max(max_count, b.count);
  const double decades = std::max(1.0, std::ceil(std::log10(max_count) + 1e-9));
  auto py = [&](double count) {
    const double v = count <= 1 ? 0 : std::log10(count) / decades;
    return f.y0() - v * (f.y0() - f.y1());
  };
  std::string o = svg_open(width, height, title);
  o += "<text x=\"" + fmt1(f.x0()) + "\" y=\"17\" class=\"ct\">" + escape_html(title) + "</text>";
  for (int d = 0; d <= static_cast<int>(decades); ++d) {
    const double y = py(std::pow(10.0, d));
    o += "<line x1=\"" + fmt1(f.x0()) + "\" y1=\"" + fmt1(y) + "\" x2=\"" + fmt1(f.x1()) +
         "\" y2=\"" + fmt1(y) + "\" stroke=\"#ddd\"/>";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", std::pow(10.0, d));
    o += "<text x=\"" + fmt1(f.x0() - 6) + "\" y=\"" + fmt1(y + 4) +
         "\" text-anchor=\"end\" class=\"tk\">" + buf + "</text>";
  }
  const double slot =
      (f.x1() - f.x0()) / static_cast<double>(std::max<std::size_t>(1, bins.size()));
  const std::size_t label_every = std::max<std::size_t>(1, bins.size() / 12);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const auto& b = bins[i];
    const double x = f.x0() + slot * static_cast<double>(i);
    if (b.count >= 1 && std::isfinite(b.count)) {
      const double y = py(b.count);
      char count[32];
      std::snprintf(count, sizeof count, "%.0f", b.count);
      o += "<rect class=\"bin\" data-count=\"" + std::string(count) + "\" x=\"" + fmt1(x + 1) +
           "\" y=\"" + fmt1(std::min(y, f.y0() - 1)) + "\" width=\"" +
           fmt1(std::max(1.0, slot - 2)) + "\" height=\"" + fmt1(std::max(1.0, f.y0() - y)) +
           "\" fill=\"#1f77b4\"><title>" + escape_html(b.label) + ": " + count + "</title></rect>";
    }
    if (i % label_every == 0)
      o += "<text x=\"" + fmt1(x + slot / 2) + "\" y=\"" + fmt1(f.y0() + 16) +
           "\" text-anchor=\"middle\" class=\"tk\">" + escape_html(b.label) + "</text>";
  }
  o += "<line x1=\"" + fmt1(f.x0()) + "\" y1=\"" + fmt1(f.y0()) + "\" x2=\"" + fmt1(f.x1()) +
       "\" y2=\"" + fmt1(f.y0()) + "\" stroke=\"#333\"/>";
  o += "<text x=\"" + fmt1((f.x0() + f.x1()) / 2) + "\" y=\"" + fmt1(height - 8) +
       "\" text-anchor=\"middle\" class=\"al\">" + escape_html(x_label) + "</text>";
  o += "<text transform=\"translate(14," + fmt1((f.y0() + f.y1()) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" class=\"al\">I/Os (log)</text>";
  if (bins.empty())
    o += "<text x=\"" + fmt1((f.x0() + f.x1()) / 2) + "\" y=\"" + fmt1((f.y0() + f.y1()) / 2) +
         "\" text-anchor=\"middle\" class=\"tk\">no data</text>";
  o += "</svg>";
  return o;
}

}  // namespace storqual::reporting
