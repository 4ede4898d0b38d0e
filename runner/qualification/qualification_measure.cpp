// SPDX-License-Identifier: Apache-2.0
// Step 4 of a qualification run, measuring (qualification_measure.hpp).
#include "runner/qualification/qualification_measure.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "archive/results_store.hpp"
#include "devices/device_identity.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/safety_guard.hpp"
#include "devices/scsi_log.hpp"
#include "devices/self_test.hpp"
#include "devices/sysfs.hpp"
#include "model/quantity_format.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/report_names.hpp"
#include "reporting/run_console.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/baseline.hpp"
#include "runner/judge/drift_verdict.hpp"
#include "runner/judge/health_verdict.hpp"
#include "runner/judge/stall_check.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/fault_spec.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/methods/gates/host_limits.hpp"
#include "runner/methods/gates/thermal_watch.hpp"
#include "runner/methods/gates/wear.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/preconditioning/preconditioning.hpp"
#include "runner/qualification/deviations.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/qualification_measure.hpp"
#include "runner/qualification/qualification_target.hpp"
#include "runner/qualification/read_fill.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/qualification/target_preparation.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

struct HealthSeams {
  devices::NvmeAdmin* nvme = nullptr;
  devices::AtaAdmin* ata = nullptr;
  devices::ScsiLogSource* scsi = nullptr;
};

// What a method may do to the device beyond I/O: an NVMe purge before it, the drive's own
// self-test (made through the health seam only with --allow-self-test; otherwise the gap says why).
struct DeviceAccess {
  NvmePurgeAccess purge;
  // A SCSI disk that refused LOG SENSE (no health seam) may still take SEND DIAGNOSTIC: its own
  // SG_IO node for the self-test, which then says what the disk answered.
  std::unique_ptr<devices::ScsiLogSource> scsi_for_self_test;
  std::unique_ptr<devices::DeviceSelfTest> self_test;
  std::string self_test_gap;
  bool self_test_gap_is_consent = false;
};

DeviceAccess device_access(const QualificationOptions& o, const HealthSeams& seams,
                           const std::string& scsi_devnode) {
  DeviceAccess a;
  a.purge = {.allowed = o.allow_nvme_purge, .admin = seams.nvme};
  if (!o.allow_self_test) {
    a.self_test_gap =
        "not started: a self-test changes the drive's state (it runs in the drive and stays in "
        "its self-test log); pass --allow-self-test";
    a.self_test_gap_is_consent = true;
  } else if (seams.ata) {
    a.self_test = devices::ata_self_test(*seams.ata);
  } else if (seams.nvme) {
    a.self_test = devices::nvme_self_test(*seams.nvme);
  } else if (seams.scsi) {
    a.self_test = devices::scsi_self_test(*seams.scsi);
  } else if (!scsi_devnode.empty()) {
    try {
      a.scsi_for_self_test = std::make_unique<devices::SgIoScsiLog>(scsi_devnode);
      a.self_test = devices::scsi_self_test(*a.scsi_for_self_test);
    } catch (const std::exception& e) {
      a.self_test_gap = std::string("the target has no self-test: ") + e.what();
    }
  } else {
    a.self_test_gap =
        "the target has no self-test: no NVMe, ATA or SCSI health seam answered (the run's notes "
        "say why)";
  }
  return a;
}

// One health reading through whichever seam the target has (it has one or none).
std::optional<devices::HealthSnapshot> snapshot(const HealthSeams& seams,
                                                std::vector<std::string>& notes) {
  try {
    if (seams.ata) return devices::take_health_snapshot(*seams.ata);
    if (seams.scsi) return devices::take_health_snapshot(*seams.scsi);
    if (seams.nvme) return devices::take_health_snapshot(*seams.nvme);
  } catch (const std::exception& e) {
    notes.push_back(std::string(seams.ata    ? "ATA SMART could not be read: "
                                : seams.scsi ? "SCSI log pages could not be read: "
                                             : "SMART log could not be read: ") +
                    e.what());
  }
  return std::nullopt;
}

