// SPDX-License-Identifier: Apache-2.0
// xmllint and python3-junitparser over JUnit files (see junit_check.hpp).
#include "tests/support/junit_check.hpp"

#include <sstream>

#include "tests/support/test_devices.hpp"

namespace storqual::testing {
namespace {

const char* const kSchemas[] = {"junit-10.xsd", "jenkins-junit.xsd"};

void append_lines(std::vector<std::string>& lines, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
}

}  // namespace

std::string junit_tools_missing() {
  std::string missing;
  if (run_command({"xmllint", "--version"}).exit_code != 0)
    missing = "xmllint (Debian libxml2-utils)";
  if (run_command({"/usr/bin/python3", "-c", "import junitparser"}).exit_code != 0)
    missing += std::string(missing.empty() ? "" : " and ") + "python3-junitparser";
  return missing.empty() ? missing
                         : missing + " not installed (scripts/install-deps.sh installs them)";
}

JunitValidation validate_against(const std::filesystem::path& file, const std::string& xsd) {
  JunitValidation v;
  const auto schema = std::filesystem::path(STORQUAL_TEST_DATA) / "junit-xsd" / xsd;
  auto r = run_command({"xmllint", "--noout", "--schema", schema.string(), file.string()});
  // xmllint prints "FILE validates" or the errors and "FILE fails to validate" on stderr.
  append_lines(v.lines, r.err);
  v.valid = r.exit_code == 0;
  return v;
}

JunitValidation validate_junit(const std::vector<std::filesystem::path>& files) {
  JunitValidation v;
  if (const std::string missing = junit_tools_missing(); !missing.empty()) {
    v.lines.push_back(missing);
    return v;
  }
  v.valid = true;
  for (const auto* xsd : kSchemas)
    for (const auto& f : files) {
      auto one = validate_against(f, xsd);
      for (auto& line : one.lines) v.lines.push_back(std::string(xsd) + ": " + line);
      v.valid = v.valid && one.valid;
    }
  std::vector<std::string> argv = {
      "/usr/bin/python3", std::string(STORQUAL_SOURCE_DIR) + "/tests/support/junit_check.py"};
  for (const auto& f : files) argv.push_back(f.string());
  auto r = run_command(argv);
  append_lines(v.lines, r.out);
  append_lines(v.lines, r.err);
  v.valid = v.valid && r.exit_code == 0;
  return v;
}

}  // namespace storqual::testing
