// SPDX-License-Identifier: Apache-2.0
// The qualification run (see qualification.hpp).
#include "runner/qualification.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "devices/device_identity.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/safety_guard.hpp"
#include "devices/sysfs.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/result_json.hpp"
#include "runner/baseline.hpp"
#include "runner/capacity_check.hpp"
#include "runner/cli.hpp"
#include "runner/environment.hpp"
#include "runner/fault_spec.hpp"
#include "runner/host_limits.hpp"
#include "runner/job_runner.hpp"
#include "runner/latency_search.hpp"
#include "runner/preconditioning.hpp"
#include "runner/signals.hpp"
#include "runner/spec_sheet.hpp"
#include "runner/steady_state.hpp"
#include "runner/suite.hpp"
#include "runner/sustained_write.hpp"
#include "runner/target_preparation.hpp"
#include "runner/units.hpp"
#include "runner/verdict.hpp"
#include "runner/verify.hpp"
#include "runner/xml_file.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

std::vector<reporting::FieldRow> to_field_rows(const std::vector<devices::IdentityRow>& rows) {
  std::vector<reporting::FieldRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back({r.field, r.value, r.source});
  return out;
}

std::map<std::string, std::string> match_fields(const devices::DeviceIdentity& id) {
  return {{"model", id.model.value},
          {"firmware", id.firmware.value},
          {"vendor", id.vendor.value},
          {"serial", id.serial.value},
          {"transport", std::string(devices::to_string(id.transport))}};
}

bool is_spec_sheet_file(const fs::path& p) {
  std::ifstream in(p);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("<spec-sheet") != std::string::npos;
}

// The suite for a device without a spec sheet: its class.
std::string suite_for_class(const devices::DeviceIdentity& id) {
  using devices::Transport;
  if (id.rotational.value == "1") return "hdd";
  switch (id.transport) {
    case Transport::Nvme:
      return "nvme-ssd";
    case Transport::Mmc:
    case Transport::Usb:
      return "client";
    case Transport::Loop:
    case Transport::Zram:
      return "quick";
    default:
      return "sata-ssd";
  }
}

std::string default_name(const std::optional<std::string>& given, const std::string& dir,
                         const char* file) {
  if (given) return *given;
  return (fs::path(dir) / file).string();
}

struct SpecChoice {
  std::optional<SpecSheet> sheet;
  std::string why;  // how it was chosen, for the console
};

