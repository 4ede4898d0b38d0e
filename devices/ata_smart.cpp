// SPDX-License-Identifier: Apache-2.0
// ATA SMART pages: their parsing and the captured-page seam (see ata_smart.hpp); the SG_IO
// implementation is in ata_pass_through.cpp.
#include "devices/ata_smart.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace storqual::devices {
namespace {

struct AttributeDefinition {
  std::uint8_t id;
  AtaRawFormat format;
  const char* name;
};

// smartmontools drivedb.h, entry "DEFAULT" (the names and raw formats smartctl uses for a drive
// without a drivedb entry of its own).
constexpr AttributeDefinition kDefinitions[] = {
    {1, AtaRawFormat::Raw48, "Raw_Read_Error_Rate"},
    {2, AtaRawFormat::Raw48, "Throughput_Performance"},
    {3, AtaRawFormat::Raw16Avg16, "Spin_Up_Time"},
    {4, AtaRawFormat::Raw48, "Start_Stop_Count"},
    {5, AtaRawFormat::Raw16Raw16, "Reallocated_Sector_Ct"},
    {6, AtaRawFormat::Raw48, "Read_Channel_Margin"},
    {7, AtaRawFormat::Raw48, "Seek_Error_Rate"},
    {8, AtaRawFormat::Raw48, "Seek_Time_Performance"},
    {9, AtaRawFormat::Raw24Raw8, "Power_On_Hours"},
    {10, AtaRawFormat::Raw48, "Spin_Retry_Count"},
    {11, AtaRawFormat::Raw48, "Calibration_Retry_Count"},
    {12, AtaRawFormat::Raw48, "Power_Cycle_Count"},
    {13, AtaRawFormat::Raw48, "Read_Soft_Error_Rate"},
    {175, AtaRawFormat::Raw48, "Program_Fail_Count_Chip"},
    {176, AtaRawFormat::Raw48, "Erase_Fail_Count_Chip"},
    {177, AtaRawFormat::Raw48, "Wear_Leveling_Count"},
    {178, AtaRawFormat::Raw48, "Used_Rsvd_Blk_Cnt_Chip"},
    {179, AtaRawFormat::Raw48, "Used_Rsvd_Blk_Cnt_Tot"},
    {180, AtaRawFormat::Raw48, "Unused_Rsvd_Blk_Cnt_Tot"},
    {181, AtaRawFormat::Raw48, "Program_Fail_Cnt_Total"},
    {182, AtaRawFormat::Raw48, "Erase_Fail_Count_Total"},
    {183, AtaRawFormat::Raw48, "Runtime_Bad_Block"},
    {184, AtaRawFormat::Raw48, "End-to-End_Error"},
    {187, AtaRawFormat::Raw48, "Reported_Uncorrect"},
    {188, AtaRawFormat::Raw48, "Command_Timeout"},
    {189, AtaRawFormat::Raw48, "High_Fly_Writes"},
    {190, AtaRawFormat::TempMinMax, "Airflow_Temperature_Cel"},
    {191, AtaRawFormat::Raw48, "G-Sense_Error_Rate"},
    {192, AtaRawFormat::Raw48, "Power-Off_Retract_Count"},
    {193, AtaRawFormat::Raw48, "Load_Cycle_Count"},
    {194, AtaRawFormat::TempMinMax, "Temperature_Celsius"},
    {195, AtaRawFormat::Raw48, "Hardware_ECC_Recovered"},
    {196, AtaRawFormat::Raw16Raw16, "Reallocated_Event_Count"},
    {197, AtaRawFormat::Raw48, "Current_Pending_Sector"},
    {198, AtaRawFormat::Raw48, "Offline_Uncorrectable"},
    {199, AtaRawFormat::Raw48, "UDMA_CRC_Error_Count"},
    {200, AtaRawFormat::Raw48, "Multi_Zone_Error_Rate"},
    {201, AtaRawFormat::Raw48, "Soft_Read_Error_Rate"},
    {202, AtaRawFormat::Raw48, "Data_Address_Mark_Errs"},
    {203, AtaRawFormat::Raw48, "Run_Out_Cancel"},
    {204, AtaRawFormat::Raw48, "Soft_ECC_Correction"},
    {205, AtaRawFormat::Raw48, "Thermal_Asperity_Rate"},
    {206, AtaRawFormat::Raw48, "Flying_Height"},
    {207, AtaRawFormat::Raw48, "Spin_High_Current"},
    {208, AtaRawFormat::Raw48, "Spin_Buzz"},
    {209, AtaRawFormat::Raw48, "Offline_Seek_Performnce"},
    {220, AtaRawFormat::Raw48, "Disk_Shift"},
    {221, AtaRawFormat::Raw48, "G-Sense_Error_Rate"},
    {222, AtaRawFormat::Raw48, "Loaded_Hours"},
    {223, AtaRawFormat::Raw48, "Load_Retry_Count"},
    {224, AtaRawFormat::Raw48, "Load_Friction"},
    {225, AtaRawFormat::Raw48, "Load_Cycle_Count"},
    {226, AtaRawFormat::Raw48, "Load-in_Time"},
    {227, AtaRawFormat::Raw48, "Torq-amp_Count"},
    {228, AtaRawFormat::Raw48, "Power-off_Retract_Count"},
    {230, AtaRawFormat::Raw48, "Head_Amplitude"},
    {231, AtaRawFormat::Raw48, "Temperature_Celsius"},
    {232, AtaRawFormat::Raw48, "Available_Reservd_Space"},
    {233, AtaRawFormat::Raw48, "Media_Wearout_Indicator"},
    {240, AtaRawFormat::Raw24Raw8, "Head_Flying_Hours"},
    {241, AtaRawFormat::Raw48, "Total_LBAs_Written"},
    {242, AtaRawFormat::Raw48, "Total_LBAs_Read"},
    {250, AtaRawFormat::Raw48, "Read_Error_Retry_Rate"},
    {254, AtaRawFormat::Raw48, "Free_Fall_Sensor"},
};

constexpr std::size_t kAttributeSlots = 30;  // 12-byte entries from byte 2 to 361
constexpr std::size_t kAttributeSize = 12;

std::string fmt(const char* format, auto... args) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// The text smartctl prints for a tempminmax raw value, for the layouts of its common cases
// (smartmontools atacmds.cpp): TT alone; 00 00 HH LL xx TT; 00 00 00 HH LL TT; xx HH xx LL xx TT.
std::string temp_min_max_text(const std::array<std::uint8_t, 6>& r) {
  const int t = static_cast<std::int8_t>(r[0]);
  auto s8 = [&](int i) { return static_cast<int>(static_cast<std::int8_t>(r[i])); };
  auto in_range = [&](int lo, int hi) { return lo <= t && t <= hi; };
  if (!r[1] && !r[2] && !r[3] && !r[4] && !r[5]) return std::to_string(t);
  if (!r[4] && !r[5] && in_range(s8(2), s8(3))) return fmt("%d (Min/Max %d/%d)", t, s8(2), s8(3));
  if (!r[3] && !r[4] && !r[5] && in_range(s8(1), s8(2)))
    return fmt("%d (Min/Max %d/%d)", t, s8(1), s8(2));
  if (in_range(s8(2), s8(4))) return fmt("%d (Min/Max %d/%d)", t, s8(2), s8(4));
  return fmt("%d (%u %u %u %u %u)", t, r[5], r[4], r[3], r[2], r[1]);
}

void decode_raw(AtaAttribute& a) {
  const auto& r = a.raw;
  std::uint64_t raw48 = 0;
  for (int i = 5; i >= 0; --i) raw48 = (raw48 << 8) | r[i];
  const unsigned w0 = r[0] | (r[1] << 8), w1 = r[2] | (r[3] << 8), w2 = r[4] | (r[5] << 8);
  switch (a.format) {
    case AtaRawFormat::Raw48:
      a.raw_value = raw48;
      a.raw_text = std::to_string(raw48);
      break;
    case AtaRawFormat::Raw16Raw16:
      a.raw_value = w0;
      a.raw_text = std::to_string(w0) + (w1 || w2 ? fmt(" (%u %u)", w2, w1) : "");
      break;
    case AtaRawFormat::Raw16Avg16:
      a.raw_value = w0;
      a.raw_text = std::to_string(w0) + (w1 ? fmt(" (Average %u)", w1) : "");
      break;
    case AtaRawFormat::Raw24Raw8:
      a.raw_value = raw48 & 0xFFFFFF;
      a.raw_text = std::to_string(a.raw_value) +
                   (r[3] || r[4] || r[5] ? fmt(" (%u %u %u)", r[5], r[4], r[3]) : "");
      break;
    case AtaRawFormat::TempMinMax:
      a.raw_value = r[0];
      a.raw_text = temp_min_max_text(r);
      break;
  }
}

std::string ata_string(const AtaPage& p, std::size_t first_word, std::size_t words) {
  std::string s;
  for (std::size_t w = first_word; w < first_word + words; ++w) {
    s.push_back(static_cast<char>(p[2 * w + 1]));
    s.push_back(static_cast<char>(p[2 * w]));
  }
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = ' ';
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

std::uint16_t word(const AtaPage& p, std::size_t w) {
  return static_cast<std::uint16_t>(p[2 * w] | (p[2 * w + 1] << 8));
}

// A word of IDENTIFY DEVICE is valid when bits 15:14 are 01b.
bool valid_word(std::uint16_t w) {
  return (w & 0xC000) == 0x4000;
}

std::filesystem::path reading_file(const std::filesystem::path& dir, const char* kind,
                                   const std::string& reading) {
  return dir / (std::string("ata-") + kind + "-" + reading + ".bin");
}

}  // namespace

const char* to_string(AtaSmartStatus s) {
  switch (s) {
    case AtaSmartStatus::Passed:
      return "passed";
    case AtaSmartStatus::Failing:
      return "failing";
    case AtaSmartStatus::Unknown:
      break;
  }
  return "unknown";
}

AtaPage ata_page_from_bytes(std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() != 512)
    throw AtaError(what + " is " + std::to_string(bytes.size()) +
                   " bytes, not the 512 of an ATA SMART page");
  AtaPage page{};
  std::copy(bytes.begin(), bytes.end(), page.begin());
  return page;
}

