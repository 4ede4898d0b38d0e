// SPDX-License-Identifier: Apache-2.0
// SCSI LOG SENSE pages: parsing, the captured-page seam and read_scsi_health (see scsi_log.hpp);
// the SG_IO implementation is in scsi_log_sense.cpp.
#include "devices/scsi_log.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace storqual::devices {
namespace {

std::string hex2(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02xh", v);
  return buf;
}

std::string hex4(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04xh", v);
  return buf;
}

// A counter of up to 8 bytes, or a longer one whose bytes above the low 8 are zero (a real
// drive's 10-byte "total bytes processed", tests/data/scsi/real).
std::uint64_t counter(const ScsiParameter& p, std::uint8_t page) {
  const std::size_t excess = p.value.size() > 8 ? p.value.size() - 8 : 0;
  if (std::any_of(p.value.begin(), p.value.begin() + static_cast<std::ptrdiff_t>(excess),
                  [](std::uint8_t b) { return b != 0; }))
    throw ScsiError("log page " + hex2(page) + " parameter " + hex2(p.code) + " is a counter of " +
                    std::to_string(p.value.size()) + " bytes whose value needs more than 8");
  std::uint64_t v = 0;
  for (auto b : p.value.subspan(excess)) v = (v << 8) | b;
  return v;
}

std::optional<int> temperature(const ScsiParameter& p) {
  if (p.value.size() < 2 || p.value[1] == 0xFF) return std::nullopt;  // FFh: not available
  return p.value[1];
}

// The pages read_scsi_health asks for, in this order, when the device lists them.
constexpr std::uint8_t kHealthPages[] = {
    kScsiWriteErrors, kScsiReadErrors, kScsiVerifyErrors, kScsiNonMediumErrors,
    kScsiTemperature, kScsiStartStop,  kScsiSelfTest,     kScsiInformationalExceptions};

}  // namespace

std::span<const std::uint8_t> scsi_log_body(std::span<const std::uint8_t> page,
                                            std::uint8_t expected_page, const std::string& what) {
  if (page.size() < 4)
    throw ScsiError(what + ": log page " + hex2(expected_page) + " is " +
                    std::to_string(page.size()) + " bytes, shorter than its 4-byte header");
  if ((page[0] & 0x3F) != expected_page || page[1] != 0)
    throw ScsiError(what + ": asked for log page " + hex2(expected_page) + ", got page " +
                    hex2(page[0] & 0x3F) + " subpage " + hex2(page[1]));
  const std::size_t length = (page[2] << 8) | page[3];
  if (4 + length > page.size())
    throw ScsiError(what + ": log page " + hex2(expected_page) + " says " + std::to_string(length) +
                    " bytes of parameters, " + std::to_string(page.size() - 4) + " were read");
  return page.subspan(4, length);
}

std::vector<ScsiParameter> scsi_log_parameters(std::span<const std::uint8_t> page,
                                               std::uint8_t expected_page,
                                               const std::string& what) {
  const std::size_t length = scsi_log_body(page, expected_page, what).size();
  std::vector<ScsiParameter> out;
  for (std::size_t off = 4; off < 4 + length;) {
    if (off + 4 > 4 + length)
      throw ScsiError(what + ": log page " + hex2(expected_page) +
                      ": a parameter header runs past the page end at byte " + std::to_string(off));
    const std::size_t n = page[off + 3];
    if (off + 4 + n > 4 + length)
      throw ScsiError(what + ": log page " + hex2(expected_page) + ": parameter at byte " +
                      std::to_string(off) + " runs past the page end");
    const auto code = static_cast<std::uint16_t>((page[off] << 8) | page[off + 1]);
    // SPC: each parameter code once (in ascending order; the order is not held against a drive).
    for (const auto& p : out)
      if (p.code == code)
        throw ScsiError(what + ": log page " + hex2(expected_page) + ": parameter code " +
                        hex4(code) + " at byte " + std::to_string(off) + " repeats");
    out.push_back({code, page[off + 2], page.subspan(off + 4, n)});
    off += 4 + n;
  }
  return out;
}

