// SPDX-License-Identifier: Apache-2.0
// Spec sheet loading: metrics, claim values with units, match patterns, tolerances.
#include "runner/specs/spec_sheet.hpp"

#include <fnmatch.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "devices/health.hpp"
#include "model/quantity_format.hpp"
#include "reporting/verdict_status.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/nearest_name.hpp"
#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"

namespace storqual::runner {
namespace {

constexpr double kMaxIops = 1e9;
constexpr double kMaxBandwidth = 1e12;  // bytes/s
constexpr double kMaxLatencyNs = 3600e9;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct NumberAndUnit {
  double number = 0;
  std::string unit;  // trimmed suffix
};

// Greek small letter mu (U+03BC) read as the micro sign (U+00B5): datasheets write both.
std::string with_micro_sign(std::string_view text) {
  std::string out(text);
  for (std::size_t at = out.find("\xce\xbc"); at != std::string::npos; at = out.find("\xce\xbc"))
    out.replace(at, 2, "\xc2\xb5");
  return out;
}

// A number written with a thousands separator ("60.000", "1,500", "60 000", "1.500.000") is
// refused rather than guessed: 60.000 is sixty in one country and sixty thousand in another.
// Three decimals exactly read as a separator, except in a latency ("1.250ms" is common there).
void refuse_thousands_separator(std::string_view s, std::string_view number, std::string_view rest,
                                bool latency) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const bool separator_after =
      (rest.size() >= 2 && (rest[0] == ',' || rest[0] == '.') && digit(rest[1])) ||
      (!trim(rest).empty() && digit(trim(rest).front()));
  const std::size_t point = number.find('.');
  const bool three_decimals =
      point != std::string_view::npos && number.size() - point - 1 == 3 &&
      std::all_of(number.begin() + static_cast<std::ptrdiff_t>(point) + 1, number.end(), digit);
  if (separator_after || (three_decimals && !latency))
    throw UnitError("claim value '" + std::string(s) +
                    "' has a thousands separator (or three decimals, which read as one): write "
                    "the number without it, such as 60000 or 60k (or 60.0 for sixty)");
}

NumberAndUnit split_value(std::string_view text, bool latency = false) {
  std::string_view s = trim(text);
  if (s.empty()) throw UnitError("empty claim value");
  if (s.front() == '-')
    throw UnitError("claim value '" + std::string(s) +
                    "' is negative (expected a positive number)");
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || ptr == s.data() || !std::isfinite(v))
    throw UnitError("claim value '" + std::string(s) + "' does not start with a number");
  const std::string_view number(s.data(), static_cast<std::size_t>(ptr - s.data()));
  const std::string_view rest(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr));
  refuse_thousands_separator(s, number, rest, latency);
  return {v, std::string(trim(rest))};
}

// A bandwidth unit with its case, which carries meaning: B is a byte, b a bit (a SATA or SAS
// link's "6Gb/s", some datasheets' "8000Mb/s"); a decimal prefix k, K, M, G, T, or a binary one
// Ki, Mi, Gi, Ti; then /s, ps or /sec. Bits are read and converted to bytes (a note says so);
// "mb/s" and "gb/s" in lower case are refused as ambiguous. Null when `unit` is not a bandwidth.
std::optional<double> bandwidth_factor(std::string_view unit, std::string& note,
                                       const std::string& shown, double number) {
  std::string_view u = unit;
  bool per_second = false;
  for (std::string_view end : {"/sec", "/s", "ps"})
    if (u.size() > end.size() && u.ends_with(end)) {
      u.remove_suffix(end.size());
      per_second = true;
      break;
    }
  if (!per_second) return std::nullopt;
  bool bits = false;
  if (u.ends_with("bits") || u.ends_with("bit")) {
    u.remove_suffix(u.ends_with("bits") ? 4 : 3);
    bits = true;
  } else if (u.ends_with("b")) {
    u.remove_suffix(1);
    bits = true;
  } else if (u.ends_with("B")) {
    u.remove_suffix(1);
  } else {
    return std::nullopt;
  }
  const bool binary = u.ends_with("i");
  if (binary) u.remove_suffix(1);
  if (u.size() > 1) return std::nullopt;
  const char p = u.empty() ? '\0' : u.front();
  int power = 0;
  switch (p) {
    case '\0':
      break;
    case 'k':
    case 'K':
      power = 1;
      break;
    case 'M':
    case 'm':
      power = 2;
      break;
    case 'G':
    case 'g':
      power = 3;
      break;
    case 'T':
    case 't':
      power = 4;
      break;
    default:
      return std::nullopt;
  }
  if (bits && !binary && (p == 'm' || p == 'g' || p == 't'))
    throw UnitError("claim value '" + shown + "' is ambiguous: write MB/s (megabytes) or Mb/s " +
                    "(megabits), with their case");
  const double factor = std::pow(binary ? 1024.0 : 1000.0, power) / (bits ? 8.0 : 1.0);
  if (bits) {
    char text[160];
    std::snprintf(text, sizeof text, "%s is in bits per second: read as %s (bytes)", shown.c_str(),
                  reporting::format_rate_mb(number * factor).c_str());
    note = text;
  }
  return factor;
}

