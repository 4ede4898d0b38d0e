// SPDX-License-Identifier: Apache-2.0
// The burn-in surface scan: a verified write pass and a read-and-verify pass over the region,
// every read timed into its class and every block's time into its LBA bin, kept in a checkpoint
// between chunks (see surface_scan.hpp).
#include "runner/methods/surface_scan/surface_scan.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "engines/engine.hpp"
#include "model/errors.hpp"
#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/block_io_driver.hpp"
#include "runner/measure/clock.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/surface_scan/scan_checkpoint.hpp"

namespace storqual::runner {

std::size_t scan_latency_class(std::uint64_t ns) noexcept {
  const double ms = static_cast<double>(ns) / 1e6;
  for (std::size_t i = 0; i < kScanClassBoundsMs.size(); ++i)
    if (ms < kScanClassBoundsMs[i]) return i;
  return kScanClassBoundsMs.size();
}

std::string scan_class_label(std::size_t c) {
  char text[32];
  if (c < kScanClassBoundsMs.size())
    std::snprintf(text, sizeof text, "< %g ms", kScanClassBoundsMs[c]);
  else if (c == kScanClassBoundsMs.size())
    std::snprintf(text, sizeof text, ">= %g ms", kScanClassBoundsMs.back());
  else
    std::snprintf(text, sizeof text, "errors");
  return text;
}

std::vector<ScanBin> scan_bins(std::uint64_t region_offset, std::uint64_t region_size,
                               std::uint64_t bs, unsigned points) {
  std::vector<ScanBin> bins;
  if (bs == 0) return bins;
  const std::uint64_t blocks = region_size / bs;
  const std::uint64_t n = std::max(1u, points);
  const std::uint64_t per = std::max<std::uint64_t>(1, (blocks + n - 1) / n);
  for (std::uint64_t b = 0; b < blocks; b += per)
    bins.push_back({region_offset + b * bs, std::min(per, blocks - b) * bs});
  return bins;
}

std::size_t scan_bin_of(const std::vector<ScanBin>& bins, std::uint64_t offset) noexcept {
  if (bins.empty() || offset < bins.front().offset || bins.front().bytes == 0) return 0;
  const std::uint64_t i = (offset - bins.front().offset) / bins.front().bytes;
  return static_cast<std::size_t>(std::min<std::uint64_t>(i, bins.size() - 1));
}

double bin_rate(std::uint64_t bytes, std::uint64_t ns) noexcept {
  return ns ? static_cast<double>(bytes) * 1e9 / static_cast<double>(ns) : 0;
}

std::vector<SlowRegion> find_slow_regions(const std::vector<ScanBin>& bins,
                                          std::uint64_t lba_size) {
  std::vector<double> rates;
  for (const auto& b : bins)
    if (b.read_bytes && b.read_ns) rates.push_back(bin_rate(b.read_bytes, b.read_ns));
  std::vector<SlowRegion> out;
  if (rates.empty() || lba_size == 0) return out;
  std::sort(rates.begin(), rates.end());
  const std::size_t n = rates.size();
  const double median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
  if (!(median > 0)) return out;
  std::uint64_t run_bytes = 0, run_ns = 0;
  bool open = false;
  auto close_run = [&] {
    if (!open) return;
    SlowRegion& r = out.back();
    r.read_bw = bin_rate(run_bytes, run_ns);
    r.share_of_median = r.read_bw / median;
    open = false;
  };
  for (const auto& b : bins) {
    const bool slow =
        b.read_bytes && b.read_ns && bin_rate(b.read_bytes, b.read_ns) < kSlowRegionShare * median;
    if (!slow) {
      close_run();
      continue;
    }
    if (!open) {
      out.push_back({b.offset / lba_size, 0, 0, 0});
      run_bytes = run_ns = 0;
      open = true;
    }
    out.back().last_lba = (b.offset + b.bytes) / lba_size - 1;
    run_bytes += b.read_bytes;
    run_ns += b.read_ns;
  }
  close_run();
  return out;
}

namespace {

using engines::Direction;
using engines::IoRequest;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kChunkBytes = 64ull << 20;  // a pass drains and may save after each
constexpr double kCheckpointEvery_s = 30;

std::uint64_t fresh_run_id() {
  std::random_device rd;
  const std::uint64_t id = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ 0x5343414eull;
  return id ? id : 1;
}

// One session of a scan: the driver, the checkpoint it advances and where it keeps it.
class ScanSession {
 public:
  ScanSession(BlockIoDriver& driver, ScanCheckpoint& cp, const RunOptions& options,
              std::string path)
      : driver_(driver),
        cp_(cp),
        options_(options),
        path_(std::move(path)),
        algorithm_(parse_verify_algorithm(cp.progress.algorithm)),
        pool_(cp.progress.run_id) {}

