// SPDX-License-Identifier: Apache-2.0
// fio jobs as suite workloads, and back: each job's options taken through the one table of fio's
// options (fio_option_table.hpp), every refusal of a file collected into one error, and the job
// groups fio runs together.
#include "runner/specs/fio_suite.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <pugixml.hpp>
#include <set>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/specs/fio_method_import.hpp"
#include "runner/specs/fio_option_table.hpp"
#include "runner/specs/fio_values.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace {

using fio_options::canonical;
using fio_options::find_rule;
using fio_options::FioOptionRule;
using fio_options::Kind;
using fio_options::Take;
using fio_values::fio_bytes;
using fio_values::fio_micros;
using fio_values::refusal;
using fio_values::refuse;

// Whole microseconds in the largest unit that keeps them exact, as format_duration_fio writes
// them, so that a duration reads back to the same double.
std::string micros_text(std::uint64_t us) {
  if (us % 1000000 == 0) return std::to_string(us / 1000000) + "s";
  if (us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

// One job's options applied in fio's order, starting from fio's defaults.
struct JobState {
  WorkloadSpec spec;
  std::uint64_t read_bs = 4096, write_bs = 4096;
  std::string bs_where;
  std::uint64_t size = 0, filesize = 0, io_size = 0;
  bool time_based = false;
  bool stonewall = false;
  std::string wait_for;
  std::string name;
  unsigned kb_base = 1024;
  std::string location;
  bool invalidate_given = false;   // fio's invalidate (only 0 is taken)
  bool filename_given = false;     // fio's filename (else each clone has a file of its own)
  std::string distribution_where;  // fio's random_distribution
  std::uint64_t loops = 1;         // fio's loops: passes over the job's bytes
  std::string loops_where;
  bool batch_max_given = false;  // fio's iodepth_batch_complete_max
  bool scramble = true;          // fio's scramble_buffers (its default: on)
  bool refill = false;           // fio's refill_buffers (over scramble_buffers)
  // fio's rate, rate_iops, ratemin and rate_iops_min per direction (read, write: "R,W"; one
  // value is both), resolved against rw when the job is complete (take_rates).
  struct PerDirection {
    std::uint64_t value[2] = {0, 0};
    std::string where;
  };
  PerDirection rates[4];                    // rate, rate_iops, ratemin, rate_iops_min
  std::string sync_where;                   // ioengine=sync, taken as psync (noted)
  bool exitall = false, new_group = false;  // fio's exitall (the file's), new_group
  std::string exit_what = "group", exit_where;
  unsigned groupid = 0;   // fio's reporting group (init.c add_job)
  FioJobMethods methods;  // a method's options (latency_target), a null device file
};

constexpr std::string_view kRateOptions[4] = {"rate", "rate_iops", "ratemin", "rate_iops_min"};

WorkloadSpec fio_defaults() {
  WorkloadSpec s;
  s.params.rw = "read";
  s.params.ioengine = "psync";
  s.params.direct = false;
  s.fixedbufs = false;
  s.registerfiles = false;
  s.iodepth_batch = 1;  // fio submits each I/O as it is ready (iodepth_batch_submit=1)
  return s;
}

void set(JobState& j, const FioOption& o, std::string_view storqual_name, const std::string& v) {
  try {
    set_workload_option(j.spec, storqual_name, v);
  } catch (const UnitError& e) {
    refuse(o, e.what());
  }
}

std::string flag_value(const FioOption& o) {
  return o.has_value ? o.value : std::string("1");
}

// bssplit and bsrange (runner/measure/block_size_mix.hpp) with fio's sizes: a direction of one
// size is that direction's bs, as bs=R,W gives it; a mixed one the workload's mix.
void apply_block_size_mix(JobState& j, const FioOption& o, std::string_view name,
                          const std::string& v) {
  const SizeParser size = [&](std::string_view s) {
    return fio_bytes(o, std::string(s), j.kb_base);
  };
  BlockSizeMix mix;
  try {
    mix = name == "bssplit" ? parse_bssplit(v, size) : parse_bsrange(v, size);
  } catch (const UnitError& e) {
    refuse(o, e.what());
  }
  std::uint64_t* bs[2] = {&j.read_bs, &j.write_bs};
  for (unsigned d = 0; d < 3; ++d) {
    const BlockSizeChoice& c = mix[d];
    if (!c.min_bs) continue;  // fio: an empty part keeps the direction's sizes
    if (d < 2 && !c.mixed()) {
      *bs[d] = c.min_bs;
      j.spec.bs_mix[d] = {};
    } else {
      j.spec.bs_mix[d] = c;
    }
  }
  j.bs_where = o.location;
}

// rate=R[,W[,T]] and its kin: an empty part is 0 (that direction unpaced, fio's "rate=,500k"),
// one value both directions; the trim part is fio's for trims, which storqual does not issue.
void apply_rate(JobState& j, const FioOption& o, std::size_t which, const std::string& v) {
  std::vector<std::string> parts;
  std::stringstream in(v);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (!v.empty() && v.back() == ',') parts.emplace_back();
  if (parts.empty() || parts.size() > 3) refuse(o, "expected READ[,WRITE[,TRIM]]");
  const bool bytes = which == 0 || which == 2;
  auto value = [&](const std::string& part) -> std::uint64_t {
    if (part.empty()) return 0;
    if (bytes) return fio_bytes(o, part, j.kb_base);
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (ec != std::errc() || end != part.data() + part.size())
      refuse(o, "expected a whole number of I/Os per second, got '" + part + "'");
    return n;
  };
  auto& r = j.rates[which];
  r.value[0] = value(parts[0]);
  r.value[1] = parts.size() == 1 ? r.value[0] : value(parts[1]);
  r.where = o.location;
}

// The job's rates by the direction it uses. A job that reads and writes: fio paces each direction
// to its own rate and, while both keep up, lets the rates pick the next direction (io_u.c
// rate_ddir), so it runs R + W per second in the mix R:W over rwmixread; storqual paces the job
// as a whole: that total, in that mix (noted: fio goes back to rwmixread where the device cannot
// keep up). A direction left unpaced beside a paced one has no storqual equivalent.
void take_rates(JobState& j, RwMode mode, std::vector<std::string>& ignored) {
  const bool both = rw_reads(mode) && rw_writes(mode);
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& r = j.rates[k];
    if (!r.value[0] && !r.value[1]) continue;
    const std::string name(kRateOptions[k]);
    std::uint64_t v = r.value[rw_writes(mode) ? 1 : 0];
    if (both) {
      if (!r.value[0] || !r.value[1])
        throw FileError(r.where + ": option '" + name +
                        "': one direction paced and the other not: storqual paces a job that "
                        "reads and writes as a whole");
      v = r.value[0] + r.value[1];
      if (k <= 1) {  // the rate itself sets the mix; the minimums follow it
        const auto mix = static_cast<unsigned>(
            std::llround(100.0 * static_cast<double>(r.value[0]) / static_cast<double>(v)));
        if (mix == 0 || mix == 100)  // the export would pace one direction at 0
          throw FileError(r.where + ": option '" + name + "': reads at " +
                          std::to_string(r.value[0]) + " and writes at " +
                          std::to_string(r.value[1]) +
                          " per second are a mix of under 0.5% one way: storqual's rwmixread "
                          "cannot keep both paced");
        if (mix != j.spec.params.rwmixread)
          ignored.push_back(
              r.where + ": option '" + name + "': reads at " + std::to_string(r.value[0]) +
              " and writes at " + std::to_string(r.value[1]) +
              " per second: fio runs them in that "
              "mix while the device keeps up, so storqual's rwmixread is " +
              std::to_string(mix) + " (not " + std::to_string(j.spec.params.rwmixread) +
              "); fio goes back to rwmixread where the device falls behind");
        j.spec.params.rwmixread = mix;
      }
    }
    if (!v) continue;
    try {
      set_workload_option(j.spec, name, std::to_string(v));
    } catch (const UnitError& e) {
      throw FileError(r.where + ": option '" + name + "': " + e.what());
    }
  }
}

// rw, with fio's offset modifier (rw=MODE:N) on sequential I/O as seq_add; an rw without one
// drops an earlier one, as fio's str_rw_cb resets ddir_seq_add.
void apply_rw(JobState& j, const FioOption& o, const std::string& v) {
  const auto colon = v.find(':');
  const std::string mode = v.substr(0, colon);
  set(j, o, "rw", mode == "readwrite" ? "rw" : mode);
  if (colon != std::string::npos) {  // fio's offset modifier: holes (or backwards) in bytes
    const std::string n = v.substr(colon + 1);
    if (rw_random(parse_rw(j.spec.params.rw)))
      refuse(o,
             "an offset modifier on random I/O (a new random offset every N I/Os): storqual "
             "takes holes in sequential I/O only");
    const bool back = n.starts_with("-");
    const std::uint64_t bytes = fio_bytes(o, back ? n.substr(1) : n, j.kb_base);
    set(j, o, "seq_add", (back ? "-" : "") + std::to_string(bytes));
  } else {
    j.spec.seq_add = 0;
  }
}

void apply_special(JobState& j, const FioOption& o, std::string_view name) {
  const std::string v = flag_value(o);
  if (name == "rw") {
    apply_rw(j, o, v);
  } else if (name == "bs") {
    std::vector<std::uint64_t> parts;
    std::stringstream in(v);
    for (std::string part; std::getline(in, part, ',');)
      parts.push_back(part.empty() ? 0 : fio_bytes(o, part, j.kb_base));
    if (parts.empty() || parts.size() > 3) refuse(o, "expected bs=READ[,WRITE[,TRIM]]");
    // fio: an empty part keeps that direction's default; one value is both directions.
    if (parts[0]) j.read_bs = parts[0];
    j.write_bs = parts.size() == 1 ? j.read_bs : (parts[1] ? parts[1] : j.write_bs);
    j.bs_where = o.location;
    // fio's bs after a bssplit or bsrange: one size again (get_next_buflen draws none).
    if (parts[0]) j.spec.bs_mix[0] = {};
    if (parts.size() == 1 || parts[1]) j.spec.bs_mix[1] = {};
  } else if (name == "bsrange" || name == "bssplit") {
    apply_block_size_mix(j, o, name, v);
  } else if (name == "blockalign") {
    if (v.find(',') != std::string::npos)
      refuse(o, "a value per direction: storqual aligns both directions' offsets alike");
    set(j, o, "blockalign", std::to_string(fio_bytes(o, v, j.kb_base)));
  } else if (name == "random_distribution") {
    try {
      const OffsetDistribution was = j.spec.distribution;  // random_generator's part stays
      j.spec.distribution = parse_random_distribution(
          v, [&](std::string_view sz) { return fio_bytes(o, std::string(sz), j.kb_base); });
      j.spec.distribution.use64 = was.use64;
      j.spec.distribution.lfsr = was.lfsr;
    } catch (const UnitError& e) {
      refuse(o, e.what());
    }
    j.distribution_where = o.location;
  } else if (name == "loops") {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n == 0)
      refuse(o, "expected a whole number of passes, 1 or more");
    j.loops = n;
    j.loops_where = o.location;
  } else if (const auto* r = std::find(std::begin(kRateOptions), std::end(kRateOptions), name);
             r != std::end(kRateOptions)) {
    apply_rate(j, o, static_cast<std::size_t>(r - std::begin(kRateOptions)), v);
  } else if (name == "startdelay") {  // fio: seconds when the unit is omitted; "A-B" a range
    const auto dash = v.find('-');
    std::string text = micros_text(fio_micros(o, v.substr(0, dash)));
    if (dash != std::string::npos) text += "-" + micros_text(fio_micros(o, v.substr(dash + 1)));
    set(j, o, "startdelay", text);
  } else if (name == "thinktime" || name == "thinktime_spin") {  // fio: microseconds by default
    const bool bare = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    set(j, o, name, micros_text(fio_micros(o, bare ? v + "us" : v)));
  } else if (name == "random_generator") {  // lfsr: fio's LFSR (runner/measure/fio_lfsr.hpp)
    set(j, o, "random_generator", v);
  } else if (name == "size") {
    j.size = fio_bytes(o, v, j.kb_base);
  } else if (name == "filesize") {
    if (v.find('-') != std::string::npos || v.find(':') != std::string::npos)
      refuse(o, "a range of file sizes: storqual runs on one target");
    j.filesize = fio_bytes(o, v, j.kb_base);
  } else if (name == "io_size") {
    j.io_size = fio_bytes(o, v, j.kb_base);
  } else if (name == "offset") {
    set(j, o, "offset", std::to_string(fio_bytes(o, v, j.kb_base)));
  } else if (name == "runtime" || name == "ramp_time") {
    set(j, o, name, micros_text(fio_micros(o, v)));
  } else if (name == "time_based") {
    j.time_based = v != "0";
  } else if (name == "direct" || name == "buffered") {
    if (v != "0" && v != "1") refuse(o, "expected 0 or 1");
    set(j, o, "direct", (v == "1") == (name == "direct") ? "1" : "0");
  } else if (name == "ioengine") {
    if (v == "sync") {  // the same I/Os, one at a time: read/write after lseek are pread/pwrite
      j.sync_where = o.location;
      set(j, o, "ioengine", "psync");
    } else {
      j.sync_where.clear();
      set(j, o, "ioengine", v);
    }
  } else if (name == "continue_on_error") {
    if (v == "none" || v == "0")
      set(j, o, "continue_on_error", "0");
    else if (v == "io")
      set(j, o, "continue_on_error", "1");
    else
      refuse(o, "storqual continues on I/O errors only (continue_on_error=io)");
  } else if (name == "verify") {
    if (v == "0" || v == "null")
      set(j, o, "verify", "0");
    else if (v == "crc32c" || v == "crc32c-intel")
      set(j, o, "verify", "crc32c");
    else
      refuse(o, "storqual verifies with crc32c (or its own xxh3): fio's '" + v + "' is neither");
  } else if (name == "scramble_buffers" || name == "refill_buffers") {
    if (v != "0" && v != "1") refuse(o, "expected 0 or 1");
    (name == "refill_buffers" ? j.refill : j.scramble) = v == "1";
  } else if (name == "exitall") {
    j.exitall = v != "0";
  } else if (name == "exit_what") {
    if (v != "group" && v != "stonewall" && v != "all")
      refuse(o, "expected group, stonewall or all");
    j.exit_what = v;
    j.exit_where = o.location;
  } else if (name == "stonewall") {
    j.stonewall = v != "0";
  } else if (name == "wait_for") {
    j.wait_for = v;
  } else if (name == "name") {
    if (!o.from_global) j.name = v;  // fio: the section names its job over a [global] name=
  }
}

