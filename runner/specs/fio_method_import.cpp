// SPDX-License-Identifier: Apache-2.0
// A fio job's method options and null device files (fio_method_import.hpp).
#include "runner/specs/fio_method_import.hpp"

#include <algorithm>

#include "runner/base/xml_file.hpp"

namespace storqual::runner {

bool collect_method_option(FioJobMethods& m, const FioOption& o, const std::string& name) {
  if (name == "filename") {
    if (o.value == "/dev/null" || o.value == "/dev/zero") {
      m.device_file = o.value;
      m.device_where = o.location;
    } else {
      m.device_file.clear();
    }
    return false;
  }
  for (const MethodEntry& e : method_entries()) {
    if (!e.fio_options) continue;
    const auto names = e.fio_options();
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    m.options.push_back({name, o.has_value ? o.value : std::string("1"), o.location});
    return true;
  }
  return false;
}

void take_job_method(const FioJobMethods& m, std::size_t together, const std::string& job,
                     SuiteWorkload& w, std::vector<std::string>& notes) {
  if (!m.device_file.empty()) {
    notes.push_back(m.device_where + ": job '" + job + "': filename=" + m.device_file +
                    ": fio's I/Os go to the kernel's " +
                    (m.device_file == "/dev/null" ? "null device (writes kept nowhere)"
                                                  : "zero device (reads of zeros)") +
                    " through system calls; storqual runs the job on its null engine "
                    "(ioengine=null: no target, no system call), not on the run's --target");
    w.spec.params.ioengine = "null";
    w.spec.params.direct = false;
  }
  const WorkloadSpec& s = w.spec;
  if (s.steadystate.active() && s.params.numjobs > 1)
    notes.push_back(w.location + ": job '" + job + "': ss over its " +
                    std::to_string(s.params.numjobs) +
                    " jobs added up, as fio judges them with group_reporting (without it fio "
                    "judges each job apart and ends each one at its own steady state); storqual's "
                    "rounds are not used: fio's criterion ends the one run (docs/fio-files.md)");
  if (m.options.empty()) return;
  for (const MethodEntry& e : method_entries()) {
    if (!e.fio_options || !e.from_fio) continue;
    const auto names = e.fio_options();
    std::vector<FioMethodOption> mine;
    for (const FioMethodOption& o : m.options)
      if (std::find(names.begin(), names.end(), o.name) != names.end()) mine.push_back(o);
    if (mine.empty()) continue;
    if (together > 1)
      throw FileError(mine.front().location + ": option '" + mine.front().name +
                      "' on a job that fio runs at the same time as other jobs: storqual runs a <" +
                      std::string(e.element) + "> as a workload of its own");
    if (auto method = e.from_fio(mine, w.spec, notes)) w.method = std::move(method);
  }
}

}  // namespace storqual::runner
