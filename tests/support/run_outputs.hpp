// SPDX-License-Identifier: Apache-2.0
// A `storqual run` and the three reports it writes, read back for a test's checks.
#pragma once

#include <pugixml.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"

namespace storqual::testing {

struct RunOutputs {
  CommandResult cmd;
  nlohmann::json json;  // discarded when storqual-result.json does not parse
  pugi::xml_document junit;
  std::string html;
};

// Runs `argv` (a storqual command that writes its reports to `out`) and reads storqual-result.json,
// storqual-junit.xml and storqual-report.html from there; a result or JUnit that does not read is a
// test failure (EXPECT), with the command's output.
[[nodiscard]] RunOutputs run_and_read_reports(const std::vector<std::string>& argv,
                                              const std::filesystem::path& out);

}  // namespace storqual::testing
