// SPDX-License-Identifier: Apache-2.0
// The power-cut method as the registry holds it (runner/methods/power_cut/power_cut.hpp): a
// stepped method whose steps are its phases, `storqual powercut --help` made from its entry (the
// same text the command printed before it was registered), the phases' seams, and the check phase
// on a device that did not come back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runner/methods/method.hpp"
#include "runner/methods/power_cut/power_cut.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;

const SteppedMethodEntry& power_cut() {
  const SteppedMethodEntry* e = find_stepped_method("powercut");
  if (!e) throw std::logic_error("no powercut in the registry");
  return *e;
}

TEST(PowerCutMethod, IsRegisteredWithItsStepsInOrder) {
  ASSERT_NE(find_stepped_method("powercut"), nullptr);
  EXPECT_EQ(find_stepped_method("run"), nullptr);
  std::vector<std::string> names;
  for (const MethodStep& s : power_cut().steps) names.emplace_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"arm", "check", "listen", "indicators", "summary"}));
  EXPECT_NE(find_method_step(power_cut(), "check"), nullptr);
  EXPECT_EQ(find_method_step(power_cut(), "cut"), nullptr);
  EXPECT_EQ(stepped_method_step_names(power_cut()), "arm, check, listen, indicators or summary");
  EXPECT_EQ(stepped_method_entries().size(), 1u);
}

TEST(PowerCutMethod, HelpIsTheCommandsHelp) {
  EXPECT_EQ(stepped_method_help(power_cut()),
            "storqual powercut arm     write records, journal every acknowledgement off the "
            "device, cut\n"
            "storqual powercut check   after the device is back: classify every acknowledged "
            "record\n"
            "storqual powercut listen  keep a run's journal for another machine\n"
            "storqual powercut indicators  write-cache setting, flush time, QD1 sync latency (no "
            "cut)\n"
            "storqual powercut summary RESULT.json...  N cuts' check results added up, the "
            "device's verdict\n"
            "docs/power-cut.md has the method and the classes.");
}

// Seams that fail the test when a phase reads the drive it should not.
PowercutSeams untouchable() {
  PowercutSeams s;
  s.read_health = [](const std::string& device) -> HealthReading {
    ADD_FAILURE() << "health read of " << device;
    return {};
  };
  s.nvme_cache = [](const std::string& device) -> std::optional<NvmeCacheIdentity> {
    ADD_FAILURE() << "NVMe identify of " << device;
    return std::nullopt;
  };
  return s;
}

TEST(PowerCutMethod, AFileHasNoShutdownCount) {
  // Beside the test (the build folder, on a disk), not in /tmp, which may be a tmpfs.
  const fs::path file = fs::current_path() / ("power_cut_method_" + std::to_string(getpid()));
  std::ofstream(file) << "x";
  const JournalShutdowns s = read_unsafe_shutdowns(file.string(), untouchable());
  fs::remove(file);
  EXPECT_FALSE(s.readable);
  EXPECT_EQ(s.source, file.string() + " is a file, not a drive");
  EXPECT_EQ(describe_shutdowns(s),
            "unsafe-shutdown count not readable: " + file.string() + " is a file, not a drive");
}

TEST(PowerCutMethod, ShutdownsAreSaidWithTheirSource) {
  JournalShutdowns s;
  s.readable = true;
  s.count = 7;
  s.source = "nvme:smart-log";
  EXPECT_EQ(describe_shutdowns(s), "unsafe-shutdown count 7 (nvme:smart-log)");
  s.has_ocp = true;
  s.ocp_incomplete = 2;
  EXPECT_EQ(describe_shutdowns(s),
            "unsafe-shutdown count 7 (nvme:smart-log), OCP incomplete shutdowns 2");
}

TEST(PowerCutMethod, CheckOfADeviceThatDidNotComeBack) {
  JournalContents journal;
  journal.header.region_size = 1 << 20;
  std::ostringstream out;
  const std::string gone = "/nonexistent/storqual-power-cut-target";
  const auto verdicts = check_power_cut(gone, journal, false, "cut 3", untouchable(), out);
  ASSERT_EQ(verdicts.size(), 2u);  // the missing device, then the unsafe-shutdown count
  EXPECT_EQ(verdicts[0].status, reporting::VerdictStatus::Fail);
  EXPECT_NE(verdicts[0].message.find(gone + ": No such file or directory"), std::string::npos)
      << verdicts[0].message;
  EXPECT_EQ(verdicts[1].metric, "powercut.unsafe_shutdowns");
  EXPECT_EQ(out.str(), "cut 3: " + verdicts[0].message + "\ncut 3: " + verdicts[1].message + "\n");
}

}  // namespace
}  // namespace storqual::runner