// An I/O rate: "97000", "97k", "97K", "1.2M", "97K IOPS", "97k IOPS", "97 KIOPS".
std::optional<double> rate_factor(const std::string& lowered) {
  std::string_view u = lowered;
  if (u.ends_with("iops")) u = trim(u.substr(0, u.size() - 4));
  if (u.empty()) return 1.0;
  if (u == "k") return 1e3;
  if (u == "m") return 1e6;
  return std::nullopt;
}

enum class UnitFamily { Rate, Bandwidth, Latency, Capacity, Percent, Unknown };

struct UnitDef {
  std::string_view lower_name;
  UnitFamily family;
  double factor;
};

constexpr UnitDef kUnits[] = {
    {"", UnitFamily::Rate, 1},
    {"iops", UnitFamily::Rate, 1},
    {"k", UnitFamily::Rate, 1e3},
    {"kiops", UnitFamily::Rate, 1e3},
    {"m", UnitFamily::Rate, 1e6},
    {"miops", UnitFamily::Rate, 1e6},
    {"b", UnitFamily::Capacity, 1},
    {"kb", UnitFamily::Capacity, 1e3},
    {"mb", UnitFamily::Capacity, 1e6},
    {"gb", UnitFamily::Capacity, 1e9},
    {"tb", UnitFamily::Capacity, 1e12},
    {"kib", UnitFamily::Capacity, 1024.0},
    {"mib", UnitFamily::Capacity, 1024.0 * 1024},
    {"gib", UnitFamily::Capacity, 1024.0 * 1024 * 1024},
    {"tib", UnitFamily::Capacity, 1024.0 * 1024 * 1024 * 1024},
    {"b/s", UnitFamily::Bandwidth, 1},
    {"kb/s", UnitFamily::Bandwidth, 1e3},
    {"mb/s", UnitFamily::Bandwidth, 1e6},
    {"gb/s", UnitFamily::Bandwidth, 1e9},
    {"kib/s", UnitFamily::Bandwidth, 1024.0},
    {"mib/s", UnitFamily::Bandwidth, 1024.0 * 1024},
    {"gib/s", UnitFamily::Bandwidth, 1024.0 * 1024 * 1024},
    {"ns", UnitFamily::Latency, 1},
    {"us", UnitFamily::Latency, 1e3},
    {"\xc2\xb5s", UnitFamily::Latency, 1e3},  // µs
    {"ms", UnitFamily::Latency, 1e6},
    {"s", UnitFamily::Latency, 1e9},
    {"%", UnitFamily::Percent, 1},
};

const char* family_example(MetricKind k) {
  switch (k) {
    case MetricKind::Iops:
      return "an I/O rate such as 97000, 97k or 1.2M";
    case MetricKind::Bandwidth:
      return "a bandwidth such as 540MB/s, 3.5GB/s or 515MiB/s";
    case MetricKind::Latency:
      return "a latency such as 250us, 1.5ms or 800ns";
    case MetricKind::Capacity:
      return "a size such as 64GB, 500 GB or 2TiB";
    case MetricKind::Waf:
      return "a write amplification factor such as 1.5 or 2.0x";
    case MetricKind::Dwpd:
      return "drive writes per day such as 1 or 3 DWPD";
    case MetricKind::Percent:
      return "a percentage such as 30%";
  }
  return "";
}