void apply_option(JobState& j, const FioOption& o, std::vector<std::string>& ignored) {
  const std::string name = canonical(o.name);
  if (name == "invalidate") j.invalidate_given = true;
  if (name == "filename") j.filename_given = true;
  if (name == "iodepth_batch_complete_max") j.batch_max_given = true;
  if (name == "new_group") j.new_group = flag_value(o) != "0";  // noted below; exitall's groups
  if (collect_method_option(j.methods, o, name)) return;
  const FioOptionRule* rule = find_rule(name);
  if (!rule)
    refuse(o, "storqual has no equivalent of fio's '" + o.name +
                  "' (docs/fio-files.md lists the options it takes)");
  switch (rule->take) {
    case Take::Ignore: {  // once per line, also when every job inherits it from [global]
      std::string note =
          o.location + ": option '" + o.name + "' ignored: " + std::string(rule->target);
      if (std::find(ignored.begin(), ignored.end(), note) == ignored.end())
        ignored.push_back(std::move(note));
      return;
    }
    case Take::Refuse:
      if (!rule->harmless.empty() && o.has_value && o.value == rule->harmless) return;
      refuse(o, rule->target);
    case Take::Special:
      apply_special(j, o, name);
      return;
    case Take::Map:
      break;
  }
  std::string v = rule->kind == Kind::Bool ? flag_value(o) : o.value;
  if (!rule->harmless.empty() && v == rule->harmless) return;
  if (!o.has_value && rule->kind != Kind::Bool) refuse(o, "expected a value");
  if (v.find(',') != std::string::npos)
    refuse(o, "a value per direction: storqual takes one for reads and writes");
  if (rule->kind == Kind::Size) v = std::to_string(fio_bytes(o, v, j.kb_base));
  set(j, o, rule->target, v);
}