ScsiErrorCounters parse_scsi_error_counters(std::span<const std::uint8_t> page,
                                            std::uint8_t page_code) {
  ScsiErrorCounters c;
  std::optional<std::uint64_t>* fields[] = {
      &c.corrected_fast,        &c.corrected_delayed, &c.rereads,    &c.corrected_total,
      &c.algorithm_invocations, &c.bytes_processed,   &c.uncorrected};
  for (const auto& p : scsi_log_parameters(page, page_code, "error counters"))
    if (p.code < std::size(fields)) *fields[p.code] = counter(p, page_code);
  return c;
}

std::vector<ScsiSelfTest> parse_scsi_self_tests(std::span<const std::uint8_t> page) {
  std::vector<ScsiSelfTest> out;
  for (const auto& p : scsi_log_parameters(page, kScsiSelfTest, "self-test results")) {
    if (p.code < 1 || p.code > 20 || p.value.size() < 16) continue;
    const auto& v = p.value;
    if (std::all_of(v.begin(), v.begin() + 16, [](std::uint8_t b) { return b == 0; })) continue;
    ScsiSelfTest t;
    t.code = static_cast<std::uint8_t>(v[0] >> 5);
    t.result = static_cast<std::uint8_t>(v[0] & 0xF);
    t.number = v[1];
    t.hours = static_cast<std::uint16_t>((v[2] << 8) | v[3]);
    for (int i = 4; i < 12; ++i) t.first_failure_lba = (t.first_failure_lba << 8) | v[i];
    t.sense_key = v[12] & 0xF;
    t.asc = v[13];
    t.ascq = v[14];
    out.push_back(t);
  }
  return out;
}

std::string ScsiSelfTest::result_text() const {
  static const char* const kText[16] = {"Completed",
                                        "Aborted (by user command)",
                                        "Aborted (device reset or bus reset)",
                                        "Unknown error, incomplete",
                                        "Completed, segment failed",
                                        "Failed in first segment",
                                        "Failed in second segment",
                                        "Failed in segment --> ",
                                        "Reserved (8)",
                                        "Reserved (9)",
                                        "Reserved (10)",
                                        "Reserved (11)",
                                        "Reserved (12)",
                                        "Reserved (13)",
                                        "Reserved (14)",
                                        "Self test in progress"};
  return kText[result & 0xF];
}

void apply_scsi_log_page(ScsiHealth& h, std::uint8_t code, std::span<const std::uint8_t> page) {
  switch (code) {
    case kScsiWriteErrors:
      h.write = parse_scsi_error_counters(page, code);
      return;
    case kScsiReadErrors:
      h.read = parse_scsi_error_counters(page, code);
      return;
    case kScsiVerifyErrors:
      h.verify = parse_scsi_error_counters(page, code);
      return;
    case kScsiSelfTest:
      h.self_tests = parse_scsi_self_tests(page);
      return;
    default:
      break;
  }
  for (const auto& p : scsi_log_parameters(page, code, "log page")) {
    if (code == kScsiNonMediumErrors && p.code == 0) h.non_medium_errors = counter(p, code);
    if (code == kScsiTemperature && p.code == 0) h.temperature_c = temperature(p);
    if (code == kScsiTemperature && p.code == 1) h.reference_temperature_c = temperature(p);
    if (code == kScsiStartStop && p.code == 3 && p.value.size() <= 4)
      h.specified_start_stop_cycles = static_cast<std::uint32_t>(counter(p, code));
    if (code == kScsiStartStop && p.code == 4 && p.value.size() <= 4)
      h.start_stop_cycles = static_cast<std::uint32_t>(counter(p, code));
    if (code == kScsiInformationalExceptions && p.code == 0 && p.value.size() >= 2) {
      h.ie_asc = p.value[0];
      h.ie_ascq = p.value[1];
    }
  }
}