SpecChoice choose_spec(const QualificationOptions& o, const devices::DeviceIdentity& id) {
  SpecChoice c;
  if (o.spec_file) {
    c.sheet = SpecSheet::load(*o.spec_file);
    c.why = "given with --spec";
    if (!c.sheet->matches(match_fields(id)))
      c.why += " (note: its <match> does not fit this device's identity)";
    return c;
  }
  if (!o.specs_dir) {
    c.why = "no spec sheet given: measured only";
    return c;
  }
  std::error_code ec;
  if (!fs::is_directory(*o.specs_dir, ec))
    throw UsageError("--specs " + *o.specs_dir + " is not a directory");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(*o.specs_dir))
    if (e.path().extension() == ".xml" && is_spec_sheet_file(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<SpecSheet> matching;
  for (const auto& f : files) {
    SpecSheet s = SpecSheet::load(f);
    if (s.matches(match_fields(id))) matching.push_back(std::move(s));
  }
  if (matching.size() > 1)
    throw UsageError("two spec sheets match " + id.model.value + ": " + matching[0].path.string() +
                     " ('" + matching[0].name + "') and " + matching[1].path.string() + " ('" +
                     matching[1].name + "'); narrow their <match> or choose one with --spec");
  if (matching.empty()) {
    c.why =
        "no sheet in " + *o.specs_dir + " matches model '" + id.model.value + "': measured only";
    return c;
  }
  c.sheet = std::move(matching.front());
  c.why = "matched in " + *o.specs_dir;
  return c;
}

std::unique_ptr<devices::NvmeAdmin> nvme_admin_for(const QualificationOptions& o,
                                                   const devices::DeviceIdentity& id,
                                                   std::vector<std::string>& notes) {
  try {
    if (o.nvme_capture)
      return std::make_unique<devices::CapturedNvmeAdmin>(
          *o.nvme_capture, std::vector<std::string>{"smart-before.bin", "smart-after.bin"});
    if (id.transport == devices::Transport::Nvme && !id.devnode.empty() && o.sysfs_root == "/sys")
      return std::make_unique<devices::LibnvmeAdmin>(id.devnode);
  } catch (const std::exception& e) {
    notes.push_back(std::string("NVMe health not available: ") + e.what());
  }
  return nullptr;
}

std::optional<devices::HealthSnapshot> snapshot(devices::NvmeAdmin* admin,
                                                std::vector<std::string>& notes) {
  if (!admin) return std::nullopt;
  try {
    return devices::take_health_snapshot(*admin);
  } catch (const std::exception& e) {
    notes.push_back(std::string("SMART log could not be read: ") + e.what());
    return std::nullopt;
  }
}

void scale_workload(WorkloadSpec& w, const QualificationOptions& o) {
  if (o.runtime_scale != 1.0) {
    w.params.runtime_s *= o.runtime_scale;
    w.params.ramp_time_s *= o.runtime_scale;
    // A scaled run still needs at least one timeline interval to say anything over time.
    if (w.params.runtime_s > 0 && w.params.runtime_s < 0.2) w.params.runtime_s = 0.2;
    if (w.params.runtime_s > 0 && w.interval_s > w.params.runtime_s / 4)
      w.interval_s = std::max(0.01, w.params.runtime_s / 10);
  }
  if (o.ioengine) set_workload_option(w, "ioengine", *o.ioengine);
  if (o.size) w.params.size = *o.size;
}

// The hidden --inject-fault seam: every engine of the run inside a FaultEngine.
std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)> fault_wrapper(
    const QualificationOptions& o) {
  if (!o.fault_plan) return {};
  return fault_injector(*o.fault_plan);
}

// Runs one workload with a live progress line; the job threads run while this thread reports.
reporting::WorkloadResult measure_with_progress(const WorkloadSpec& spec, std::size_t index,
                                                std::size_t count, std::atomic<bool>& stop,
                                                reporting::LiveProgress& progress,
                                                const QualificationOptions& o) {
  LiveCounters live;
  RunOptions ro;
  ro.stop = &stop;
  ro.wrap_engine = fault_wrapper(o);
  ro.live = &live;
  double expected = spec.params.runtime_s > 0 ? spec.params.runtime_s + spec.params.ramp_time_s : 0;
  progress.start_workload(index, count, spec.id, expected);
  std::optional<reporting::WorkloadResult> result;
  std::exception_ptr failure;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    try {
      result = run_workload(spec, ro);
    } catch (...) {
      failure = std::current_exception();
    }
    done = true;
  });
  auto start = std::chrono::steady_clock::now();
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!done) progress.update_totals(t, live.ios.load(), live.bytes.load(), live.measuring.load());
  }
  worker.join();
  if (failure) std::rethrow_exception(failure);
  double iops = (result->read ? result->read->iops : 0) + (result->write ? result->write->iops : 0);
  double bw =
      (result->read ? result->read->bw_bytes : 0) + (result->write ? result->write->bw_bytes : 0);
  progress.finish_workload(result->elapsed_s, iops, bw);
  return *result;
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
// suite touches; its report lines are prefixed "suite: ".
std::vector<std::string> precondition_suite(const Suite& suite,
                                            const std::vector<WorkloadSpec>& plan,
                                            const QualificationOptions& o,
                                            const NvmePurgeAccess& nvme,
                                            const PassFunction& measure) {
  WorkloadSpec region = plan.front();
  region.params.offset = 0;
  region.params.size = 0;
  for (const auto& p : plan)
    region.params.size = std::max(region.params.size, p.params.offset + p.params.size);
  std::vector<std::string> lines;
  for (auto& line : run_preconditioning(region, *suite.precondition, nvme, measure, o.sysfs_root))
    lines.push_back("suite: " + line);
  return lines;
}

