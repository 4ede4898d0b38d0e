// SPDX-License-Identifier: Apache-2.0
// fio's JSON output read into the result model (see fio_json.hpp).
#include "runner/specs/fio_json.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/measure/tail_samples.hpp"
#include "runner/specs/fio_suite.hpp"

namespace storqual::runner {
namespace {

using Json = nlohmann::json;
using reporting::DirectionResult;
using reporting::LatencySummary;

constexpr int kMaxDepth = 64;  // fio's JSON is 5 levels deep; more is not fio's

// nlohmann's DOM builder with a nesting limit, so that hostile input cannot exhaust the stack.
class DepthLimited : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  explicit DepthLimited(Json& j) : json_sax_dom_parser(j) {}
  bool start_object(std::size_t n) { return enter() && json_sax_dom_parser::start_object(n); }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool start_array(std::size_t n) { return enter() && json_sax_dom_parser::start_array(n); }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }
  [[nodiscard]] bool too_deep() const { return too_deep_; }

 private:
  bool enter() {
    if (++depth_ <= kMaxDepth) return true;
    too_deep_ = true;
    return false;
  }
  int depth_ = 0;
  bool too_deep_ = false;
};

// One place names the file and the key that is wrong.
struct Reader {
  std::string file;
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw FileError(file + ": " + where + ": " + what);
  }
  const Json* member(const Json& o, const std::string& where, const char* key) const {
    if (!o.is_object()) fail(where, "expected an object");
    auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  }
  double number(const Json& o, const std::string& where, const char* key) const {
    const Json* v = member(o, where, key);
    if (!v) return 0;
    if (!v->is_number()) fail(where + "." + key, "expected a number");
    const double d = v->get<double>();
    // fio's figures are counts, rates and nanoseconds: never negative, far below 1e20.
    if (!std::isfinite(d) || d < 0 || d > 1e20)
      fail(where + "." + key, "expected a number from 0 to 1e20");
    return d;
  }
  std::uint64_t count(const Json& o, const std::string& where, const char* key) const {
    const Json* v = member(o, where, key);
    if (!v) return 0;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(v->get<std::int64_t>());
    fail(where + "." + key, "expected a whole number of at least 0");
  }
  std::string text(const Json& o, const std::string& where, const char* key) const {
    const Json* v = member(o, where, key);
    if (!v) return "";
    if (!v->is_string()) fail(where + "." + key, "expected a string");
    return v->get<std::string>();
  }
  std::map<std::string, std::string> options(const Json& o, const std::string& where,
                                             const char* key) const {
    std::map<std::string, std::string> out;
    const Json* v = member(o, where, key);
    if (!v) return out;
    if (!v->is_object()) fail(where + "." + key, "expected an object of options");
    for (const auto& [name, value] : v->items()) {
      if (!value.is_string()) fail(where + "." + key + "." + name, "expected a string");
      out[name] = value.get<std::string>();
    }
    return out;
  }
};

std::string option(const std::map<std::string, std::string>& o, const char* name,
                   const char* alias = nullptr) {
  if (auto it = o.find(name); it != o.end()) return it->second;
  if (alias)
    if (auto it = o.find(alias); it != o.end()) return it->second;
  return "";
}

bool reads(const std::string& rw) {
  return rw == "read" || rw == "randread" || rw == "rw" || rw == "readwrite" || rw == "randrw";
}
bool writes(const std::string& rw) {
  return rw == "write" || rw == "randwrite" || rw == "rw" || rw == "readwrite" || rw == "randrw";
}

