// SPDX-License-Identifier: Apache-2.0
// Self-tests through the three health seams (see self_test.hpp). Each transport's test remembers
// its log's newest entry before the start, so that the entry read after the test is known to be
// the one it left.
#include "devices/self_test.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "devices/ata_smart.hpp"
#include "devices/scsi_log.hpp"
#include "devices/sg_sense.hpp"

namespace storqual::devices {

const char* to_string(SelfTestType t) {
  switch (t) {
    case SelfTestType::Short:
      return "short";
    case SelfTestType::Extended:
      return "extended";
    case SelfTestType::Conveyance:
      return "conveyance";
  }
  return "?";
}

std::optional<SelfTestType> parse_self_test_type(std::string_view text) {
  for (SelfTestType t : {SelfTestType::Short, SelfTestType::Extended, SelfTestType::Conveyance})
    if (text == to_string(t)) return t;
  return std::nullopt;
}

const char* to_string(SelfTestOutcome o) {
  switch (o) {
    case SelfTestOutcome::Passed:
      return "passed";
    case SelfTestOutcome::Failed:
      return "failed";
    case SelfTestOutcome::Aborted:
      return "aborted";
    case SelfTestOutcome::Unknown:
      return "unknown";
  }
  return "?";
}

namespace {

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string hex_byte(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", v & 0xFF);
  return b;
}

std::uint64_t le(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | b[at + i];
  return v;
}

}  // namespace

// ---- decoders ----

AtaSelfTestExecution decode_ata_self_test_execution(std::uint8_t byte363) {
  return {static_cast<std::uint8_t>(byte363 >> 4), (byte363 & 0x0Fu) * 10u};
}

std::optional<unsigned> ata_polling_minutes(std::span<const std::uint8_t, 512> data,
                                            SelfTestType type) {
  unsigned minutes = 0;
  switch (type) {
    case SelfTestType::Short:
      minutes = data[372];
      break;
    case SelfTestType::Extended:
      minutes = data[373] == 0xFF ? static_cast<unsigned>(le(data, 375, 2)) : data[373];
      break;
    case SelfTestType::Conveyance:
      minutes = data[374];
      break;
  }
  return minutes ? std::optional<unsigned>(minutes) : std::nullopt;
}

bool ata_supports(std::span<const std::uint8_t, 512> data, SelfTestType type) {
  const std::uint8_t capability = data[367];
  if (!(capability & 0x10)) return false;
  return type != SelfTestType::Conveyance || (capability & 0x20);
}

std::optional<double> scsi_sense_progress(std::span<const std::uint8_t> sense) {
  if (sense.size() < 8) return std::nullopt;
  const std::uint8_t code = sense[0] & 0x7F;
  const std::uint8_t* sks = nullptr;
  if ((code == 0x70 || code == 0x71) && sense.size() >= 18) {
    sks = &sense[15];
  } else if (code == 0x72 || code == 0x73) {
    const std::size_t end = std::min<std::size_t>(sense.size(), 8u + sense[7]);
    for (std::size_t i = 8; i + 1 < end; i += 2u + sense[i + 1])
      if (sense[i] == 0x02 && i + 6 < end) {
        sks = &sense[i + 4];
        break;
      }
  }
  if (!sks || !(sks[0] & 0x80)) return std::nullopt;  // SKSV: the field is not valid
  const SenseKey k = sense_key(sense.data(), sense.size());
  if (k.key != 0x0 && k.key != 0x2) return std::nullopt;  // progress only with NO SENSE/NOT READY
  const unsigned progress = (unsigned(sks[1]) << 8) | sks[2];
  return progress * 100.0 / 65536.0;
}

bool scsi_sense_self_test_in_progress(std::span<const std::uint8_t> sense) {
  const SenseKey k = sense_key(sense.data(), sense.size());
  return k.asc == 0x04 && k.ascq == 0x09;
}

std::string NvmeSelfTestEntry::result_text() const {
  switch (result) {
    case 0:
      return "completed without error";
    case 1:
      return "aborted by a Device Self-test command";
    case 2:
      return "aborted by a controller reset";
    case 3:
      return "aborted by the removal of a namespace";
    case 4:
      return "aborted by a Format NVM command";
    case 5:
      return "fatal or unknown test error";
    case 6:
      return "completed with a failed segment (segment not known)";
    case 7:
      return "completed with segment " + std::to_string(segment) + " failed";
    case 8:
      return "aborted for an unknown reason";
    case 9:
      return "aborted by a sanitize operation";
    default:
      return "unknown result " + hex_byte(result);
  }
}

NvmeSelfTestLog parse_nvme_self_test_log(const SelfTestLogPage& page) {
  NvmeSelfTestLog log;
  log.current_operation = page[0] & 0x0F;
  log.percent_complete = page[1] & 0x7F;
  for (std::size_t i = 0; i < 20; ++i) {
    const std::span<const std::uint8_t> e(page.data() + 4 + i * 28, 28);
    NvmeSelfTestEntry x;
    x.code = e[0] >> 4;
    x.result = e[0] & 0x0F;
    if (x.result == 0x0F) continue;  // entry not used
    x.segment = e[1];
    const std::uint8_t valid = e[2];
    x.power_on_hours = le(e, 4, 8);
    if (valid & 0x01) x.nsid = static_cast<std::uint32_t>(le(e, 12, 4));
    if (valid & 0x02) x.failing_lba = le(e, 16, 8);
    if (valid & 0x04) x.status_code_type = e[24] & 0x07;
    if (valid & 0x08) x.status_code = e[25];
    log.entries.push_back(x);
  }
  return log;
}

std::uint16_t nvme_extended_self_test_minutes(std::span<const std::uint8_t> ctrl) {
  return ctrl.size() >= 318 ? static_cast<std::uint16_t>(le(ctrl, 316, 2)) : 0;
}

bool nvme_supports_self_test(std::span<const std::uint8_t> ctrl) {
  return ctrl.size() >= 258 && (ctrl[256] & 0x10);
}

namespace {

// ---- ATA ----

class AtaSelfTest final : public DeviceSelfTest {
 public:
  explicit AtaSelfTest(AtaAdmin& admin) : admin_(admin) {}
  std::string_view transport() const noexcept override { return "ata"; }