  [[nodiscard]] bool stopped() const {
    return options_.stop && options_.stop->load(std::memory_order_relaxed);
  }

  // The pass of the checkpoint's phase from its next offset to the region's end (or a stop).
  // True when it reached the end.
  bool run_pass() {
    SurfaceScanReport& p = cp_.progress;
    const std::uint64_t bs = p.block_size;
    const std::uint64_t chunk = std::max(bs, kChunkBytes / bs * bs);
    auto last_save = Clock::now();
    while (cp_.next_offset < p.region_size && !stopped()) {
      const std::uint64_t end = std::min(p.region_size, cp_.next_offset + chunk);
      std::uint64_t at = p.region_offset + cp_.next_offset;
      const std::uint64_t stop_at = p.region_offset + end;
      auto next = [&](BlockIo& b) {
        if (at >= stop_at) return false;
        b.offset = at;
        at += bs;
        return true;
      };
      IntegrityTally tally;
      const bool writing = cp_.phase == ScanPhase::Write;
      const BlockPassOutcome out = driver_.run(
          writing ? Direction::Write : Direction::Read, next,
          [&](IoRequest& r, std::uint64_t) { fill(r); },
          [&](const IoRequest& r, std::uint64_t) { writing ? wrote(r) : read(r, tally); },
          options_.stop);
      // Blocks are issued in order and a pass ends with none in flight: what completed is the
      // prefix of `out.ios` blocks.
      cp_.next_offset += out.ios * bs;
      (writing ? p.write_seconds : p.read_seconds) += out.seconds;
      if (!writing) tally.apply_to(cp_.integrity);
      const bool due =
          std::chrono::duration<double>(Clock::now() - last_save).count() >= kCheckpointEvery_s;
      if (due || stopped()) {
        save();
        last_save = Clock::now();
      }
    }
    return cp_.next_offset >= p.region_size;
  }

  void save() const {
    if (!path_.empty()) write_scan_checkpoint(path_, cp_);
  }

 private:
  void fill(IoRequest& r) const {
    fill_verified_block(r.buf, r.length, r.offset, cp_.progress.run_id, 1, 0, algorithm_, pool_);
  }

  void count_live(const IoRequest& r) const {
    if (!options_.live) return;
    options_.live->ios.fetch_add(1, std::memory_order_relaxed);
    options_.live->bytes.fetch_add(r.length, std::memory_order_relaxed);
  }

  void wrote(const IoRequest& r) {
    SurfaceScanReport& p = cp_.progress;
    count_live(r);
    if (r.res != static_cast<std::int64_t>(r.length)) {
      ++p.write_errors;
      return;
    }
    p.bytes_written += r.length;
    ScanBin& b = p.bins[scan_bin_of(p.bins, r.offset)];
    b.write_bytes += r.length;
    b.write_ns += driver_.last_latency_ns();
  }

  void read(const IoRequest& r, IntegrityTally& tally) {
    SurfaceScanReport& p = cp_.progress;
    count_live(r);
    const std::uint64_t ns = driver_.last_latency_ns();
    const std::uint64_t lba = r.offset / p.lba_size;
    if (r.res != static_cast<std::int64_t>(r.length)) {
      ++p.read_errors;
      ++p.read_classes[kScanErrorClass];
      tally.read_error();
      note_slow({lba, ns, r.res < 0 ? static_cast<int>(-r.res) : EIO});
      return;
    }
    const std::size_t c = scan_latency_class(ns);
    ++p.read_classes[c];
    if (c >= kSlowBlockClass) note_slow({lba, ns, 0});
    p.bytes_read += r.length;
    ScanBin& b = p.bins[scan_bin_of(p.bins, r.offset)];
    b.read_bytes += r.length;
    b.read_ns += ns;
    ++cp_.integrity.verified_at_end;
    const BlockCheck check = check_block(r.buf, r.length, r.offset, p.run_id, 1, algorithm_);
    if (check.state != BlockState::Good) tally.add(check.state, r.offset, check, 1);
  }

