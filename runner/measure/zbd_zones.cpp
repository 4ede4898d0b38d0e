// SPDX-License-Identifier: Apache-2.0
// fio's zonemode=zbd reads (zbd_zones.hpp): the zone report and the read walk.
#include "runner/measure/zbd_zones.hpp"

#include <fcntl.h>
#include <linux/blkzoned.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "runner/base/units.hpp"

namespace storqual::runner {

namespace {

constexpr std::size_t kHeader = sizeof(blk_zone_report), kZone = sizeof(blk_zone);
static_assert(kHeader == 16 && kZone == 64, "struct blk_zone_report / blk_zone as the kernel's");

std::uint64_t le_field(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);  // the ioctl's own struct: host byte order
  return v;
}

std::string sysfs_zoned(const struct stat& st) {
  const std::string dev =
      std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
  for (const char* q : {"/queue/zoned", "/../queue/zoned"}) {  // a partition: its disk's
    std::ifstream in("/sys/dev/block/" + dev + q);
    std::string model;
    if (in >> model) return model;
  }
  return "";
}

}  // namespace

std::uint64_t ZbdZone::readable_end() const noexcept {
  if (cond == BLK_ZONE_COND_OFFLINE) return start;
  if (type == BLK_ZONE_TYPE_CONVENTIONAL || cond == BLK_ZONE_COND_NOT_WP ||
      cond == BLK_ZONE_COND_FULL)
    return start + capacity;
  return wp;
}

std::vector<ZbdZone> decode_zone_report(std::span<const unsigned char> raw) {
  if (raw.size() < kHeader)
    throw UnitError("zone report: " + std::to_string(raw.size()) + " bytes, shorter than its " +
                    std::to_string(kHeader) + "-byte header");
  std::uint32_t nr = 0, flags = 0;
  std::memcpy(&nr, raw.data() + 8, 4);
  std::memcpy(&flags, raw.data() + 12, 4);
  if (nr > (raw.size() - kHeader) / kZone)
    throw UnitError("zone report: " + std::to_string(nr) + " zones do not fit its " +
                    std::to_string(raw.size()) + " bytes");
  std::vector<ZbdZone> out;
  out.reserve(nr);
  for (std::uint32_t k = 0; k < nr; ++k) {
    const unsigned char* z = raw.data() + kHeader + k * kZone;
    const std::uint64_t start = le_field(z), len = le_field(z + 8), wp = le_field(z + 16);
    const std::uint64_t cap = (flags & BLK_ZONE_REP_CAPACITY) ? le_field(z + 32) : len;
    constexpr std::uint64_t kMax = UINT64_MAX >> 9;
    if (len == 0 || start > kMax - len || cap > len)
      throw UnitError("zone report: zone " + std::to_string(k) + " at sector " +
                      std::to_string(start) + " has length " + std::to_string(len) +
                      " and capacity " + std::to_string(cap) + " sectors");
    ZbdZone zone{start << 9, len << 9, cap << 9, wp << 9, z[24], z[25]};
    const bool has_wp = zone.type != BLK_ZONE_TYPE_CONVENTIONAL &&
                        zone.cond != BLK_ZONE_COND_NOT_WP && zone.cond != BLK_ZONE_COND_FULL &&
                        zone.cond != BLK_ZONE_COND_OFFLINE;
    if (has_wp && (wp < start || wp > start + cap))
      throw UnitError("zone report: zone " + std::to_string(k) + " at sector " +
                      std::to_string(start) + " has its write pointer at sector " +
                      std::to_string(wp) + ", outside it");
    out.push_back(zone);
  }
  return out;
}

ZbdReport read_zone_report(const std::string& target, std::uint64_t from, std::uint64_t to) {
  ZbdReport r;
  const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r.error = target + ": " + std::strerror(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode)) {
    ::close(fd);
    r.model = "";
    return r;
  }
  r.model = sysfs_zoned(st);
  std::uint32_t zone_sectors = 0;
  if (::ioctl(fd, BLKGETZONESZ, &zone_sectors) == 0)
    r.zone_bytes = std::uint64_t{zone_sectors} << 9;
  if (r.model.empty() || r.model == "none" || r.zone_bytes == 0) {
    ::close(fd);
    return r;
  }
  constexpr std::uint32_t kBatch = 256;
  std::vector<unsigned char> buf(kHeader + kBatch * kZone);
  std::uint64_t sector = from >> 9;
  while ((sector << 9) < to) {
    std::fill(buf.begin(), buf.end(), 0);
    blk_zone_report head{};
    head.sector = sector;
    head.nr_zones = kBatch;
    std::memcpy(buf.data(), &head, sizeof head);
    if (::ioctl(fd, BLKREPORTZONE, buf.data()) != 0) {
      r.error = target + ": BLKREPORTZONE at sector " + std::to_string(sector) + ": " +
                std::strerror(errno);
      break;
    }
    const std::vector<ZbdZone> got = decode_zone_report(buf);
    if (got.empty()) break;
    for (const ZbdZone& z : got)
      if (z.start < to) r.zones.push_back(z);
    sector = (got.back().start + got.back().len) >> 9;
  }
  ::close(fd);
  return r;
}

std::vector<ZbdRun> zbd_read_runs(std::span<const ZbdZone> zones, std::uint64_t offset,
                                  std::uint64_t size, std::uint64_t bs) {
  std::vector<ZbdRun> runs;
  const std::uint64_t end = offset + size;
  for (const ZbdZone& z : zones) {
    if (z.start + z.len <= offset || z.start >= end) continue;
    // The job's first I/O is at its offset; a later zone is read from its start, when it holds at
    // least one block of data (fio's zbd_find_zone).
    const std::uint64_t from = std::max(z.start, offset);
    const std::uint64_t readable = std::min(z.readable_end(), end);
    if (readable < from || readable - from < bs) continue;
    const std::uint64_t to = from + (readable - from) / bs * bs;
    if (!runs.empty() && runs.back().end == from)
      runs.back().end = to;
    else
      runs.push_back({from, to});
  }
  return runs;
}

ZbdReadWalk::ZbdReadWalk(std::vector<ZbdRun> runs, std::uint64_t offset, std::uint64_t bs)
    : runs_(std::move(runs)), offset_(offset), bs_(bs) {
  for (const ZbdRun& r : runs_) blocks_ += (r.end - r.start) / bs_;
  if (!runs_.empty()) pos_ = runs_.front().start;
}

std::uint64_t ZbdReadWalk::next() noexcept {
  if (runs_.empty()) return 0;
  const std::uint64_t at = pos_;
  pos_ += bs_;
  if (pos_ >= runs_[run_].end) {
    run_ = run_ + 1 == runs_.size() ? 0 : run_ + 1;
    pos_ = runs_[run_].start;
  }
  return (at - offset_) / bs_;
}

}  // namespace storqual::runner