  std::optional<double> expected_seconds(SelfTestType type) override {
    const AtaPage data = admin_.smart_read_data();
    if (auto m = ata_polling_minutes(data, type)) return *m * 60.0;
    return std::nullopt;
  }

  void start(SelfTestType type) override {
    const AtaPage data = admin_.smart_read_data();
    if (!ata_supports(data, type))
      throw SelfTestNotSupported(std::string("the drive does not support the ") + to_string(type) +
                                 " self-test (SMART READ DATA byte 367 = " + hex_byte(data[367]) +
                                 ")");
    type_ = type;
    before_.reset();
    try {
      before_ = admin_.smart_read_log(kAtaSelfTestLog);
    } catch (const AtaError&) {
      // No log before: any entry after is new.
    }
    try {
      admin_.smart_execute_offline_immediate(subcommand(type));
    } catch (const AtaCommandAborted& e) {
      throw SelfTestNotSupported(e.what());
    } catch (const AtaPassThroughRefused& e) {
      throw SelfTestNotSupported(e.what());
    }
  }

  SelfTestProgress poll() override {
    last_execution_ = admin_.smart_read_data()[363];
    const AtaSelfTestExecution x = decode_ata_self_test_execution(last_execution_);
    SelfTestProgress p;
    p.running = x.running();
    p.percent_done = x.running() ? 100.0 - x.remaining_pct : 100.0;
    return p;
  }

  SelfTestResult result() override {
    SelfTestResult r;
    const AtaPage page = admin_.smart_read_log(kAtaSelfTestLog);
    const auto entries = parse_ata_self_test_log(page);
    const bool same_log = before_ && (*before_)[508] == page[508] &&
                          parse_ata_self_test_log(*before_).size() == entries.size() &&
                          std::equal(before_->begin(), before_->begin() + 506, page.begin());
    if (entries.empty() || same_log) {
      r.status_text = "the self-test log has no new entry (execution status byte 363 = " +
                      hex_byte(last_execution_) + ")";
      return r;
    }
    const AtaSelfTestEntry& e = entries.front();
    r.power_on_hours = e.hours;
    if ((e.test & 0x7F) != subcommand(type_)) {
      r.status_text = "the newest log entry is a " + lower_first(e.test_name()) +
                      " test, not the " + to_string(type_) + " one";
      return r;
    }
    r.status_text = lower_first(e.status_text());
    if (e.failed() && e.failing_lba != 0xFFFFFFFFu && e.failing_lba != 0) {
      r.failing_lba = e.failing_lba;
      r.status_text += " at LBA " + std::to_string(e.failing_lba);
    }
    r.outcome = e.status == 0                    ? SelfTestOutcome::Passed
                : e.status == 1 || e.status == 2 ? SelfTestOutcome::Aborted
                : e.failed()                     ? SelfTestOutcome::Failed
                                                 : SelfTestOutcome::Unknown;
    return r;
  }