// A job's parameters from its effective options, with fio's defaults (rw=read, bs=4k, psync,
// buffered); a value that is not fio's spelling of one is an error naming the job and option.
reporting::WorkloadParams params_of(const std::map<std::string, std::string>& o, const Reader& in,
                                    const std::string& where) {
  reporting::WorkloadParams p;
  p.rw = "read";
  p.ioengine = "psync";
  p.direct = false;
  p.randommap = o.find("norandommap") == o.end();
  const std::string rw = option(o, "rw", "readwrite");
  if (!rw.empty()) p.rw = rw.substr(0, rw.find(':'));
  if (p.rw == "readwrite") p.rw = "rw";
  // Sizes as fio read them (kb_base included); the message names the file, the job and option.
  const unsigned kb_base = option(o, "kb_base") == "1000" ? 1000 : 1024;
  auto size = [&](const char* name, const std::string& v) -> std::uint64_t {
    return fio_size(name, v, kb_base, in.file + ": " + where);
  };
  auto whole = [&](const char* name, const std::string& v) -> unsigned {
    const std::uint64_t n = size(name, v);
    if (n == 0 || n > 1u << 20)
      in.fail(where, std::string("option '") + name + "=" + v + "': expected 1 to 1048576");
    return static_cast<unsigned>(n);
  };
  if (std::string bs = option(o, "bs", "blocksize"); !bs.empty()) {
    // bs=R,W: the size of the direction the job does (a mix takes the read size).
    const auto comma = bs.find(',');
    if (comma != std::string::npos)
      bs = reads(p.rw) ? bs.substr(0, comma)
                       : bs.substr(comma + 1, bs.find(',', comma + 1) - comma - 1);
    p.bs = size("bs", bs);
  }
  if (auto v = option(o, "iodepth"); !v.empty()) p.iodepth = whole("iodepth", v);
  if (auto v = option(o, "numjobs"); !v.empty()) p.numjobs = whole("numjobs", v);
  if (auto v = option(o, "rwmixread"); !v.empty())
    p.rwmixread = std::min(100u, whole("rwmixread", v));
  else if (auto w = option(o, "rwmixwrite"); !w.empty())
    p.rwmixread = 100 - std::min(100u, whole("rwmixwrite", w));
  if (auto v = option(o, "size"); !v.empty()) p.size = size("size", v);
  if (auto v = option(o, "offset"); !v.empty()) p.offset = size("offset", v);
  for (const char* name : {"runtime", "ramp_time"}) {
    const std::string v = option(o, name);
    if (v.empty()) continue;
    try {
      (std::strcmp(name, "runtime") == 0 ? p.runtime_s : p.ramp_time_s) = parse_duration(v);
    } catch (const UnitError& e) {
      in.fail(where, std::string("option ") + name + "='" + v + "': " + e.what());
    }
  }
  if (auto v = option(o, "ioengine"); !v.empty()) p.ioengine = v;
  if (auto it = o.find("direct"); it != o.end()) p.direct = it->second != "0";
  if (auto it = o.find("buffered"); it != o.end()) p.direct = it->second == "0";
  p.target = option(o, "filename");
  return p;
}

