// SPDX-License-Identifier: Apache-2.0
// ATA health rows, changes and failures (see ata_health.hpp).
#include "devices/ata_health.hpp"

#include <cstdio>

namespace storqual::devices {
namespace {

struct FailureCount {
  std::uint8_t id;
  const char* what;
};

// The counts whose growth fails a run: the medium lost sectors or could not read them.
constexpr FailureCount kFailureCounts[] = {
    {kAtaReallocated, "reallocated sectors (5)"},
    {kAtaReportedUncorrect, "reported uncorrectable errors (187)"},
    {kAtaPending, "pending sectors (197)"},
    {kAtaOfflineUncorrectable, "offline uncorrectable sectors (198)"},
};

// The counts of sectors the drive cannot read at all now.
constexpr FailureCount kUnreadableCounts[] = {
    {kAtaPending, "pending sectors (197)"},
    {kAtaOfflineUncorrectable, "offline uncorrectable sectors (198)"},
};

std::string id3(std::uint8_t id) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%03u", id);
  return buf;
}

std::string when_failed(const AtaAttribute& a) {
  if (a.failing_now()) return "FAILING_NOW";
  if (a.failed_in_past()) return "In_the_past";
  return "-";
}

std::string attribute_value(const AtaAttribute& a) {
  return "value " + std::to_string(a.value) + ", worst " + std::to_string(a.worst) +
         ", threshold " + (a.threshold ? std::to_string(*a.threshold) : std::string("-")) + ", " +
         (a.prefailure() ? "Pre-fail" : "Old_age") + ", raw " + a.raw_text + ", when failed " +
         when_failed(a);
}

std::string count_change(const char* what, std::uint64_t a, std::uint64_t b) {
  return std::string(what) + " " + std::to_string(a) + " -> " + std::to_string(b) + " (+" +
         std::to_string(b - a) + ")";
}

std::size_t failed_self_tests(const AtaSmart& s) {
  std::size_t n = 0;
  for (const auto& t : s.self_tests) n += t.failed();
  return n;
}

std::string failing_attribute(const AtaAttribute& a) {
  return std::string(a.prefailure() ? "pre-failure" : "old-age") + " attribute " +
         std::to_string(a.id) + " " + a.name + " at or below its threshold (value " +
         std::to_string(a.value) + ", threshold " + std::to_string(a.threshold.value_or(0)) + ")";
}

}  // namespace

std::vector<IdentityRow> ata_health_rows(const AtaSmart& s, const std::string& source) {
  std::vector<IdentityRow> rows;
  auto add = [&](std::string field, std::string value) {
    rows.push_back({std::move(field), std::move(value), source});
  };
  add("smart_status", to_string(s.status));
  if (auto h = s.power_on_hours()) add("power_on_hours", std::to_string(*h));
  if (auto t = s.temperature_c()) add("temperature_c", std::to_string(*t));
  add("error_log_count",
      s.error_count ? std::to_string(*s.error_count) : "not read: " + s.error_log_note);
  if (!s.self_test_note.empty()) {
    add("self_test_last", "not read: " + s.self_test_note);
  } else if (s.self_tests.empty()) {
    add("self_test_last", "none logged");
  } else {
    const AtaSelfTestEntry& t = s.self_tests.front();
    add("self_test_last",
        t.test_name() + ": " + t.status_text() + " at " + std::to_string(t.hours) + " h" +
            (t.failed() ? ", first failing LBA " + std::to_string(t.failing_lba) : std::string()));
  }
  add("self_test_entries", std::to_string(s.self_tests.size()));
  if (!s.data_checksum_ok) add("smart_data_checksum", "wrong (the page is read as it is)");
  if (!s.thresholds_checksum_ok) add("smart_thresholds_checksum", "wrong (read as it is)");
  for (const auto& a : s.attributes) add("attr." + id3(a.id) + "." + a.name, attribute_value(a));
  return rows;
}

std::string ata_interface_note(const AtaSmart& before, const AtaSmart& after) {
  auto a = before.raw(kAtaUdmaCrc), b = after.raw(kAtaUdmaCrc);
  if (!a || !b || *b <= *a) return {};
  return count_change("UDMA CRC errors", *a, *b) + ": the cable or backplane, not the drive";
}

