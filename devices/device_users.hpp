// SPDX-License-Identifier: Apache-2.0
// Who is using a block device on the running system: mounts (libmount, /proc/self/mountinfo),
// active swap (/proc/swaps through libmount), and holders in sysfs (device mapper, MD, LVM).
#pragma once

#include <string>
#include <vector>

#include "devices/sysfs.hpp"

namespace storqual::devices {

// One reason a device is in use, phrased for a message: "partition /dev/loop3p1 is mounted at
// /mnt/x", "/dev/loop4 is active swap", "/dev/sdb is held by dm-0".
struct DeviceUser {
  std::string device;       // "loop3p1"
  std::string description;  // the whole phrase
};

// Users of `device` and, when it is a whole disk, of each of its partitions. Reads the live mount
// and swap tables, so `sysfs` must be the live /sys (otherwise returns only sysfs holders).
[[nodiscard]] std::vector<DeviceUser> find_device_users(const Sysfs& sysfs,
                                                        const std::string& device);

}  // namespace storqual::devices
