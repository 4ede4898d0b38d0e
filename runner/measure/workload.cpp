// SPDX-License-Identifier: Apache-2.0
// The workload option table and fio command lines.
#include "runner/measure/workload.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "engines/engine.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/early_stop.hpp"

namespace storqual::runner {
namespace {

unsigned parse_uint(std::string_view name, std::string_view v, unsigned lo, unsigned hi) {
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size())
    throw UnitError(std::string(name) + ": expected a whole number, got '" + std::string(v) + "'");
  if (n < lo || n > hi)
    throw UnitError(std::string(name) + " " + std::string(v) + " is out of range (" +
                    std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return static_cast<unsigned>(n);
}

bool parse_bool(std::string_view name, std::string_view v) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw UnitError(std::string(name) + ": expected 0 or 1, got '" + std::string(v) + "'");
}

double bounded_duration(std::string_view name, std::string_view v) {
  double s = parse_duration(v);
  if (s > kMaxRuntimeSeconds)
    throw UnitError(std::string(name) + " " + std::string(v) +
                    " is longer than the limit of one year");
  return s;
}

// The engines of the registry (engines::engine_names), as the ioengine option's help and its
// message say them: "io_uring, libaio, psync or null". A function-local static, so kOptions may
// read it whatever the order of static initialisation.
const std::string& engine_list() {
  static const std::string text = [] {
    const auto names = engines::engine_names();
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
      out += names[i];
    }
    return out;
  }();
  return text;
}

