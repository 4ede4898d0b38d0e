// SPDX-License-Identifier: Apache-2.0
// The real-capacity check: sample blocks with distinct headers, highest offset first, read back
// (see capacity_check.hpp).
#include "runner/methods/capacity/capacity_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "engines/engine.hpp"
#include "model/metric.hpp"
#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/block_io_driver.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

using engines::Direction;
using engines::IoRequest;

reporting::DirectionResult direction_result(const BlockPassOutcome& p, std::uint64_t bs) {
  reporting::DirectionResult d;
  d.ios = p.ios;
  d.bytes = p.ios * bs;
  const double s = p.seconds > 0 ? p.seconds : 1e-9;
  d.iops = static_cast<double>(d.ios) / s;
  d.bw_bytes = static_cast<double>(d.bytes) / s;
  d.errors = p.errors;
  d.first_errno = p.first_errno;
  d.first_error_offset = p.first_error_offset;
  return d;
}

// The progress line's counters (RunOptions::live): both passes' samples.
void start_live(const RunOptions& options, std::uint64_t total_bytes) {
  if (!options.live) return;
  options.live->total_bytes = total_bytes;
  options.live->measuring = true;
}
void count_live(const RunOptions& options, const IoRequest& r) {
  if (!options.live) return;
  options.live->ios.fetch_add(1, std::memory_order_relaxed);
  options.live->bytes.fetch_add(r.length, std::memory_order_relaxed);
}

}  // namespace

