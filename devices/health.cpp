// SPDX-License-Identifier: Apache-2.0
// Health snapshots and their differences (see health.hpp).
#include "devices/health.hpp"

#include <algorithm>
#include <cstdio>

#include "devices/ata_health.hpp"
#include "devices/scsi_health.hpp"

namespace storqual::devices {
namespace {

constexpr std::uint32_t kBytesPerDataUnit = 512 * 1000;  // NVMe: thousands of 512-byte units

std::string hex_byte(std::uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

std::string counter_change(const char* what, const Counter128& a, const Counter128& b) {
  return std::string(what) + " " + a.to_decimal() + " -> " + b.to_decimal() + " (+" +
         minus(b, a).to_decimal() + ")";
}

}  // namespace

HealthSnapshot take_health_snapshot(NvmeAdmin& admin) {
  HealthSnapshot s;
  s.smart = parse_smart_log(admin.smart_log());
  try {
    s.ocp = read_ocp_smart_log(admin);
  } catch (const NvmeError& e) {
    s.ocp_note = e.what();
  }
  return s;
}

HealthSnapshot take_health_snapshot(AtaAdmin& admin) {
  HealthSnapshot s;
  s.source = "ata:smart";
  s.ata = read_ata_smart(admin);
  return s;
}

HealthSnapshot take_health_snapshot(ScsiLogSource& source) {
  HealthSnapshot s;
  s.source = "scsi:log-sense";
  s.scsi = read_scsi_health(source);
  return s;
}

std::vector<IdentityRow> health_rows(const HealthSnapshot& snapshot) {
  if (snapshot.ata) return ata_health_rows(*snapshot.ata, snapshot.source);
  if (snapshot.scsi) return scsi_health_rows(*snapshot.scsi, snapshot.source);
  const NvmeSmartLog& l = snapshot.smart;
  const std::string& src = snapshot.source;
  std::vector<IdentityRow> rows;
  auto add = [&](const char* field, std::string value) {
    rows.push_back({field, std::move(value), src});
  };
  add("critical_warning",
      hex_byte(l.critical_warning) + " (" + describe_critical_warning(l.critical_warning) + ")");
  add("temperature_c", std::to_string(l.temperature_celsius()));
  add("available_spare_pct", std::to_string(l.available_spare));
  add("available_spare_threshold_pct", std::to_string(l.available_spare_threshold));
  add("percentage_used", std::to_string(l.percentage_used));
  add("data_units_read", l.data_units_read.to_decimal());
  add("data_read_bytes", l.data_units_read.times_to_decimal(kBytesPerDataUnit));
  add("data_units_written", l.data_units_written.to_decimal());
  add("data_written_bytes", l.data_units_written.times_to_decimal(kBytesPerDataUnit));
  add("power_on_hours", l.power_on_hours.to_decimal());
  add("power_cycles", l.power_cycles.to_decimal());
  add("unsafe_shutdowns", l.unsafe_shutdowns.to_decimal());
  add("media_errors", l.media_errors.to_decimal());
  add("error_log_entries", l.error_log_entries.to_decimal());
  add("warning_temp_minutes", std::to_string(l.warning_temp_minutes));
  add("critical_temp_minutes", std::to_string(l.critical_temp_minutes));
  add("tmt1_transitions", std::to_string(l.tmt1_transitions));
  add("tmt2_transitions", std::to_string(l.tmt2_transitions));
  add("tmt1_seconds", std::to_string(l.tmt1_seconds));
  add("tmt2_seconds", std::to_string(l.tmt2_seconds));
  if (snapshot.ocp) {
    for (auto& r : ocp_rows(*snapshot.ocp)) rows.push_back(std::move(r));
  } else if (!snapshot.ocp_note.empty()) {
    rows.push_back({"ocp.c0h", "not available: " + snapshot.ocp_note, "nvme:ocp-c0h"});
  }
  return rows;
}

std::vector<std::string> health_changes(const HealthSnapshot& before, const HealthSnapshot& after) {
  if (before.ata || after.ata)
    return before.ata && after.ata ? ata_health_changes(*before.ata, *after.ata)
                                   : std::vector<std::string>{};
  if (before.scsi || after.scsi)
    return before.scsi && after.scsi ? scsi_health_changes(*before.scsi, *after.scsi)
                                     : std::vector<std::string>{};
  const NvmeSmartLog& a = before.smart;
  const NvmeSmartLog& b = after.smart;
  std::vector<std::string> out;
  auto new_bits = static_cast<std::uint8_t>(b.critical_warning & ~a.critical_warning);
  if (new_bits)
    out.push_back("new critical warning " + hex_byte(new_bits) + ": " +
                  describe_critical_warning(new_bits));
  if (b.media_errors > a.media_errors)
    out.push_back(counter_change("media errors", a.media_errors, b.media_errors));
  if (b.error_log_entries > a.error_log_entries)
    out.push_back(counter_change("error log entries", a.error_log_entries, b.error_log_entries));
  if (b.available_spare < a.available_spare)
    out.push_back("available spare " + std::to_string(a.available_spare) + "% -> " +
                  std::to_string(b.available_spare) + "%");
  if (b.percentage_used != a.percentage_used)
    out.push_back("percentage used " + std::to_string(a.percentage_used) + "% -> " +
                  std::to_string(b.percentage_used) + "%");
  if (b.warning_temp_minutes > a.warning_temp_minutes)
    out.push_back("time above warning temperature +" +
                  std::to_string(b.warning_temp_minutes - a.warning_temp_minutes) + " min");
  if (b.critical_temp_minutes > a.critical_temp_minutes)
    out.push_back("time above critical temperature +" +
                  std::to_string(b.critical_temp_minutes - a.critical_temp_minutes) + " min");
  int peak = std::max(a.temperature_celsius(), b.temperature_celsius());
  out.push_back("temperature peak " + std::to_string(peak) + " C (before " +
                std::to_string(a.temperature_celsius()) + " C, after " +
                std::to_string(b.temperature_celsius()) + " C)");
  if (b.data_units_written >= a.data_units_written) {
    Counter128 units = minus(b.data_units_written, a.data_units_written);
    out.push_back("data written " + units.times_to_decimal(kBytesPerDataUnit) + " bytes (+" +
                  units.to_decimal() + " data units)");
  }
  if (b.tmt1_transitions > a.tmt1_transitions || b.tmt2_transitions > a.tmt2_transitions)
    out.push_back("thermal management: TMT1 +" +
                  std::to_string(b.tmt1_transitions - a.tmt1_transitions) + " transitions, +" +
                  std::to_string(b.tmt1_seconds - a.tmt1_seconds) + " s; TMT2 +" +
                  std::to_string(b.tmt2_transitions - a.tmt2_transitions) + " transitions, +" +
                  std::to_string(b.tmt2_seconds - a.tmt2_seconds) + " s");
  if (before.ocp && after.ocp)
    for (auto& line : ocp_changes(*before.ocp, *after.ocp)) out.push_back(std::move(line));
  return out;
}

std::vector<std::string> health_failures(const HealthSnapshot& before,
                                         const std::vector<HealthSnapshot>& during,
                                         const std::vector<std::string>& during_labels) {
  if (before.ata) {
    std::vector<const AtaSmart*> readings;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < during.size(); ++i)
      if (during[i].ata) {
        readings.push_back(&*during[i].ata);
        labels.push_back(i < during_labels.size() ? during_labels[i] : "");
      }
    return ata_health_failures(*before.ata, readings, labels);
  }
  if (before.scsi) {
    std::vector<const ScsiHealth*> readings;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < during.size(); ++i)
      if (during[i].scsi) {
        readings.push_back(&*during[i].scsi);
        labels.push_back(i < during_labels.size() ? during_labels[i] : "");
      }
    return scsi_health_failures(*before.scsi, readings, labels);
  }
  const NvmeSmartLog& a = before.smart;
  std::vector<std::string> out;
  std::uint8_t reported_bits = 0;
  bool media_reported = false, spare_reported = false;
  auto below = [](const NvmeSmartLog& l) {
    return l.available_spare_threshold > 0 && l.available_spare < l.available_spare_threshold;
  };
  for (std::size_t i = 0; i < during.size(); ++i) {
    const NvmeSmartLog& b = during[i].smart;
    const std::string when = i < during_labels.size() ? " (" + during_labels[i] + ")" : "";
    auto new_bits =
        static_cast<std::uint8_t>(b.critical_warning & ~a.critical_warning & ~reported_bits);
    if (new_bits) {
      out.push_back("new critical warning " + hex_byte(new_bits) + ": " +
                    describe_critical_warning(new_bits) + when);
      reported_bits |= new_bits;
    }
    if (!media_reported && b.media_errors > a.media_errors) {
      out.push_back("new media and data integrity errors: " +
                    counter_change("media errors", a.media_errors, b.media_errors) + when);
      media_reported = true;
    }
    if (!spare_reported && below(b) && !below(a)) {
      out.push_back("available spare " + std::to_string(b.available_spare) +
                    "% below its threshold of " + std::to_string(b.available_spare_threshold) +
                    "% (was " + std::to_string(a.available_spare) + "%)" + when);
      spare_reported = true;
    }
  }
  return out;
}