// Every refusal of a file, each once (an option of [global] is every job's), in file order: the
// import names them all in one error, so that one run shows all there is to change.
struct Refusals {
  std::vector<std::string> lines;
  void add(const std::string& line) {
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  }
};

// A refusal of several things is one error with one line each ("file:line: option 'X': why").
[[noreturn]] void throw_refusals(const Refusals& r, const std::string& file) {
  if (r.lines.size() == 1) throw FileError(r.lines.front());
  std::string text = file + ": " + std::to_string(r.lines.size()) +
                     " things storqual cannot take (docs/fio-files.md), each on its line:";
  for (const std::string& line : r.lines) text += "\n" + line;
  throw FileError(text);
}

// What fio's defaults and termination rules imply for a job whose options were all taken.
void finish_job(JobState& j, std::vector<std::string>& ignored);

// The workload of one job: its options, then what fio's defaults and termination rules imply.
// Whatever it cannot take goes to `refused`, and the job is then not finished.
JobState job_state(const FioJob& job, std::vector<std::string>& ignored, Refusals& refused) {
  JobState j;
  j.spec = fio_defaults();
  j.name = job.name;
  j.location = job.location;
  const std::size_t before = refused.lines.size();
  for (const FioOption& o : job.options)  // fio applies kb_base before the sizes
    if (canonical(o.name) == "kb_base") {
      if (o.value != "1000" && o.value != "1024") refused.add(refusal(o, "expected 1000 or 1024"));
      j.kb_base = o.value == "1000" ? 1000 : 1024;
    }
  for (const FioOption& o : job.options) {
    try {
      apply_option(j, o, ignored);
    } catch (const FileError& e) {
      refused.add(e.what());
    }
  }
  if (refused.lines.size() != before) return j;
  try {
    finish_job(j, ignored);
  } catch (const FileError& e) {
    refused.add(e.what());
  }
  return j;
}