  // Reads come in LBA order (but for the few in flight at once): the first kMaxSlowBlocks kept.
  void note_slow(const SlowBlock& s) {
    auto& list = cp_.progress.slowest;
    if (list.size() >= kMaxSlowBlocks) return;
    list.push_back(s);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.lba < b.lba; });
  }

  BlockIoDriver& driver_;
  ScanCheckpoint& cp_;
  const RunOptions& options_;
  std::string path_;
  VerifyAlgorithm algorithm_;
  PayloadPool pool_;
};

reporting::DirectionResult pass_result(std::uint64_t bytes, std::uint64_t errors, double seconds,
                                       std::uint64_t bs) {
  reporting::DirectionResult d;
  d.ios = bytes / bs + errors;
  d.bytes = bytes;
  const double s = seconds > 0 ? seconds : 1e-9;
  d.iops = static_cast<double>(d.ios) / s;
  d.bw_bytes = static_cast<double>(d.bytes) / s;
  d.errors = errors;
  return d;
}

// The checkpoint this session starts from: a fresh one, or the file's when resuming (checked
// against this run's device, suite, workload and layout).
ScanCheckpoint starting_point(const SurfaceScan& scan, const MethodCheckpoint& mc,
                              SurfaceScanReport fresh) {
  ScanCheckpoint cp;
  cp.device = mc.device;
  cp.suite = mc.suite;
  cp.workload = scan.id;
  cp.progress = std::move(fresh);
  cp.integrity.algorithm = cp.progress.algorithm;
  cp.integrity.run_id = cp.progress.run_id;
  if (mc.path.empty()) return cp;
  std::error_code ec;
  const bool exists = std::filesystem::exists(mc.path, ec);
  if (!mc.resume) {
    if (exists)
      throw UsageError("checkpoint " + mc.path + ": an unfinished surface scan of '" + scan.id +
                       "' is kept there: --resume continues it; remove the file to start over");
    return cp;
  }
  if (!exists)
    throw UsageError("--resume: no checkpoint at " + mc.path +
                     " (a scan that finished removes it)");
  ScanCheckpoint loaded = read_scan_checkpoint(mc.path);
  check_checkpoint_matches(loaded, cp, mc.path);
  loaded.progress.sessions += 1;
  loaded.progress.iodepth = cp.progress.iodepth;
  loaded.progress.lba_size = cp.progress.lba_size;
  return loaded;
}

// The region the scan covers on a target of `size` bytes, whole blocks.
std::pair<std::uint64_t, std::uint64_t> scan_region(const SurfaceScan& scan, std::uint64_t size,
                                                    std::uint64_t lba) {
  if (scan.offset % lba || scan.offset >= size)
    throw UnitError("surface scan offset " + std::to_string(scan.offset) +
                    " is not a logical block inside the target (" + std::to_string(size) +
                    " bytes)");
  std::uint64_t region = scan.size ? scan.size : size - scan.offset;
  if (region > size - scan.offset)
    throw UnitError("surface scan region " + std::to_string(scan.offset) + "+" +
                    std::to_string(region) + " runs past the end of the target (" +
                    std::to_string(size) + " bytes)");
  region -= region % scan.bs;
  if (region == 0)
    throw UnitError("the target region is smaller than one block of " + format_size_fio(scan.bs));
  return {scan.offset, region};
}

reporting::WorkloadResult scan_result(const SurfaceScan& scan, const ScanCheckpoint& cp,
                                      unsigned depth, bool finished, bool interrupted,
                                      const std::string& checkpoint_path) {
  const SurfaceScanReport& p = cp.progress;
  reporting::WorkloadResult result;
  result.id = scan.id;
  result.params.rw = "write";
  result.params.bs = p.block_size;
  result.params.iodepth = depth;
  result.params.ioengine = scan.ioengine;
  result.params.direct = scan.direct;
  result.params.target = scan.target;
  result.params.offset = p.region_offset;
  result.params.size = p.region_size;
  result.write = pass_result(p.bytes_written, p.write_errors, p.write_seconds, p.block_size);
  if (cp.phase == ScanPhase::Read)
    result.read = pass_result(p.bytes_read, p.read_errors, p.read_seconds, p.block_size);
  result.elapsed_s = p.write_seconds + p.read_seconds;
  result.fio_command = "surface scan: " + format_size_fio(p.block_size) + " blocks at QD" +
                       std::to_string(depth) + " over " + format_size_fio(p.region_size) +
                       " from offset " + std::to_string(p.region_offset) +
                       ", a verified write pass then a read-and-verify pass, every read timed " +
                       "(fio --rw=write --verify=" + p.algorithm + " then --rw=read, without the " +
                       "latency classes and the LBA chart)";
  if (p.write_errors)
    result.errors.push_back(std::to_string(p.write_errors) + " surface scan writes failed");
  if (interrupted) {
    result.interrupted = true;
    result.errors.push_back(checkpoint_path.empty()
                                ? std::string("interrupted")
                                : "interrupted; its progress is kept in " + checkpoint_path +
                                      " (storqual run --resume continues it)");
  }
  if (finished) {
    reporting::IntegrityReport integrity = cp.integrity;
    integrity.algorithm = p.algorithm;
    integrity.run_id = p.run_id;
    integrity.blocks_written = p.bytes_written / p.block_size;
    result.integrity = std::move(integrity);
    add_scan_figures(p, result.figures);
  }
  auto report = std::make_shared<SurfaceScanMethodReport>();
  report->scan = p;
  result.method = std::move(report);
  return result;
}

}  // namespace

