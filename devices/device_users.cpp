// SPDX-License-Identifier: Apache-2.0
// Mount, swap and holder lookup (see device_users.hpp).
#include "devices/device_users.hpp"

#include <libmount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <memory>

namespace storqual::devices {
namespace {

struct Member {
  std::string name;
  dev_t devno = 0;
  bool partition = false;
};

std::string label(const Member& m) {
  return (m.partition ? "partition /dev/" : "/dev/") + m.name;
}

using Table = std::unique_ptr<libmnt_table, decltype(&mnt_unref_table)>;

}  // namespace

std::vector<DeviceUser> find_device_users(const Sysfs& sysfs, const std::string& device) {
  std::vector<Member> members;
  auto add_member = [&](const std::string& name, bool partition) {
    Member m{name, 0, partition};
    if (auto dev = sysfs.devnum(name)) {
      unsigned maj = 0, min = 0;
      if (std::sscanf(dev->c_str(), "%u:%u", &maj, &min) == 2) m.devno = makedev(maj, min);
    }
    members.push_back(m);
  };
  bool is_partition = sysfs.exists(sysfs.block_dir_relative(device) / "partition");
  add_member(device, is_partition);
  if (!is_partition)
    for (const auto& p : sysfs.partitions(device)) add_member(p, true);

  std::vector<DeviceUser> users;
  if (sysfs.is_live()) {
    Table mounts(mnt_new_table(), mnt_unref_table);
    if (mounts && mnt_table_parse_file(mounts.get(), "/proc/self/mountinfo") == 0) {
      libmnt_fs* fs = nullptr;
      std::unique_ptr<libmnt_iter, decltype(&mnt_free_iter)> it(mnt_new_iter(MNT_ITER_FORWARD),
                                                                mnt_free_iter);
      while (mnt_table_next_fs(mounts.get(), it.get(), &fs) == 0) {
        dev_t devno = mnt_fs_get_devno(fs);
        const char* src = mnt_fs_get_srcpath(fs);
        for (const auto& m : members) {
          bool same =
              (m.devno != 0 && devno == m.devno) || (src && std::string(src) == "/dev/" + m.name);
          if (!same) continue;
          const char* target = mnt_fs_get_target(fs);
          users.push_back({m.name, label(m) + " is mounted at " + (target ? target : "?")});
        }
      }
    }
    Table swaps(mnt_new_table(), mnt_unref_table);
    if (swaps && mnt_table_parse_swaps(swaps.get(), nullptr) == 0) {
      libmnt_fs* fs = nullptr;
      std::unique_ptr<libmnt_iter, decltype(&mnt_free_iter)> it(mnt_new_iter(MNT_ITER_FORWARD),
                                                                mnt_free_iter);
      while (mnt_table_next_fs(swaps.get(), it.get(), &fs) == 0) {
        const char* src = mnt_fs_get_srcpath(fs);
        if (!src) continue;
        struct stat st {};
        if (::stat(src, &st) != 0 || !S_ISBLK(st.st_mode)) continue;
        for (const auto& m : members)
          if (m.devno != 0 && st.st_rdev == m.devno)
            users.push_back({m.name, label(m) + " is active swap"});
      }
    }
  }
  for (const auto& m : members)
    for (const auto& h : sysfs.holders(m.name))
      users.push_back(
          {m.name, label(m) + " is held by " + h + " (device mapper, MD or LVM sits on it)"});
  return users;
}

}  // namespace storqual::devices
