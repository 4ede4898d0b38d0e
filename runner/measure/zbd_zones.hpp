// SPDX-License-Identifier: Apache-2.0
// fio's zonemode=zbd for reads (fio 3.33 zbd.c): a zoned block device's zone report, what of it a
// read job may read, and the walk of a sequential read with read_beyond_wp=0.
//
// Contract, as fio's:
// - The zone report is the kernel's (ioctl BLKREPORTZONE, <linux/blkzoned.h>): decoded from its
//   raw bytes (decode_zone_report, bounds-checked: a fuzz target) and converted to bytes.
// - A zone's readable end is its write pointer; a conventional zone's (no write pointer) and a
//   full zone's is its start + capacity, an offline zone's is its start (fio's parse_zone_info and
//   zbd_adjust_block's range).
// - A sequential read with read_beyond_wp=0 reads from the job's offset; an I/O that would end
//   past its zone's readable end goes to the start of the next zone of the region with at least
//   one block (bs) of data (zbd_find_zone, forward only); when there is none the job ends (fio's
//   io_u_eof). A size-based job so reads the written blocks of its region, at most size bytes; a
//   time-based one starts again at the first.
// - Not thread safe: one walk per job; next() is called once per I/O, out of the plain path
//   (runner/measure/offset_generator.hpp calls it from its shaped case).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace storqual::runner {

struct ZbdZone {
  std::uint64_t start = 0, len = 0, capacity = 0, wp = 0;  // bytes
  std::uint8_t type = 0;  // BLK_ZONE_TYPE_*: 1 conventional, 2 sequential required, 3 preferred
  std::uint8_t cond = 0;  // BLK_ZONE_COND_*: 1 empty, 2-3 open, 4 closed, 0xe full, 0xf offline
  [[nodiscard]] std::uint64_t readable_end() const noexcept;
};

// The zones of one BLKREPORTZONE answer: struct blk_zone_report's header, then nr_zones struct
// blk_zone of 64 bytes, in 512-byte sectors. Throws UnitError naming what is malformed (short,
// more zones than the buffer holds, a write pointer outside its zone).
[[nodiscard]] std::vector<ZbdZone> decode_zone_report(std::span<const unsigned char> raw);

// The kernel's zone model (sysfs queue/zoned: "host-managed", "host-aware"; "none" or "" for a
// target that is not zoned or not a block device), its zone size, and the zones from `from` to
// `to` (bytes). `error` says why none could be read.
struct ZbdReport {
  std::string model;
  std::uint64_t zone_bytes = 0;
  std::vector<ZbdZone> zones;
  std::string error;
};
[[nodiscard]] ZbdReport read_zone_report(const std::string& target, std::uint64_t from,
                                         std::uint64_t to);

// The bytes a sequential read job reads, in order: [start, end) runs, each a whole number of
// blocks of `bs`, inside [offset, offset + size).
struct ZbdRun {
  std::uint64_t start = 0, end = 0;
};
[[nodiscard]] std::vector<ZbdRun> zbd_read_runs(std::span<const ZbdZone> zones,
                                                std::uint64_t offset, std::uint64_t size,
                                                std::uint64_t bs);

class ZbdReadWalk {
 public:
  // Blocks of `bs` from `offset` (the job's region start), over the runs (zbd_read_runs).
  ZbdReadWalk(std::vector<ZbdRun> runs, std::uint64_t offset, std::uint64_t bs);
  // Every block of every run: the I/Os of a size-based job.
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  // The next I/O's block from `offset`; after the last run's last, the first run's first.
  [[nodiscard]] std::uint64_t next() noexcept;

 private:
  std::vector<ZbdRun> runs_;
  std::uint64_t offset_, bs_, blocks_ = 0;
  std::size_t run_ = 0;
  std::uint64_t pos_ = 0;  // the next byte to read, in runs_[run_]
};

}  // namespace storqual::runner
