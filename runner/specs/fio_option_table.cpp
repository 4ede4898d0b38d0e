// SPDX-License-Identifier: Apache-2.0
// The table of fio's options (fio_option_table.hpp): what storqual does with each, and why.
#include "runner/specs/fio_option_table.hpp"

#include <utility>

namespace storqual::runner::fio_options {
namespace {

constexpr std::string_view kOutputOnly = "it shapes fio's output only";
constexpr std::string_view kTarget = "the target is the run's --target";
constexpr std::string_view kRandom =
    "storqual draws its own uniform random offsets (the same pattern, other offsets); a "
    "block-size mix, a skewed random_distribution and random_generator=lfsr draw from fio's "
    "generators with fio's default seed (randseed=0x89, randrepeat=1)";

// Not output only: it changes what fio spends per I/O (docs/fio-files.md has a figure).
constexpr std::string_view kGtodReduce =
    "fio then reads the clock for a small share of its I/Os and reports no latencies (it sets "
    "disable_lat, disable_clat, disable_slat and disable_bw_measurement), which lowers its cost "
    "per I/O: on a fast target (the null engine, a RAM disk) fio runs more I/Os per second with "
    "it. storqual times every I/O as fio does with gtod_reduce=0 (its latencies need it): compare "
    "the two at gtod_reduce=0";

// Options that shape only fio's own process: imported with what storqual does instead.
constexpr std::string_view kNumaCpu =
    "fio binds the job's threads to those NUMA nodes' CPUs; storqual's job threads run where the "
    "scheduler puts them, so on a multi-socket host a job may run on a node away from the "
    "device (more latency per I/O than under fio's binding; pin the whole run with numactl)";
constexpr std::string_view kNumaMem =
    "fio allocates the job's buffers by that memory policy; storqual's buffers come from the node "
    "of the job thread that first writes them (the kernel's default), which may be remote from "
    "the device (run storqual under numactl --membind for fio's placement)";
constexpr std::string_view kPrio =
    "fio sets the job's I/O priority (ioprio_set); storqual submits at the process's own "
    "(best-effort unless started under ionice), so a scheduler or device that honours priorities "
    "(mq-deadline, NVMe command priority) serves it as the default class";
constexpr std::string_view kCmdPrio =
    "fio sets a priority on that share of its commands (by size with cmdprio_bssplit); storqual "
    "sets none, so every command has the process's priority and its latency percentiles are not "
    "split by class (fio's log_prio)";

// fio's file creation and layout: storqual creates no file per job (issue 47's notes).
constexpr std::string_view kCreate =
    "storqual creates no file per job: its jobs share the run's --target, which exists before they "
    "start (a scratch file storqual makes is allocated whole with fallocate(2) first, as fio's "
    "fallocate=native; a target file is used at the size it has)";

const FioOptionRule kFioOptions[] = {
    {"numa_cpu_nodes", Take::Ignore, Kind::None, kNumaCpu},
    {"numa_mem_policy", Take::Ignore, Kind::None, kNumaMem},
    {"prioclass", Take::Ignore, Kind::None, kPrio},
    {"prio", Take::Ignore, Kind::None, kPrio},
    {"cmdprio_percentage", Take::Ignore, Kind::None, kCmdPrio},
    {"cmdprio_class", Take::Ignore, Kind::None, kCmdPrio},
    {"cmdprio", Take::Ignore, Kind::None, kCmdPrio},
    {"cmdprio_bssplit", Take::Ignore, Kind::None, kCmdPrio},
    {"rw", Take::Special},
    {"bs", Take::Special},
    {"bsrange", Take::Special},
    {"bssplit", Take::Special},
    {"blockalign", Take::Special},
    {"loops", Take::Special},
    {"random_distribution", Take::Special},
    {"random_generator", Take::Special},
    {"size", Take::Special},
    {"filesize", Take::Special},
    {"io_size", Take::Special},
    {"offset", Take::Special},
    {"runtime", Take::Special},
    {"ramp_time", Take::Special},
    {"time_based", Take::Special},
    {"direct", Take::Special},
    {"buffered", Take::Special},
    {"ioengine", Take::Special},
    {"kb_base", Take::Special},
    {"continue_on_error", Take::Special},
    {"verify", Take::Special},
    {"scramble_buffers", Take::Special},
    {"refill_buffers", Take::Special},
    {"stonewall", Take::Special},
    {"exitall", Take::Special},
    {"exit_what", Take::Special},
    {"wait_for", Take::Special},
    {"name", Take::Special},
    {"iodepth", Take::Map, Kind::Int, "iodepth"},
    {"numjobs", Take::Map, Kind::Int, "numjobs"},
    {"rwmixread", Take::Map, Kind::Int, "rwmixread"},
    {"rwmixwrite", Take::Map, Kind::Int, "rwmixwrite"},
    {"iodepth_batch_submit", Take::Map, Kind::Int, "iodepth_batch_submit"},
    {"iodepth_batch_complete_min", Take::Map, Kind::Int, "iodepth_batch_complete_min"},
    {"iodepth_batch_complete_max", Take::Map, Kind::Int, "iodepth_batch_complete_max"},
    {"fadvise_hint", Take::Map, Kind::None, "fadvise_hint"},
    {"fixedbufs", Take::Map, Kind::Bool, "fixedbufs"},
    {"registerfiles", Take::Map, Kind::Bool, "registerfiles"},
    {"sqthread_poll", Take::Map, Kind::Bool, "sqpoll"},
    {"hipri", Take::Map, Kind::Bool, "hipri"},
    {"norandommap", Take::Map, Kind::Bool, "norandommap"},
    {"rate_iops", Take::Special},
    {"rate", Take::Special},
    {"rate_iops_min", Take::Special},
    {"ratemin", Take::Special},
    {"rate_process", Take::Map, Kind::None, "rate_process"},
    {"rate_cycle", Take::Map, Kind::Int, "rate_cycle"},
    {"startdelay", Take::Special},
    {"thinktime", Take::Special},
    {"thinktime_spin", Take::Special},
    {"thinktime_blocks", Take::Map, Kind::Int, "thinktime_blocks"},
    {"flow", Take::Map, Kind::Int, "flow"},
    {"flow_id", Take::Map, Kind::Int, "flow_id"},
    {"flow_sleep", Take::Map, Kind::Int, "flow_sleep"},
    {"thinktime_blocks_type", Take::Refuse, Kind::None,
     "storqual's think time comes after thinktime_blocks I/Os have completed (fio's 'complete')",
     "complete"},
    {"io_submit_mode", Take::Ignore, Kind::None,
     "storqual's job thread submits each I/O itself at its due time (fio's 'inline'); 'offload' "
     "hands submission to fio's worker threads, with the same I/O pattern and rate"},
    {"verify_dump", Take::Ignore, Kind::None,
     "fio writes a block that fails verification into two files named after the target and the "
     "block's offset (the bytes read, .received, and those expected, .expected); storqual writes "
     "no such files: its integrity verdict names each bad block's class (corrupted, stale, "
     "misplaced, foreign), its offset and, for a stale one, the write it holds and the one "
     "expected (docs/integrity.md)"},
    {"verify_backlog", Take::Map, Kind::Int, "verify_backlog"},
    {"verify_backlog_batch", Take::Map, Kind::Int, "verify_backlog_batch"},
    {"do_verify", Take::Map, Kind::Bool, "do_verify"},
    {"log_avg_msec", Take::Map, Kind::Int, "log_avg_msec", "0"},
    {"filename", Take::Ignore, Kind::None, kTarget},
    {"directory", Take::Ignore, Kind::None, kTarget},
    {"thread", Take::Ignore, Kind::None, "storqual's jobs are always threads"},
    {"iomem_align", Take::Ignore, Kind::None,
     "storqual's I/O buffers always start on a 4 KiB boundary"},
    {"randrepeat", Take::Ignore, Kind::None, kRandom},
    {"randseed", Take::Ignore, Kind::None, kRandom},
    {"allrandrepeat", Take::Ignore, Kind::None, kRandom},
    {"group_reporting", Take::Ignore, Kind::None, kOutputOnly},
    {"new_group", Take::Ignore, Kind::None, kOutputOnly},
    {"description", Take::Ignore, Kind::None, kOutputOnly},
    {"write_bw_log", Take::Ignore, Kind::None, kOutputOnly},
    {"write_lat_log", Take::Ignore, Kind::None, kOutputOnly},
    {"write_iops_log", Take::Ignore, Kind::None, kOutputOnly},
    {"write_hist_log", Take::Ignore, Kind::None, kOutputOnly},
    {"write_iolog", Take::Ignore, Kind::None, kOutputOnly},
    {"log_hist_msec", Take::Ignore, Kind::None, kOutputOnly},
    {"log_hist_coarseness", Take::Ignore, Kind::None, kOutputOnly},
    {"per_job_logs", Take::Ignore, Kind::None, kOutputOnly},
    {"log_offset", Take::Ignore, Kind::None, kOutputOnly},
    {"log_compression", Take::Ignore, Kind::None, kOutputOnly},
    {"log_unix_epoch", Take::Ignore, Kind::None, kOutputOnly},
    {"log_max_value", Take::Ignore, Kind::None, kOutputOnly},
    {"log_prio", Take::Ignore, Kind::None, kOutputOnly},
    {"percentile_list", Take::Ignore, Kind::None, kOutputOnly},
    {"clat_percentiles", Take::Ignore, Kind::None, kOutputOnly},
    {"lat_percentiles", Take::Ignore, Kind::None, kOutputOnly},
    {"slat_percentiles", Take::Ignore, Kind::None, kOutputOnly},
    {"significant_figures", Take::Ignore, Kind::None, kOutputOnly},
    {"unified_rw_reporting", Take::Ignore, Kind::None, kOutputOnly},
    {"block_error_percentiles", Take::Ignore, Kind::None, kOutputOnly},
    {"disable_lat", Take::Ignore, Kind::None, kOutputOnly},
    {"disable_clat", Take::Ignore, Kind::None, kOutputOnly},
    {"disable_slat", Take::Ignore, Kind::None, kOutputOnly},
    {"disable_bw_measurement", Take::Ignore, Kind::None, kOutputOnly},
    {"gtod_reduce", Take::Ignore, Kind::None, kGtodReduce},
    {"stats", Take::Ignore, Kind::None, kOutputOnly},
    {"bwavgtime", Take::Ignore, Kind::None, kOutputOnly},
    {"iopsavgtime", Take::Ignore, Kind::None, kOutputOnly},
    {"disk_util", Take::Ignore, Kind::None, kOutputOnly},
    {"output-format", Take::Ignore, Kind::None, kOutputOnly},
    {"output", Take::Ignore, Kind::None, kOutputOnly},
    {"minimal", Take::Ignore, Kind::None, kOutputOnly},
    {"eta", Take::Ignore, Kind::None, kOutputOnly},
    {"eta-newline", Take::Ignore, Kind::None, kOutputOnly},
    {"status-interval", Take::Ignore, Kind::None, kOutputOnly},
    {"nrfiles", Take::Refuse, Kind::None, "storqual runs on one target", "1"},
    {"fsync", Take::Refuse, Kind::None, "storqual issues no fsync", "0"},
    {"fdatasync", Take::Refuse, Kind::None, "storqual issues no fdatasync", "0"},
    {"end_fsync", Take::Refuse, Kind::None, "storqual issues no fsync", "0"},
    {"sync", Take::Refuse, Kind::None, "storqual does not open the target O_SYNC", "0"},
    {"unlink", Take::Refuse, Kind::None, "storqual manages its own scratch file", "0"},
    {"buffer_compress_percentage", Take::Map, Kind::Int, "buffer_compress_percentage"},
    {"buffer_compress_chunk", Take::Map, Kind::Size, "buffer_compress_chunk"},
    {"dedupe_percentage", Take::Map, Kind::Int, "dedupe_percentage"},
    {"dedupe_mode", Take::Map, Kind::None, "dedupe_mode"},
    {"dedupe_working_set_percentage", Take::Map, Kind::Int, "dedupe_working_set_percentage"},
    {"dedupe_global", Take::Map, Kind::Bool, "dedupe_global"},
    {"create_serialize", Take::Ignore, Kind::None, kCreate},
    {"create_on_open", Take::Ignore, Kind::None, kCreate},
    {"fallocate", Take::Ignore, Kind::None, kCreate},
    {"error_dump", Take::Ignore, Kind::None,
     "it shapes fio's output only (storqual reports each direction's error count and its first "
     "error, with the offset)"},
    {"verify_async", Take::Ignore, Kind::None,
     "storqual checks the blocks it reads back in the threads that read them, with no offload "
     "threads (fio's verify_async=0): the same checks, their CPU time spent between the I/Os"},
    {"verify_fatal", Take::Ignore, Kind::None,
     "storqual reads back and classifies every block, and its integrity verdict fails when any is "
     "bad; fio with verify_fatal=1 ends the job at the first bad block instead of checking the "
     "rest"},
    {"number_ios", Take::Map, Kind::Int, "number_ios"},
    {"offset_increment", Take::Map, Kind::Size, "offset_increment"},
    {"zonemode", Take::Map, Kind::None, "zonemode"},  // strided, or zbd (zbd_zones.hpp)
    {"read_beyond_wp", Take::Map, Kind::Bool, "read_beyond_wp"},
    {"max_open_zones", Take::Map, Kind::Int, "max_open_zones"},
    {"zonesize", Take::Map, Kind::Size, "zonesize"},
    {"zonerange", Take::Map, Kind::Size, "zonerange"},
    {"zoneskip", Take::Map, Kind::Size, "zoneskip"},
    // Taken by the latency search (MethodEntry::from_fio, fio_method_import.cpp), never here.
    {"latency_target", Take::Special},
    {"latency_window", Take::Special},
    {"latency_percentile", Take::Special},
    {"latency_run", Take::Special},
    {"ss", Take::Map, Kind::None, "ss"},  // fio's steady state: ends the job early (fio-files.md)
    {"ss_dur", Take::Map, Kind::None, "ss_dur"},
    {"ss_ramp", Take::Map, Kind::None, "ss_ramp"},
    {"cpus_allowed", Take::Refuse, Kind::None, "storqual does not pin jobs to CPUs"},
    {"cpus_allowed_policy", Take::Refuse, Kind::None, "storqual does not pin jobs to CPUs"},
    {"invalidate", Take::Refuse, Kind::None,
     "storqual does not drop the target's page cache while a workload runs (invalidate=0 is what "
     "it does)",
     "0"},
};

const std::pair<std::string_view, std::string_view> kAliases[] = {
    {"readwrite", "rw"},
    {"blocksize", "bs"},
    {"blocksize_range", "bsrange"},
    {"ba", "blockalign"},
    {"timeout", "runtime"},
    {"io_limit", "io_size"},
    {"iodepth_batch", "iodepth_batch_submit"},
    {"mem_align", "iomem_align"},
    {"iodepth_batch_complete", "iodepth_batch_complete_min"},
    {"threads", "thread"},
    {"wait_for_previous", "stonewall"},
    {"use_thread", "thread"},
    {"rate_min", "ratemin"},  // fio's name; ratemin its alias and storqual's option
    {"ratecycle", "rate_cycle"},
    {"steadystate", "ss"},
    {"steadystate_duration", "ss_dur"},
    {"steadystate_ramp_time", "ss_ramp"},
};

}  // namespace

std::string canonical(std::string_view name) {
  for (const auto& [alias, real] : kAliases)
    if (alias == name) return std::string(real);
  return std::string(name);
}

const FioOptionRule* find_rule(std::string_view name) {
  for (const auto& r : kFioOptions)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace storqual::runner::fio_options