void set_capacity_option(CapacityCheck& c, std::string_view name, std::string_view value) {
  auto whole = [&](std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t n = 0;
    try {
      n = std::stoull(std::string(value));
    } catch (const std::exception&) {
      throw UnitError(std::string(name) + ": expected a whole number, got '" + std::string(value) +
                      "'");
    }
    if (n < lo || n > hi || value.find_first_not_of("0123456789") != std::string_view::npos)
      throw UnitError(std::string(name) + " " + std::string(value) + " is out of range (" +
                      std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return n;
  };
  if (name == "id") {
    c.id = std::string(value);
  } else if (name == "samples") {
    c.samples = whole(2, 1ull << 24);
  } else if (name == "interval") {
    c.interval = parse_size(value);
  } else if (name == "bs") {
    c.bs = parse_size(value);
    if (c.bs < kMinVerifiedBlock || c.bs > kMaxBlockSize)
      throw UnitError("bs for the capacity check must be 64..256m");
  } else if (name == "iodepth") {
    c.iodepth = static_cast<unsigned>(whole(1, 4096));
  } else if (name == "verify") {
    c.algorithm = parse_verify_algorithm(value);
    if (c.algorithm == VerifyAlgorithm::None)
      throw UnitError("the capacity check needs verify=crc32c or xxh3");
  } else if (name == "ioengine" || name == "direct") {
    WorkloadSpec w;
    set_workload_option(w, name, value);
    c.ioengine = w.params.ioengine;
    c.direct = w.params.direct;
  } else {
    throw UnitError("unknown capacity option '" + std::string(name) +
                    "' (expected samples, interval, bs, iodepth, ioengine, direct, verify)");
  }
}

reporting::WorkloadResult run_capacity_check(const CapacityCheck& check,
                                             const RunOptions& options) {
  if (check.interval && check.interval % check.bs)
    throw UnitError("capacity interval " + format_size_fio(check.interval) +
                    " is not a multiple of bs " + format_size_fio(check.bs));
  const auto bs = static_cast<std::uint32_t>(check.bs);
  engines::EngineConfig cfg;
  cfg.path = check.target;
  cfg.write = true;
  cfg.direct = check.direct;
  cfg.exclusive = options.exclusive;
  BlockIoDriver driver(check.ioengine, options.wrap_engine, cfg, check.iodepth, bs, "capacity");
  engines::Engine& engine = driver.engine();
  const unsigned depth = driver.depth();
  const std::uint64_t size = engine.target_size();
  if (check.direct && bs % engine.logical_block_size())
    throw UnitError("capacity bs " + format_size_fio(bs) +
                    " is not a multiple of the logical block size " +
                    std::to_string(engine.logical_block_size()));
  if (size < 2 * check.bs)
    throw UnitError("the target (" + std::to_string(size) + " bytes) is too small for a " +
                    "capacity check at bs " + format_size_fio(check.bs));

  CapacityReport rep;
  rep.reported_bytes = size;
  rep.block_size = check.bs;
  std::uint64_t interval = check.interval;
  if (!interval) {
    // A power of two (times bs): a device that wraps at any power-of-two size >= interval, or any
    // multiple of the interval, stores a high sample exactly on a low one, which is written after
    // it and so shows in its read-back.
    interval = check.bs;
    while (interval * 2 <= size / check.samples) interval *= 2;
  }
  rep.sample_interval = interval;
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t o = 0; o + check.bs <= size; o += interval) offsets.push_back(o);
  rep.samples = offsets.size();
  start_live(options, 2 * offsets.size() * check.bs);
  // The ledger's run id and payload pool make every sample's header distinct to this check.
  VerifyLedger ledger(0, check.bs, check.bs, check.algorithm);
  std::vector<std::uint64_t> descending(offsets.rbegin(), offsets.rend());
  // Sample k (ascending index) carries sequence k + 1, its tag in both passes.
  const std::size_t last = offsets.size() - 1;
  const BlockPassOutcome wrote = driver.run(
      Direction::Write, blocks_at(descending, [last](std::size_t i) { return last - i + 1; }),
      [&](IoRequest& r, std::uint64_t sequence) {
        fill_verified_block(r.buf, bs, r.offset, ledger.run_id(), sequence, 0, check.algorithm,
                            ledger.payload());
      },
      [&](const IoRequest& r, std::uint64_t) { count_live(options, r); }, options.stop);
  IntegrityTally tally;
  std::optional<std::uint64_t> first_bad;
  const BlockPassOutcome read = driver.run(
      Direction::Read, blocks_at(offsets, [](std::size_t k) { return k + 1; }),
      [](IoRequest&, std::uint64_t) {},
      [&](const IoRequest& r, std::uint64_t sequence) {
        count_live(options, r);
        BlockState state;
        BlockCheck c;
        if (r.res != static_cast<std::int64_t>(r.length)) {
          tally.read_error();
          state = BlockState::Foreign;
        } else {
          const auto expected = static_cast<std::uint32_t>(sequence);
          c = check_block(r.buf, bs, r.offset, ledger.run_id(), expected, check.algorithm);
          state = c.state;
          tally.add(state, r.offset, c, expected);
        }
        if (state == BlockState::Good) {
          ++rep.samples_good;
          return;
        }
        if (!first_bad || r.offset < *first_bad) first_bad = r.offset;
        if (state == BlockState::Misplaced &&
            (!rep.aliasing_start || r.offset < *rep.aliasing_start)) {
          rep.aliasing_start = r.offset;
          rep.aliased_to = c.found_offset;
        }
      },
      options.stop);
  driver.close();
  reporting::IntegrityReport counts;  // the tally's classes and first findings
  tally.apply_to(counts);
  rep.corrupted = counts.corrupted;
  rep.misplaced = counts.misplaced;
  rep.stale = counts.stale;
  rep.foreign = counts.foreign;
  rep.read_errors = counts.read_errors;
  rep.findings = std::move(counts.findings);
  rep.usable_bytes = first_bad ? *first_bad : size;

  reporting::WorkloadResult result;
  result.id = check.id;
  result.params.rw = "write";
  result.params.bs = check.bs;
  result.params.iodepth = depth;
  result.params.ioengine = check.ioengine;
  result.params.direct = check.direct;
  result.params.target = check.target;
  result.params.size = size;
  result.write = direction_result(wrote, check.bs);
  result.read = direction_result(read, check.bs);
  result.elapsed_s = wrote.seconds + read.seconds;
  result.fio_command = "f3probe-like check: " + std::to_string(rep.samples) + " samples of " +
                       format_size_fio(check.bs) + " every " + format_size_fio(interval) +
                       " written highest offset first, then read back (no fio equivalent)";
  if (wrote.errors)
    result.errors.push_back(
        std::to_string(wrote.errors) + " capacity sample writes failed (first at offset " +
        std::to_string(wrote.first_error_offset) + ": " + std::strerror(wrote.first_errno) + ")");
  if (options.stop && options.stop->load()) {
    result.interrupted = true;
    result.errors.push_back("interrupted");
  }
  reporting::add_figure(result.figures, "capacity", static_cast<double>(rep.usable_bytes));
  auto report = std::make_shared<CapacityMethodReport>();
  report->capacity = std::move(rep);
  result.method = std::move(report);
  return result;
}

