// SPDX-License-Identifier: Apache-2.0
// The JSON form of the result model's structs, both directions, for reporting/result_json.cpp and
// for a method's own report (model/method_report.hpp): a struct lists its keys once in a
// `visit_fields(Either<T> auto& t, auto&& visit)` overload in its own namespace (found by argument-
// dependent lookup), and `put(json, key, member)` / `node.get(key, member)` write and read it.
// How a member is written and read follows from its type: doubles that are not finite become
// null, vectors become arrays, structs with a key list become objects, and std::optional members
// are omitted when empty (null reads back as empty). The reader names the JSON path of every
// problem (ResultJsonError, "workloads[1].read.ios: expected a number, got string").
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/result.hpp"
#include "reporting/result_json.hpp"

namespace storqual::reporting::json {

using Json = nlohmann::ordered_json;
using Percentiles = std::vector<std::pair<double, std::uint64_t>>;

// A member's key, and whether the reader refuses a file without it.
struct Key {
  Key(const char* key_name, bool is_required = false) : name(key_name), required(is_required) {}
  const char* name;
  bool required;
};
constexpr bool kRequired = true;

template <class T, class Plain>
concept Either = std::same_as<std::remove_const_t<T>, Plain>;

// A visitor that does nothing, to ask whether a type has a key list.
struct IgnoreMembers {
  template <class M>
  void operator()(Key, M&) const {}
};

template <class T>
concept HasKeyList = requires(T& t) {
  visit_fields(t, IgnoreMembers{});
};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// ---- writing ----

inline Json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

inline std::string percentile_key(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

class Node;
// The two structs with a form of their own (reporting/result_json.cpp).
Json workload_json(const WorkloadResult& w);
Json verdict_json(const ClaimVerdict& v);
WorkloadResult read_workload(const Node& n);
ClaimVerdict read_verdict(const Node& n);
template <class T>
void put(Json& j, const char* key, const T& member);

template <class T>
Json value_json(const T& v) {
  if constexpr (std::is_same_v<T, double>) {
    return number(v);
  } else if constexpr (std::is_same_v<T, Percentiles>) {
    Json p = Json::object();
    for (const auto& [pct, ns] : v) p[percentile_key(pct)] = ns;
    return p;
  } else if constexpr (IsVector<T>::value) {
    Json a = Json::array();
    for (const auto& item : v) a.push_back(value_json(item));
    return a;
  } else if constexpr (std::is_same_v<T, WorkloadResult>) {
    return workload_json(v);
  } else if constexpr (std::is_same_v<T, ClaimVerdict>) {
    return verdict_json(v);
  } else if constexpr (HasKeyList<T>) {
    Json j = Json::object();
    visit_fields(v, [&j](Key key, const auto& member) { put(j, key.name, member); });
    return j;
  } else {
    static_assert(std::is_same_v<T, std::string> || std::is_integral_v<T>, "no JSON form");
    return v;
  }
}

// `j[key] = value_json(member)`, or nothing for an empty std::optional.
template <class T>
void put(Json& j, const char* key, const T& member) {
  if constexpr (IsOptional<T>::value) {
    if (member) j[key] = value_json(*member);
  } else {
    j[key] = value_json(member);
  }
}

// A JSON value and how it was reached, for error messages. The path is spelled out only for an
// error ("workloads[1].read.ios"): building it for every value made reading a third slower. A
// Node refers to its parent, so it must not outlive it.
class Node {
 public:
  explicit Node(const Json& j) : j_(j) {}  // the top level
  Node(const Json& j, const Node& parent, std::string_view key)
      : j_(j), parent_(&parent), key_(key) {}
  Node(const Json& j, const Node& parent, std::size_t index)
      : j_(j), parent_(&parent), index_(index) {}

  [[noreturn]] void fail(const std::string& expected) const {
    const std::string where = path();
    throw ResultJsonError((where.empty() ? std::string("(top level)") : where) + ": expected " +
                          expected + ", got " + j_.type_name());
  }
  const Json& json() const { return j_; }
  std::string path() const {
    if (parent_ == nullptr) return {};
    std::string out = parent_->path();
    if (key_.data() == nullptr) return out + "[" + std::to_string(index_) + "]";
    return out.empty() ? std::string(key_) : out + "." + std::string(key_);
  }

  const Node object() const {
    if (!j_.is_object()) fail("an object");
    return *this;
  }
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  Node at(const char* key) const {
    object();
    auto it = j_.find(key);
    if (it == j_.end()) throw ResultJsonError(Node(j_, *this, key).path() + ": missing (required)");
    return Node(*it, *this, key);
  }
  std::vector<Node> array() const {
    if (!j_.is_array()) fail("an array");
    std::vector<Node> out;
    out.reserve(j_.size());
    for (std::size_t i = 0; i < j_.size(); ++i) out.emplace_back(j_[i], *this, i);
    return out;
  }
  std::string string() const {
    if (!j_.is_string()) fail("a string");
    return j_.get<std::string>();
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("true or false");
    return j_.get<bool>();
  }
  double real() const {
    if (j_.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!j_.is_number()) fail("a number");
    return j_.get<double>();
  }
  std::uint64_t unsigned64() const {
    if (j_.is_number_unsigned()) return j_.get<std::uint64_t>();
    if (j_.is_number_integer()) {
      if (j_.get<std::int64_t>() < 0) fail("a non-negative integer (negative number)");
      return static_cast<std::uint64_t>(j_.get<std::int64_t>());
    }
    if (j_.is_number_float()) {
      const double d = j_.get<double>();
      if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d))
        return static_cast<std::uint64_t>(d);
      fail("a non-negative integer (a fraction or out of range)");
    }
    fail("a non-negative integer");
  }
  unsigned unsigned32() const {
    const auto v = unsigned64();
    if (v > std::numeric_limits<unsigned>::max()) fail("an integer below 2^32");
    return static_cast<unsigned>(v);
  }
  int integer() const {
    if (j_.is_number_integer() || j_.is_number_unsigned()) {
      if (j_.is_number_unsigned() && j_.get<std::uint64_t>() > 0x7fffffffULL)
        fail("an integer in the int range");
      const auto v = j_.get<std::int64_t>();
      if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        fail("an integer in the int range");
      return static_cast<int>(v);
    }
    fail("an integer");
  }