// fio runs a skewed distribution without its random map (init.c), and ignores it for
// sequential I/O.
void take_distribution(JobState& j, RwMode mode, std::vector<std::string>& ignored) {
  if (!j.spec.distribution.skewed()) return;
  if (rw_random(mode)) {
    j.spec.params.randommap = false;
    return;
  }
  ignored.push_back(j.distribution_where + ": option 'random_distribution' ignored: rw=" +
                    j.spec.params.rw + " is sequential, and fio draws no random offsets for it");
  j.spec.distribution = {};
}

// When fio ends the job: time based at its runtime; else at its bytes (io_size, else size, each
// of loops passes) or its runtime, whichever comes first. storqual's runtime is always time based,
// its io_limit the bytes of all jobs together.
void take_termination(JobState& j, std::vector<std::string>& ignored) {
  auto& p = j.spec.params;
  std::uint64_t per_job = j.io_size ? j.io_size : p.size;
  if (j.time_based && p.runtime_s <= 0)
    throw FileError(j.location + ": job '" + j.name +
                    "': time_based without runtime runs until stopped (give runtime)");
  if (j.time_based && j.io_size)
    throw FileError(j.location + ": job '" + j.name +
                    "': io_size with time_based: storqual's io_limit ends the run at the bytes "
                    "or the runtime, whichever comes first (drop time_based for that)");
  if (j.time_based && j.loops > 1)
    ignored.push_back(j.loops_where +
                      ": option 'loops' ignored: with time_based fio passes over "
                      "the region until the runtime ends, as storqual does");
  if (j.time_based || (p.runtime_s <= 0 && !j.io_size && j.loops <= 1)) return;
  if (per_job == 0)
    throw FileError(j.location + ": job '" + j.name +
                    "': " + (j.loops > 1 ? "loops" : "runtime without time_based") +
                    " and without size: fio stops when the target is covered, storqual would "
                    "pass over it again (give size or time_based)");
  // fio's loops: the job again from its start, as many times; storqual's io_limit passes over the
  // region as often (sequential from its start, random through the map's next pass).
  if (__builtin_mul_overflow(per_job, j.loops, &per_job) ||
      __builtin_mul_overflow(per_job, std::uint64_t{p.numjobs}, &j.spec.io_limit))
    throw FileError(j.location + ": job '" + j.name + "': its bytes overflow");
}

