// SPDX-License-Identifier: Apache-2.0
// The capacity check's report: its JSON, HTML box and the words a capacity verdict adds (see
// capacity_check.hpp).
#include "model/quantity_format.hpp"
#include "reporting/html_blocks.hpp"
#include "reporting/html_report.hpp"
#include "reporting/json_codec.hpp"
#include "runner/methods/capacity/capacity_check.hpp"

namespace storqual::runner {

void visit_fields(reporting::json::Either<CapacityReport> auto& c, auto&& visit) {
  visit("reported_bytes", c.reported_bytes);
  visit("usable_bytes", c.usable_bytes);
  visit("sample_interval", c.sample_interval);
  visit("samples", c.samples);
  visit("samples_good", c.samples_good);
  visit("block_size", c.block_size);
  visit("corrupted", c.corrupted);
  visit("misplaced", c.misplaced);
  visit("stale", c.stale);
  visit("foreign", c.foreign);
  visit("read_errors", c.read_errors);
  visit("findings", c.findings);
  visit("aliasing_start", c.aliasing_start);
  visit("aliased_to", c.aliased_to);
}

void CapacityMethodReport::write_json(nlohmann::ordered_json& result) const {
  reporting::json::put(result, "capacity", capacity);
}

std::shared_ptr<const reporting::MethodReport> read_capacity_report(
    const reporting::json::Node& workload, std::string_view kind, reporting::WorkloadResult&) {
  if (kind != "capacity") return nullptr;
  auto report = std::make_shared<CapacityMethodReport>();
  workload.get("capacity", report->capacity);
  return report;
}

const CapacityReport* capacity_report_of(const reporting::WorkloadResult& w) noexcept {
  const auto* report = dynamic_cast<const CapacityMethodReport*>(w.method.get());
  return report && report->capacity ? &*report->capacity : nullptr;
}

std::string CapacityMethodReport::claim_note(std::string_view metric) const {
  return capacity && metric == "capacity" ? capacity_summary(*capacity) : std::string();
}

void CapacityMethodReport::render_html(std::string& o, const reporting::RunResult& run,
                                       const reporting::WorkloadResult& w) const {
  using namespace reporting;
  if (!capacity) return;
  const CapacityReport& c = *capacity;
  const bool full = c.reported_bytes > 0 && c.usable_bytes >= c.reported_bytes;
  o += "<div class=\"box capacity " + std::string(full && !c.aliasing_start ? "ok" : "bad") +
       "\"><h4>Real capacity</h4><table><tbody>";
  html_kv_row(o, "reported by the device", html_bytes_text(c.reported_bytes));
  for (const auto& v : run.verdicts)
    if (v.metric == "capacity" && v.claimed && v.kind == VerdictKind::Claim)
      for (const auto& id : v.workloads)
        if (id == w.id) html_kv_row(o, "claimed (spec sheet)", format_html_figure(*v.claimed, "B"));
  std::string usable = html_bytes_text(c.usable_bytes);
  if (c.reported_bytes > 0)
    usable += ", " +
              html_percent(static_cast<double>(c.usable_bytes) /
                           static_cast<double>(c.reported_bytes) * 100) +
              " of the reported";
  if (c.sample_interval) usable += " (within one sample interval)";
  html_kv_row(o, "usable capacity found", usable);
  if (c.aliasing_start)
    html_kv_row(
        o, "aliasing",
        "starts at offset " + html_offset_text(*c.aliasing_start) +
            (c.aliased_to ? ", which shows the block of offset " + html_offset_text(*c.aliased_to)
                          : std::string()));
  else
    html_kv_row(o, "aliasing", "none found");
  std::string density = std::to_string(c.samples) + " samples of " +
                        reporting::format_bytes_iec(static_cast<double>(c.block_size)) +
                        ", one every " +
                        reporting::format_bytes_iec(static_cast<double>(c.sample_interval)) + ", " +
                        std::to_string(c.samples_good) + " read back their own data";
  html_kv_row(o, "sample density", density);
  o += "</tbody></table>";
  html_class_counts(o, c.corrupted, c.misplaced, c.stale, c.foreign, c.read_errors);
  html_findings_table(o, c.findings, c.corrupted + c.misplaced + c.stale + c.foreign);
  o += "</div>";
}

}  // namespace storqual::runner