const char* family_name(UnitFamily f) {
  switch (f) {
    case UnitFamily::Rate:
      return "an I/O rate";
    case UnitFamily::Bandwidth:
      return "a bandwidth";
    case UnitFamily::Latency:
      return "a latency";
    case UnitFamily::Capacity:
      return "a size";
    case UnitFamily::Percent:
      return "a percentage";
    case UnitFamily::Unknown:
      break;
  }
  return "unknown";
}

UnitFamily family_of(MetricKind k) {
  switch (k) {
    case MetricKind::Iops:
      return UnitFamily::Rate;
    case MetricKind::Bandwidth:
      return UnitFamily::Bandwidth;
    case MetricKind::Latency:
      return UnitFamily::Latency;
    case MetricKind::Capacity:
      return UnitFamily::Capacity;
    case MetricKind::Percent:
      return UnitFamily::Percent;
    case MetricKind::Waf:
    case MetricKind::Dwpd:
      break;
  }
  return UnitFamily::Unknown;
}

bool is_valid_id(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

bool parse_flag(std::string_view v, bool& out) {
  if (v == "1" || v == "true" || v == "yes") {
    out = true;
    return true;
  }
  if (v == "0" || v == "false" || v == "no") {
    out = false;
    return true;
  }
  return false;
}

double parse_tolerance(const XmlFile& file, pugi::xml_attribute a) {
  double t = 0;
  // "0.1" could be a tenth (10%) or 0.1%: a tolerance is written with its %.
  if (std::string_view(a.value()).find('%') == std::string_view::npos)
    throw file.error_value(a, "tolerance '" + std::string(a.value()) +
                                  "' needs its unit: write it with % (10% is a tenth)");
  try {
    t = parse_percent(a.value());
  } catch (const UnitError& e) {
    throw file.error_value(a, std::string("tolerance: ") + e.what());
  }
  if (t >= 100)
    throw file.error_value(a, "tolerance '" + std::string(a.value()) +
                                  "' must be below 100% (it would accept anything)");
  return t;
}

void check_id(const XmlFile& file, pugi::xml_attribute a, std::string_view id) {
  if (id.empty()) throw file.error_value(a, "empty workload id");
  if (!is_valid_id(id))
    throw file.error_value(a, "workload id '" + std::string(id) +
                                  "' may contain only letters, digits, '.', '_' and '-'");
}

Claim load_claim(const XmlFile& file, pugi::xml_node node, double sheet_tolerance) {
  expect_only(file, node,
              "workload workloads job aggregate metric value value_per_tb tolerance steady", "");
  Claim c;
  c.location = file.where(node);
  c.tolerance_pct = sheet_tolerance;
  pugi::xml_attribute one = node.attribute("workload");
  pugi::xml_attribute many = node.attribute("workloads");
  pugi::xml_attribute agg = node.attribute("aggregate");
  if (one && many)
    throw file.error(many, "a <claim> takes workload=\"ID\" or workloads=\"ID ID...\", not both");
  if (!one && !many)
    throw file.error(node, "<claim> needs attribute 'workload' (or 'workloads' with aggregate)");
  if (one) {
    check_id(file, one, one.value());
    c.workloads.emplace_back(one.value());
    if (agg) throw file.error(agg, "aggregate needs workloads=\"ID ID...\" (several workloads)");
    // One member job of a group workload (docs/formats.md, "<job>"); the suite says whether it
    // has one (cross_check).
    if (pugi::xml_attribute job = node.attribute("job")) {
      check_id(file, job, job.value());
      c.job = job.value();
    }
  } else {
    if (pugi::xml_attribute job = node.attribute("job"))
      throw file.error(job, "job=\"NAME\" names a job of one workload (workload=\"ID\")");
    c.workloads = reporting::split_ids(many.value());
    if (c.workloads.empty()) throw file.error_value(many, "empty workloads list");
    for (std::size_t i = 0; i < c.workloads.size(); ++i) {
      check_id(file, many, c.workloads[i]);
      for (std::size_t j = 0; j < i; ++j)
        if (c.workloads[j] == c.workloads[i])
          throw file.error_value(many, "workload '" + c.workloads[i] + "' is listed twice");
    }
    c.aggregate = Aggregate::Mean;
    if (agg) {
      std::string_view a = agg.value();
      if (a == "mean")
        c.aggregate = Aggregate::Mean;
      else if (a == "min")
        c.aggregate = Aggregate::Min;
      else if (a == "max")
        c.aggregate = Aggregate::Max;
      else
        throw file.error_value(
            agg, "unknown aggregate '" + std::string(a) + "' (expected mean, min or max)");
    }
  }
  pugi::xml_attribute metric = required_attribute(file, node, "metric");
  try {
    c.metric = parse_metric(metric.value());
  } catch (const UnitError& e) {
    throw file.error_value(metric, e.what());
  }
  pugi::xml_attribute value = node.attribute("value");
  pugi::xml_attribute per_tb = node.attribute("value_per_tb");
  if (value && per_tb)
    throw file.error(per_tb, "a <claim> takes value=\"...\" or value_per_tb=\"...\", not both");
  if (!per_tb) value = required_attribute(file, node, "value");
  c.value_text = per_tb ? per_tb.value() : value.value();
  try {
    c.value = parse_claim_value(c.metric, c.value_text, c.per_tb, &c.value_note);
    if (per_tb && !c.per_tb) {
      c.per_tb = true;
      c.value = parse_claim_value(c.metric, c.value_text + "/TB", c.per_tb, &c.value_note);
    }
  } catch (const UnitError& e) {
    throw file.error_value(per_tb ? per_tb : value, e.what());
  }
  if (pugi::xml_attribute t = node.attribute("tolerance"))
    c.tolerance_pct = parse_tolerance(file, t);
  if (pugi::xml_attribute s = node.attribute("steady")) {
    if (std::string_view(s.value()) == "required")
      c.steady = c.steady_required = true;
    else if (!parse_flag(s.value(), c.steady))
      throw file.error_value(
          s, "steady: expected 0, 1 or required, got '" + std::string(s.value()) + "'");
  }
  return c;
}

MatchRule load_match(const XmlFile& file, pugi::xml_node node) {
  expect_only(file, node, "model firmware vendor serial transport target", "");
  MatchRule rule;
  for (pugi::xml_attribute a : node.attributes()) {
    if (trim(a.value()).empty())
      throw file.error_value(
          a, "empty pattern for '" + std::string(a.name()) + "' (use \"*\" to match anything)");
    rule.patterns[a.name()] = std::string(trim(a.value()));
  }
  if (rule.patterns.empty())
    throw file.error(node,
                     "<match> needs at least one of model, firmware, vendor, serial, "
                     "transport or target");
  return rule;
}

// A limit's number: a plain non-negative number ("24", "0", "55.5").
double parse_limit_value(const XmlFile& file, pugi::xml_attribute a) {
  double v = 0;
  std::string_view t = trim(a.value());
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !(v >= 0))
    throw file.error_value(a, std::string(a.name()) + ": expected a number at or above 0, got '" +
                                  std::string(a.value()) + "'");
  return v;
}

