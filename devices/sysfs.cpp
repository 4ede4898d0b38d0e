// SPDX-License-Identifier: Apache-2.0
// Sysfs reading and target resolution (see sysfs.hpp).
#include "devices/sysfs.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace storqual::devices {
namespace fs = std::filesystem;

Sysfs::Sysfs(fs::path root) : root_(std::move(root)) {}

bool Sysfs::is_live() const {
  std::error_code ec;
  return fs::equivalent(root_, "/sys", ec) && !ec;
}

std::optional<std::string> Sysfs::read(const fs::path& relative) const {
  std::ifstream in(root_ / relative, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

bool Sysfs::exists(const fs::path& relative) const {
  std::error_code ec;
  return fs::exists(root_ / relative, ec);
}

bool Sysfs::has_block_device(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return false;
  std::error_code ec;
  return fs::exists(root_ / "class/block" / name, ec) || fs::exists(root_ / "block" / name, ec);
}

fs::path Sysfs::block_dir(const std::string& name) const {
  if (!has_block_device(name))
    throw ResolveError("no block device '" + name + "' in " + root_.string());
  std::error_code ec;
  fs::path link = root_ / "class/block" / name;
  if (!fs::exists(link, ec)) link = root_ / "block" / name;
  fs::path dir = fs::canonical(link, ec);
  if (ec) throw ResolveError("cannot resolve " + link.string() + ": " + ec.message());
  return dir;
}

fs::path Sysfs::block_dir_relative(const std::string& name) const {
  std::error_code ec;
  fs::path root = fs::canonical(root_, ec);
  return block_dir(name).lexically_relative(ec ? root_ : root);
}

std::vector<std::string> Sysfs::disks() const {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path dir = fs::exists(root_ / "class/block", ec) ? root_ / "class/block" : root_ / "block";
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (fs::exists(entry.path() / "partition", ec)) continue;
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sysfs::partitions(const std::string& disk) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(block_dir(disk), ec)) {
    if (entry.is_directory(ec) && fs::exists(entry.path() / "partition", ec))
      out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sysfs::holders(const std::string& name) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(block_dir(name) / "holders", ec))
    out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> Sysfs::devnum(const std::string& name) const {
  return read(block_dir_relative(name) / "dev");
}

std::optional<std::string> Sysfs::name_of_devnum(unsigned major, unsigned minor) const {
  fs::path link = root_ / "dev/block" / (std::to_string(major) + ":" + std::to_string(minor));
  std::error_code ec;
  fs::path dir = fs::canonical(link, ec);
  if (ec) return std::nullopt;
  return dir.filename().string();
}

ResolvedTarget Sysfs::resolve_name(const std::string& target, const std::string& name,
                                   TargetKind kind) const {
  fs::path dir = block_dir(name);
  ResolvedTarget r;
  r.target = target;
  r.kind = kind;
  r.device = name;
  r.devnode = "/dev/" + name;
  std::error_code ec;
  r.is_partition = fs::exists(dir / "partition", ec);
  r.disk = r.is_partition ? dir.parent_path().filename().string() : name;
  return r;
}

ResolvedTarget Sysfs::resolve(const std::string& target) const {
  if (target.empty()) throw ResolveError("empty target");
  std::string bare = target.rfind("/dev/", 0) == 0 ? target.substr(5) : target;

  if (!is_live()) {
    if (has_block_device(bare)) return resolve_name(target, bare, TargetKind::BlockDevice);
    throw ResolveError("'" + target + "': no such block device in the sysfs tree " +
                       root_.string() + " (with --sysfs-root, name the target by device name)");
  }

  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    int err = errno;
    if (has_block_device(bare)) return resolve_name(target, bare, TargetKind::BlockDevice);
    throw ResolveError("'" + target + "': " + std::strerror(err));
  }
  dev_t dev = 0;
  TargetKind kind;
  if (S_ISBLK(st.st_mode)) {
    dev = st.st_rdev;
    kind = TargetKind::BlockDevice;
  } else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    dev = st.st_dev;
    kind = S_ISREG(st.st_mode) ? TargetKind::FileOnDevice : TargetKind::DirectoryOnDevice;
  } else {
    throw ResolveError("'" + target +
                       "' is neither a block device, a regular file nor a directory");
  }
  auto name = name_of_devnum(major(dev), minor(dev));
  if (!name) {
    throw ResolveError("'" + target + "' is on device " + std::to_string(major(dev)) + ":" +
                       std::to_string(minor(dev)) +
                       ", which is not a block device (tmpfs, overlay, btrfs subvolume or "
                       "network filesystem?)");
  }
  return resolve_name(target, *name, kind);
}

}  // namespace storqual::devices
