// SPDX-License-Identifier: Apache-2.0
// `storqual history` output (history_format.hpp).
#include "archive/history_format.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/quantity_format.hpp"
#include "reporting/text_sanitize.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;

std::string figures_text(const HistoryRow& r) {
  std::string out;
  for (const auto& f : r.figures) {
    if (f.name != "iops") continue;
    out += (out.empty() ? "" : "; ") + f.workload + " " + format_fixed(f.value, 0) + " IOPS";
  }
  return out;
}

std::string tags_text(const HistoryRow& r) {
  std::string out;
  for (const auto& t : r.tags) out += (out.empty() ? "" : " ") + t.key + "=" + t.value;
  return out;
}

std::string interval_text(const std::optional<std::pair<double, double>>& i) {
  if (!i) return "no interval";
  return "[" + format_fixed(i->first, 0) + ", " + format_fixed(i->second, 0) + "]";
}

void append_against(std::string& out, const char* what, const DriftAgainst& a,
                    const DriftReport& drift) {
  out += "  drift: against " + std::string(what) + " record " + std::to_string(a.record) + " (" +
         terminal_text(a.start_utc) + ", firmware " +
         (a.firmware.empty() ? "-" : terminal_text(a.firmware)) + ", " + terminal_text(a.verdict) +
         ")\n";
  for (const auto& f : a.figures) {
    const double pct = f.then != 0 ? (f.now - f.then) / f.then * 100 : 0;
    out += "    " + terminal_text(f.workload) + " " + terminal_text(f.name) + ": " +
           format_fixed(f.then, 0) + " -> " + format_fixed(f.now, 0) + " " + f.unit + " (" +
           (pct >= 0 ? "+" : "") + format_fixed(pct, 1) + "%); intervals " +
           interval_text(f.then_interval) + " and " + interval_text(f.now_interval) +
           (f.separated                         ? ": separate, DRIFT"
            : f.now_interval && f.then_interval ? ": overlap, no drift"
                                                : ": not judged") +
           "\n";
  }
  if (a.firmware != drift.firmware_now)
    out += "    firmware: " + (a.firmware.empty() ? "-" : terminal_text(a.firmware)) + " -> " +
           (drift.firmware_now.empty() ? "-" : terminal_text(drift.firmware_now)) + "\n";
  if (!a.wear_then.empty() && !drift.wear_now.empty())
    out += "    wear: percentage_used " + terminal_text(a.wear_then) + " -> " +
           terminal_text(drift.wear_now) + "\n";
}

}  // namespace

std::string csv_field(const std::string& s) {
  // OWASP's CSV injection rule: a field a spreadsheet would take for a formula (= + - @, or a
  // tab or CR before one) gets a leading single quote, and is quoted.
  const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string::npos;
  if (!formula && s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = formula ? "\"'" : "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string format_drift(const DriftReport& drift) {
  std::string out;
  if (drift.acceptance) append_against(out, "its acceptance", *drift.acceptance, drift);
  if (drift.last) append_against(out, "its last", *drift.last, drift);
  return out;
}

std::string format_history_table(const std::vector<HistoryRow>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %-12s %-16s %-20s %-10s %-14s %-13s %s\n", "date", "host",
                "serial", "model", "firmware", "suite", "verdict", "figures");
  out += line;
  // Every string came from a device, a file or the archive: no control character reaches the
  // terminal (terminal_text).
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-20.20s %-12.12s %-16.16s %-20.20s %-10.10s %-14.14s %-13s ",
                  terminal_text(r.start_utc).c_str(), terminal_text(r.host).c_str(),
                  terminal_text(r.serial).c_str(), terminal_text(r.model).c_str(),
                  terminal_text(r.firmware).c_str(), terminal_text(r.suite).c_str(),
                  terminal_text(r.verdict + " (" + std::to_string(r.exit_code) + ")").c_str());
    out += line + terminal_text(figures_text(r));
    if (!r.tags.empty()) out += "  [" + terminal_text(tags_text(r)) + "]";
    out += "\n";
  }
  out += std::to_string(rows.size()) + (rows.size() == 1 ? " run\n" : " runs\n");
  return out;
}

std::string format_history_json(const std::vector<HistoryRow>& rows) {
  Json runs = Json::array();
  for (const auto& r : rows) {
    Json figures = Json::array();
    for (const auto& f : r.figures)
      figures.push_back(
          {{"workload", f.workload}, {"name", f.name}, {"value", f.value}, {"unit", f.unit}});
    // Every tag in its order, a key given twice twice.
    Json tags = Json::array();
    for (const auto& t : r.tags) tags.push_back({{"key", t.key}, {"value", t.value}});
    runs.push_back({{"start_utc", r.start_utc},
                    {"host", r.host},
                    {"serial", r.serial},
                    {"model", r.model},
                    {"firmware", r.firmware},
                    {"tool_version", r.tool_version},
                    {"suite", r.suite},
                    {"verdict", r.verdict},
                    {"exit_code", r.exit_code},
                    {"result_sha256", r.result_sha256},
                    {"figures", figures},
                    {"tags", tags}});
  }
  return Json{{"runs", runs}}.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string format_history_csv(const std::vector<HistoryRow>& rows) {
  std::string out =
      "start_utc,host,serial,model,firmware,tool_version,suite,verdict,exit_code,result_sha256,"
      "figures,tags\r\n";
  for (const auto& r : rows) {
    for (const std::string& f :
         {r.start_utc, r.host, r.serial, r.model, r.firmware, r.tool_version, r.suite, r.verdict,
          std::to_string(r.exit_code), r.result_sha256, figures_text(r)})
      out += csv_field(f) + ",";
    out += csv_field(tags_text(r)) + "\r\n";
  }
  return out;
}

}  // namespace storqual::reporting
