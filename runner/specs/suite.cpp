// SPDX-License-Identifier: Apache-2.0
// Suite loading and lookup of standard suites.
#include "runner/specs/suite.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <system_error>

#include "runner/base/units.hpp"
#include "runner/base/version.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace {

bool is_valid_name(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

void expect_no_children(const XmlFile& file, pugi::xml_node node) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata)
      throw file.error(child, "unexpected text in <" + std::string(node.name()) + ">");
    if (child.type() == pugi::node_element)
      throw file.error(child, "unknown element <" + std::string(child.name()) + "> in <" +
                                  node.name() + "> (it takes no child elements)");
  }
}

void validate_at(const XmlFile& file, pugi::xml_node node, const WorkloadSpec& spec) {
  try {
    validate(spec);
  } catch (const UnitError& e) {
    throw file.error(node, "workload '" + spec.id + "': " + e.what());
  }
}

std::string take_id(const XmlFile& file, pugi::xml_node node) {
  pugi::xml_attribute id = required_attribute(file, node, "id");
  std::string_view v = id.value();
  if (v.empty()) throw file.error_value(id, "empty workload id");
  if (!is_valid_name(v))
    throw file.error_value(id, "workload id '" + std::string(v) +
                                   "' may contain only letters, digits, '.', '_' and '-'");
  return std::string(v);
}

bool parse_bit(const XmlFile& file, pugi::xml_attribute a) {
  std::string_view v = a.value();
  if (v == "1") return true;
  if (v == "0") return false;
  throw file.error_value(a,
                         std::string(a.name()) + ": expected 0 or 1, got '" + std::string(v) + "'");
}

