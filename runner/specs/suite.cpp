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

std::string option_names(bool with_iodepth) {
  std::string out;
  for (const WorkloadOption& o : workload_options()) {
    if (!with_iodepth && o.name == "iodepth") continue;
    if (!out.empty()) out += ", ";
    out += o.name;
  }
  return out;
}

// Applies every attribute except those in `own` (handled by the caller) through the option table.
void apply_options(const XmlFile& file, pugi::xml_node node, WorkloadSpec& spec,
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
                              "a workload option: " + option_names(allow_iodepth) + ")");
    }
    try {
      set_workload_option(spec, name, a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
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

LatencySearch load_search(const XmlFile& file, pugi::xml_node node) {
  LatencySearch s;
  pugi::xml_attribute limit = required_attribute(file, node, "limit");
  try {
    s.limit_ns = parse_duration(limit.value()) * 1e9;
  } catch (const UnitError& e) {
    throw file.error_value(limit, std::string("limit: ") + e.what());
  }
  if (!(s.limit_ns > 0)) throw file.error_value(limit, "limit must be greater than 0");
  if (s.limit_ns > 3600e9) throw file.error_value(limit, "limit is absurd (more than 1 hour)");
  if (pugi::xml_attribute stat = node.attribute("stat")) {
    s.stat = stat.value();
    try {
      Metric m = parse_metric("lat." + s.stat);
      s.percentile = m.percentile;
    } catch (const UnitError& e) {
      throw file.error_value(stat, std::string("stat: ") + e.what());
    }
  }
  if (pugi::xml_attribute max = node.attribute("max_iodepth")) {
    std::string_view v = max.value();
    unsigned n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < 1 || n > kMaxIodepth)
      throw file.error_value(max, "max_iodepth: expected a whole number 1.." +
                                      std::to_string(kMaxIodepth) + ", got '" + std::string(v) +
                                      "'");
    s.max_iodepth = n;
  }
  if (pugi::xml_attribute lat = node.attribute("latency")) {
    s.latency = lat.value();
    if (s.latency != "lat" && s.latency != "clat")
      throw file.error_value(lat,
                             "latency: expected lat (submission to completion) or clat "
                             "(completion only), got '" +
                                 s.latency + "'");
  }
  if (pugi::xml_attribute mode = node.attribute("search")) {
    const std::string v = mode.value();
    if (v != "sweep" && v != "bisect")
      throw file.error_value(mode,
                             "search: expected sweep (every depth 1, 2, 4 .. max_iodepth) "
                             "or bisect, got '" +
                                 v + "'");
    s.bisect = v == "bisect";
  }
  return s;
}

unsigned parse_count(const XmlFile& file, pugi::xml_attribute a, unsigned lo, unsigned hi) {
  std::string_view v = a.value();
  unsigned n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < lo || n > hi)
    throw file.error_value(a, std::string(a.name()) + ": expected a whole number " +
                                  std::to_string(lo) + ".." + std::to_string(hi) + ", got '" +
                                  std::string(v) + "'");
  return n;
}

bool parse_bit(const XmlFile& file, pugi::xml_attribute a) {
  std::string_view v = a.value();
  if (v == "1") return true;
  if (v == "0") return false;
  throw file.error_value(a,
                         std::string(a.name()) + ": expected 0 or 1, got '" + std::string(v) + "'");
}