void set_surface_scan_option(SurfaceScan& s, std::string_view name, std::string_view value) {
  auto whole = [&](std::uint64_t lo, std::uint64_t hi) {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos ||
        value.size() > 9)
      throw UnitError(std::string(name) + ": expected a whole number, got '" + std::string(value) +
                      "'");
    const std::uint64_t n = std::stoull(std::string(value));
    if (n < lo || n > hi)
      throw UnitError(std::string(name) + " " + std::string(value) + " is out of range (" +
                      std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return n;
  };
  if (name == "id") {
    s.id = std::string(value);
  } else if (name == "bs") {
    s.bs = parse_size(value);
    if (s.bs < kMinVerifiedBlock || s.bs > kMaxBlockSize)
      throw UnitError("bs for the surface scan must be 64..256m");
  } else if (name == "iodepth") {
    s.iodepth = static_cast<unsigned>(whole(1, 4096));
  } else if (name == "points") {
    s.points = static_cast<unsigned>(whole(2, 10000));
  } else if (name == "offset") {
    s.offset = parse_size(value);
  } else if (name == "size") {
    s.size = parse_size(value);
  } else if (name == "verify") {
    s.algorithm = parse_verify_algorithm(value);
    if (s.algorithm == VerifyAlgorithm::None)
      throw UnitError("the surface scan needs verify=crc32c or xxh3");
  } else if (name == "ioengine" || name == "direct") {
    WorkloadSpec w;
    set_workload_option(w, name, value);
    s.ioengine = w.params.ioengine;
    s.direct = w.params.direct;
  } else {
    throw UnitError("unknown surface-scan option '" + std::string(name) +
                    "' (expected bs, iodepth, points, offset, size, ioengine, direct, verify)");
  }
}

reporting::WorkloadResult run_surface_scan(const SurfaceScan& scan, const RunOptions& options,
                                           const MethodCheckpoint& checkpoint) {
  engines::EngineConfig cfg;
  cfg.path = scan.target;
  cfg.write = true;
  cfg.direct = scan.direct;
  cfg.exclusive = options.exclusive;
  BlockIoDriver driver(scan.ioengine, options.wrap_engine, cfg, scan.iodepth,
                       static_cast<std::uint32_t>(scan.bs), "surface scan");
  engines::Engine& engine = driver.engine();
  const std::uint64_t lba = engine.logical_block_size() ? engine.logical_block_size() : 512;
  if (scan.bs % lba)
    throw UnitError("surface scan bs " + format_size_fio(scan.bs) +
                    " is not a multiple of the logical block size " + std::to_string(lba));
  const auto [region_offset, region_size] = scan_region(scan, engine.target_size(), lba);

  SurfaceScanReport fresh;
  fresh.region_offset = region_offset;
  fresh.region_size = region_size;
  fresh.block_size = scan.bs;
  fresh.lba_size = lba;
  fresh.iodepth = driver.depth();
  fresh.run_id = fresh_run_id();
  fresh.algorithm = std::string(to_string(scan.algorithm));
  fresh.bins = scan_bins(region_offset, region_size, scan.bs, scan.points);
  ScanCheckpoint cp = starting_point(scan, checkpoint, std::move(fresh));

  if (options.live) {
    const std::uint64_t done =
        cp.phase == ScanPhase::Write ? cp.next_offset : region_size + cp.next_offset;
    options.live->bytes = done;
    options.live->total_bytes = 2 * region_size;
    options.live->measuring = true;
  }
  ScanSession session(driver, cp, options, checkpoint.path);
  bool finished = false;
  if (cp.phase == ScanPhase::Write && session.run_pass()) {
    cp.phase = ScanPhase::Read;
    cp.next_offset = 0;
    session.save();
  }
  if (cp.phase == ScanPhase::Read && !session.stopped()) finished = session.run_pass();
  driver.close();
  if (finished) {
    cp.progress.slow_regions = find_slow_regions(cp.progress.bins, cp.progress.lba_size);
    std::error_code ec;
    if (!checkpoint.path.empty()) std::filesystem::remove(checkpoint.path, ec);
  } else if (!session.stopped()) {
    session.save();
  }
  const bool interrupted = !finished && session.stopped();
  return scan_result(scan, cp, driver.depth(), finished, interrupted, checkpoint.path);
}