std::string capacity_summary(const CapacityReport& r) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%%",
                r.reported_bytes ? 100.0 * static_cast<double>(r.usable_bytes) /
                                       static_cast<double>(r.reported_bytes)
                                 : 0.0);
  std::string out = "usable " + format_bytes_iec(static_cast<double>(r.usable_bytes)) + " of " +
                    format_bytes_iec(static_cast<double>(r.reported_bytes)) + " reported (" + pct +
                    ", " + std::to_string(r.samples_good) + "/" + std::to_string(r.samples) +
                    " samples good, one every " +
                    format_bytes_iec(static_cast<double>(r.sample_interval)) + ")";
  if (r.aliasing_start)
    out += "; aliasing from offset " + std::to_string(*r.aliasing_start) + " (holds offset " +
           std::to_string(r.aliased_to.value_or(0)) + ")";
  if (r.foreign) out += "; " + std::to_string(r.foreign) + " samples lost";
  if (r.corrupted) out += "; " + std::to_string(r.corrupted) + " samples corrupted";
  return out;
}

reporting::ClaimVerdict capacity_verdict(const reporting::WorkloadResult& result,
                                         double claimed_bytes, double tolerance_pct) {
  reporting::ClaimVerdict v;
  v.workloads = {result.id};
  v.metric = "capacity";
  v.unit = "B";
  v.higher_is_better = reporting::higher_is_better(reporting::MetricKind::Capacity);
  v.claimed = claimed_bytes;
  v.tolerance_pct = tolerance_pct;
  v.time_s = result.elapsed_s;
  const CapacityReport* found = capacity_report_of(result);
  if (!found || !result.errors.empty()) {
    v.status = reporting::VerdictStatus::Error;
    v.message = "capacity: the check did not complete" +
                (result.errors.empty() ? std::string() : ": " + result.errors.front());
    return v;
  }
  const auto& r = *found;
  const double usable = static_cast<double>(r.usable_bytes);
  v.measured = usable;
  v.diff_pct = claimed_bytes > 0 ? (usable - claimed_bytes) / claimed_bytes * 100 : 0;
  const bool pass = usable >= claimed_bytes * (1 - tolerance_pct / 100);
  v.status = pass ? reporting::VerdictStatus::Pass : reporting::VerdictStatus::Fail;
  char diff[64];
  std::snprintf(diff, sizeof diff, "%.1f%% %s", std::fabs(*v.diff_pct),
                *v.diff_pct < 0 ? "below" : "above");
  char tol[32];
  std::snprintf(tol, sizeof tol, "%g%%", tolerance_pct);
  v.message = "measured " + reporting::format_bytes_decimal(usable) + " usable, " + diff +
              " the claimed " + reporting::format_bytes_decimal(claimed_bytes) + " (tolerance " +
              tol + "); " + capacity_summary(r);
  return v;
}

namespace {

// <capacity id=... [samples interval bs iodepth ioengine direct verify]>: the ioengine and direct
// of <defaults> unless given; the spec says rw=write over the whole target so that the safety
// guard treats it as the write it is.
std::shared_ptr<const Method> load_capacity(const XmlFile& file, pugi::xml_node node,
                                            WorkloadSpec& spec) {
  CapacityCheck c;
  c.id = spec.id;
  c.ioengine = spec.params.ioengine;  // from <defaults>
  c.direct = spec.params.direct;
  c.location = file.where(node);
  for (pugi::xml_attribute a : node.attributes()) {
    if (std::string_view(a.name()) == "id") continue;
    try {
      set_capacity_option(c, a.name(), a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
  spec.params.rw = "write";
  spec.params.bs = c.bs;
  spec.params.size = 0;
  spec.params.offset = 0;
  return std::make_shared<const CapacityMethod>(std::move(c));
}

}  // namespace

MethodEntry capacity_method_entry() {
  return {"capacity", false, &load_capacity, nullptr, &read_capacity_report, &capacity_figure_rows};
}

std::span<const reporting::FigureInfo> capacity_figure_rows() noexcept {
  using K = reporting::MetricKind;
  using reporting::MetricDirection;
  static constexpr reporting::FigureInfo kRows[] = {
      {"capacity", K::Capacity, false, "capacity",
       "bytes below the first sample that did not read back its own data", MetricDirection::Both,
       false, "{value} usable"},
  };
  return kRows;
}

}  // namespace storqual::runner
