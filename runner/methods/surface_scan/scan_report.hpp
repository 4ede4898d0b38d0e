// SPDX-License-Identifier: Apache-2.0
// What the surface scan finds (docs/burn-in.md): the read-time classes, the bins of the LBA chart,
// slow regions and blocks, and SurfaceScanReport, which is both the scan's report in a result and
// its progress in a checkpoint. Below the method's face (surface_scan.hpp), so that the checkpoint
// (scan_checkpoint.hpp) and the JSON codec (surface_scan_json.hpp) read it without the method.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

// The upper bounds of the read-time classes (ms); a read at or above the last is in the sixth
// class, a failed read in the seventh (errors).
inline constexpr std::array<double, 5> kScanClassBoundsMs = {5, 20, 50, 150, 500};
inline constexpr std::size_t kScanClasses = kScanClassBoundsMs.size() + 2;
inline constexpr std::size_t kScanErrorClass = kScanClasses - 1;
// A block read this slow or slower is listed by LBA among the slowest blocks.
inline constexpr std::size_t kSlowBlockClass = 4;  // 150 ms and over
inline constexpr std::size_t kMaxSlowBlocks = 32;
// A bin slower than this share of the median bin's read rate is part of a slow region.
inline constexpr double kSlowRegionShare = 0.5;

// The class of a read that took `ns` (0 .. kScanErrorClass - 1).
[[nodiscard]] std::size_t scan_latency_class(std::uint64_t ns) noexcept;
// "< 5 ms", "< 20 ms", ..., ">= 500 ms", "errors".
[[nodiscard]] std::string scan_class_label(std::size_t c);

// One bin of the LBA chart: bytes [offset, offset + bytes) of the region (absolute offsets), what
// each pass moved there and the time its I/Os took.
struct ScanBin {
  std::uint64_t offset = 0, bytes = 0;
  std::uint64_t write_bytes = 0, write_ns = 0;
  std::uint64_t read_bytes = 0, read_ns = 0;
};

// About `points` bins of whole blocks over [region_offset, region_offset + region_size): the bin
// width is the smallest number of blocks that makes at most `points` bins; the last may be shorter.
[[nodiscard]] std::vector<ScanBin> scan_bins(std::uint64_t region_offset, std::uint64_t region_size,
                                             std::uint64_t bs, unsigned points);
// The bin that holds `offset` (bins as scan_bins made them: equal widths but the last).
[[nodiscard]] std::size_t scan_bin_of(const std::vector<ScanBin>& bins,
                                      std::uint64_t offset) noexcept;
// A bin's rate in B/s (bytes over the I/O time), 0 without data.
[[nodiscard]] double bin_rate(std::uint64_t bytes, std::uint64_t ns) noexcept;

// A run of bins read slower than kSlowRegionShare of the median bin, by logical block address.
struct SlowRegion {
  std::uint64_t first_lba = 0, last_lba = 0;  // inclusive
  double read_bw = 0;                         // its bytes over its read time
  double share_of_median = 0;                 // read_bw / the median bin's
};
// A block read in kSlowBlockClass or slower, or failed.
struct SlowBlock {
  std::uint64_t lba = 0;
  std::uint64_t ns = 0;
  int error = 0;  // errno of a failed read, else 0
};

// The slow regions of `bins` (read rates), LBAs in units of `lba_size`.
[[nodiscard]] std::vector<SlowRegion> find_slow_regions(const std::vector<ScanBin>& bins,
                                                        std::uint64_t lba_size);

// What the scan found (its report in the result, and its progress in a checkpoint).
struct SurfaceScanReport {
  std::uint64_t region_offset = 0, region_size = 0;
  std::uint64_t block_size = 0, lba_size = 512;
  std::uint64_t iodepth = 1;
  std::uint64_t run_id = 0;  // every header of this scan carries it (kept across resumes)
  std::string algorithm;     // xxh3 | crc32c
  std::uint64_t bytes_written = 0, bytes_read = 0;  // of blocks that completed in full
  std::uint64_t write_errors = 0, read_errors = 0;
  double write_seconds = 0, read_seconds = 0;  // the passes' own time, summed over sessions
  std::vector<std::uint64_t> read_classes = std::vector<std::uint64_t>(kScanClasses, 0);
  std::vector<ScanBin> bins;
  std::vector<SlowRegion> slow_regions;  // filled when the read pass is over
  std::vector<SlowBlock> slowest;        // the first kMaxSlowBlocks by LBA
  std::uint64_t sessions = 1;            // 1 + the times it was resumed
};

// Adds the scan's figures to `out` when both passes are over (scan.write_bw, scan.read_bw,
// scan.min_read_bw); nothing for a scan that was interrupted.
void add_scan_figures(const SurfaceScanReport& r, std::vector<reporting::Figure>& out);
// The class table as console text: one line per class with count and share.
[[nodiscard]] std::string scan_class_table(const SurfaceScanReport& r);
// "read 1 GiB at 812 MB/s (slowest bin 640 MB/s), 8192 reads: 8190 < 5 ms, 2 < 20 ms; 0 slow
// regions".
[[nodiscard]] std::string scan_summary(const SurfaceScanReport& r);

}  // namespace storqual::runner