// A percentile as fio's JSON and the result JSON key it ("99.990000").
std::string pct_key(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

// Whether `s` has percentile p already (the same key).
bool listed(const LatencySummary& s, double p) {
  const std::string key = pct_key(p);
  return std::any_of(s.percentiles.begin(), s.percentiles.end(),
                     [&](const auto& e) { return pct_key(e.first) == key; });
}

// One latency kind (slat_ns, clat_ns, lat_ns) with its percentiles: fio's list, and with json+
// bins every claimable one computed from them.
LatencySummary latency_of(const Json& dir, const Reader& in, const std::string& where,
                          const char* key,
                          std::vector<std::pair<std::uint64_t, std::uint64_t>>* bins_out) {
  LatencySummary s;
  const Json* o = in.member(dir, where, key);
  if (!o) return s;
  const std::string at = where + "." + key;
  s.samples = in.count(*o, at, "N");
  s.min_ns = in.count(*o, at, "min");
  s.max_ns = in.count(*o, at, "max");
  s.mean_ns = in.number(*o, at, "mean");
  s.stdev_ns = in.number(*o, at, "stddev");
  if (const Json* list = in.member(*o, at, "percentile")) {
    if (!list->is_object()) in.fail(at + ".percentile", "expected an object");
    for (const auto& [p, v] : list->items()) {
      char* end = nullptr;
      const double pct = std::strtod(p.c_str(), &end);
      if (end == p.c_str() || *end != '\0' || !(pct > 0 && pct <= 100))
        in.fail(at + ".percentile", "'" + p + "' is not a percentile");
      // fio writes each of its list once, as "%f"; the result JSON keys them so too.
      if (listed(s, pct))
        in.fail(at + ".percentile", "'" + p + "' lists the percentile " + pct_key(pct) + " again");
      s.percentiles.emplace_back(pct, in.count(*list, at + ".percentile", p.c_str()));
    }
  }
  if (const Json* bins = in.member(*o, at, "bins")) {
    if (!bins->is_object()) in.fail(at + ".bins", "expected an object");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> b;
    for (const auto& [value, n] : bins->items()) {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
          value.size() > 19)
        in.fail(at + ".bins", "'" + value + "' is not a latency in ns");
      b.emplace_back(std::stoull(value), in.count(*bins, at + ".bins", value.c_str()));
    }
    for (const auto& computed : fio_bin_percentiles(b, s.samples, kClaimablePercentiles))
      if (!listed(s, computed.first)) s.percentiles.push_back(computed);
    if (bins_out) *bins_out = std::move(b);
  }
  std::sort(s.percentiles.begin(), s.percentiles.end());
  return s;
}

// The read or write side of one entry, and its bins (to sum numjobs copies exactly).
struct Side {
  DirectionResult d;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> bins[3];  // slat, clat, lat
  double runtime_ms = 0;
};

Side side_of(const Json& dir, const Reader& in, const std::string& where) {
  Side s;
  s.d.ios = in.count(dir, where, "total_ios");
  s.d.bytes = in.count(dir, where, "io_bytes");
  s.d.iops = in.number(dir, where, "iops");
  s.d.bw_bytes = in.number(dir, where, "bw_bytes");
  s.d.short_ios = in.count(dir, where, "short_ios");
  s.runtime_ms = in.number(dir, where, "runtime");
  s.d.slat = latency_of(dir, in, where, "slat_ns", &s.bins[0]);
  s.d.clat = latency_of(dir, in, where, "clat_ns", &s.bins[1]);
  s.d.lat = latency_of(dir, in, where, "lat_ns", &s.bins[2]);
  return s;
}

// fio's command line for the job, from its effective options (the reports' "fio command").
std::string command_of(const std::string& name, const std::map<std::string, std::string>& o) {
  std::string out = "fio --name=" + name;
  for (const auto& [k, v] : o)
    if (k != "name") out += " --" + k + (v.empty() ? "" : "=" + v);
  return out;
}

struct Entry {
  FioJsonJob job;
  Side read, write;
};