const WorkloadOption kOptions[] = {
    {"rw", "I/O pattern: read, write, randread, randwrite, rw (sequential mix), randrw", "randread",
     "enum",
     [](WorkloadSpec& w, std::string_view v) {
       (void)parse_rw(v);
       w.params.rw = std::string(v);
     }},
    {"bs", "block size of each I/O (k/m = 1024s)", "4k", "size",
     [](WorkloadSpec& w, std::string_view v) {
       std::uint64_t bs = parse_size(v);
       if (bs == 0) throw UnitError("bs must be greater than 0");
       if (bs > kMaxBlockSize)
         throw UnitError("bs " + std::string(v) + " is above the limit of 256m");
       w.params.bs = bs;
     }},
    {"iodepth", "I/Os kept in flight per job", "1", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.params.iodepth = parse_uint("iodepth", v, 1, kMaxIodepth);
     }},
    {"numjobs", "parallel jobs (threads), each with its own descriptor and engine", "1", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.params.numjobs = parse_uint("numjobs", v, 1, kMaxNumjobs);
     }},
    {"runtime", "run for this long (time based); 0 or absent: cover size once", "", "duration",
     [](WorkloadSpec& w, std::string_view v) {
       w.params.runtime_s = bounded_duration("runtime", v);
     }},
    {"ramp_time", "run this long before counting", "0", "duration",
     [](WorkloadSpec& w, std::string_view v) {
       w.params.ramp_time_s = bounded_duration("ramp_time", v);
     }},
    {"size", "bytes of the target used from offset (default: to its end)", "", "size",
     [](WorkloadSpec& w, std::string_view v) { w.params.size = parse_size(v); }},
    {"max_size", "with no size (the whole target): use at most this much from offset (0: no cap)",
     "0", "size", [](WorkloadSpec& w, std::string_view v) { w.max_size = parse_size(v); }},
    {"offset", "start of the region used", "0", "size",
     [](WorkloadSpec& w, std::string_view v) { w.params.offset = parse_size(v); }},
    {"rwmixread", "percentage of reads in a mixed workload", "50", "percent",
     [](WorkloadSpec& w, std::string_view v) {
       double p = parse_percent(v);
       if (p > 100 || p != std::floor(p))
         throw UnitError("rwmixread must be a whole percentage 0..100");
       w.params.rwmixread = static_cast<unsigned>(p);
     }},
    {"rwmixwrite", "percentage of writes in a mixed workload (100 - rwmixread)", "50", "percent",
     [](WorkloadSpec& w, std::string_view v) {
       double p = parse_percent(v);
       if (p > 100 || p != std::floor(p))
         throw UnitError("rwmixwrite must be a whole percentage 0..100");
       w.params.rwmixread = 100 - static_cast<unsigned>(p);
     }},
    {"ioengine", engine_list(), "io_uring", "enum",
     [](WorkloadSpec& w, std::string_view v) {
       for (auto e : engines::engine_names())
         if (e == v) {
           w.params.ioengine = std::string(v);
           return;
         }
       throw UnitError("ioengine: expected " + engine_list() + ", got '" + std::string(v) + "'");
     }},
    {"direct", "1: O_DIRECT (bypass the page cache)", "1", "bool",
     [](WorkloadSpec& w, std::string_view v) { w.params.direct = parse_bool("direct", v); }},
    {"norandommap",
     "1: draw random offsets independently, with replacement (fio's norandommap); 0: fio's "
     "random map, every block once per pass in a random order",
     "0", "bool",
     [](WorkloadSpec& w, std::string_view v) {
       w.params.randommap = !parse_bool("norandommap", v);
     }},
    {"randommap", "the inverse of norandommap (1, the default: every block once per pass)", "1",
     "bool",
     [](WorkloadSpec& w, std::string_view v) { w.params.randommap = parse_bool("randommap", v); }},
    {"fixedbufs", "io_uring: registered buffers", "1", "bool",
     [](WorkloadSpec& w, std::string_view v) { w.fixedbufs = parse_bool("fixedbufs", v); }},
    {"registerfiles", "io_uring: registered file", "1", "bool",
     [](WorkloadSpec& w, std::string_view v) { w.registerfiles = parse_bool("registerfiles", v); }},
    {"sqpoll", "io_uring: kernel submission polling thread", "0", "bool",
     [](WorkloadSpec& w, std::string_view v) { w.sqpoll = parse_bool("sqpoll", v); }},
    {"hipri", "io_uring: polled completions (iopoll; needs a poll queue)", "0", "bool",
     [](WorkloadSpec& w, std::string_view v) { w.iopoll = parse_bool("hipri", v); }},
    {"iodepth_batch_submit", "requests per submit (0: all ready)", "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.iodepth_batch = parse_uint("iodepth_batch_submit", v, 0, kMaxIodepth);
     }},
    {"iodepth_batch_complete_min",
     "completions to wait for per reap, at most those in flight (0 or 1: one; fio's name)", "1",
     "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.iodepth_batch_complete = parse_uint("iodepth_batch_complete_min", v, 0, kMaxIodepth);
     }},
    {"iodepth_batch_complete_max",
     "most completions taken per reap (0: all that are ready; fio's default is one per reap, "
     "its iodepth_batch_complete_min)",
     "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.iodepth_batch_complete_max = parse_uint("iodepth_batch_complete_max", v, 0, kMaxIodepth);
     }},
    {"spin_wait",
     "io_uring: poll for completions this long before sleeping (auto: 20us while the jobs leave "
     "a CPU free, else 0)",
     "auto", "duration",
     [](WorkloadSpec& w, std::string_view v) {
       if (v == "auto") {
         w.spin_wait_s = -1;
         return;
       }
       w.spin_wait_s = bounded_duration("spin_wait", v);
       if (w.spin_wait_s > 0.01)
         throw UnitError("spin_wait: at most 10ms (a longer poll only burns CPU), got '" +
                         std::string(v) + "'");
     }},
    {"early_stop",
     "stop once the IOPS (or bw) confidence interval is within +-H% and steady: ci:H%@C[,min=T]"
     "[,every=S][,cover=P][,metric=iops|bw], e.g. ci:1%@95 (off: the full runtime)",
     "off", "text",
     [](WorkloadSpec& w, std::string_view v) {
       (void)parse_early_stop(v);  // throws on a malformed rule
       w.early_stop = v == "off" || v == "0" ? std::string() : std::string(v);
     }},
    {"ss", "fio's steady-state criterion: iops|iops_slope|bw|bw_slope:LIMIT (N% of the mean)",
     "iops_slope:0.01%", "text",
     [](WorkloadSpec& w, std::string_view v) { apply_steady_state_criterion(w.steadystate, v); }},
    {"ss_dur", "fio's steady state: end once ss holds over this many 1 s samples (0: off)", "0",
     "duration",
     [](WorkloadSpec& w, std::string_view v) { apply_steady_state_duration(w.steadystate, v); }},
    {"ss_ramp", "fio's steady state: measured time before its first sample", "0", "duration",
     [](WorkloadSpec& w, std::string_view v) { apply_steady_state_ramp(w.steadystate, v); }},
    {"log_avg_msec", "timeline interval", "1000", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.interval_s = parse_uint("log_avg_msec", v, 10, 3600000) / 1000.0;
     }},
    {"io_limit",
     "stop after this many bytes of all jobs together, with a runtime whichever comes first "
     "(fio's io_size counts per job: io_limit = io_size x numjobs); 0: off",
     "0", "size", [](WorkloadSpec& w, std::string_view v) { w.io_limit = parse_size(v); }},
    {"io_timeout", "a request outstanding longer than this ends the workload with an error", "0",
     "duration",
     [](WorkloadSpec& w, std::string_view v) {
       w.io_timeout_s = bounded_duration("io_timeout", v);
     }},
    {"rate_iops",
     "open-loop rate per job in I/Os per second (latency counts from each I/O's due time)", "0",
     "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.rate_iops = parse_uint("rate_iops", v, 0, 100000000);
     }},
    {"rate", "open-loop rate per job in bytes per second (k/m/g = 1024s), as fio's rate", "0",
     "size", [](WorkloadSpec& w, std::string_view v) { w.rate_bytes = parse_size(v); }},
    {"number_ios", "stop each job after this many I/Os (fio's number_ios; never extends a run)",
     "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       std::uint64_t n = 0;
       const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
       if (ec != std::errc() || end != v.data() + v.size())
         throw UnitError("number_ios: expected a whole number of I/Os, got '" + std::string(v) +
                         "'");
       w.number_ios = n;
     }},
    {"seq_add",
     "sequential holes (fio's rw=MODE:N): each I/O starts this many bytes after the end of the "
     "last, negative backwards; a multiple of bs",
     "0", "text",
     [](WorkloadSpec& w, std::string_view v) {
       const bool back = v.starts_with("-");
       const std::uint64_t n = parse_size(back ? v.substr(1) : v);
       if (n > (std::uint64_t{1} << 62)) throw UnitError("seq_add: too large");
       w.seq_add = back ? -static_cast<std::int64_t>(n) : static_cast<std::int64_t>(n);
     }},
    {"offset_increment",
     "job k starts its region at offset + k x this (fio's offset_increment); needs a size", "0",
     "size", [](WorkloadSpec& w, std::string_view v) { w.offset_increment = parse_size(v); }},
    {"zonemode",
     "strided: fio's strided zones (zonesize alone sets it, as fio); zbd: a zoned block "
     "device's own zones (reads); none",
     "none",
     "enum", [](WorkloadSpec& w, std::string_view v) { w.zones.mode = parse_zone_mode(v); }},
    {"zonesize",
     "strided zones: the bytes each job moves in a zone before the next; zbd: the device's zone "
     "size (checked at the start)",
     "0", "size",
     [](WorkloadSpec& w, std::string_view v) { w.zones.size = parse_size(v); }},
    {"zonerange", "strided zones: a zone's extent (0: zonesize)", "0", "size",
     [](WorkloadSpec& w, std::string_view v) { w.zones.range = parse_size(v); }},
    {"zoneskip", "strided zones: the bytes left out between two zones", "0", "size",
     [](WorkloadSpec& w, std::string_view v) { w.zones.skip = parse_size(v); }},
    {"read_beyond_wp",
     "zonemode=zbd: 1 reads past each zone's write pointer too; 0 reads only written data (fio's)",
     "0", "bool",
     [](WorkloadSpec& w, std::string_view v) {
       w.zones.read_beyond_wp = parse_bool("read_beyond_wp", v);
     }},
    {"max_open_zones", "zonemode=zbd: fio's limit on zones written at once (0: the device's)", "0",
     "int", [](WorkloadSpec& w, std::string_view v) {
       w.zones.max_open_zones = parse_uint("max_open_zones", v, 0, 1u << 20);
     }},
    {"rate_process",
     "linear: I/O k is due at k / rate; poisson: exponential gaps of mean 1 / rate (fio's)",
     "linear", "enum",
     [](WorkloadSpec& w, std::string_view v) {
       if (v != "linear" && v != "poisson")
         throw UnitError("rate_process: expected linear or poisson, got '" + std::string(v) + "'");
       w.rate_poisson = v == "poisson";
     }},
    {"rate_iops_min", "the job fails when it does fewer I/Os per second over a rate_cycle", "0",
     "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.rate_iops_min = parse_uint("rate_iops_min", v, 0, 100000000);
     }},
    {"ratemin", "the job fails when it moves fewer bytes per second over a rate_cycle", "0",
     "size", [](WorkloadSpec& w, std::string_view v) { w.rate_min_bytes = parse_size(v); }},
    {"rate_cycle", "milliseconds over which ratemin and rate_iops_min are checked (fio's)",
     "1000", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.rate_cycle_s = parse_uint("rate_cycle", v, 1, 3600000) / 1000.0;
     }},
    {"startdelay", "each job's first I/O waits this long, or a time drawn in a range 'A-B'", "0",
     "text",
     [](WorkloadSpec& w, std::string_view v) {
       const auto dash = v.find('-');
       w.startdelay_s = bounded_duration("startdelay", v.substr(0, dash));
       w.startdelay_max_s = dash == std::string_view::npos
                                ? 0
                                : bounded_duration("startdelay", v.substr(dash + 1));
       if (w.startdelay_max_s && w.startdelay_max_s < w.startdelay_s)
         throw UnitError("startdelay: a range A-B needs B >= A, got '" + std::string(v) + "'");
     }},
    {"thinktime", "after every thinktime_blocks I/Os, let them complete and wait this long", "0",
     "duration",
     [](WorkloadSpec& w, std::string_view v) {
       w.thinktime_s = bounded_duration("thinktime", v);
     }},
    {"thinktime_spin", "of each thinktime, spin this long on the CPU before sleeping", "0",
     "duration",
     [](WorkloadSpec& w, std::string_view v) {
       w.thinktime_spin_s = bounded_duration("thinktime_spin", v);
     }},
    {"thinktime_blocks", "I/Os between two think times", "1", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.thinktime_blocks = parse_uint("thinktime_blocks", v, 1, 1u << 30);
     }},
    {"flow",
     "weight of the job's share of its flow's I/Os (fio's flow: jobs of one flow_id run in the "
     "ratio of their weights)",
     "0", "int",
     [](WorkloadSpec& w, std::string_view v) { w.flow = parse_uint("flow", v, 0, 1000); }},
    {"flow_id", "the flow the job's flow weight counts in (fio's flow_id)", "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.flow_id = parse_uint("flow_id", v, 0, 1u << 30);
     }},
    {"flow_sleep",
     "microseconds a job held back by its flow waits (after its I/Os in flight completed) "
     "before it looks again (fio's flow_sleep); 0: it looks again at once",
     "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.flow_sleep_us = parse_uint("flow_sleep", v, 0, 3600000000u);
     }},
    {"exitall",
     "when a job ends, end others too (fio's exitall with its exit_what): group (the jobs of its "
     "exit_group), stonewall (every job of the workload), 0 (none)",
     "0", "enum", [](WorkloadSpec& w, std::string_view v) { w.exitall = parse_exit_scope(v); }},
    {"exit_group", "the job's group for exitall=group (fio's reporting group: new_group)", "0",
     "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.exit_group = parse_uint("exit_group", v, 0, kMaxNumjobs);
     }},
    {"continue_on_error", "1: count I/O errors and keep going (fio's continue_on_error=io)", "0",
     "bool",
     [](WorkloadSpec& w, std::string_view v) {
       w.continue_on_error = parse_bool("continue_on_error", v);
     }},
    {"fadvise_hint",
     "posix_fadvise on each job's region when it opens (readahead of buffered I/O): 1 = random "
     "or sequential as the pattern is, random, sequential, 0 = none",
     "1", "enum",
     [](WorkloadSpec& w, std::string_view v) { w.fadvise_hint = parse_fadvise_hint(v); }},
    {"write_contents",
     "what each write carries over the job's random buffer: stamp = fresh random bytes in every "
     "512-byte sector, scramble = fio's default (offset and start time in every sector), fixed = "
     "the same buffer every time, refill = new random bytes every time",
     "stamp", "enum",
     [](WorkloadSpec& w, std::string_view v) { w.write_contents = parse_write_contents(v); }},
    {"buffer_compress_percentage",
     "as fio's: this share of every buffer_compress_chunk of a write is zeros, the rest random "
     "(vdbench's compratio=N is 100 x (1 - 1/N)); 100 = all zeros",
     "0", "percent",
     [](WorkloadSpec& w, std::string_view v) {
       w.buffers.compress_percentage = parse_uint("buffer_compress_percentage", v, 0, 100);
     }},
    {"buffer_compress_chunk", "the unit of buffer_compress_percentage, as fio's (0: the write)",
     "512", "size",
     [](WorkloadSpec& w, std::string_view v) {
       const std::uint64_t n = parse_size(v);
       if (n > kMaxBlockSize) throw UnitError("buffer_compress_chunk is larger than 256 MiB");
       w.buffers.compress_chunk = static_cast<std::uint32_t>(n);
     }},
    {"dedupe_percentage",
     "as fio's: this share of writes repeat an earlier one's contents (vdbench's dedupratio=N is "
     "100 x (1 - 1/N))",
     "0", "percent",
     [](WorkloadSpec& w, std::string_view v) {
       w.buffers.dedupe_percentage = parse_uint("dedupe_percentage", v, 0, 100);
     }},
    {"dedupe_mode",
     "repeat: a repeated write takes the last unique one's generator; working_set: one of a set "
     "of pages drawn at start (fio's)",
     "repeat", "enum",
     [](WorkloadSpec& w, std::string_view v) { w.buffers.dedupe_mode = parse_dedupe_mode(v); }},
    {"dedupe_working_set_percentage",
     "dedupe_mode=working_set: the set's unique pages as this share of the job's size", "5",
     "percent",
     [](WorkloadSpec& w, std::string_view v) {
       w.buffers.dedupe_working_set_percentage =
           parse_uint("dedupe_working_set_percentage", v, 0, 100);
     }},
    {"dedupe_global",
     "dedupe_mode=working_set: the set spans every job of the workload, as fio's", "0", "bool",
     [](WorkloadSpec& w, std::string_view v) {
       w.buffers.dedupe_global = parse_bool("dedupe_global", v);
     }},
    {"verify",
     "crc32c or xxh3: write blocks with a checksummed header and read them back (corrupted, "
     "misplaced, stale, foreign); 0 = off",
     "0", "enum",
     [](WorkloadSpec& w, std::string_view v) { w.verify = parse_verify_algorithm(v); }},
    {"verify_backlog",
     "verify inline: after every N blocks written, read recent ones back (0: off)", "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.verify_backlog = parse_uint("verify_backlog", v, 0, 1u << 24);
     }},
    {"verify_backlog_batch",
     "blocks read back per backlog check, the most recent ones (0: all verify_backlog of them)",
     "0", "int",
     [](WorkloadSpec& w, std::string_view v) {
       w.verify_backlog_batch = parse_uint("verify_backlog_batch", v, 0, 1u << 24);
     }},
    {"bssplit",
     "block sizes by share of I/Os, as fio's: BS/PCT:BS/PCT...[,WRITES] (e.g. 4k/10:64k/90)", "",
     "text",
     [](WorkloadSpec& w, std::string_view v) {
       if (v.empty()) {  // no mix: every direction takes bs (a <job> over a group's mix)
         w.bs_mix = BlockSizeMix{};
         return;
       }
       merge_block_size_mix(w.bs_mix,
                            parse_bssplit(v, [](std::string_view s) { return parse_size(s); }));
     }},
    {"bsrange", "block sizes drawn from a range, as fio's: LO-HI[,LO-HI for writes]", "", "text",
     [](WorkloadSpec& w, std::string_view v) {
       if (v.empty()) {  // no mix: every direction takes bs (a <job> over a group's mix)
         w.bs_mix = BlockSizeMix{};
         return;
       }
       merge_block_size_mix(w.bs_mix,
                            parse_bsrange(v, [](std::string_view s) { return parse_size(s); }));
     }},
    {"random_distribution",
     "random offsets as fio's: random (uniform), zipf:THETA, pareto:H, normal:DEV, "
     "zoned:ACCESS/SIZE%:..., zoned_abs:ACCESS/SIZE:... (each draw independent)",
     "random", "text",
     [](WorkloadSpec& w, std::string_view v) {
       const bool use64 = w.distribution.use64;
       w.distribution =
           parse_random_distribution(v, [](std::string_view s) { return parse_size(s); });
       w.distribution.use64 = use64;
     }},
    {"random_generator",
     "fio's generator of skewed offsets' uniform draws (tausworthe, tausworthe64), or lfsr: "
     "uniform offsets from fio's LFSR, each block once per pass",
     "tausworthe", "enum",
     [](WorkloadSpec& w, std::string_view v) {
       if (v != "tausworthe" && v != "tausworthe64" && v != "lfsr")
         throw UnitError("random_generator: expected tausworthe, tausworthe64 or lfsr, got '" +
                         std::string(v) + "'");
       w.distribution.use64 = v == "tausworthe64";
       w.distribution.lfsr = v == "lfsr";
     }},
    {"blockalign",
     "with a block-size mix: random offsets on multiples of this, as fio's (0: the smallest size)",
     "0", "size", [](WorkloadSpec& w, std::string_view v) { w.blockalign = parse_size(v); }},
    {"do_verify", "with verify: read every written block back at the end of the workload", "1",
     "bool", [](WorkloadSpec& w, std::string_view v) { w.do_verify = parse_bool("do_verify", v); }},
};

}  // namespace

