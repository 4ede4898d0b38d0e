// SPDX-License-Identifier: Apache-2.0
// The results-store seam and its first store, the files (see results_store.hpp).
#include "archive/results_store.hpp"

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "archive/archive_store.hpp"
#include "model/errors.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/ocp_diag.hpp"
#include "reporting/result_json.hpp"

namespace storqual::reporting {
namespace {

using Json = nlohmann::ordered_json;
constexpr int kMaxDepth = 64;

// The stores of this build, by name: one line each (make_results_store).
constexpr std::array<std::string_view, 2> kStoreNames{"files", "archive"};

}  // namespace

void FileResultsStore::save(const RunResult& run, const ReportSet& reports) {
  if (!reports.json.empty()) write_file_atomically(reports.json, to_json_text(run));
  if (!reports.junit.empty()) write_junit(reports.junit, {run}, {.rich = reports.junit_rich});
  if (!reports.html.empty()) write_html(reports.html, run);
  if (!reports.ocp_diag.empty()) write_ocp_diag(reports.ocp_diag, run);
}

void FileResultsStore::save(const FleetReport& fleet, const ReportSet& reports) {
  if (!reports.json.empty()) write_file_atomically(reports.json, fleet_to_json_text(fleet));
  if (!reports.junit.empty()) write_junit(reports.junit, fleet.runs, {.rich = reports.junit_rich});
  if (!reports.html.empty()) write_file_atomically(reports.html, render_fleet_html(fleet));
}

std::vector<RunResult> FileResultsStore::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultJsonError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  Json json;
  try {
    json = Json::parse(content.begin(), content.end(), [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth)
        throw ResultJsonError("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return true;
    });
  } catch (const Json::exception& e) {
    throw ResultJsonError(path + ": not valid JSON: " + e.what());
  } catch (const ResultJsonError& e) {
    throw ResultJsonError(path + ": " + e.what());
  }
  std::vector<RunResult> out;
  if (json.is_object() && json.contains("fleet")) {
    const Json& list = json["fleet"];
    if (!list.is_array()) throw ResultJsonError(path + ": fleet: expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      try {
        out.push_back(run_result_from_json_value(list[i]));
      } catch (const ResultJsonError& e) {
        throw ResultJsonError(path + ": fleet[" + std::to_string(i) + "]." + e.what());
      }
    }
    return out;
  }
  try {
    out.push_back(run_result_from_json_value(json));
  } catch (const ResultJsonError& e) {
    throw ResultJsonError(path + ": " + e.what());
  }
  return out;
}

std::span<const std::string_view> results_store_names() noexcept {
  return kStoreNames;
}

std::unique_ptr<ResultsStore> make_results_store(std::string_view name) {
  if (name == "files") return std::make_unique<FileResultsStore>();
  // The acceptance archive where STORQUAL_ARCHIVE (or the default) says (docs/archive.md).
  if (name == "archive")
    return std::make_unique<ArchiveResultsStore>(resolve_archive_location(std::nullopt),
                                                 std::vector<ArchiveTag>{});
  std::string known;
  for (const auto n : kStoreNames) known += (known.empty() ? "" : ", ") + std::string(n);
  throw UsageError("unknown results store '" + std::string(name) + "' (known: " + known + ")");
}

ResultsStore& default_results_store() {
  static FileResultsStore files;
  return files;
}

}  // namespace storqual::reporting
