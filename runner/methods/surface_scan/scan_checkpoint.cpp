// SPDX-License-Identifier: Apache-2.0
// The surface scan's checkpoint file: written atomically, read back with every field checked (see
// scan_checkpoint.hpp).
#include "runner/methods/surface_scan/scan_checkpoint.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "model/errors.hpp"
#include "reporting/atomic_file.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/surface_scan/surface_scan_json.hpp"

namespace storqual::runner {
namespace {

using reporting::json::Json;
using reporting::json::kRequired;
using reporting::json::Node;

// The read pass's integrity classes so far (the fields of reporting::IntegrityReport a scan
// fills).
struct CheckpointIntegrity {
  std::uint64_t corrupted = 0, misplaced = 0, stale = 0, foreign = 0, read_errors = 0;
  std::uint64_t verified = 0;
  std::vector<reporting::IntegrityFinding> findings;
};

void visit_fields(reporting::json::Either<CheckpointIntegrity> auto& i, auto&& visit) {
  visit("corrupted", i.corrupted);
  visit("misplaced", i.misplaced);
  visit("stale", i.stale);
  visit("foreign", i.foreign);
  visit("read_errors", i.read_errors);
  visit("verified", i.verified);
  visit("findings", i.findings);
}

struct CheckpointFile {
  int storqual_checkpoint = 0;
  std::string kind, device, suite, workload, phase;
  std::uint64_t next_offset = 0;
  SurfaceScanReport progress;
  CheckpointIntegrity integrity;
};

void visit_fields(reporting::json::Either<CheckpointFile> auto& f, auto&& visit) {
  visit({"storqual_checkpoint", kRequired}, f.storqual_checkpoint);
  visit({"kind", kRequired}, f.kind);
  visit({"device", kRequired}, f.device);
  visit({"suite", kRequired}, f.suite);
  visit({"workload", kRequired}, f.workload);
  visit({"phase", kRequired}, f.phase);
  visit({"next_offset", kRequired}, f.next_offset);
  visit({"progress", kRequired}, f.progress);
  visit({"integrity", kRequired}, f.integrity);
}

constexpr int kMaxDepth = 16;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError("checkpoint " + path + ": " + why);
}

// Region, block size, bins and algorithm: what the scan's layout must be.
void check_layout(const SurfaceScanReport& p, const std::string& path) {
  if (p.block_size < kMinVerifiedBlock || p.block_size > kMaxBlockSize)
    refuse(path, "progress.block_size " + std::to_string(p.block_size) + " is not 64..256m");
  if (p.lba_size == 0 || p.lba_size > p.block_size || p.block_size % p.lba_size)
    refuse(path,
           "progress.lba_size " + std::to_string(p.lba_size) + " does not divide the block size");
  if (p.region_size == 0 || p.region_size % p.block_size)
    refuse(path, "progress.region_size " + std::to_string(p.region_size) +
                     " is not a whole number of blocks");
  if (p.region_offset > UINT64_MAX - p.region_size) refuse(path, "progress.region_offset too big");
  if (p.run_id == 0) refuse(path, "progress.run_id is 0");
  if (p.sessions == 0) refuse(path, "progress.sessions is 0");
  try {
    if (parse_verify_algorithm(p.algorithm) == VerifyAlgorithm::None)
      refuse(path, "progress.algorithm is none");
  } catch (const UnitError& e) {
    refuse(path, std::string("progress.algorithm: ") + e.what());
  }
  if (p.read_classes.size() != kScanClasses)
    refuse(path, "progress.read_classes has " + std::to_string(p.read_classes.size()) +
                     " classes, not " + std::to_string(kScanClasses));
  if (p.bins.empty() || p.bins.size() > 100000)
    refuse(path, "progress.bins: expected 1..100000 bins, got " + std::to_string(p.bins.size()));
  const auto layout =
      scan_bins(p.region_offset, p.region_size, p.block_size, static_cast<unsigned>(p.bins.size()));
  if (layout.size() != p.bins.size())
    refuse(path, "progress.bins do not tile the region in " + std::to_string(p.bins.size()));
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const ScanBin& b = p.bins[i];
    if (b.offset != layout[i].offset || b.bytes != layout[i].bytes)
      refuse(path, "progress.bins[" + std::to_string(i) + "] is not where the region's bin " +
                       std::to_string(i) + " is");
    if (b.write_bytes > b.bytes || b.read_bytes > b.bytes)
      refuse(path, "progress.bins[" + std::to_string(i) + "] holds more bytes than its range");
  }
  for (double s : {p.write_seconds, p.read_seconds})
    if (!std::isfinite(s) || s < 0) refuse(path, "progress: pass seconds must be finite and >= 0");
}

