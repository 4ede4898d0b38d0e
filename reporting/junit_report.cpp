// SPDX-License-Identifier: Apache-2.0
// JUnit XML through pugixml (naming and the two forms: junit_report.hpp).
#include "reporting/junit_report.hpp"

#include <pugixml.hpp>

#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "model/metric.hpp"
#include "model/quantity_format.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/console_report.hpp"
#include "reporting/fio_summary.hpp"
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

void set_text(pugi::xml_node node, const std::string& text) {
  node.text().set(sanitize_text(text).c_str());
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

// Readers split a classname at its last '.' (Jenkins: package, class; mikepenz: a path).
std::string without_dots(std::string s) {
  for (auto& c : s)
    if (c == '.') c = '_';
  return s;
}

// start_utc carries its zone ("...Z"); a value without one is UTC by the result format.
std::string zoned(const std::string& t) {
  if (t.empty()) return t;
  const auto time_part = t.find('T');
  const bool has_zone = t.back() == 'Z' || (time_part != std::string::npos &&
                                            t.find_first_of("+-", time_part) != std::string::npos);
  return has_zone ? t : t + "Z";
}

std::optional<std::time_t> parse_utc(const std::string& t) {
  std::tm tm{};
  const char* end = strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) return std::nullopt;
  return timegm(&tm);
}

// The run's wall time: measured by the runner, else end - start (whole seconds, older files).
double wall_time_s(const RunResult& run) {
  if (run.environment.wall_time_s > 0) return run.environment.wall_time_s;
  const auto start = parse_utc(run.environment.start_utc);
  const auto end = parse_utc(run.environment.end_utc);
  if (start && end && *end >= *start) return static_cast<double>(*end - *start);
  return 0;
}

// How a testcase words a verdict of each kind: what it compares the measurement with, as a reader
// should read it, its property name in rich JUnit, the body's line, the <failure> type.
struct KindWords {
  const char* reference;  // "claimed", "lot median", "baseline"
  const char* tolerance;  // "tolerance", "lot tolerance", "allowed regression"
  const char* property;   // of the reference value: "claimed", "lot_median", "baseline"
  const char* check;      // "claim: ", "lot check: ", "baseline check: "
  const char* failure;    // "claim-not-met", "lot-outlier", ...
};

KindWords words_of(VerdictKind k) {
  switch (k) {
    case VerdictKind::Lot:
      return {"lot median", "lot tolerance", "lot_median", "lot check: ", "lot-outlier"};
    case VerdictKind::Baseline:
      return {"baseline", "allowed regression", "baseline",
              "baseline check: ", "baseline-regression"};
    case VerdictKind::Health:
      return {"claimed", "tolerance", "claimed", "claim: ", "device-health"};
    case VerdictKind::Claim:
      break;
  }
  return {"claimed", "tolerance", "claimed", "claim: ", "claim-not-met"};
}

std::string percent_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", pct);
  return buf;
}

// The claim part of a testcase name; a verdict without a claim says so (one per SNIA PTS figure
// of a workload keeps the figure's name: "wsat-4k wsat.iops measured only").
std::string claim_name(const ClaimVerdict& v) {
  if (v.status == VerdictStatus::MeasuredOnly && v.kind == VerdictKind::Claim)
    return find_figure(v.metric) ? verdict_name(v) + " measured only"
                                 : workload_text(v) + " measured only";
  return verdict_name(v);
}

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
};

// One run as the writer names it.
struct RunNames {
  std::string label;      // device label
  std::string suite;      // testsuite name
  std::string classname;  // every testcase's classname
};

class SuiteWriter {
 public:
  SuiteWriter(pugi::xml_node suite, const RunResult& run, const RunNames& names,
              const JunitOptions& options)
      : suite_(suite), run_(run), names_(names), options_(options) {}

