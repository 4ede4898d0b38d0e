// SPDX-License-Identifier: Apache-2.0
// SCSI health rows, changes and failures (see scsi_health.hpp).
#include "devices/scsi_health.hpp"

#include <cstdio>

namespace storqual::devices {
namespace {

struct Direction {
  const char* name;
  std::optional<ScsiErrorCounters> ScsiHealth::*counters;
};

constexpr Direction kDirections[] = {
    {"read", &ScsiHealth::read}, {"write", &ScsiHealth::write}, {"verify", &ScsiHealth::verify}};

std::string ie_text(const ScsiHealth& h) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "ASC %02xh ASCQ %02xh", h.ie_asc.value_or(0),
                h.ie_ascq.value_or(0));
  return std::string(h.failure_predicted() ? "failure predicted (" : "none (") + buf + ")";
}

std::string self_test_text(const ScsiSelfTest& t) {
  return "code " + std::to_string(t.code) + ": " + t.result_text() + " at " +
         std::to_string(t.hours) + " h" +
         (t.failed() ? ", first failure LBA " + std::to_string(t.first_failure_lba) : "");
}

std::uint64_t uncorrected(const ScsiHealth& h, const Direction& d) {
  const auto& c = h.*d.counters;
  return c && c->uncorrected ? *c->uncorrected : 0;
}

std::size_t failed_self_tests(const ScsiHealth& h) {
  std::size_t n = 0;
  for (const auto& t : h.self_tests) n += t.failed();
  return n;
}

std::string change(const std::string& what, std::uint64_t a, std::uint64_t b) {
  return what + " " + std::to_string(a) + " -> " + std::to_string(b) + " (+" +
         std::to_string(b - a) + ")";
}

// "grown defects 0 -> 3 (+3)", or in bytes for a vendor-specific format.
std::string grown_defects_change(const ScsiDefectList& a, const ScsiDefectList& b) {
  if (a.count && b.count) return change("grown defects", *a.count, *b.count);
  return change("grown defect list bytes", a.list_bytes, b.list_bytes);
}

// Which of the grown defect list and REQUEST SENSE findings were named already.
struct DefectSenseFound {
  bool sense = false, arrival = false, growth = false;
};

// The findings of the grown defect list and REQUEST SENSE at reading `r` (index `i`, 0 the one
// before the run): a failure prediction, defects at arrival, growth against `before`; each once.
void defect_and_sense_failures(const ScsiHealth& before, const ScsiHealth& r, std::size_t i,
                               const std::string& when, DefectSenseFound& found,
                               std::vector<std::string>& out) {
  if (!found.sense && r.sense_failure_predicted()) {
    out.push_back("REQUEST SENSE: " + request_sense_text(*r.request_sense) + when);
    found.sense = true;
  }
  if (!r.grown_defects) return;
  if (i == 0 && !found.arrival && r.grown_defects->list_bytes > 0) {
    out.push_back("grown defect list not empty at arrival: " + r.grown_defects->text() +
                  (r.grown_defects->count ? " entries" : "") + when);
    found.arrival = true;
  } else if (i > 0 && !found.growth && before.grown_defects &&
             r.grown_defects->list_bytes > before.grown_defects->list_bytes) {
    out.push_back("new " + grown_defects_change(*before.grown_defects, *r.grown_defects) + when);
    found.growth = true;
  }
}

}  // namespace

std::vector<IdentityRow> scsi_health_rows(const ScsiHealth& h, const std::string& source) {
  std::vector<IdentityRow> rows;
  auto add = [&](std::string field, std::string value) {
    rows.push_back({std::move(field), std::move(value), source});
  };
  if (h.ie_asc) add("failure_prediction", ie_text(h));
  if (h.temperature_c) add("temperature_c", std::to_string(*h.temperature_c));
  if (h.reference_temperature_c)
    add("reference_temperature_c", std::to_string(*h.reference_temperature_c));
  if (h.start_stop_cycles) add("start_stop_cycles", std::to_string(*h.start_stop_cycles));
  if (h.specified_start_stop_cycles)
    add("specified_start_stop_cycles", std::to_string(*h.specified_start_stop_cycles));
  for (const auto& d : kDirections) {
    const auto& c = h.*d.counters;
    if (!c) continue;
    auto put = [&](const char* field, const std::optional<std::uint64_t>& v) {
      if (v) add(std::string(d.name) + "." + field, std::to_string(*v));
    };
    put("corrected_fast", c->corrected_fast);
    put("corrected_delayed", c->corrected_delayed);
    put("rereads_rewrites", c->rereads);
    put("corrected_total", c->corrected_total);
    put("algorithm_invocations", c->algorithm_invocations);
    put("bytes_processed", c->bytes_processed);
    put("uncorrected", c->uncorrected);
  }
  if (h.non_medium_errors) add("non_medium_errors", std::to_string(*h.non_medium_errors));
  if (h.grown_defects) add("grown_defects", h.grown_defects->text());
  if (h.request_sense) add("request_sense", request_sense_text(*h.request_sense));
  add("self_test_last", h.self_tests.empty() ? "none logged" : self_test_text(h.self_tests[0]));
  add("self_test_entries", std::to_string(h.self_tests.size()));
  for (const auto& n : h.notes) add("note", n);
  if (!h.grown_defects) add("note", "grown defect list not readable: " + h.grown_defects_gap);
  if (!h.request_sense) add("note", "REQUEST SENSE not readable: " + h.request_sense_gap);
  return rows;
}

