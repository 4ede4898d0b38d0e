// SPDX-License-Identifier: Apache-2.0
// The programs the tests call beside storqual (see tools.hpp).
#include "tests/support/tools.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace storqual::testing {
namespace fs = std::filesystem;

bool have_program(const std::string& name) {
  return run_command({"sh", "-c", "command -v \"$0\" >/dev/null 2>&1", name}).exit_code == 0;
}

bool have_fio() {
  return have_program("fio");
}

bool have_python_module(const std::string& module) {
  return run_command({"/usr/bin/python3", "-c", "import " + module}).exit_code == 0;
}

std::string find_chromium() {
  if (const char* forced = std::getenv("STORQUAL_CHROMIUM"))
    return ::access(forced, X_OK) == 0 ? std::string(forced) : std::string();
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const CommandResult r = run_command({"sh", "-c", "command -v \"$0\"", name});
    if (r.exit_code == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return {};
}

std::string chromium_missing() {
  if (const char* forced = std::getenv("STORQUAL_CHROMIUM"))
    return std::string("chromium (STORQUAL_CHROMIUM=") + forced + " is not an executable file)";
  return "chromium (none of chromium, chromium-browser, google-chrome on the PATH; apt-get install "
         "chromium)";
}

CommandResult run_chromium(const std::string& binary, const fs::path& profile,
                           const std::vector<std::string>& extra, const fs::path& page,
                           int seconds) {
  std::vector<std::string> argv = {"timeout",
                                   std::to_string(seconds),
                                   binary,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-background-networking",
                                   "--no-first-run",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--user-data-dir=" + profile.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("file://" + page.string());
  return run_command(argv);
}

void write_text(const fs::path& p, const std::string& text) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

bool have_sg_logs() {
  return have_program("sg_logs");
}

SgLogs sg_logs(const fs::path& page_file) {
  SgLogs out;
  const CommandResult r = run_command({"sg_logs", "--in=" + page_file.string(), "--raw"});
  out.text = r.out + r.err;
  std::istringstream in(out.text);
  static const std::regex kLine(R"(^\s*([^=]+?)\s*=\s*([^\[]*?)\s*(\[.*\])?\s*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kLine)) out.values.emplace(m[1].str(), m[2].str());
  }
  return out;
}

}  // namespace storqual::testing
