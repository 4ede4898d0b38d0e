// SPDX-License-Identifier: Apache-2.0
// Limits and privilege (issue 8): numjobs 64 x iodepth 1024 runs; absurd values (iodepth 10^9,
// numjobs 10^5, bs beyond the file or the 256m limit, runtime 10^9 s) are refused at once with
// exit 2 and a message naming the limit; an unprivileged user gets "permission denied: run as
// root or use a file target" (no stack trace) on a block device it cannot open, while file targets
// work for that user.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::ScratchDir;

testing::CommandResult bench(const std::vector<std::string>& prefix,
                             const std::vector<std::string>& args) {
  std::vector<std::string> argv = prefix;
  argv.insert(argv.end(), {STORQUAL_BINARY, "bench"});
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

// What a crash or an escaped exception looks like on stderr; none may appear.
void expect_no_stack_trace(const testing::CommandResult& r) {
  for (const char* sign : {"terminate called", "what():", "Aborted", "Segmentation", "#0 ", "#1 "})
    EXPECT_EQ(r.err.find(sign), std::string::npos) << "stderr shows a crash: " << r.err;
}

class Limits : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = (dir_ / "data.bin").string();
    testing::write_random_file(file_, 8 << 20);
  }
  ScratchDir dir_{"storqual-limits"};
  std::string file_;
};

TEST_F(Limits, SixtyFourJobsAtDepth1024Run) {
  const fs::path json = dir_ / "result.json";
  auto r = bench(
      {}, {"--target", file_, "--rw", "randread", "--bs", "4k", "--ioengine", "null", "--numjobs",
           "64", "--iodepth", "1024", "--runtime", "1s", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("workloads") && !j["workloads"].empty()) << j.dump().substr(0, 400);
  const auto& w = j["workloads"][0];
  EXPECT_EQ(w["params"]["numjobs"], 64);
  EXPECT_EQ(w["params"]["iodepth"], 1024);
  EXPECT_GT(w["read"]["ios"].get<double>(), 64.0 * 1024) << "every job kept its queue full";
}

struct Absurd {
  std::vector<std::string> args;
  std::vector<std::string> message;  // each must appear in stderr: the option and its limit
};

TEST_F(Limits, AbsurdValuesAreRefusedNamingTheLimit) {
  const std::vector<std::string> base = {"--target", file_, "--rw", "randread"};
  const std::vector<Absurd> cases = {
      {{"--bs", "4k", "--iodepth", "1000000000"}, {"iodepth", "65536"}},
      {{"--bs", "4k", "--numjobs", "100000"}, {"numjobs", "1024"}},
      {{"--bs", "4k", "--runtime", "1000000000s"}, {"runtime", "limit of one year"}},
      {{"--bs", "4k", "--ramp_time", "1000000000s"}, {"ramp_time", "limit of one year"}},
      {{"--bs", "1g"}, {"bs", "256m"}},
      // Larger than the 8 MiB file (but under the 256m limit): the file's size is the limit.
      {{"--bs", "16m"}, {"smaller than bs 16m"}},
  };
  for (const auto& c : cases) {
    auto args = base;
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = bench({}, args);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << r.out << r.err;
    for (const auto& m : c.message) EXPECT_NE(r.err.find(m), std::string::npos) << shown << r.err;
    expect_no_stack_trace(r);
    // Refused before anything is allocated or run.
    EXPECT_LT(s, 5.0) << shown;
  }
}

TEST_F(Limits, BlockSizeLargerThanTheDeviceIsRefused) {
  STORQUAL_REQUIRE_ROOT();
  testing::write_random_file(dir_ / "backing.img", 4 << 20);
  testing::LoopDevice loop(dir_ / "backing.img");
  auto r = bench({}, {"--target", loop.path(), "--rw", "randread", "--bs", "8m"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("bs"), std::string::npos) << r.err;
  expect_no_stack_trace(r);
}

TEST_F(Limits, UnprivilegedUserGetsPermissionDeniedOnABlockDeviceAndFileTargetsWork) {
  STORQUAL_REQUIRE_ROOT();
  STORQUAL_REQUIRE(storqual::testing::have_program("setpriv"), "setpriv (util-linux)");
  const std::vector<std::string> nobody = {"setpriv", "--reuid=65534", "--regid=65534",
                                           "--clear-groups"};
  testing::write_random_file(dir_ / "backing.img", 8 << 20);
  testing::LoopDevice loop(dir_ / "backing.img");
  ASSERT_EQ(::chmod(loop.path().c_str(), 0600), 0);

  for (const auto& rw : {"randread", "randwrite"}) {
    std::vector<std::string> args = {"--target", loop.path(), "--rw",      rw,
                                     "--bs",     "4k",        "--runtime", "1s"};
    if (std::string(rw) == "randwrite") args.push_back("--allow-destructive");
    auto r = bench(nobody, args);
    EXPECT_TRUE(r.exit_code == 2 || r.exit_code == 3) << rw << ": exit " << r.exit_code << r.err;
    EXPECT_NE(r.err.find("permission denied: run as root or use a file target"), std::string::npos)
        << rw << ": " << r.err;
    expect_no_stack_trace(r);
  }

  // The same user on files of its own: reads a file it owns, writes a scratch file in a directory
  // it owns (and the scratch file is gone afterwards).
  const fs::path own = dir_ / "nobody";
  fs::create_directories(own);
  fs::permissions(dir_.path(), fs::perms::all);
  testing::write_random_file(dir_ / "nobody.bin", 8 << 20);
  ASSERT_EQ(::chown(own.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((dir_ / "nobody.bin").c_str(), 65534, 65534), 0);
  auto r = bench(nobody, {"--target", (dir_ / "nobody.bin").string(), "--rw", "randread", "--bs",
                          "4k", "--runtime", "1s"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = bench(nobody, {"--target", own.string(), "--rw", "randwrite", "--bs", "4k", "--size", "8m",
                     "--runtime", "1s"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::is_empty(own)) << "the scratch file was not removed";
}

}  // namespace
}  // namespace storqual
