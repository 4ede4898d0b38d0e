// SPDX-License-Identifier: Apache-2.0
// A workload in fio's terms, and the one declarative table of its options (as fio's options.c):
// name, help, default and how to apply a textual value. The bench command line, the suite XML
// attributes, validation messages and the docs all come from this table.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.hpp"
#include "runner/measure/block_size_mix.hpp"
#include "runner/measure/fio_steady_state.hpp"
#include "runner/measure/offset_distribution.hpp"
#include "runner/measure/strided_zones.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/write_buffers.hpp"

namespace storqual::runner {

enum class RwMode { Read, Write, RandRead, RandWrite, ReadWrite, RandRW };

// fio's fadvise_hint: what each job advises the kernel (posix_fadvise over its region) when it
// opens the target. It shapes readahead, so it matters to buffered I/O only. Pattern (fio's "1",
// the default in both tools) advises RANDOM for a random pattern and SEQUENTIAL for the others.
enum class FadviseHint { None, Pattern, Random, Sequential };

// What a write carries (docs/formats.md, `write_contents`). Every job's buffers start with random
// bytes; then each write gets:
// - Stamp (storqual's default): 8 fresh random bytes at the start of every 512-byte sector, so no
//   sector repeats one written before (a deduplicating array cannot fold it) and a compressor
//   finds nothing to work on;
// - Scramble: fio's default (scramble_buffers=1): the sector's byte offset in one 64-byte line of
//   every sector and the I/O's start time in bytes 48-63 of each, the same 16 bytes in all the
//   sectors of one write (a compressor finds them: zram's takes longer over them);
// - Fixed: nothing; the buffer's first contents every time (fio's scramble_buffers=0);
// - Refill: new random bytes over the whole buffer (fio's refill_buffers).
enum class WriteContents { Stamp, Scramble, Fixed, Refill };

// fio's exitall with the job's exit_what (backend.c fio_terminate_threads): which jobs end when
// this one does. Group: the jobs of its exit_group (fio's reporting group, which new_group starts);
// Stonewall: every job of the workload (fio's "stonewall": every job running).
enum class ExitScope { None, Group, Stonewall };

// One member job of a group workload (docs/formats.md, "<job>"): its name and the workload options
// it sets over the workload's own, which are its defaults (as fio's [global] for the jobs after
// it), by the option table's names with their values as written.
struct GroupJob {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
};

struct WorkloadSpec {
  std::string id;                    // unique within a suite, e.g. "randread-4k-qd32"
  reporting::WorkloadParams params;  // rw, bs, iodepth, numjobs, runtime, ramp, size, offset, ...
  // Engine tuning (io_uring): registered buffers and file are on by default.
  bool fixedbufs = true;
  bool registerfiles = true;
  bool sqpoll = false;
  bool iopoll = false;
  unsigned iodepth_batch = 0;  // requests per submit; 0 = all that are ready
  // Completions to wait for per reap (fio's iodepth_batch_complete_min; at most what is in
  // flight); 0 or 1 = one.
  unsigned iodepth_batch_complete = 0;
  // Most completions taken per reap (fio's iodepth_batch_complete_max); 0 = all that are ready.
  // fio's own default is iodepth_batch_complete_min: it takes one completion per system call, so a
  // fio job file imported (runner/specs/fio_suite.hpp) sets it to run as fio does.
  unsigned iodepth_batch_complete_max = 0;
  FadviseHint fadvise_hint = FadviseHint::Pattern;
  WriteContents write_contents = WriteContents::Stamp;
  // Compressible and deduplicable writes as fio's (buffer_compress_percentage, dedupe_percentage
  // and their kin; runner/measure/write_buffers.hpp): when set, every write is refilled by fio's
  // generators (write_contents refill) instead of write_contents' own.
  BufferShape buffers;
  // Early stop (runner/measure/early_stop.hpp): "ci:1%@95[,min=3s]" or "" (off); time-based runs
  // only.
  std::string early_stop;
  // fio's steady state (ss, ss_dur, ss_ramp; runner/measure/fio_steady_state.hpp): the workload
  // ends once its one-second IOPS or bandwidth meet fio's criterion. Off without ss_dur.
  FioSteadyState steadystate;
  double spin_wait_s = -1;  // io_uring: poll this long before sleeping; < 0 = auto
  double interval_s = 1.0;  // timeline interval
  // With no size (the whole target from offset): use at most this many bytes (0 = no cap). For
  // methods that run "over the whole device" with a bound on what that may mean (docs/formats.md).
  std::uint64_t max_size = 0;
  double io_timeout_s = 0;  // a request outstanding longer than this is an error (0 = off)
  bool continue_on_error = false;
  // Open-loop load at a fixed rate per job (fio's rate_iops / rate): I/O k is due at
  // start + k / rate and its latency counts from that due time, so a device that stalls cannot
  // hide the queueing it caused (coordinated omission). 0 = as fast as iodepth allows.
  double rate_iops = 0;
  std::uint64_t rate_bytes = 0;  // bytes per second; converted to I/Os per second with bs
  // fio's rate_process=poisson: the gap to the next due time is exponential (fio's own draw,
  // usec_for_io) instead of 1 / rate (linear, the default).
  bool rate_poisson = false;
  // fio's rate_iops_min / ratemin (bytes per second): the job fails when, over a rate_cycle, it
  // did fewer (fio's check_min_rate); 0 = off.
  double rate_iops_min = 0;
  std::uint64_t rate_min_bytes = 0;
  double rate_cycle_s = 1.0;  // fio's rate_cycle (1000 ms)
  // fio's startdelay: each job's first I/O waits this long after the workload starts; with
  // startdelay_max_s > startdelay_s, a time drawn in the range per job (fio's "a-b").
  double startdelay_s = 0;
  double startdelay_max_s = 0;
  // fio's thinktime: after every thinktime_blocks I/Os the job lets what it has in flight
  // complete, then waits thinktime_s (spinning thinktime_spin_s of it). 0 = off.
  double thinktime_s = 0;
  double thinktime_spin_s = 0;
  unsigned thinktime_blocks = 1;
  // fio's flow control (flow.c): the jobs of a workload with the same flow_id share one counter
  // of the I/Os they issued, and a job whose share of it is above its share of their weights
  // (flow / the sum of theirs) issues nothing until it is not (after flow_sleep_us, with what
  // it had in flight completed first); a job's counts leave the counter when it ends. 0 = off.
  unsigned flow = 0;
  unsigned flow_id = 0;
  std::uint64_t flow_sleep_us = 0;
  // fio's exitall: when a job ends (its bytes, its number_ios, an error), the jobs of `exitall`'s
  // scope end too, as if their time were up; exit_group numbers the workload's groups from 0.
  ExitScope exitall = ExitScope::None;
  unsigned exit_group = 0;
  // Data verification (runner/measure/verify.hpp, docs/integrity.md): every block written carries a
  // checksummed header; blocks are read back and classified at the end (do_verify) and inline
  // (every verify_backlog writes, the last verify_backlog_batch of them; 0 = all of them).
  VerifyAlgorithm verify = VerifyAlgorithm::None;
  unsigned verify_backlog = 0;
  unsigned verify_backlog_batch = 0;
  bool do_verify = true;
  // Stop once this many bytes were transferred by all jobs together (fio's io_size), also when
  // that is more than the region (random offsets then draw from the whole region each time);
  // with a runtime, whichever comes first. 0 = off. Set by SNIA PTS tests
  // (runner/methods/pts/pts_tests.hpp).
  std::uint64_t io_limit = 0;
  // Stop each job after this many I/Os (fio's number_ios), also before the region or runtime
  // ends; it never extends a run. 0 = off.
  std::uint64_t number_ios = 0;
  // Sequential offsets with holes (fio's rw=MODE:N, its ddir_seq_add): each I/O starts N bytes
  // after the end of the last one (N < 0: backwards), wrapping inside the region as fio's
  // get_next_seq_offset; a multiple of bs. 0 = contiguous.
  std::int64_t seq_add = 0;
  // Job k of the workload's numjobs starts its region at offset + k x offset_increment (fio's
  // offset_increment, by the job's number among its clones): disjoint regions, each of size.
  // 0 = all jobs share one region.
  std::uint64_t offset_increment = 0;
  // fio's strided zones (zonemode, zonesize, zonerange, zoneskip; runner/measure/
  // strided_zones.hpp): each job walks the target zone by zone. Off by default.
  StridedZones zones;
  // Fill WorkloadResult::lat_histogram (runner/methods/pts/pts_tests.hpp's response-time
  // histograms).
  bool keep_lat_histogram = false;
  // Block sizes per direction other than bs (the options bssplit and bsrange, fio's; docs/
  // formats.md): a direction whose min_bs is 0 is bs for every I/O.
  BlockSizeMix bs_mix;
  // With a mix: random offsets are multiples of this (fio's blockalign); 0: the smallest size.
  std::uint64_t blockalign = 0;
  // Skewed random offsets (the options random_distribution and random_generator, fio's;
  // runner/measure/offset_distribution.hpp): uniform by default.
  OffsetDistribution distribution;
  // Several different jobs that run together over one measured window (fio's jobs between two
  // stonewalls): empty for a workload of one job spec. Each member is this spec with its own
  // options applied (group_members); runtime and ramp_time are the group's alone.
  std::vector<GroupJob> jobs;
  // Whether a direction the workload uses has sizes other than bs (then the job loop draws each
  // I/O's size, runner/measure/block_size_mix.hpp).
  [[nodiscard]] bool mixed_block_sizes() const noexcept;
  // The direction's choice with bs filled in where the mix leaves it (0: read, 1: write).
  [[nodiscard]] BlockSizeChoice block_sizes(unsigned direction) const;
  [[nodiscard]] double effective_rate_iops() const {
    if (rate_iops > 0) return rate_iops;
    return rate_bytes ? static_cast<double>(rate_bytes) / static_cast<double>(params.bs) : 0;
  }
};

// Runs a workload and gives its result: run_workload (runner/measure/job_runner.hpp) in production,
// a fake in tests. Every method (runner/methods/) takes one; "measure" in this code means running
// workloads, a figure taken from a result is "tracked" or a "value".
using RunWorkload = std::function<reporting::WorkloadResult(const WorkloadSpec&)>;

struct WorkloadOption {
  std::string_view name;           // fio's name, e.g. "iodepth"
  std::string_view help;           // one line
  std::string_view default_value;  // as text, "" when none
  std::string_view kind;           // "size", "duration", "int", "percent", "bool", "enum", "text"
  void (*apply)(WorkloadSpec&, std::string_view value);  // throws UnitError on a bad value
};

// Every workload option, in the order they are documented.
[[nodiscard]] std::span<const WorkloadOption> workload_options() noexcept;
// Applies `name=value`; throws UnitError naming the option and what was expected, or for an
// unknown option name.
void set_workload_option(WorkloadSpec& spec, std::string_view name, std::string_view value);
[[nodiscard]] const WorkloadOption* find_workload_option(std::string_view name) noexcept;

// Limits that keep absurd values from allocating: iodepth <= 65536, numjobs <= 1024,
// bs <= 256 MiB, runtime and ramp <= 1 year.
inline constexpr unsigned kMaxIodepth = 65536;
inline constexpr unsigned kMaxNumjobs = 1024;
inline constexpr std::uint64_t kMaxBlockSize = 256ull << 20;
inline constexpr double kMaxRuntimeSeconds = 365.0 * 24 * 3600;

[[nodiscard]] RwMode parse_rw(std::string_view rw);  // throws UnitError for an unknown mode
// fio's spellings: 0, 1, random, sequential; throws UnitError for another.
[[nodiscard]] FadviseHint parse_fadvise_hint(std::string_view v);
[[nodiscard]] std::string_view fadvise_hint_name(FadviseHint h) noexcept;
[[nodiscard]] WriteContents parse_write_contents(std::string_view v);
[[nodiscard]] std::string_view write_contents_name(WriteContents c) noexcept;
// fio's exit_what names: "0" (none), "group", "stonewall"; parse throws UnitError for another.
[[nodiscard]] ExitScope parse_exit_scope(std::string_view v);
[[nodiscard]] std::string_view exit_scope_name(ExitScope s) noexcept;
// fio's option for what a write carries ("refill_buffers=1"), "" where fio's default
// (scramble_buffers=1) is it (Scramble) or the nearest (Stamp: fio has nothing like it).
[[nodiscard]] std::string_view fio_write_contents(WriteContents c) noexcept;
[[nodiscard]] bool rw_reads(RwMode m) noexcept;
[[nodiscard]] bool rw_writes(RwMode m) noexcept;
[[nodiscard]] bool rw_random(RwMode m) noexcept;
// Whether the workload writes (reads): for a group, whether any of its members does.
[[nodiscard]] bool writes(const WorkloadSpec& w);
[[nodiscard]] bool reads(const WorkloadSpec& w);

// Checks the combination (rw known, bs > 0, limits, rwmixread <= 100, psync iodepth...); throws
// UnitError with what was expected. Alignment against the device is checked when it is opened.
void validate(const WorkloadSpec& spec);
// validate's part for a block-size mix (workload_block_sizes.cpp): no verify, no rate in bytes,
// size and offset against the mix's sizes.
void validate_block_sizes(const WorkloadSpec& spec);
// fio's options for the workload's mix, as the suite XML and fio write them: "bsrange=4k-64k",
// "bssplit=4k/10:64k/90" (bsrange first: a bssplit after it sets its own directions); empty for a
// workload whose used directions are all bs.
[[nodiscard]] std::vector<std::string> block_size_mix_options(const WorkloadSpec& spec);
// validate's part for random_distribution: random rw, no verify, zoned_abs inside size.
void validate_distribution(const WorkloadSpec& spec);
// fio's options for a skewed distribution ("random_distribution=zipf:1.2",
// "random_generator=tausworthe64"); empty for uniform offsets.
[[nodiscard]] std::vector<std::string> distribution_options(const WorkloadSpec& spec);
// fio's options for the workload's pacing other than its rate ("rate_process=poisson",
// "ratemin=1048576", "rate_cycle=500ms", "startdelay=4s", "thinktime=2ms", "flow=2", ...), as the
// suite XML and fio write them; empty where every one is fio's default.
[[nodiscard]] std::vector<std::string> pacing_options(const WorkloadSpec& spec);
// fio's options for exitall ("exitall", "exit_what=stonewall"); empty without it. fio's groups
// (exit_group) are its new_group between a group's jobs, which the writers add.
[[nodiscard]] std::vector<std::string> exit_options(const WorkloadSpec& spec);
// fio's options for compressible and deduplicable writes ("buffer_compress_percentage=50",
// "dedupe_mode=working_set", ...), as the suite XML and fio write them; empty where none is set.
[[nodiscard]] std::vector<std::string> buffer_options(const WorkloadSpec& spec);
// validate's part for them (workload_buffers.cpp): a workload that writes, no verify, fio's
// working set inside its size and memory bound.
void validate_buffers(const WorkloadSpec& spec);
// validate's part for strided zones (workload_zones.cpp): zonemode and zonesize as fio takes
// them, sizes in whole blocks, not with verify, holes, a block-size mix or a skewed distribution.
void validate_zones(const WorkloadSpec& spec);
// fio's options for them ("zonemode=strided", "zonesize=256m", "zonerange=...", "zoneskip=2g"),
// as the suite XML and fio write them; empty without zones.
[[nodiscard]] std::vector<std::string> zone_options(const WorkloadSpec& spec);
// validate's part for pacing: a minimum rate and think time need a positive cycle, spin within
// the think time, a group's exit_groups in order.
void validate_pacing(const WorkloadSpec& spec);
// fio's ranges of a zipf, pareto or normal distribution over a region: the region over the
// smallest size of either direction, rounded up (filesetup.c __init_rand_distribution).
[[nodiscard]] std::uint64_t skew_ranges(const WorkloadSpec& spec, std::uint64_t region_size);
// The largest block an I/O of the workload may be: bs, or the mix's largest.
[[nodiscard]] std::uint64_t largest_block(const WorkloadSpec& spec);
// The smallest block of the directions the workload uses.
[[nodiscard]] std::uint64_t smallest_block(const WorkloadSpec& spec);
// What random offsets are multiples of: blockalign, else the smallest block.
[[nodiscard]] std::uint64_t offset_granule(const WorkloadSpec& spec);

// A group workload's member jobs as the specs they run: `group` with each job's options applied,
// the job's name as id, no jobs of their own; throws UnitError naming the job for a bad option or
// one a member may not set (runtime, ramp_time, early_stop, verify: the group's window and checks
// are one). Empty for a workload of one job spec.
[[nodiscard]] std::vector<WorkloadSpec> group_members(const WorkloadSpec& group);
// Whether only a group, not its member jobs, may set the option: runtime, ramp_time, early_stop,
// verify and its options.
[[nodiscard]] bool group_only_option(std::string_view name) noexcept;

// The equivalent fio command line for an auditor, e.g.
// "fio --name=randread-4k-qd32 --filename=/dev/sdb --rw=randread --bs=4k --iodepth=32 ...".
[[nodiscard]] std::string fio_command(const WorkloadSpec& spec);

}  // namespace storqual::runner