void finish_job(JobState& j, std::vector<std::string>& ignored) {
  auto& p = j.spec.params;
  // fio reaps at most iodepth_batch_complete_max completions per system call, by default (and at
  // least) its iodepth_batch_complete_min, where storqual takes all that are ready.
  // A maximum that covers the whole depth is storqual's 0 (every completion that is ready).
  const unsigned reap_min = std::max(1u, j.spec.iodepth_batch_complete);
  unsigned& reap_max = j.spec.iodepth_batch_complete_max;
  reap_max = j.batch_max_given ? std::max(reap_max, reap_min) : reap_min;
  if (reap_max >= p.iodepth) reap_max = 0;
  if (!p.direct && !j.invalidate_given)
    ignored.push_back(j.location + ": job '" + j.name +
                      "': buffered (direct=0), and fio's default invalidate=1 drops the target's "
                      "page cache when the job starts and at every loop over its region; "
                      "storqual keeps it while a workload runs (its export writes invalidate=0)");
  if (!j.filename_given && p.numjobs > 1)
    ignored.push_back(j.location + ": job '" + j.name +
                      "': without filename, fio gives each of its " + std::to_string(p.numjobs) +
                      " clones a file of its own (" + j.name + ".0.0 to " + j.name + "." +
                      std::to_string(p.numjobs - 1) + ".0, each of the job's size); storqual's " +
                      std::to_string(p.numjobs) +
                      " jobs share one region of the run's --target, so they read and write the "
                      "same blocks");
  const RwMode mode = parse_rw(p.rw);
  const bool reads = rw_reads(mode), writes = rw_writes(mode);
  const bool read_mixed = j.spec.bs_mix[0].mixed(), write_mixed = j.spec.bs_mix[1].mixed();
  if (reads && writes && !read_mixed && !write_mixed && j.read_bs != j.write_bs)
    throw FileError(j.bs_where + ": option 'bs': reads of " + format_size_fio(j.read_bs) +
                    " and writes of " + format_size_fio(j.write_bs) +
                    ": a storqual workload has one block size, or a mix (bssplit) per direction");
  // bs is the size of the directions without a mix (fio's bs for them).
  p.bs = reads && !read_mixed     ? j.read_bs
         : writes && !write_mixed ? j.write_bs
         : reads                  ? j.read_bs
                                  : j.write_bs;
  take_distribution(j, mode, ignored);
  take_rates(j, mode, ignored);
  if (!j.sync_where.empty())
    ignored.push_back(j.sync_where +
                      ": option 'ioengine=sync' taken as psync: fio's sync engine "
                      "issues each I/O as lseek then read/write, storqual's psync as one pread/"
                      "pwrite at the same offset: the same I/Os in the same order, one system "
                      "call per I/O instead of two (fio's sync costs more CPU per I/O)");
  // fio's blockalign equal to the smallest size is its default: the same offsets.
  if (j.spec.blockalign ==
      (j.spec.mixed_block_sizes() ? smallest_block(j.spec) : std::uint64_t{p.bs}))
    j.spec.blockalign = 0;
  // fio's region: size, else the file's size (filesize), else the whole target.
  p.size = j.size ? j.size : j.filesize;
  take_termination(j, ignored);
  // What fio's writes carry (fio's verify writes its own blocks, as storqual's does).
  // fio's buffer_compress_percentage and dedupe_percentage set refill_buffers (their generators
  // fill every write).
  if (rw_writes(mode) && j.spec.verify == VerifyAlgorithm::None)
    j.spec.write_contents = j.refill || j.spec.buffers.active() ? WriteContents::Refill
                            : j.scramble                        ? WriteContents::Scramble
                                                                : WriteContents::Fixed;
  if (p.ioengine != "io_uring") {  // io_uring's options mean nothing to the others: storqual's
    j.spec.fixedbufs = WorkloadSpec{}.fixedbufs;  // defaults, as a suite without them has
    j.spec.registerfiles = WorkloadSpec{}.registerfiles;
  }
  try {
    validate(j.spec);
  } catch (const UnitError& e) {
    throw FileError(j.location + ": job '" + j.name + "': " + e.what());
  }
}