ScsiDefectList parse_scsi_defect_header(std::span<const std::uint8_t> header, bool twelve) {
  const std::string what = twelve ? "READ DEFECT DATA (12)" : "READ DEFECT DATA (10)";
  const std::size_t size = twelve ? 8 : 4;
  if (header.size() < size)
    throw ScsiError(what + ": " + std::to_string(header.size()) + " bytes, shorter than its " +
                    std::to_string(size) + "-byte header");
  ScsiDefectList d;
  d.twelve = twelve;
  d.plist_valid = header[1] & 0x10;
  d.glist_valid = header[1] & 0x08;
  d.format = header[1] & 0x07;
  for (std::size_t i = twelve ? 4 : 2; i < size; ++i)
    d.list_bytes = (d.list_bytes << 8) | header[i];
  if (!d.glist_valid)
    throw ScsiError(what + ": the device did not return the grown defect list (GLISTV 0)");
  // Descriptor sizes (SBC-4 6.2): short block 4 bytes; the others 8; vendor-specific unknown.
  static constexpr std::uint8_t kSize[8] = {4, 8, 8, 8, 8, 8, 0, 0};
  if (d.format == 7) throw ScsiError(what + ": reserved address descriptor format 7");
  if (const unsigned n = kSize[d.format]; n != 0) {
    if (d.list_bytes % n != 0)
      throw ScsiError(what + ": a defect list of " + std::to_string(d.list_bytes) +
                      " bytes is no whole number of " + std::to_string(n) + "-byte descriptors");
    d.count = d.list_bytes / n;
  }
  return d;
}

std::string ScsiDefectList::text() const {
  if (count) return std::to_string(*count);
  return "unknown (" + std::to_string(list_bytes) + " bytes, vendor-specific format)";
}

SenseKey parse_request_sense(std::span<const std::uint8_t> sense) {
  if (sense.size() < 8)
    throw ScsiError("REQUEST SENSE: " + std::to_string(sense.size()) +
                    " bytes of sense data, fewer than 8");
  const std::uint8_t code = sense[0] & 0x7F;
  if (code < 0x70 || code > 0x73)
    throw ScsiError("REQUEST SENSE: response code " + hex2(code) +
                    " is neither fixed nor descriptor sense data");
  // Fixed format: ASC and ASCQ only where the additional length (byte 7) reaches them.
  const std::size_t len =
      code >= 0x72 ? sense.size() : std::min<std::size_t>(sense.size(), 8u + sense[7]);
  return sense_key(sense.data(), len);
}

std::string request_sense_text(const SenseKey& k) {
  char buf[64];
  if (k.asc == 0x5D) {
    std::snprintf(buf, sizeof buf, "(ASC 5dh ASCQ %02xh)", k.ascq);
    return std::string("failure prediction threshold exceeded ") + buf;
  }
  std::snprintf(buf, sizeof buf, "(sense key %xh, ASC %02xh ASCQ %02xh)", k.key, k.asc, k.ascq);
  return std::string("no failure predicted ") + buf;
}

std::optional<unsigned> parse_extended_self_test_seconds(std::span<const std::uint8_t> r) {
  const std::string what = "MODE SENSE (10) of the Control mode page";
  if (r.size() < 8)
    throw ScsiError(what + ": " + std::to_string(r.size()) +
                    " bytes, shorter than its 8-byte header");
  const std::size_t data_end = std::min<std::size_t>(r.size(), 2u + ((r[0] << 8) | r[1]));
  const std::size_t page = 8u + ((r[6] << 8) | r[7]);  // past the block descriptors
  if (page + 2 > data_end)
    throw ScsiError(what + ": its block descriptors run past the data (" + std::to_string(page) +
                    " of " + std::to_string(data_end) + " bytes)");
  if ((r[page] & 0x3F) != 0x0A || (r[page] & 0x40))
    throw ScsiError(what + ": got page " + hex2(r[page] & 0x3F) +
                    ((r[page] & 0x40) ? " in the subpage format" : ""));
  const std::size_t page_end = page + 2 + r[page + 1];
  if (page_end > data_end)
    throw ScsiError(what + ": page 0Ah says " + std::to_string(r[page + 1]) +
                    " bytes, the data holds " + std::to_string(data_end - page - 2));
  if (page_end < page + 12) return std::nullopt;  // a short (older) Control page
  const unsigned seconds = (r[page + 10] << 8) | r[page + 11];
  if (seconds == 0) return std::nullopt;
  return seconds;
}