// One suite entry as its element asks: its own preconditioning, then a latency search, rounds to
// steady state, a sustained write or a plain run.
reporting::WorkloadResult measure_entry(const SuiteWorkload& sw, const WorkloadSpec& w,
                                        const QualificationOptions& o, const NvmePurgeAccess& nvme,
                                        const PassFunction& measure,
                                        std::vector<std::string>& preconditioning) {
  if (sw.capacity) {
    CapacityCheck check = *sw.capacity;
    check.target = w.params.target;
    RunOptions ro;
    ro.stop = &install_stop_handlers();
    ro.wrap_engine = fault_wrapper(o);
    return run_capacity_check(check, ro);
  }
  if (sw.precondition)
    for (auto& line : run_preconditioning(w, *sw.precondition, nvme, measure, o.sysfs_root))
      preconditioning.push_back(line);
  if (sw.latency_search) {
    reporting::WorkloadResult best =
        search_latency_bound(w, *sw.latency_search, [&](const WorkloadSpec& step) {
          WorkloadSpec named = step;
          named.id = w.id + " (iodepth " + std::to_string(step.params.iodepth) + ")";
          return measure(named);
        }).best;
    best.id = w.id;
    return best;
  }
  if (sw.sustained_write) return run_sustained_write(w, *sw.sustained_write, measure);
  if (!sw.steady_state) return measure(w);
  SteadyStateConfig config = *sw.steady_state;
  WorkloadSpec rounds = w;
  if (config.round_time_s > 0) {
    config.round_time_s = std::max(0.2, config.round_time_s * o.runtime_scale);
    if (rounds.interval_s > config.round_time_s / 4)
      rounds.interval_s = std::max(0.01, config.round_time_s / 10);
  }
  return run_rounds(rounds, config, [&](const WorkloadSpec& r, unsigned round) {
    WorkloadSpec named = r;
    named.id = w.id + " (round " + std::to_string(round) + ")";
    return measure(named);
  });
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

}  // namespace

