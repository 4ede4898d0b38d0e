// SPDX-License-Identifier: Apache-2.0
// A group workload (docs/formats.md, "<job>"): a reader and a writer at different depths run
// together on a real file, each job with its own pattern in its own figures (the reader's bytes all
// reads at 4k, the writer's all writes at 64k, each job's I/O depths within its own iodepth), the
// group's figures the sum of its jobs'; a claim on the group and one on each job judged, the
// writer's failing. Then the same group exported for fio, run by fio 3.33 (--output-format=json+)
// and judged from its JSON: the same statuses, the jobs' figures from fio's entries of one group.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

constexpr const char* kSuite = R"(<suite name="group-test">
  <defaults direct="1" runtime="1s" ioengine="libaio"/>
  <workload id="mixed">
    <job name="reader" rw="randread" bs="4k" iodepth="16" size="16m"/>
    <job name="writer" rw="write" bs="64k" iodepth="2" offset="16m" size="16m"/>
  </workload>
</suite>
)";

// The group's claim and the reader's pass on any disk; the writer's (64k writes in 1 us at the
// median, a latency no host limit excuses) fails on every one.
constexpr const char* kSheet = R"(<spec-sheet name="group-test" vendor="t" suite="suite.xml">
  <match model="*"/>
  <claims>
    <claim workload="mixed" metric="iops" value="10"/>
    <claim workload="mixed" job="reader" metric="read.iops" value="10"/>
    <claim workload="mixed" job="writer" metric="write.clat.p50" value="1us"/>
  </claims>
</spec-sheet>
)";

class GroupRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "suite.xml") << kSuite;
    std::ofstream(dir_.path() / "sheet.xml") << kSheet;
    target_ = dir_.path() / "target.img";
    { std::ofstream make(target_); }
    fs::resize_file(target_, 32ull << 20);
  }
  // (workload, job, metric) -> status of every claim verdict.
  static std::map<std::string, std::string> statuses(const Json& result) {
    std::map<std::string, std::string> out;
    for (const auto& v : result["verdicts"])
      if (v.contains("claimed"))
        out[v["workload"].get<std::string>() + "/" + v.value("job", std::string()) + "/" +
            v["metric"].get<std::string>()] = v["status"].get<std::string>();
    return out;
  }
  ScratchDir dir_{"storqual-group-run"};
  fs::path target_;
};

std::uint64_t depth_total(const Json& depths, std::size_t from) {
  std::uint64_t n = 0;
  for (std::size_t b = from; b < depths["submitted"].size(); ++b)
    n += depths["submitted"][b].get<std::uint64_t>();
  return n;
}

// The group's counts are its jobs' added; each job has only its own direction.
void expect_group_is_the_sum(const Json& w) {
  ASSERT_EQ(w["jobs"].size(), 2u) << w.dump();
  const Json& reader = w["jobs"][0];
  const Json& writer = w["jobs"][1];
  EXPECT_EQ(reader["id"], "reader");
  EXPECT_EQ(writer["id"], "writer");
  EXPECT_FALSE(reader.contains("write")) << reader.dump();
  EXPECT_FALSE(writer.contains("read")) << writer.dump();
  const auto r_ios = reader["read"]["ios"].get<std::uint64_t>();
  const auto w_ios = writer["write"]["ios"].get<std::uint64_t>();
  ASSERT_GT(r_ios, 0u);
  ASSERT_GT(w_ios, 0u);
  EXPECT_EQ(reader["read"]["bytes"].get<std::uint64_t>(), r_ios * 4096);
  EXPECT_EQ(writer["write"]["bytes"].get<std::uint64_t>(), w_ios * 65536);
  EXPECT_EQ(w["read"]["ios"].get<std::uint64_t>(), r_ios);
  EXPECT_EQ(w["write"]["ios"].get<std::uint64_t>(), w_ios);
  EXPECT_EQ(w["read"]["bytes"], reader["read"]["bytes"]);
  EXPECT_EQ(w["write"]["bytes"], writer["write"]["bytes"]);
  EXPECT_EQ(w["read"]["lat_ns"]["samples"], reader["read"]["lat_ns"]["samples"]);
  EXPECT_NEAR(w["read"]["iops"].get<double>(), reader["read"]["iops"].get<double>(),
              reader["read"]["iops"].get<double>() * 0.02);
  EXPECT_NEAR(w["write"]["bw_bytes"].get<double>(), writer["write"]["bw_bytes"].get<double>(),
              writer["write"]["bw_bytes"].get<double>() * 0.02);
}