  void add_verdict(const ClaimVerdict& v) {
    const std::string claim = claim_name(v);
    const KindWords words = words_of(v.kind);
    auto tc = start_case(claim, v.time_s);
    std::string file = v.file;
    if (file.empty() && v.kind == VerdictKind::Claim && v.status != VerdictStatus::MeasuredOnly)
      file = run_.spec.path;
    if (options_.rich) {
      if (!file.empty()) set_attr(tc, "file", file);
      if (v.line > 0) set_attr(tc, "line", std::to_string(v.line));
      auto props = tc.append_child("properties");
      add_property(props, "status", std::string(to_string(v.status)));
      if (v.measured) add_property(props, "measured", number_text(*v.measured));
      if (!v.figure.empty()) add_property(props, "figure", v.figure);  // what `measured` is
      if (v.claimed) add_property(props, words.property, number_text(*v.claimed));
      add_property(props, "unit", v.unit);
      if (v.claimed) add_property(props, "tolerance_pct", number_text(v.tolerance_pct));
      if (v.diff_pct) add_property(props, "diff_pct", number_text(*v.diff_pct));
      std::set<const Deviation*> seen;
      for (const auto& id : v.workloads)
        for (const Deviation* d : deviations_of(run_, id))
          if (seen.insert(d).second) add_property(props, "deviation", d->kind + ": " + d->text);
    }
    // The verdict's message says why it is inconclusive (runner/judge/verdict.cpp); the
    // element's type says that it is.
    std::string message = names_.label + " " + claim + ": " + v.message;
    if (v.claimed && v.status != VerdictStatus::MeasuredOnly && !v.measured) {
      // An error or skip before measuring: the claim's figures still belong in the message.
      message += " (" + std::string(words.reference) + " " +
                 format_verdict_value(*v.claimed, v.unit) + ", " + words.tolerance + " " +
                 percent_text(v.tolerance_pct) + ")";
    }
    // GitLab shows the element text and not the message attribute: the body opens with it.
    std::string body = message + "\n";
    body += "device: " + device_line() + "\n";
    body += words.check + claim + "\n";
    body += "status: " + std::string(to_string(v.status)) + "\n";
    body += "measured: " + (v.measured ? format_verdict_value(*v.measured, v.unit) : "-") + "\n";
    if (v.measured && !v.figure.empty()) body += "figure: " + v.figure + "\n";  // what it is
    if (v.claimed) {
      body += words.reference + (": " + format_verdict_value(*v.claimed, v.unit)) + "\n";
      body += "difference: " + (v.diff_pct ? format_percent_signed(*v.diff_pct) : "-") + "\n";
      body += words.tolerance + (": " + percent_text(v.tolerance_pct)) + "\n";
    }
    if (!file.empty())
      body += "spec sheet: " + file + (v.line > 0 ? ":" + std::to_string(v.line) : "") +
              (run_.spec.name.empty() ? "" : " (" + run_.spec.name + ")") + "\n";
    switch (v.status) {
      case VerdictStatus::Fail: {
        ++counts_.failures;
        auto f = tc.append_child("failure");
        set_attr(f, "message", message);
        set_attr(f, "type", words.failure);
        set_text(f, body);
        break;
      }
      case VerdictStatus::Error: {
        ++counts_.errors;
        auto e = tc.append_child("error");
        set_attr(e, "message", message);
        set_attr(e, "type", std::string(to_string(v.error_cause)));
        set_text(e, body);
        break;
      }
      case VerdictStatus::Inconclusive: {
        // Neither pass nor fail: the figure's interval or sample count cannot decide the claim.
        ++counts_.errors;
        auto e = tc.append_child("error");
        set_attr(e, "message", message);
        set_attr(e, "type", "inconclusive");
        set_text(e, body);
        break;
      }
      case VerdictStatus::Skipped:
        add_skipped(tc, message);
        break;
      case VerdictStatus::MeasuredOnly:
        // Nobody claimed this figure: not judged, so never shown as a passed testcase.
        add_skipped(tc, message);  // "<label> <workload> measured only: ...; no claim"
        break;
      case VerdictStatus::Pass:
        break;
    }
    std::string out = body;
    for (const auto& id : v.workloads)
      for (const Deviation* d : deviations_of(run_, id))
        if (out.find("deviation: " + d->text + "\n") == std::string::npos)
          out += "deviation: " + d->text + "\n";
    for (const auto& id : v.workloads)
      if (const WorkloadResult* w = find_workload(id)) out += workload_lines(*w);
    set_text(tc.append_child("system-out"), out);
  }