// fio's "steadystate" object (stat.c, a job with ss_dur) as the result's: fio ends a job when its
// criterion is attained, so it was attained at the job's runtime.
std::optional<reporting::FioSteadyStateReport> steadystate_of(const Json& j, const Reader& in,
                                                              const std::string& where,
                                                              double elapsed_s) {
  const Json* s = in.member(j, where, "steadystate");
  if (!s) return std::nullopt;
  const std::string at = where + ".steadystate";
  reporting::FioSteadyStateReport r;
  r.ss = in.text(*s, at, "ss");
  r.duration = static_cast<unsigned>(std::min<std::uint64_t>(in.count(*s, at, "duration"), 86400));
  r.attained = in.count(*s, at, "attained") != 0;
  r.attained_at_s = r.attained ? elapsed_s : -1;
  const std::string criterion = in.text(*s, at, "criterion");  // "14.006352%"
  r.percent = criterion.ends_with("%");
  r.criterion = std::strtod(criterion.c_str(), nullptr);
  if (!std::isfinite(r.criterion)) in.fail(at + ".criterion", "expected a number");
  r.max_deviation = in.number(*s, at, "max_deviation");
  if (const Json* slope = in.member(*s, at, "slope"); slope && slope->is_number())
    r.slope = slope->get<double>();  // a slope may be negative
  if (const Json* data = in.member(*s, at, "data")) {
    for (auto [key, out] : {std::pair{"iops", &r.iops}, std::pair{"bw", &r.bw}})
      if (const Json* a = in.member(*data, at + ".data", key)) {
        if (!a->is_array()) in.fail(at + ".data." + key, "expected an array");
        for (const Json& v : *a) {
          if (!v.is_number_unsigned() || out->size() >= 86400)
            in.fail(at + ".data." + key, "expected at most 86400 whole numbers of at least 0");
          out->push_back(v.get<std::uint64_t>());
        }
      }
    r.iops_mean = in.count(*data, at + ".data", "iops_mean");
    r.bw_mean = in.count(*data, at + ".data", "bw_mean");
  }
  r.samples = static_cast<unsigned>(r.iops.size());
  return r;
}

Entry entry_of(const Json& j, const std::map<std::string, std::string>& global, const Reader& in,
               const std::string& where) {
  Entry e;
  FioJsonJob& job = e.job;
  job.name = in.text(j, where, "jobname");
  if (job.name.empty()) in.fail(where, "no 'jobname'");
  job.hostname = in.text(j, where, "hostname");
  job.all_clients = job.name == "All clients" && in.member(j, where, "hostname");
  job.groupid = static_cast<int>(std::min<std::uint64_t>(in.count(j, where, "groupid"), 1 << 30));
  job.options = global;
  for (auto& [k, v] : in.options(j, where, "job options")) job.options[k] = v;
  reporting::WorkloadResult& r = job.result;
  r.id = job.name;
  r.params = params_of(job.options, in, where + " (job '" + job.name + "')");
  r.fio_command = command_of(job.name, job.options);
  const auto error = in.count(j, where, "error");
  if (error != 0)
    r.errors.push_back("fio reported error " + std::to_string(error) + " (" +
                       std::strerror(static_cast<int>(std::min<std::uint64_t>(error, 4095))) +
                       ") for job '" + job.name + "'");
  const std::string rw = r.params.rw;
  for (auto [key, side] : {std::pair{"read", &e.read}, std::pair{"write", &e.write}}) {
    const Json* dir = in.member(j, where, key);
    if (dir) *side = side_of(*dir, in, where + "." + key);
  }
  if (reads(rw) || e.read.d.ios) r.read = e.read.d;
  if (writes(rw) || e.write.d.ios) r.write = e.write.d;
  r.cpu.usr_pct = in.number(j, where, "usr_cpu");
  r.cpu.sys_pct = in.number(j, where, "sys_cpu");
  // The directions' runtime (ms); job_runtime is summed over a group's jobs, so only a fallback.
  const double job_ms = in.number(j, where, "job_runtime");
  r.elapsed_s = std::max(e.read.runtime_ms, e.write.runtime_ms) / 1000.0;
  if (r.elapsed_s == 0) r.elapsed_s = job_ms / 1000.0;
  r.steadystate = steadystate_of(j, in, where, r.elapsed_s);
  return e;
}

