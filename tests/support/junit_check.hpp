// SPDX-License-Identifier: Apache-2.0
// The JUnit files storqual writes, checked as strict CI readers check them: xmllint against the
// Jenkins xUnit plugin's junit-10.xsd and the JUnit 5 project's jenkins-junit.xsd
// (tests/data/junit-xsd/), then tests/support/junit_check.py with python3-junitparser
// (uniqueness of every testcase, the device in every name and message).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace storqual::testing {

// What is missing to run the checks ("" when xmllint and python3-junitparser are both there).
[[nodiscard]] std::string junit_tools_missing();

struct JunitValidation {
  bool valid = false;              // both schemas and the reader's checks passed
  std::vector<std::string> lines;  // xmllint's and junit_check.py's output, one entry a line
};

// Validates `files` against both XSDs (schema-invalid files are named in `lines`) and runs
// junit_check.py over them. A missing tool makes `valid` false with the reason in `lines`.
[[nodiscard]] JunitValidation validate_junit(const std::vector<std::filesystem::path>& files);

// The schema check alone, against one XSD of tests/data/junit-xsd/ ("junit-10.xsd", ...).
[[nodiscard]] JunitValidation validate_against(const std::filesystem::path& file,
                                               const std::string& xsd);

}  // namespace storqual::testing