  // A workload that no verdict names: still a testcase, so every workload appears in CI.
  void add_unjudged_workload(const WorkloadResult& w) {
    const std::string claim = w.id + " measured only";
    auto tc = start_case(claim, w.elapsed_s);
    if (options_.rich) {
      auto props = tc.append_child("properties");
      add_property(props, "status", w.errors.empty() ? "measured-only" : "error");
      for (const auto* side : {&w.read, &w.write}) {
        if (!*side) continue;
        const std::string dir = side == &w.read ? "read" : "write";
        add_property(props, dir + ".iops", number_text((*side)->iops));
        add_property(props, dir + ".bw", number_text((*side)->bw_bytes));
        add_property(props, dir + ".lat.mean", number_text((*side)->lat.mean_ns));
      }
    }
    std::string message = names_.label + " " + claim + ": ";
    if (!w.errors.empty()) {
      std::string errors;
      for (const auto& e : w.errors) errors += (errors.empty() ? "" : "; ") + e;
      message += errors;
      ++counts_.errors;
      auto e = tc.append_child("error");
      set_attr(e, "message", message);
      set_attr(e, "type",
               std::string(
                   to_string(w.interrupted ? ErrorCause::Interrupted : ErrorCause::WorkloadError)));
      set_text(e, message + "\ndevice: " + device_line() + "\n" + workload_lines(w));
    } else {
      message += "no claim";
      add_skipped(tc, message);
    }
    std::string deviations;
    for (const Deviation* d : deviations_of(run_, w.id))
      deviations += "deviation: " + d->text + "\n";
    set_text(tc.append_child("system-out"),
             message + "\ndevice: " + device_line() + "\n" + deviations + workload_lines(w));
  }

  void finish() {
    // Counts go before the children in the output; pugixml appends attributes in order, so
    // insert them after "name".
    auto name = suite_.attribute("name");
    suite_.insert_attribute_after("tests", name) = counts_.tests;
    suite_.insert_attribute_after("failures", suite_.attribute("tests")) = counts_.failures;
    suite_.insert_attribute_after("errors", suite_.attribute("failures")) = counts_.errors;
    suite_.insert_attribute_after("skipped", suite_.attribute("errors")) = counts_.skipped;
    const double wall = wall_time_s(run_);
    counts_.time = wall > 0 ? wall : counts_.time;
    suite_.insert_attribute_after("time", suite_.attribute("skipped")) =
        format_seconds_fixed(counts_.time).c_str();
  }

  [[nodiscard]] const Counts& counts() const { return counts_; }

 private:
  pugi::xml_node start_case(const std::string& claim, double time_s) {
    auto tc = suite_.append_child("testcase");
    std::string name = names_.label + " " + claim;
    // Unique within the suite even if two verdicts share a name.
    for (int n = 2; !names_used_.insert(name).second; ++n)
      name = names_.label + " " + claim + " #" + std::to_string(n);
    set_attr(tc, "name", name);
    set_attr(tc, "classname", names_.classname);
    set_attr(tc, "time", format_seconds_fixed(time_s));
    ++counts_.tests;
    counts_.time += time_s;
    return tc;
  }

  void add_skipped(pugi::xml_node tc, const std::string& message) {
    ++counts_.skipped;
    auto s = tc.append_child("skipped");
    // jenkins-junit.xsd makes <skipped> text only; the attribute is the rich form's.
    if (options_.rich) set_attr(s, "message", message);
    set_text(s, message);
  }

  std::string device_line() const {
    std::string line = device_title(run_);
    if (line.find(names_.label) == std::string::npos) line += " (" + names_.label + ")";
    if (!run_.device.path.empty() && run_.device.path != names_.label)
      line += ", target " + run_.device.path;
    if (!run_.environment.host.empty()) line += ", host " + run_.environment.host;
    return line;
  }

