// SPDX-License-Identifier: Apache-2.0
// JUnit XML through pugixml.
#include "reporting/junit_report.hpp"

#include <pugixml.hpp>

#include <map>
#include <set>
#include <sstream>

#include "reporting/atomic_file.hpp"
#include "reporting/quantity_format.hpp"
#include "reporting/text_sanitize.hpp"
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {
namespace {

std::string identity_value(const RunResult& run, const std::string& field) {
  for (const auto& row : run.device.identity)
    if (row.field == field) return row.value;
  return {};
}

void set_attr(pugi::xml_node node, const char* name, const std::string& value) {
  node.append_attribute(name).set_value(sanitize_text(value).c_str());
}

void add_property(pugi::xml_node properties, const std::string& name, const std::string& value) {
  auto p = properties.append_child("property");
  set_attr(p, "name", name);
  set_attr(p, "value", value);
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
};

std::vector<std::string> split_ids(const std::string& ids) {
  std::vector<std::string> out;
  std::istringstream in(ids);
  std::string id;
  while (in >> id) out.push_back(id);
  return out;
}

void add_verdict_case(pugi::xml_node suite, const std::string& classname, const ClaimVerdict& v,
                      Counts& counts) {
  auto tc = suite.append_child("testcase");
  set_attr(tc, "name", verdict_name(v));
  set_attr(tc, "classname", classname);
  set_attr(tc, "time", format_seconds_fixed(v.time_s));
  ++counts.tests;
  counts.time += v.time_s;
  auto props = tc.append_child("properties");
  add_property(props, "status", std::string(to_string(v.status)));
  if (v.measured) add_property(props, "measured", number_text(*v.measured));
  if (!v.figure.empty()) add_property(props, "figure", v.figure);  // what `measured` is
  if (v.claimed) add_property(props, "claimed", number_text(*v.claimed));
  add_property(props, "unit", v.unit);
  if (v.claimed) add_property(props, "tolerance", number_text(v.tolerance_pct) + "%");
  if (v.diff_pct) add_property(props, "diff_pct", number_text(*v.diff_pct));
  std::string message = v.message;
  switch (v.status) {
    case VerdictStatus::Fail: {
      ++counts.failures;
      auto f = tc.append_child("failure");
      set_attr(f, "message", message);
      set_attr(f, "type",
               v.kind == "baseline" ? "baseline-regression"
               : v.kind == "lot"    ? "lot-outlier"
                                    : "claim-not-met");
      f.text().set(sanitize_text(message).c_str());
      break;
    }
    case VerdictStatus::Error: {
      ++counts.errors;
      auto e = tc.append_child("error");
      set_attr(e, "message", message);
      set_attr(e, "type", "workload-error");
      e.text().set(sanitize_text(message).c_str());
      break;
    }
    case VerdictStatus::Skipped: {
      ++counts.skipped;
      set_attr(tc.append_child("skipped"), "message", message);
      break;
    }
    case VerdictStatus::Pass:
    case VerdictStatus::MeasuredOnly:
      break;
  }
  std::string out = std::string(to_string(v.status)) + ": " + message;
  if (v.measured)
    out += "\nmeasured " + format_metric_value(*v.measured, v.unit) +
           (v.figure.empty() ? "" : " (" + v.figure + ")");
  if (v.claimed) out += "\nclaimed " + format_metric_value(*v.claimed, v.unit);
  tc.append_child("system-out").text().set(sanitize_text(out).c_str());
}

void add_measured_case(pugi::xml_node suite, const std::string& classname, const WorkloadResult& w,
                       Counts& counts) {
  auto tc = suite.append_child("testcase");
  set_attr(tc, "name", w.id + " measured");
  set_attr(tc, "classname", classname);
  set_attr(tc, "time", format_seconds_fixed(w.elapsed_s));
  ++counts.tests;
  counts.time += w.elapsed_s;
  auto props = tc.append_child("properties");
  add_property(props, "status", w.errors.empty() ? "measured-only" : "error");
  std::string summary;
  for (const auto* side : {&w.read, &w.write}) {
    if (!*side) continue;
    const std::string dir = side == &w.read ? "read" : "write";
    const auto& d = **side;
    add_property(props, dir + ".iops", number_text(d.iops));
    add_property(props, dir + ".bw", number_text(d.bw_bytes));
    add_property(props, dir + ".lat.mean", number_text(d.lat.mean_ns));
    summary += dir + ": " + format_iops(d.iops) + ", " + format_rate_mb(d.bw_bytes) +
               ", mean latency " + format_latency(d.lat.mean_ns) + "\n";
  }
  if (!w.errors.empty()) {
    ++counts.errors;
    std::string message;
    for (const auto& e : w.errors) message += (message.empty() ? "" : "; ") + e;
    auto e = tc.append_child("error");
    set_attr(e, "message", message);
    set_attr(e, "type", w.interrupted ? "interrupted" : "workload-error");
    e.text().set(sanitize_text(message).c_str());
  }
  if (!w.fio_command.empty()) summary += "fio: " + w.fio_command + "\n";
  tc.append_child("system-out").text().set(sanitize_text(summary).c_str());
}

}  // namespace

std::string device_title(const RunResult& run) {
  std::string model = identity_value(run, "model");
  const std::string serial = identity_value(run, "serial");
  if (model.empty()) model = run.device.name.empty() ? run.device.path : run.device.name;
  if (!serial.empty()) model += " " + serial;
  return model.empty() ? "unknown device" : model;
}

std::string render_junit(const std::vector<RunResult>& runs) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto root = doc.append_child("testsuites");
  set_attr(root, "name", "storqual");
  Counts total;
  int id = 0;
  // A merge may hold the same model and serial from several hosts: CI reporters group by suite
  // name, so a name seen on more than one host gets " on <host>" appended.
  std::map<std::string, std::set<std::string>> hosts_of_title;
  for (const auto& run : runs) hosts_of_title[device_title(run)].insert(run.environment.host);
  for (const auto& run : runs) {
    auto suite = root.append_child("testsuite");
    const std::string title = device_title(run);
    set_attr(suite, "name",
             hosts_of_title[title].size() > 1 && !run.environment.host.empty()
                 ? title + " on " + run.environment.host
                 : title);
    set_attr(suite, "id", std::to_string(id++));
    set_attr(suite, "package", "storqual");
    set_attr(suite, "hostname", run.environment.host.empty() ? "localhost" : run.environment.host);
    // JUnit's schema wants a timestamp without zone; the value is UTC (documented).
    std::string timestamp = run.environment.start_utc;
    if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
    set_attr(suite, "timestamp", timestamp);
    auto props = suite.append_child("properties");
    for (const auto& row : run.device.identity)
      add_property(props, "device." + row.field,
                   row.source.empty() ? row.value : row.value + " (" + row.source + ")");
    add_property(props, "device.path", run.device.path);
    add_property(props, "storqual.version", run.environment.storqual_version);
    add_property(props, "spec.name", run.spec.name);
    add_property(props, "spec.path", run.spec.path);
    add_property(props, "spec.sha256", run.spec.sha256);
    add_property(props, "spec.source", run.spec.source);
    add_property(props, "suite", run.spec.suite);
    add_property(props, "command_line", run.environment.command_line);
    add_property(props, "kernel", run.environment.kernel);

    const std::string classname =
        "storqual." + (run.spec.name.empty() ? std::string("measured-only") : run.spec.name);
    Counts counts;
    std::set<std::string> judged;
    for (const auto& v : run.verdicts) {
      add_verdict_case(suite, classname, v, counts);
      for (const auto& wid : split_ids(v.workload)) judged.insert(wid);
    }
    for (const auto& w : run.workloads)
      if (!judged.count(w.id)) add_measured_case(suite, classname, w, counts);

    // Counts go before the children in the output; pugixml appends attributes in order, so
    // insert them ahead of "id".
    auto first = suite.attribute("name");
    suite.insert_attribute_after("tests", first) = counts.tests;
    suite.insert_attribute_after("failures", suite.attribute("tests")) = counts.failures;
    suite.insert_attribute_after("errors", suite.attribute("failures")) = counts.errors;
    suite.insert_attribute_after("skipped", suite.attribute("errors")) = counts.skipped;
    suite.insert_attribute_after("time", suite.attribute("skipped")) =
        format_seconds_fixed(counts.time).c_str();
    total.tests += counts.tests;
    total.failures += counts.failures;
    total.errors += counts.errors;
    total.skipped += counts.skipped;
    total.time += counts.time;
  }
  root.append_attribute("tests") = total.tests;
  root.append_attribute("failures") = total.failures;
  root.append_attribute("errors") = total.errors;
  root.append_attribute("skipped") = total.skipped;
  root.append_attribute("time") = format_seconds_fixed(total.time).c_str();
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

void write_junit(const std::string& path, const std::vector<RunResult>& runs) {
  write_file_atomically(path, render_junit(runs));
}

}  // namespace storqual::reporting