  // The member `key` into `out` (read_value below): absent keeps the default, and so does null
  // for a std::optional. A required key that is absent is an error.
  template <class T>
  void get(Key key, T& out) const;

 private:
  const Json& j_;
  const Node* parent_ = nullptr;
  std::string_view key_;   // a member: its key (null for an array element)
  std::size_t index_ = 0;  // an array element: its index
};

template <class T>
void read_value(const Node& n, T& out) {
  if constexpr (std::is_same_v<T, double>) {
    out = n.real();
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = n.string();
  } else if constexpr (std::is_same_v<T, bool>) {
    out = n.boolean();
  } else if constexpr (std::is_same_v<T, int>) {
    out = n.integer();
  } else if constexpr (std::is_same_v<T, unsigned>) {
    out = n.unsigned32();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    out = n.unsigned64();
  } else if constexpr (std::is_same_v<T, Percentiles>) {
    const Node p = n.object();
    out.clear();
    for (const auto& [key, value] : p.json().items()) {
      char* end = nullptr;
      const double pct = std::strtod(key.c_str(), &end);
      if (key.empty() || end != key.c_str() + key.size() || !(pct >= 0 && pct <= 100))
        throw ResultJsonError(Node(value, p, key).path() +
                              ": a percentile key must be a number 0..100");
      out.emplace_back(pct, Node(value, p, key).unsigned64());
    }
    std::sort(out.begin(), out.end());
  } else if constexpr (IsVector<T>::value) {
    out.clear();
    for (const auto& item : n.array()) read_value(item, out.emplace_back());
  } else if constexpr (std::is_same_v<T, WorkloadResult>) {
    out = read_workload(n);
  } else if constexpr (std::is_same_v<T, ClaimVerdict>) {
    out = read_verdict(n);
  } else {
    static_assert(HasKeyList<T>, "no JSON form");
    n.object();
    visit_fields(out, [&n](Key key, auto& member) { n.get(key, member); });
  }
}

template <class T>
void Node::get(Key key, T& out) const {
  if (!key.required && !has(key.name)) return;
  const Node member = at(key.name);
  if constexpr (IsOptional<T>::value) {
    if (member.json().is_null()) return;
    read_value(member, out.emplace());
  } else {
    read_value(member, out);
  }
}

}  // namespace storqual::reporting::json

namespace storqual::reporting {

// The keys of the model's structs that methods' reports hold too (the SNIA steady-state window,
// integrity findings, named figures); the rest are in reporting/result_json.cpp.
using json::Either;
using json::kRequired;

void visit_fields(Either<SteadyStateRound> auto& r, auto&& visit) {
  visit("value", r.value);
  visit("elapsed_s", r.elapsed_s);
  visit("steady", r.steady);
}

void visit_fields(Either<SteadyStateReport> auto& s, auto&& visit) {
  visit("metric", s.metric);
  visit("rounds", s.rounds);
  visit("max_rounds", s.max_rounds);
  visit("window", s.window);
  visit("round_time_s", s.round_time_s);
  visit("window_first", s.window_first);
  visit("window_last", s.window_last);
  visit("mean", s.mean);
  visit("range", s.range);
  visit("slope", s.slope);
  visit("range_pct", s.range_pct);
  visit("slope_pct", s.slope_pct);
  visit("range_limit_pct", s.range_limit_pct);
  visit("slope_limit_pct", s.slope_limit_pct);
  visit("steady", s.steady);
}

void visit_fields(Either<IntegrityFinding> auto& f, auto&& visit) {
  visit("kind", f.kind);
  visit("offset", f.offset);
  visit("found_offset", f.found_offset);
  visit("expected_sequence", f.expected_sequence);
  visit("found_sequence", f.found_sequence);
}

void visit_fields(Either<Figure> auto& f, auto&& visit) {
  visit({"name", kRequired}, f.name);
  visit("value", f.value);
  visit("unit", f.unit);
}

}  // namespace storqual::reporting