  const WorkloadResult* find_workload(const std::string& id) const {
    for (const auto& w : run_.workloads)
      if (w.id == id) return &w;
    return nullptr;
  }

  static std::string workload_lines(const WorkloadResult& w) {
    std::string out;
    for (const auto* side : {&w.read, &w.write}) {
      if (!*side) continue;
      const auto& d = **side;
      out += "workload " + w.id + " " + (side == &w.read ? "read" : "write") + ": " +
             format_verdict_value(d.iops, "IOPS") + ", " + format_verdict_value(d.bw_bytes, "B/s") +
             ", mean latency " + format_verdict_value(d.lat.mean_ns, "ns") + "\n";
    }
    if (!w.fio_command.empty()) out += "fio: " + w.fio_command + "\n";
    if (const std::string c = fio_command_caveat(w); !c.empty() && !w.fio_command.empty())
      out += "note: " + c + "\n";
    return out;
  }

  pugi::xml_node suite_;
  const RunResult& run_;
  const RunNames& names_;
  const JunitOptions& options_;
  Counts counts_;
  std::set<std::string> names_used_;
};

// Later duplicates get " #2", " #3", ...
void number_repeats(std::vector<std::string>& names) {
  std::set<std::string> used;
  std::map<std::string, int> seen;
  for (auto& n : names) {
    if (used.insert(n).second) {
      seen[n] = 1;
      continue;
    }
    const std::string base = n;
    int k = seen[base];
    do n = base + " #" + std::to_string(++k);
    while (!used.insert(n).second);
    seen[base] = k;
  }
}

std::vector<RunNames> name_runs(const std::vector<RunResult>& runs) {
  std::vector<RunNames> out(runs.size());
  // Ids a CI server follows from build to build (Jenkins, GitLab keep a testcase's history by
  // classname and name): the sheet, the unit and the suite, never the time or a run id, which
  // go in the testsuite's timestamp and properties. Where one file holds several runs of one
  // unit (a `report` merge), the later ones carry their ordinal: "run 2", "run 3".
  std::map<std::string, int> runs_of;
  std::vector<std::string> suites(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& run = runs[i];
    out[i].label = device_label(run);
    const std::string sheet = run.spec.name.empty() ? "measured-only" : run.spec.name;
    const int n = ++runs_of[sheet + "\n" + out[i].label + "\n" + run.spec.suite];
    const std::string tag = n == 1 ? "" : " run " + std::to_string(n);
    std::string title = device_title(run);
    if (identity_value(run, "serial").empty() && title.find(out[i].label) == std::string::npos)
      title += " " + out[i].label;
    suites[i] = title + tag;
    out[i].classname =
        "storqual." + without_dots(sheet) + "." +
        without_dots(out[i].label +
                     (run.spec.suite.empty() || run.spec.suite == sheet ? std::string()
                                                                        : " " + run.spec.suite) +
                     tag);
  }
  number_repeats(suites);
  for (std::size_t i = 0; i < runs.size(); ++i) out[i].suite = suites[i];
  return out;
}