TEST_F(GroupRun, AReaderAndAWriterRunTogetherEachWithItsOwnPattern) {
  const auto run = run_command({STORQUAL_BINARY, "run", "--target", target_.string(), "--spec",
                                (dir_.path() / "sheet.xml").string(), "--allow-destructive",
                                "--out", (dir_.path() / "run").string()});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;  // the writer's claim fails
  const Json result = Json::parse(read_file(dir_.path() / "run" / "storqual-result.json"));
  ASSERT_EQ(result["workloads"].size(), 1u);
  const Json& w = result["workloads"][0];
  expect_group_is_the_sum(w);
  const Json& reader = w["jobs"][0];
  const Json& writer = w["jobs"][1];
  EXPECT_EQ(reader["params"]["iodepth"], 16);
  EXPECT_EQ(writer["params"]["iodepth"], 2);
  // Each job kept its own depth: the writer never had 4 in flight, the reader did (and never 32).
  EXPECT_EQ(depth_total(writer["io_depths"], 2), 0u) << writer["io_depths"].dump();
  EXPECT_GT(depth_total(reader["io_depths"], 2), 0u) << reader["io_depths"].dump();
  EXPECT_EQ(depth_total(reader["io_depths"], 5), 0u) << reader["io_depths"].dump();
  EXPECT_EQ(depth_total(w["io_depths"], 0),
            depth_total(reader["io_depths"], 0) + depth_total(writer["io_depths"], 0));
  // One measured window: both jobs' elapsed time is the group's.
  EXPECT_EQ(reader["elapsed_s"], w["elapsed_s"]);
  EXPECT_EQ(writer["elapsed_s"], w["elapsed_s"]);
  // The group's figure, each job's own.
  const auto s = statuses(result);
  EXPECT_EQ(s.at("mixed//iops"), "pass");
  EXPECT_EQ(s.at("mixed/reader/read.iops"), "pass");
  EXPECT_EQ(s.at("mixed/writer/write.clat.p50"), "fail");
  for (const auto& v : result["verdicts"]) {
    if (v.value("job", "") == "reader") {
      EXPECT_NEAR(v["measured"].get<double>(), reader["read"]["iops"].get<double>(), 1e-6);
    }
  }
  EXPECT_NE(run.out.find("mixed job writer"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("mixed: (group of 2 jobs, 2 threads)"), std::string::npos) << run.out;
  // Every report names the job: JUnit's testcase, the HTML's verdict and job rows.
  EXPECT_NE(
      read_file(dir_.path() / "run" / "storqual-junit.xml").find("mixed job writer write.clat.p50"),
      std::string::npos);
  const std::string html = read_file(dir_.path() / "run" / "storqual-report.html");
  EXPECT_NE(html.find("mixed job reader"), std::string::npos);
  EXPECT_NE(html.find("class=\"group-job\""), std::string::npos);
  // `storqual report` reads the jobs back.
  const auto again = run_command({STORQUAL_BINARY, "report",
                                  (dir_.path() / "run" / "storqual-result.json").string(), "--json",
                                  (dir_.path() / "again.json").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const Json back = Json::parse(read_file(dir_.path() / "again.json"));
  EXPECT_EQ(back["workloads"][0]["jobs"], w["jobs"]);
  EXPECT_EQ(statuses(back), s);
}

TEST_F(GroupRun, FiosJsonOfTheGroupIsJudgedPerJobAndForTheGroup) {
  STORQUAL_REQUIRE(storqual::testing::have_fio(), "fio (apt-get install fio)");
  const fs::path job = dir_.path() / "group.fio";
  const auto ex =
      run_command({STORQUAL_BINARY, "suites", "export", (dir_.path() / "suite.xml").string(),
                   "--fio", "--target", target_.string(), "--out", job.string()});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  const auto fio = run_command({"fio", "--output-format=json+",
                                "--output=" + (dir_.path() / "group.json").string(), job.string()});
  ASSERT_EQ(fio.exit_code, 0) << fio.out << fio.err;
  // fio ran the two jobs together: one group, one entry each.
  const Json raw = Json::parse(read_file(dir_.path() / "group.json"));
  ASSERT_EQ(raw["jobs"].size(), 2u);
  EXPECT_EQ(raw["jobs"][0]["groupid"], raw["jobs"][1]["groupid"]);

  const auto j = run_command(
      {STORQUAL_BINARY, "judge", "--fio-json", (dir_.path() / "group.json").string(), "--spec",
       (dir_.path() / "sheet.xml").string(), "--out", (dir_.path() / "judged").string()});
  ASSERT_EQ(j.exit_code, 1) << j.out << j.err;
  EXPECT_NE(j.out.find("job 'reader, writer (fio group 0)' -> workload 'mixed' (by its jobs' "
                       "names)"),
            std::string::npos)
      << j.out;
  const Json result = Json::parse(read_file(dir_.path() / "judged" / "storqual-result.json"));
  ASSERT_EQ(result["workloads"].size(), 1u) << result["workloads"].dump();
  const Json& w = result["workloads"][0];
  expect_group_is_the_sum(w);
  EXPECT_EQ(w["jobs"][0]["read"]["ios"], raw["jobs"][0]["read"]["total_ios"]);
  EXPECT_EQ(w["jobs"][1]["write"]["ios"], raw["jobs"][1]["write"]["total_ios"]);
  // The group's read percentiles: from fio's json+ bins of its reader.
  EXPECT_FALSE(w["read"]["clat_ns"]["percentiles"].empty()) << w["read"].dump();
  const auto s = statuses(result);
  EXPECT_EQ(s.at("mixed//iops"), "pass");
  EXPECT_EQ(s.at("mixed/reader/read.iops"), "pass");
  EXPECT_EQ(s.at("mixed/writer/write.clat.p50"), "fail");
}

}  // namespace
}  // namespace storqual