std::string valid_id(std::string_view name) {
  std::string id;
  for (char c : name)
    id += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '-';
  return id.empty() ? std::string("job") : id;
}

bool same_pattern(const WorkloadSpec& a, const WorkloadSpec& b) {
  return workload_attributes(a) == workload_attributes(b);
}

// Jobs fio starts together: from one stonewall to the next, except that a job whose wait_for
// names the one job running so far starts after it.
std::vector<std::vector<JobState>> concurrent_sets(std::vector<JobState> jobs) {
  std::vector<std::vector<JobState>> sets;
  bool at_group_start = true;  // the last set is the one that starts with its stonewall group
  for (JobState& j : jobs) {
    bool follows = false;
    if (!j.wait_for.empty() && !sets.empty() && !j.stonewall) {
      const auto& cur = sets.back();
      if (cur.size() != 1 || cur.front().name != j.wait_for)
        throw FileError(j.location + ": job '" + j.name + "': wait_for=" + j.wait_for +
                        ": storqual runs one workload after another and cannot wait for a job "
                        "other than the one just before");
      follows = true;
    } else if (!sets.empty() && !j.stonewall && !at_group_start) {
      // fio starts it with the first jobs of its group, not after the job it follows in the file.
      throw FileError(j.location + ": job '" + j.name +
                      "' starts with the first jobs since the last stonewall in fio (it has no "
                      "wait_for), not after '" +
                      sets.back().front().name + "'; storqual runs one workload at a time");
    }
    if (sets.empty() || j.stonewall || follows) {
      sets.emplace_back();
      at_group_start = !follows;
    }
    sets.back().push_back(std::move(j));
  }
  return sets;
}

