// SPDX-License-Identifier: Apache-2.0
// `storqual run` with datacenter gates end to end, on a scratch file with the null engine and the
// captured NVMe pages of tests/data/nvme (SMART before/after and OCP C0h before/after): a p99.9999
// claim on 10^5 I/Os is inconclusive in the console, JUnit and HTML (exit 3); the C0h log appears
// in the health rows before and after with its diff; write amplification is 2.5 and claimable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_command;

using ::storqual::testing::write_text;

TEST(DatacenterRun, InconclusiveTailOcpLogAndWriteAmplification) {
  testing::ScratchDir dir{"storqual-dc"};
  fs::create_directories(dir / "target");
  // 100 000 reads of 512 bytes: p99.99 is supported (10 beyond it), p99.9999 is not.
  write_text(dir / "dc.xml", R"(<suite name="dc">
  <workload id="read-512" rw="read" bs="512" iodepth="8" size="51200000"/>
</suite>
)");
  write_text(dir / "sheet.xml", R"(<spec-sheet name="dc" suite="dc.xml" warranty_years="5">
  <match model="*"/>
  <claims>
    <claim workload="read-512" metric="lat.p99.9999" value="1s"/>
    <claim workload="read-512" metric="lat.p99.99" value="1s"/>
    <claim workload="read-512" metric="waf" value="3"/>
  </claims>
</spec-sheet>
)");
  const fs::path out = dir / "out";
  auto r = run_command({STORQUAL_BINARY, "run", "--target", (dir / "target").string(), "--spec",
                        (dir / "sheet.xml").string(), "--ioengine", "null", "--nvme-capture",
                        (fs::path(STORQUAL_TEST_DATA) / "nvme").string(), "--thermal-interval", "0",
                        "--out", out.string()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // inconclusive: incomplete, never a pass
  EXPECT_NE(r.out.find("INCONCLUSIVE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RESULT: INCONCLUSIVE"), std::string::npos) << r.out;

  std::ifstream in(out / "storqual-result.json");
  auto j = nlohmann::json::parse(in);
  std::map<std::string, nlohmann::json> by_metric;
  for (const auto& v : j.at("verdicts")) by_metric[v.at("metric")] = v;
  EXPECT_EQ(by_metric["lat.p99.9999"].at("status"), "inconclusive");
  EXPECT_NE(by_metric["lat.p99.9999"].at("message").get<std::string>().find(
                "p99.9999 needs 10000000 I/Os (10 beyond it), 100000 measured"),
            std::string::npos);
  EXPECT_EQ(by_metric["lat.p99.99"].at("status"), "pass");
  EXPECT_EQ(by_metric["waf"].at("status"), "pass");
  EXPECT_DOUBLE_EQ(by_metric["waf"].at("measured").get<double>(), 2.5);

  // The C0h log before and after, and what changed.
  const auto& device = j.at("device");
  auto value_of = [](const nlohmann::json& rows, const std::string& field) {
    for (const auto& row : rows)
      if (row.at("field") == field) return row.at("value").get<std::string>();
    return std::string("<absent>");
  };
  EXPECT_EQ(value_of(device.at("health_before"), "ocp.bad_user_nand_blocks"), "16909060");
  EXPECT_EQ(value_of(device.at("health_after"), "ocp.bad_user_nand_blocks"), "16909061");
  bool media = false;
  for (const auto& c : device.at("health_changes"))
    media = media || c == "ocp: media written 2560000000 bytes";
  EXPECT_TRUE(media) << device.at("health_changes").dump();
  EXPECT_DOUBLE_EQ(device.at("wear").at("waf").get<double>(), 2.5);

  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_file((out / "storqual-junit.xml").c_str()));
  auto error =
      junit.select_node("//testcase[contains(@name, ' read-512 lat.p99.9999')]/error").node();
  ASSERT_TRUE(error);
  EXPECT_STREQ(error.attribute("type").value(), "inconclusive");
  const std::string html = read_file(out / "storqual-report.html");
  EXPECT_NE(html.find("status inconclusive"), std::string::npos);
  EXPECT_NE(html.find("ocp.bad_user_nand_blocks"), std::string::npos);
  EXPECT_NE(html.find("Write amplification and endurance"), std::string::npos);
}

}  // namespace
}  // namespace storqual
