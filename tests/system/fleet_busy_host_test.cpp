// SPDX-License-Identifier: Apache-2.0
// A fleet on one host that the host cannot drive (docs/fleet.md, "A unit the host limited is left
// out"): four zram devices qualified with `run --parallel` beside two CPU-bound processes on this
// machine's CPUs. Every unit's workload is marked host-limited or busy with its reason; no claim
// fails for it (a claim the wait can account for is an error "host-limited: ..."), and no unit is
// a lot outlier for it. The claim is what one device does alone on the same host just before.
// The devices and the busy loops are the test's own, removed and killed by name and pid also when
// an assertion fails.
#include <gtest/gtest.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::read_file;
using testing::run_command;

constexpr std::uint64_t kDeviceSize = 64ull << 20;

TEST(FleetOnABusyHost, FourDevicesBesideTwoCpuHogsAreHostLimitedNeitherFailedNorOutliers) {
  STORQUAL_REQUIRE_ROOT();
  // Its claim is what one device does alone, measured first, and whether the fleet beside two
  // hogs is excused depends on how that came out: on the 2-CPU CI machine it failed 3 of 5 runs
  // of 2026-12-03 with the binary before and after that day's changes alike. A figure, run on
  // purpose (issue 46 lists this test among those that depend on the host).
  if (!std::getenv("STORQUAL_TIMING_TESTS"))
    GTEST_SKIP() << "timing-dependent: set STORQUAL_TIMING_TESTS=1 on a quiet machine";
  std::vector<std::unique_ptr<testing::ZramDevice>> devices;
  try {
    for (int i = 0; i < 4; ++i)
      devices.push_back(std::make_unique<testing::ZramDevice>(kDeviceSize));
  } catch (const std::exception& e) {
    GTEST_FAIL() << "cannot run: " << e.what();
  }
  for (std::size_t i = 0; i < devices.size(); ++i)
    testing::fill_device_random(devices[i]->path(), kDeviceSize, i + 1);
  testing::ScratchDir dir("fleet-busy");
  const fs::path suite = dir / "suite.xml";
  std::ofstream(suite) << R"(<suite name="fleet-busy">
  <workload id="w" ioengine="io_uring" rw="randread" bs="4k" iodepth="32" runtime="2s"/>
</suite>
)";
  // One device alone first: what it does on this host undisturbed is its claim.
  const auto alone =
      run_command({STORQUAL_BINARY, "run", "--target", devices[0]->path(), "--suite",
                   suite.string(), "--measure-only", "--out", (dir / "alone").string()});
  ASSERT_EQ(alone.exit_code, 0) << alone.out << alone.err;
  const Json alone_result = Json::parse(read_file(dir / "alone" / "storqual-result.json"));
  const double idle_iops = alone_result["workloads"][0]["read"]["iops"].get<double>();
  ASSERT_GT(idle_iops, 0);
  const fs::path sheet = dir / "sheet.xml";
  std::ofstream(sheet) << R"(<spec-sheet name="zram on a free host" suite="fleet-busy">
  <match model="*"/>
  <claims><claim workload="w" metric="iops" value=")"
                       << static_cast<long long>(idle_iops * 0.9) << R"(" tolerance="10%"/></claims>
</spec-sheet>
)";

  testing::BusyLoops hogs;
  hogs.start(2);
  std::vector<std::string> argv = {STORQUAL_BINARY, "run",          "--parallel",
                                   "--spec",        sheet.string(), "--suite",
                                   suite.string(),  "--out",        (dir / "fleet").string()};
  for (const auto& d : devices) {
    argv.push_back("--target");
    argv.push_back(d->path());
  }
  const auto fleet = run_command(argv);
  EXPECT_NE(fleet.exit_code, 1) << "no unit fails for the host's sake\n" << fleet.out << fleet.err;
  EXPECT_NE(fleet.out.find("(4 targets, 0 lot outliers)"), std::string::npos) << fleet.out;
  for (const auto& d : devices) {
    const fs::path file = dir / "fleet" / ("storqual-result-" + d->name() + ".json");
    ASSERT_TRUE(fs::exists(file)) << file << "\n" << fleet.out << fleet.err;
    const Json r = Json::parse(read_file(file));
    const Json& w = r["workloads"][0];
    const bool limited = w.contains("host_limit") && w["host_limit"]["limited"].get<bool>();
    const bool busy = w.contains("host_busy") && w["host_busy"]["busy"].get<bool>();
    EXPECT_TRUE(limited || busy) << d->name() << ": " << w.dump(1);
    if (limited) {
      EXPECT_FALSE(w["host_limit"]["reasons"].empty()) << d->name();
    }
    if (busy) {
      EXPECT_FALSE(w["host_busy"]["reasons"].empty()) << d->name();
    }
    for (const auto& v : r["verdicts"]) {
      EXPECT_NE(v["status"], "fail") << d->name() << ": " << v.dump();
      if (v.value("kind", "claim") == "claim" && v["measured"].get<double>() < idle_iops * 0.81) {
        EXPECT_NE(v["message"].get<std::string>().find("host-limited: "), std::string::npos)
            << d->name() << " below its claim must say the host limited it: " << v.dump();
      }
    }
  }
  const Json merged = Json::parse(read_file(dir / "fleet" / "storqual-result.json"));
  EXPECT_EQ(merged["lot"]["flagged"], 0) << merged["lot"].dump(1);
  for (const auto& g : merged["lot"]["groups"])
    for (const auto& u : g["units"]) {
      EXPECT_FALSE(u["flagged"].get<bool>()) << u.dump();
      const Json r = Json::parse(read_file(
          dir / "fleet" / ("storqual-result-" + u["device"].get<std::string>() + ".json")));
      const Json& w = r["workloads"][0];
      if (w.contains("host_limit") && w["host_limit"]["limited"].get<bool>()) {
        EXPECT_FALSE(u["left_out"].get<std::string>().empty())
            << "a host-limited unit is left out of the lot: " << u.dump();
      }
    }
}

}  // namespace
}  // namespace storqual