std::span<const WorkloadOption> workload_options() noexcept {
  return kOptions;
}

const WorkloadOption* find_workload_option(std::string_view name) noexcept {
  for (const auto& o : kOptions)
    if (o.name == name) return &o;
  return nullptr;
}

void set_workload_option(WorkloadSpec& spec, std::string_view name, std::string_view value) {
  const WorkloadOption* o = find_workload_option(name);
  if (!o) throw UnitError("unknown workload option '" + std::string(name) + "'");
  o->apply(spec, value);
}

RwMode parse_rw(std::string_view rw) {
  if (rw == "read") return RwMode::Read;
  if (rw == "write") return RwMode::Write;
  if (rw == "randread") return RwMode::RandRead;
  if (rw == "randwrite") return RwMode::RandWrite;
  if (rw == "rw" || rw == "readwrite") return RwMode::ReadWrite;
  if (rw == "randrw") return RwMode::RandRW;
  throw UnitError("rw: expected read, write, randread, randwrite, rw or randrw, got '" +
                  std::string(rw) + "'");
}

FadviseHint parse_fadvise_hint(std::string_view v) {
  if (v == "0") return FadviseHint::None;
  if (v == "1") return FadviseHint::Pattern;
  if (v == "random") return FadviseHint::Random;
  if (v == "sequential") return FadviseHint::Sequential;
  throw UnitError("fadvise_hint: expected 0, 1, random or sequential, got '" + std::string(v) +
                  "'");
}

