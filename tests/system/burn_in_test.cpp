// SPDX-License-Identifier: Apache-2.0
// The burn-in suite through the whole `storqual run` on a loop device (docs/burn-in.md): a scan
// interrupted by SIGINT twice (once in the write pass, once in the read-and-verify pass) and
// resumed with --resume ends with the verify result and the byte counts of one uninterrupted
// scan; the HTML has the latency-class table and the LBA chart (in headless chromium's DOM too,
// when chromium is installed); a foreign checkpoint is refused naming its file.
// Each I/O is held at least 2 ms by the hidden --inject-fault latency, so that each pass of the
// 64 MiB device takes about 1 s and a signal lands inside the pass the test waits for.
// Needs root (loop devices); skips otherwise.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::BackgroundCommand;
using testing::LoopDevice;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

constexpr std::uint64_t kSize = 64ull << 20;
const char* const kSlow = "latency:base=2ms";

// Sectors read and written so far on /sys/block/NAME (the stat file's 3rd and 7th fields).
std::pair<std::uint64_t, std::uint64_t> sectors(const std::string& name) {
  std::istringstream in(read_file("/sys/block/" + name + "/stat"));
  std::vector<std::uint64_t> f;
  std::uint64_t v = 0;
  while (in >> v) f.push_back(v);
  if (f.size() < 7) return {0, 0};
  return {f[2], f[6]};
}