  void abort() override { admin_.smart_execute_offline_immediate(0x7F); }

 private:
  static std::uint8_t subcommand(SelfTestType t) {
    return t == SelfTestType::Short ? 1 : t == SelfTestType::Extended ? 2 : 3;
  }
  AtaAdmin& admin_;
  SelfTestType type_ = SelfTestType::Short;
  std::optional<AtaPage> before_;
  std::uint8_t last_execution_ = 0;
};

// ---- SCSI ----

bool same_scsi_entry(const ScsiSelfTest& a, const ScsiSelfTest& b) {
  return a.code == b.code && a.result == b.result && a.number == b.number && a.hours == b.hours &&
         a.first_failure_lba == b.first_failure_lba && a.sense_key == b.sense_key &&
         a.asc == b.asc && a.ascq == b.ascq;
}

class ScsiSelfTestControl final : public DeviceSelfTest {
 public:
  explicit ScsiSelfTestControl(ScsiLogSource& source) : source_(source) {}
  std::string_view transport() const noexcept override { return "scsi"; }

  // SPC-5: a background short self-test takes at most two minutes; the extended one's time is the
  // Control mode page's (0Ah) extended self-test completion time, when the drive gives one.
  std::optional<double> expected_seconds(SelfTestType type) override {
    if (type == SelfTestType::Short) return 120;
    if (type != SelfTestType::Extended) return std::nullopt;
    try {
      if (const auto s = parse_extended_self_test_seconds(source_.mode_sense_control())) return *s;
    } catch (const ScsiError&) {
    }
    return std::nullopt;
  }

  void start(SelfTestType type) override {
    if (type == SelfTestType::Conveyance)
      throw SelfTestNotSupported("SCSI has no conveyance self-test (SPC-5 SEND DIAGNOSTIC)");
    before_ = newest();
    try {
      source_.send_diagnostic(type == SelfTestType::Short ? 0x1 : 0x2);
    } catch (const ScsiLogRefused& e) {
      throw SelfTestNotSupported(e.what());
    }
  }

  SelfTestProgress poll() override {
    SelfTestProgress p;
    const std::vector<std::uint8_t> sense = source_.request_sense();
    p.percent_done = scsi_sense_progress(sense);
    p.running = scsi_sense_self_test_in_progress(sense);
    if (!p.running) {
      const auto now = newest();
      p.running = now && now->result == 0xF;
    }
    if (!p.running) p.percent_done = 100;
    return p;
  }

  SelfTestResult result() override {
    SelfTestResult r;
    const auto now = newest();
    if (!now || (before_ && same_scsi_entry(*before_, *now))) {
      r.status_text = "the self-test results log (page 10h) has no new entry";
      return r;
    }
    r.power_on_hours = now->hours;
    r.status_text = lower_first(now->result_text());
    if (now->result == 7) r.status_text += std::to_string(now->number);
    if (now->failed() && now->first_failure_lba != ~std::uint64_t{0}) {
      r.failing_lba = now->first_failure_lba;
      r.status_text += " at LBA " + std::to_string(now->first_failure_lba);
    }
    r.outcome = now->result == 0                       ? SelfTestOutcome::Passed
                : now->result == 1 || now->result == 2 ? SelfTestOutcome::Aborted
                : now->failed()                        ? SelfTestOutcome::Failed
                                                       : SelfTestOutcome::Unknown;
    return r;
  }

  void abort() override { source_.send_diagnostic(0x4); }