// The hidden --inject-fault seam: every engine of the run inside a FaultEngine.
std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)> fault_wrapper(
    const QualificationOptions& o) {
  if (!o.fault_plan) return {};
  return fault_injector(*o.fault_plan);
}

// What runs under a progress line: a workload's jobs, or a method that drives the engine itself.
using ProgressWork = std::function<reporting::WorkloadResult(const RunOptions&)>;
// A method that drives the engine itself, run under the progress line (measure_entry).
using DirectRun = std::function<reporting::WorkloadResult(const ProgressWork&)>;

// Runs `work` with a live progress line; it runs in its own thread while this thread reports.
// `expected_s`: its time when known (an ETA from it); a method that knows its bytes sets
// LiveCounters::total_bytes instead.
reporting::WorkloadResult run_with_progress(const std::string& id, double expected,
                                            std::size_t index, std::size_t count,
                                            std::atomic<bool>& stop,
                                            reporting::LiveProgress& progress,
                                            const QualificationOptions& o,
                                            const ProgressWork& work) {
  LiveCounters live;
  RunOptions ro;
  ro.stop = &stop;
  ro.wrap_engine = fault_wrapper(o);
  ro.live = &live;
  progress.start_workload(index, count, id, expected);
  std::optional<reporting::WorkloadResult> result;
  std::exception_ptr failure;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    try {
      result = work(ro);
    } catch (...) {
      failure = std::current_exception();
    }
    done = true;
  });
  auto start = std::chrono::steady_clock::now();
  double last_t = 0;  // when the line was last refreshed
  while (!done) {
    // Wakes often so that a short run (a PTS burst, a DIRTH point) returns as it ends, and
    // refreshes the line every 250 ms.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t - last_t < 0.25 || done) continue;
    last_t = t;
    progress.update_totals(t, live.ios.load(), live.bytes.load(), live.measuring.load(),
                           live.total_bytes.load());
  }
  worker.join();
  if (failure) std::rethrow_exception(failure);
  double iops = (result->read ? result->read->iops : 0) + (result->write ? result->write->iops : 0);
  double bw =
      (result->read ? result->read->bw_bytes : 0) + (result->write ? result->write->bw_bytes : 0);
  progress.finish_workload(result->elapsed_s, iops, bw);
  return *result;
}

// Runs one workload with a live progress line; the job threads run while this thread reports.
reporting::WorkloadResult measure_with_progress(const WorkloadSpec& spec, std::size_t index,
                                                std::size_t count, std::atomic<bool>& stop,
                                                reporting::LiveProgress& progress,
                                                const QualificationOptions& o) {
  double expected = spec.params.runtime_s > 0 ? spec.params.runtime_s + spec.params.ramp_time_s : 0;
  return run_with_progress(spec.id, expected, index, count, stop, progress, o,
                           [&spec](const RunOptions& ro) { return run_workload(spec, ro); });
}