Precondition load_precondition(const XmlFile& file, pugi::xml_node node) {
  expect_only(file, node, "purge independent dependent", "");
  Precondition p;
  p.location = file.where(node);
  if (pugi::xml_attribute a = node.attribute("purge")) {
    try {
      p.purge = parse_purge(a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
  if (pugi::xml_attribute a = node.attribute("independent")) p.independent = parse_bit(file, a);
  if (pugi::xml_attribute a = node.attribute("dependent")) p.dependent = parse_bit(file, a);
  return p;
}

void load_children(const XmlFile& file, pugi::xml_node node, SuiteWorkload& w) {
  const bool group = std::string_view(node.name()) == "workload";  // it may hold <job>s
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata)
      throw file.error(child, "unexpected text in <" + std::string(node.name()) + ">");
    if (child.type() != pugi::node_element) continue;
    if (group && std::string_view(child.name()) == "job") continue;  // load_jobs
    if (std::string_view(child.name()) != "precondition")
      throw file.error(child, "unknown element <" + std::string(child.name()) + "> in <" +
                                  node.name() + "> (expected <precondition>" +
                                  (group ? " or <job>)" : ")"));
    if (w.precondition)
      throw file.error(child, "a second <precondition> in <" + std::string(node.name()) + ">");
    w.precondition = load_precondition(file, child);
  }
}

// One <job> of a group workload: its name and its options over the workload's, each checked at
// its attribute through the option table.
GroupJob load_job(const XmlFile& file, pugi::xml_node node, const WorkloadSpec& group) {
  expect_no_children(file, node);
  GroupJob job;
  pugi::xml_attribute name = required_attribute(file, node, "name");
  job.name = name.value();
  if (!is_valid_name(job.name))
    throw file.error_value(
        name, "job name '" + job.name + "' must be non-empty letters, digits, '.', '_' and '-'");
  for (pugi::xml_attribute a : node.attributes()) {
    const std::string_view option = a.name();
    if (group_only_option(option))
      throw file.error(a, std::string(option) +
                              " is the group's: its jobs run together over one measured window "
                              "(set it on the <workload>)");
  }
  WorkloadSpec scratch = group;  // each value checked where it is written
  apply_workload_attributes(file, node, scratch, {"name"}, true);
  for (pugi::xml_attribute a : node.attributes())
    if (std::string_view(a.name()) != "name") job.options.emplace_back(a.name(), a.value());
  return job;
}

// The <job>s of a <workload>: a group of different jobs that run together (docs/formats.md). A
// group is a plain run: not in rounds.
void load_jobs(const XmlFile& file, pugi::xml_node node, SuiteWorkload& w) {
  std::map<std::string, std::string> seen;  // name -> line:column
  for (pugi::xml_node child : node.children("job")) {
    GroupJob job = load_job(file, child, w.spec);
    if (auto it = seen.find(job.name); it != seen.end())
      throw file.error(child.attribute("name"),
                       "duplicate job name '" + job.name + "' (first at " + it->second + ")");
    seen.emplace(job.name, file.position(child));
    w.spec.jobs.push_back(std::move(job));
  }
  if (w.spec.jobs.empty()) return;
  if (w.method->timed())  // rounds to steady state: the <workload> method that is not a plain run
    throw file.error(node,
                     "a group of jobs (<job>) runs once: it cannot run in rounds to steady "
                     "state (rounds, round_time, steady_metric, dependent preconditioning)");
  if (w.spec.jobs.size() == 1)
    throw file.error(node.child("job"),
                     "a group needs at least two <job>s (one job's options "
                     "belong on the <workload>)");
  // Each member checked at its own element: the workload's options with the job's over them.
  const std::vector<WorkloadSpec> members = group_members(w.spec);
  std::size_t i = 0;
  for (pugi::xml_node child : node.children("job")) {
    try {
      validate(members[i]);
    } catch (const UnitError& e) {
      throw file.error(child,
                       "workload '" + w.spec.id + "', job '" + members[i].id + "': " + e.what());
    }
    ++i;
  }
}

Suite load_suite(const XmlFile& file) {
  pugi::xml_node root = file.root();
  if (std::string_view(root.name()) != "suite")
    throw file.error(root,
                     "unknown root element <" + std::string(root.name()) + "> (expected <suite>)");
  std::string elements = "defaults precondition";
  for (const MethodEntry& e : method_entries()) elements += " " + std::string(e.element);
  expect_only(file, root, "name description", elements);
  Suite suite;
  pugi::xml_attribute name = required_attribute(file, root, "name");
  if (!is_valid_name(name.value()))
    throw file.error_value(name, "suite name '" + std::string(name.value()) +
                                     "' must be non-empty letters, digits, '.', '_' and '-'");
  suite.name = name.value();
  suite.description = root.attribute("description").value();

  WorkloadSpec base;
  pugi::xml_node defaults;
  for (pugi::xml_node d : root.children("defaults")) {
    if (defaults)
      throw file.error(d, "a second <defaults> (expected at most one, first at " +
                              file.position(defaults) + ")");
    defaults = d;
    expect_no_children(file, d);
    apply_workload_attributes(file, d, base, {}, true);
  }

  std::map<std::string, std::string> seen;  // id -> line:column
  for (pugi::xml_node node : root.children()) {
    if (node.type() != pugi::node_element) continue;
    std::string_view kind = node.name();
    if (kind == "defaults") continue;
    if (kind == "precondition") {
      if (suite.precondition)
        throw file.error(node, "a second <precondition> in <suite> (expected at most one)");
      suite.precondition = load_precondition(file, node);
      continue;
    }
    const MethodEntry* entry = find_method_entry(kind);  // expect_only admitted the element
    SuiteWorkload w;
    if (entry->takes_precondition)
      load_children(file, node, w);
    else
      expect_no_children(file, node);
    w.location = file.where(node);
    w.spec = base;
    w.spec.id = take_id(file, node);
    if (auto it = seen.find(w.spec.id); it != seen.end())
      throw file.error(node.attribute("id"),
                       "duplicate workload id '" + w.spec.id + "' (first at " + it->second + ")");
    seen.emplace(w.spec.id, file.position(node));
    w.method = entry->load(file, node, w.spec);
    if (w.precondition && w.precondition->dependent) {
      if (!entry->in_rounds)
        throw file.error(node,
                         "dependent preconditioning (the workload itself until steady) "
                         "needs a <workload>");
      w.method = entry->in_rounds(w.method);
    }
    if (kind == "workload") load_jobs(file, node, w);
    validate_at(file, node, w.spec);
    suite.workloads.push_back(std::move(w));
  }
  if (suite.precondition && suite.precondition->dependent)
    for (auto& w : suite.workloads)
      if (const MethodEntry* entry = find_method_entry(w.method->element()); entry->in_rounds) {
        if (!w.spec.jobs.empty())
          throw FileError(w.location + ": workload '" + w.spec.id +
                          "' is a group of jobs, which runs once: the suite's dependent "
                          "preconditioning (the workload itself in rounds) cannot apply to it");
        w.method = entry->in_rounds(w.method);
      }
  if (suite.workloads.empty()) {
    std::string methods;
    for (const MethodEntry& e : method_entries())
      methods += (methods.empty() ? "<" : ", <") + std::string(e.element) + ">";
    throw file.error(root, "<suite> needs at least one method element (" + methods + ")");
  }
  return suite;
}

bool looks_like_path(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.ends_with(".xml") ||
         is_fio_job_file(std::filesystem::path(s));
}

}  // namespace

