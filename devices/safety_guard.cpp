// SPDX-License-Identifier: Apache-2.0
// The safety guard (see safety_guard.hpp).
#include "devices/safety_guard.hpp"

#include <blkid.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>
#include <memory>
#include <thread>
#include <utility>

#include "devices/device_users.hpp"

namespace storqual::devices {
namespace {

std::string with_article(const std::string& thing);

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string join_with_articles(const std::vector<std::string>& things) {
  std::vector<std::string> with;
  for (const auto& t : things) with.push_back(with_article(t));
  return join(with, " and ");
}

// The --size that fits `room` bytes, as fio writes sizes: the largest power of two of at least
// 4 KiB that fits ("--size 1g"), else "--size N" in bytes.
std::string size_way_out(std::uint64_t room) {
  if (room < 4096) return "--size " + std::to_string(room);
  std::uint64_t p = 4096;
  while (p <= room / 2) p *= 2;
  static constexpr const char* kSuffix[] = {"k", "m", "g", "t", "p"};
  std::uint64_t n = p >> 10;
  std::size_t unit = 0;
  while (n >= 1024 && unit + 1 < std::size(kSuffix)) n >>= 10, ++unit;
  return "--size " + std::to_string(n) + kSuffix[unit];
}

// "ext4 signature" -> "an ext4 signature", "xfs signature" -> "an xfs signature", "gpt partition
// table" -> "a gpt partition table": a name without a vowel is read letter by letter (an LVM2, a
// btrfs), a word by its first sound.
std::string with_article(const std::string& thing) {
  std::string word;
  for (char c : thing) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (word.empty()) return "a " + thing;
  const bool spelled = word.find_first_of("aeiouy") == std::string::npos;
  const char* vowel_sounds = spelled ? "aefhilmnorsx" : "aeiou";
  return (std::strchr(vowel_sounds, word.front()) ? "an " : "a ") + thing;
}

// offset/size -> the admitted range, or a refusal naming both numbers.
void fit_range(const GuardRequest& request, const std::string& what, std::uint64_t capacity,
               AdmittedTarget& admitted) {
  if (request.offset >= capacity && !(capacity == 0 && request.offset == 0))
    throw SafetyRefusal("offset " + std::to_string(request.offset) + " is at or past the end of " +
                        what + " (" + std::to_string(capacity) + " bytes)");
  std::uint64_t size = request.size ? request.size : capacity - request.offset;
  if (size > capacity - request.offset)
    throw SafetyRefusal("offset+size (" + std::to_string(request.offset) + "+" +
                        std::to_string(size) + " bytes) is past the end of " + what + " (" +
                        std::to_string(capacity) + " bytes): name a larger target, or give " +
                        size_way_out(capacity - request.offset) + " to use a smaller region");
  if (size == 0) throw SafetyRefusal(what + " is empty: nothing to do I/O on");
  admitted.capacity = capacity;
  admitted.offset = request.offset;
  admitted.size = size;
}

}  // namespace

std::vector<std::string> probe_signatures(int fd) {
  std::vector<std::string> found;
  std::unique_ptr<blkid_struct_probe, decltype(&blkid_free_probe)> pr(blkid_new_probe(),
                                                                      blkid_free_probe);
  if (!pr || blkid_probe_set_device(pr.get(), fd, 0, 0) != 0) return found;
  blkid_probe_enable_superblocks(pr.get(), 1);
  blkid_probe_set_superblocks_flags(pr.get(),
                                    BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_MAGIC);
  blkid_probe_enable_partitions(pr.get(), 1);
  blkid_probe_set_partitions_flags(pr.get(), BLKID_PARTS_MAGIC);
  // Like wipefs: each blkid_do_probe() step reports the next signature found.
  for (int i = 0; i < 16 && blkid_do_probe(pr.get()) == 0; ++i) {
    const char* value = nullptr;
    if (blkid_probe_lookup_value(pr.get(), "PTTYPE", &value, nullptr) == 0 && value) {
      found.push_back(std::string(value) + " partition table");
    } else if (blkid_probe_lookup_value(pr.get(), "TYPE", &value, nullptr) == 0 && value) {
      std::string s = std::string(value) + " signature";
      const char* label = nullptr;
      if (blkid_probe_lookup_value(pr.get(), "LABEL", &label, nullptr) == 0 && label && *label)
        s += ", label '" + std::string(label) + "'";
      found.push_back(s);
    }
  }
  return found;
}

AdmittedTarget::~AdmittedTarget() {
  // The lock first: udev, woken by the claim's close, then finds the disk unlocked.
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (fd_ >= 0) ::close(fd_);
}

AdmittedTarget::AdmittedTarget(AdmittedTarget&& other) noexcept {
  *this = std::move(other);
}

AdmittedTarget& AdmittedTarget::operator=(AdmittedTarget&& other) noexcept {
  if (this == &other) return *this;
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (fd_ >= 0) ::close(fd_);
  kind = other.kind;
  path = std::move(other.path);
  device = std::move(other.device);
  capacity = other.capacity;
  offset = other.offset;
  size = other.size;
  exclusive = other.exclusive;
  udev_locked = other.udev_locked;
  notes = std::move(other.notes);
  fd_ = std::exchange(other.fd_, -1);
  lock_fd_ = std::exchange(other.lock_fd_, -1);
  scratch_ = std::move(other.scratch_);
  return *this;
}

namespace {

// systemd's block-device locking (docs/identity-and-safety.md, "udev's lock"): udevd takes
// LOCK_SH|LOCK_NB on a whole disk before it processes an event for it (the IN_CLOSE_WRITE that
// every close of a written descriptor raises) and leaves the disk alone while it cannot. A writer
// holding LOCK_EX keeps udev's blkid probe, whose reads the device would count, out of the run.
// udevd holds its own lock only while it processes an event, so a short wait covers it.
constexpr auto kUdevLockWait = std::chrono::seconds(3);

bool lock_exclusively(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + kUdevLockWait;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace

void SafetyGuard::lock_whole_disk(const ResolvedTarget& resolved, AdmittedTarget& admitted) const {
  int fd = admitted.fd_;
  const std::string disk = "/dev/" + resolved.disk;
  if (resolved.is_partition) {
    admitted.lock_fd_ = ::open(disk.c_str(), O_RDONLY | O_CLOEXEC);
    fd = admitted.lock_fd_;
  }
  if (fd < 0) {
    admitted.notes.push_back(disk + ": no BSD lock (flock LOCK_EX): cannot open it (" +
                             std::strerror(errno) +
                             "), so udev may probe (read) the device while the run writes it");
    return;
  }
  if (lock_exclusively(fd)) {
    admitted.udev_locked = true;
    return;
  }
  admitted.notes.push_back(disk + ": no BSD lock (flock LOCK_EX) within " +
                           std::to_string(kUdevLockWait.count()) +
                           " s: another process holds one, so udev may probe (read) the device "
                           "while the run writes it");
}

SafetyGuard::SafetyGuard(Sysfs sysfs) : sysfs_(std::move(sysfs)) {}

AdmittedTarget SafetyGuard::admit(const GuardRequest& request) const {
  struct stat st {};
  if (::stat(request.target.c_str(), &st) != 0)
    throw SafetyRefusal(request.target + ": " + std::strerror(errno) +
                        " (name an existing block device, file, or a directory for a scratch "
                        "file)");
  if (S_ISBLK(st.st_mode)) return admit_block_device(request);
  if (S_ISDIR(st.st_mode)) return admit_directory(request);
  if (S_ISREG(st.st_mode)) return admit_file(request);
  throw SafetyRefusal(request.target +
                      " is neither a block device, a regular file nor a directory");
}

AdmittedTarget SafetyGuard::admit_block_device(const GuardRequest& request) const {
  ResolvedTarget resolved;
  try {
    resolved = sysfs_.resolve(request.target);
  } catch (const ResolveError& e) {
    throw SafetyRefusal(e.what());
  }
  const std::string dev = "/dev/" + resolved.device;
  const std::string name = dev == request.target ? dev : request.target + " (" + dev + ")";
  AdmittedTarget admitted;
  admitted.kind = AdmittedKind::BlockDevice;
  admitted.path = request.target;
  admitted.device = resolved.device;

  if (request.writes && !request.allow_destructive)
    throw SafetyRefusal("refusing to write to block device " + name +
                        ": a write workload destroys its contents; pass --allow-destructive if "
                        "that is intended");

  // Every writer comes through here (run, bench, the power-cut lab): a host-managed zoned disk
  // takes a write only at a zone's write pointer, which storqual's workloads do not write at.
  if (request.writes &&
      sysfs_.read(sysfs_.block_dir_relative(resolved.disk) / "queue/zoned") == "host-managed")
    throw SafetyRefusal("refusing to write to " + name +
                        ": it is a host-managed zoned block device, which takes a write only at "
                        "a zone's write pointer, and storqual's workloads do not write that way "
                        "(docs/identity-and-safety.md, \"Zoned devices\"); no flag overrides "
                        "this");

  std::vector<std::string> users;
  for (const auto& u : find_device_users(sysfs_, resolved.device)) users.push_back(u.description);
  if (request.writes && !users.empty())
    throw SafetyRefusal("refusing to write to " + name + ": " + join(users, "; ") +
                        "; no flag overrides this (unmount, swapoff or remove the holder first)");

  int flags = (request.writes ? O_RDWR : O_RDONLY) | O_EXCL | O_CLOEXEC;
  int fd = ::open(request.target.c_str(), flags);
  if (fd < 0 && (errno == EACCES || errno == EPERM))
    throw SafetyRefusal(name + ": permission denied: run as root or use a file target");
  if (fd < 0 && errno == EBUSY) {
    if (request.writes)
      throw SafetyRefusal("refusing to write to " + name +
                          ": it is busy (another process or the kernel holds it exclusively; "
                          "O_EXCL open failed with EBUSY); no flag overrides this");
    fd = ::open(request.target.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
      admitted.notes.push_back(name + " is in use" +
                               (users.empty() ? "" : " (" + join(users, "; ") + ")") +
                               ": reading without an exclusive claim");
  } else if (fd >= 0) {
    admitted.exclusive = true;
  }
  if (fd < 0) throw SafetyRefusal(name + ": cannot open: " + std::strerror(errno));
  admitted.fd_ = fd;

  std::uint64_t capacity = 0;
  if (::ioctl(fd, BLKGETSIZE64, &capacity) != 0)
    throw SafetyRefusal(name + ": cannot read its size: " + std::strerror(errno));

  if (request.writes && !request.force) {
    auto signatures = probe_signatures(fd);
    if (!signatures.empty())
      throw SafetyRefusal("refusing to write to " + name + ": it carries " +
                          join_with_articles(signatures) +
                          "; pass --force (with --allow-destructive) to overwrite it");
  }
  fit_range(request, name, capacity, admitted);
  if (request.writes) lock_whole_disk(resolved, admitted);
  return admitted;
}

AdmittedTarget SafetyGuard::admit_file(const GuardRequest& request) const {
  if (request.writes && !request.allow_destructive)
    throw SafetyRefusal("refusing to write to existing file " + request.target +
                        ": pass --allow-destructive to overwrite it, or name a directory to "
                        "write to a scratch file");
  AdmittedTarget admitted;
  admitted.kind = AdmittedKind::ExistingFile;
  admitted.path = request.target;
  try {
    if (sysfs_.is_live()) admitted.device = sysfs_.resolve(request.target).device;
  } catch (const ResolveError&) {
  }
  struct stat st {};
  if (::stat(request.target.c_str(), &st) != 0)
    throw SafetyRefusal(request.target + ": " + std::strerror(errno));
  fit_range(request, "file " + request.target, static_cast<std::uint64_t>(st.st_size), admitted);
  return admitted;
}

AdmittedTarget SafetyGuard::admit_directory(const GuardRequest& request) const {
  if (request.size == 0)
    throw SafetyRefusal("directory target " + request.target +
                        " needs a size for its scratch file (--size)");
  AdmittedTarget admitted;
  admitted.kind = AdmittedKind::ScratchFile;
  try {
    if (sysfs_.is_live()) admitted.device = sysfs_.resolve(request.target).device;
  } catch (const ResolveError&) {
  }
  admitted.scratch_ = std::make_unique<ScratchFile>(request.target, request.offset + request.size);
  admitted.path = admitted.scratch_->path().string();
  fit_range(request, "scratch file " + admitted.path, admitted.scratch_->size(), admitted);
  return admitted;
}

}  // namespace storqual::devices