// Two latency summaries of copies of one job together: exact counts, extremes, mean and standard
// deviation; percentiles only from bins (fio's lists of two jobs cannot be merged).
LatencySummary merge_latency(const LatencySummary& a, const LatencySummary& b,
                             std::vector<std::pair<std::uint64_t, std::uint64_t>>& bins_a,
                             const std::vector<std::pair<std::uint64_t, std::uint64_t>>& bins_b) {
  if (b.samples == 0) return a;
  if (a.samples == 0) {
    bins_a = bins_b;
    return b;
  }
  LatencySummary m;
  m.samples = a.samples + b.samples;
  m.min_ns = std::min(a.min_ns, b.min_ns);
  m.max_ns = std::max(a.max_ns, b.max_ns);
  const double na = static_cast<double>(a.samples), nb = static_cast<double>(b.samples);
  m.mean_ns = (a.mean_ns * na + b.mean_ns * nb) / (na + nb);
  const double second = (na * (a.stdev_ns * a.stdev_ns + a.mean_ns * a.mean_ns) +
                         nb * (b.stdev_ns * b.stdev_ns + b.mean_ns * b.mean_ns)) /
                        (na + nb);
  m.stdev_ns = std::sqrt(std::max(0.0, second - m.mean_ns * m.mean_ns));
  if (bins_a.empty() || bins_b.empty()) {
    bins_a.clear();
    return m;
  }
  bins_a.insert(bins_a.end(), bins_b.begin(), bins_b.end());
  std::vector<double> list(kFioPercentiles.begin(), kFioPercentiles.end());
  for (double p : kClaimablePercentiles)
    if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
  std::sort(list.begin(), list.end());
  m.percentiles = fio_bin_percentiles(bins_a, m.samples, list);
  return m;
}

void merge_side(Side& into, const Side& more) {
  into.d.ios += more.d.ios;
  into.d.bytes += more.d.bytes;
  into.d.iops += more.d.iops;
  into.d.bw_bytes += more.d.bw_bytes;
  into.d.short_ios += more.d.short_ios;
  into.runtime_ms = std::max(into.runtime_ms, more.runtime_ms);
  into.d.slat = merge_latency(into.d.slat, more.d.slat, into.bins[0], more.bins[0]);
  into.d.clat = merge_latency(into.d.clat, more.d.clat, into.bins[1], more.bins[1]);
  into.d.lat = merge_latency(into.d.lat, more.d.lat, into.bins[2], more.bins[2]);
}

// numjobs copies that fio reported one by one (no group_reporting): one result, as a storqual
// workload of numjobs jobs is one.
void add_copy(Entry& into, const Entry& more) {
  merge_side(into.read, more.read);
  merge_side(into.write, more.write);
  reporting::WorkloadResult& r = into.job.result;
  if (r.read || more.job.result.read) r.read = into.read.d;  // a group's jobs: either direction
  if (r.write || more.job.result.write) r.write = into.write.d;
  r.cpu.usr_pct += more.job.result.cpu.usr_pct;
  r.cpu.sys_pct += more.job.result.cpu.sys_pct;
  r.elapsed_s = std::max(r.elapsed_s, more.job.result.elapsed_s);
  for (const auto& e : more.job.result.errors) r.errors.push_back(e);
  ++into.job.entries;
}

// fio's groups of different jobs (the entries of one host with one groupid and several jobnames):
// each one result of them all, as a storqual group's (add_copy: counts and rates added, latency
// pooled, percentiles from the summed bins), with the jobs' own results in `result.jobs`.
std::vector<FioJsonJob> groups_of(const std::vector<Entry>& entries) {
  std::vector<FioJsonJob> groups;
  std::vector<bool> done(entries.size(), false);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (done[i] || entries[i].job.all_clients) continue;
    Entry sum = entries[i];
    std::vector<reporting::WorkloadResult> jobs = {entries[i].job.result};
    for (std::size_t k = i + 1; k < entries.size(); ++k) {
      const FioJsonJob& other = entries[k].job;
      if (done[k] || other.all_clients || other.groupid != sum.job.groupid ||
          other.hostname != sum.job.hostname)
        continue;
      done[k] = true;
      add_copy(sum, entries[k]);
      sum.job.result.params.numjobs += other.result.params.numjobs;
      jobs.push_back(other.result);
    }
    if (jobs.size() < 2) continue;
    sum.job.name = "group " + std::to_string(sum.job.groupid);
    sum.job.result.id = sum.job.name;
    sum.job.result.jobs = std::move(jobs);
    groups.push_back(std::move(sum.job));
  }
  return groups;
}

}  // namespace