void add_suite_properties(pugi::xml_node suite, const RunResult& run, const RunNames& names) {
  auto props = suite.append_child("properties");
  add_property(props, "device.label", names.label);
  for (const auto& row : run.device.identity) {
    add_property(props, "device." + row.field, row.value);
    if (!row.source.empty()) add_property(props, "device." + row.field + ".source", row.source);
  }
  add_property(props, "device.path", run.device.path);
  add_property(props, "host", run.environment.host);
  add_property(props, "run.start", zoned(run.environment.start_utc));
  add_property(props, "run.end", zoned(run.environment.end_utc));
  add_property(props, "run.wall_time_s", format_seconds_fixed(wall_time_s(run)));
  add_property(props, "storqual.version", run.environment.storqual_version);
  add_property(props, "spec.name", run.spec.name);
  add_property(props, "spec.path", run.spec.path);
  add_property(props, "spec.sha256", run.spec.sha256);
  add_property(props, "spec.source", run.spec.source);
  add_property(props, "suite", run.spec.suite);
  add_property(props, "suite.path", run.spec.suite_path);
  add_property(props, "suite.sha256", run.spec.suite_sha256);
  add_property(props, "storqual.outcome", count_verdicts(run).headline());
  add_property(props, "storqual.measure_only", run.measure_only ? "true" : "false");
  if (run.measured_by) {  // `storqual judge`: another tool measured (docs/fio-files.md)
    add_property(props, "storqual.measured_by", run.measured_by->tool);
    add_property(props, "storqual.measured_by.file", run.measured_by->file);
    add_property(props, "storqual.measured_by.sha256", run.measured_by->sha256);
  }
  add_property(props, "storqual.deviations", std::to_string(run.deviations.size()));
  for (std::size_t i = 0; i < run.deviations.size(); ++i) {
    const Deviation& d = run.deviations[i];
    const std::string affected = join_text(d.workloads, ", ");
    add_property(props, "storqual.deviation." + std::to_string(i + 1),
                 d.kind + ": " + d.text + (affected.empty() ? "" : " [" + affected + "]") +
                     (d.accepted          ? " (accepted: --accept-deviation " + d.kind + ")"
                      : d.changes_subject ? " (changes the subject: its claims are inconclusive)"
                                          : ""));
  }
  add_property(props, "command_line", run.environment.command_line);
  add_property(props, "kernel", run.environment.kernel);
}

}  // namespace

std::string device_title(const RunResult& run) {
  std::string model = identity_value(run, "model");
  const std::string serial = identity_value(run, "serial");
  if (model.empty()) model = run.device.name.empty() ? run.device.path : run.device.name;
  if (!serial.empty()) model += " " + serial;
  return model.empty() ? "unknown device" : model;
}

std::string device_label(const RunResult& run) {
  std::string serial = identity_value(run, "serial");
  if (!serial.empty()) return serial;
  if (!run.device.path.empty()) return run.device.path;
  return run.device.name.empty() ? "unknown-device" : run.device.name;
}

std::string render_junit(const std::vector<RunResult>& runs, const JunitOptions& options) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto root = doc.append_child("testsuites");
  set_attr(root, "name", "storqual");
  Counts total;
  const std::vector<RunNames> names = name_runs(runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& run = runs[i];
    auto suite = root.append_child("testsuite");
    set_attr(suite, "name", names[i].suite);
    set_attr(suite, "timestamp", zoned(run.environment.start_utc));
    set_attr(suite, "hostname", run.environment.host.empty() ? "localhost" : run.environment.host);
    set_attr(suite, "id", std::to_string(i));
    set_attr(suite, "package", "storqual");
    add_suite_properties(suite, run, names[i]);

    SuiteWriter writer(suite, run, names[i], options);
    std::set<std::string> judged;
    for (const auto& v : run.verdicts) {
      writer.add_verdict(v);
      for (const auto& wid : v.workloads) judged.insert(wid);
    }
    for (const auto& w : run.workloads)
      if (!judged.count(w.id)) writer.add_unjudged_workload(w);
    writer.finish();
    const Counts& counts = writer.counts();
    total.tests += counts.tests;
    total.failures += counts.failures;
    total.errors += counts.errors;
    total.skipped += counts.skipped;
    total.time += counts.time;
  }
  root.append_attribute("tests") = total.tests;
  root.append_attribute("failures") = total.failures;
  root.append_attribute("errors") = total.errors;
  // Not in junit-10.xsd nor jenkins-junit.xsd: the rich form only.
  if (options.rich) root.append_attribute("skipped") = total.skipped;
  root.append_attribute("time") = format_seconds_fixed(total.time).c_str();
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

void write_junit(const std::string& path, const std::vector<RunResult>& runs,
                 const JunitOptions& options) {
  write_file_atomically(path, render_junit(runs, options));
}

}  // namespace storqual::reporting
