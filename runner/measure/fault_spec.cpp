// SPDX-License-Identifier: Apache-2.0
// Parses the text form of a FaultPlan (see fault_spec.hpp).
#include "runner/measure/fault_spec.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto pos = s.find(sep);
    out.push_back(s.substr(0, pos));
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

std::uint64_t parse_count(std::string_view kind, std::string_view key, std::string_view v) {
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p != v.data() + v.size())
    throw UnitError("--inject-fault " + std::string(kind) + ": " + std::string(key) +
                    " must be a whole number, got '" + std::string(v) + "'");
  return n;
}

double parse_number(std::string_view kind, std::string_view key, std::string_view v) {
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || p != v.data() + v.size() || !(x == x))
    throw UnitError("--inject-fault " + std::string(kind) + ": " + std::string(key) +
                    " must be a number, got '" + std::string(v) + "'");
  return x;
}

int parse_errno(std::string_view v) {
  static const std::map<std::string_view, int> names = {
      {"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EROFS", EROFS},         {"ENXIO", ENXIO},
      {"ENODEV", ENODEV}, {"EINVAL", EINVAL}, {"ETIMEDOUT", ETIMEDOUT}, {"EAGAIN", EAGAIN},
      {"EBUSY", EBUSY},   {"EPERM", EPERM},   {"EILSEQ", EILSEQ},       {"ENOMEM", ENOMEM}};
  if (auto it = names.find(v); it != names.end()) return it->second;
  std::uint64_t n = parse_count("fail", "error", v);
  if (n == 0 || n > 4095)
    throw UnitError("--inject-fault fail: error must be an errno name or 1..4095, got '" +
                    std::string(v) + "'");
  return static_cast<int>(n);
}

using Keys = std::map<std::string_view, std::string_view>;

// Takes the trigger keys out of `keys`.
engines::FaultTrigger take_trigger(std::string_view kind, Keys& keys) {
  engines::FaultTrigger t;
  if (auto it = keys.find("dir"); it != keys.end()) {
    if (it->second == "read") {
      t.writes = false;
    } else if (it->second == "write") {
      t.reads = false;
    } else if (it->second != "both") {
      throw UnitError("--inject-fault " + std::string(kind) +
                      ": dir must be read, write or both, got '" + std::string(it->second) + "'");
    }
    keys.erase(it);
  }
  if (auto it = keys.find("after"); it != keys.end()) {
    t.after = parse_count(kind, "after", it->second);
    keys.erase(it);
  }
  if (auto it = keys.find("count"); it != keys.end()) {
    t.count = parse_count(kind, "count", it->second);
    keys.erase(it);
  }
  if (auto it = keys.find("probability"); it != keys.end()) {
    t.probability = parse_number(kind, "probability", it->second);
    if (!(t.probability >= 0 && t.probability <= 1))
      throw UnitError("--inject-fault " + std::string(kind) + ": probability must be 0..1");
    keys.erase(it);
  }
  return t;
}

std::string_view take(Keys& keys, std::string_view key) {
  auto it = keys.find(key);
  if (it == keys.end()) return {};
  std::string_view v = it->second;
  keys.erase(it);
  return v;
}

std::int64_t parse_signed_size(std::string_view v) {
  bool negative = !v.empty() && v.front() == '-';
  if (negative) v.remove_prefix(1);
  auto n = static_cast<std::int64_t>(parse_size(v));
  return negative ? -n : n;
}

}  // namespace

std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)> fault_injector(
    engines::FaultPlan plan) {
  return [plan = std::move(plan)](std::unique_ptr<engines::Engine> e) {
    return std::unique_ptr<engines::Engine>(
        std::make_unique<engines::FaultEngine>(std::move(e), plan));
  };
}

