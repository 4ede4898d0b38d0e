// SPDX-License-Identifier: Apache-2.0
// Real devices for tests: scratch directories, loop and zram devices that the test creates and
// removes by their own name (also when the test fails: RAII), and a shell-command runner.
// Tests that need root call STORQUAL_REQUIRE_ROOT() and skip with the reason otherwise.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace storqual::testing {

struct CommandResult {
  int exit_code = -1;  // the process's exit code, or 128+signal
  std::string out;     // stdout
  std::string err;     // stderr
};
// Runs `argv` (no shell) with optional stdin text; captures stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& input = {});
// Runs a shell line with /bin/sh -c.
CommandResult run_shell(const std::string& line);

// A child process running in the background, stdout and stderr going to files; for signal tests.
class BackgroundCommand {
 public:
  BackgroundCommand(const std::vector<std::string>& argv, const std::filesystem::path& out_file,
                    const std::filesystem::path& err_file);
  ~BackgroundCommand();  // kills (SIGKILL) and reaps a child still running
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;
  void signal(int sig);
  int wait();  // exit code, or 128+signal
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// CPU-bound child processes (busy loops) competing with a test's workload, killed (SIGKILL) and
// reaped by their own pids in stop() or the destructor, also when an assertion fails.
class BusyLoops {
 public:
  BusyLoops() = default;
  ~BusyLoops() { stop(); }
  BusyLoops(const BusyLoops&) = delete;
  BusyLoops& operator=(const BusyLoops&) = delete;
  // Starts `n` loops and lets them be scheduled (200 ms). Throws std::runtime_error when fork
  // fails.
  void start(int n);
  void stop();

 private:
  std::vector<pid_t> pids_;
};

bool is_root();
#define STORQUAL_REQUIRE_ROOT()                                                            \
  do {                                                                                     \
    if (!::storqual::testing::is_root()) GTEST_SKIP() << "needs root (loop/zram devices)"; \
  } while (0)

// A fresh directory under the build tree's or /tmp, removed with everything in it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "storqual-test");
  // In `parent` instead of the temporary folder (/dev/shm: a loop device's backing file in
  // memory, which a loaded host's disk writeback cannot stall).
  ScratchDir(const std::string& tag, const std::filesystem::path& parent);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const {
    return path_ / name;
  }

 private:
  std::filesystem::path path_;
};

// Writes `size` bytes of seeded random data to a new file.
void write_random_file(const std::filesystem::path& file, std::uint64_t size,
                       std::uint64_t seed = 1);

// The whole content of a file ("" when it cannot be read).
[[nodiscard]] std::string read_file(const std::filesystem::path& file);

// How many times `what` occurs in `text`, overlapping occurrences included.
[[nodiscard]] std::size_t count(const std::string& text, const std::string& what);

struct LoopOptions {
  std::uint32_t sector_size = 512;
  bool read_only = false;
  bool direct_io = true;
  bool partscan = false;
};

// A loop device over a backing file the caller made. Created with `losetup --find --show`, removed
// with `losetup -d <its own name>`. Throws std::runtime_error when it cannot be made.
class LoopDevice {
 public:
  LoopDevice(const std::filesystem::path& backing, const LoopOptions& options = {});
  ~LoopDevice();
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }  // "/dev/loopN"
  [[nodiscard]] std::string name() const;                          // "loopN"
  void detach();                                                   // early detach (idempotent)

 private:
  std::string path_;
};

// A zram device of `size` bytes made through /sys/class/zram-control/hot_add and removed through
// hot_remove with its own id; loads the module (modprobe zram) when it is not. Throws, naming
// why, when zram is not available.
class ZramDevice {
 public:
  explicit ZramDevice(std::uint64_t size);
  ~ZramDevice();
  ZramDevice(const ZramDevice&) = delete;
  ZramDevice& operator=(const ZramDevice&) = delete;
  [[nodiscard]] std::string path() const { return "/dev/zram" + std::to_string(id_); }
  [[nodiscard]] std::string name() const { return "zram" + std::to_string(id_); }

 private:
  int id_ = -1;
};

// A zram device of `size` bytes into `ptr` (a std::unique_ptr<ZramDevice>): the test needs root
// (STORQUAL_REQUIRE_ROOT) and fails, naming why, when zram cannot be had.
#define STORQUAL_MAKE_ZRAM(ptr, size)                                  \
  do {                                                                 \
    STORQUAL_REQUIRE_ROOT();                                           \
    try {                                                              \
      (ptr) = std::make_unique<::storqual::testing::ZramDevice>(size); \
    } catch (const std::exception& zram_error) {                       \
      GTEST_FAIL() << "cannot run: " << zram_error.what();             \
    }                                                                  \
  } while (0)

// Fills a block device with seeded random data (so reads reach the medium).
void fill_device_random(const std::string& device, std::uint64_t size, std::uint64_t seed = 1);

}  // namespace storqual::testing
