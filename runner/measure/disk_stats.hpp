// SPDX-License-Identifier: Apache-2.0
// The disk's own counters around a workload, as fio's "Disk stats" line: /sys/block/DEV/stat
// (Documentation/block/stat.rst in the kernel) read before and after, for the block device a
// target is (or, for a file, the device of its filesystem, as fio reports).
//
// Contract: snapshots are plain reads of one sysfs file; a target with no block device behind it
// (the null engine, tmpfs, an overlay), or whose disk does not count (queue/iostats 0, as an NVMe
// multipath head), has none, and the report then has no disk stats line.
// Utilisation is io_ticks (time the device had I/O in flight) over the wall time between the two
// snapshots, capped at 100%.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "model/result.hpp"

namespace storqual::runner {

struct DiskCounters {
  std::string name;  // "zram0", "vda"
  std::uint64_t read_ios = 0, read_merges = 0, read_sectors = 0, read_ticks_ms = 0;
  std::uint64_t write_ios = 0, write_merges = 0, write_sectors = 0, write_ticks_ms = 0;
  std::uint64_t io_ticks_ms = 0, time_in_queue_ms = 0;
  std::uint64_t taken_ns = 0;  // CLOCK_MONOTONIC when read
};

// Parses the stat file's text (11 or more whitespace-separated numbers); nullopt when malformed.
[[nodiscard]] std::optional<DiskCounters> parse_disk_stat(const std::string& name,
                                                          const std::string& text);

// The counters of the block device behind `target` (a device node or a file on a block-backed
// filesystem), from `sysfs_root`/dev/block/MAJ:MIN/stat (a partition's own counters). nullopt
// when there is none.
[[nodiscard]] std::optional<DiskCounters> read_disk_counters(
    const std::string& target, const std::filesystem::path& sysfs_root = "/sys");

// after - before as fio prints it; util over the wall time between the two.
[[nodiscard]] reporting::DiskStats disk_stats_between(const DiskCounters& before,
                                                      const DiskCounters& after);

}  // namespace storqual::runner