reporting::WorkloadResult SurfaceScanMethod::run(const WorkloadSpec& w,
                                                 const MethodContext& context) const {
  SurfaceScan scan = scan_;
  scan.target = w.params.target;
  scan.id = w.id;
  scan.offset = w.params.offset;  // the planned region (the whole target from the offset)
  scan.size = w.params.size;
  return run_surface_scan(scan, context.direct, context.checkpoint);
}

std::string SurfaceScanMethod::fio_command_as_run(const WorkloadSpec& as_run,
                                                  const reporting::WorkloadResult& result) const {
  return surface_scan_report_of(result) ? result.fio_command : fio_command(as_run);
}

std::string SurfaceScanMethod::fio_equivalent(const WorkloadSpec& /*spec*/) const {
  return "surface scan: " + format_size_fio(scan_.bs) + " blocks at QD" +
         std::to_string(scan_.iodepth) + " over the whole target, written with verify headers (" +
         std::string(to_string(scan_.algorithm)) +
         ") then read back in order, every read timed in classes < 5/20/50/150/500 ms (fio "
         "--rw=write --verify then --rw=read comes near, without the classes or the LBA chart)";
}

std::string SurfaceScanMethod::summary_line(const WorkloadSpec& /*spec*/) const {
  char line[256];
  std::snprintf(line, sizeof line, "%-9s %-5s QD%u, whole target, write+verify, %u points", "scan",
                format_size_fio(scan_.bs).c_str(), scan_.iodepth, scan_.points);
  return line;
}

namespace {

// <surface-scan id=... [bs iodepth points offset size ioengine direct verify]>: the ioengine and
// direct of <defaults> unless given; the spec says rw=write over the region so that the safety
// guard treats it as the write it is.
std::shared_ptr<const Method> load_surface_scan(const XmlFile& file, pugi::xml_node node,
                                                WorkloadSpec& spec) {
  SurfaceScan s;
  s.id = spec.id;
  s.ioengine = spec.params.ioengine;
  s.direct = spec.params.direct;
  for (pugi::xml_attribute a : node.attributes()) {
    if (std::string_view(a.name()) == "id") continue;
    try {
      set_surface_scan_option(s, a.name(), a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
  spec.params.rw = "write";
  spec.params.bs = s.bs;
  spec.params.iodepth = s.iodepth;
  spec.params.offset = s.offset;
  spec.params.size = s.size;
  spec.params.runtime_s = 0;
  return std::make_shared<const SurfaceScanMethod>(std::move(s));
}

}  // namespace

MethodEntry surface_scan_method_entry() {
  return {.element = "surface-scan",
          .takes_precondition = false,
          .load = &load_surface_scan,
          .read_report = &read_surface_scan_report,
          .figure_rows = &surface_scan_figure_rows};
}

std::span<const reporting::FigureInfo> surface_scan_figure_rows() noexcept {
  using K = reporting::MetricKind;
  using reporting::MetricDirection;
  static constexpr reporting::FigureInfo kRows[] = {
      {"scan.read_bw", K::Bandwidth, false, "surface-scan",
       "read bandwidth of the surface scan's read-and-verify pass (its bytes over its time)",
       MetricDirection::Read},
      {"scan.write_bw", K::Bandwidth, false, "surface-scan",
       "write bandwidth of the surface scan's write pass (its bytes over its time)",
       MetricDirection::Write},
      {"scan.min_read_bw", K::Bandwidth, false, "surface-scan",
       "read bandwidth of the slowest bin of the surface scan's LBA chart", MetricDirection::Read},
  };
  return kRows;
}

}  // namespace storqual::runner
