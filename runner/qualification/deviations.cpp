// SPDX-License-Identifier: Apache-2.0
// Deviations from the suite and sheet as written (see deviations.hpp).
#include "runner/qualification/deviations.hpp"

#include <linux/magic.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cstdio>

#include "model/quantity_format.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string identity_detail(const devices::DeviceIdentity& id, const std::string& field) {
  for (const auto& row : id.details)
    if (row.field == field) return row.value;
  return "";
}

std::string region_text(std::uint64_t size) {
  return size == 0 ? "the whole target" : format_bytes_iec(static_cast<double>(size));
}

// The suite entry of a planned workload (same id), or null.
const SuiteWorkload* entry_of(const Suite& suite, const WorkloadSpec& w) {
  return suite.find(w.id);
}

void add(std::vector<reporting::Deviation>& out, std::string kind, std::string text,
         std::vector<std::string> workloads) {
  out.push_back({std::move(kind), std::move(text), std::move(workloads)});
}

// Every workload of the plan named: the deviation is the whole run's (no list).
std::vector<std::string> or_whole_run(std::vector<std::string> ids,
                                      const std::vector<WorkloadSpec>& plan) {
  if (ids.size() == plan.size()) ids.clear();
  return ids;
}

// A method that runs in timed rounds or passes has a time of its own even with runtime 0.
bool timed(const SuiteWorkload& sw) {
  return sw.spec.params.runtime_s > 0 || sw.spec.params.ramp_time_s > 0 || sw.method->timed();
}

void command_line_deviations(const Suite& suite, const std::vector<WorkloadSpec>& plan,
                             const RunOverrides& o, std::vector<reporting::Deviation>& out) {
  if (o.runtime_scale != 1.0) {
    std::vector<std::string> ids;
    for (const auto& w : plan)
      if (const auto* sw = entry_of(suite, w); sw && timed(*sw)) ids.push_back(w.id);
    if (!ids.empty())
      add(out, "runtime",
          "runtimes scaled by " + number_text(o.runtime_scale) + " (--runtime-scale " +
              number_text(o.runtime_scale) + ")",
          or_whole_run(ids, plan));
  }
  if (o.size) {
    std::vector<std::string> ids, was;
    for (const auto& w : plan) {
      const auto* sw = entry_of(suite, w);
      if (!sw || sw->spec.params.size == *o.size) continue;
      ids.push_back(w.id);
      const std::string region = region_text(sw->spec.params.size);
      if (std::find(was.begin(), was.end(), region) == was.end()) was.push_back(region);
    }
    if (!ids.empty())
      add(out, "region",
          "region " + region_text(*o.size) + " (--size " + format_size_fio(*o.size) +
              ") instead of the suite's " + reporting::join_text(was, " or "),
          or_whole_run(ids, plan));
  }
  if (o.ioengine) {
    std::vector<std::string> ids;
    std::string was;
    for (const auto& w : plan)
      if (const auto* sw = entry_of(suite, w); sw && sw->spec.params.ioengine != *o.ioengine) {
        ids.push_back(w.id);
        if (was.empty()) was = sw->spec.params.ioengine;
      }
    if (!ids.empty())
      add(out, "engine",
          "engine " + *o.ioengine + " (--ioengine) instead of the suite's " + was +
              (*o.ioengine == "null" ? ": nothing reached the device" : ""),
          or_whole_run(ids, plan));
  }
  if (o.early_stop) {
    std::vector<std::string> ids;
    for (const auto& w : plan)
      if (const auto* sw = entry_of(suite, w); sw && sw->spec.early_stop != w.early_stop)
        ids.push_back(w.id);
    if (!ids.empty())
      add(out, "early-stop",
          *o.early_stop == "off"
              ? std::string("the suite's early stop turned off (--early-stop off)")
              : "early stop " + *o.early_stop + " (--early-stop), which the suite does not ask for",
          or_whole_run(ids, plan));
  }
  if (o.suite && !o.sheet_suite.empty() && suite.name != o.sheet_suite)
    add(out, "suite",
        "suite '" + suite.name + "' (--suite) instead of the sheet's '" + o.sheet_suite + "'", {});
  if (o.sheet_does_not_match) {
    add(out, "match",
        "the spec sheet's <match> does not fit this device (" + o.identity_summary +
            "); it was given with --spec: its claims are another device's",
        {});
    out.back().changes_subject = true;
  }
  if (o.faults_injected) add(out, "fault-injection", "faults injected (--inject-fault)", {});
}

}  // namespace

std::optional<std::string> memory_backing(const devices::DeviceIdentity& id,
                                          const devices::ResolvedTarget& resolved,
                                          const std::string& path) {
  using devices::Transport;
  if (resolved.kind != devices::TargetKind::BlockDevice) {
    struct statfs st {};
    if (::statfs(path.c_str(), &st) == 0) {
      if (st.f_type == TMPFS_MAGIC) return "a file on tmpfs: the target is memory";
      if (st.f_type == RAMFS_MAGIC) return "a file on ramfs: the target is memory";
    }
  }
  if (id.transport == Transport::Zram)
    return "zram (" + resolved.device + "): compressed memory, not a storage device";
  if (id.transport == Transport::Loop && identity_detail(id, "loop_direct_io") == "no")
    return "loop device " + resolved.device + " without direct I/O (loop_direct_io=no): " +
           (id.backing.known() ? "its backing file " + id.backing.value : "its backing file") +
           " is read and written through the page cache";
  if (id.transport == Transport::Other && id.disk.rfind("ram", 0) == 0)
    return "RAM disk " + id.disk + ": memory, not a storage device";
  return std::nullopt;
}

