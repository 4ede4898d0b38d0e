// SPDX-License-Identifier: Apache-2.0
// The surface scan's checkpoint (docs/burn-in.md, "The checkpoint"): what an interrupted scan had
// done, kept beside the reports so that `storqual run --resume` continues it.
//
// The file is JSON: {"storqual_checkpoint": 1, "kind": "surface-scan", "device", "suite",
// "workload", "phase": "write"|"read", "next_offset" (bytes of the region done in that phase, a
// whole number of blocks), "progress": the scan's report so far (scan_report.hpp
// SurfaceScanReport: region, block size, run id, counts, classes, bins), "integrity": the read
// pass's integrity classes so far}. Writing is atomic: a temporary file beside it, fsync, rename,
// fsync of the directory; a stop at any moment leaves the old file or the new one.
//
// Reading refuses, with a UsageError that names the file: a file that is not JSON, is cut short,
// lacks a key or has one of the wrong type, another format or kind, a phase or offset that cannot
// be (past the region, not on a block, bins that do not tile the region, class counts that do not
// add up to the blocks read), and (check_checkpoint_matches) a checkpoint of another device,
// suite, workload or region, block size or verify algorithm.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.hpp"
#include "runner/methods/surface_scan/scan_report.hpp"

namespace storqual::runner {

inline constexpr int kScanCheckpointFormat = 1;

enum class ScanPhase { Write, Read };

struct ScanCheckpoint {
  std::string device, suite, workload;
  ScanPhase phase = ScanPhase::Write;
  std::uint64_t next_offset = 0;  // bytes of the region done in `phase`
  SurfaceScanReport progress;
  reporting::IntegrityReport integrity;
};

// The file's text.
[[nodiscard]] std::string checkpoint_text(const ScanCheckpoint& c);
// Parses and validates `text` read from `path` (named in every error). Throws UsageError.
[[nodiscard]] ScanCheckpoint parse_scan_checkpoint(std::string_view text, const std::string& path);
// Reads `path`; throws UsageError naming it when it cannot be read or parsed.
[[nodiscard]] ScanCheckpoint read_scan_checkpoint(const std::string& path);
// Writes `c` to `path` atomically (temporary file, fsync, rename, directory fsync), making its
// directory first. Throws std::system_error naming the file.
void write_scan_checkpoint(const std::string& path, const ScanCheckpoint& c);
// Throws UsageError naming `path` when `c` is not of this device, suite, workload, region, block
// size and algorithm (`expected` holds them: its progress's region, bs and algorithm).
void check_checkpoint_matches(const ScanCheckpoint& c, const ScanCheckpoint& expected,
                              const std::string& path);

}  // namespace storqual::runner