// <health><limit figure="power_on_hours" max="24" at="arrival"/>...</health>
void load_health_limits(const XmlFile& file, pugi::xml_node health,
                        std::vector<HealthLimit>& limits) {
  expect_only(file, health, "", "limit");
  for (pugi::xml_node node : health.children("limit")) {
    expect_only(file, node, "figure max min at", "");
    HealthLimit l;
    pugi::xml_attribute figure = required_attribute(file, node, "figure");
    if (!devices::find_health_figure(figure.value())) {
      std::string names;
      for (const auto& f : devices::health_figures())
        names += (names.empty() ? "" : ", ") + std::string(f.name);
      throw file.error_value(figure, "unknown health figure '" + std::string(figure.value()) +
                                         "' (expected one of " + names + ")");
    }
    l.figure = figure.value();
    if (pugi::xml_attribute a = node.attribute("max")) l.max = parse_limit_value(file, a);
    if (pugi::xml_attribute a = node.attribute("min")) l.min = parse_limit_value(file, a);
    if (!l.max && !l.min) throw file.error(node, "<limit> needs max, min or both");
    if (pugi::xml_attribute at = node.attribute("at")) {
      const std::string_view v = at.value();
      if (v != "arrival" && v != "every-reading")
        throw file.error_value(at, "at: expected arrival or every-reading");
      l.arrival_only = v == "arrival";
    }
    for (const HealthLimit& earlier : limits)
      if (earlier.figure == l.figure && earlier.arrival_only == l.arrival_only)
        throw file.error(node, "a second limit on " + l.figure + " (first at line " +
                                   std::to_string(earlier.line) + ")");
    l.file = file.display_name();
    l.line = static_cast<unsigned>(std::stoul(file.position(node)));  // "line:column"
    limits.push_back(std::move(l));
  }
}

