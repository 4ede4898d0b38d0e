// SPDX-License-Identifier: Apache-2.0
// fio's steady state and latency target at the command line (docs/fio-files.md): Debian's
// steadystate.fio imports as two workloads with ss, ss_dur and ss_ramp on the null engine (its
// files are /dev/null and /dev/zero), latency-profile.fio as a <latency-search> with fio's LFSR;
// their exports carry the same values through fio's own parser (`fio --showcmd`); and a run on a
// real file with O_DIRECT ends at fio's criterion instead of its runtime, reporting fio's
// "steadystate" object.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

using testing::run_command;
using testing::ScratchDir;

const std::string kExamples = "/usr/share/doc/fio/examples/";

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(FioSteadyLatency, SteadystateFioImportsAndExportsFiosValues) {
  STORQUAL_REQUIRE(std::filesystem::exists(kExamples + "steadystate.fio"), "fio-examples");
  STORQUAL_REQUIRE(testing::have_fio(), "fio");
  ScratchDir dir("storqual-fio-ss");
  auto im = run_command({STORQUAL_BINARY, "suites", "import", kExamples + "steadystate.fio"});
  ASSERT_EQ(im.exit_code, 0) << im.err;
  EXPECT_TRUE(has(im.out, R"(ss="iops:10%" ss_dur="30s" ss_ramp="10s")")) << im.out;
  EXPECT_TRUE(has(im.out, R"(ss="bw_slope:1%" ss_dur="10s" ss_ramp="5s")")) << im.out;
  EXPECT_TRUE(has(im.out, R"(ioengine="null")")) << im.out;
  EXPECT_TRUE(has(im.err, "filename=/dev/null: fio's I/Os go to the kernel's null device"))
      << im.err;
  const std::string job = (dir / "ss.fio").string();
  auto ex = run_command(
      {STORQUAL_BINARY, "suites", "export", kExamples + "steadystate.fio", "--fio", "--out", job});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  auto show = run_command({"fio", "--showcmd", job});
  ASSERT_EQ(show.exit_code, 0) << show.err << testing::read_file(job);
  EXPECT_TRUE(has(show.out,
                  "--steadystate=iops:10% --steadystate_duration=30s --steadystate_ramp_time=10s"))
      << show.out;
  EXPECT_TRUE(has(
      show.out, "--steadystate=bw_slope:1% --steadystate_duration=10s --steadystate_ramp_time=5s"))
      << show.out;
  EXPECT_TRUE(has(testing::read_file(job), "; storqual: ss judges the 4 jobs' IOPS"));
  auto parse = run_command({"fio", "--parse-only", job});
  EXPECT_EQ(parse.exit_code, 0) << parse.err;
}

TEST(FioSteadyLatency, LatencyProfileFioIsALatencySearchWithFiosLfsr) {
  STORQUAL_REQUIRE(std::filesystem::exists(kExamples + "latency-profile.fio"), "fio-examples");
  STORQUAL_REQUIRE(testing::have_fio(), "fio");
  ScratchDir dir("storqual-fio-lat");
  auto im = run_command({STORQUAL_BINARY, "suites", "import", kExamples + "latency-profile.fio"});
  ASSERT_EQ(im.exit_code, 0) << im.err;
  EXPECT_TRUE(has(im.out, R"(<latency-search id="device" max_iodepth="128" limit="500ms" )"
                          R"(stat="p99.9" search="bisect")"))
      << im.out;
  EXPECT_TRUE(has(im.out, R"(random_generator="lfsr")")) << im.out;
  EXPECT_TRUE(has(im.out, R"(runtime="5s")")) << im.out;
  EXPECT_TRUE(has(im.err, "option 'latency_target' as a <latency-search>")) << im.err;
  const std::string job = (dir / "lat.fio").string();
  auto ex = run_command({STORQUAL_BINARY, "suites", "export", kExamples + "latency-profile.fio",
                         "--fio", "--target", "/dev/null", "--out", job});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  auto show = run_command({"fio", "--showcmd", job});
  ASSERT_EQ(show.exit_code, 0) << show.err << testing::read_file(job);
  for (const char* o : {"--iodepth=128", "--random_generator=lfsr", "--latency_target=500000",
                        "--latency_percentile=99.9", "--latency_window=5000000"})
    EXPECT_TRUE(has(show.out, o)) << o << "\n" << show.out;
  // And back: the export imports to the same search.
  auto back = run_command({STORQUAL_BINARY, "suites", "import", job});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_TRUE(has(back.out, R"(max_iodepth="128" limit="500ms" stat="p99.9" search="bisect")"))
      << back.out;
  // fio's default percentile (100: every I/O) has no storqual statistic: refused, named.
  std::ofstream(dir / "p100.fio") << "[j]\nrw=randread\niodepth=8\nlatency_target=10ms\n"
                                     "latency_window=1s\n";
  auto p100 = run_command({STORQUAL_BINARY, "suites", "import", (dir / "p100.fio").string()});
  EXPECT_EQ(p100.exit_code, 2);
  EXPECT_TRUE(has(p100.err, "p100.fio:4: option 'latency_percentile=100'")) << p100.err;
}

TEST(FioSteadyLatency, ARunEndsAtFiosCriterionOnARealFile) {
  ScratchDir dir("storqual-fio-ss-run");
  const std::string target = (dir / "target.bin").string();
  testing::write_random_file(target, 8 << 20, 3);
  // Two one-second samples differ by less than their sum unless a second did nothing: fio's
  // iops:100% over ss_dur=2 holds at the second sample on any device that completes I/Os.
  std::ofstream(dir / "ss.fio") << "[ss]\nioengine=psync\ndirect=1\nrw=randread\nbs=4k\n"
                                   "size=8m\ntime_based\nruntime=60\nss=iops:100%\nss_dur=2\n";
  auto r =
      run_command({STORQUAL_BINARY, "run", "--target", target, "--suite", (dir / "ss.fio").string(),
                   "--allow-destructive", "--out", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(dir / "out" / "storqual-result.json");
  ASSERT_TRUE(in) << r.out;
  const auto json = nlohmann::json::parse(in);
  const auto& w = json["workloads"][0];
  ASSERT_TRUE(w.contains("steadystate")) << w.dump();
  const auto& ss = w["steadystate"];
  EXPECT_EQ(ss["ss"], "iops:100.000000%");
  EXPECT_EQ(ss["duration"], 2);
  EXPECT_TRUE(ss["attained"].get<bool>()) << ss.dump();
  EXPECT_GE(ss["attained_at_s"].get<double>(), 2);
  EXPECT_LT(w["elapsed_s"].get<double>(), 30) << "it ran to its runtime";
  EXPECT_EQ(ss["iops"].size(), 2u);
  EXPECT_GT(w["read"]["ios"].get<double>(), 0);
}

}  // namespace
}  // namespace storqual
