// SPDX-License-Identifier: Apache-2.0
// Reads of written data through the real binary (docs/measurement.md, "Reads of written data"):
// a never-written file and a loop device over one. With the fill, a read claim is judged on data
// the run wrote, and the fill is in every report; without it (--no-fill, or a run that may not
// write) the read claim is INCONCLUSIVE, exit 3, unless --accept-deviation unwritten-reads, which
// every report then lists.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_outputs.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::ScratchDir;

class ReadFillRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "suite.xml") << R"(<?xml version="1.0"?>
<suite name="reads" description="a random read over 32 MiB">
  <defaults direct="1" ramp_time="0" runtime="400ms" size="32m" ioengine="psync"/>
  <workload id="randread-4k" rw="randread" bs="4k" iodepth="1"/>
</suite>
)";
    sheet("1");
    std::ofstream(dir_ / "fresh.img").close();
    fs::resize_file(dir_ / "fresh.img", 32 << 20);
  }
  void sheet(const std::string& iops) {
    std::ofstream(dir_ / "sheet.xml", std::ios::trunc)
        << "<spec-sheet name=\"reads sheet\" vendor=\"test\" suite=\"reads\">\n"
           "  <match model=\"*\"/>\n"
           "  <claims tolerance=\"10%\">\n"
           "    <claim workload=\"randread-4k\" metric=\"iops\" value=\""
        << iops << "\"/>\n  </claims>\n</spec-sheet>\n";
  }
  testing::RunOutputs run(const std::string& name, const std::string& target,
                          const std::vector<std::string>& extra,
                          const std::string& suite = "suite.xml") {
    const fs::path out = dir_ / name;
    std::vector<std::string> argv = {STORQUAL_BINARY, "run",
                                     "--target",      target,
                                     "--suite",       (dir_ / suite).string(),
                                     "--spec",        (dir_ / "sheet.xml").string(),
                                     "--out",         out.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_and_read_reports(argv, out);
  }
  static std::string status(const testing::RunOutputs& o) {
    return o.json["verdicts"][0]["status"].get<std::string>();
  }
  ScratchDir dir_{"storqual-read-fill"};
};

TEST_F(ReadFillRun, AFreshFileIsFilledBeforeItIsReadAndEveryReportSaysSo) {
  const auto o = run("fill", (dir_ / "fresh.img").string(), {"--allow-destructive"});
  EXPECT_EQ(o.cmd.exit_code, 0) << o.cmd.out << o.cmd.err;
  EXPECT_NE(o.cmd.out.find("writes: this run will write 32.00 MiB in fill passes"),
            std::string::npos)
      << o.cmd.out;
  EXPECT_NE(o.cmd.out.find("fill: 32.0 MiB written sequentially"), std::string::npos) << o.cmd.out;
  const Json& fill = o.json["workloads"][0]["fill"];
  ASSERT_EQ(fill.size(), 1u) << o.json.dump();
  EXPECT_EQ(fill[0]["bytes"].get<std::uint64_t>(), 32u << 20);
  EXPECT_GT(fill[0]["seconds"].get<double>(), 0);
  EXPECT_TRUE(fill[0]["sample_all_zero"].get<bool>());
  EXPECT_NE(o.html.find("Fill before this workload read"), std::string::npos);
  EXPECT_EQ(status(o), "pass");
  // The file now holds the run's data where the workload read.
  const std::string bytes = testing::read_file(dir_ / "fresh.img");
  EXPECT_NE(bytes.find_first_not_of('\0'), std::string::npos);
}

