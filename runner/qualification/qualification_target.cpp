// SPDX-License-Identifier: Apache-2.0
// Steps 1 to 3 of a qualification run: who the target is, the spec sheet and suite it is
// measured against, and the plan the safety guard admitted (see qualification_target.hpp).
#include "runner/qualification/qualification_target.hpp"

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
#include "runner/qualification/read_fill.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/qualification/target_preparation.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

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

// No sheet of --specs DIR fits: a usage error naming the device and the nearest sheets (their
// best <match> and how much of it fits), unless --measure-only allows a run that judges nothing.
[[noreturn]] void refuse_unmatched(const std::string& dir, const std::vector<SpecSheet>& sheets,
                                   const std::map<std::string, std::string>& fields) {
  std::vector<std::pair<double, std::string>> near;
  for (const auto& s : sheets) {
    auto [share, rule] = s.nearest_match(fields);
    near.emplace_back(share, s.path.string() + " ('" + s.name + "', <match " + rule + ">)");
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string nearest;
  for (std::size_t i = 0; i < near.size() && i < 3; ++i) nearest += "\n  " + near[i].second;
  throw UsageError("no spec sheet in " + dir + " matches this device (" + identity_summary(fields) +
                   ")" +
                   (nearest.empty() ? std::string("; the directory has no sheets")
                                    : "; the nearest:" + nearest) +
                   "\nwrite a sheet for it, choose one with --spec, or give --measure-only to "
                   "measure without judging");
}

SpecChoice choose_spec(const QualificationOptions& o, const devices::DeviceIdentity& id,
                       devices::TargetKind kind) {
  SpecChoice c;
  const auto fields = match_fields(id, kind);
  if (o.spec_file) {
    c.sheet = SpecSheet::load(*o.spec_file);
    c.why = "given with --spec";
    c.does_not_match = !c.sheet->matches(fields);
    if (c.does_not_match) c.why += " (deviation: its <match> does not fit this device's identity)";
    return c;
  }
  if (!o.specs_dir) {
    c.why = o.measure_only ? "--measure-only: nothing is judged"
                           : "none given (--spec FILE or --specs DIR): measured only, nothing is "
                             "judged";
    return c;
  }
  std::vector<SpecSheet> sheets, matching;
  for (const auto& f : spec_sheet_files(*o.specs_dir)) {
    SpecSheet s = SpecSheet::load(f);
    if (s.matches(fields)) matching.push_back(s);
    sheets.push_back(std::move(s));
  }
  if (matching.size() > 1)
    throw UsageError("two spec sheets match " + id.model.value + ": " + matching[0].path.string() +
                     " ('" + matching[0].name + "') and " + matching[1].path.string() + " ('" +
                     matching[1].name + "'); narrow their <match> or choose one with --spec");
  if (matching.empty()) {
    if (!o.measure_only) refuse_unmatched(*o.specs_dir, sheets, fields);
    c.why = "no sheet in " + *o.specs_dir + " matches model '" + id.model.value +
            "': measured only (--measure-only), nothing is judged";
    return c;
  }
  c.sheet = std::move(matching.front());
  c.why = "matched in " + *o.specs_dir;
  return c;
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

// A group's jobs without a size, in a group without one: the whole target from each job's own
// offset (up to the cap), written as the job's size before the group gets its own.
void size_jobs_to(std::uint64_t capacity, WorkloadSpec& group) {
  if (group.jobs.empty() || group.params.size != 0) return;
  const std::vector<WorkloadSpec> members = group_members(group);
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& p = members[i].params;
    if (p.size != 0 || p.offset >= capacity) continue;  // an offset past the end: the run says so
    std::uint64_t size = capacity - p.offset;
    if (members[i].max_size && size > members[i].max_size) size = members[i].max_size;
    group.jobs[i].options.emplace_back("size", std::to_string(size));
  }
}
}  // namespace

std::vector<reporting::FieldRow> to_field_rows(const std::vector<devices::IdentityRow>& rows) {
  std::vector<reporting::FieldRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back({r.field, r.value, r.source});
  return out;
}

// "model 'X', vendor 'Y', ..., target 'block'": the identity fields a <match> may name.
std::string identity_summary(const std::map<std::string, std::string>& fields) {
  std::string out;
  for (const auto field : kMatchFields) {
    auto it = fields.find(std::string(field));
    const std::string value = it == fields.end() ? "" : it->second;
    out += (out.empty() ? "" : ", ") + std::string(field) + " '" + value + "'";
  }
  return out;
}

// The identity's capacity in bytes, 0 when unknown (per-TB claims, the endurance projection).
double device_capacity(const devices::DeviceIdentity& identity) {
  return identity.capacity_bytes.known()
             ? std::strtod(identity.capacity_bytes.value.c_str(), nullptr)
             : 0;
}