QualificationOutcome run_qualification(const QualificationOptions& o) {
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  std::atomic<bool>& stop = install_stop_handlers();
  std::FILE* con = o.console;

  // 1. Identify.
  devices::Sysfs sysfs{o.sysfs_root};
  devices::ResolvedTarget resolved;
  devices::DeviceIdentity identity;
  try {
    resolved = sysfs.resolve(o.target);
    identity = devices::read_identity(sysfs, resolved.device);
  } catch (const devices::ResolveError& e) {
    throw UsageError(e.what());
  }
  std::vector<std::string> notes;
  auto admin = nvme_admin_for(o, identity, notes);
  if (admin) {
    try {
      auto ctrl = devices::parse_identify_controller(admin->identify_controller());
      auto ns = devices::parse_identify_namespace(admin->identify_namespace());
      devices::apply_nvme_identity(identity, ctrl, &ns);
    } catch (const std::exception& e) {
      notes.push_back(std::string("NVMe identify failed: ") + e.what());
    }
  }
  run.device.path = o.target;
  run.device.name = resolved.kind == devices::TargetKind::BlockDevice
                        ? resolved.device
                        : (resolved.kind == devices::TargetKind::DirectoryOnDevice
                               ? "scratch file in " + o.target + " (on " + resolved.device + ")"
                               : "file " + o.target + " (on " + resolved.device + ")");
  run.device.identity = to_field_rows(devices::identity_rows(identity));

  // 2. Spec sheet and suite.
  SpecChoice choice = choose_spec(o, identity);
  std::vector<fs::path> dirs;
  for (const auto& d : o.suite_dirs) dirs.emplace_back(d);
  if (dirs.empty()) dirs = default_suite_dirs();
  fs::path suite_path;
  if (o.suite)
    suite_path = resolve_suite(*o.suite, dirs);
  else if (choice.sheet)
    suite_path = resolve_suite_for_sheet(choice.sheet->suite, choice.sheet->path, dirs);
  else
    suite_path = resolve_suite(suite_for_class(identity), dirs);
  Suite suite = Suite::load(suite_path);
  if (choice.sheet) {
    run.spec = {choice.sheet->name,          choice.sheet->vendor, choice.sheet->source,
                choice.sheet->path.string(), choice.sheet->sha256, suite.name,
                suite_path.string()};
  } else {
    run.spec.suite = suite.name;
    run.spec.suite_path = suite_path.string();
  }
  std::fprintf(con, "storqual run: %s, %s %s (%s)\n", o.target.c_str(),
               identity.vendor.value.c_str(), identity.model.value.c_str(),
               std::string(devices::to_string(identity.transport)).c_str());
  std::fprintf(con, "  spec sheet: %s (%s)\n", choice.sheet ? choice.sheet->name.c_str() : "none",
               choice.why.c_str());
  std::fprintf(con, "  suite: %s, %zu workloads\n", suite.name.c_str(), suite.workloads.size());

  // 3. The plan, then the safety guard over the whole region the suite touches.
  std::vector<WorkloadSpec> plan;
  bool any_write = false;
  std::uint64_t reach = 0;
  bool whole = false;
  for (const auto& sw : suite.workloads) {
    WorkloadSpec w = sw.spec;
    w.params.target = o.target;
    if (sw.latency_search) w.params.iodepth = std::min(sw.latency_search->max_iodepth, 32u);
    scale_workload(w, o);
    validate(w);
    any_write = any_write || writes(w);
    if (w.params.size == 0) whole = true;
    reach = std::max(reach, w.params.offset + w.params.size);
    plan.push_back(std::move(w));
  }
  WorkloadSpec region;
  region.params.rw = any_write ? "randwrite" : "randread";
  region.params.target = o.target;
  region.params.size = whole ? 0 : reach;
  TargetFlags flags{o.allow_destructive, o.force, o.sysfs_root};
  devices::AdmittedTarget admitted;
  try {
    admitted = admit_target(region, flags);
  } catch (const devices::SafetyRefusal& e) {
    throw UsageError(e.what());
  } catch (const devices::ScratchFileError& e) {
    throw UsageError(e.what());
  }
  for (const auto& n : admitted.notes) notes.push_back(n);
  for (auto& w : plan) {
    w.params.target = admitted.path;
    if (w.params.size == 0) {
      // The whole device from offset, as the method says, up to the suite's documented cap.
      w.params.size = admitted.capacity - w.params.offset;
      if (w.max_size && w.params.size > w.max_size) w.params.size = w.max_size;
    }
  }

  // 4. Health before, the workloads, health after.
  auto before = snapshot(admin.get(), notes);
  const NvmePurgeAccess nvme_purge{.allowed = o.allow_nvme_purge, .admin = admin.get()};
  reporting::LiveProgress progress(con, reporting::LiveProgress::is_terminal(con));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (stop.load()) break;
    reporting::WorkloadResult r;
    int open_errno = 0;  // the errno of an engine that could not open the target
    std::vector<std::string> preconditioning;
    auto measure = [&](const WorkloadSpec& w) {
      return measure_with_progress(w, i + 1, plan.size(), stop, progress, o);
    };
    try {
      if (i == 0 && suite.precondition)
        preconditioning = precondition_suite(suite, plan, o, nvme_purge, measure);
      if (auto unfit = unfit_block_size(plan[i])) {
        r.id = plan[i].id;
        r.params = plan[i].params;
        r.skipped = *unfit;
        std::fprintf(con, "  %s: skipped: %s\n", plan[i].id.c_str(), unfit->c_str());
      } else {
        r = measure_entry(suite.workloads[i], plan[i], o, nvme_purge, measure, preconditioning);
        r.host_limit = assess_host_limit(r, engine_ceiling_iops(plan[i]),
                                         read_pcie_link(o.sysfs_root, resolved.device));
      }
    } catch (const std::exception& e) {
      r.id = plan[i].id;
      r.params = plan[i].params;
      r.fio_command = fio_command(plan[i]);
      r.errors.push_back(e.what());
      if (const auto* ee = dynamic_cast<const engines::EngineError*>(&e)) {
        // The target could not be opened (EROFS, ENXIO, ...): one error in the direction that
        // needed it, at the start of the region, like an I/O error.
        open_errno = ee->error();
        auto& side = writes(plan[i]) ? r.write : r.read;
        side.emplace();
        side->errors = 1;
        side->first_errno = open_errno;
        side->first_error_offset = plan[i].params.offset;
      }
      std::fprintf(con, "  %s: error: %s\n", plan[i].id.c_str(), e.what());
    }
    r.preconditioning = std::move(preconditioning);
    // The report names the target as the user gave it, not the scratch file's temporary name.
    r.params.target = o.target;
    WorkloadSpec as_run = plan[i];
    as_run.params.iodepth = r.params.iodepth;              // a latency search chose its own
    if (!r.capacity) r.fio_command = fio_command(as_run);  // a capacity check names its own method
    if (!r.skipped && !r.capacity) std::fputs(reporting::format_fio_summary(r).c_str(), con);
    const std::string gone = device_gone(r, open_errno, o.target);
    const std::string gone_in = r.id;
    run.workloads.push_back(std::move(r));
    if (!gone.empty()) {
      // The device went away: the workloads left are reported as not run, not run against nothing.
      const std::string why = "the device went away during '" + gone_in + "': " + gone;
      std::fprintf(con, "  device gone: %s; %zu workload(s) not run\n", gone.c_str(),
                   plan.size() - i - 1);
      for (std::size_t k = i + 1; k < plan.size(); ++k) {
        reporting::WorkloadResult left;
        left.id = plan[k].id;
        left.params = plan[k].params;
        left.params.target = o.target;
        left.fio_command = fio_command(plan[k]);
        left.skipped = why;
        run.workloads.push_back(std::move(left));
      }
      break;
    }
  }
  auto after = snapshot(admin.get(), notes);
  if (before) run.device.health_before = to_field_rows(devices::health_rows(*before));
  if (after) run.device.health_after = to_field_rows(devices::health_rows(*after));
  if (before && after) run.device.health_changes = devices::health_changes(*before, *after);
  for (const auto& n : notes) run.device.identity.push_back({"note", n, "storqual"});

  // 5. Verdicts and reports.
  run.verdicts = choice.sheet ? judge(*choice.sheet, suite, run.workloads)
                              : judge_measured_only(suite, run.workloads);
  // Data integrity of verified workloads is a testcase of its own, claim or not.
  auto integrity = integrity_verdicts(run.workloads);
  run.verdicts.insert(run.verdicts.end(), integrity.begin(), integrity.end());
  if (o.baseline) {
    auto against = compare_with_baseline(*o.baseline, run, o.regression_pct);
    run.verdicts.insert(run.verdicts.end(), against.begin(), against.end());
  }
  int code = exit_code_for(run.verdicts);
  if (int sig = interrupted_exit_code()) code = sig;
  run.exit_code = code;
  run.environment.end_utc = utc_now();

  out.json_path = default_name(o.json_path, o.out_dir, "storqual-result.json");
  out.junit_path = default_name(o.junit_path, o.out_dir, "storqual-junit.xml");
  out.html_path = default_name(o.html_path, o.out_dir, "storqual-report.html");
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  reporting::write_file_atomically(out.json_path, reporting::to_json_text(run));
  reporting::write_junit(out.junit_path, {run});
  reporting::write_html(out.html_path, run);
  std::fputs(reporting::format_verdict_table(run).c_str(), con);
  std::fprintf(con, "reports: %s %s %s\n", out.junit_path.c_str(), out.json_path.c_str(),
               out.html_path.c_str());
  out.exit_code = code;
  return out;
}

}  // namespace storqual::runner