// <workload rounds round_time steady_metric>: empty when none of them is given.
std::optional<SteadyStateConfig> load_rounds(const XmlFile& file, pugi::xml_node node) {
  pugi::xml_attribute rounds = node.attribute("rounds");
  pugi::xml_attribute round_time = node.attribute("round_time");
  pugi::xml_attribute metric = node.attribute("steady_metric");
  if (!rounds && !round_time && !metric) return std::nullopt;
  SteadyStateConfig c;
  if (rounds) c.max_rounds = parse_count(file, rounds, 5, 1000);
  if (round_time) {
    try {
      c.round_time_s = parse_duration(round_time.value());
    } catch (const UnitError& e) {
      throw file.error_value(round_time, std::string("round_time: ") + e.what());
    }
    if (!(c.round_time_s > 0))
      throw file.error_value(round_time, "round_time must be greater than 0");
  }
  if (metric) {
    std::string_view m = metric.value();
    if (m != "iops" && m != "bw" && m != "lat.mean")
      throw file.error_value(
          metric, "steady_metric: expected iops, bw or lat.mean, got '" + std::string(m) + "'");
    c.metric = std::string(m);
  }
  return c;
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

SustainedWrite load_sustained(const XmlFile& file, pugi::xml_node node, WorkloadSpec& spec) {
  SustainedWrite s;
  if (pugi::xml_attribute rw = node.attribute("rw"); rw && std::string_view(rw.value()) != "write")
    throw file.error_value(rw, "a sustained write is sequential writes (rw=write), got '" +
                                   std::string(rw.value()) + "'");
  spec.params.rw = "write";
  pugi::xml_attribute volume = node.attribute("volume");
  if (volume) {
    std::string_view v = volume.value();
    if (v.ends_with("x")) v.remove_suffix(1);
    double f = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), f);
    if (ec != std::errc() || p != v.data() + v.size() || !(f > 0) || f > 1000)
      throw file.error_value(volume,
                             "volume: expected a multiple of size such as 2x (0 < x <= "
                             "1000), got '" +
                                 std::string(volume.value()) + "'");
    s.volume_factor = f;
    spec.params.runtime_s = 0;
  } else if (!node.attribute("runtime")) {
    s.volume_factor = 2;  // SNIA's write saturation covers the range at least twice
    spec.params.runtime_s = 0;
  }
  if (pugi::xml_attribute drop = node.attribute("drop")) {
    double pct = 0;
    try {
      pct = parse_percent(drop.value());
    } catch (const UnitError& e) {
      throw file.error_value(drop, std::string("drop: ") + e.what());
    }
    if (!(pct > 0) || pct >= 100)
      throw file.error_value(drop, "drop: expected a percentage between 0 and 100 (exclusive)");
    s.drop_fraction = pct / 100;
  }
  spec.params.ramp_time_s = 0;  // the first second is the cache: it must be counted
  return s;
}

std::optional<PtsKind> pts_kind_of(std::string_view element) {
  for (PtsKind k : {PtsKind::Wsat, PtsKind::Dirth, PtsKind::Xsr, PtsKind::Hir})
    if (element == to_string(k)) return k;
  return std::nullopt;
}

// <wsat|dirth|xsr|hir id=... [own attributes] [workload options]>: the PTS's stimulus as defaults.
PtsTest load_pts(const XmlFile& file, pugi::xml_node node, PtsKind kind, WorkloadSpec& spec) {
  PtsTest t;
  t.kind = kind;
  switch (kind) {  // the PTS's stimulus, before the suite's own attributes
    case PtsKind::Wsat:
    case PtsKind::Hir:
      spec.params.rw = "randwrite";
      spec.params.bs = 4096;
      break;
    case PtsKind::Dirth:
      spec.params.rw = "randrw";
      spec.params.rwmixread = 65;
      spec.params.bs = 8192;
      break;
    case PtsKind::Xsr:
      spec.params.rw = "write";
      break;
  }
  spec.params.ramp_time_s = 0;
  for (pugi::xml_attribute a : node.attributes()) {
    const std::string_view name = a.name();
    if (name == "id") continue;
    try {
      if (set_pts_attribute(t, name, a.value())) continue;
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
    if (!find_workload_option(name) || name == "runtime" || name == "ramp_time")
      throw file.error(
          a, "unknown attribute '" + std::string(name) + "' on <" + node.name() + "> (expected " +
                 pts_attribute_names(kind) +
                 " or a workload option but runtime and ramp_time: " + option_names(true) + ")");
    try {
      set_workload_option(spec, name, a.value());
    } catch (const UnitError& e) {
      throw file.error_value(a, e.what());
    }
  }
  spec.params.runtime_s = 0;
  return t;
}

void load_children(const XmlFile& file, pugi::xml_node node, SuiteWorkload& w) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata)
      throw file.error(child, "unexpected text in <" + std::string(node.name()) + ">");
    if (child.type() != pugi::node_element) continue;
    if (std::string_view(child.name()) != "precondition")
      throw file.error(child, "unknown element <" + std::string(child.name()) + "> in <" +
                                  node.name() + "> (expected <precondition>)");
    if (w.precondition)
      throw file.error(child, "a second <precondition> in <" + std::string(node.name()) + ">");
    w.precondition = load_precondition(file, child);
  }
}