IdentifiedTarget identify_device(const QualificationOptions& o, reporting::RunResult& run,
                                 std::vector<std::string>& notes) {
  IdentifiedTarget t;
  devices::Sysfs sysfs{o.sysfs_root};
  t.resolved = sysfs.resolve(o.target);
  NvmeAccess access;
  access.use = NvmeAccess::Use::Run;
  if (o.nvme_capture) access.captured = *o.nvme_capture;
  DeviceIdentification d = read_full_identity(sysfs, t.resolved.device, access);
  if (!d.admin_error.empty()) notes.push_back("NVMe health not available: " + d.admin_error);
  if (!d.identify_error.empty()) notes.push_back("NVMe identify failed: " + d.identify_error);
  if (!d.health_gap.empty()) notes.push_back(d.health_gap);
  t.identity = std::move(d.identity);
  t.admin = std::move(d.admin);
  t.ata = std::move(d.ata);
  t.scsi = std::move(d.scsi);
  run.device.path = o.target;
  run.device.name = t.resolved.kind == devices::TargetKind::BlockDevice
                        ? t.resolved.device
                        : (t.resolved.kind == devices::TargetKind::DirectoryOnDevice
                               ? "scratch file in " + o.target + " (on " + t.resolved.device + ")"
                               : "file " + o.target + " (on " + t.resolved.device + ")");
  run.device.identity = to_field_rows(devices::identity_rows(t.identity));
  return t;
}

ChosenSuite choose_suite(const QualificationOptions& o, const IdentifiedTarget& target,
                         reporting::RunResult& run) {
  const devices::DeviceIdentity& identity = target.identity;
  SpecChoice choice = choose_spec(o, identity, target.resolved.kind);
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
    // A claim the suite cannot judge would be reported as skipped, never measured: refused before
    // anything is measured (also by `storqual check`).
    const std::vector<std::string> problems = cross_check(*choice.sheet, suite);
    if (!problems.empty()) {
      std::string list;
      for (const auto& p : problems) list += "\n  " + p;
      throw UsageError("spec sheet " + choice.sheet->path.string() + " has claims that suite '" +
                       suite.name + "' (" + suite_path.string() + ") cannot judge:" + list +
                       (o.suite ? "\n(--suite " + *o.suite + " replaced the sheet's suite '" +
                                      choice.sheet->suite + "')"
                                : std::string()));
    }
    run.spec = {choice.sheet->name,          choice.sheet->vendor, choice.sheet->source,
                choice.sheet->path.string(), choice.sheet->sha256, suite.name,
                suite_path.string(),         suite.sha256};
  } else {
    run.spec.suite = suite.name;
    run.spec.suite_path = suite_path.string();
    run.spec.suite_sha256 = suite.sha256;
    run.measure_only = true;
  }
  reporting::RunHeader header;
  header.target = o.target;
  header.vendor = identity.vendor.value;
  header.model = identity.model.value;
  header.transport = std::string(devices::to_string(identity.transport));
  if (choice.sheet) header.sheet = choice.sheet->name;
  header.sheet_why = choice.why;
  header.suite = suite.name;
  header.workloads = suite.workloads.size();
  std::fputs(reporting::format_run_header(header).c_str(), o.console);
  return {std::move(choice), std::move(suite)};
}

// Step 3: the plan (every suite workload on the target, scaled and validated), then the safety
// guard over the whole region the suite touches; the plan then names the admitted path.
std::vector<WorkloadSpec> plan_workloads(const Suite& suite, const QualificationOptions& o) {
  std::vector<WorkloadSpec> plan;
  for (const auto& sw : suite.workloads) {
    WorkloadSpec w = sw.spec;
    w.params.target = o.target;
    sw.method->plan(w);
    scale_workload(w, o);
    // --early-stop: every workload with a time limit of its own; rounds (SNIA PTS steady state)
    // and latency searches keep their own stopping rules. "off" turns a suite's rule off too.
    if (o.early_stop && sw.method->takes_early_stop())
      set_workload_option(w, "early_stop", *o.early_stop);
    validate(w);
    plan.push_back(std::move(w));
  }
  return plan;
}

// The admitted target holds the guard (and a scratch file) for as long as the run needs it: the
// caller keeps it.
[[nodiscard]] devices::AdmittedTarget admit_plan(std::vector<WorkloadSpec>& plan,
                                                 const QualificationOptions& o, bool fills,
                                                 std::vector<std::string>& notes) {
  bool any_write = false, whole = false;
  std::uint64_t reach = 0;
  for (const auto& w : plan) {
    // A read workload's fill writes its region (read_fill.hpp) when the run may write.
    any_write = any_write || writes(w) || (fills && reads(w));
    // A group's jobs each have their region (their own offset and size, or the group's).
    for (const WorkloadSpec& m : w.jobs.empty() ? std::vector<WorkloadSpec>{w} : group_members(w)) {
      if (m.params.size == 0) whole = true;
      reach = std::max(reach, m.params.offset + m.params.size);
    }
  }
  WorkloadSpec region;
  region.params.rw = any_write ? "randwrite" : "randread";
  region.params.target = o.target;
  region.params.size = whole ? 0 : reach;
  TargetFlags flags{o.allow_destructive, o.force, o.sysfs_root};
  devices::AdmittedTarget admitted = admit_target(region, flags);
  for (const auto& n : admitted.notes) notes.push_back(n);
  for (auto& w : plan) {
    w.params.target = admitted.path;
    size_jobs_to(admitted.capacity, w);
    if (w.params.size == 0) {
      // The whole device from offset, as the method says, up to the suite's documented cap.
      w.params.size = admitted.capacity - w.params.offset;
      if (w.max_size && w.params.size > w.max_size) w.params.size = w.max_size;
    }
  }
  return admitted;
}

}  // namespace storqual::runner
