// SPDX-License-Identifier: Apache-2.0
// The method interface's defaults, the plain run and the helpers of a method's `load` (see
// method.hpp).
#include "runner/methods/method.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "runner/base/units.hpp"

namespace storqual::runner {

std::string Method::fio_equivalent(const WorkloadSpec& spec) const {
  std::string cmd = fio_command(spec);
  if (!spec.early_stop.empty())
    cmd += "  # early stop " + spec.early_stop +
           ": storqual may end it before the runtime once its figure is known "
           "(docs/measurement.md); fio runs the full runtime";
  return cmd;
}

std::string Method::fio_command_as_run(const WorkloadSpec& as_run,
                                       const reporting::WorkloadResult& /*result*/) const {
  return fio_command(as_run);
}

std::string plain_summary_line(const WorkloadSpec& spec, const std::string& depth) {
  const auto& p = spec.params;
  char line[256];
  std::snprintf(line, sizeof line, "%-9s %-5s %s x%u, %s", p.rw.c_str(),
                format_size_fio(p.bs).c_str(), depth.c_str(), p.numjobs,
                p.runtime_s > 0 ? format_duration_fio(p.runtime_s).c_str() : "size once");
  return line;
}

std::string Method::summary_line(const WorkloadSpec& spec) const {
  if (spec.jobs.empty())
    return plain_summary_line(spec, "QD" + std::to_string(spec.params.iodepth));
  // A group: "group of 2 jobs, 30s: reader randread 4k QD32 x1; writer write 128k QD4 x2".
  const auto& p = spec.params;
  std::string line = "group of " + std::to_string(spec.jobs.size()) + " jobs, " +
                     (p.runtime_s > 0 ? format_duration_fio(p.runtime_s) : "size once") + ":";
  const char* sep = " ";
  for (const WorkloadSpec& m : group_members(spec)) {
    const auto& q = m.params;
    line += sep + m.id + " " + q.rw + " " + format_size_fio(q.bs) + " QD" +
            std::to_string(q.iodepth) + " x" + std::to_string(q.numjobs);
    sep = "; ";
  }
  return line;
}

namespace {

class PlainRun final : public Method {
 public:
  [[nodiscard]] std::string_view element() const noexcept override { return "workload"; }
  [[nodiscard]] bool timed() const noexcept override { return false; }
  [[nodiscard]] reporting::WorkloadResult run(const WorkloadSpec& w,
                                              const MethodContext& context) const override {
    return context.measure(w);
  }
};

}  // namespace

std::shared_ptr<const Method> plain_method() {
  static const auto plain = std::make_shared<const PlainRun>();
  return plain;
}

const MethodEntry* find_method_entry(std::string_view element) noexcept {
  for (const MethodEntry& e : method_entries())
    if (e.element == element) return &e;
  return nullptr;
}

std::string workload_option_names(bool with_iodepth) {
  std::string out;
  for (const WorkloadOption& o : workload_options()) {
    if (!with_iodepth && o.name == "iodepth") continue;
    if (!out.empty()) out += ", ";
    out += o.name;
  }
  return out;
}

void apply_workload_attributes(const XmlFile& file, pugi::xml_node node, WorkloadSpec& spec,
                               std::initializer_list<std::string_view> own, bool allow_iodepth) {
  for (pugi::xml_attribute a : node.attributes()) {
    std::string_view name = a.name();
    if (std::find(own.begin(), own.end(), name) != own.end()) continue;
    if (!allow_iodepth && name == "iodepth")
      throw file.error(a, "a latency search chooses the iodepth itself (expected max_iodepth)");
    if (!find_workload_option(name)) {
      std::string own_list;
      for (auto o : own) own_list += std::string(o) + ", ";
      throw file.error(a, "unknown attribute '" + std::string(name) + "' on <" + node.name() +
                              "> (expected " + own_list + (own_list.empty() ? "" : "or ") +
                              "a workload option: " + workload_option_names(allow_iodepth) + ")");
    }
    try {
      set_workload_option(spec, name, a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
}

unsigned parse_count_attribute(const XmlFile& file, pugi::xml_attribute a, unsigned lo,
                               unsigned hi) {
  std::string_view v = a.value();
  unsigned n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < lo || n > hi)
    throw file.error_value(a, std::string(a.name()) + ": expected a whole number " +
                                  std::to_string(lo) + ".." + std::to_string(hi) + ", got '" +
                                  std::string(v) + "'");
  return n;
}

}  // namespace storqual::runner