AtaPage read_ata_page(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw AtaError("cannot open captured ATA page " + file.string());
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  return ata_page_from_bytes(bytes, "captured ATA page " + file.string());
}

bool ata_checksum_ok(const AtaPage& page) {
  unsigned sum = 0;
  for (auto b : page) sum += b;
  return (sum & 0xFF) == 0;
}

AtaIdentity parse_ata_identify(const AtaPage& p) {
  AtaIdentity id;
  id.serial = ata_string(p, 10, 10);
  id.firmware = ata_string(p, 23, 4);
  id.model = ata_string(p, 27, 20);
  const std::uint16_t w82 = word(p, 82), w84 = word(p, 84), w85 = word(p, 85);
  id.smart_supported = w82 != 0xFFFF && (w82 & 0x1);
  id.smart_enabled = w85 != 0xFFFF && (w85 & 0x1);
  id.self_test_supported = valid_word(w84) && (w84 & 0x2);
  id.error_log_supported = valid_word(w84) && (w84 & 0x1);
  const std::uint16_t w83 = word(p, 83);
  if (valid_word(w83) && (w83 & 0x400)) {
    for (int w = 103; w >= 100; --w) id.sectors = (id.sectors << 16) | word(p, w);
  } else {
    id.sectors = (std::uint64_t{word(p, 61)} << 16) | word(p, 60);
  }
  const std::uint16_t w69 = word(p, 69), w169 = word(p, 169);
  id.trim_supported = valid_word(w169) && (w169 & 0x1);
  id.deterministic_read_after_trim = valid_word(w69) && (w69 & 0x4000);
  id.zeroes_after_trim = valid_word(w69) && (w69 & 0x20);
  return id;
}

