// SPDX-License-Identifier: Apache-2.0
// fio's steady-state criteria over one-second samples (see fio_steady_state.hpp).
#include "runner/measure/fio_steady_state.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

std::string limit_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double parse_number(std::string_view what, std::string_view v) {
  double d = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(d) || d < 0)
    throw UnitError(std::string(what) + ": expected a number, got '" + std::string(v) + "'");
  return d;
}

}  // namespace

std::string FioSteadyState::criterion_text() const {
  std::string out = std::string(bw ? "bw" : "iops") + (slope ? "_slope" : "") + ":";
  if (percent) return out + limit_text(limit) + "%";
  if (bw) return out + std::to_string(static_cast<std::uint64_t>(limit));
  return out + limit_text(limit);
}

void apply_steady_state_criterion(FioSteadyState& ss, std::string_view value) {
  const auto colon = value.find(':');
  const std::string_view name = value.substr(0, colon);
  if (name != "iops" && name != "iops_slope" && name != "bw" && name != "bw_slope")
    throw UnitError("ss: expected iops, iops_slope, bw or bw_slope, then ':' and the limit, got '" +
                    std::string(value) + "'");
  if (colon == std::string_view::npos || colon + 1 == value.size())
    throw UnitError("ss: the limit after '" + std::string(name) +
                    ":' is missing (fio: a threshold must be given with the criterion)");
  std::string_view limit = value.substr(colon + 1);
  ss.bw = name.starts_with("bw");
  ss.slope = name.ends_with("_slope");
  ss.percent = limit.ends_with("%");
  if (ss.percent) {
    limit.remove_suffix(1);
    ss.limit = parse_number("ss", limit);
  } else if (ss.bw) {  // bytes per second, a size as fio's str_to_decimal reads it
    ss.limit = static_cast<double>(parse_size(limit));
  } else {
    ss.limit = parse_number("ss", limit);
  }
}

void apply_steady_state_duration(FioSteadyState& ss, std::string_view value) {
  const double s = parse_duration(value);
  if (s > 24 * 3600.0) throw UnitError("ss_dur: at most a day of one-second samples");
  ss.dur_s = static_cast<unsigned>(s);  // fio: whole seconds (o->ss_dur /= 1000000)
}

void apply_steady_state_ramp(FioSteadyState& ss, std::string_view value) {
  ss.ramp_s = parse_duration(value);
  if (ss.ramp_s > 365.0 * 24 * 3600) throw UnitError("ss_ramp: at most a year");
}

std::vector<std::string> steady_state_options(const FioSteadyState& ss) {
  std::vector<std::string> out;
  if (!ss.active()) return out;
  out.push_back("ss=" + ss.criterion_text());
  out.push_back("ss_dur=" + std::to_string(ss.dur_s) + "s");
  if (ss.ramp_s > 0) out.push_back("ss_ramp=" + format_duration_fio(ss.ramp_s));
  return out;
}

FioSteadyStateWindow::FioSteadyStateWindow(FioSteadyState ss) : ss_(ss) {
  char text[64];  // as fio's JSON writes it (stat.c): "iops:10.000000%"
  std::snprintf(text, sizeof text, "%s%s:%f%s", ss_.bw ? "bw" : "iops", ss_.slope ? "_slope" : "",
                static_cast<float>(ss_.limit), ss_.percent ? "%" : "");
  report_.ss = text;
  report_.duration = ss_.dur_s;
  report_.ramp_s = ss_.ramp_s;
  report_.percent = ss_.percent;
  report_.limit = ss_.limit;
}

bool FioSteadyStateWindow::add(std::uint64_t iops, std::uint64_t bw, double measured_s) {
  if (report_.attained || !ss_.active()) return report_.attained;
  const std::size_t n = ss_.dur_s;
  if (iops_.size() == n) {  // the window moves on
    iops_.erase(iops_.begin());
    bw_.erase(bw_.begin());
  }
  iops_.push_back(iops);
  bw_.push_back(bw);
  ++report_.samples;
  if (iops_.size() < n) return false;
  const std::vector<std::uint64_t>& all = ss_.bw ? bw_ : iops_;
  const auto first = all.end() - static_cast<std::ptrdiff_t>(n);
  double sum_y = 0;
  for (auto it = first; it != all.end(); ++it) sum_y += static_cast<double>(*it);
  const double mean = sum_y / static_cast<double>(n);
  double criterion = 0;
  if (ss_.slope) {
    // fio: slope = (sum_xy - sum_x sum_y / n) / (sum_x^2 - sum_x^2 / n), x = 0 .. n-1; a window
    // of one sample has no slope (fio divides 0 by 0 and never attains it).
    const double dn = static_cast<double>(n);
    const double sum_x = dn * (dn - 1) / 2, sum_x_sq = (dn - 1) * dn * (2 * dn - 1) / 6;
    double sum_xy = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum_xy += static_cast<double>(i) * static_cast<double>(first[i]);
    report_.slope = (sum_xy - sum_x * sum_y / dn) / (sum_x_sq - sum_x * sum_x / dn);
    criterion = ss_.percent ? 100.0 * report_.slope / mean : report_.slope;
    report_.criterion = criterion;
    criterion = std::fabs(criterion);
  } else {
    double dev = 0;
    for (auto it = first; it != all.end(); ++it)
      dev = std::max(dev, std::fabs(static_cast<double>(*it) - mean));
    report_.max_deviation = dev;
    criterion = ss_.percent ? 100.0 * dev / mean : dev;
    report_.criterion = criterion;
  }
  if (criterion < ss_.limit) {  // NaN (a mean of 0 in percent) never attains it, as in fio
    report_.attained = true;
    report_.attained_at_s = measured_s;
  }
  return report_.attained;
}

reporting::FioSteadyStateReport FioSteadyStateWindow::report() const {
  reporting::FioSteadyStateReport r = report_;
  const std::size_t n = std::min<std::size_t>(ss_.dur_s, iops_.size());
  r.iops.assign(iops_.end() - static_cast<std::ptrdiff_t>(n), iops_.end());
  r.bw.assign(bw_.end() - static_cast<std::ptrdiff_t>(n), bw_.end());
  std::uint64_t si = 0, sb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    si += r.iops[i];
    sb += r.bw[i];
  }
  // fio's steadystate_iops_mean: the sum over ss_dur slots (unfilled ones are 0) over ss_dur.
  if (ss_.dur_s) {
    r.iops_mean = si / ss_.dur_s;
    r.bw_mean = sb / ss_.dur_s;
  }
  return r;
}

}  // namespace storqual::runner
