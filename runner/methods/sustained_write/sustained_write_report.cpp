// SPDX-License-Identifier: Apache-2.0
// The sustained write's report: its JSON, HTML box, timeline marker and verdict words (see
// sustained_write.hpp).
#include <algorithm>
#include <cstdio>

#include "model/metric.hpp"
#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/json_codec.hpp"
#include "runner/base/units.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<SustainedWriteReport> auto& s, auto&& visit) {
  visit("bytes_written", s.bytes_written);
  visit("initial_bw", s.initial_bw);
  visit("drop_fraction", s.drop_fraction);
  visit("dropped", s.dropped);
  visit("cache_bytes", s.cache_bytes);
  visit("cache_time_s", s.cache_time_s);
  visit("post_cache_bw", s.post_cache_bw);
  visit("drop_cause", s.drop_cause);
}

void SustainedWriteMethodReport::write_json(nlohmann::ordered_json& result) const {
  reporting::json::put(result, "sustained", sustained);
}

std::shared_ptr<const reporting::MethodReport> read_sustained_write_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult&) {
  if (kind != "sustained-write") return nullptr;
  auto report = std::make_shared<SustainedWriteMethodReport>();
  workload.get("sustained", report->sustained);
  return report;
}

const SustainedWriteReport* sustained_write_report(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const SustainedWriteMethodReport*>(w.method.get());
  return report && report->sustained ? &*report->sustained : nullptr;
}

void SustainedWriteMethodReport::render_html(std::string& o, const reporting::RunResult&,
                                             const reporting::WorkloadResult&) const {
  using namespace reporting;
  if (!sustained) return;
  const SustainedWriteReport& s = *sustained;
  o += "<div class=\"box sustained\"><h4>Sustained write</h4><table><tbody>";
  html_kv_row(o, "written", html_bytes_text(s.bytes_written));
  html_kv_row(o, "initial rate", html_rate(s.initial_bw));
  html_kv_row(o, "cache exhausted below",
              html_rate(s.initial_bw * s.drop_fraction) + " (" +
                  html_percent(s.drop_fraction * 100) + " of the initial rate)");
  if (s.dropped) {
    html_kv_row(o, "write-cache size", html_bytes_text(s.cache_bytes));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f s after the start", s.cache_time_s);
    html_kv_row(o, "drop at", buf);
    html_kv_row(o, "post-cache rate", html_rate(s.post_cache_bw));
    if (!s.drop_cause.empty()) html_kv_row(o, "drop cause", s.drop_cause);
  } else {
    html_kv_row(o, "write-cache size",
                "no drop: the rate stayed above the threshold over all " +
                    reporting::format_bytes_iec(static_cast<double>(s.bytes_written)) + " written");
    html_kv_row(o, "sustained rate", html_rate(s.post_cache_bw));
  }
  o += "</tbody></table></div>";
}

void SustainedWriteMethodReport::timeline_marks(std::vector<reporting::TimelineMark>& marks) const {
  if (!sustained || !sustained->dropped) return;
  const SustainedWriteReport& s = *sustained;
  reporting::TimelineMark m;
  m.from_s = s.cache_time_s;
  const std::string after = reporting::format_bytes_iec(static_cast<double>(s.cache_bytes));
  m.label = s.drop_cause == "thermal throttling"
                ? "throughput drop (thermal throttling, not the cache) after " + after
                : "write cache exhausted after " + after;
  marks.push_back(std::move(m));
}

std::string SustainedWriteMethodReport::measured_note(const reporting::WorkloadResult&) const {
  using reporting::format_metric_value;
  using reporting::MetricKind;
  if (!sustained) return "";
  const SustainedWriteReport& sw = *sustained;
  if (sw.dropped && sw.drop_cause == "thermal throttling")
    return ", throughput dropped after " +
           runner::format_bytes_iec(static_cast<double>(sw.cache_bytes)) +
           " by thermal throttling (not the write cache) to " +
           format_metric_value(MetricKind::Bandwidth, sw.post_cache_bw);
  if (sw.dropped)
    return ", write cache " + runner::format_bytes_iec(static_cast<double>(sw.cache_bytes)) +
           " then " + format_metric_value(MetricKind::Bandwidth, sw.post_cache_bw);
  return ", no drop in " + runner::format_bytes_iec(static_cast<double>(sw.bytes_written));
}

std::shared_ptr<const reporting::MethodReport> SustainedWriteMethodReport::after_throttling(
    const reporting::WorkloadResult& w) const {
  if (!sustained) return nullptr;
  auto again = std::make_shared<SustainedWriteMethodReport>(*this);
  SustainedWriteReport& sw = *again->sustained;
  sw.drop_cause.clear();
  if (sw.dropped) {
    const double step = w.timeline.size() > 1 ? w.timeline[1].t_s - w.timeline[0].t_s : 1;
    const bool thermal = std::any_of(w.throttled.begin(), w.throttled.end(), [&](const auto& t) {
      return t.start_s <= sw.cache_time_s + step && t.end_s >= sw.cache_time_s - step;
    });
    sw.drop_cause = thermal ? "thermal throttling" : "cache cliff";
  }
  return again;
}

}  // namespace storqual::runner
