// SPDX-License-Identifier: Apache-2.0
// `storqual powercut indicators` (docs/power-cut.md, "Indicators without a cut"): what can be read
// or timed without cutting the power. Indicators, never a pass: a drive can look honest here and
// still lose flushed data at a cut.
//   - NVMe identify's VWC bit (a volatile write cache is present) and AWUPF, when there is one;
//   - the block layer's view of the cache: sysfs queue/write_cache ("write back" means the kernel
//     sends flushes) and queue/fua (whether the device takes FUA writes);
//   - how long a flush takes after N MiB of dirty data, against the sustained write speed of
//     those N MiB: a drive with a volatile cache that absorbed them must take time to flush; a
//     flush that returns in under kQuickFlushNs after kSuspiciousDirty or more is a warning (the
//     cache may not be flushed at all, or the writes went through);
//   - QD1 synchronous write latency: 4 KiB O_DIRECT writes with RWF_DSYNC (each a FUA write or a
//     write and a flush) against the same writes without.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storqual::runner {

inline constexpr double kQuickFlushNs = 1e6;
inline constexpr std::uint64_t kSuspiciousDirty = 64ull << 20;

struct CacheSetting {
  std::string disk;         // "sda", "" when the target is not on a block device we can name
  std::string write_cache;  // queue/write_cache: "write back", "write through", "" unreadable
  std::string fua;          // queue/fua: "1", "0", ""
};

struct FlushTiming {
  std::uint64_t dirty_bytes = 0;
  double write_s = 0;  // writing them (QD1 O_DIRECT 1 MiB writes)
  double flush_s = 0;  // the fdatasync after
};

struct SyncLatency {
  unsigned writes = 0;
  double mean_ns = 0, p99_ns = 0, max_ns = 0;
};

// From NVMe identify controller, when the target is an NVMe namespace.
struct NvmeCacheIdentity {
  bool volatile_write_cache = false;  // VWC bit 0
  std::uint32_t awupf_blocks = 1;     // AWUPF + 1
};

struct PowercutIndicators {
  CacheSetting cache;
  std::optional<NvmeCacheIdentity> nvme;
  std::vector<FlushTiming> flushes;
  SyncLatency dsync, plain;
  std::vector<std::string> warnings;
};

// Reads `sysfs_root`/block/DISK/queue/{write_cache,fua}.
[[nodiscard]] CacheSetting read_cache_setting(const std::string& sysfs_root,
                                              const std::string& disk);

// Times the flushes and the QD1 latencies on [offset, offset + size) of `path` (written!).
// `dirty` are the amounts to write before each flush (each at most `size`). Throws
// engines::EngineError-like storqual::Error (exit 3) when the target cannot be opened.
void time_flushes_and_sync_writes(const std::string& path, std::uint64_t offset, std::uint64_t size,
                                  const std::vector<std::uint64_t>& dirty, unsigned sync_writes,
                                  PowercutIndicators& out);

// The warnings of the figures (filled into out.warnings).
void judge_indicators(PowercutIndicators& out);

// The labelled lines: "indicator (not a pass): ...".
[[nodiscard]] std::string format_indicators(const PowercutIndicators& in);

}  // namespace storqual::runner
