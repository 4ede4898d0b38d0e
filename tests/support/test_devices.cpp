// SPDX-License-Identifier: Apache-2.0
// Real devices for tests (see test_devices.hpp).
#include "tests/support/test_devices.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>

#include <signal.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace storqual::testing {
namespace fs = std::filesystem;

// A test binary run by hand (not through ctest, whose environment says so already) records into
// no archive either, unless the environment names one: the storqual it starts inherits this
// (docs/archive.md, tests/CMakeLists.txt).
[[maybe_unused]] const bool kArchiveOffUnlessNamed = [] {
  return setenv("STORQUAL_ARCHIVE", "off", 0) == 0;
}();

CommandResult run_command(const std::vector<std::string>& argv, const std::string& input) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC))
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandResult result;
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.exit_code = 127;
    result.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  std::thread writer([fd = in_pipe[1], &input] {
    std::size_t done = 0;
    while (done < input.size()) {
      ssize_t n = write(fd, input.data() + done, input.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fd);
  });
  std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  writer.join();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult run_shell(const std::string& line) {
  return run_command({"/bin/sh", "-c", line});
}

bool is_root() {
  return geteuid() == 0;
}

BackgroundCommand::BackgroundCommand(const std::vector<std::string>& argv, const fs::path& out_file,
                                     const fs::path& err_file) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw std::runtime_error(std::string("cannot run ") + argv[0] + ": " + std::strerror(rc));
}

BackgroundCommand::~BackgroundCommand() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

void BackgroundCommand::signal(int sig) {
  if (pid_ > 0) ::kill(pid_, sig);
}

int BackgroundCommand::wait() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

ScratchDir::ScratchDir(const std::string& tag) : ScratchDir(tag, fs::temp_directory_path()) {}

ScratchDir::ScratchDir(const std::string& tag, const fs::path& parent) {
  std::string tmpl = (parent / (tag + ".XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed: " + tmpl);
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void write_random_file(const fs::path& file, std::uint64_t size, std::uint64_t seed) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot create " + file.string());
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> chunk(8192);
  std::uint64_t left = size;
  while (left > 0) {
    for (auto& w : chunk) w = rng();
    std::uint64_t n = std::min<std::uint64_t>(left, chunk.size() * 8);
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(n));
    left -= n;
  }
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

LoopDevice::LoopDevice(const fs::path& backing, const LoopOptions& options) {
  std::vector<std::string> argv = {"losetup", "--find", "--show"};
  argv.push_back("--sector-size");
  argv.push_back(std::to_string(options.sector_size));
  if (options.read_only) argv.push_back("--read-only");
  if (options.partscan) argv.push_back("--partscan");
  argv.push_back(std::string("--direct-io=") + (options.direct_io ? "on" : "off"));
  argv.push_back(backing.string());
  auto r = run_command(argv);
  if (r.exit_code != 0) throw std::runtime_error("losetup failed: " + r.err);
  path_ = r.out.substr(0, r.out.find('\n'));
  if (path_.rfind("/dev/loop", 0) != 0) throw std::runtime_error("losetup printed " + r.out);
}

std::string LoopDevice::name() const {
  return path_.substr(5);
}

void LoopDevice::detach() {
  if (path_.empty()) return;
  // A just-closed device can be briefly busy (udev probing); retry a few times.
  for (int i = 0; i < 50; ++i) {
    auto r = run_command({"losetup", "-d", path_});
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  path_.clear();
}

LoopDevice::~LoopDevice() {
  detach();
}

namespace {
// zram's control folder; STORQUAL_ZRAM_CONTROL names another (a folder without hot_add shows
// what the tests say on a machine whose kernel has no zram module, without unloading it).
std::string zram_control() {
  const char* forced = std::getenv("STORQUAL_ZRAM_CONTROL");
  return forced && *forced ? forced : "/sys/class/zram-control";
}
}  // namespace

ZramDevice::ZramDevice(std::uint64_t size) {
  // The module is loaded, not assumed: a kernel that has zram but did not load it yet.
  const std::string control = zram_control();
  std::string modprobe;
  if (!std::filesystem::exists(control + "/hot_add")) {
    const CommandResult r = run_command({"modprobe", "zram", "num_devices=0"});
    modprobe = r.exit_code == 0 ? "; modprobe zram succeeded" : "; modprobe zram failed: " + r.err;
  }
  std::ifstream add(control + "/hot_add");
  if (!add)
    throw std::runtime_error("zram is not available (no " + control +
                             "/hot_add: the kernel's zram module" + modprobe + ")");
  add >> id_;
  if (!add) throw std::runtime_error("zram hot_add gave no id");
  std::ofstream disksize("/sys/block/zram" + std::to_string(id_) + "/disksize");
  disksize << size;
  disksize.close();
  if (!disksize) {
    std::ofstream remove(zram_control() + "/hot_remove");
    remove << id_;
    throw std::runtime_error("cannot set zram disksize");
  }
}

ZramDevice::~ZramDevice() {
  if (id_ < 0) return;
  std::string id = std::to_string(id_);
  for (int i = 0; i < 50; ++i) {
    {
      std::ofstream reset("/sys/block/zram" + id + "/reset");
      reset << 1;
    }
    std::ofstream remove(zram_control() + "/hot_remove");
    remove << id;
    remove.close();
    if (remove) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void BusyLoops::start(int n) {
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;  // CPU-bound until killed
    }
    pids_.push_back(pid);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

void BusyLoops::stop() {
  for (pid_t pid : pids_) kill(pid, SIGKILL);
  for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  pids_.clear();
}

void fill_device_random(const std::string& device, std::uint64_t size, std::uint64_t seed) {
  int fd = ::open(device.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + device + ": " + std::strerror(errno));
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> chunk(131072);
  std::uint64_t done = 0;
  while (done < size) {
    for (auto& w : chunk) w = rng();
    std::uint64_t n = std::min<std::uint64_t>(size - done, chunk.size() * 8);
    ssize_t w = pwrite(fd, chunk.data(), n, static_cast<off_t>(done));
    if (w <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot write " + device + ": " + std::strerror(errno));
    }
    done += static_cast<std::uint64_t>(w);
  }
  fsync(fd);
  ::close(fd);
}

}  // namespace storqual::testing