std::vector<std::string> ata_health_changes(const AtaSmart& before, const AtaSmart& after) {
  std::vector<std::string> out;
  if (before.status != after.status)
    out.push_back(std::string("SMART status ") + to_string(before.status) + " -> " +
                  to_string(after.status));
  for (const auto& c : kFailureCounts) {
    auto a = before.sector_count(c.id), b = after.sector_count(c.id);
    if (a && b && *b > *a) out.push_back(count_change(c.what, *a, *b));
  }
  for (const auto& attr : after.attributes) {
    const AtaAttribute* was = before.find(attr.id);
    if (attr.failing_now() && !(was && was->failing_now()))
      out.push_back("now failing: " + failing_attribute(attr));
  }
  if (before.error_count && after.error_count && *after.error_count > *before.error_count)
    out.push_back(count_change("ATA error log count", *before.error_count, *after.error_count));
  if (after.self_tests.size() > before.self_tests.size() && !after.self_tests.empty()) {
    const AtaSelfTestEntry& t = after.self_tests.front();
    out.push_back("new self-test: " + t.test_name() + ": " + t.status_text());
  }
  if (auto note = ata_interface_note(before, after); !note.empty()) out.push_back(note);
  auto ta = before.temperature_c(), tb = after.temperature_c();
  if (ta && tb)
    out.push_back("temperature " + std::to_string(*ta) + " C before, " + std::to_string(*tb) +
                  " C after");
  auto ha = before.power_on_hours(), hb = after.power_on_hours();
  if (ha && hb && *hb >= *ha) out.push_back(count_change("power-on hours", *ha, *hb));
  return out;
}

std::vector<std::string> ata_health_failures(const AtaSmart& before,
                                             const std::vector<const AtaSmart*>& during,
                                             const std::vector<std::string>& during_labels) {
  std::vector<std::string> out;
  std::vector<const AtaSmart*> readings{&before};
  std::vector<std::string> labels{"before the run"};
  readings.insert(readings.end(), during.begin(), during.end());
  labels.insert(labels.end(), during_labels.begin(), during_labels.end());
  labels.resize(readings.size());
  bool status_reported = false, self_test_reported = false;
  std::vector<std::uint8_t> reported;  // attribute ids and failure counts already named
  auto once = [&](std::uint8_t id) {
    for (auto r : reported)
      if (r == id) return false;
    reported.push_back(id);
    return true;
  };
  std::vector<std::uint8_t> grown;
  for (std::size_t i = 0; i < readings.size(); ++i) {
    const AtaSmart& r = *readings[i];
    const std::string when = labels[i].empty() ? "" : " (" + labels[i] + ")";
    if (!status_reported && r.status == AtaSmartStatus::Failing) {
      out.push_back("SMART status failing: the drive reports a threshold exceeded" + when);
      status_reported = true;
    }
    for (const auto& a : r.attributes)
      if (a.failing_now() && once(a.id)) out.push_back(failing_attribute(a) + when);
    if (i == 0) {
      // Sectors the drive cannot read now fail at arrival too; reallocated ones are the drive's
      // own repair (a sheet's limit judges those, docs/identity-and-safety.md).
      for (const auto& c : kUnreadableCounts)
        if (auto n = r.sector_count(c.id); n && *n > 0 && once(c.id))
          out.push_back(std::to_string(*n) + " " + c.what + ": sectors the drive cannot read" +
                        when);
      continue;
    }
    for (const auto& c : kFailureCounts) {
      auto a = before.sector_count(c.id), b = r.sector_count(c.id);
      bool seen = false;
      for (auto g : grown) seen = seen || g == c.id;
      if (a && b && *b > *a && !seen) {
        out.push_back("grown " + count_change(c.what, *a, *b) + when);
        grown.push_back(c.id);
      }
    }
    if (!self_test_reported && failed_self_tests(r) > failed_self_tests(before)) {
      const AtaSelfTestEntry& t = r.self_tests.front();
      out.push_back("a self-test failed: " + t.test_name() + ": " + t.status_text() +
                    ", first failing LBA " + std::to_string(t.failing_lba) + when);
      self_test_reported = true;
    }
  }
  return out;
}

std::string ata_health_summary(const AtaSmart& after) {
  std::string counts;
  for (const auto& c : kFailureCounts) {
    const auto raw = after.raw(c.id);
    if (!raw) continue;
    const auto v = after.sector_count(c.id);
    counts += std::string(counts.empty() ? "" : ", ") + c.what + " " +
              (v ? std::to_string(*v) : "not a count (raw " + after.find(c.id)->raw_text + ")");
  }
  return std::string("SMART status ") + to_string(after.status) +
         ", no attribute at or below its threshold, no unreadable sector, no grown failure count, "
         "no failed self-test" +
         (counts.empty() ? std::string() : " (" + counts + ")");
}

}  // namespace storqual::devices