std::vector<reporting::Deviation> planned_deviations(const Suite& suite,
                                                     const std::vector<WorkloadSpec>& plan,
                                                     const RunOverrides& overrides,
                                                     const devices::DeviceIdentity& identity,
                                                     const devices::ResolvedTarget& resolved) {
  std::vector<reporting::Deviation> out;
  command_line_deviations(suite, plan, overrides, out);
  if (auto memory = memory_backing(identity, resolved, resolved.target)) {
    // Against a drive's sheet, memory's figures are not the drive's (is_drive_sheet).
    add(out, "memory-target",
        *memory + (overrides.drive_sheet ? ", judged against a drive's spec sheet" : ""), {});
    out.back().changes_subject = overrides.drive_sheet;
  } else {
    // Buffered I/O: whatever the device, the page cache answers first.
    std::vector<std::string> ids;
    for (const auto& w : plan)
      if (!w.params.direct && w.params.ioengine != "null") ids.push_back(w.id);
    if (!ids.empty())
      add(out, "memory-target",
          "buffered I/O (direct=0): the page cache, not only the device, answers",
          or_whole_run(ids, plan));
  }
  return out;
}

bool is_drive_sheet(const SpecSheet& sheet) {
  for (const MatchRule& rule : sheet.match)
    for (const auto& [field, pattern] : rule.patterns)
      if (field != "target" && field != "transport" && pattern != "*") return true;
  return false;
}

const std::vector<std::string_view>& subject_deviation_kinds() noexcept {
  static const std::vector<std::string_view> kinds{"match", "memory-target", "unwritten-reads",
                                                   "fio-target", "null-engine"};
  return kinds;
}

void check_accepted_kinds(const std::vector<std::string>& kinds) {
  const auto& known = subject_deviation_kinds();
  for (const std::string& k : kinds)
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (std::string_view n : known) list += (list.empty() ? "" : ", ") + std::string(n);
      throw UsageError("--accept-deviation " + k +
                       ": not a deviation that changes what a verdict is about (expected one of " +
                       list + "; the others weaken a verdict and never stop it)");
    }
}

void accept_deviations(const std::vector<std::string>& kinds,
                       std::vector<reporting::Deviation>& deviations, std::FILE* console) {
  for (const std::string& k : kinds) {
    bool found = false;
    for (auto& d : deviations)
      if (d.kind == k && d.changes_subject) d.accepted = found = true;
    if (!found && console)
      std::fprintf(console, "  note: --accept-deviation %s: this run has no such deviation\n",
                   k.c_str());
  }
}

void apply_subject_deviations(const std::vector<reporting::Deviation>& deviations,
                              std::vector<reporting::ClaimVerdict>& verdicts) {
  using reporting::VerdictStatus;
  for (const auto& d : deviations) {
    if (!d.changes_subject || d.accepted) continue;
    for (auto& v : verdicts) {
      if (v.kind != reporting::VerdictKind::Claim ||
          (v.status != VerdictStatus::Pass && v.status != VerdictStatus::Fail))
        continue;
      if (d.kind == "unwritten-reads" && v.metric.rfind("write.", 0) == 0) continue;
      if (!d.workloads.empty() &&
          std::none_of(v.workloads.begin(), v.workloads.end(), [&](const std::string& id) {
            return std::find(d.workloads.begin(), d.workloads.end(), id) != d.workloads.end();
          }))
        continue;
      const char* was = v.status == VerdictStatus::Pass ? "would pass" : "would fail";
      v.status = VerdictStatus::Inconclusive;
      v.message = "inconclusive: " + d.text + " (--accept-deviation " + d.kind +
                  " judges it anyway); " + was + ": " + v.message;
    }
  }
}

std::vector<reporting::Deviation> measured_deviations(
    const std::vector<reporting::WorkloadResult>& results) {
  // One deviation per kind, naming every workload it touched; the reasons of the first of them
  // (each workload's own are in its section of the reports).
  std::vector<std::string> busy, limited;
  std::string busy_why, limited_why;
  for (const auto& r : results) {
    if (r.host_busy && r.host_busy->busy) {
      if (busy.empty()) busy_why = reporting::join_text(r.host_busy->reasons, ", ");
      busy.push_back(r.id);
    }
    if (r.host_limit && r.host_limit->limited) {
      if (limited.empty()) limited_why = reporting::join_text(r.host_limit->reasons, ", ");
      limited.push_back(r.id);
    }
  }
  auto during = [&](const std::vector<std::string>& ids) {
    return ids.size() == results.size() && ids.size() > 1 ? std::string("every workload")
           : ids.size() == 1                              ? ids.front()
                             : std::to_string(ids.size()) + " workloads";
  };
  std::vector<reporting::Deviation> out;
  if (!busy.empty())
    add(out, "busy-host",
        "host busy during " + during(busy) + " (" + busy.front() + ": " + busy_why +
            "): the figures are the host's as much as the device's",
        busy.size() == results.size() ? std::vector<std::string>{} : busy);
  if (!limited.empty())
    add(out, "host-limited",
        "host-limited in " + during(limited) + " (" + limited.front() + ": " + limited_why +
            "): the device may be faster than measured",
        limited.size() == results.size() ? std::vector<std::string>{} : limited);
  return out;
}

}  // namespace storqual::runner
