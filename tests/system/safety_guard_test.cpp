// SPDX-License-Identifier: Apache-2.0
// The safety guard against real loop devices the tests create (root only): mounted, signed,
// partitioned with a mounted partition, swap, held exclusively, blank; and the same refusals
// through `storqual bench` (exit 2 with the guard's message). Every device, mount and swap is
// undone by RAII, also when an assertion fails.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "devices/safety_guard.hpp"
#include "devices/sysfs.hpp"
#include "tests/support/test_devices.hpp"

namespace fs = std::filesystem;
using namespace storqual::devices;
using storqual::testing::LoopDevice;
using storqual::testing::LoopOptions;
using storqual::testing::run_command;
using storqual::testing::ScratchDir;

namespace {

constexpr const char* kSize = "64M";

void make_blank_file(const fs::path& p, const char* size = kSize) {
  auto r = run_command({"truncate", "-s", size, p.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

std::string sha256_of(const std::string& device) {
  auto r = run_command({"sha256sum", device});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.substr(0, 64);
}

void mkfs_ext4(const std::string& device, const char* label = "data") {
  // No lazy initialization: nothing writes behind the test's back once mounted.
  auto r = run_command({"mkfs.ext4", "-q", "-F", "-L", label, "-E",
                        "lazy_itable_init=0,lazy_journal_init=0", device});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

bool wait_for(const std::string& path, int tries = 100) {
  for (int i = 0; i < tries; ++i) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// A mount that is undone when the test leaves, whatever happened. Read-only: a read-write ext4
// mount updates its own superblock and journal in the background, which would change the device's
// hash without storqual writing anything; mounted read-only it is still mounted, and quiet.
class Mount {
 public:
  Mount(const std::string& device, const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir);
    auto r = run_command({"mount", "-o", "ro", device, dir.string()});
    if (r.exit_code != 0) throw std::runtime_error("mount " + device + ": " + r.err);
    mounted_ = true;
  }
  ~Mount() {
    if (mounted_) (void)run_command({"umount", dir_.string()});
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;

 private:
  fs::path dir_;
  bool mounted_ = false;
};

// Partitions of a loop device. The kernel's own scan (losetup -P) is used when it finds them;
// kernels built without the partition-table parser leave them to `partx -a` (BLKPG). Removed with
// `partx -d` before the loop device goes.
class LoopPartitions {
 public:
  explicit LoopPartitions(const std::string& loop) : loop_(loop) {
    if (wait_for(loop + "p1", 20)) return;
    auto r = run_command({"partx", "-a", loop});
    if (r.exit_code != 0) throw std::runtime_error("partx -a " + loop + ": " + r.err);
    added_ = true;
  }
  ~LoopPartitions() {
    if (added_) (void)run_command({"partx", "-d", loop_});
  }
  LoopPartitions(const LoopPartitions&) = delete;
  LoopPartitions& operator=(const LoopPartitions&) = delete;

 private:
  std::string loop_;
  bool added_ = false;
};

class Swap {
 public:
  explicit Swap(const std::string& device) : device_(device) {
    auto r = run_command({"mkswap", device});
    if (r.exit_code != 0) throw std::runtime_error("mkswap: " + r.err);
    r = run_command({"swapon", device});
    if (r.exit_code != 0) throw std::runtime_error("swapon: " + r.err);
    on_ = true;
  }
  ~Swap() {
    if (on_) (void)run_command({"swapoff", device_});
  }
  Swap(const Swap&) = delete;
  Swap& operator=(const Swap&) = delete;

 private:
  std::string device_;
  bool on_ = false;
};

GuardRequest write_request(const std::string& dev, bool allow, bool force) {
  GuardRequest r;
  r.target = dev;
  r.writes = true;
  r.allow_destructive = allow;
  r.force = force;
  return r;
}

// The refusal's message, or "" when admitted.
std::string refusal(const GuardRequest& request) {
  try {
    auto admitted = SafetyGuard().admit(request);
    return "";
  } catch (const SafetyRefusal& e) {
    return e.what();
  }
}

}  // namespace

TEST(SafetyGuard, MountedExt4IsRefusedEvenWithAllFlagsAndStaysUnchanged) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-mounted");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  mkfs_ext4(loop.path());
  Mount mount(loop.path(), dir / "mnt");
  (void)run_command({"sync"});
  const std::string before = sha256_of(loop.path());
  std::string msg = refusal(write_request(loop.path(), true, true));
  EXPECT_NE(msg.find(loop.path() + " is mounted at " + (dir / "mnt").string()), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("no flag overrides this"), std::string::npos) << msg;
  EXPECT_EQ(sha256_of(loop.path()), before);
  // Reading a mounted device is allowed, without the exclusive claim, and said so.
  GuardRequest read;
  read.target = loop.path();
  auto admitted = SafetyGuard().admit(read);
  EXPECT_FALSE(admitted.exclusive);
  ASSERT_EQ(admitted.notes.size(), 1u);
  EXPECT_NE(admitted.notes[0].find("is in use"), std::string::npos) << admitted.notes[0];
}

TEST(SafetyGuard, UnmountedExt4NeedsForce) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-signed");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  mkfs_ext4(loop.path());
  std::string msg = refusal(write_request(loop.path(), true, false));
  EXPECT_NE(msg.find("it carries an ext4 signature, label 'data'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--force"), std::string::npos) << msg;
  EXPECT_NE(msg.find(loop.path()), std::string::npos) << msg;

  auto admitted = SafetyGuard().admit(write_request(loop.path(), true, true));
  EXPECT_TRUE(admitted.exclusive);
  EXPECT_GE(admitted.fd(), 0);
  EXPECT_EQ(admitted.capacity, 64u << 20);
  EXPECT_EQ(admitted.size, 64u << 20);
  // While admitted, the claim keeps the kernel from mounting it.
  fs::create_directories(dir / "mnt");
  auto r = run_command({"mount", loop.path(), (dir / "mnt").string()});
  if (r.exit_code == 0) (void)run_command({"umount", (dir / "mnt").string()});
  EXPECT_NE(r.exit_code, 0) << "mount succeeded while the guard held O_EXCL";
}

TEST(SafetyGuard, WholeDiskWithAMountedPartitionIsRefused) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-partitioned");
  make_blank_file(dir / "disk.img");
  auto r = run_command({"sfdisk", "-q", (dir / "disk.img").string()}, "label: dos\n,16M,L\n,,L\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  LoopOptions opts;
  opts.partscan = true;
  LoopDevice loop(dir / "disk.img", opts);
  LoopPartitions partitions(loop.path());
  const std::string part = loop.path() + "p1";
  ASSERT_TRUE(wait_for(part)) << part << " did not appear";
  mkfs_ext4(part, "part1");
  Mount mount(part, dir / "mnt");
  std::string msg = refusal(write_request(loop.path(), true, true));
  EXPECT_NE(msg.find("partition " + part + " is mounted at " + (dir / "mnt").string()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("no flag overrides this"), std::string::npos) << msg;
}

TEST(SafetyGuard, PartitionTableIsASignature) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-pt");
  make_blank_file(dir / "disk.img");
  auto r = run_command({"sfdisk", "-q", (dir / "disk.img").string()}, "label: gpt\n,,L\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  LoopDevice loop(dir / "disk.img");
  std::string msg = refusal(write_request(loop.path(), true, false));
  EXPECT_NE(msg.find("it carries a gpt partition table"), std::string::npos) << msg;
}

TEST(SafetyGuard, ActiveSwapIsRefused) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-swap");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  std::optional<Swap> swap;
  try {
    swap.emplace(loop.path());
  } catch (const std::exception& e) {
    GTEST_SKIP() << "swap not available here: " << e.what();
  }
  std::string msg = refusal(write_request(loop.path(), true, true));
  EXPECT_NE(msg.find(loop.path() + " is active swap"), std::string::npos) << msg;
}

TEST(SafetyGuard, DeviceHeldExclusivelyElsewhereIsBusy) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-busy");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  // Another process holds the claim.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int fd = open(loop.path().c_str(), O_RDONLY | O_EXCL);
    char c = fd >= 0 ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  close(ready[1]);
  std::string msg = refusal(write_request(loop.path(), true, true));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(c, 'y') << "the helper process could not claim the device";
  EXPECT_NE(msg.find("busy"), std::string::npos) << msg;
  EXPECT_NE(msg.find(loop.path()), std::string::npos) << msg;
}

// Whether another process (udevd, here a fresh descriptor) could take udev's shared lock now.
bool shared_lock_free(const std::string& disk) {
  int fd = open(disk.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << disk;
  const bool free = flock(fd, LOCK_SH | LOCK_NB) == 0;
  const int err = errno;
  close(fd);
  EXPECT_TRUE(free || err == EWOULDBLOCK) << disk << ": " << std::strerror(err);
  return free;
}

TEST(SafetyGuard, AWriteAdmissionHoldsUdevsLockOnTheWholeDiskUntilReleased) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-udev-lock");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  GuardRequest read;
  read.target = loop.path();
  {
    auto admitted = SafetyGuard().admit(read);
    EXPECT_FALSE(admitted.udev_locked);  // a read raises no IN_CLOSE_WRITE: udev may probe
    EXPECT_TRUE(shared_lock_free(loop.path()));
  }
  auto admitted = SafetyGuard().admit(write_request(loop.path(), true, false));
  EXPECT_TRUE(admitted.udev_locked);
  EXPECT_TRUE(admitted.notes.empty());
  EXPECT_FALSE(shared_lock_free(loop.path()));  // udevd's LOCK_SH|LOCK_NB fails: no probe
  admitted = AdmittedTarget{};
  EXPECT_TRUE(shared_lock_free(loop.path()));
}

TEST(SafetyGuard, APartitionsWriteLocksItsWholeDisk) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-udev-lock-part");
  make_blank_file(dir / "disk.img");
  auto r = run_command({"sfdisk", "-q", (dir / "disk.img").string()}, "label: dos\n,16M,L\n,,L\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  LoopOptions opts;
  opts.partscan = true;
  LoopDevice loop(dir / "disk.img", opts);
  LoopPartitions partitions(loop.path());
  const std::string part = loop.path() + "p2";
  ASSERT_TRUE(wait_for(part)) << part << " did not appear";
  {
    auto admitted = SafetyGuard().admit(write_request(part, true, false));
    EXPECT_TRUE(admitted.udev_locked);
    EXPECT_FALSE(shared_lock_free(loop.path()));  // udev locks the whole disk, never a partition
  }
  EXPECT_TRUE(shared_lock_free(loop.path()));
}

TEST(SafetyGuard, AnotherLockHolderLeavesTheRunUnlockedWithANote) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-udev-held");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  int held = open(loop.path().c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_SH | LOCK_NB), 0);  // as udevd holds it while it probes
  auto admitted = SafetyGuard().admit(write_request(loop.path(), true, false));
  close(held);
  EXPECT_TRUE(admitted.exclusive);
  EXPECT_FALSE(admitted.udev_locked);
  ASSERT_EQ(admitted.notes.size(), 1u);
  EXPECT_NE(admitted.notes[0].find(loop.path() + ": no BSD lock (flock LOCK_EX) within 3 s"),
            std::string::npos)
      << admitted.notes[0];
}

TEST(SafetyGuard, BlankDeviceWriteNeedsAllowDestructiveReadDoesNot) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-blank");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  std::string msg = refusal(write_request(loop.path(), false, false));
  EXPECT_NE(msg.find("--allow-destructive"), std::string::npos) << msg;
  GuardRequest read;
  read.target = loop.path();
  read.offset = 1 << 20;
  read.size = 4 << 20;
  auto admitted = SafetyGuard().admit(read);
  EXPECT_TRUE(admitted.exclusive);
  EXPECT_EQ(admitted.offset, 1u << 20);
  EXPECT_EQ(admitted.size, 4u << 20);
  EXPECT_TRUE(admitted.notes.empty());
  // A blank device with the flag is admitted for writes (no force needed).
  auto writable = [&] {
    admitted = AdmittedTarget{};  // release the read claim first
    return SafetyGuard().admit(write_request(loop.path(), true, false));
  }();
  EXPECT_TRUE(writable.exclusive);
}