std::string_view fadvise_hint_name(FadviseHint h) noexcept {
  switch (h) {
    case FadviseHint::None:
      return "0";
    case FadviseHint::Random:
      return "random";
    case FadviseHint::Sequential:
      return "sequential";
    case FadviseHint::Pattern:
      break;
  }
  return "1";
}

bool rw_reads(RwMode m) noexcept {
  return m != RwMode::Write && m != RwMode::RandWrite;
}
bool rw_writes(RwMode m) noexcept {
  return m != RwMode::Read && m != RwMode::RandRead;
}
bool rw_random(RwMode m) noexcept {
  return m == RwMode::RandRead || m == RwMode::RandWrite || m == RwMode::RandRW;
}

namespace {

// The options that are one for the whole group: its measured window and its checks.
constexpr std::string_view kGroupOnlyOptions[] = {
    "runtime", "ramp_time",      "early_stop",           "ss",       "ss_dur", "ss_ramp",
    "verify",  "verify_backlog", "verify_backlog_batch", "do_verify"};

}  // namespace

bool group_only_option(std::string_view name) noexcept {
  return std::find(std::begin(kGroupOnlyOptions), std::end(kGroupOnlyOptions), name) !=
         std::end(kGroupOnlyOptions);
}

std::vector<WorkloadSpec> group_members(const WorkloadSpec& group) {
  std::vector<WorkloadSpec> members;
  for (const GroupJob& job : group.jobs) {
    WorkloadSpec m = group;
    m.jobs.clear();
    m.id = job.name;
    for (const auto& [name, value] : job.options) {
      if (group_only_option(name))
        throw UnitError("job '" + job.name + "': " + name +
                        " is the group's: its jobs run together over one measured window (set it "
                        "on the workload)");
      try {
        set_workload_option(m, name, value);
      } catch (const UnitError& e) {
        throw UnitError("job '" + job.name + "': " + e.what());
      }
    }
    members.push_back(std::move(m));
  }
  return members;
}