namespace {

constexpr HealthFigure kHealthFigures[] = {
    {"power_on_hours", "power-on hours"},
    {"temperature_c", "temperature (Celsius)"},
    {"reallocated_sectors", "reallocated sectors (ATA 5)"},
    {"pending_sectors", "pending sectors (ATA 197)"},
    {"offline_uncorrectable", "offline uncorrectable sectors (ATA 198)"},
    {"reported_uncorrectable", "reported uncorrectable errors (ATA 187)"},
    {"crc_errors", "UDMA CRC errors (ATA 199)"},
    {"media_errors", "media and data integrity errors (NVMe)"},
    {"percentage_used", "percentage used (NVMe)"},
    {"available_spare_pct", "available spare (NVMe)"},
    {"uncorrected_errors", "uncorrected read, write and verify errors (SCSI)"},
    {"start_stop_cycles", "start-stop cycles (SCSI)"},
};

std::optional<double> counter(const Counter128& c) {
  return static_cast<double>(c.high) * 18446744073709551616.0 + static_cast<double>(c.low);
}

std::optional<double> ata_figure(const AtaSmart& a, std::string_view n) {
  auto raw = [&](std::uint8_t id) -> std::optional<double> {
    if (auto v = a.raw(id)) return static_cast<double>(*v);
    return std::nullopt;
  };
  if (n == "power_on_hours") return raw(9);
  if (n == "temperature_c") {
    if (auto t = a.temperature_c()) return *t;
    return std::nullopt;
  }
  if (n == "reallocated_sectors") return raw(5);
  if (n == "pending_sectors") return raw(197);
  if (n == "offline_uncorrectable") return raw(198);
  if (n == "reported_uncorrectable") return raw(187);
  if (n == "crc_errors") return raw(199);
  return std::nullopt;
}

std::optional<double> scsi_figure(const ScsiHealth& h, std::string_view n) {
  if (n == "temperature_c" && h.temperature_c) return *h.temperature_c;
  if (n == "start_stop_cycles" && h.start_stop_cycles) return *h.start_stop_cycles;
  if (n == "uncorrected_errors") {
    std::optional<double> sum;
    for (const auto* c : {&h.read, &h.write, &h.verify})
      if (*c && (*c)->uncorrected) sum = sum.value_or(0) + static_cast<double>(*(*c)->uncorrected);
    return sum;
  }
  return std::nullopt;
}

std::optional<double> nvme_figure(const NvmeSmartLog& l, std::string_view n) {
  if (n == "power_on_hours") return counter(l.power_on_hours);
  if (n == "temperature_c") return l.temperature_celsius();
  if (n == "media_errors") return counter(l.media_errors);
  if (n == "percentage_used") return l.percentage_used;
  if (n == "available_spare_pct") return l.available_spare;
  return std::nullopt;
}

}  // namespace