SpecSheet load_sheet(const XmlFile& file) {
  pugi::xml_node root = file.root();
  if (std::string_view(root.name()) != "spec-sheet")
    throw file.error(
        root, "unknown root element <" + std::string(root.name()) + "> (expected <spec-sheet>)");
  expect_only(file, root, "name vendor suite source warranty_years plp powercut_cycles",
              "match claims health");
  SpecSheet sheet;
  pugi::xml_attribute name = required_attribute(file, root, "name");
  if (trim(name.value()).empty()) throw file.error_value(name, "empty spec sheet name");
  sheet.name = name.value();
  sheet.vendor = root.attribute("vendor").value();
  sheet.source = root.attribute("source").value();
  pugi::xml_attribute suite = required_attribute(file, root, "suite");
  if (trim(suite.value()).empty()) throw file.error_value(suite, "empty suite name");
  sheet.suite = suite.value();
  if (pugi::xml_attribute w = root.attribute("warranty_years")) {
    double years = 0;
    std::string_view t = trim(w.value());
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), years);
    if (ec != std::errc() || ptr != t.data() + t.size() || !(years > 0) || years > 50)
      throw file.error_value(w,
                             "warranty_years: expected a number of years above 0 (at most 50), "
                             "got '" +
                                 std::string(w.value()) + "'");
    sheet.warranty_years = years;
  }
  if (pugi::xml_attribute p = root.attribute("plp")) {
    const std::string_view t = trim(p.value());
    if (t != "yes" && t != "no")
      throw file.error_value(p, "plp: expected yes or no, got '" + std::string(p.value()) + "'");
    sheet.plp = t == "yes";
  }
  if (pugi::xml_attribute c = root.attribute("powercut_cycles")) {
    unsigned cycles = 0;
    const std::string_view t = trim(c.value());
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), cycles);
    if (ec != std::errc() || ptr != t.data() + t.size() || cycles == 0 || cycles > 1000000)
      throw file.error_value(c,
                             "powercut_cycles: expected a number of power cuts, 1 to 1000000, "
                             "got '" +
                                 std::string(c.value()) + "'");
    sheet.powercut_cycles = cycles;
  }

  pugi::xml_node claims_node;
  for (pugi::xml_node child : root.children()) {
    if (child.type() != pugi::node_element) continue;
    std::string_view n = child.name();
    if (n == "match") {
      sheet.match.push_back(load_match(file, child));
    } else if (n == "health") {
      load_health_limits(file, child, sheet.health_limits);
    } else if (n == "claims") {
      if (claims_node)
        throw file.error(
            child, "a second <claims> (expected one, first at " + file.position(claims_node) + ")");
      claims_node = child;
    }
  }
  if (sheet.match.empty())
    throw file.error(root,
                     "<spec-sheet> needs at least one <match> (use <match model=\"*\"/> "
                     "to match any device)");
  if (claims_node) {
    expect_only(file, claims_node, "tolerance", "claim");
    double tolerance = kDefaultTolerancePct;
    if (pugi::xml_attribute t = claims_node.attribute("tolerance"))
      tolerance = parse_tolerance(file, t);
    for (pugi::xml_node node : claims_node.children("claim")) {
      Claim c = load_claim(file, node, tolerance);
      for (const Claim& earlier : sheet.claims)
        if (earlier.workloads == c.workloads && earlier.job == c.job &&
            earlier.metric.name == c.metric.name)
          throw file.error(node, "duplicate claim on " + c.workload_label() + " " + c.metric.name +
                                     " (first at " +
                                     earlier.location.substr(file.display_name().size() + 1) + ")");
      sheet.claims.push_back(std::move(c));
    }
  }
  sheet.sha256 = sha256_hex(file.bytes());
  return sheet;
}