namespace {

// Whether the workload's pattern, or any member's of a group, has `direction`.
bool any_pattern(const WorkloadSpec& w, bool (*direction)(RwMode) noexcept) {
  if (w.jobs.empty()) return direction(parse_rw(w.params.rw));
  const auto members = group_members(w);
  return std::any_of(members.begin(), members.end(), [direction](const WorkloadSpec& m) {
    return direction(parse_rw(m.params.rw));
  });
}

}  // namespace

bool writes(const WorkloadSpec& w) {
  return any_pattern(w, rw_writes);
}

bool reads(const WorkloadSpec& w) {
  return any_pattern(w, rw_reads);
}

namespace {

// A group: its jobs' names unique and valid, each member valid, nothing the group must not do.
void validate_group(const WorkloadSpec& spec) {
  if (spec.verify != VerifyAlgorithm::None)
    throw UnitError("verify on a group of jobs: its jobs would write over each other's blocks");
  if (!spec.early_stop.empty())
    throw UnitError("early_stop on a group of jobs: it tracks the figure of one job spec");
  std::vector<std::string_view> names;
  for (const GroupJob& job : spec.jobs) {
    if (job.name.empty()) throw UnitError("a job of the group has no name");
    if (std::find(names.begin(), names.end(), job.name) != names.end())
      throw UnitError("two jobs named '" + job.name + "' in the group");
    names.push_back(job.name);
  }
  for (const WorkloadSpec& m : group_members(spec)) {
    try {
      validate(m);
    } catch (const UnitError& e) {
      throw UnitError("job '" + m.id + "': " + e.what());
    }
  }
}

}  // namespace