Suite load_suite(const XmlFile& file) {
  pugi::xml_node root = file.root();
  if (std::string_view(root.name()) != "suite")
    throw file.error(root,
                     "unknown root element <" + std::string(root.name()) + "> (expected <suite>)");
  expect_only(file, root, "name description",
              "defaults precondition workload latency-search sustained-write capacity wsat "
              "dirth xsr hir");
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
    apply_options(file, d, base, {}, true);
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
    SuiteWorkload w;
    if (kind == "capacity")
      expect_no_children(file, node);
    else
      load_children(file, node, w);
    w.location = file.where(node);
    w.spec = base;
    w.spec.id = take_id(file, node);
    if (auto it = seen.find(w.spec.id); it != seen.end())
      throw file.error(node.attribute("id"),
                       "duplicate workload id '" + w.spec.id + "' (first at " + it->second + ")");
    seen.emplace(w.spec.id, file.position(node));
    if (kind == "workload") {
      apply_options(file, node, w.spec, {"id", "rounds", "round_time", "steady_metric"}, true);
      w.steady_state = load_rounds(file, node);
    } else if (kind == "capacity") {
      CapacityCheck c;
      c.id = w.spec.id;
      c.ioengine = w.spec.params.ioengine;  // from <defaults>
      c.direct = w.spec.params.direct;
      c.location = w.location;
      for (pugi::xml_attribute a : node.attributes()) {
        if (std::string_view(a.name()) == "id") continue;
        try {
          set_capacity_option(c, a.name(), a.value());
        } catch (const UnitError& e) {
          throw file.error_value(a, e.what());
        }
      }
      w.spec.params.rw = "write";
      w.spec.params.bs = c.bs;
      w.spec.params.size = 0;
      w.spec.params.offset = 0;
      w.capacity = std::move(c);
    } else if (kind == "sustained-write") {
      apply_options(file, node, w.spec, {"id", "volume", "drop"}, true);
      w.sustained_write = load_sustained(file, node, w.spec);
    } else if (auto pts_kind = pts_kind_of(kind)) {
      w.pts = load_pts(file, node, *pts_kind, w.spec);
    } else {  // latency-search
      apply_options(file, node, w.spec, {"id", "max_iodepth", "limit", "stat", "latency", "search"},
                    false);
      w.latency_search = load_search(file, node);
      w.spec.params.iodepth = 1;
    }
    if (w.precondition && w.precondition->dependent && !w.steady_state) {
      if (kind != "workload")
        throw file.error(node,
                         "dependent preconditioning (the workload itself until steady) "
                         "needs a <workload>");
      w.steady_state = SteadyStateConfig{};
    }
    validate_at(file, node, w.spec);
    suite.workloads.push_back(std::move(w));
  }
  if (suite.precondition && suite.precondition->dependent)
    for (auto& w : suite.workloads)
      if (!w.latency_search && !w.sustained_write && !w.steady_state && !w.pts)
        w.steady_state = SteadyStateConfig{};
  if (suite.workloads.empty())
    throw file.error(root,
                     "<suite> needs at least one <workload>, <latency-search>, "
                     "<sustained-write> or a PTS test (<wsat>, <dirth>, <xsr>, <hir>)");
  return suite;
}

bool looks_like_path(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.ends_with(".xml") ||
         is_fio_job_file(std::filesystem::path(s));
}

}  // namespace

std::string SuiteWorkload::fio_equivalent() const {
  if (capacity) {
    const std::string density =
        capacity->interval ? "one every " + format_size_fio(capacity->interval)
                           : std::to_string(capacity->samples) + " samples spread over the target";
    return "capacity check: " + format_size_fio(capacity->bs) + " blocks, " + density +
           ", written with distinct headers then read back (f3probe-like; no fio equivalent)";
  }
  if (!latency_search) {
    std::string cmd = fio_command(spec);
    if (!spec.early_stop.empty())
      cmd += "  # early stop " + spec.early_stop +
             ": storqual may end it before the runtime once its figure is known "
             "(docs/measurement.md); fio runs the full runtime";
    return cmd;
  }
  WorkloadSpec deepest = spec;
  deepest.params.iodepth = latency_search->max_iodepth;
  return fio_command(deepest) + "  # latency search: iodepth 1.." +
         std::to_string(latency_search->max_iodepth) +
         (latency_search->bisect ? " then bisected" : ", every power of two") +
         ", highest IOPS with " + latency_search->label() +
         " <= " + format_ns(latency_search->limit_ns);
}

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
