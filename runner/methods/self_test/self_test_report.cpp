// SPDX-License-Identifier: Apache-2.0
// The self-test's report: its JSON, HTML box and its verdict (see self_test.hpp).
#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/json_codec.hpp"
#include "runner/methods/self_test/self_test.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<SelfTestReport> auto& r, auto&& visit) {
  visit("type", r.type);
  visit("transport", r.transport);
  visit("outcome", r.outcome);
  visit("status", r.status_text);
  visit("failing_lba", r.failing_lba);
  visit("power_on_hours", r.power_on_hours);
  visit("expected_s", r.expected_s);
  visit("last_percent_done", r.last_percent_done);
  visit("polls", r.polls);
}

void SelfTestMethodReport::write_json(nlohmann::ordered_json& result) const {
  reporting::json::put(result, "self_test", self_test);
}

std::shared_ptr<const reporting::MethodReport> read_self_test_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult&) {
  if (kind != "self-test") return nullptr;
  auto report = std::make_shared<SelfTestMethodReport>();
  workload.get("self_test", report->self_test);
  return report;
}

const SelfTestReport* self_test_report_of(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const SelfTestMethodReport*>(w.method.get());
  return report ? &report->self_test : nullptr;
}

reporting::ClaimVerdict self_test_verdict(const std::string& id, const SelfTestReport& r,
                                          double time_s) {
  using reporting::VerdictStatus;
  reporting::ClaimVerdict v;
  v.workloads = {id};
  v.metric = "self-test." + r.type;
  v.kind = reporting::VerdictKind::Health;
  v.time_s = time_s;
  const std::string what =
      r.type + " self-test" + (r.transport.empty() ? "" : " (" + r.transport + ")");
  if (r.outcome == "passed")
    v.status = VerdictStatus::Pass;
  else if (r.outcome == "failed")
    v.status = VerdictStatus::Fail;
  else if (r.outcome == "not supported" || r.outcome == "not allowed")
    v.status = VerdictStatus::Skipped;
  else
    v.status = VerdictStatus::Error;
  if (r.outcome == "interrupted") v.error_cause = reporting::ErrorCause::Interrupted;
  v.message = what + " " + r.outcome + (r.status_text.empty() ? "" : ": " + r.status_text);
  if (r.power_on_hours && (r.outcome == "passed" || r.outcome == "failed"))
    v.message += " (log entry at " + std::to_string(*r.power_on_hours) + " power-on hours)";
  return v;
}

bool SelfTestMethodReport::own_verdict(const reporting::WorkloadResult& w,
                                       reporting::ClaimVerdict& out) const {
  out = self_test_verdict(w.id, self_test, w.elapsed_s);
  return true;
}

void SelfTestMethodReport::render_html(std::string& o, const reporting::RunResult& /*run*/,
                                       const reporting::WorkloadResult& w) const {
  using namespace reporting;
  const SelfTestReport& r = self_test;
  o += "<div class=\"box self-test " + std::string(r.outcome == "passed" ? "ok" : "bad") +
       "\"><h4>Self-test</h4><table><tbody>";
  html_kv_row(o, "test", r.type + (r.transport.empty() ? "" : " (" + r.transport + ")"));
  html_kv_row(o, "outcome", r.outcome);
  const bool from_log = r.outcome == "passed" || r.outcome == "failed" || r.outcome == "aborted" ||
                        r.outcome == "unknown";
  if (!r.status_text.empty()) html_kv_row(o, from_log ? "the drive's log" : "why", r.status_text);
  if (r.failing_lba) html_kv_row(o, "first failing LBA", std::to_string(*r.failing_lba));
  if (r.power_on_hours) html_kv_row(o, "power-on hours", std::to_string(*r.power_on_hours));
  if (r.expected_s) html_kv_row(o, "the drive's estimate", format_fixed(*r.expected_s, 0) + " s");
  html_kv_row(o, "time", format_fixed(w.elapsed_s, 1) + " s, " + count_of(r.polls, "poll"));
  o += "</tbody></table></div>";
}

}  // namespace storqual::runner