std::vector<std::string> scsi_health_changes(const ScsiHealth& before, const ScsiHealth& after) {
  std::vector<std::string> out;
  if (after.failure_predicted() && !before.failure_predicted())
    out.push_back("failure prediction raised: " + ie_text(after));
  for (const auto& d : kDirections) {
    const auto &a = before.*d.counters, &b = after.*d.counters;
    if (!a || !b) continue;
    if (b->uncorrected > a->uncorrected && a->uncorrected)
      out.push_back(
          change(std::string(d.name) + " uncorrected errors", *a->uncorrected, *b->uncorrected));
    if (b->corrected_total > a->corrected_total && a->corrected_total)
      out.push_back(change(std::string(d.name) + " corrected errors", *a->corrected_total,
                           *b->corrected_total));
  }
  if (before.non_medium_errors && after.non_medium_errors &&
      *after.non_medium_errors > *before.non_medium_errors)
    out.push_back(change("non-medium errors", *before.non_medium_errors, *after.non_medium_errors));
  if (before.grown_defects && after.grown_defects &&
      after.grown_defects->list_bytes > before.grown_defects->list_bytes)
    out.push_back(grown_defects_change(*before.grown_defects, *after.grown_defects));
  if (after.sense_failure_predicted() && !before.sense_failure_predicted())
    out.push_back("REQUEST SENSE: " + request_sense_text(*after.request_sense));
  if (after.self_tests.size() > before.self_tests.size())
    out.push_back("new self-test: " + self_test_text(after.self_tests[0]));
  if (before.temperature_c && after.temperature_c)
    out.push_back("temperature " + std::to_string(*before.temperature_c) + " C before, " +
                  std::to_string(*after.temperature_c) + " C after");
  return out;
}

std::vector<std::string> scsi_health_failures(const ScsiHealth& before,
                                              const std::vector<const ScsiHealth*>& during,
                                              const std::vector<std::string>& during_labels) {
  std::vector<std::string> out;
  std::vector<const ScsiHealth*> readings{&before};
  std::vector<std::string> labels{"before the run"};
  readings.insert(readings.end(), during.begin(), during.end());
  labels.insert(labels.end(), during_labels.begin(), during_labels.end());
  labels.resize(readings.size());
  bool predicted = false, self_test = false;
  DefectSenseFound found;
  bool grown[std::size(kDirections)] = {};
  for (std::size_t i = 0; i < readings.size(); ++i) {
    const ScsiHealth& r = *readings[i];
    const std::string when = labels[i].empty() ? "" : " (" + labels[i] + ")";
    if (!predicted && r.failure_predicted()) {
      out.push_back("informational exception: " + ie_text(r) + when);
      predicted = true;
    }
    defect_and_sense_failures(before, r, i, when, found, out);
    if (i == 0) continue;
    for (std::size_t k = 0; k < std::size(kDirections); ++k) {
      const auto a = uncorrected(before, kDirections[k]), b = uncorrected(r, kDirections[k]);
      if (!grown[k] && b > a) {
        out.push_back(
            "new " + change(std::string(kDirections[k].name) + " uncorrected errors", a, b) + when);
        grown[k] = true;
      }
    }
    if (!self_test && failed_self_tests(r) > failed_self_tests(before)) {
      out.push_back("a self-test failed: " + self_test_text(r.self_tests[0]) + when);
      self_test = true;
    }
  }
  return out;
}

std::string scsi_health_summary(const ScsiHealth& after) {
  std::string counts;
  for (const auto& d : kDirections)
    if ((after.*d.counters) && (after.*d.counters)->uncorrected)
      counts += std::string(counts.empty() ? "" : ", ") + d.name + " " +
                std::to_string(uncorrected(after, d));
  return "no failure predicted, no new uncorrected error, no failed self-test" +
         std::string(after.grown_defects ? ", no grown defect" : "") +
         (counts.empty() ? std::string() : " (uncorrected: " + counts + ")");
}

}  // namespace storqual::devices