// The counts against the phase and offset: every block before next_offset done once, none after.
void check_counts(const CheckpointFile& f, const std::string& path) {
  const SurfaceScanReport& p = f.progress;
  const std::uint64_t blocks = p.region_size / p.block_size;
  if (f.next_offset > p.region_size || f.next_offset % p.block_size)
    refuse(path, "next_offset " + std::to_string(f.next_offset) +
                     " is not a block boundary inside the region of " +
                     std::to_string(p.region_size) + " bytes");
  std::uint64_t classed = 0;
  for (std::uint64_t c : p.read_classes) {
    if (c > blocks) refuse(path, "progress.read_classes count more blocks than the region has");
    classed += c;
  }
  auto blocks_of = [&](std::uint64_t bytes, std::uint64_t errors) {
    if (bytes % p.block_size || bytes > p.region_size || errors > blocks)
      refuse(path, "progress byte or error counts that are not whole blocks of the region");
    return bytes / p.block_size + errors;
  };
  const std::uint64_t written = blocks_of(p.bytes_written, p.write_errors);
  const std::uint64_t read = blocks_of(p.bytes_read, p.read_errors);
  const std::uint64_t done = f.next_offset / p.block_size;
  if (f.phase == "write") {
    if (written != done || read != 0 || classed != 0)
      refuse(path, "the write phase's counts (" + std::to_string(written) + " blocks written, " +
                       std::to_string(read) + " read) do not match " + "next_offset (" +
                       std::to_string(done) + " blocks)");
  } else if (f.phase == "read") {
    if (written != blocks || read != done || classed != done)
      refuse(path, "the read phase's counts (" + std::to_string(written) + " of " +
                       std::to_string(blocks) + " blocks written, " + std::to_string(read) +
                       " read, " + std::to_string(classed) + " timed) do not match next_offset (" +
                       std::to_string(done) + " blocks)");
  } else {
    refuse(path, "phase '" + f.phase + "': expected write or read");
  }
  const CheckpointIntegrity& i = f.integrity;
  if (i.verified > done || i.read_errors > done)
    refuse(path, "integrity counts more blocks than were read");
  if (i.findings.size() > IntegrityTally::kMaxFindings)
    refuse(path, "integrity: too many findings");
}

Json parse_json(std::string_view text, const std::string& path) {
  try {
    return Json::parse(text, [](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth) throw UsageError("nested deeper than 16 levels");
      return true;
    });
  } catch (const Json::exception& e) {
    refuse(path, std::string("not JSON (cut short or damaged?): ") + e.what());
  } catch (const UsageError& e) {
    refuse(path, e.what());
  }
}

}  // namespace

std::string checkpoint_text(const ScanCheckpoint& c) {
  CheckpointFile f;
  f.storqual_checkpoint = kScanCheckpointFormat;
  f.kind = "surface-scan";
  f.device = c.device;
  f.suite = c.suite;
  f.workload = c.workload;
  f.phase = c.phase == ScanPhase::Write ? "write" : "read";
  f.next_offset = c.next_offset;
  f.progress = c.progress;
  const reporting::IntegrityReport& r = c.integrity;
  f.integrity = {r.corrupted,   r.misplaced,       r.stale,   r.foreign,
                 r.read_errors, r.verified_at_end, r.findings};
  Json j = reporting::json::value_json(f);
  return j.dump(1) + "\n";
}

ScanCheckpoint parse_scan_checkpoint(std::string_view text, const std::string& path) {
  const Json j = parse_json(text, path);
  CheckpointFile f;
  try {
    reporting::json::read_value(Node(j), f);
  } catch (const reporting::ResultJsonError& e) {
    refuse(path, e.what());
  }
  if (f.storqual_checkpoint != kScanCheckpointFormat)
    refuse(path, "format " + std::to_string(f.storqual_checkpoint) + ", this storqual reads " +
                     std::to_string(kScanCheckpointFormat));
  if (f.kind != "surface-scan") refuse(path, "kind '" + f.kind + "', not a surface scan's");
  check_layout(f.progress, path);
  check_counts(f, path);
  ScanCheckpoint c;
  c.device = f.device;
  c.suite = f.suite;
  c.workload = f.workload;
  c.phase = f.phase == "write" ? ScanPhase::Write : ScanPhase::Read;
  c.next_offset = f.next_offset;
  c.progress = std::move(f.progress);
  reporting::IntegrityReport& r = c.integrity;
  r.algorithm = c.progress.algorithm;
  r.run_id = c.progress.run_id;
  r.corrupted = f.integrity.corrupted;
  r.misplaced = f.integrity.misplaced;
  r.stale = f.integrity.stale;
  r.foreign = f.integrity.foreign;
  r.read_errors = f.integrity.read_errors;
  r.verified_at_end = f.integrity.verified;
  r.findings = std::move(f.integrity.findings);
  return c;
}

ScanCheckpoint read_scan_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) refuse(path, "cannot be read");
  return parse_scan_checkpoint(text.str(), path);
}

void write_scan_checkpoint(const std::string& path, const ScanCheckpoint& c) {
  // The reports' directory is made when they are written, after the scan: the checkpoint may be
  // its first file.
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  reporting::write_file_atomically(path, checkpoint_text(c));
}

void check_checkpoint_matches(const ScanCheckpoint& c, const ScanCheckpoint& expected,
                              const std::string& path) {
  auto differs = [&](const char* what, const std::string& found, const std::string& want) {
    if (found != want)
      refuse(path, "it is of another " + std::string(what) + " ('" + found + "', this run's is '" +
                       want + "'); remove it to start the scan over");
  };
  differs("device", c.device, expected.device);
  differs("suite", c.suite, expected.suite);
  differs("workload", c.workload, expected.workload);
  const SurfaceScanReport& p = c.progress;
  const SurfaceScanReport& e = expected.progress;
  differs("region",
          std::to_string(p.region_offset) + "+" + std::to_string(p.region_size) + " bytes",
          std::to_string(e.region_offset) + "+" + std::to_string(e.region_size) + " bytes");
  differs("block size", std::to_string(p.block_size), std::to_string(e.block_size));
  differs("verify algorithm", p.algorithm, e.algorithm);
  differs("chart resolution", std::to_string(p.bins.size()), std::to_string(e.bins.size()));
}

}  // namespace storqual::runner
