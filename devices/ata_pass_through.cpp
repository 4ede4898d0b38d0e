// SPDX-License-Identifier: Apache-2.0
// SgIoAtaAdmin: ATA commands as SCSI ATA PASS-THROUGH (16) through SG_IO (see ata_smart.hpp).
// Hand-written rather than through libatasmart (which opens and reads the whole disk its own way,
// and reads neither the self-test nor the error log) or libsgutils2 (whose sg_pt layer would only
// replace the one ioctl below): five read-only commands and the sense data that answers them, and
// SMART EXECUTE OFF-LINE IMMEDIATE for a self-test (devices/self_test.hpp).
#include <fcntl.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "devices/ata_smart.hpp"
#include "devices/sg_sense.hpp"

namespace storqual::devices {
namespace {

constexpr std::uint8_t kAtaPassThrough16 = 0x85;
constexpr std::uint8_t kAtaSmart = 0xB0, kAtaIdentifyDevice = 0xEC;
constexpr std::uint8_t kSmartReadData = 0xD0, kSmartReadThresholds = 0xD1, kSmartReadLog = 0xD5,
                       kSmartExecuteOffline = 0xD4, kSmartReturnStatus = 0xDA;
constexpr std::uint8_t kSmartLbaMid = 0x4F, kSmartLbaHigh = 0xC2;
constexpr unsigned kTimeoutMs = 15000;

struct AtaCommand {
  std::uint8_t command = 0, features = 0, count = 0, lba_low = 0, lba_mid = 0, lba_high = 0;
  bool reads_page = true;  // PIO data-in of one 512-byte block; else non-data, registers back
  const char* what = "";
};

// The ATA registers a SAT translator returns in sense data (descriptor 09h of descriptor-format
// sense, or the information fields of fixed-format sense).
struct AtaRegisters {
  bool present = false;
  std::uint8_t error = 0, status = 0, lba_mid = 0, lba_high = 0;
};

AtaRegisters registers_from_sense(const std::uint8_t* sense, std::size_t len) {
  AtaRegisters r;
  if (len < 8) return r;
  const std::uint8_t code = sense[0] & 0x7F;
  if (code == 0x72 || code == 0x73) {
    std::size_t end = std::min<std::size_t>(len, 8u + sense[7]);
    for (std::size_t i = 8; i + 1 < end; i += 2u + sense[i + 1]) {
      if (sense[i] == 0x09 && i + 13 < end) {
        r.present = true;
        r.error = sense[i + 3];
        r.lba_mid = sense[i + 9];
        r.lba_high = sense[i + 11];
        r.status = sense[i + 13];
        break;
      }
    }
  } else if ((code == 0x70 || code == 0x71) && len >= 12) {
    r.present = true;
    r.error = sense[3];
    r.status = sense[4];
    r.lba_mid = sense[10];
    r.lba_high = sense[11];
  }
  return r;
}

}  // namespace

SgIoAtaAdmin::SgIoAtaAdmin(const std::string& devnode) : devnode_(devnode) {
  fd_ = ::open(devnode.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw AtaError(devnode + ": cannot open: " + std::strerror(errno));
}

SgIoAtaAdmin::~SgIoAtaAdmin() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Issues one command; returns the registers the translator gave back (for RETURN STATUS). Throws
// AtaPassThroughRefused when the transport refuses the CDB, AtaError when the drive aborts it.
AtaRegisters issue(int fd, const std::string& devnode, const AtaCommand& c, AtaPage* page) {
  std::uint8_t cdb[16] = {};
  cdb[0] = kAtaPassThrough16;
  // Byte 1: protocol 4 (PIO data-in) or 3 (non-data), shifted left by one. Byte 2: for data-in
  // T_DIR=1 BYT_BLOK=1 T_LENGTH=2 (the count field in blocks); for non-data CK_COND=1 (the
  // registers come back in sense data).
  cdb[1] = c.reads_page ? (4 << 1) : (3 << 1);
  cdb[2] = c.reads_page ? 0x0E : 0x20;
  cdb[4] = c.features;
  cdb[6] = c.count;
  cdb[8] = c.lba_low;
  cdb[10] = c.lba_mid;
  cdb[12] = c.lba_high;
  cdb[14] = c.command;
  std::uint8_t sense[64] = {};
  sg_io_hdr_t io{};
  io.interface_id = 'S';
  io.cmdp = cdb;
  io.cmd_len = sizeof cdb;
  io.sbp = sense;
  io.mx_sb_len = sizeof sense;
  io.timeout = kTimeoutMs;
  if (page) {
    page->fill(0);
    io.dxfer_direction = SG_DXFER_FROM_DEV;
    io.dxferp = page->data();
    io.dxfer_len = page->size();
  } else {
    io.dxfer_direction = SG_DXFER_NONE;
  }
  const std::string what = devnode + ": " + c.what;
  if (::ioctl(fd, SG_IO, &io) != 0) {
    const int e = errno;
    if (e == ENOTTY || e == EINVAL)
      throw AtaPassThroughRefused(what + ": the device takes no SCSI pass-through (" +
                                  std::strerror(e) + ")");
    throw AtaError(what + " failed: " + std::strerror(e));
  }
  if (io.host_status || (io.driver_status & 0x07))  // 08h, DRIVER_SENSE, only says sense came
    throw AtaError(what + " failed: host status " + sg_hex(io.host_status) + ", driver status " +
                   sg_hex(io.driver_status));
  const std::size_t sense_len = io.sb_len_wr;
  const AtaRegisters regs = registers_from_sense(sense, sense_len);
  if (io.status == 0) return regs;
  const SenseKey k = sense_key(sense, sense_len);
  // RECOVERED ERROR, "ATA pass through information available" (00h/1Dh): the registers CK_COND
  // asked for.
  if (k.key == 0x1 && k.asc == 0x00 && k.ascq == 0x1D) return regs;
  if (k.key == 0x5)  // ILLEGAL REQUEST: the translator does not know ATA PASS-THROUGH
    throw AtaPassThroughRefused(what + ": ATA pass-through refused (ILLEGAL REQUEST, ASC " +
                                sg_hex(k.asc) + "/" + sg_hex(k.ascq) + ")");
  if (regs.present && (regs.status & 0x01))  // ERR: the drive aborted the command
    throw AtaCommandAborted(what + " aborted by the drive (ATA status " + sg_hex(regs.status) +
                            ", error " + sg_hex(regs.error) + ")");
  throw AtaError(what + " failed: SCSI status " + sg_hex(io.status) + ", sense key " +
                 sg_hex(k.key) + ", ASC " + sg_hex(k.asc) + "/" + sg_hex(k.ascq));
}

AtaCommand smart(std::uint8_t feature, const char* what, std::uint8_t lba_low = 0) {
  return {kAtaSmart, feature, 1, lba_low, kSmartLbaMid, kSmartLbaHigh, true, what};
}

}  // namespace

AtaPage SgIoAtaAdmin::identify_device() {
  AtaPage p;
  issue(fd_, devnode_, {kAtaIdentifyDevice, 0, 1, 0, 0, 0, true, "IDENTIFY DEVICE"}, &p);
  return p;
}

AtaPage SgIoAtaAdmin::smart_read_data() {
  AtaPage p;
  issue(fd_, devnode_, smart(kSmartReadData, "SMART READ DATA"), &p);
  return p;
}

AtaPage SgIoAtaAdmin::smart_read_thresholds() {
  AtaPage p;
  issue(fd_, devnode_, smart(kSmartReadThresholds, "SMART READ THRESHOLDS"), &p);
  return p;
}

AtaPage SgIoAtaAdmin::smart_read_log(std::uint8_t log_address) {
  AtaPage p;
  const std::string what = "SMART READ LOG " + sg_hex(log_address);
  issue(fd_, devnode_, smart(kSmartReadLog, what.c_str(), log_address), &p);
  return p;
}

AtaSmartStatus SgIoAtaAdmin::smart_return_status() {
  AtaCommand c = smart(kSmartReturnStatus, "SMART RETURN STATUS");
  c.count = 0;
  c.reads_page = false;
  const AtaRegisters r = issue(fd_, devnode_, c, nullptr);
  if (!r.present) return AtaSmartStatus::Unknown;
  if (r.lba_mid == 0x4F && r.lba_high == 0xC2) return AtaSmartStatus::Passed;
  if (r.lba_mid == 0xF4 && r.lba_high == 0x2C) return AtaSmartStatus::Failing;
  return AtaSmartStatus::Unknown;
}

}  // namespace storqual::devices

namespace storqual::devices {

void SgIoAtaAdmin::smart_execute_offline_immediate(std::uint8_t subcommand) {
  AtaCommand c = smart(kSmartExecuteOffline, "SMART EXECUTE OFF-LINE IMMEDIATE", subcommand);
  c.count = 0;
  c.reads_page = false;
  const std::string what = std::string(c.what) + " " + sg_hex(subcommand);
  c.what = what.c_str();
  (void)issue(fd_, devnode_, c, nullptr);
}

}  // namespace storqual::devices