void read_scsi_defects_and_sense(ScsiLogSource& source, ScsiHealth& h) {
  // REQUEST SENSE first: after a refused command some devices still hold its sense data and
  // would report that (QEMU's virtio-scsi disk does).
  try {
    h.request_sense = parse_request_sense(source.request_sense());
  } catch (const ScsiError& e) {
    h.request_sense_gap = e.what();
  }
  try {
    std::vector<std::uint8_t> header;
    bool twelve = true;
    try {
      header = source.read_defect_data(true);
    } catch (const ScsiLogRefused& e12) {
      twelve = false;
      try {
        header = source.read_defect_data(false);
      } catch (const ScsiLogRefused& e10) {
        throw ScsiLogRefused(std::string(e12.what()) + "; " + e10.what());
      }
    }
    h.grown_defects = parse_scsi_defect_header(header, twelve);
  } catch (const ScsiError& e) {
    h.grown_defects_gap = e.what();
  }
}

std::string scsi_defects_and_sense_text(const ScsiHealth& h) {
  return (h.grown_defects ? "grown defects: " + h.grown_defects->text()
                          : "grown defect list not readable: " + h.grown_defects_gap) +
         "; " +
         (h.request_sense ? "REQUEST SENSE: " + request_sense_text(*h.request_sense)
                          : "REQUEST SENSE not readable: " + h.request_sense_gap);
}

ScsiHealth read_scsi_health(ScsiLogSource& source) {
  ScsiHealth h;
  const auto list = source.log_sense(kScsiSupportedPages);
  for (auto b : scsi_log_body(list, kScsiSupportedPages, "supported log pages"))
    h.supported.push_back(b & 0x3F);
  for (std::uint8_t code : kHealthPages) {
    if (std::find(h.supported.begin(), h.supported.end(), code) == h.supported.end()) continue;
    try {
      apply_scsi_log_page(h, code, source.log_sense(code));
    } catch (const ScsiError& e) {
      h.notes.push_back("log page " + hex2(code) + ": " + e.what());
    }
  }
  read_scsi_defects_and_sense(source, h);
  return h;
}

CapturedScsiLog::CapturedScsiLog(std::filesystem::path dir, std::vector<std::string> readings)
    : dir_(std::move(dir)), readings_(std::move(readings)) {
  if (readings_.empty()) throw ScsiError("CapturedScsiLog needs at least one reading");
}

std::vector<std::uint8_t> CapturedScsiLog::log_sense(std::uint8_t page) {
  if (page == kScsiSupportedPages) {
    if (started_ && current_ + 1 < readings_.size()) ++current_;
    started_ = true;
  }
  char name[64];
  std::snprintf(name, sizeof name, "scsi-log-%02x-", page);
  const auto file = dir_ / (name + readings_[current_] + ".bin");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ScsiError("log page " + hex2(page) + " was not captured (" + file.string() + ")");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> CapturedScsiLog::replay(const std::string& prefix,
                                                  const std::string& what) {
  const auto file = dir_ / (prefix + readings_[current_] + ".bin");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ScsiLogRefused(what + " was not captured (" + file.string() + ")");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> CapturedScsiLog::request_sense() {
  return replay("scsi-sense-", "REQUEST SENSE");
}

std::vector<std::uint8_t> CapturedScsiLog::mode_sense_control() {
  return replay("scsi-mode-0a-", "MODE SENSE page 0Ah");
}

std::vector<std::uint8_t> CapturedScsiLog::read_defect_data(bool twelve) {
  return twelve ? replay("scsi-defects12-", "READ DEFECT DATA (12)")
                : replay("scsi-defects10-", "READ DEFECT DATA (10)");
}

}  // namespace storqual::devices