 private:
  std::optional<ScsiSelfTest> newest() {
    try {
      const auto tests = parse_scsi_self_tests(source_.log_sense(kScsiSelfTest));
      if (!tests.empty()) return tests.front();
    } catch (const ScsiError&) {
      // No page 10h: nothing to compare with.
    }
    return std::nullopt;
  }
  ScsiLogSource& source_;
  std::optional<ScsiSelfTest> before_;
};

// ---- NVMe ----

bool same_nvme_entry(const NvmeSelfTestEntry& a, const NvmeSelfTestEntry& b) {
  return a.code == b.code && a.result == b.result && a.segment == b.segment &&
         a.power_on_hours == b.power_on_hours && a.nsid == b.nsid && a.failing_lba == b.failing_lba;
}

class NvmeSelfTestControl final : public DeviceSelfTest {
 public:
  explicit NvmeSelfTestControl(NvmeAdmin& admin) : admin_(admin) {}
  std::string_view transport() const noexcept override { return "nvme"; }

  // NVMe Base 2.0 8.12: a short test takes at most two minutes; EDSTT gives the extended one's.
  std::optional<double> expected_seconds(SelfTestType type) override {
    if (type == SelfTestType::Short) return 120;
    if (type == SelfTestType::Conveyance) return std::nullopt;
    const IdentifyPage ctrl = admin_.identify_controller();
    if (auto m = nvme_extended_self_test_minutes(ctrl)) return m * 60.0;
    return std::nullopt;
  }

  void start(SelfTestType type) override {
    if (type == SelfTestType::Conveyance)
      throw SelfTestNotSupported(
          "NVMe has no conveyance self-test (Device Self-test: short 1h, "
          "extended 2h)");
    const IdentifyPage ctrl = admin_.identify_controller();
    if (!nvme_supports_self_test(ctrl))
      throw SelfTestNotSupported(
          "the controller does not support Device Self-test (Identify Controller OACS bit 4 "
          "clear)");
    code_ = type == SelfTestType::Short ? 1 : 2;
    const auto log = parse_nvme_self_test_log(admin_.self_test_log());
    before_.reset();
    if (!log.entries.empty()) before_ = log.entries.front();
    admin_.device_self_test(code_);
  }

  SelfTestProgress poll() override {
    const auto log = parse_nvme_self_test_log(admin_.self_test_log());
    SelfTestProgress p;
    p.running = log.current_operation != 0;
    p.percent_done = p.running ? log.percent_complete : 100.0;
    return p;
  }

  SelfTestResult result() override {
    SelfTestResult r;
    const auto log = parse_nvme_self_test_log(admin_.self_test_log());
    if (log.entries.empty() || (before_ && same_nvme_entry(*before_, log.entries.front()))) {
      r.status_text = "the device self-test log (06h) has no new entry";
      return r;
    }
    const NvmeSelfTestEntry& e = log.entries.front();
    r.power_on_hours = e.power_on_hours;
    if (e.code != code_) {
      r.status_text = "the newest log entry is of self-test code " + hex_byte(e.code) + ", not " +
                      hex_byte(code_);
      return r;
    }
    r.status_text = e.result_text();
    if (e.failed() && e.failing_lba) {
      r.failing_lba = e.failing_lba;
      r.status_text += " at LBA " + std::to_string(*e.failing_lba);
    }
    r.outcome = e.result == 0   ? SelfTestOutcome::Passed
                : e.failed()    ? SelfTestOutcome::Failed
                : e.result <= 9 ? SelfTestOutcome::Aborted
                                : SelfTestOutcome::Unknown;
    return r;
  }

  void abort() override { admin_.device_self_test(0xF); }

 private:
  NvmeAdmin& admin_;
  std::uint8_t code_ = 1;
  std::optional<NvmeSelfTestEntry> before_;
};

}  // namespace

std::unique_ptr<DeviceSelfTest> ata_self_test(AtaAdmin& admin) {
  return std::make_unique<AtaSelfTest>(admin);
}

std::unique_ptr<DeviceSelfTest> scsi_self_test(ScsiLogSource& source) {
  return std::make_unique<ScsiSelfTestControl>(source);
}

std::unique_ptr<DeviceSelfTest> nvme_self_test(NvmeAdmin& admin) {
  return std::make_unique<NvmeSelfTestControl>(admin);
}

}  // namespace storqual::devices
