// SPDX-License-Identifier: Apache-2.0
// Suites from fio jobs and fio jobs from suites (docs/fio-files.md). Every fio option goes through
// one table (fio_option_table.cpp kFioOptions): mapped onto the workload option of the same meaning
// (runner/measure/workload.hpp), accepted and listed as ignored (it shapes only fio's output, or
// names what a storqual run is given otherwise, such as the target), or refused with the reason.
// fio's defaults where they differ from storqual's (ioengine=psync, direct=0, rw=read, one I/O per
// submit, no registered buffers) are written into each workload, so that it runs as fio would.
// Jobs that fio runs at the same time (no stonewall or wait_for between them) become one workload:
// identical ones but for their names are numjobs copies of one job, different ones the member jobs
// of a group (WorkloadSpec::jobs), which must share their runtime and ramp_time.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/specs/fio_job.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

struct FioImport {
  // Plain workloads (some of them groups), and a method's where a job's options name one (fio's
  // latency_target: a <latency-search>, MethodEntry::from_fio).
  Suite suite;
  // "file:line: option 'group_reporting' ignored: it shapes fio's output only", one per option.
  std::vector<std::string> ignored;
};

// The suite of a parsed job file or command line; `name` becomes the suite's name (made a valid
// one). Throws FileError "file:line: option 'X': why" for an option storqual cannot honour.
[[nodiscard]] FioImport import_fio_jobs(const FioJobFile& jobs, std::string_view name);
// A job file from disk with this host's environment; the suite's path and sha256 are the file's.
[[nodiscard]] FioImport import_fio_file(const std::filesystem::path& path);
[[nodiscard]] FioImport import_fio_command(std::string_view command);

// A size as fio reads it (parse.c): k, m, g, t, p (and kb, mb, ...) are kb_base multiples, KiB,
// MiB, ... the other base (with fio's default kb_base=1024, 4KiB is 4000 bytes). Throws FileError
// "WHERE: option 'NAME=VALUE': why".
[[nodiscard]] std::uint64_t fio_size(const std::string& name, const std::string& value,
                                     unsigned kb_base, const std::string& where);

// Whether `path` names a fio job file (the extension .fio or .job, as fio's examples spell them).
[[nodiscard]] bool is_fio_job_file(const std::filesystem::path& path);

// Every workload option whose value differs from a default WorkloadSpec (rw, bs, iodepth,
// ioengine and direct always), by its option name (runner/measure/workload.hpp) with its value as
// the suite loader reads it back; the id and a group's jobs are not among them. With `base`: every
// option whose value differs from base's (a group's job over its workload: GroupJob::options).
using WorkloadAttributes = std::vector<std::pair<std::string, std::string>>;
[[nodiscard]] WorkloadAttributes workload_attributes(const WorkloadSpec& spec,
                                                     const WorkloadSpec* base = nullptr);
// A group's <job> over the group's workload (its first job): workload_attributes(job, &group),
// checked by applying it to the group; throws UnitError naming what would come out otherwise.
[[nodiscard]] WorkloadAttributes job_attributes(const WorkloadSpec& job, const WorkloadSpec& group);

// The suite XML (docs/formats.md, "Suite") of a suite of plain workloads, which Suite::parse reads
// back to the same workloads; a method that lists its element_attributes() (a latency search) is
// written as its element. Throws UsageError for a workload with another method.
[[nodiscard]] std::string suite_xml_text(const Suite& suite);

// A job file that fio 3.33 runs as storqual runs the suite: one job per workload, each after a
// stonewall; `target` (may be empty) becomes [global] filename=. What fio does otherwise
// (early_stop, max_size, io_timeout, spin_wait, xxh3, preconditioning) is a comment above its job,
// which runs without it; throws UsageError naming the workload and why for what fio cannot run at
// all (a method without fio options, a suite <precondition>).
// A method with fio_job_options() (a latency search of a percentile of lat) is fio's own
// feature of it (latency_target).
// The header names the command that writes it: `storqual suites export SOURCE --fio`, SOURCE by
// default the suite's file (Suite::path) or, without one, its name.
[[nodiscard]] std::string fio_job_text(const Suite& suite, const std::string& target,
                                       std::string_view source = {});

}  // namespace storqual::runner