TEST_F(ReadFillRun, WithoutTheFillTheReadClaimIsInconclusiveUnlessAccepted) {
  const auto nofill =
      run("nofill", (dir_ / "fresh.img").string(), {"--allow-destructive", "--no-fill"});
  EXPECT_EQ(nofill.cmd.exit_code, 3) << nofill.cmd.out;
  EXPECT_EQ(status(nofill), "inconclusive");
  EXPECT_TRUE(nofill.json["workloads"][0].value("fill", Json::array()).empty());
  bool listed = false;
  for (const auto& d : nofill.json["deviations"])
    if (d["kind"] == "unwritten-reads") listed = d["changes_subject"].get<bool>();
  EXPECT_TRUE(listed) << nofill.json["deviations"].dump();
  EXPECT_NE(nofill.cmd.out.find("INCONCLUSIVE [1]"), std::string::npos) << nofill.cmd.out;
  EXPECT_NE(nofill.cmd.out.find("[1] inconclusive: reads of blocks this run did not write"),
            std::string::npos)
      << nofill.cmd.out;
  // The file is as it was: nothing was written.
  const std::string bytes = testing::read_file(dir_ / "fresh.img");
  EXPECT_EQ(bytes.find_first_not_of('\0'), std::string::npos);

  // A run that may not write reads zeros: the same, and says why.
  const auto ro = run("may-not-write", (dir_ / "fresh.img").string(), {});
  EXPECT_EQ(ro.cmd.exit_code, 3) << ro.cmd.out;
  EXPECT_NE(ro.cmd.out.find("came back all zeros"), std::string::npos) << ro.cmd.out;

  const auto accepted = run("accepted", (dir_ / "fresh.img").string(),
                            {"--no-fill", "--accept-deviation", "unwritten-reads"});
  EXPECT_EQ(accepted.cmd.exit_code, 0) << accepted.cmd.out;
  EXPECT_EQ(status(accepted), "pass");
  bool marked = false;
  for (const auto& d : accepted.json["deviations"])
    if (d["kind"] == "unwritten-reads") marked = d["accepted"].get<bool>();
  EXPECT_TRUE(marked);
  EXPECT_NE(accepted.html.find("[accepted: --accept-deviation unwritten-reads]"),
            std::string::npos);
  bool in_junit = false;
  for (auto p : accepted.junit.select_nodes("//property"))
    if (std::string(p.node().attribute("value").value())
            .find("accepted: --accept-deviation "
                  "unwritten-reads") != std::string::npos)
      in_junit = true;
  EXPECT_TRUE(in_junit);
}

TEST_F(ReadFillRun, AKindThatOnlyWeakensCannotBeAccepted) {
  const auto o =
      testing::run_command({STORQUAL_BINARY, "run", "--target", (dir_ / "fresh.img").string(),
                            "--suite", (dir_ / "suite.xml").string(), "--accept-deviation",
                            "runtime", "--out", (dir_ / "weak").string()});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--accept-deviation runtime"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "weak")) << "refused before anything ran";
}

// Issue 43's first case on a loop device over a never-written file: without the fill its read
// claim is inconclusive (exit 3); with it the fill writes the region through the device, its
// sample saw zeros, and the claim is judged on the data it wrote. How much faster the holes read
// (695k against 78k IOPS at QD32 here, docs/measurement.md) is a figure for a quiet machine, not
// for a test beside others on two CPUs, so it is not asserted.
TEST_F(ReadFillRun, ALoopDeviceOverANeverWrittenFileIsJudgedOnWrittenData) {
  STORQUAL_REQUIRE_ROOT();
  {
    testing::LoopDevice loop(dir_ / "fresh.img");
    const auto nofill = run("nofill", loop.path(), {"--allow-destructive", "--no-fill"});
    EXPECT_EQ(nofill.cmd.exit_code, 3) << nofill.cmd.out;
    EXPECT_EQ(status(nofill), "inconclusive");
  }
  EXPECT_EQ(testing::read_file(dir_ / "fresh.img").find_first_not_of('\0'), std::string::npos)
      << "--no-fill wrote to the device";
  testing::LoopDevice loop(dir_ / "fresh.img");
  const auto filled = run("filled", loop.path(), {"--allow-destructive"});
  EXPECT_EQ(filled.cmd.exit_code, 0) << filled.cmd.out;
  EXPECT_EQ(status(filled), "pass");
  const std::string message = filled.json["verdicts"][0]["message"].get<std::string>();
  EXPECT_EQ(message.find("unwritten"), std::string::npos) << message;
  ASSERT_EQ(filled.json["workloads"][0]["fill"].size(), 1u);
  EXPECT_TRUE(filled.json["workloads"][0]["fill"][0]["sample_all_zero"].get<bool>());
  EXPECT_EQ(filled.json["workloads"][0]["fill"][0]["bytes"].get<std::uint64_t>(), 32u << 20);
  loop.detach();
  const std::string bytes = testing::read_file(dir_ / "fresh.img");
  EXPECT_NE(bytes.find_first_not_of('\0'), std::string::npos) << "the fill wrote nothing";
}

}  // namespace
}  // namespace storqual