// A claim value in its base unit, checked against zero and the absurd.
double checked_claim_value(double v, UnitFamily want, const std::string& shown) {
  if (!(v > 0)) throw UnitError("claim value '" + shown + "' must be greater than 0");
  const double limit = want == UnitFamily::Rate        ? kMaxIops
                       : want == UnitFamily::Bandwidth ? kMaxBandwidth
                       : want == UnitFamily::Capacity  ? 1e18
                       : want == UnitFamily::Percent   ? 1e4
                                                       : kMaxLatencyNs;
  const char* limit_text = want == UnitFamily::Rate        ? "1G IOPS"
                           : want == UnitFamily::Bandwidth ? "1 TB/s"
                           : want == UnitFamily::Capacity  ? "1 EB"
                           : want == UnitFamily::Percent   ? "10000%"
                                                           : "1 hour";
  if (v > limit)
    throw UnitError("claim value '" + shown + "' is absurd (more than " + limit_text + ")");
  return v;
}

}  // namespace

const char* to_string(Aggregate a) noexcept {
  return a == Aggregate::Min ? "min" : a == Aggregate::Max ? "max" : "mean";
}

// Every metric name a claim commonly takes, for "did you mean": each form in each direction with
// the usual percentiles, and every named figure.
std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (const char* direction : {"", "read.", "write."})
    for (const char* form :
         {"iops", "bw", "lat.mean", "lat.p50", "lat.p90", "lat.p95", "lat.p99", "lat.p99.9",
          "lat.p99.99", "clat.mean", "clat.p50", "clat.p99", "clat.p99.9", "clat.p99.99"})
      names.push_back(std::string(direction) + form);
  for (const auto& f : reporting::figure_table()) names.emplace_back(f.name);
  return names;
}

Metric parse_metric(std::string_view name) {
  const auto parsed = reporting::parse_metric_name(name);
  if (!parsed) {
    if (const auto near = nearest_name(name, metric_names()))
      throw UnitError("unknown metric '" + std::string(name) + "'; did you mean '" + *near +
                      "'? (expected " + reporting::metric_forms() + ")");
    throw UnitError("unknown metric '" + std::string(name) + "' (expected " +
                    reporting::metric_forms() + ")");
  }
  Metric m;
  m.name = std::string(name);
  m.kind = parsed->kind;
  m.direction = parsed->direction;
  m.latency = parsed->latency;
  m.figure = parsed->figure;
  if (m.kind == MetricKind::Latency && !m.figure)
    m.percentile = parse_percentile_stat(parsed->stat, name);
  return m;
}

double parse_claim_value(const Metric& metric, std::string_view text, std::string* note) {
  const std::string micro = with_micro_sign(text);
  NumberAndUnit nu = split_value(micro, metric.kind == MetricKind::Latency);
  std::string shown(trim(text));
  if (metric.kind == MetricKind::Waf || metric.kind == MetricKind::Dwpd) {
    const std::string u = lower(nu.unit);
    const bool fits = u.empty() || (metric.kind == MetricKind::Waf ? u == "x" : u == "dwpd");
    if (!fits)
      throw UnitError("unknown unit '" + nu.unit + "' in '" + shown + "' (metric '" + metric.name +
                      "' takes " + family_example(metric.kind) + ")");
    if (!(nu.number > 0)) throw UnitError("claim value '" + shown + "' must be greater than 0");
    if (nu.number > 1000) throw UnitError("claim value '" + shown + "' is absurd (more than 1000)");
    return nu.number;
  }
  const std::string unit = lower(nu.unit);
  const UnitFamily want = family_of(metric.kind);
  std::string read_as;
  std::optional<double> factor;
  if (want == UnitFamily::Bandwidth) factor = bandwidth_factor(nu.unit, read_as, shown, nu.number);
  if (want == UnitFamily::Rate) factor = rate_factor(unit);
  if (factor) {
    if (note) *note = read_as;
    return checked_claim_value(nu.number * *factor, want, shown);
  }
  const UnitDef* def = nullptr;
  for (const UnitDef& u : kUnits)
    if (u.lower_name == unit) def = &u;
  // "m" is a million for a rate ("1.2M"); as a latency it would be minutes - refuse it there.
  if (!def)
    throw UnitError("unknown unit '" + nu.unit + "' in '" + shown + "' (metric '" + metric.name +
                    "' takes " + family_example(metric.kind) + ")");
  if (def->family != want) {
    if (unit.empty())
      throw UnitError("claim value '" + shown + "' needs a unit: metric '" + metric.name +
                      "' takes " + family_example(metric.kind));
    throw UnitError("claim value '" + shown + "' is " + family_name(def->family) +
                    ", but metric '" + metric.name + "' takes " + family_example(metric.kind));
  }
  return checked_claim_value(nu.number * def->factor, want, shown);
}