engines::FaultPlan parse_fault_plan(std::string_view spec) {
  engines::FaultPlan plan;
  if (spec.empty()) throw UnitError("--inject-fault: empty fault list");
  for (std::string_view fault : split(spec, ';')) {
    if (fault.empty()) continue;
    if (fault.starts_with("seed=")) {
      plan.seed = parse_count("seed", "seed", fault.substr(5));
      continue;
    }
    auto colon = fault.find(':');
    std::string_view kind = fault.substr(0, colon);
    Keys keys;
    if (colon != std::string_view::npos) {
      for (std::string_view kv : split(fault.substr(colon + 1), ',')) {
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0)
          throw UnitError("--inject-fault " + std::string(kind) + ": expected key=value, got '" +
                          std::string(kv) + "'");
        keys[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    }
    if (kind == "fail") {
      engines::FaultPlan::Fail f{.when = take_trigger(kind, keys)};
      if (auto e = take(keys, "error"); !e.empty()) f.error = parse_errno(e);
      plan.fail = f;
    } else if (kind == "eagain") {
      engines::FaultPlan::Eagain e{.when = take_trigger(kind, keys)};
      if (auto at = take(keys, "at"); !at.empty()) {
        if (at != "queue" && at != "reap")
          throw UnitError("--inject-fault eagain: at must be queue or reap");
        e.at_queue = at == "queue";
      }
      plan.eagain = e;
    } else if (kind == "stuck") {
      plan.stuck = take_trigger(kind, keys);
    } else if (kind == "drop-write") {
      plan.drop_write = take_trigger(kind, keys);
    } else if (kind == "short") {
      engines::FaultPlan::ShortTransfer s{.when = take_trigger(kind, keys)};
      if (auto b = take(keys, "bytes"); !b.empty())
        s.bytes = static_cast<std::uint32_t>(parse_size(b));
      plan.short_transfer = s;
    } else if (kind == "misdirect") {
      engines::FaultPlan::Misdirect m{.when = take_trigger(kind, keys)};
      if (auto s = take(keys, "shift"); !s.empty()) m.shift = parse_signed_size(s);
      plan.misdirect = m;
    } else if (kind == "bit-flip") {
      plan.bit_flip = take_trigger(kind, keys);
    } else if (kind == "fake-capacity") {
      engines::FaultPlan::FakeCapacity c;
      auto wrap = take(keys, "wrap");
      if (wrap.empty()) throw UnitError("--inject-fault fake-capacity: wrap=SIZE is required");
      c.wrap_at = parse_size(wrap);
      if (c.wrap_at == 0) throw UnitError("--inject-fault fake-capacity: wrap must be > 0");
      if (auto cl = take(keys, "claimed"); !cl.empty()) c.claimed_size = parse_size(cl);
      plan.fake_capacity = c;
    } else if (kind == "latency") {
      engines::FaultPlan::Latency l;
      auto to_ns = [](double s) { return std::chrono::nanoseconds(std::llround(s * 1e9)); };
      if (auto b = take(keys, "base"); !b.empty()) l.base = to_ns(parse_duration(b));
      if (auto p = take(keys, "per_in_flight"); !p.empty())
        l.per_in_flight = to_ns(parse_duration(p));
      if (auto b = take(keys, "bump"); !b.empty()) {
        l.bump = to_ns(parse_duration(b));
        auto from = take(keys, "bump_from"), to = take(keys, "bump_to");
        if (from.empty() || to.empty())
          throw UnitError(
              "--inject-fault latency: bump needs bump_from=N and bump_to=N (requests "
              "in flight)");
        l.bump_from = static_cast<unsigned>(parse_number(kind, "bump_from", from));
        l.bump_to = static_cast<unsigned>(parse_number(kind, "bump_to", to));
        if (l.bump_from > l.bump_to)
          throw UnitError("--inject-fault latency: bump_from must be <= bump_to");
      }
      plan.latency = l;
    } else if (kind == "cliff") {
      engines::FaultPlan::ThroughputCliff c;
      if (auto a = take(keys, "after"); !a.empty()) c.after_bytes = parse_size(a);
      if (auto s = take(keys, "slowdown"); !s.empty())
        c.slowdown = parse_number(kind, "slowdown", s);
      if (!(c.slowdown >= 1)) throw UnitError("--inject-fault cliff: slowdown must be >= 1");
      bool device = false;
      if (auto r = take(keys, "recover"); !r.empty()) {
        c.recover_bytes_per_s = static_cast<double>(parse_size(r));
        device = true;
      }
      if (auto scope = take(keys, "scope"); !scope.empty()) {
        if (scope != "device" && scope != "engine")
          throw UnitError("--inject-fault cliff: scope must be device or engine, got '" +
                          std::string(scope) + "'");
        if (scope == "engine" && device)
          throw UnitError("--inject-fault cliff: recover= needs scope=device");
        device = scope == "device";
      }
      if (device)
        c.state = std::make_shared<engines::CliffState>(c.after_bytes, c.recover_bytes_per_s);
      plan.throughput_cliff = c;
    } else {
      throw UnitError("--inject-fault: unknown fault '" + std::string(kind) +
                      "' (fail, eagain, stuck, drop-write, short, misdirect, bit-flip, "
                      "fake-capacity, latency, cliff)");
    }
    if (!keys.empty())
      throw UnitError("--inject-fault " + std::string(kind) + ": unknown key '" +
                      std::string(keys.begin()->first) + "'");
  }
  return plan;
}

}  // namespace storqual::runner