std::vector<std::pair<double, std::uint64_t>> fio_bin_percentiles(
    std::vector<std::pair<std::uint64_t, std::uint64_t>> bins, std::uint64_t samples,
    std::span<const double> percentiles) {
  std::sort(bins.begin(), bins.end());
  std::vector<std::pair<double, std::uint64_t>> out;
  std::size_t j = 0;
  unsigned long long sum = 0;
  for (const auto& [value, n] : bins) {
    if (j == percentiles.size()) break;
    sum += n;
    // stat.c: while (sum >= ((long double) plist[j].u.f / 100.0 * nr))
    while (j < percentiles.size() &&
           static_cast<long double>(sum) >= static_cast<long double>(percentiles[j]) / 100.0L *
                                                static_cast<long double>(samples)) {
      out.emplace_back(percentiles[j], value);
      ++j;
    }
  }
  return out;
}

std::vector<std::string> FioJsonOutput::hosts() const {
  std::vector<std::string> out;
  for (const auto& j : jobs)
    if (!j.hostname.empty() && !j.all_clients &&
        std::find(out.begin(), out.end(), j.hostname) == out.end())
      out.push_back(j.hostname);
  return out;
}

FioJsonOutput parse_fio_json(std::string_view text, const std::string& file) {
  const Reader in{file};
  FioJsonOutput out;
  const auto start = text.find('{');
  if (start == std::string_view::npos)
    throw FileError(file + ": no JSON object in it (fio --output-format=json writes one)");
  if (start > 0) {
    const std::string_view before = text.substr(0, start);
    const std::string first(before.substr(0, std::min(before.find('\n'), std::size_t{120})));
    out.notes.push_back("skipped " + std::to_string(before.size()) +
                        " bytes of text before the JSON (fio's messages), from: " + first);
  }
  Json top;
  DepthLimited builder(top);
  bool ok = false;
  try {
    const std::string_view json = text.substr(start);
    // Not strict: fio may print more text after the object (client/server output).
    ok = Json::sax_parse(json.begin(), json.end(), &builder, Json::input_format_t::json, false);
  } catch (const Json::exception& e) {
    throw FileError(file + ": not valid JSON: " + e.what());
  }
  if (builder.too_deep())
    throw FileError(file + ": JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (!ok || !top.is_object()) throw FileError(file + ": not valid JSON (fio writes one object)");
  out.version = in.text(top, "top level", "fio version");
  if (out.version.empty())
    throw FileError(file + ": no \"fio version\": not the JSON of fio --output-format=json");
  const auto global = in.options(top, "top level", "global options");
  const char* key = top.contains("client_stats") ? "client_stats" : "jobs";
  const Json* list = in.member(top, "top level", key);
  if (!list || !list->is_array() || list->empty())
    throw FileError(file + ": no \"jobs\" (or \"client_stats\") with at least one job");
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < list->size(); ++i) {
    Entry e = entry_of((*list)[i], global, in, std::string(key) + "[" + std::to_string(i) + "]");
    auto same = std::find_if(entries.begin(), entries.end(), [&](const Entry& x) {
      return x.job.name == e.job.name && x.job.groupid == e.job.groupid &&
             x.job.hostname == e.job.hostname && !e.job.all_clients;
    });
    if (same != entries.end())
      add_copy(*same, e);
    else
      entries.push_back(std::move(e));
  }
  for (auto& e : entries)
    if (e.job.entries > 1)
      out.notes.push_back("job '" + e.job.name + "': " + std::to_string(e.job.entries) +
                          " entries (numjobs without group_reporting) summed into one result");
  out.groups = groups_of(entries);
  for (auto& e : entries) out.jobs.push_back(std::move(e.job));
  return out;
}

FioJsonOutput load_fio_json(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FileError(path.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << f.rdbuf();
  return parse_fio_json(s.str(), path.string());
}

}  // namespace storqual::runner
