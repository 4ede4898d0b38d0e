// SPDX-License-Identifier: Apache-2.0
// The SNIA PTS test's report: its JSON and reader (see pts_tests.hpp; the HTML is pts_html.cpp).
#include "reporting/json_codec.hpp"
#include "runner/methods/pts/pts_tests.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<PtsSample> auto& p, auto&& visit) {
  visit("t_s", p.t_s);
  visit("tgbw", p.tgbw);
  visit("iops", p.iops);
  visit("bw", p.bw);
  visit("lat_mean_ns", p.lat_mean_ns);
  visit("segment", p.segment);
}

void visit_fields(reporting::json::Either<PtsSegment> auto& g, auto&& visit) {
  visit("label", g.label);
  visit("rw", g.rw);
  visit("bs", g.bs);
  visit("start_s", g.start_s);
  visit("end_s", g.end_s);
  visit("wait_s", g.wait_s);
  visit("bursts", g.bursts);
  visit("mean_iops", g.mean_iops);
  visit("mean_bw", g.mean_bw);
  visit("mean_lat_ns", g.mean_lat_ns);
  visit("settled_bw", g.settled_bw);
  visit("recovery_s", g.recovery_s);
  visit("settled_iops", g.settled_iops);
}

void visit_fields(reporting::json::Either<PtsGridPoint> auto& g, auto&& visit) {
  visit("threads", g.threads);
  visit("qd", g.qd);
  visit("iops", g.iops);
  visit("lat_mean_ns", g.lat_mean_ns);
  visit("lat_max_ns", g.lat_max_ns);
  visit("within_ceiling", g.within_ceiling);
}

void visit_fields(reporting::json::Either<PtsBin> auto& b, auto&& visit) {
  visit("upper_ns", b.upper_ns);
  visit("count", b.count);
}

void visit_fields(reporting::json::Either<PtsHistogram> auto& h, auto&& visit) {
  visit("label", h.label);
  visit("threads", h.threads);
  visit("qd", h.qd);
  visit("iops", h.iops);
  visit("lat_mean_ns", h.lat_mean_ns);
  visit("lat_p99_ns", h.lat_p99_ns);
  visit("lat_p99999_ns", h.lat_p99999_ns);
  visit("lat_max_ns", h.lat_max_ns);
  visit("bins", h.bins);
}

void visit_fields(reporting::json::Either<PtsReport> auto& r, auto&& visit) {
  visit({"test", reporting::json::kRequired}, r.test);
  visit("stimulus", r.stimulus);
  visit("interval_s", r.interval_s);
  visit("range_bytes", r.range_bytes);
  visit("full_scale_s", r.full_scale_s);
  visit("samples", r.samples);
  visit("steady_state", r.steady_state);
  visit("steady_from_s", r.steady_from_s);
  visit("steady_to_s", r.steady_to_s);
  visit("steady_from_tgbw", r.steady_from_tgbw);
  visit("steady_to_tgbw", r.steady_to_tgbw);
  visit("cliff_tgbw", r.cliff_tgbw);
  visit("segments", r.segments);
  visit("grid", r.grid);
  visit("ceiling_ns", r.ceiling_ns);
  visit("histograms", r.histograms);
  visit("figures", r.figures);
}

void PtsMethodReport::write_json(nlohmann::ordered_json& result) const {
  reporting::json::put(result, "pts", pts);
}

const PtsReport* pts_report_of(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const PtsMethodReport*>(w.method.get());
  return report ? &report->pts : nullptr;
}

std::shared_ptr<const reporting::MethodReport> read_pts_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult& w) {
  if (!kind.starts_with("pts-")) return nullptr;
  auto report = std::make_shared<PtsMethodReport>();
  report->kind_text = std::string(kind);
  workload.get({"pts", reporting::json::kRequired}, report->pts);
  w.figures = report->pts.figures;  // what the test published, as claims read them
  return report;
}

}  // namespace storqual::runner