void validate(const WorkloadSpec& spec) {
  if (!spec.jobs.empty()) validate_group(spec);
  const auto& p = spec.params;
  (void)parse_rw(p.rw);
  if (p.bs == 0) throw UnitError("bs must be greater than 0");
  if (p.bs > kMaxBlockSize) throw UnitError("bs is above the limit of 256m");
  if (p.iodepth == 0 || p.iodepth > kMaxIodepth)
    throw UnitError("iodepth must be 1.." + std::to_string(kMaxIodepth));
  if (p.numjobs == 0 || p.numjobs > kMaxNumjobs)
    throw UnitError("numjobs must be 1.." + std::to_string(kMaxNumjobs));
  if (p.rwmixread > 100) throw UnitError("rwmixread must be 0..100");
  if (spec.steadystate.active() && !spec.early_stop.empty())
    throw UnitError("ss_dur with early_stop: two rules for ending the workload early, give one");
  if (p.runtime_s > kMaxRuntimeSeconds || p.ramp_time_s > kMaxRuntimeSeconds)
    throw UnitError("runtime and ramp_time are limited to one year");
  if (p.size != 0 && p.size < p.bs)
    throw UnitError("size " + format_size_fio(p.size) + " is smaller than bs " +
                    format_size_fio(p.bs));
  if (spec.verify != VerifyAlgorithm::None) {
    if (!rw_writes(parse_rw(p.rw)))
      throw UnitError("verify needs a workload that writes (rw=" + p.rw + " does not)");
    if (p.ioengine == "null")
      throw UnitError("verify needs a real target: the null engine stores nothing");
    if (p.bs < kMinVerifiedBlock)
      throw UnitError("verify needs bs of at least " + std::to_string(kMinVerifiedBlock));
  }
  // Under direct=1 the offset need not be a multiple of bs (fio's neither): the run checks it
  // against the target's logical block (job_start.cpp check_region).
  validate_block_sizes(spec);
  validate_distribution(spec);
  validate_pacing(spec);
  validate_buffers(spec);
  validate_zones(spec);
  if (spec.offset_increment) {
    if (!spec.params.size)
      throw UnitError("offset_increment needs a size (each job's region is size bytes)");
    if (spec.mixed_block_sizes() || spec.verify != VerifyAlgorithm::None ||
        spec.distribution.skewed())
      throw UnitError("offset_increment with a block-size mix, verify or a skewed distribution");
    if (spec.offset_increment % spec.params.bs)
      throw UnitError("offset_increment is not a multiple of bs " +
                      format_size_fio(spec.params.bs));
  }
  if (spec.seq_add) {
    if (rw_random(parse_rw(spec.params.rw)))
      throw UnitError("seq_add (rw=MODE:N) on a random rw: storqual takes holes in sequential I/O");
    if (spec.seq_add % static_cast<std::int64_t>(spec.params.bs))
      throw UnitError("seq_add " + std::to_string(spec.seq_add) + " is not a multiple of bs " +
                      format_size_fio(spec.params.bs));
    if (spec.mixed_block_sizes() || spec.verify != VerifyAlgorithm::None)
      throw UnitError("seq_add (rw=MODE:N) with a block-size mix or verify");
  }
}

