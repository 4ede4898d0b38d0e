// SPDX-License-Identifier: Apache-2.0
// `storqual bench` as a user meets it: real files (O_DIRECT), bad input with exit 2 and a clear
// message, the JSON shape of docs/reports.md ("JSON"), the per-I/O log.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

using testing::run_command;
using testing::ScratchDir;

testing::CommandResult bench(std::vector<std::string> args) {
  args.insert(args.begin(), {STORQUAL_BINARY, "bench"});
  return run_command(args);
}

class BenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = (dir_ / "data.bin").string();
    testing::write_random_file(file_, 8 << 20);
  }
  ScratchDir dir_{"storqual-bench-cli"};
  std::string file_;
};

struct BadInput {
  std::vector<std::string> args;
  std::string message;
};

TEST_F(BenchCli, BadInputExitsTwoWithAClearMessage) {
  std::vector<BadInput> cases = {
      {{"--target", file_, "--rw", "sideways", "--bs", "4k"}, "rw: expected read, write"},
      {{"--target", file_, "--rw", "randread", "--bs", "0"}, "bs must be greater than 0"},
      {{"--target", file_, "--rw", "randread", "--bs", "4k", "--iodepth", "0"},
       "iodepth 0 is out of range"},
      {{"--target", (dir_ / "missing").string(), "--rw", "read", "--bs", "4k"}, "does not exist"},
      {{"--target", dir_.path().string(), "--rw", "read", "--bs", "4k"}, "is a directory"},
      {{"--target", file_, "--rw", "read", "--bs", "4k", "--size", "16m"}, "past the end"},
      {{"--target", file_, "--rw", "read", "--bs", "1000", "--direct", "1"},
       "multiples of the logical block size"},
      {{"--target", file_, "--rw", "read", "--bs", "4k", "--iodepth", "1000000000"},
       "out of range"},
      {{"--target", file_, "--rw", "read", "--bs", "4k", "--runtime", "1000000000s"},
       "longer than the limit"},
      {{"--target", file_, "--rw", "read", "--bs", "4k", "--ioengine", "spdk"},
       "ioengine: expected io_uring, libaio, psync or null"},
      {{"--rw", "read", "--bs", "4k"}, "--target is required"},
      {{"--target", file_, "--rw", "read", "--bs", "4k", "--no-such-option"}, "unrecognised"},
  };
  for (const auto& c : cases) {
    auto r = bench(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << r.err;
  }
}

TEST_F(BenchCli, WritingAnExistingFileNeedsAllowDestructive) {
  auto r = bench({"--target", file_, "--rw", "randwrite", "--bs", "4k", "--size", "1m"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--allow-destructive"), std::string::npos) << r.err;
  r = bench({"--target", file_, "--rw", "randwrite", "--bs", "4k", "--size", "1m",
             "--allow-destructive"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(BenchCli, JsonHasTheDesignShapeAndTheLatLogOneLinePerIo) {
  for (std::string engine : {"io_uring", "libaio", "psync"}) {
    SCOPED_TRACE(engine);
    std::string json = (dir_ / ("r-" + engine + ".json")).string();
    std::string log = (dir_ / ("l-" + engine + ".csv")).string();
    auto r = bench({"--target", file_, "--rw", "randread", "--bs", "4k", "--iodepth", "8",
                    "--ioengine", engine, "--size", "4m", "--json", json, "--lat-log", log});
    if (r.exit_code != 0 && r.err.find("not available") != std::string::npos)
      GTEST_FAIL() << "cannot run: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("read: IOPS="), std::string::npos) << r.out;
    std::ifstream in(json);
    auto j = nlohmann::json::parse(in);
    ASSERT_EQ(j["workloads"].size(), 1u);
    const auto& w = j["workloads"][0];
    for (const char* k : {"id", "params", "read", "cpu", "timeline", "errors", "fio_command"})
      EXPECT_TRUE(w.contains(k)) << k;
    EXPECT_FALSE(w.contains("write"));
    EXPECT_EQ(w["params"]["rw"], "randread");
    EXPECT_EQ(w["params"]["iodepth"], 8);
    const auto& rd = w["read"];
    EXPECT_EQ(rd["ios"], 1024);  // size-based: 4 MiB / 4 KiB, each block once
    EXPECT_EQ(rd["bytes"], 4 << 20);
    for (const char* k : {"min", "max", "mean", "stdev", "percentiles"})
      EXPECT_TRUE(rd["clat_ns"].contains(k)) << k;
    EXPECT_TRUE(rd["clat_ns"]["percentiles"].contains("99.900000"));
    std::ifstream lines(log);
    std::size_t n = 0;
    for (std::string line; std::getline(lines, line);) ++n;
    EXPECT_EQ(n, 1024u);
  }
}

TEST_F(BenchCli, ScratchFileInADirectoryIsLaidOutAndRemoved) {
  auto r = bench({"--target", dir_.path().string(), "--rw", "randwrite", "--bs", "4k", "--size",
                  "2m", "--runtime", "1s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u) << "only data.bin should remain";
}

// fio's --time_based, typed by every fio user: with --runtime storqual runs the whole runtime
// anyway, so it is accepted (also as --time-based) and the region is passed over again.
TEST_F(BenchCli, TimeBasedIsAcceptedAndRunsTheWholeRuntime) {
  for (const char* flag : {"--time_based", "--time-based", "--time_based=1"}) {
    SCOPED_TRACE(flag);
    const std::string json = (dir_ / "timed.json").string();
    auto r = bench({"--target", file_, "--rw", "read", "--bs", "4k", "--size", "64k", "--runtime",
                    "300ms", flag, "--json", json});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(json);
    auto j = nlohmann::json::parse(in);
    EXPECT_GT(j["workloads"][0]["read"]["ios"].get<long>(), 16) << "covered 64k once only";
    EXPECT_GE(j["workloads"][0]["elapsed_s"].get<double>(), 0.25);
    EXPECT_NE(r.out.find("--time_based --runtime=300ms"), std::string::npos) << r.out;
  }
  // Without --runtime fio warns and covers the size once; so does storqual.
  auto once =
      bench({"--target", file_, "--rw", "read", "--bs", "4k", "--size", "64k", "--time_based"});
  EXPECT_EQ(once.exit_code, 0) << once.err;
  EXPECT_NE(once.err.find("--time_based needs --runtime"), std::string::npos) << once.err;
  auto off =
      bench({"--target", file_, "--rw", "read", "--bs", "4k", "--runtime", "1s", "--time_based=0"});
  EXPECT_EQ(off.exit_code, 2) << off.err;
  EXPECT_NE(off.err.find("always time based"), std::string::npos) << off.err;
  auto help = bench({"--help"});
  EXPECT_NE(help.out.find("--time_based"), std::string::npos) << help.out;
}

// A target smaller than the region asked for: the refusal names --size as the way out, with a
// size that fits.
TEST_F(BenchCli, RegionPastTheEndNamesSizeAsTheWayOut) {
  auto r = bench({"--target", file_, "--rw", "read", "--bs", "4k", "--size", "5g"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("past the end of file " + file_), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("or give --size 8m to use a smaller region"), std::string::npos) << r.err;
}

TEST_F(BenchCli, NullEngineNeedsNoTarget) {
  auto r = bench({"--target", "no-such-thing", "--ioengine", "null", "--rw", "randrw", "--bs", "4k",
                  "--iodepth", "4", "--size", "1m"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("write: IOPS="), std::string::npos) << r.out;
}

// `bench` runs a latency search: every depth 1, 2, 4, 8, the whole curve with the statistic named
// (clat.p99 here), the chosen depth, and a JSON result of kind latency-search; a bad statistic or
// latency kind is a usage error.
TEST_F(BenchCli, LatencySearchSweepsEveryDepthAndPrintsTheCurve) {
  const std::string json = (dir_ / "search.json").string();
  auto r = bench({"--target",
                  "x",
                  "--ioengine",
                  "null",
                  "--rw",
                  "randread",
                  "--bs",
                  "4k",
                  "--size",
                  "16m",
                  "--runtime",
                  "200ms",
                  "--latency-limit",
                  "1s",
                  "--latency-stat",
                  "p99",
                  "--latency-kind",
                  "clat",
                  "--max-iodepth",
                  "8",
                  "--json",
                  json,
                  "--inject-fault",
                  "latency:base=200us"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("latency search: clat.p99 <= 1.00 s; IOPS per step: read+write, sum over "
                       "1 job"),
            std::string::npos)
      << r.out;
  for (const char* depth : {"       1  ", "       2  ", "       4  ", "       8  "})
    EXPECT_NE(r.out.find(std::string("\n    ") + depth), std::string::npos) << depth << r.out;
  EXPECT_NE(r.out.find("<- chosen"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(testing::read_file(json));
  const auto& w = j["workloads"][0];
  EXPECT_EQ(w["kind"], "latency-search");
  EXPECT_EQ(w["latency_stat"], "clat.p99");
  EXPECT_EQ(w["latency_curve"].size(), 4u);
  auto bad = bench(
      {"--target", "x", "--ioengine", "null", "--latency-limit", "1ms", "--latency-kind", "total"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--latency-kind: expected lat or clat"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace storqual