const SuiteWorkload* Suite::find(std::string_view id) const noexcept {
  for (const auto& w : workloads)
    if (w.spec.id == id) return &w;
  return nullptr;
}

Suite Suite::load(const std::filesystem::path& path) {
  if (is_fio_job_file(path)) return import_fio_file(path).suite;  // docs/fio-files.md
  XmlFile file(path);
  Suite s = load_suite(file);
  s.path = path;
  s.sha256 = sha256_hex(file.bytes());
  return s;
}

Suite Suite::parse(std::string text, std::string display_name) {
  XmlFile file(std::move(text), std::move(display_name));
  Suite s = load_suite(file);
  s.sha256 = sha256_hex(file.bytes());
  return s;
}

std::filesystem::path installed_data_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  // <prefix>/bin/storqual -> <prefix>/share/storqual
  return exe.parent_path().parent_path() / "share" / "storqual";
}

std::vector<std::filesystem::path> default_suite_dirs() {
  std::vector<std::filesystem::path> dirs;
  const std::filesystem::path candidates[] = {installed_data_dir() / "suites",
                                              std::filesystem::path(kDataDir) / "suites",
                                              std::filesystem::path(kSourceDir) / "suites"};
  for (const auto& d : candidates) {
    std::error_code ec;
    if (d.has_parent_path() && std::filesystem::is_directory(d, ec) &&
        std::find(dirs.begin(), dirs.end(), d) == dirs.end())
      dirs.push_back(d);
  }
  return dirs;
}

std::vector<std::filesystem::path> list_suite_files(
    const std::vector<std::filesystem::path>& dirs) {
  std::map<std::string, std::filesystem::path> by_name;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".xml") continue;
      by_name.emplace(entry.path().stem().string(), entry.path());  // first directory wins
    }
  }
  std::vector<std::filesystem::path> out;
  for (auto& [name, path] : by_name) out.push_back(path);
  return out;
}

std::filesystem::path resolve_suite(std::string_view name_or_file,
                                    const std::vector<std::filesystem::path>& dirs) {
  std::error_code ec;
  std::filesystem::path given(name_or_file);
  if (std::filesystem::is_regular_file(given, ec)) return given;
  if (looks_like_path(name_or_file)) throw FileError(given.string() + ": no such suite file");
  for (const auto& dir : dirs) {
    std::filesystem::path candidate = dir / (std::string(name_or_file) + ".xml");
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  std::string looked, known;
  for (const auto& dir : dirs) looked += (looked.empty() ? "" : ", ") + dir.string();
  for (const auto& p : list_suite_files(dirs))
    known += (known.empty() ? "" : ", ") + p.stem().string();
  throw FileError("suite '" + std::string(name_or_file) + "' not found (looked in " +
                  (looked.empty() ? std::string("no directory") : looked) +
                  (known.empty() ? std::string(")") : "; standard suites: " + known + ")"));
}

std::filesystem::path resolve_suite_for_sheet(const std::string& suite,
                                              const std::filesystem::path& sheet_path,
                                              const std::vector<std::filesystem::path>& dirs) {
  if (looks_like_path(suite)) {
    std::filesystem::path p(suite);
    if (p.is_relative()) p = sheet_path.parent_path() / p;
    return resolve_suite(p.string(), dirs);
  }
  return resolve_suite(suite, dirs);
}

}  // namespace storqual::runner