// Why `w` cannot run on its block device at all (bs not a multiple of the logical block size
// under direct I/O, e.g. the 0.5 KiB cells of snia-iops on a 4Kn device); empty when it can.
std::optional<std::string> unfit_block_size(const WorkloadSpec& w) {
  struct stat st {};
  if (!w.params.direct || ::stat(w.params.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode))
    return std::nullopt;
  int fd = ::open(w.params.target.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  int lbs = 0;
  if (::ioctl(fd, BLKSSZGET, &lbs) != 0) lbs = 0;
  ::close(fd);
  if (lbs <= 0 || w.params.bs % static_cast<unsigned>(lbs) == 0) return std::nullopt;
  return "bs " + format_size_fio(w.params.bs) + " is not a multiple of the device's logical " +
         "block size " + std::to_string(lbs) + " (direct I/O)";
}

// The null engine's ceiling at a workload's depth, measured once per (iodepth, numjobs) for the
// whole process (it describes this host, not the device).
double engine_ceiling_iops(const WorkloadSpec& w) {
  static std::mutex lock;
  static EngineCeiling ceiling([](const WorkloadSpec& probe) { return run_workload(probe); });
  std::lock_guard guard(lock);
  return ceiling.iops(w);
}

// The suite-level <precondition>, once before the first workload, over the whole region the
// suite touches (its plan said first); its report lines are prefixed "suite: ".
std::vector<std::string> precondition_suite(const Suite& suite,
                                            const std::vector<WorkloadSpec>& plan,
                                            const QualificationOptions& o,
                                            const NvmePurgeAccess& nvme,
                                            const RunWorkload& measure) {
  const WorkloadSpec region = suite_region(plan);
  std::vector<std::string> lines;
  std::fprintf(o.console, "  preconditioning before the suite: %s\n",
               precondition_plan_text(region, *suite.precondition, o.runtime_scale).c_str());
  for (auto& line : run_preconditioning(region, *suite.precondition, nvme, measure, o.sysfs_root,
                                        o.runtime_scale))
    lines.push_back("suite: " + line);
  return lines;
}

// One suite entry as its method asks (runner/methods/method.hpp): its own preconditioning, then
// the method, every pass through `measure`; a method that drives the engine itself gets the run's
// stop flag, engine wrapper and live counters instead, under the progress line (`direct`).
reporting::WorkloadResult measure_entry(const SuiteWorkload& sw, const WorkloadSpec& w,
                                        const QualificationOptions& o, const DeviceAccess& device,
                                        const RunWorkload& measure, const DirectRun& direct,
                                        const MethodCheckpoint& checkpoint,
                                        std::vector<std::string>& preconditioning,
                                        ReadPreparation& read_data,
                                        std::vector<reporting::FillReport>& fills) {
  const NvmePurgeAccess& nvme = device.purge;
  MethodContext context;
  context.direct.stop = &install_stop_handlers();
  context.direct.wrap_engine = fault_wrapper(o);
  context.runtime_scale = o.runtime_scale;
  context.checkpoint = checkpoint;
  context.self_test = device.self_test.get();
  context.self_test_gap = device.self_test_gap;
  context.self_test_gap_is_consent = device.self_test_gap_is_consent;
  context.console = o.console;
  if (!sw.method->runs_workloads()) {
    // A method that prints its own progress (a self-test's polls) runs without the live line.
    if (!sw.method->shows_progress_line()) return sw.method->run(w, context);
    return direct([&](const RunOptions& ro) {
      MethodContext with_live = context;
      with_live.direct = ro;
      return sw.method->run(w, with_live);
    });
  }
  if (sw.precondition) {
    std::fprintf(o.console, "  preconditioning before '%s': %s\n", w.id.c_str(),
                 precondition_plan_text(w, *sw.precondition, o.runtime_scale).c_str());
    for (auto& line :
         run_preconditioning(w, *sw.precondition, nvme, measure, o.sysfs_root, o.runtime_scale))
      preconditioning.push_back(line);
    read_data.preconditioned(w, *sw.precondition);
  }
  // Reads of written data (read_fill.hpp): the fill is outside the workload's measured time.
  if (sw.method->reads_need_written_data() && reads(w)) {
    fills = read_data.before(w, measure);
    for (const auto& f : fills) std::fputs(reporting::format_fill_line(w.id, f).c_str(), o.console);
  }
  // The host is judged over every pass of the method (merge_host_busy), not only over the pass
  // whose result is returned; a plain run's one report stays as it is.
  std::vector<reporting::HostBusyReport> busy;
  context.measure = [&](const WorkloadSpec& spec) {
    reporting::WorkloadResult r = measure(spec);
    if (r.host_busy) busy.push_back(*r.host_busy);
    return r;
  };
  reporting::WorkloadResult r = sw.method->run(w, context);
  if (auto merged = merge_host_busy(busy)) r.host_busy = std::move(merged);
  return r;
}

// Why the device is gone after workload `r`, or "" when it is still there: an I/O or the open
// failed with ENXIO or ENODEV (the kernel's "no such device"), or the target's path vanished.
// Nothing after such a workload can run.
std::string device_gone(const reporting::WorkloadResult& r, int open_errno,
                        const std::string& target) {
  auto gone_errno = [](int e) { return e == ENXIO || e == ENODEV; };
  int e = 0;
  if (gone_errno(open_errno)) e = open_errno;
  for (const auto* d : {&r.read, &r.write})
    if (!e && *d && (*d)->errors && gone_errno((*d)->first_errno)) e = (*d)->first_errno;
  if (e) return std::string(std::strerror(e)) + " (" + strerrorname_np(e) + ")";
  std::error_code ec;
  if (!r.errors.empty() && !fs::exists(target, ec)) return target + " no longer exists";
  return "";
}

// A workload that threw instead of running: its result says so, and so does the console.
void record_workload_error(reporting::WorkloadResult& r, const WorkloadSpec& w, const char* what,
                           std::FILE* con) {
  r.id = w.id;
  r.params = w.params;
  r.fio_command = fio_command(w);
  r.errors.push_back(what);
  std::fputs(reporting::format_workload_error(w.id, what).c_str(), con);
}

// The target in one line for a checkpoint: what makes it this device and no other (a loop device
// or a file has no serial: its node and backing file).
std::string checkpoint_device(const devices::DeviceIdentity& id) {
  std::string out;
  auto add = [&out](const char* key, const std::string& value) {
    if (!value.empty()) out += (out.empty() ? "" : " ") + std::string(key) + "=" + value;
  };
  add("model", id.model.value);
  add("serial", id.serial.value);
  add("wwid", id.wwid.value);
  if (id.serial.value.empty() && id.wwid.value.empty()) {
    add("node", id.devnode);
    add("backing", id.backing.value);
  }
  add("bytes", id.capacity_bytes.value);
  return out;
}

// Where workload `id` keeps its checkpoint and whose it is (MethodCheckpoint): beside the JSON
// report (reporting/report_names.hpp checkpoint_path).
MethodCheckpoint method_checkpoint(const QualificationOptions& o, const ChosenSuite& chosen,
                                   const IdentifiedTarget& target, const std::string& id) {
  MethodCheckpoint c;
  c.path = reporting::checkpoint_path(
      reporting::default_reports(o.out_dir, o.json_path, o.junit_path, o.html_path).json, id);
  c.resume = o.resume;
  c.device = checkpoint_device(target.identity);
  c.suite = chosen.suite.name + " sha256=" + chosen.suite.sha256;
  return c;
}

// One planned workload, measured as its suite entry says (measure_entry), or skipped, or the error
// it threw; `open_errno` is the errno of an engine that could not open the target.
reporting::WorkloadResult measure_planned(
    const ChosenSuite& chosen, const std::vector<WorkloadSpec>& plan, std::size_t i,
    const QualificationOptions& o, const IdentifiedTarget& target, const DeviceAccess& device,
    SerializedNvmeAdmin* shared_admin, const RunWorkload& measure, const DirectRun& direct,
    ReadPreparation& read_data, int& open_errno) {
  std::FILE* con = o.console;
  reporting::WorkloadResult r;
  std::vector<std::string> preconditioning;
  std::vector<reporting::FillReport> fills;
  try {
    if (i == 0 && chosen.suite.precondition) {
      preconditioning = precondition_suite(chosen.suite, plan, o, device.purge, measure);
      read_data.preconditioned(suite_region(plan), *chosen.suite.precondition);
    }
    if (auto unfit = unfit_block_size(plan[i])) {
      r.id = plan[i].id;
      r.params = plan[i].params;
      r.skipped = *unfit;
      std::fputs(reporting::format_workload_skipped(plan[i].id, *unfit).c_str(), con);
    } else {
      std::unique_ptr<ThermalSampler> sampler;  // off for non-NVMe and --thermal-interval 0
      if (shared_admin && o.thermal_interval_s > 0)
        sampler = std::make_unique<ThermalSampler>(*shared_admin, o.thermal_interval_s);
      r = measure_entry(chosen.suite.workloads[i], plan[i], o, device, measure, direct,
                        method_checkpoint(o, chosen, target, plan[i].id), preconditioning,
                        read_data, fills);
      read_data.after(plan[i], r);
      if (sampler) {
        const double total_s = sampler->elapsed_s();
        attach_thermal(r, sampler->stop(), total_s);
      }
      // A result without I/O of its own (a self-test) has no host limit to assess.
      if (r.read || r.write || !r.errors.empty()) {
        const auto link = read_pcie_link(o.sysfs_root, target.resolved.device);
        r.host_limit = assess_host_limit(r, engine_ceiling_iops(plan[i]), link);
        // A group's jobs each by their own threads' CPU and run-queue wait: a writer that waited
        // on its device is not excused by a reader that kept a CPU busy (a job claim reads it).
        for (auto& job : r.jobs) job.host_limit = assess_host_limit(job, 0, link);
      }
      if (auto stalled = stall_error(r)) r.errors.push_back(*stalled);
      // The reason a workload is in error is said where it happened, not only in the reports.
      std::fputs(reporting::format_workload_errors(plan[i].id, r.errors).c_str(), con);
    }
  } catch (const engines::EngineError& e) {
    // The target could not be opened (EROFS, ENXIO, ...): one error in the direction that
    // needed it, at the start of the region, like an I/O error.
    open_errno = e.error();
    record_workload_error(r, plan[i], e.what(), con);
    auto& side = writes(plan[i]) ? r.write : r.read;
    side.emplace();
    side->errors = 1;
    side->first_errno = open_errno;
    side->first_error_offset = plan[i].params.offset;
  } catch (const std::exception& e) {
    record_workload_error(r, plan[i], e.what(), con);
  }
  r.preconditioning = std::move(preconditioning);
  r.fill = std::move(fills);
  // The report names the target as the user gave it, not the scratch file's temporary name.
  r.params.target = o.target;
  for (auto& job : r.jobs) job.params.target = o.target;
  const Method& method = *chosen.suite.workloads[i].method;
  WorkloadSpec as_run = plan[i];
  as_run.params.iodepth = r.params.iodepth;  // a latency search chose its own
  r.fio_command = method.fio_command_as_run(as_run, r);
  if (!r.skipped && method.prints_fio_summary(r))
    std::fputs(reporting::format_fio_summary(r).c_str(), con);
  else if (!r.skipped && r.method)  // its own block without fio's layout (a surface scan's classes)
    std::fputs(r.method->console_block(r).c_str(), con);
  return r;
}

// The device went away: the workloads left are reported as not run, not run against nothing.
void skip_the_rest(const std::vector<WorkloadSpec>& plan, std::size_t from, const std::string& why,
                   const QualificationOptions& o, reporting::RunResult& run) {
  for (std::size_t k = from; k < plan.size(); ++k) {
    reporting::WorkloadResult left;
    left.id = plan[k].id;
    left.params = plan[k].params;
    left.params.target = o.target;
    left.fio_command = fio_command(plan[k]);
    left.skipped = why;
    run.workloads.push_back(std::move(left));
  }
}

// A block device's page cache written back and dropped before workload i once buffered I/O ran
// (settle_page_cache); said on the console when it took a while, and in the notes when refused.
void settle_before(const std::vector<WorkloadSpec>& plan, std::size_t i, std::FILE* con,
                   std::vector<std::string>& notes) {
  try {
    const auto took = settle_page_cache(plan, i);
    if (took && *took >= 0.1)
      std::fprintf(con, "  page cache of %s written back and dropped before '%s' (%.1f s)\n",
                   plan[i].params.target.c_str(), plan[i].id.c_str(), *took);
  } catch (const UnitError& e) {
    const std::string note = std::string(e.what()) + ": '" + plan[i].id +
                             "' started on the page cache the workloads before it left";
    std::fprintf(con, "  note: %s\n", note.c_str());
    notes.push_back(note);
  }
}

}  // namespace