std::vector<AtaAttribute> parse_ata_attributes(const AtaPage& data, const AtaPage& thresholds) {
  std::vector<AtaAttribute> out;
  for (std::size_t slot = 0; slot < kAttributeSlots; ++slot) {
    const std::uint8_t* e = data.data() + 2 + slot * kAttributeSize;
    if (e[0] == 0) continue;
    AtaAttribute a;
    a.id = e[0];
    a.flags = static_cast<std::uint16_t>(e[1] | (e[2] << 8));
    a.value = e[3];
    a.worst = e[4];
    std::copy(e + 5, e + 11, a.raw.begin());
    a.name = "Unknown_Attribute";
    for (const auto& d : kDefinitions)
      if (d.id == a.id) {
        a.name = d.name;
        a.format = d.format;
      }
    // The thresholds page lists the same ids; most drives in the same slots, not all.
    for (std::size_t t = 0; t < kAttributeSlots; ++t) {
      const std::uint8_t* te = thresholds.data() + 2 + t * kAttributeSize;
      if (te[0] == a.id) {
        a.threshold = te[1];
        break;
      }
    }
    decode_raw(a);
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<AtaSelfTestEntry> parse_ata_self_test_log(const AtaPage& page) {
  constexpr std::size_t kEntries = 21, kEntrySize = 24;
  auto entry = [&](std::size_t i) {
    const std::uint8_t* e = page.data() + 2 + i * kEntrySize;
    AtaSelfTestEntry t;
    t.test = e[0];
    t.status = static_cast<std::uint8_t>(e[1] >> 4);
    t.remaining_pct = static_cast<std::uint8_t>((e[1] & 0xF) * 10);
    t.hours = static_cast<std::uint16_t>(e[2] | (e[3] << 8));
    t.failing_lba = e[5] | (e[6] << 8) | (e[7] << 16) | (static_cast<std::uint32_t>(e[8]) << 24);
    return t;
  };
  auto empty = [&](std::size_t i) {
    const std::uint8_t* e = page.data() + 2 + i * kEntrySize;
    return std::all_of(e, e + kEntrySize, [](std::uint8_t b) { return b == 0; });
  };
  std::vector<AtaSelfTestEntry> out;
  const std::size_t index = page[508];
  if (index >= 1 && index <= kEntries) {
    // A circular buffer: the newest at index - 1, going back and wrapping around.
    for (std::size_t k = 0; k < kEntries; ++k) {
      const std::size_t i = (index - 1 + kEntries - k) % kEntries;
      if (!empty(i)) out.push_back(entry(i));
    }
  } else {
    for (std::size_t i = kEntries; i-- > 0;)
      if (!empty(i)) out.push_back(entry(i));
  }
  return out;
}

std::uint16_t parse_ata_error_count(const AtaPage& page) {
  return static_cast<std::uint16_t>(page[452] | (page[453] << 8));
}

std::string AtaSelfTestEntry::test_name() const {
  switch (test & 0x7F) {
    case 0:
      return "Offline";
    case 1:
      return test & 0x80 ? "Short captive" : "Short offline";
    case 2:
      return test & 0x80 ? "Extended captive" : "Extended offline";
    case 3:
      return test & 0x80 ? "Conveyance captive" : "Conveyance offline";
    case 4:
      return test & 0x80 ? "Selective captive" : "Selective offline";
    default:
      return fmt("Vendor (0x%02x)", test);
  }
}

std::string AtaSelfTestEntry::status_text() const {
  static const char* const kText[16] = {
      "Completed without error",       "Aborted by host",
      "Interrupted (host reset)",      "Fatal or unknown error",
      "Completed: unknown failure",    "Completed: electrical failure",
      "Completed: servo/seek failure", "Completed: read failure",
      "Completed: handling damage??",  "Unknown status (0x9)",
      "Unknown status (0xa)",          "Unknown status (0xb)",
      "Unknown status (0xc)",          "Unknown status (0xd)",
      "Unknown status (0xe)",          "Self-test routine in progress"};
  return kText[status & 0xF];
}

const AtaAttribute* AtaSmart::find(std::uint8_t id) const {
  for (const auto& a : attributes)
    if (a.id == id) return &a;
  return nullptr;
}

std::optional<std::uint64_t> AtaSmart::raw(std::uint8_t id) const {
  if (const AtaAttribute* a = find(id)) return a->raw_value;
  return std::nullopt;
}

std::optional<std::uint64_t> AtaSmart::sector_count(std::uint8_t id) const {
  const auto v = raw(id);
  if (!v || *v == 0xFFFFFFFFull || *v == 0xFFFFFFFFFFFFull) return std::nullopt;
  if (capacity_sectors > 0 && *v > capacity_sectors) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> AtaSmart::power_on_hours() const {
  return raw(9);
}

std::optional<int> AtaSmart::temperature_c() const {
  for (std::uint8_t id : {std::uint8_t{194}, std::uint8_t{190}})
    if (const AtaAttribute* a = find(id)) return static_cast<std::int8_t>(a->raw[0]);
  return std::nullopt;
}

AtaSmart parse_ata_smart(const AtaPage& data, const AtaPage& thresholds, AtaSmartStatus status) {
  AtaSmart s;
  s.status = status;
  s.attributes = parse_ata_attributes(data, thresholds);
  s.data_checksum_ok = ata_checksum_ok(data);
  s.thresholds_checksum_ok = ata_checksum_ok(thresholds);
  s.self_test_execution = data[363];
  return s;
}

AtaSmart read_ata_smart(AtaAdmin& admin) {
  const AtaPage data = admin.smart_read_data();
  const AtaPage thresholds = admin.smart_read_thresholds();
  AtaSmart s = parse_ata_smart(data, thresholds, admin.smart_return_status());
  try {
    s.capacity_sectors = parse_ata_identify(admin.identify_device()).sectors;
  } catch (const AtaError&) {
    // Without IDENTIFY only all-ones raw counts are known not to be counts.
  }
  try {
    s.self_tests = parse_ata_self_test_log(admin.smart_read_log(kAtaSelfTestLog));
  } catch (const AtaError& e) {
    s.self_test_note = e.what();
  }
  try {
    s.error_count = parse_ata_error_count(admin.smart_read_log(kAtaSummaryErrorLog));
  } catch (const AtaError& e) {
    s.error_log_note = e.what();
  }
  return s;
}

CapturedAtaAdmin::CapturedAtaAdmin(const std::filesystem::path& dir,
                                   std::vector<std::string> readings)
    : identify_(read_ata_page(dir / "ata-identify.bin")),
      thresholds_(read_ata_page(dir / "ata-thresholds.bin")) {
  for (const auto& name : readings) {
    Reading r;
    r.data = read_ata_page(reading_file(dir, "smart", name));
    if (auto f = reading_file(dir, "selftest", name); std::filesystem::exists(f))
      r.selftest = read_ata_page(f);
    if (auto f = reading_file(dir, "errorlog", name); std::filesystem::exists(f))
      r.errorlog = read_ata_page(f);
    if (std::ifstream st(dir / ("ata-status-" + name + ".txt")); st) {
      std::string word;
      st >> word;
      if (word != "passed" && word != "failing" && word != "unknown")
        throw AtaError("captured ATA status " + (dir / ("ata-status-" + name + ".txt")).string() +
                       " says '" + word + "', not passed, failing or unknown");
      r.status = word == "failing"   ? AtaSmartStatus::Failing
                 : word == "unknown" ? AtaSmartStatus::Unknown
                                     : AtaSmartStatus::Passed;
    }
    readings_.push_back(std::move(r));
  }
  if (readings_.empty()) throw AtaError("CapturedAtaAdmin needs at least one SMART data page");
}

AtaPage CapturedAtaAdmin::smart_read_data() {
  if (started_ && current_ + 1 < readings_.size()) ++current_;
  started_ = true;
  return readings_[current_].data;
}

AtaSmartStatus CapturedAtaAdmin::smart_return_status() {
  return readings_[current_].status;
}

AtaPage CapturedAtaAdmin::smart_read_log(std::uint8_t log_address) {
  const Reading& r = readings_[current_];
  const auto& page = log_address == kAtaSelfTestLog       ? r.selftest
                     : log_address == kAtaSummaryErrorLog ? r.errorlog
                                                          : std::optional<AtaPage>{};
  if (!page) throw AtaError(fmt("SMART log 0x%02x was not captured", log_address));
  return *page;
}

void AtaAdmin::smart_execute_offline_immediate(std::uint8_t subcommand) {
  throw AtaError(
      fmt("SMART EXECUTE OFF-LINE IMMEDIATE 0x%02x: this ATA seam reads only", subcommand));
}

void CapturedAtaAdmin::smart_execute_offline_immediate(std::uint8_t subcommand) {
  issued_.push_back(fmt("execute-offline 0x%02x", subcommand));
}

void capture_ata_pages(AtaAdmin& admin, const std::filesystem::path& dir,
                       const std::string& reading) {
  std::filesystem::create_directories(dir);
  auto write = [&](const std::filesystem::path& file, const AtaPage& page) {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(page.data()),
              static_cast<std::streamsize>(page.size()));
    if (!out) throw AtaError("cannot write " + file.string());
  };
  write(dir / "ata-identify.bin", admin.identify_device());
  write(reading_file(dir, "smart", reading), admin.smart_read_data());
  write(dir / "ata-thresholds.bin", admin.smart_read_thresholds());
  for (auto [log, kind] :
       {std::pair{kAtaSelfTestLog, "selftest"}, std::pair{kAtaSummaryErrorLog, "errorlog"}}) {
    try {
      write(reading_file(dir, kind, reading), admin.smart_read_log(log));
    } catch (const AtaPassThroughRefused&) {
      throw;
    } catch (const AtaError&) {  // the drive has no such log: not captured, as the reader expects
    }
  }
  const AtaSmartStatus status = admin.smart_return_status();
  std::ofstream(dir / ("ata-status-" + reading + ".txt")) << to_string(status) << "\n";
}

}  // namespace storqual::devices