TEST(SafetyGuard, RangePastTheEndIsRefused) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-range");
  make_blank_file(dir / "disk.img", "8M");
  LoopDevice loop(dir / "disk.img");
  GuardRequest read;
  read.target = loop.path();
  read.offset = 4 << 20;
  read.size = 8 << 20;
  std::string msg = refusal(read);
  EXPECT_NE(msg.find("past the end"), std::string::npos) << msg;
  EXPECT_NE(msg.find("or give --size 4m to use a smaller region"), std::string::npos) << msg;
  read.offset = 8 << 20;
  read.size = 0;
  EXPECT_NE(refusal(read).find("past the end"), std::string::npos);
}

TEST(SafetyGuard, UnprivilegedUserIsToldToRunAsRootOrUseAFile) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-eacces");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(out[0]);
    std::string msg;
    if (setgid(65534) != 0 || setuid(65534) != 0) {
      msg = "setuid failed";
    } else {
      GuardRequest read;
      read.target = loop.path();
      msg = refusal(read);
    }
    (void)!write(out[1], msg.data(), msg.size());
    _exit(0);
  }
  close(out[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) msg.append(buf, n);
  close(out[0]);
  waitpid(child, nullptr, 0);
  EXPECT_NE(msg.find("permission denied: run as root or use a file target"), std::string::npos)
      << msg;
}

