// SPDX-License-Identifier: Apache-2.0
// The names and paths of a run's reports (see report_names.hpp).
#include "reporting/report_names.hpp"

#include <cctype>
#include <filesystem>

namespace storqual::reporting {
namespace fs = std::filesystem;
namespace {

std::string given_or_default(const std::optional<std::string>& given, const std::string& dir,
                             std::string_view file) {
  return given ? *given : (fs::path(dir) / file).string();
}

}  // namespace

ReportSet default_reports(const std::string& dir, const std::optional<std::string>& json,
                          const std::optional<std::string>& junit,
                          const std::optional<std::string>& html, bool junit_rich,
                          const std::optional<std::string>& ocp_diag) {
  std::string ocp;
  if (ocp_diag)
    ocp = ocp_diag->empty()             ? (fs::path(dir) / kOcpDiagFileName).string()
          : fs::is_directory(*ocp_diag) ? (fs::path(*ocp_diag) / kOcpDiagFileName).string()
                                        : *ocp_diag;
  return {given_or_default(json, dir, kResultFileName),
          given_or_default(junit, dir, kJunitFileName), given_or_default(html, dir, kHtmlFileName),
          junit_rich, ocp};
}

std::string checkpoint_path(const std::string& json_report, const std::string& workload) {
  std::string id = workload;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  fs::path p(json_report);
  return (p.parent_path() / (p.stem().string() + "." + id + ".checkpoint.json")).string();
}

std::string path_with_label(const std::string& path, const std::string& label) {
  fs::path p(path);
  return (p.parent_path() / (p.stem().string() + "-" + label + p.extension().string())).string();
}

ReportSet with_label(ReportSet reports, const std::string& label) {
  for (std::string* path : {&reports.json, &reports.junit, &reports.html, &reports.ocp_diag})
    if (!path->empty()) *path = path_with_label(*path, label);
  return reports;
}

}  // namespace storqual::reporting