// `name`, or NAME-2, NAME-3 ... when it is taken (fio allows one name for several jobs).
std::string unique_id(const std::string& name, std::set<std::string>& used) {
  const std::string base = valid_id(name);
  std::string id = base;
  for (int n = 2; used.count(id); ++n) id = base + "-" + std::to_string(n);
  used.insert(id);
  return id;
}

// Jobs that fio runs together: each one identical to an earlier one but for its name is numjobs
// copies of it (its numjobs and io_limit added); the others are jobs of their own.
// Jobs without filename have a file each in fio (NAME.0.0), one region of storqual's target here:
// noted.
std::vector<JobState> fold_copies(std::vector<JobState>& set, std::vector<std::string>& ignored) {
  std::vector<JobState> distinct;
  for (JobState& j : set) {
    auto same = std::find_if(distinct.begin(), distinct.end(),
                             [&](const JobState& d) { return same_pattern(d.spec, j.spec); });
    if (same == distinct.end()) {
      distinct.push_back(std::move(j));
      continue;
    }
    if (!j.filename_given || !same->filename_given)
      ignored.push_back(j.location + ": job '" + j.name + "' runs as one more job of '" +
                        same->name + "': without filename fio gives each its own file (" +
                        same->name + ".0.0, " + j.name +
                        ".0.0); storqual's jobs share one region of the run's --target");
    auto& p = same->spec.params;
    if (p.numjobs + j.spec.params.numjobs > kMaxNumjobs)
      throw FileError(same->location + ": more than " + std::to_string(kMaxNumjobs) + " jobs");
    p.numjobs += j.spec.params.numjobs;
    if (__builtin_add_overflow(same->spec.io_limit, j.spec.io_limit, &same->spec.io_limit))
      throw FileError(same->location + ": the jobs' bytes overflow");
  }
  return distinct;
}

// Different jobs that fio runs together: one group workload, the first job's options its own and
// each job's differences from them its member options (docs/fio-files.md, "fio's groups").
WorkloadSpec group_of(std::vector<JobState>& distinct) {
  const JobState& first = distinct.front();
  WorkloadSpec group = first.spec;
  std::set<std::string> names;
  for (const JobState& j : distinct) {
    const auto& p = j.spec.params;
    if (p.runtime_s != first.spec.params.runtime_s ||
        p.ramp_time_s != first.spec.params.ramp_time_s)
      throw FileError(j.location + ": job '" + j.name + "' runs at the same time as '" +
                      first.name + "' (" + first.location +
                      ") in fio with another runtime or ramp_time; the jobs of a storqual group "
                      "share one measured window");
    if (j.spec.verify != VerifyAlgorithm::None)
      throw FileError(j.location + ": job '" + j.name +
                      "' verifies and runs at the same time as '" + first.name + "' (" +
                      first.location +
                      ") in fio; storqual verifies a workload of one job spec only");
    try {
      group.jobs.push_back({unique_id(j.name, names), job_attributes(j.spec, group)});
    } catch (const UnitError& e) {
      throw FileError(j.location + ": job '" + j.name + "': " + e.what());
    }
  }
  return group;
}