// Waits until `done` holds (polling every 5 ms), at most 60 s.
template <class Condition>
bool wait_for(Condition done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

nlohmann::json scan_workload(const fs::path& json) {
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  for (const auto& w : j["workloads"])
    if (w["id"] == "surface-scan") return w;
  return {};
}

class BurnIn : public ::testing::Test {
 protected:
  void SetUp() override {
    STORQUAL_REQUIRE_ROOT();
    std::ofstream(backing_).close();
    fs::resize_file(backing_, kSize);
    loop_ = std::make_unique<LoopDevice>(backing_);
  }
  std::vector<std::string> argv(const std::string& out, bool resume) const {
    std::vector<std::string> a = {STORQUAL_BINARY,
                                  "run",
                                  "--target",
                                  loop_->path(),
                                  "--suite",
                                  "burn-in",
                                  "--suite-dir",
                                  std::string(STORQUAL_SOURCE_DIR) + "/suites",
                                  "--out",
                                  (dir_ / out).string(),
                                  "--allow-destructive",
                                  "--inject-fault",
                                  kSlow};
    if (resume) a.push_back("--resume");
    return a;
  }
  // Starts a run into `out` and sends SIGINT once `ready` holds; returns its exit code.
  template <class Condition>
  int interrupted_run(const std::string& out, bool resume, Condition ready) {
    BackgroundCommand run(argv(out, resume), dir_ / (out + ".out"), dir_ / (out + ".err"));
    EXPECT_TRUE(wait_for(ready)) << read_file(dir_ / (out + ".err"));
    run.signal(SIGINT);
    return run.wait();
  }
  ScratchDir dir_{"storqual-burn-in"};
  fs::path backing_ = dir_ / "disk.img";
  std::unique_ptr<LoopDevice> loop_;
};

TEST_F(BurnIn, InterruptedTwiceAndResumedEqualsOneUninterruptedRun) {
  const auto whole = run_command(argv("whole", false));
  ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  const std::string name = loop_->name();

  // 1. SIGINT in the write pass, once a quarter of the device is written.
  auto [read0, written0] = sectors(name);
  const std::uint64_t quarter = kSize / 4 / 512;
  EXPECT_EQ(
      interrupted_run("resumed", false, [&] { return sectors(name).second >= written0 + quarter; }),
      130);
  const fs::path checkpoint = dir_ / "resumed" / "storqual-result.surface-scan.checkpoint.json";
  ASSERT_TRUE(fs::exists(checkpoint));
  EXPECT_NE(read_file(checkpoint).find("\"phase\": \"write\""), std::string::npos);
  // Running again without --resume does not start the scan over.
  const auto refused = run_command(argv("resumed", false));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE((refused.out + refused.err).find(checkpoint.string()), std::string::npos)
      << refused.out << refused.err;

  // 2. Resumed; SIGINT in the read pass, once a quarter of the device is read back.
  std::tie(read0, written0) = sectors(name);
  EXPECT_EQ(
      interrupted_run("resumed", true, [&] { return sectors(name).first >= read0 + quarter; }),
      130);
  ASSERT_TRUE(fs::exists(checkpoint));
  EXPECT_NE(read_file(checkpoint).find("\"phase\": \"read\""), std::string::npos);

  // 3. Resumed to the end: the checkpoint is gone, the counts are the uninterrupted run's.
  const auto last = run_command(argv("resumed", true));
  ASSERT_EQ(last.exit_code, 0) << last.out << last.err;
  EXPECT_FALSE(fs::exists(checkpoint));
  EXPECT_NE(last.out.find("%"), std::string::npos) << "no progress line:\n" << last.out;

  const auto a = scan_workload(dir_ / "whole" / "storqual-result.json");
  const auto b = scan_workload(dir_ / "resumed" / "storqual-result.json");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  for (const char* key : {"bytes_written", "bytes_read", "write_errors", "read_errors"})
    EXPECT_EQ(a["surface_scan"][key], b["surface_scan"][key]) << key;
  EXPECT_EQ(a["surface_scan"]["bytes_written"], kSize);
  EXPECT_EQ(a["surface_scan"]["bytes_read"], kSize);
  EXPECT_EQ(b["surface_scan"]["sessions"], 3);
  std::uint64_t classed = 0;
  for (const auto& c : b["surface_scan"]["read_classes"]) classed += c.get<std::uint64_t>();
  EXPECT_EQ(classed, kSize / (128 * 1024));
  for (const char* key : {"blocks_written", "verified_at_end", "corrupted", "misplaced", "stale",
                          "foreign", "read_errors"})
    EXPECT_EQ(a["integrity"][key], b["integrity"][key]) << key;
  EXPECT_EQ(b["integrity"]["verified_at_end"], kSize / (128 * 1024));
  EXPECT_EQ(a["write"]["bytes"], b["write"]["bytes"]);
  EXPECT_EQ(a["write"]["ios"], b["write"]["ios"]);
  EXPECT_EQ(a["read"]["bytes"], b["read"]["bytes"]);
  EXPECT_EQ(a["read"]["ios"], b["read"]["ios"]);

  // The HTML: the class table and the LBA chart.
  const std::string html = read_file(dir_ / "resumed" / "storqual-report.html");
  EXPECT_NE(html.find("<table class=\"scan-classes\">"), std::string::npos);
  EXPECT_NE(html.find("&lt; 5 ms"), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"scan-lba\""), std::string::npos);
  EXPECT_NE(html.find("MB/s along the LBA range"), std::string::npos);
  // In a browser's DOM too, when there is one.
  for (const char* chromium : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (!fs::exists(chromium)) continue;
    const auto dom = run_command(
        {"timeout", "45", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--user-data-dir=" + (dir_ / "profile").string(), "--dump-dom",
         "file://" + (dir_ / "resumed" / "storqual-report.html").string()});
    EXPECT_NE(dom.out.find("scan-classes"), std::string::npos);
    EXPECT_NE(dom.out.find("data-chart=\"scan-lba\""), std::string::npos);
    break;
  }
}

TEST_F(BurnIn, ACheckpointOfAnotherDeviceIsRefusedNamingTheFile) {
  const std::uint64_t written0 = sectors(loop_->name()).second;
  const auto first = interrupted_run(
      "other", false, [&] { return sectors(loop_->name()).second >= written0 + kSize / 8 / 512; });
  EXPECT_EQ(first, 130);
  const fs::path checkpoint = dir_ / "other" / "storqual-result.surface-scan.checkpoint.json";
  ASSERT_TRUE(fs::exists(checkpoint));
  std::string text = read_file(checkpoint);
  const auto at = text.find("\"device\": \"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 11, "serial=ELSEWHERE ");
  std::ofstream(checkpoint) << text;
  const auto r = run_command(argv("other", true));
  EXPECT_NE(r.exit_code, 0);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("checkpoint " + checkpoint.string() + ": it is of another device"),
            std::string::npos)
      << all;
}

}  // namespace
}  // namespace storqual
