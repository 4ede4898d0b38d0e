// SPDX-License-Identifier: Apache-2.0
// The power-cut indicators that need no cut (powercut_indicators.hpp).
#include "runner/methods/power_cut/powercut_indicators.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>

#include "model/errors.hpp"
#include "model/quantity_format.hpp"
#include "runner/measure/clock.hpp"

namespace storqual::runner {

namespace {

using reporting::format_fixed;

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

class RawTarget {
 public:
  explicit RawTarget(const std::string& path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open " + path + ": " + std::strerror(errno), kExitRuntime);
    buf_.reset(static_cast<unsigned char*>(std::aligned_alloc(4096, kChunk)));
    std::mt19937_64 rng(std::random_device{}());
    for (std::size_t i = 0; i < kChunk; i += 8) {
      const std::uint64_t v = rng();
      std::memcpy(buf_.get() + i, &v, 8);
    }
  }
  ~RawTarget() { ::close(fd_); }
  RawTarget(const RawTarget&) = delete;
  RawTarget& operator=(const RawTarget&) = delete;

  void write(std::uint64_t offset, std::size_t bytes, int flags) {
    buf_.get()[0] ^= 1;  // no two writes alike
    iovec v{buf_.get(), bytes};
    ssize_t n;
    do {
      n = ::pwritev2(fd_, &v, 1, static_cast<off_t>(offset), flags);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(bytes))
      throw Error("indicator write at " + std::to_string(offset) +
                      " failed: " + (n < 0 ? std::strerror(errno) : "short write"),
                  kExitRuntime);
  }
  void flush() {
    if (::fdatasync(fd_) != 0)
      throw Error(std::string("indicator flush failed: ") + std::strerror(errno), kExitRuntime);
  }

  static constexpr std::size_t kChunk = 1 << 20;

 private:
  int fd_ = -1;
  std::unique_ptr<unsigned char, decltype(&std::free)> buf_{nullptr, &std::free};
};

double seconds_since(std::uint64_t start_ns) {
  return static_cast<double>(monotonic_now_ns() - start_ns) / 1e9;
}

SyncLatency time_sync_writes(RawTarget& t, std::uint64_t offset, std::uint64_t size, unsigned n,
                             int flags) {
  std::vector<double> lat;
  const std::uint64_t blocks = size / 4096;
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t start = monotonic_now_ns();
    t.write(offset + (i % blocks) * 4096, 4096, flags);
    lat.push_back(static_cast<double>(monotonic_now_ns() - start));
  }
  SyncLatency s;
  s.writes = n;
  if (lat.empty()) return s;
  double sum = 0;
  for (double v : lat) sum += v;
  s.mean_ns = sum / static_cast<double>(lat.size());
  std::sort(lat.begin(), lat.end());
  s.p99_ns = lat[std::min(lat.size() - 1, lat.size() * 99 / 100)];
  s.max_ns = lat.back();
  return s;
}

}  // namespace

CacheSetting read_cache_setting(const std::string& sysfs_root, const std::string& disk) {
  CacheSetting c;
  c.disk = disk;
  if (disk.empty()) return c;
  const std::string q = sysfs_root + "/block/" + disk + "/queue/";
  c.write_cache = read_line(q + "write_cache");
  c.fua = read_line(q + "fua");
  return c;
}

void time_flushes_and_sync_writes(const std::string& path, std::uint64_t offset, std::uint64_t size,
                                  const std::vector<std::uint64_t>& dirty, unsigned sync_writes,
                                  PowercutIndicators& out) {
  RawTarget t(path);
  t.flush();  // start from a clean cache
  for (const std::uint64_t want : dirty) {
    const std::uint64_t bytes = std::min(want, size) / RawTarget::kChunk * RawTarget::kChunk;
    FlushTiming f;
    f.dirty_bytes = bytes;
    const std::uint64_t start = monotonic_now_ns();
    for (std::uint64_t at = 0; at < bytes; at += RawTarget::kChunk)
      t.write(offset + at, RawTarget::kChunk, 0);
    f.write_s = seconds_since(start);
    const std::uint64_t flush_start = monotonic_now_ns();
    t.flush();
    f.flush_s = seconds_since(flush_start);
    out.flushes.push_back(f);
  }
  out.plain = time_sync_writes(t, offset, size, sync_writes, 0);
  out.dsync = time_sync_writes(t, offset, size, sync_writes, RWF_DSYNC);
}