// fio's exitall is the file's (options.c str_exitall_cb): then every job that ends ends the jobs of
// its exit_what: its reporting group (fio's groupid: a stonewall or new_group after jobs starts
// the next), every running job (stonewall), or every job, later ones too (all: they never run,
// so they are left out). Within a workload the groups are numbered from 0 (exit_group).
void take_exitall(std::vector<std::vector<JobState>>& sets, std::vector<std::string>& ignored) {
  bool any = false;
  for (const auto& set : sets)
    for (const JobState& j : set) any = any || j.exitall;
  if (!any) return;
  for (std::string& note : ignored)  // with exitall, new_group is more than output
    if (const auto at = note.find("option 'new_group' ignored: "); at != std::string::npos)
      note = note.substr(0, at) +
             "option 'new_group': with exitall it starts the group of jobs that end together "
             "(exitall=group: exit_group)";
  unsigned groupid = 0, in_group = 0;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    for (JobState& j : sets[k]) {
      if (!j.wait_for.empty())
        throw FileError(j.location + ": job '" + j.name +
                        "': exitall with wait_for: fio's groups then span jobs that storqual "
                        "runs one workload after another");
      if ((j.stonewall || j.new_group) && in_group) {
        in_group = 0;
        ++groupid;
      }
      j.groupid = groupid;
      in_group += j.spec.params.numjobs;
    }
    bool all = false;
    for (JobState& j : sets[k]) {
      j.spec.exitall = j.exit_what == "group" ? ExitScope::Group : ExitScope::Stonewall;
      j.spec.exit_group = j.groupid - sets[k].front().groupid;
      if (j.exit_what != "all") continue;
      all = k + 1 < sets.size();
      ignored.push_back(j.exit_where + ": option 'exit_what=all': when job '" + j.name +
                        "' ends, fio ends every job and starts none after it: storqual ends "
                        "every job of its workload (exitall=stonewall)" +
                        (all ? " and the import leaves out the jobs after it" : ""));
    }
    if (all) sets.resize(k + 1);
  }
}

}  // namespace

std::uint64_t fio_size(const std::string& name, const std::string& value, unsigned kb_base,
                       const std::string& where) {
  return fio_bytes(FioOption{name, value, true, where, false}, value, kb_base);
}

FioImport import_fio_jobs(const FioJobFile& file, std::string_view name) {
  FioImport out;
  out.suite.name = valid_id(name);
  out.suite.description = "imported from the fio jobs of " + file.display_name;
  std::vector<JobState> jobs;
  Refusals refused;
  for (const FioJob& job : file.jobs) jobs.push_back(job_state(job, out.ignored, refused));
  if (!refused.lines.empty()) throw_refusals(refused, file.display_name);
  std::set<std::string> used;
  std::vector<std::vector<JobState>> sets = concurrent_sets(std::move(jobs));
  take_exitall(sets, out.ignored);
  for (std::vector<JobState>& set : sets) {
    std::vector<JobState> distinct = fold_copies(set, out.ignored);
    JobState& first = distinct.front();
    SuiteWorkload w;  // a plain workload, unless its options name a method (latency_target)
    w.spec = distinct.size() == 1 ? std::move(first.spec) : group_of(distinct);
    w.spec.id = unique_id(first.name, used);
    w.location = first.location;
    take_job_method(first.methods, distinct.size(), first.name, w, out.ignored);
    try {
      validate(w.spec);
    } catch (const UnitError& e) {
      throw FileError(first.location + ": job '" + first.name + "': " + e.what());
    }
    out.suite.workloads.push_back(std::move(w));
  }
  return out;
}

bool is_fio_job_file(const std::filesystem::path& path) {
  return path.extension() == ".fio" || path.extension() == ".job";
}

FioImport import_fio_file(const std::filesystem::path& path) {
  const FioEnvironment env = FioEnvironment::of_this_host();
  FioImport im = import_fio_jobs(parse_fio_job_file(path, env), path.stem().string());
  im.suite.path = path;
  im.suite.sha256 = sha256_hex(env.read_file(path));
  return im;
}

FioImport import_fio_command(std::string_view command) {
  return import_fio_jobs(parse_fio_command_line(command, FioEnvironment::of_this_host()),
                         "fio-cmd");
}

}  // namespace storqual::runner
