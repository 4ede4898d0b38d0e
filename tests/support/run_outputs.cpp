// SPDX-License-Identifier: Apache-2.0
// A run and its reports read back (run_outputs.hpp).
#include "tests/support/run_outputs.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace storqual::testing {

RunOutputs run_and_read_reports(const std::vector<std::string>& argv,
                                const std::filesystem::path& out) {
  RunOutputs o;
  o.cmd = run_command(argv);
  std::ifstream json(out / "storqual-result.json");
  o.json = nlohmann::json::parse(json, nullptr, false);
  EXPECT_TRUE(o.json.is_object()) << o.cmd.out << o.cmd.err;
  EXPECT_TRUE(o.junit.load_file((out / "storqual-junit.xml").c_str()));
  o.html = read_file(out / "storqual-report.html");
  return o;
}

}  // namespace storqual::testing
