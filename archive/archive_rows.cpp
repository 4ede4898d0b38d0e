// SPDX-License-Identifier: Apache-2.0
// A record's rows from a run, and their canonical text (archive_rows.hpp).
#include "archive/archive_rows.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "archive/archive_schema.hpp"
#include "model/errors.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;

SqlCell num(double v) {
  if (!std::isfinite(v)) return std::monostate{};
  return v;
}
SqlCell num(const std::optional<double>& v) {
  return v ? num(*v) : SqlCell{std::monostate{}};
}
SqlCell integer(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}

std::string identity_value(const DeviceReport& d, std::string_view field) {
  for (const auto& row : d.identity)
    if (row.field == field) return row.value;
  return {};
}

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : " ") + s;
  return out;
}

void add_direction_figures(std::vector<SqlRow>& out, const WorkloadResult& w, const char* dir,
                           const DirectionResult& d) {
  const std::string p = dir;
  auto add = [&](const std::string& name, double v, const char* unit, std::uint64_t samples) {
    out.push_back({std::int64_t(0), w.id, name, num(v), std::string(unit), std::monostate{},
                   std::monostate{}, integer(samples)});
  };
  add(p + ".iops", d.iops, "IOPS", d.ios);
  add(p + ".bw", d.bw_bytes, "B/s", d.ios);
  if (d.lat.samples) add(p + ".lat.mean", d.lat.mean_ns, "ns", d.lat.samples);
}

// Each workload's measured figures: the totals (with the early-stop interval when the workload
// had one on that figure), each direction's, and the named figures of its method.
std::vector<SqlRow> figure_rows(const RunResult& run) {
  std::vector<SqlRow> out;
  for (const auto& w : run.workloads) {
    if (w.skipped) continue;
    const double iops = (w.read ? w.read->iops : 0) + (w.write ? w.write->iops : 0);
    const double bw = (w.read ? w.read->bw_bytes : 0) + (w.write ? w.write->bw_bytes : 0);
    const std::uint64_t samples = w.early_stop ? w.early_stop->samples : w.timeline.size();
    for (const auto& [name, value, unit] :
         {std::tuple{"iops", iops, "IOPS"}, std::tuple{"bw", bw, "B/s"}}) {
      if (!w.read && !w.write) break;
      SqlCell low = std::monostate{}, high = std::monostate{};
      if (w.early_stop && w.early_stop->metric == name && w.early_stop->samples > 0) {
        low = num(w.early_stop->mean - w.early_stop->half_width);
        high = num(w.early_stop->mean + w.early_stop->half_width);
      }
      out.push_back({std::int64_t(0), w.id, std::string(name), num(value), std::string(unit), low,
                     high, integer(samples)});
    }
    if (w.read) add_direction_figures(out, w, "read", *w.read);
    if (w.write) add_direction_figures(out, w, "write", *w.write);
    // What the method published by name (a SNIA PTS test's figures are published again when its
    // result is read back, model/method_report.hpp).
    for (const auto& f : w.figures)
      out.push_back({std::int64_t(0), w.id, f.name, num(f.value), f.unit, std::monostate{},
                     std::monostate{}, std::monostate{}});
  }
  return out;
}

std::vector<SqlRow> verdict_rows(const RunResult& run) {
  std::vector<SqlRow> out;
  for (const auto& v : run.verdicts)
    out.push_back({std::int64_t(0), std::string(to_string(v.kind)), workload_text(v), v.metric,
                   std::string(to_string(v.status)), num(v.measured), num(v.claimed), v.unit,
                   num(v.tolerance_pct), num(v.diff_pct), v.message});
  return out;
}

SqlRow run_row(const RunResult& run) {
  const Environment& e = run.environment;
  return {std::int64_t(0),
          e.host,
          e.kernel,
          e.storqual_version,
          e.command_line,
          e.start_utc,
          e.end_utc,
          num(e.wall_time_s),
          run.spec.suite,
          run.spec.suite_sha256,
          run.spec.name,
          run.spec.path,
          run.spec.sha256,
          identity_value(run.device, "firmware"),
          run_verdict_word(run),
          std::int64_t{run.exit_code},
          std::int64_t{run.measure_only ? 1 : 0},
          std::int64_t{run.strict ? 1 : 0}};
}

// idx: each row's place in its table, from 0.
void number(std::vector<SqlRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i][0] = static_cast<std::int64_t>(i);
}