void judge_indicators(PowercutIndicators& in) {
  const bool write_back = in.cache.write_cache == "write back";
  for (const auto& f : in.flushes) {
    if (f.dirty_bytes < kSuspiciousDirty || f.flush_s * 1e9 >= kQuickFlushNs) continue;
    in.warnings.push_back(
        "a flush after " + format_fixed(static_cast<double>(f.dirty_bytes) / (1 << 20), 0) +
        " MiB returned in " + format_fixed(f.flush_s * 1e6, 1) + " us" +
        (write_back ? ": with a write-back cache that held them, an honest flush takes time "
                      "(the writes went through, or the flush is not honoured)"
                    : ": expected with a write-through cache"));
  }
  if (write_back && in.dsync.writes && in.plain.writes && in.dsync.mean_ns < in.plain.mean_ns * 1.1)
    in.warnings.push_back(
        "QD1 writes with RWF_DSYNC are as fast as without on a write-back cache: FUA or the "
        "flush may not reach the media");
  if (in.nvme && !in.nvme->volatile_write_cache && write_back)
    in.warnings.push_back("identify says no volatile write cache, sysfs says write back");
  if (in.cache.write_cache == "write back" && in.cache.fua == "0")
    in.warnings.push_back(
        "a write-back cache without FUA: every FUA write becomes a write and a "
        "flush");
}

std::string format_indicators(const PowercutIndicators& in) {
  std::string s = "indicators (not a pass: only a power cut proves what a drive keeps)\n";
  s += "  write cache (sysfs queue/write_cache): " +
       (in.cache.write_cache.empty() ? std::string("unknown") : in.cache.write_cache) +
       ", FUA (queue/fua): " + (in.cache.fua.empty() ? std::string("unknown") : in.cache.fua) +
       (in.cache.disk.empty() ? std::string() : " [" + in.cache.disk + "]") + "\n";
  if (in.nvme)
    s += std::string("  NVMe volatile write cache (identify VWC): ") +
         (in.nvme->volatile_write_cache ? "present" : "absent") +
         ", atomic write unit on power fail (AWUPF+1): " + std::to_string(in.nvme->awupf_blocks) +
         " blocks\n";
  for (const auto& f : in.flushes) {
    const double mib = static_cast<double>(f.dirty_bytes) / (1 << 20);
    s += "  flush after " + format_fixed(mib, 0) + " MiB: " + format_fixed(f.flush_s * 1e3, 3) +
         " ms (written at " + format_fixed(f.write_s > 0 ? mib / f.write_s : 0, 1) + " MiB/s in " +
         format_fixed(f.write_s, 3) + " s)\n";
  }
  auto lat = [](const char* what, const SyncLatency& l) {
    return std::string("  QD1 4 KiB ") + what + ": mean " + format_fixed(l.mean_ns / 1e3, 1) +
           " us, p99 " + format_fixed(l.p99_ns / 1e3, 1) + " us, max " +
           format_fixed(l.max_ns / 1e3, 1) + " us over " + std::to_string(l.writes) + " writes\n";
  };
  if (in.plain.writes) s += lat("O_DIRECT writes", in.plain);
  if (in.dsync.writes) s += lat("O_DIRECT writes with RWF_DSYNC", in.dsync);
  for (const auto& w : in.warnings) s += "  warning (indicator): " + w + "\n";
  return s;
}

}  // namespace storqual::runner