std::span<const HealthFigure> health_figures() noexcept {
  return kHealthFigures;
}

const HealthFigure* find_health_figure(std::string_view name) noexcept {
  for (const HealthFigure& f : kHealthFigures)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<double> health_figure(const HealthSnapshot& s, std::string_view name) {
  if (s.ata) return ata_figure(*s.ata, name);
  if (s.scsi) return scsi_figure(*s.scsi, name);
  return nvme_figure(s.smart, name);
}

UnsafeShutdownCount unsafe_shutdown_count(const HealthSnapshot& s) {
  UnsafeShutdownCount out;
  if (s.ata) {
    for (const std::uint8_t id : {std::uint8_t{192}, std::uint8_t{174}})
      if (const auto raw = s.ata->raw(id)) {
        out.count = raw;
        out.source = "ata:" + std::to_string(id);
        return out;
      }
    out.note = "the drive's SMART attributes have neither 192 nor 174";
    return out;
  }
  if (s.scsi) {
    out.note = "a SCSI disk's log pages have no unsafe-shutdown counter";
    return out;
  }
  out.source = s.source;
  if (s.smart.unsafe_shutdowns.fits_u64())
    out.count = s.smart.unsafe_shutdowns.low;
  else
    out.note = "the SMART log's unsafe shutdowns exceed 64 bits";
  if (s.ocp) out.ocp_incomplete = s.ocp->incomplete_shutdowns;
  return out;
}

}  // namespace storqual::devices
