// SPDX-License-Identifier: Apache-2.0
// The I/O fault table of docs/robustness.md, one test per row: `storqual run` under real faults (a
// file on an ext4 that fills up, a read-only loop device, a loop device detached mid-run; root)
// and injected ones (--inject-fault on a scratch file). Each row checks what the run reported: the
// error counted in its direction with the first errno and offset, the workload in error with that
// message in the JSON and as a JUnit <error>, the next workload run unless the device is gone, the
// exit code; and that the JUnit (pugixml) and the JSON (nlohmann) parse.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runner/cli/cli.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using runner::kExitPass;
using runner::kExitRuntime;
using testing::BackgroundCommand;
using testing::LoopDevice;
using testing::LoopOptions;
using testing::run_command;
using testing::ScratchDir;

constexpr std::uint64_t kRegion = 8ull << 20;  // the scratch file of the injected rows

struct SuiteWorkload {
  std::string id, rw, bs;
};

// The three workloads of most rows: a read, a write, then a read again (what "the run goes on"
// is checked on).
const std::vector<SuiteWorkload> kReadWriteRead = {
    {"randread-4k", "randread", "4k"},
    {"randwrite-4k", "randwrite", "4k"},
    {"seqread-64k", "read", "64k"},
};

std::string suite_xml(const std::string& defaults, const std::vector<SuiteWorkload>& workloads) {
  std::ostringstream s;
  s << "<?xml version=\"1.0\"?>\n<suite name=\"faults\" description=\"fault table rows\">\n"
    << "  <defaults direct=\"1\" ramp_time=\"0\" iodepth=\"4\" " << defaults << "/>\n";
  for (const auto& w : workloads)
    s << "  <workload id=\"" << w.id << "\" rw=\"" << w.rw << "\" bs=\"" << w.bs << "\"/>\n";
  s << "</suite>\n";
  return s.str();
}

using ::storqual::testing::write_text;

// One `storqual run` and its reports, parsed.
struct RunReports {
  testing::CommandResult cmd;
  Json result;  // null when no JSON was written
  std::unique_ptr<pugi::xml_document> junit;
  bool junit_written = false;
};