// A suite's 5 GiB region on a smaller device: `storqual run` refuses with --size as the way out,
// and with that --size it runs.
TEST(SafetyGuard, RunOnATooSmallDeviceNamesSizeAsTheWayOut) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("guard-run-small");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  {
    std::ofstream suite(dir / "suite.xml");
    suite << R"(<?xml version="1.0"?>
<suite name="big" description="a 5 GiB region">
  <defaults direct="1" ramp_time="0" runtime="200ms" size="5g"/>
  <workload id="randread-4k" rw="randread" bs="4k"/>
</suite>
)";
  }
  const std::vector<std::string> argv = {STORQUAL_BINARY, "run",
                                         "--target",      loop.path(),
                                         "--suite",       (dir / "suite.xml").string(),
                                         "--out",         (dir / "out").string()};
  auto r = run_command(argv);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("past the end of " + loop.path()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("or give --size 64m to use a smaller region"), std::string::npos) << r.err;
  std::vector<std::string> sized = argv;
  sized.insert(sized.end(), {"--size", "64m"});
  r = run_command(sized);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// The same rules through the CLI, once `storqual bench` calls the guard.
class BenchRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    STORQUAL_REQUIRE_ROOT();
    // A bench that lost --allow-destructive is a regression of the guard, not a reason to skip.
    auto help = run_command({STORQUAL_BINARY, "bench", "--help"});
    ASSERT_NE(help.out.find("--allow-destructive"), std::string::npos)
        << "storqual bench does not take --allow-destructive:\n"
        << help.out;
  }
  static storqual::testing::CommandResult bench(const std::string& dev, const char* rw,
                                                std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {STORQUAL_BINARY, "bench", "--target", dev,  "--rw",      rw,
                                     "--bs",          "4k",    "--size",   "4m", "--runtime", "1",
                                     "--ioengine",    "psync"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  }
};

TEST_F(BenchRefusals, MountedExt4ExitsTwoWithTheMessage) {
  ScratchDir dir("bench-mounted");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  mkfs_ext4(loop.path());
  Mount mount(loop.path(), dir / "mnt");
  (void)run_command({"sync"});
  const std::string before = sha256_of(loop.path());
  auto r = bench(loop.path(), "randwrite", {"--allow-destructive", "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is mounted at"), std::string::npos) << r.err;
  EXPECT_EQ(sha256_of(loop.path()), before);
}

TEST_F(BenchRefusals, SignedDeviceNeedsForceBlankNeedsAllowDestructive) {
  ScratchDir dir("bench-signed");
  make_blank_file(dir / "disk.img");
  LoopDevice loop(dir / "disk.img");
  auto r = bench(loop.path(), "randwrite");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--allow-destructive"), std::string::npos) << r.err;
  r = bench(loop.path(), "randread");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  mkfs_ext4(loop.path());
  r = bench(loop.path(), "randwrite", {"--allow-destructive"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("it carries an ext4 signature, label 'data'"), std::string::npos) << r.err;
  r = bench(loop.path(), "randwrite", {"--allow-destructive", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}