namespace {

// `--name=VALUE` as one bash word: single-quoted when VALUE holds anything but letters, digits
// and _ . / : = @ % + , - (a latency search's step "bench (iodepth 64)" has spaces and brackets).
std::string shell_word(const std::string& option, const std::string& value) {
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./:=@%+,-", c);
  });
  if (plain && !value.empty()) return option + value;
  std::string out = "'" + option;
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// fio's offset modifier of rw for seq_add (":8k", ":-8k"), "" without one.
std::string fio_rw_modifier(const WorkloadSpec& spec) {
  if (!spec.seq_add) return {};
  const std::uint64_t n = spec.seq_add < 0 ? static_cast<std::uint64_t>(-spec.seq_add)
                                           : static_cast<std::uint64_t>(spec.seq_add);
  return std::string(spec.seq_add < 0 ? ":-" : ":") + format_size_fio(n);
}

// One job's part of a fio command line: "--name=ID --filename=... --rw=...".
std::string fio_job_options(const WorkloadSpec& spec, bool group_reporting) {
  constexpr std::uint64_t kNullTargetSize = std::uint64_t{1} << 40;  // job_runner's check_region
  const auto& p = spec.params;
  std::string engine = p.ioengine == "null" ? "null" : p.ioengine;
  std::string cmd = shell_word("--name=", spec.id.empty() ? std::string("storqual") : spec.id);
  if (!p.target.empty() && engine != "null") cmd += " " + shell_word("--filename=", p.target);
  cmd += " --ioengine=" + engine + " --rw=" + p.rw + fio_rw_modifier(spec) +
         " --bs=" + format_size_fio(p.bs) + " --iodepth=" + std::to_string(p.iodepth) +
         " --direct=" + (p.direct ? "1" : "0");
  for (const std::string& o : block_size_mix_options(spec)) cmd += " --" + o;
  for (const std::string& o : distribution_options(spec)) cmd += " " + shell_word("--", o);
  // Jobs are threads of one process here, as fio's --thread (fio forks one process per job).
  cmd += " --thread";
  if (p.numjobs > 1)
    cmd +=
        " --numjobs=" + std::to_string(p.numjobs) + (group_reporting ? " --group_reporting" : "");
  if (p.rw == "rw" || p.rw == "randrw") cmd += " --rwmixread=" + std::to_string(p.rwmixread);
  // The null engine has no size of its own: storqual gives it 1 TiB from offset, fio needs one.
  if (p.size)
    cmd += " --size=" + format_size_fio(p.size);
  else if (engine == "null")
    cmd += " --size=" + format_size_fio(kNullTargetSize - std::min(p.offset, kNullTargetSize));
  if (p.offset) cmd += " --offset=" + format_size_fio(p.offset);
  // storqual's runtime is always time based: it runs the whole runtime, passing over the region
  // again when it is covered (fio without --time_based would stop there).
  // With an I/O limit it stops at whichever comes first, as fio does without --time_based (with
  // it, fio would ignore io_size).
  if (p.runtime_s > 0)
    cmd += std::string(spec.io_limit ? "" : " --time_based") +
           " --runtime=" + format_duration_fio(p.runtime_s);
  if (p.ramp_time_s > 0) cmd += " --ramp_time=" + format_duration_fio(p.ramp_time_s);
  // io_limit counts the bytes of all jobs together, fio's io_size those of each job.
  if (spec.io_limit) {
    const std::uint64_t per_job_ios = (spec.io_limit / p.bs + p.numjobs - 1) / p.numjobs;
    cmd += " --io_size=" + format_size_fio(std::max<std::uint64_t>(1, per_job_ios) * p.bs);
  }
  if (p.ioengine == "io_uring") {
    if (spec.fixedbufs) cmd += " --fixedbufs";
    if (spec.registerfiles) cmd += " --registerfiles";
    if (spec.sqpoll) cmd += " --sqthread_poll";
    if (spec.iopoll) cmd += " --hipri";
  }
  // fio paces each direction to its own rate: a job that reads and writes splits the total by
  // rwmixread.
  const bool both = rw_reads(parse_rw(p.rw)) && rw_writes(parse_rw(p.rw));
  auto rate = [&](double total) {
    const long long all = std::llround(total);
    if (!both) return std::to_string(all);
    const long long r = std::llround(total * p.rwmixread / 100.0);
    return std::to_string(r) + "," + std::to_string(all - r);
  };
  if (spec.number_ios) cmd += " --number_ios=" + std::to_string(spec.number_ios);
  for (const std::string& o : exit_options(spec)) cmd += " --" + o;
  if (spec.offset_increment) cmd += " --offset_increment=" + format_size_fio(spec.offset_increment);
  if (spec.rate_iops > 0) cmd += " --rate_iops=" + rate(spec.rate_iops);
  if (spec.rate_bytes) cmd += " --rate=" + rate(static_cast<double>(spec.rate_bytes));
  for (const std::string& o : pacing_options(spec)) {
    const auto eq = o.find('=');
    const std::string name = o.substr(0, eq);
    if (name == "rate_iops_min" || name == "ratemin")
      cmd += " --" + name + "=" + rate(std::stod(o.substr(eq + 1)));
    else
      cmd += " " + shell_word("--", o);
  }
  // Submission: storqual hands everything that is ready to the kernel at once (iodepth_batch 0);
  // fio's default (1) enters the kernel once per I/O, its 0 or iodepth batches as storqual does.
  const unsigned batch = spec.iodepth_batch ? spec.iodepth_batch : p.iodepth;
  if (batch > 1) cmd += " --iodepth_batch_submit=" + std::to_string(batch);
  if (spec.iodepth_batch_complete > 1)
    cmd += " --iodepth_batch_complete_min=" + std::to_string(spec.iodepth_batch_complete);
  // Reaping: storqual takes every completion that is ready (0), fio at most
  // iodepth_batch_complete_min unless told.
  const unsigned reap_max =
      spec.iodepth_batch_complete_max ? spec.iodepth_batch_complete_max : p.iodepth;
  if (reap_max > std::max(1u, spec.iodepth_batch_complete))
    cmd += " --iodepth_batch_complete_max=" + std::to_string(reap_max);
  if (spec.fadvise_hint != FadviseHint::Pattern)
    cmd += " --fadvise_hint=" + std::string(fadvise_hint_name(spec.fadvise_hint));
  if (rw_writes(parse_rw(p.rw)) && !fio_write_contents(spec.write_contents).empty())
    cmd += " --" + std::string(fio_write_contents(spec.write_contents));
  for (const std::string& o : buffer_options(spec)) cmd += " --" + o;
  for (const std::string& o : zone_options(spec)) cmd += " --" + o;
  for (const std::string& o : steady_state_options(spec.steadystate))
    cmd += " " + shell_word("--", o);
  if (spec.continue_on_error) cmd += " --continue_on_error=io";
  if (spec.verify != VerifyAlgorithm::None) {
    // fio has crc32c; its nearest to xxh3 is xxhash.
    cmd +=
        std::string(" --verify=") + (spec.verify == VerifyAlgorithm::Crc32c ? "crc32c" : "xxhash");
    if (spec.verify_backlog) cmd += " --verify_backlog=" + std::to_string(spec.verify_backlog);
    if (spec.verify_backlog_batch)
      cmd += " --verify_backlog_batch=" + std::to_string(spec.verify_backlog_batch);
    if (!spec.do_verify) cmd += " --do_verify=0";
  }
  // A new random sequence every run (storqual seeds from the start time; fio's default repeats
  // one). fio's random map is its default: only its absence is spelled out.
  cmd += " --randrepeat=0";
  if (rw_random(parse_rw(p.rw)) && !p.randommap) cmd += " --norandommap";
  return cmd;
}

}  // namespace

// A group is one fio job per member on one command line: fio starts them together (no stonewall
// between them) and reports each job apart (no group_reporting, which would add them up).
std::string fio_command(const WorkloadSpec& spec) {
  if (spec.jobs.empty()) return "fio " + fio_job_options(spec, true);
  std::string cmd = "fio";
  unsigned group = 0;  // fio's next reporting group: --new_group (exitall=group's groups)
  for (const WorkloadSpec& m : group_members(spec)) {
    cmd += " " + fio_job_options(m, false) + (m.exit_group != group ? " --new_group" : "");
    group = m.exit_group;
  }
  return cmd;
}

}  // namespace storqual::runner