std::string shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// A text byte for byte: valid UTF-8 as itself, anything else as {"hex": its bytes} (so that no
// byte is replaced before hashing, and a text that was edited in its invalid bytes is seen).
Json canonical_text(const std::string& s) {
  if (valid_utf8(s)) return s;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : s) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return Json{{"hex", hex}};
}

// One cell as the canonical text has it: the writer gives each column its declared type, and so
// does every engine reading it back (SQLite's STRICT tables, PostgreSQL's types). A value of
// another type (an older archive's table that stored 0.75 in an integer column, or text in a
// double one) is spelled with its type, so that it never reads as the value it replaced.
Json canonical_cell(const SqlCell& c, ColumnType type) {
  if (std::holds_alternative<std::monostate>(c)) return nullptr;
  const auto* i = std::get_if<std::int64_t>(&c);
  const auto* d = std::get_if<double>(&c);
  const auto* s = std::get_if<std::string>(&c);
  switch (type) {
    case ColumnType::Integer:
      if (i) return *i;
      break;
    case ColumnType::Double:
      if (d) return shortest(*d);
      break;
    case ColumnType::Text:
      if (s) return canonical_text(*s);
      break;
  }
  if (i) return Json{{"integer", *i}};
  if (d) return Json{{"double", shortest(*d)}};
  return Json{{"text", canonical_text(*s)}};
}

}  // namespace

std::string run_verdict_word(const RunResult& run) {
  switch (run.exit_code) {
    case kExitPass:
      return run.measure_only ? "measured-only" : "pass";
    case kExitClaimFailed:
      return "fail";
    case kExitInterrupted:
      return "interrupted";
    default:
      return run.exit_code > 128 ? "interrupted" : "incomplete";
  }
}

RecordRows derive_record_rows(const RunResult& run, const std::vector<ArchivedFile>& files,
                              const std::vector<ArchiveTag>& tags) {
  RecordRows rows;
  const DeviceReport& d = run.device;
  rows["run"] = {run_row(run)};
  rows["device"] = {{std::int64_t(0), identity_value(d, "serial"), identity_value(d, "model"),
                     identity_value(d, "wwn"), identity_value(d, "transport"),
                     identity_value(d, "firmware"), identity_value(d, "vendor"), d.name, d.path}};
  rows["verdict"] = verdict_rows(run);
  rows["figure"] = figure_rows(run);
  // An accepted deviation that changes the subject (docs/reports.md, "Deviations") says so in the
  // record: the lab's acceptance is part of the evidence.
  for (const auto& dev : run.deviations)
    rows["deviation"].push_back(
        {std::int64_t(0), dev.kind,
         dev.text + (dev.accepted ? " [accepted: --accept-deviation " + dev.kind + "]" : ""),
         joined(dev.workloads)});
  for (const auto& [phase, list] :
       {std::pair{"before", &d.health_before}, {"after", &d.health_after}})
    for (const auto& h : *list)
      rows["health"].push_back({std::int64_t(0), std::string(phase), h.field, h.value, h.source});
  for (const auto& f : files)
    rows["report_file"].push_back({std::int64_t(0), f.kind, f.path, f.sha256, f.bytes});
  for (const auto& t : tags) rows["tag"].push_back({std::int64_t(0), t.key, t.value});
  for (auto& [name, list] : rows) number(list);
  for (auto it = rows.begin(); it != rows.end();) it = it->second.empty() ? rows.erase(it) : ++it;
  return rows;
}

std::string canonical_record(const RecordHead& head, const RecordRows& rows) {
  Json tables = Json::object();
  for (const auto& t : archive_tables()) {
    const auto found = rows.find(t.name);
    if (found == rows.end() || found->second.empty()) continue;
    Json list = Json::array();
    for (const auto& row : found->second) {
      Json cells = Json::array();
      cells.push_back(canonical_cell(row.at(0), ColumnType::Integer));
      for (std::size_t i = 0; i < t.columns.size(); ++i)
        cells.push_back(i + 1 < row.size() ? canonical_cell(row[i + 1], t.columns[i].type)
                                           : nullptr);
      list.push_back(std::move(cells));
    }
    tables[std::string(t.name)] = std::move(list);
  }
  Json j = Json::array({head.seq, canonical_text(head.kind), canonical_text(head.result_sha256),
                        canonical_text(head.recorded_utc), tables});
  return j.dump(-1, ' ', false, Json::error_handler_t::strict);
}

std::string chain_hash(std::string_view prev_hash, std::string_view content_sha256) {
  std::string text(prev_hash);
  text += ' ';
  text += content_sha256;
  return archive_sha256_hex(text);
}

}  // namespace storqual::reporting