std::vector<std::string> run_argv(const fs::path& dir, const std::string& name,
                                  const std::string& suite, const std::string& target,
                                  const std::vector<std::string>& extra) {
  const fs::path suite_file = dir / (name + "-suite.xml");
  write_text(suite_file, suite);
  std::vector<std::string> argv = {STORQUAL_BINARY, "run",
                                   "--target",      target,
                                   "--suite",       suite_file.string(),
                                   "--out",         (dir / (name + "-out")).string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// Reads the reports of run `name` (as run_argv laid out), checking that each parses, and prints
// the table row: each workload's errors or skip reason, and the exit code.
RunReports read_reports(const fs::path& dir, const std::string& name, testing::CommandResult cmd) {
  RunReports r;
  r.cmd = std::move(cmd);
  const fs::path out = dir / (name + "-out");
  const fs::path json_path = out / "storqual-result.json";
  if (fs::exists(json_path)) {
    std::ifstream in(json_path);
    try {
      r.result = Json::parse(in);
    } catch (const Json::exception& e) {
      ADD_FAILURE() << json_path << " is not valid JSON: " << e.what();
    }
  }
  const fs::path junit_path = out / "storqual-junit.xml";
  r.junit = std::make_unique<pugi::xml_document>();
  if (fs::exists(junit_path)) {
    r.junit_written = true;
    pugi::xml_parse_result parsed = r.junit->load_file(junit_path.c_str());
    EXPECT_TRUE(parsed) << junit_path << ": " << parsed.description();
  }
  if (fs::exists(out)) {
    for (const auto& e : fs::directory_iterator(out)) {
      EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos)
          << "temporary left: " << e.path();
    }
  }
  std::printf("[fault table] %s: exit %d\n", name.c_str(), r.cmd.exit_code);
  if (r.result.is_object()) {
    for (const auto& w : r.result["workloads"]) {
      for (const auto& e : w["errors"])
        std::printf("[fault table]   %s: error: %s\n", w["id"].get<std::string>().c_str(),
                    e.get<std::string>().c_str());
    }
    for (const auto& v : r.result["verdicts"])
      if (v["status"] == "skipped")
        std::printf("[fault table]   %s: skipped: %s\n", v["workload"].get<std::string>().c_str(),
                    v["message"].get<std::string>().c_str());
  } else {
    std::printf("[fault table]   no reports; stderr: %s", r.cmd.err.c_str());
  }
  return r;
}

RunReports run_storqual(const fs::path& dir, const std::string& name, const std::string& suite,
                        const std::string& target, const std::vector<std::string>& extra = {}) {
  return read_reports(dir, name, run_command(run_argv(dir, name, suite, target, extra)));
}

const Json& workload(const RunReports& r, const std::string& id) {
  static const Json kMissing;
  if (!r.result.is_object()) return kMissing;
  for (const auto& w : r.result["workloads"])
    if (w["id"] == id) return w;
  return kMissing;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string joined_errors(const Json& w) {
  std::string all;
  if (w.is_object())
    for (const auto& e : w["errors"]) all += e.get<std::string>() + "\n";
  return all;
}

// The JUnit testcases of workload `id` (named "<device label> <id> <metric>").
std::vector<pugi::xml_node> testcases_of(const RunReports& r, const std::string& id) {
  std::vector<pugi::xml_node> out;
  for (const pugi::xpath_node& n : r.junit->select_nodes("//testcase")) {
    const std::string name = n.node().attribute("name").value();
    if (name.find(" " + id + " ") != std::string::npos) out.push_back(n.node());
  }
  return out;
}

// The workload ended in error with `message` in the JSON and in a JUnit <error>; when `dir` is
// given, the error is counted there with `err` as the first errno at an offset inside the region.
// An open that failed names no offset: `names_offset` false.
void expect_workload_error(const RunReports& r, const std::string& id, const char* dir, int err,
                           const std::string& message, std::uint64_t region = kRegion,
                           bool names_offset = true) {
  const Json& w = workload(r, id);
  ASSERT_TRUE(w.is_object()) << "no result for " << id;
  EXPECT_TRUE(contains(joined_errors(w), message))
      << id << ": errors " << w["errors"].dump() << " lack '" << message << "'";
  if (dir) {
    ASSERT_TRUE(w.contains(dir)) << id << " has no " << dir << " side";
    const Json& d = w[dir];
    EXPECT_GE(d["errors"].get<std::uint64_t>(), 1u) << id << " " << dir;
    EXPECT_EQ(d["first_errno"].get<int>(), err) << id << " " << dir;
    const auto offset = d["first_error_offset"].get<std::uint64_t>();
    EXPECT_LT(offset, region) << id;
    EXPECT_EQ(offset % 4096, 0u) << id << ": offset " << offset << " is not on a block";
    if (names_offset) {
      EXPECT_TRUE(contains(joined_errors(w), "offset " + std::to_string(offset)))
          << id << ": the message does not name the offset " << offset;
    }
  }
  bool junit_error = false;
  for (const auto& tc : testcases_of(r, id)) {
    pugi::xml_node e = tc.child("error");
    if (e && contains(e.attribute("message").value(), message)) junit_error = true;
  }
  EXPECT_TRUE(junit_error) << id << ": no JUnit <error> with '" << message << "'";
}

// The workload ran and did I/O without an error.
void expect_workload_clean(const RunReports& r, const std::string& id) {
  const Json& w = workload(r, id);
  ASSERT_TRUE(w.is_object()) << "no result for " << id;
  EXPECT_TRUE(w["errors"].empty()) << id << ": " << w["errors"].dump();
  std::uint64_t ios = 0;
  for (const char* dir : {"read", "write"})
    if (w.contains(dir)) {
      ios += w[dir]["ios"].get<std::uint64_t>();
      EXPECT_EQ(w[dir]["errors"].get<std::uint64_t>(), 0u) << id << " " << dir;
    }
  EXPECT_GT(ios, 0u) << id << " did no I/O";
  for (const auto& tc : testcases_of(r, id)) EXPECT_FALSE(tc.child("error")) << id;
}

// The workload was not run: a skipped verdict and JUnit <skipped> with `message`.
void expect_workload_not_run(const RunReports& r, const std::string& id,
                             const std::string& message) {
  bool verdict = false;
  for (const auto& v : r.result["verdicts"])
    if (v["workload"] == id && v["status"] == "skipped" &&
        contains(v["message"].get<std::string>(), message))
      verdict = true;
  EXPECT_TRUE(verdict) << id << ": no skipped verdict with '" << message << "'";
  const Json& w = workload(r, id);
  if (w.is_object()) {
    for (const char* dir : {"read", "write"})
      if (w.contains(dir)) {
        EXPECT_EQ(w[dir]["ios"].get<std::uint64_t>(), 0u) << id << " ran";
      }
  }
  bool junit_skipped = false;
  for (const auto& tc : testcases_of(r, id))
    if (tc.child("skipped")) junit_skipped = true;
  EXPECT_TRUE(junit_skipped) << id << ": no JUnit <skipped>";
}

void expect_exit(const RunReports& r, int code) {
  EXPECT_EQ(r.cmd.exit_code, code) << r.cmd.err;
  ASSERT_TRUE(r.result.is_object()) << "no JSON report";
  EXPECT_EQ(r.result["exit_code"].get<int>(), code);
  EXPECT_TRUE(r.junit_written);
}

// --- injected faults: a scratch file in a directory, no root needed ---------------------------

class InjectedFault : public ::testing::Test {
 protected:
  RunReports run(const std::string& name, const std::string& fault, const std::string& options = "",
                 const std::vector<SuiteWorkload>& workloads = kReadWriteRead) {
    fs::create_directories(target_);
    RunReports r = run_storqual(dir_.path(), name,
                                suite_xml("runtime=\"300ms\" size=\"8m\" " + options, workloads),
                                target_.string(), {"--inject-fault", fault});
    EXPECT_TRUE(fs::is_empty(target_)) << "scratch file left in " << target_;
    return r;
  }
  ScratchDir dir_{"faults"};
  fs::path target_ = dir_ / "target";
};

TEST_F(InjectedFault, EioOnReadsEndsTheWorkloadAndTheRunGoesOn) {
  RunReports r = run("read-eio", "fail:dir=read,after=20,error=EIO");
  expect_exit(r, kExitRuntime);
  expect_workload_error(r, "randread-4k", "read", EIO, "Input/output error (EIO)");
  expect_workload_error(r, "randread-4k", "read", EIO, "read error at offset ");
  expect_workload_clean(r, "randwrite-4k");
  // Each workload meets the fault afresh: the sequential read fails too.
  expect_workload_error(r, "seqread-64k", "read", EIO, "read error at offset ");
  EXPECT_EQ(workload(r, "randread-4k")["read"]["ios"].get<std::uint64_t>(), 20u)
      << "the 20 reads before the fault are counted, nothing after";
}

TEST_F(InjectedFault, EioOnWritesEndsTheWorkloadAndTheRunGoesOn) {
  RunReports r = run("write-eio", "fail:dir=write,error=EIO");
  expect_exit(r, kExitRuntime);
  expect_workload_clean(r, "randread-4k");
  expect_workload_error(r, "randwrite-4k", "write", EIO, "write error at offset ");
  EXPECT_EQ(workload(r, "randwrite-4k")["write"]["ios"].get<std::uint64_t>(), 0u);
  expect_workload_clean(r, "seqread-64k");
}

TEST_F(InjectedFault, ShortTransfersAreCompletedAndCounted) {
  RunReports r = run("short", "short:dir=read,after=10,bytes=512");
  expect_exit(r, kExitPass);
  for (const auto& w : kReadWriteRead) expect_workload_clean(r, w.id);
  // Each short read is requeued for the rest, so every counted read moved its whole block.
  for (const char* id : {"randread-4k", "seqread-64k"}) {
    const Json& rd = workload(r, id)["read"];
    EXPECT_GT(rd["short_ios"].get<std::uint64_t>(), 0u) << id;
    const std::uint64_t bs = std::string(id) == "randread-4k" ? 4096 : 65536;
    EXPECT_EQ(rd["bytes"].get<std::uint64_t>(), rd["ios"].get<std::uint64_t>() * bs) << id;
  }
  EXPECT_EQ(workload(r, "randwrite-4k")["write"]["short_ios"].get<std::uint64_t>(), 0u);
}

TEST_F(InjectedFault, EagainStormIsRetried) {
  RunReports r = run("eagain", "eagain:after=10,count=5000");
  expect_exit(r, kExitPass);
  for (const auto& w : kReadWriteRead) expect_workload_clean(r, w.id);
  // Absorbed, not hidden: each workload's engine met the storm and its resends are counted.
  for (const char* id : {"randread-4k", "seqread-64k"}) {
    const auto n = workload(r, id)["read"]["eagain_retries"].get<std::uint64_t>();
    EXPECT_GT(n, 0u) << id;
    EXPECT_LE(n, 5000u) << id;
  }
  const auto w = workload(r, "randwrite-4k")["write"]["eagain_retries"].get<std::uint64_t>();
  EXPECT_GT(w, 0u);
  EXPECT_LE(w, 5000u);
}

TEST_F(InjectedFault, EndlessEagainIsAnErrorAfterIoTimeout) {
  RunReports r = run("eagain-endless", "eagain:dir=read,after=10", "io_timeout=\"1s\"");
  expect_exit(r, kExitRuntime);
  expect_workload_error(r, "randread-4k", "read", EAGAIN,
                        "still not done after 1s of retries (Resource temporarily unavailable "
                        "(EAGAIN))");
  expect_workload_clean(r, "randwrite-4k");
}

TEST_F(InjectedFault, StuckIoBecomesAnErrorAtIoTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  RunReports r = run("stuck", "stuck:dir=write,after=50,count=1", "io_timeout=\"1s\"");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_exit(r, kExitRuntime);
  expect_workload_clean(r, "randread-4k");
  expect_workload_error(r, "randwrite-4k", "write", ETIMEDOUT,
                        "did not complete within io_timeout 1s (Connection timed out (ETIMEDOUT))");
  expect_workload_clean(r, "seqread-64k");
  EXPECT_LT(took, 20.0) << "a stuck I/O must not hang the run";
}

TEST_F(InjectedFault, ContinueOnErrorKeepsGoingAndCounts) {
  RunReports r = run("continue", "fail:dir=read,after=20,probability=0.05,error=EIO",
                     "continue_on_error=\"1\"", {{"randread-4k", "randread", "4k"}});
  expect_exit(r, kExitRuntime);
  expect_workload_error(r, "randread-4k", "read", EIO, "(continue_on_error: the workload went on)");
  const Json& rd = workload(r, "randread-4k")["read"];
  EXPECT_GT(rd["errors"].get<std::uint64_t>(), 1u) << "went on through more than one error";
  EXPECT_GT(rd["ios"].get<std::uint64_t>(), 40u) << "kept reading past the first error";
  EXPECT_TRUE(contains(joined_errors(workload(r, "randread-4k")),
                       std::to_string(rd["errors"].get<std::uint64_t>()) + " read errors"));
}

// fio goes on through EIO and EILSEQ only (td_non_fatal_error without ignore_error): an error
// like ENOSPC ends the workload there, continue_on_error or not.
TEST_F(InjectedFault, ContinueOnErrorStopsAtAnErrorFioCallsFatal) {
  RunReports r = run("continue-enospc", "fail:dir=read,after=20,probability=0.05,error=ENOSPC",
                     "continue_on_error=\"1\"", {{"randread-4k", "randread", "4k"}});
  expect_exit(r, kExitRuntime);
  const Json& rd = workload(r, "randread-4k")["read"];
  EXPECT_GE(rd["errors"].get<std::uint64_t>(), 1u);
  EXPECT_LE(rd["errors"].get<std::uint64_t>(), 4u) << "only what was in flight after the first";
  EXPECT_FALSE(contains(joined_errors(workload(r, "randread-4k")), "the workload went on"))
      << joined_errors(workload(r, "randread-4k"));
}

TEST_F(InjectedFault, DeviceGoneStopsTheRun) {
  RunReports r = run("gone", "fail:after=50,error=ENXIO");
  expect_exit(r, kExitRuntime);
  expect_workload_error(r, "randread-4k", "read", ENXIO, "No such device or address (ENXIO)");
  for (const char* id : {"randwrite-4k", "seqread-64k"})
    expect_workload_not_run(
        r, id,
        "skipped: the device went away during 'randread-4k': No such device or address (ENXIO)");
}

// --- real faults: loop devices and a filesystem the test makes (root) -------------------------

// An ext4 made on `device` and mounted on `dir`; unmounted by the destructor (lazily as a last
// resort, so a failing test never leaves a mount behind).
class MountedExt4 {
 public:
  MountedExt4(const std::string& device, fs::path dir) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    auto mk = run_command({"mkfs.ext4", "-q", "-F", "-m", "0", "-E", "nodiscard", device});
    if (mk.exit_code != 0) throw std::runtime_error("mkfs.ext4 failed: " + mk.err);
    auto m = run_command({"mount", "-t", "ext4", device, dir_.string()});
    if (m.exit_code != 0) throw std::runtime_error("mount failed: " + m.err);
  }
  ~MountedExt4() {
    if (run_command({"umount", dir_.string()}).exit_code != 0)
      run_command({"umount", "-l", dir_.string()});
  }
  MountedExt4(const MountedExt4&) = delete;
  MountedExt4& operator=(const MountedExt4&) = delete;
  [[nodiscard]] const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

bool loop_left(const fs::path& backing) {
  return !run_command({"losetup", "-j", backing.string()}).out.empty();
}

// A loop device detached while something still held it (a mount just unmounted, storqual) goes
// at its last close, a moment later: waits up to 5 s for it.
bool loop_released(const fs::path& backing) {
  for (int i = 0; i < 50 && loop_left(backing); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return !loop_left(backing);
}

TEST(RealFault, FileOnAFullFilesystemGetsEnospc) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("faults");
  const fs::path backing = dir / "fs.img";
  {
    std::ofstream(backing).close();
    fs::resize_file(backing, 32ull << 20);
    LoopDevice loop(backing);
    MountedExt4 mounted(loop.path(), dir / "mnt");
    // A sparse 64 MiB file on a 32 MiB filesystem: writing it through runs out of space.
    const fs::path file = mounted.path() / "target.img";
    std::ofstream(file).close();
    fs::resize_file(file, 64ull << 20);
    RunReports r =
        run_storqual(dir.path(), "enospc",
                     suite_xml("runtime=\"3s\" size=\"64m\"",
                               {{"seqwrite-1m", "write", "1m"}, {"randread-4k", "randread", "4k"}}),
                     file.string(), {"--allow-destructive"});
    expect_exit(r, kExitRuntime);
    expect_workload_error(r, "seqwrite-1m", "write", ENOSPC, "No space left on device (ENOSPC)",
                          64ull << 20);
    expect_workload_clean(r, "randread-4k");
  }
  EXPECT_TRUE(loop_released(backing)) << "a loop device over " << backing << " was left";
}

TEST(RealFault, ReadOnlyLoopDeviceFailsTheWriteWorkload) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("faults");
  const fs::path backing = dir / "ro.img";
  testing::write_random_file(backing, 16ull << 20);
  {
    LoopOptions ro;
    ro.read_only = true;
    LoopDevice loop(backing, ro);
    RunReports r =
        run_storqual(dir.path(), "read-only", suite_xml("runtime=\"500ms\"", kReadWriteRead),
                     loop.path(), {"--allow-destructive"});
    expect_exit(r, kExitRuntime);
    expect_workload_clean(r, "randread-4k");
    expect_workload_error(
        r, "randwrite-4k", "write", EROFS,
        "cannot open " + loop.path() + " read-write with O_DIRECT: Read-only file system",
        16ull << 20, false);
    expect_workload_clean(r, "seqread-64k");
  }
  EXPECT_TRUE(loop_released(backing)) << "a loop device over " << backing << " was left";
}

// Whether process `pid` comes to hold `device` open, seen twice 300 ms apart (not a short
// identification open), within 60 s.
bool holds_open(pid_t pid, const std::string& device) {
  auto open_now = [&] {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec))
      if (fs::read_symlink(e.path(), ec) == device) return true;
    return false;
  };
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < limit) {
    if (open_now()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      if (open_now()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(RealFault, LoopDeviceDetachedDuringTheRun) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("faults");
  const fs::path backing = dir / "detach.img";
  // Written out, not sparse: 4k random writes into a sparse backing file leave it in thousands
  // of extents, which take seconds to unlink.
  testing::write_random_file(backing, 32ull << 20);
  {
    LoopDevice loop(backing);
    auto argv = run_argv(dir.path(), "detach", suite_xml("runtime=\"700ms\"", kReadWriteRead),
                         loop.path(), {"--allow-destructive"});
    BackgroundCommand run(argv, dir / "detach.out", dir / "detach.err");
    // Detach once storqual holds the device (the safety guard's descriptor, kept for the whole
    // run), not after a fixed 500 ms: under ASan on a loaded host storqual had not opened it yet,
    // the kernel detached a device nobody held and the run failed (exit 2).
    ASSERT_TRUE(holds_open(run.pid(), loop.path())) << "storqual never opened " << loop.path();
    // `losetup -d` by the device's own name, once (LoopDevice never detaches it again, so a
    // device of the same name made later by someone else is safe).
    const std::string device = loop.path();
    loop.detach();
    std::printf("[fault table] losetup -d %s during the run\n", device.c_str());
    // losetup -d on a device in use only marks it for removal at its last close (autoclear): the
    // run keeps the device (storqual holds it open, O_EXCL, for the whole run) and finishes.
    EXPECT_TRUE(loop_left(backing)) << "the kernel detached a loop device still in use";
    const int code = run.wait();
    testing::CommandResult cmd;
    cmd.exit_code = code;
    RunReports r = read_reports(dir.path(), "detach", cmd);
    expect_exit(r, kExitPass);
    for (const auto& w : kReadWriteRead) expect_workload_clean(r, w.id);
    // ... and the device went away when storqual let go of it.
    EXPECT_TRUE(loop_released(backing)) << "the detached device outlived the run";
  }
  EXPECT_TRUE(loop_released(backing)) << "a loop device over " << backing << " was left";
}

}  // namespace
}  // namespace storqual
