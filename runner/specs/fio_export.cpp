// SPDX-License-Identifier: Apache-2.0
// The writers of fio_suite.hpp: a suite of plain workloads as suite XML, and as a fio job file.
#include <algorithm>
#include <cmath>
#include <pugixml.hpp>
#include <sstream>
#include <utility>

#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/methods/preconditioning/preconditioning.hpp"
#include "runner/specs/fio_suite.hpp"

namespace storqual::runner {
namespace {

const char* bit(bool b) {
  return b ? "1" : "0";
}

// fio's offset modifier of rw for seq_add (":8k", ":-8k"), "" without one.
std::string rw_modifier(const WorkloadSpec& s) {
  if (!s.seq_add) return {};
  const std::uint64_t n = s.seq_add < 0 ? static_cast<std::uint64_t>(-s.seq_add)
                                        : static_cast<std::uint64_t>(s.seq_add);
  return std::string(s.seq_add < 0 ? ":-" : ":") + format_size_fio(n);
}

// A rate of the whole job as fio's value: a job that reads and writes splits it by rwmixread
// ("rate_iops=350,150"), as fio paces each direction to its own (docs/fio-files.md).
std::string fio_rate(const WorkloadSpec& s, double total) {
  const RwMode m = parse_rw(s.params.rw);
  const long long all = std::llround(total);
  if (!rw_reads(m) || !rw_writes(m)) return std::to_string(all);
  const long long r = std::llround(total * s.params.rwmixread / 100.0);
  return std::to_string(r) + "," + std::to_string(all - r);
}

// A list of fio options ("bssplit=4k/10:64k/90", "thinktime=2ms") where it differs from the
// base's: first the default of each option the base sets and this one does not (a group's job
// without the first job's bssplit, thinktime or buffer_compress_percentage, which a <job> would
// otherwise inherit; an empty bssplit clears a mix), then this one's.
void add_option_list(WorkloadAttributes& a, const std::vector<std::string>& now,
                     const std::vector<std::string>& was) {
  if (now == was) return;
  const auto name_of = [](const std::string& o) { return o.substr(0, o.find('=')); };
  for (const std::string& o : was) {
    const std::string name = name_of(o);
    const bool kept = std::any_of(now.begin(), now.end(),
                                  [&](const std::string& k) { return name_of(k) == name; });
    if (const WorkloadOption* opt = find_workload_option(name); !kept && opt)
      a.emplace_back(name, std::string(opt->default_value));
  }
  for (const std::string& o : now) {
    const auto eq = o.find('=');
    a.emplace_back(o.substr(0, eq), o.substr(eq + 1));
  }
}

}  // namespace

WorkloadAttributes job_attributes(const WorkloadSpec& job, const WorkloadSpec& group) {
  WorkloadAttributes a = workload_attributes(job, &group);
  WorkloadSpec applied = group;
  for (const auto& [name, value] : a) set_workload_option(applied, name, value);
  const WorkloadAttributes want = workload_attributes(job), got = workload_attributes(applied);
  if (want == got) return a;
  std::vector<std::string> wrong;
  for (const auto& [name, value] : want)
    if (std::find(got.begin(), got.end(), std::make_pair(name, value)) == got.end())
      wrong.push_back(name + "=" + value);
  for (const auto& [name, value] : got)
    if (std::none_of(want.begin(), want.end(), [&](const auto& kv) { return kv.first == name; }))
      wrong.push_back(name + " (the group's " + value + ")");
  throw UnitError("its options over the first job's do not give its own in a storqual <job>: " +
                  reporting::join_text(wrong, ", "));
}

WorkloadAttributes workload_attributes(const WorkloadSpec& w, const WorkloadSpec* base) {
  const WorkloadSpec d = base ? *base : WorkloadSpec{};
  const bool always = !base;  // rw, bs, iodepth, ioengine, direct: stated in every workload
  const auto& p = w.params;
  const auto& dp = d.params;
  WorkloadAttributes a;
  auto add = [&](bool differs, const char* name, std::string value) {
    if (differs) a.emplace_back(name, std::move(value));
  };
  add(always || p.rw != dp.rw, "rw", p.rw);
  add(always || p.bs != dp.bs, "bs", format_size_fio(p.bs));
  add_option_list(a, block_size_mix_options(w), block_size_mix_options(d));
  add_option_list(a, distribution_options(w), distribution_options(d));
  add(always || p.iodepth != dp.iodepth, "iodepth", std::to_string(p.iodepth));
  add(p.numjobs != dp.numjobs, "numjobs", std::to_string(p.numjobs));
  add(p.runtime_s != dp.runtime_s, "runtime", format_duration_fio(p.runtime_s));
  add(p.ramp_time_s != dp.ramp_time_s, "ramp_time", format_duration_fio(p.ramp_time_s));
  add(p.size != dp.size, "size", format_size_fio(p.size));
  add(w.max_size != d.max_size, "max_size", format_size_fio(w.max_size));
  add(p.offset != dp.offset, "offset", format_size_fio(p.offset));
  add(p.rwmixread != dp.rwmixread, "rwmixread", std::to_string(p.rwmixread));
  add(always || p.ioengine != dp.ioengine, "ioengine", p.ioengine);
  add(always || p.direct != dp.direct, "direct", bit(p.direct));
  add(p.randommap != dp.randommap, "norandommap", bit(!p.randommap));
  add(w.fixedbufs != d.fixedbufs, "fixedbufs", bit(w.fixedbufs));
  add(w.registerfiles != d.registerfiles, "registerfiles", bit(w.registerfiles));
  add(w.sqpoll != d.sqpoll, "sqpoll", bit(w.sqpoll));
  add(w.iopoll != d.iopoll, "hipri", bit(w.iopoll));
  add(w.iodepth_batch != d.iodepth_batch, "iodepth_batch_submit", std::to_string(w.iodepth_batch));
  add(w.iodepth_batch_complete != d.iodepth_batch_complete, "iodepth_batch_complete_min",
      std::to_string(w.iodepth_batch_complete));
  add(w.iodepth_batch_complete_max != d.iodepth_batch_complete_max, "iodepth_batch_complete_max",
      std::to_string(w.iodepth_batch_complete_max));
  add(w.fadvise_hint != d.fadvise_hint, "fadvise_hint",
      std::string(fadvise_hint_name(w.fadvise_hint)));
  add(w.write_contents != d.write_contents, "write_contents",
      std::string(write_contents_name(w.write_contents)));
  add(w.spin_wait_s != d.spin_wait_s, "spin_wait",
      w.spin_wait_s < 0 ? std::string("auto") : format_duration_fio(w.spin_wait_s));
  add(w.early_stop != d.early_stop, "early_stop", w.early_stop);
  add(w.interval_s != d.interval_s, "log_avg_msec",
      std::to_string(static_cast<long long>(std::llround(w.interval_s * 1000))));
  add(w.io_timeout_s != d.io_timeout_s, "io_timeout", format_duration_fio(w.io_timeout_s));
  add(w.rate_iops != d.rate_iops, "rate_iops",
      std::to_string(static_cast<long long>(std::llround(w.rate_iops))));
  add(w.rate_bytes != d.rate_bytes, "rate", std::to_string(w.rate_bytes));
  add_option_list(a, pacing_options(w), pacing_options(d));
  add_option_list(a, buffer_options(w), buffer_options(d));
  add_option_list(a, steady_state_options(w.steadystate), steady_state_options(d.steadystate));
  add(w.continue_on_error != d.continue_on_error, "continue_on_error", bit(w.continue_on_error));
  add(w.verify != d.verify, "verify", w.verify == VerifyAlgorithm::Crc32c ? "crc32c" : "xxh3");
  add(w.verify_backlog != d.verify_backlog, "verify_backlog", std::to_string(w.verify_backlog));
  add(w.verify_backlog_batch != d.verify_backlog_batch, "verify_backlog_batch",
      std::to_string(w.verify_backlog_batch));
  add(w.do_verify != d.do_verify, "do_verify", bit(w.do_verify));
  add(w.io_limit != d.io_limit, "io_limit", format_size_fio(w.io_limit));
  add(w.number_ios != d.number_ios, "number_ios", std::to_string(w.number_ios));
  add(w.offset_increment != d.offset_increment, "offset_increment",
      format_size_fio(w.offset_increment));
  add(w.seq_add != d.seq_add, "seq_add", std::to_string(w.seq_add));
  if (const auto zones = zone_options(w); zones != zone_options(d))
    for (const std::string& o : zones) {
      const auto eq = o.find('=');
      a.emplace_back(o.substr(0, eq), o.substr(eq + 1));
    }
  add(w.exitall != d.exitall, "exitall", std::string(exit_scope_name(w.exitall)));
  add(w.exit_group != d.exit_group, "exit_group", std::to_string(w.exit_group));
  return a;
}

namespace {

// A workload that is not a plain run cannot be written as attributes alone (nor as a fio job).
// A plain run is the <workload> method that takes no time of its own (rounds to steady state are
// a <workload> too, a timed one).
void expect_plain(const SuiteWorkload& w, const char* for_what) {
  const bool plain = w.method->element() == "workload" && !w.method->timed();
  const std::string what =
      w.precondition ? "preconditioned"
      : !plain       ? "a <" + std::string(w.method->element()) + "> method, not a plain run"
                     : "";
  if (!what.empty())
    throw UsageError("workload '" + w.id() + "' is " + what + ": " + for_what +
                     " takes plain workloads only");
}

// One fio job section of workload `workload`: the workload itself (s.id == workload) or one of
// its group's jobs; `stonewall` makes fio wait for the jobs before it.
std::string job_section(const std::string& workload, const WorkloadSpec& s, bool stonewall) {
  const auto& p = s.params;
  auto refuse = [&](const std::string& what) {
    throw UsageError("workload '" + workload + "'" +
                     (s.id == workload ? "" : ", job '" + s.id + "'") + ": " + what +
                     " has no fio equivalent");
  };
  // What fio cannot do is said where it applies, and the job runs without it.
  std::string notes;
  if (!s.early_stop.empty())
    notes += "; storqual: early_stop " + s.early_stop +
             " may end this job before its runtime once its figure is known (docs/measurement.md); "
             "fio runs the whole runtime\n";
  if (s.steadystate.active() && p.numjobs > 1)
    notes += "; storqual: ss judges the " + std::to_string(p.numjobs) +
             " jobs' IOPS or bandwidth added up (fio's group_reporting); fio without it judges "
             "and ends each job apart\n";
  if (s.max_size)
    notes += "; storqual: the whole target up to max_size " + format_size_fio(s.max_size) +
             "; fio takes the whole target (add size=" + format_size_fio(s.max_size) +
             " on a larger one)\n";
  if (s.io_timeout_s > 0)
    notes += "; storqual: an I/O unanswered for io_timeout " + format_duration_fio(s.io_timeout_s) +
             " is an error; fio has no such limit\n";
  if (s.spin_wait_s >= 0)
    notes += "; storqual: spin_wait " + format_duration_fio(s.spin_wait_s) +
             " before sleeping for completions; fio has no such option\n";
  if (s.verify == VerifyAlgorithm::Xxh3)
    notes +=
        "; storqual: verify=xxh3; fio has no xxh3, verify=crc32c checks the same way with "
        "another checksum\n";
  std::string out = "\n" + notes + "[" + s.id + "]\n" + (stonewall ? "stonewall\n" : "") +
                    "ioengine=" + p.ioengine + "\nrw=" + p.rw + rw_modifier(s) +
                    "\nbs=" + format_size_fio(p.bs) + "\niodepth=" + std::to_string(p.iodepth) +
                    "\nnumjobs=" + std::to_string(p.numjobs) + "\ndirect=" + bit(p.direct) + "\n";
  for (const std::string& o : block_size_mix_options(s)) out += o + "\n";
  for (const std::string& o : distribution_options(s)) out += o + "\n";
  if (s.distribution.lfsr) out += "randrepeat=1\n";  // fio's LFSR from its job's fixed seed
  if (p.rwmixread != 50) out += "rwmixread=" + std::to_string(p.rwmixread) + "\n";
  if (p.size) out += "size=" + format_size_fio(p.size) + "\n";
  if (p.offset) out += "offset=" + format_size_fio(p.offset) + "\n";
  // storqual's runtime is time based; with io_limit, whichever comes first: fio's runtime and
  // io_size without time_based.
  if (p.runtime_s > 0)
    out += std::string(s.io_limit ? "" : "time_based\n") +
           "runtime=" + format_duration_fio(p.runtime_s) + "\n";
  if (p.ramp_time_s > 0) out += "ramp_time=" + format_duration_fio(p.ramp_time_s) + "\n";
  if (s.io_limit) {
    if (s.io_limit % p.numjobs) refuse("io_limit not divisible by numjobs");
    out += "io_size=" + format_size_fio(s.io_limit / p.numjobs) + "\n";
  }
  if (!p.randommap) out += "norandommap\n";
  // storqual's 0 (everything ready) is fio's 0 (iodepth at once); fio's default is 1.
  out += "iodepth_batch_submit=" + std::to_string(s.iodepth_batch) + "\n";
  if (s.iodepth_batch_complete > 0)
    out += "iodepth_batch_complete_min=" + std::to_string(s.iodepth_batch_complete) + "\n";
  // storqual's 0 takes every completion that is ready; fio's default takes
  // iodepth_batch_complete_min per reap.
  out += "iodepth_batch_complete_max=" +
         std::to_string(s.iodepth_batch_complete_max ? s.iodepth_batch_complete_max : p.iodepth) +
         "\n";
  if (s.fadvise_hint != FadviseHint::Pattern)
    out += "fadvise_hint=" + std::string(fadvise_hint_name(s.fadvise_hint)) + "\n";
  if (rw_writes(parse_rw(p.rw)) && s.verify == VerifyAlgorithm::None)
    if (const auto opt = fio_write_contents(s.write_contents); !opt.empty())
      out += std::string(opt) + "\n";
  if (p.ioengine == "io_uring") {
    if (s.fixedbufs) out += "fixedbufs\n";
    if (s.registerfiles) out += "registerfiles\n";
    if (s.sqpoll) out += "sqthread_poll\n";
    if (s.iopoll) out += "hipri\n";
  }
  if (s.interval_s != 1.0)
    out += "log_avg_msec=" + std::to_string(std::llround(s.interval_s * 1000)) + "\n";
  if (s.number_ios) out += "number_ios=" + std::to_string(s.number_ios) + "\n";
  if (s.offset_increment) out += "offset_increment=" + format_size_fio(s.offset_increment) + "\n";
  if (s.rate_iops > 0) out += "rate_iops=" + fio_rate(s, s.rate_iops) + "\n";
  if (s.rate_bytes) out += "rate=" + fio_rate(s, static_cast<double>(s.rate_bytes)) + "\n";
  if (s.rate_iops_min > 0) out += "rate_iops_min=" + fio_rate(s, s.rate_iops_min) + "\n";
  if (s.rate_min_bytes)
    out += "ratemin=" + fio_rate(s, static_cast<double>(s.rate_min_bytes)) + "\n";
  for (const std::string& o : pacing_options(s))
    if (!o.starts_with("rate_iops_min=") && !o.starts_with("ratemin=")) out += o + "\n";
  for (const std::string& o : exit_options(s)) out += o + "\n";
  for (const std::string& o : buffer_options(s)) out += o + "\n";
  for (const std::string& o : zone_options(s)) out += o + "\n";
  for (const std::string& o : steady_state_options(s.steadystate)) out += o + "\n";
  if (s.continue_on_error) out += "continue_on_error=io\n";
  if (s.verify == VerifyAlgorithm::Crc32c) {
    out += "verify=crc32c\n";
    if (s.verify_backlog) out += "verify_backlog=" + std::to_string(s.verify_backlog) + "\n";
    if (s.verify_backlog_batch)
      out += "verify_backlog_batch=" + std::to_string(s.verify_backlog_batch) + "\n";
    if (!s.do_verify) out += "do_verify=0\n";
  }
  if (s.verify == VerifyAlgorithm::Xxh3) out += "verify=crc32c\n";
  return out;
}

// A <precondition> before a workload (or the suite's first) as fio can run it: the purge as the
// command to run first, the workload-independent pass as a job of its own (two sequential passes
// of 128 KiB writes at QD32, runner/methods/preconditioning/preconditioning.hpp).
std::string precondition_text(const Precondition& p, const WorkloadSpec& w,
                              const std::string& before) {
  std::string out;
  if (p.purge != PurgeMethod::None)
    out += "\n; storqual: purge=" + std::string(to_string(p.purge)) + " before " + before +
           " (for fio, first: blkdiscard" +
           (w.params.size
                ? " -o " + std::to_string(w.params.offset) + " -l " + std::to_string(w.params.size)
                : std::string()) +
           " DEVICE, or nvme format/sanitize)\n";
  if (p.independent) {
    out += "\n; storqual: workload-independent preconditioning before " + before +
           ", two sequential passes\n";
    for (const char* pass : {"1", "2"}) {
      out += "[precondition-" + (w.id.empty() ? std::string("suite") : w.id) + "-pass" + pass +
             "]\nstonewall\nioengine=" + w.params.ioengine +
             "\nrw=write\nbs=128k\niodepth=" + (w.params.ioengine == "psync" ? "1" : "32") +
             "\ndirect=" + bit(w.params.direct) + "\n";
      if (w.params.size) out += "size=" + format_size_fio(w.params.size) + "\n";
      if (w.params.offset) out += "offset=" + format_size_fio(w.params.offset) + "\n";
    }
  }
  if (p.dependent)
    out += "; storqual: workload-dependent preconditioning: " + before +
           " in rounds until steady (SNIA PTS); fio runs it once\n";
  return out;
}

// fio's exitall is the whole file's (options.c str_exitall_cb): with it on one job, every job that
// ends ends the jobs of its group (exit_what=group, fio's default). A workload of several jobs
// without exitall would end them with one another under fio.
void check_exitall(const Suite& suite) {
  const auto any_exit = [](const WorkloadSpec& s) {
    if (s.exitall != ExitScope::None) return true;
    for (const WorkloadSpec& m : group_members(s))
      if (m.exitall != ExitScope::None) return true;
    return false;
  };
  const auto it = std::find_if(suite.workloads.begin(), suite.workloads.end(),
                               [&](const SuiteWorkload& w) { return any_exit(w.spec); });
  if (it == suite.workloads.end()) return;
  for (const SuiteWorkload& w : suite.workloads) {
    const auto members = group_members(w.spec);
    const bool several = w.spec.params.numjobs > 1 || members.size() > 1 ||
                         (members.size() == 1 && members[0].params.numjobs > 1);
    bool all = w.spec.jobs.empty() ? w.spec.exitall != ExitScope::None : true;
    for (const WorkloadSpec& m : members) all = all && m.exitall != ExitScope::None;
    if (several && !all)
      throw UsageError("workload '" + w.id() + "' has jobs without exitall, and '" + it->id() +
                       "' has exitall: fio's exitall is the whole job file's (each job that ends "
                       "ends its group's), so fio would end them with one another");
  }
}

}  // namespace

std::string suite_xml_text(const Suite& suite) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("suite");
  root.append_attribute("name") = suite.name.c_str();
  if (!suite.description.empty()) root.append_attribute("description") = suite.description.c_str();
  if (suite.precondition) throw UsageError("a suite <precondition> cannot be written here");
  for (const SuiteWorkload& w : suite.workloads) {
    // A method that can say its own attributes is written as its element (a latency search).
    const auto own = w.method->element_attributes();
    if (own.empty() || w.precondition) expect_plain(w, "the suite writer");
    pugi::xml_node n = root.append_child(std::string(w.method->element()).c_str());
    n.append_attribute("id") = w.id().c_str();
    for (const auto& [name, value] : own) n.append_attribute(name.c_str()) = value.c_str();
    for (const auto& [name, value] : workload_attributes(w.spec))
      if (own.empty() || name != "iodepth")  // a method with its own attributes sets the depth
        n.append_attribute(name.c_str()) = value.c_str();
    for (const GroupJob& job : w.spec.jobs) {
      pugi::xml_node j = n.append_child("job");
      j.append_attribute("name") = job.name.c_str();
      for (const auto& [name, value] : job.options)
        j.append_attribute(name.c_str()) = value.c_str();
    }
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

std::string fio_job_text(const Suite& suite, const std::string& target, std::string_view source) {
  // The command that writes this file again: a suite read from a file is named by its path (an
  // imported job file's suite name is no standard suite's).
  std::string from(source);
  if (from.empty()) from = suite.path.empty() ? suite.name : suite.path.string();
  if (!target.empty()) from += " --target " + target;
  std::string out =
      "; fio job file of the storqual suite '" + suite.name + "' (storqual suites export " + from +
      " --fio): one job per workload (a group: one per job, started together), one after "
      "another, as storqual runs them.\n"
      "[global]\n"
      "; storqual's jobs are threads of one process and draw a new random "
      "sequence each run\nthread\nrandrepeat=0\n"
      "; storqual keeps the target's page cache while a workload runs (fio's default "
      "invalidate=1 drops it at every open and every loop over the region); between workloads "
      "a block device's is written back and dropped, as the last close of the device at the "
      "end of each of fio's groups does\ninvalidate=0\n"
      "; storqual's I/O buffers start on a 4 KiB boundary (fio's buffered jobs take malloc's, "
      "which makes each page-cache copy slower)\niomem_align=4096\n"
      "; what writes carry: a job without scramble_buffers or refill_buffers scrambles (fio's "
      "default, storqual's write_contents=scramble); storqual's own default, fresh random bytes "
      "in every sector (write_contents=stamp), has no fio option\n";
  if (target.empty())
    out += "; the target: add filename=/dev/DEVICE (fio needs one; storqual takes --target)\n";
  else
    out += "filename=" + target + "\n";
  out +=
      "; storqual writes a read workload's region before it reads where the run has not "
      "written it yet (docs/measurement.md, \"Reads of written data\"); fio lays out a file, "
      "never a block device: on a new or trimmed device, write it first\n";
  if (suite.precondition && !suite.workloads.empty()) {
    WorkloadSpec region = suite.workloads.front().spec;
    region.id = "suite";
    out += precondition_text(*suite.precondition, region, "the suite");
  }
  check_exitall(suite);
  for (const SuiteWorkload& w : suite.workloads) {
    if (w.precondition) out += precondition_text(*w.precondition, w.spec, "'" + w.id() + "'");
    WorkloadSpec as_fio = w.spec;
    const std::vector<std::string> own = w.method->fio_job_options(as_fio);
    if (!own.empty()) {  // fio's own feature of the method (latency_target for a latency search)
      out += "\n; storqual: '" + w.id() + "' is a <" + std::string(w.method->element()) +
             ">; fio's job below runs it as fio's own (docs/fio-files.md says what differs)\n" +
             job_section(w.id(), as_fio, true);
      for (const std::string& o : own) out += o + "\n";
      continue;
    }
    if (w.method->element() != "workload" || w.method->timed())
      out += "\n; storqual: '" + w.id() + "' is a <" + std::string(w.method->element()) +
             "> method (docs/formats.md), which fio has no equivalent of; the job below is one "
             "plain pass of its workload options\n";
    if (w.spec.jobs.empty()) {
      out += job_section(w.id(), w.spec, true);
      continue;
    }
    // A group: its jobs' sections, a stonewall before the first only, so that fio starts them
    // together; fio's JSON then has one entry per job (no group_reporting). A job of another
    // exit_group than the one before starts a reporting group of fio's (new_group).
    bool first = true;
    unsigned group = 0;
    for (const WorkloadSpec& m : group_members(w.spec)) {
      out += job_section(w.id(), m, first) + (m.exit_group != group ? "new_group\n" : "");
      first = false;
      group = m.exit_group;
    }
  }
  return out;
}

}  // namespace storqual::runner