// The region the whole plan touches, from 0: what the suite-level <precondition> runs over.
WorkloadSpec suite_region(const std::vector<WorkloadSpec>& plan) {
  WorkloadSpec region = plan.front();
  region.params.offset = 0;
  region.params.size = 0;
  for (const auto& p : plan)
    region.params.size = std::max(region.params.size, p.params.offset + p.params.size);
  return region;
}

// Step 4: health before, every workload of the plan in order (until a stop request or the device
// going away), health after (and between workloads). Returns the device-health testcase when the
// health degraded during the run.
std::optional<reporting::ClaimVerdict> measure_plan(
    const ChosenSuite& chosen, const std::vector<WorkloadSpec>& plan, const QualificationOptions& o,
    const IdentifiedTarget& target, ReadPreparation& read_data, std::vector<std::string>& notes,
    reporting::RunResult& run) {
  std::atomic<bool>& stop = install_stop_handlers();
  std::FILE* con = o.console;
  // The thermal sampler shares the admin handle with the snapshots and a purge.
  std::unique_ptr<SerializedNvmeAdmin> shared_admin;
  if (target.admin) shared_admin = std::make_unique<SerializedNvmeAdmin>(*target.admin);
  const HealthSeams seams{shared_admin.get(), target.ata.get(), target.scsi.get()};
  auto read_health = [&] { return snapshot(seams, notes); };
  auto before = read_health();
  std::vector<devices::HealthSnapshot> health_during;
  std::vector<std::string> health_labels;
  std::string scsi_devnode;  // a live SCSI disk without a health seam (LOG SENSE refused)
  if (!target.admin && !target.ata && !target.scsi && !o.nvme_capture &&
      target.identity.transport == devices::Transport::Scsi &&
      devices::Sysfs{o.sysfs_root}.is_live())
    scsi_devnode = target.identity.devnode;
  const DeviceAccess device = device_access(o, seams, scsi_devnode);
  reporting::LiveProgress progress(con, reporting::LiveProgress::is_terminal(con));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (stop.load()) break;
    int open_errno = 0;
    RunWorkload measure = [&](const WorkloadSpec& w) {
      return measure_with_progress(w, i + 1, plan.size(), stop, progress, o);
    };
    DirectRun direct = [&](const ProgressWork& work) {
      return run_with_progress(plan[i].id, 0, i + 1, plan.size(), stop, progress, o, work);
    };
    settle_before(plan, i, con, notes);
    reporting::WorkloadResult r =
        measure_planned(chosen, plan, i, o, target, device, shared_admin.get(), measure, direct,
                        read_data, open_errno);
    const std::string gone = device_gone(r, open_errno, o.target);
    const std::string gone_in = r.id;
    run.workloads.push_back(std::move(r));
    if (before && i + 1 < plan.size() && gone.empty()) {
      // A mid-run SMART sample: a warning raised (or cleared again) between workloads is seen.
      if (auto mid = read_health()) {
        health_during.push_back(*mid);
        health_labels.push_back("after workload " + std::to_string(i + 1) + " of " +
                                std::to_string(plan.size()));
      }
    }
    if (!gone.empty()) {
      std::fputs(reporting::format_device_gone(gone, plan.size() - i - 1).c_str(), con);
      skip_the_rest(plan, i + 1, "the device went away during '" + gone_in + "': " + gone, o, run);
      break;
    }
  }
  auto after = read_health();
  const double capacity = device_capacity(target.identity);
  const auto& sheet = chosen.choice.sheet;
  // Wear is the NVMe log's (percentage used, data units).
  if (before && after && !before->ata && !before->scsi)
    run.device.wear = assess_wear(
        *before, *after, capacity,
        sheet && sheet->warranty_years ? *sheet->warranty_years : kDefaultWarrantyYears);
  if (before) run.device.health_before = to_field_rows(devices::health_rows(*before));
  if (after) run.device.health_after = to_field_rows(devices::health_rows(*after));
  if (before && after) run.device.health_changes = devices::health_changes(*before, *after);
  for (const auto& n : notes) run.device.identity.push_back({"note", n, "storqual"});
  return health_verdict(before, health_during, health_labels, after,
                        sheet ? sheet->health_limits : std::vector<HealthLimit>{});
}

}  // namespace storqual::runner