double parse_claim_value(const Metric& metric, std::string_view text, bool& per_tb,
                         std::string* note) {
  std::string_view s = trim(text);
  per_tb = false;
  if (s.size() > 3 && lower(s.substr(s.size() - 3)) == "/tb") {
    if (metric.kind != MetricKind::Iops && metric.kind != MetricKind::Bandwidth)
      throw UnitError("claim value '" + std::string(s) + "' is per TB, but metric '" + metric.name +
                      "' does not scale with capacity (per-TB claims are IOPS or bandwidth)");
    per_tb = true;
    s.remove_suffix(3);
    s = trim(s);
    // "50k IOPS/TB", "50kIOPS/TB" and "50k/TB" alike: a rate prefix may stand before "IOPS".
    if (s.size() > 4 && lower(s.substr(s.size() - 4)) == "iops")
      s = trim(s.substr(0, s.size() - 4));
    return parse_claim_value(metric, s, note);
  }
  return parse_claim_value(metric, s, note);
}

double claim_threshold(const Claim& claim, double capacity_bytes) {
  return claim.per_tb ? claim.value * capacity_bytes / 1e12 : claim.value;
}

std::string Claim::workload_label() const {
  return reporting::join_text(workloads, " ") + (job.empty() ? "" : " job " + job);
}

std::vector<std::filesystem::path> spec_sheet_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("--specs " + dir.string() + ": not a directory");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != ".xml") continue;
    pugi::xml_document doc;
    if (doc.load_file(e.path().c_str(), pugi::parse_minimal)) {
      if (std::string_view(doc.document_element().name()) == "spec-sheet")
        files.push_back(e.path());
      continue;
    }
    std::ifstream in(e.path());
    std::string head(4096, '\0');  // the root element may follow a long header comment
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.find("<spec-sheet") != std::string::npos) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string_view match_target(devices::TargetKind kind) {
  switch (kind) {
    case devices::TargetKind::BlockDevice:
      return "block";
    case devices::TargetKind::FileOnDevice:
      return "file";
    case devices::TargetKind::DirectoryOnDevice:
      return "scratch";
  }
  return "block";
}

bool SpecSheet::matches(const std::map<std::string, std::string>& identity) const {
  for (const MatchRule& rule : match) {
    bool all = true;
    for (const auto& [field, pattern] : rule.patterns) {
      auto it = identity.find(field);
      std::string value = it == identity.end() ? std::string() : std::string(trim(it->second));
      if (fnmatch(pattern.c_str(), value.c_str(), FNM_CASEFOLD) != 0) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

std::pair<double, std::string> SpecSheet::nearest_match(
    const std::map<std::string, std::string>& identity) const {
  std::pair<double, std::string> best{0.0, ""};
  for (const MatchRule& rule : match) {
    if (rule.patterns.empty()) continue;
    std::size_t fit = 0;
    std::string text;
    for (const auto& [field, pattern] : rule.patterns) {
      auto it = identity.find(field);
      std::string value = it == identity.end() ? std::string() : std::string(trim(it->second));
      if (fnmatch(pattern.c_str(), value.c_str(), FNM_CASEFOLD) == 0) ++fit;
      text += (text.empty() ? "" : " ") + field + "=\"" + pattern + "\"";
    }
    const double share = static_cast<double>(fit) / static_cast<double>(rule.patterns.size());
    if (best.second.empty() || share > best.first) best = {share, text};
  }
  return best;
}

SpecSheet SpecSheet::load(const std::filesystem::path& path) {
  XmlFile file(path);
  SpecSheet sheet = load_sheet(file);
  sheet.path = path;
  return sheet;
}

SpecSheet SpecSheet::parse(std::string text, std::string display_name) {
  XmlFile file(std::move(text), std::move(display_name));
  return load_sheet(file);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace storqual::runner
