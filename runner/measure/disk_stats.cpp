// SPDX-License-Identifier: Apache-2.0
// /sys/block/DEV/stat around a workload (see disk_stats.hpp).
#include "runner/measure/disk_stats.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "runner/measure/clock.hpp"

namespace storqual::runner {
namespace {

std::uint64_t delta(std::uint64_t after, std::uint64_t before) {
  return after >= before ? after - before : 0;  // a counter reset reads as nothing
}

}  // namespace

std::optional<DiskCounters> parse_disk_stat(const std::string& name, const std::string& text) {
  std::istringstream in(text);
  std::vector<std::uint64_t> v;
  std::uint64_t x = 0;
  while (in >> x) v.push_back(x);
  if (v.size() < 11) return std::nullopt;
  DiskCounters c;
  c.name = name;
  c.read_ios = v[0];
  c.read_merges = v[1];
  c.read_sectors = v[2];
  c.read_ticks_ms = v[3];
  c.write_ios = v[4];
  c.write_merges = v[5];
  c.write_sectors = v[6];
  c.write_ticks_ms = v[7];
  c.io_ticks_ms = v[9];
  c.time_in_queue_ms = v[10];
  return c;
}

std::optional<DiskCounters> read_disk_counters(const std::string& target,
                                               const std::filesystem::path& sysfs_root) {
  struct stat st {};
  if (target.empty() || ::stat(target.c_str(), &st) != 0) return std::nullopt;
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  const std::filesystem::path node =
      sysfs_root / "dev" / "block" /
      (std::to_string(major(dev)) + ":" + std::to_string(minor(dev)));
  // A disk that does not count its I/O (queue/iostats 0: an NVMe multipath head by default, whose
  // paths count instead) would show zeros as if it had done nothing: it has no stats. A
  // partition's queue/ is its disk's.
  for (const auto& queue : {node / "queue" / "iostats", node / ".." / "queue" / "iostats"}) {
    std::ifstream q(queue);
    int on = 1;
    if (q >> on) {
      if (on == 0) return std::nullopt;
      break;
    }
  }
  std::ifstream f(node / "stat");
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(node, ec);
  auto c = parse_disk_stat(ec ? node.filename().string() : real.filename().string(), text.str());
  if (c) c->taken_ns = monotonic_now_ns();
  return c;
}

reporting::DiskStats disk_stats_between(const DiskCounters& before, const DiskCounters& after) {
  reporting::DiskStats d;
  d.name = after.name;
  d.read_ios = delta(after.read_ios, before.read_ios);
  d.write_ios = delta(after.write_ios, before.write_ios);
  d.read_merges = delta(after.read_merges, before.read_merges);
  d.write_merges = delta(after.write_merges, before.write_merges);
  d.read_ticks_ms = delta(after.read_ticks_ms, before.read_ticks_ms);
  d.write_ticks_ms = delta(after.write_ticks_ms, before.write_ticks_ms);
  d.in_queue_ms = delta(after.time_in_queue_ms, before.time_in_queue_ms);
  d.io_ticks_ms = delta(after.io_ticks_ms, before.io_ticks_ms);
  const double wall_ms = static_cast<double>(delta(after.taken_ns, before.taken_ns)) / 1e6;
  d.util_pct =
      wall_ms > 0 ? std::min(100.0, static_cast<double>(d.io_ticks_ms) / wall_ms * 100) : 0;
  return d;
}

}  // namespace storqual::runner
