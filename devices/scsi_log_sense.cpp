// SPDX-License-Identifier: Apache-2.0
// SgIoScsiLog: LOG SENSE (10) through SG_IO (see scsi_log.hpp). One read-only command, cumulative
// values (PC 01b), subpage 0; the page's own length decides how much of the reply is kept. READ
// DEFECT DATA asks for the grown list's header only (its length, never the list), REQUEST SENSE
// for the sense data (a failure prediction, a self-test's progress), MODE SENSE for the Control
// mode page (the extended self-test's time). A self-test
// (devices/self_test.hpp) adds SEND DIAGNOSTIC (start or abort a background test).
#include <fcntl.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "devices/scsi_log.hpp"
#include "devices/sg_sense.hpp"

namespace storqual::devices {
namespace {

constexpr std::uint8_t kLogSense10 = 0x4D, kSendDiagnostic = 0x1D, kRequestSense = 0x03,
                       kReadDefectData10 = 0x37, kReadDefectData12 = 0xB7, kModeSense10 = 0x5A,
                       kControlModePage = 0x0A;
// READ DEFECT DATA byte 2 of (10), byte 1 of (12): REQ_GLIST, address descriptor format long
// block (011b; a drive that keeps another format answers in its own, with RECOVERED ERROR).
constexpr std::uint8_t kGrownListLongBlock = 0x08 | 0x03;
constexpr std::uint16_t kAllocation = 0xFFFC;
constexpr std::uint8_t kSenseAllocation = 252;
constexpr unsigned kTimeoutMs = 15000;

// One CDB through SG_IO, data in (`data` resized to what came) or none. Throws ScsiLogRefused
// for a transport without SG_IO or ILLEGAL REQUEST, ScsiError otherwise; RECOVERED ERROR is no
// error when `recovered_ok` (READ DEFECT DATA in another format than asked for).
void run_cdb(int fd, std::span<std::uint8_t> cdb, std::vector<std::uint8_t>* data,
             const std::string& what, bool recovered_ok = false) {
  std::uint8_t sense[64] = {};
  sg_io_hdr_t io{};
  io.interface_id = 'S';
  io.cmdp = cdb.data();
  io.cmd_len = static_cast<unsigned char>(cdb.size());
  io.sbp = sense;
  io.mx_sb_len = sizeof sense;
  io.timeout = kTimeoutMs;
  io.dxfer_direction = data ? SG_DXFER_FROM_DEV : SG_DXFER_NONE;
  if (data) {
    io.dxferp = data->data();
    io.dxfer_len = static_cast<unsigned>(data->size());
  }
  if (::ioctl(fd, SG_IO, &io) != 0) {
    const int e = errno;
    if (e == ENOTTY || e == EINVAL)
      throw ScsiLogRefused(what + ": the device takes no SCSI pass-through (" + std::strerror(e) +
                           ")");
    throw ScsiError(what + " failed: " + std::strerror(e));
  }
  if (io.host_status || (io.driver_status & 0x07))
    throw ScsiError(what + " failed: host status " + sg_hex(io.host_status) + ", driver status " +
                    sg_hex(io.driver_status));
  if (io.status != 0) {
    const SenseKey k = sense_key(sense, io.sb_len_wr);
    const std::string detail =
        "sense key " + sg_hex(k.key) + ", ASC " + sg_hex(k.asc) + "/" + sg_hex(k.ascq) + ")";
    if (k.key == 0x5) throw ScsiLogRefused(what + " refused (ILLEGAL REQUEST, " + detail);
    if (!(recovered_ok && k.key == 0x1))
      throw ScsiError(what + " failed (SCSI status " + sg_hex(io.status) + ", " + detail);
  }
  if (data) data->resize(data->size() - static_cast<std::size_t>(std::max(io.resid, 0)));
}

}  // namespace

SgIoScsiLog::SgIoScsiLog(const std::string& devnode) : devnode_(devnode) {
  fd_ = ::open(devnode.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw ScsiError(devnode + ": cannot open: " + std::strerror(errno));
}

SgIoScsiLog::~SgIoScsiLog() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::uint8_t> SgIoScsiLog::log_sense(std::uint8_t page) {
  std::uint8_t cdb[10] = {kLogSense10,
                          0,
                          static_cast<std::uint8_t>(0x40 | (page & 0x3F)),
                          0,
                          0,
                          0,
                          0,
                          kAllocation >> 8,
                          kAllocation & 0xFF,
                          0};
  std::vector<std::uint8_t> data(kAllocation);
  run_cdb(fd_, cdb, &data, devnode_ + ": LOG SENSE page " + sg_hex(page));
  const std::size_t got = data.size();
  if (got >= 4) data.resize(std::min<std::size_t>(got, 4u + ((data[2] << 8) | data[3])));
  return data;
}

void SgIoScsiLog::send_diagnostic(std::uint8_t self_test_code) {
  // Byte 1: SELF-TEST CODE in bits 7-5 (SELFTEST 0, no parameter list).
  std::uint8_t cdb[6] = {
      kSendDiagnostic, static_cast<std::uint8_t>((self_test_code & 0x7) << 5), 0, 0, 0, 0};
  run_cdb(fd_, cdb, nullptr,
          devnode_ + ": SEND DIAGNOSTIC self-test code " + sg_hex(self_test_code));
}

std::vector<std::uint8_t> SgIoScsiLog::request_sense() {
  std::uint8_t cdb[6] = {kRequestSense, 0, 0, 0, kSenseAllocation, 0};
  std::vector<std::uint8_t> data(kSenseAllocation);
  run_cdb(fd_, cdb, &data, devnode_ + ": REQUEST SENSE");
  return data;
}

std::vector<std::uint8_t> SgIoScsiLog::read_defect_data(bool twelve) {
  std::vector<std::uint8_t> header(twelve ? 8 : 4);
  if (twelve) {
    std::uint8_t cdb[12] = {kReadDefectData12, kGrownListLongBlock, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0};
    run_cdb(fd_, cdb, &header, devnode_ + ": READ DEFECT DATA (12)", true);
  } else {
    std::uint8_t cdb[10] = {kReadDefectData10, 0, kGrownListLongBlock, 0, 0, 0, 0, 0, 4, 0};
    run_cdb(fd_, cdb, &header, devnode_ + ": READ DEFECT DATA (10)", true);
  }
  return header;
}

std::vector<std::uint8_t> SgIoScsiLog::mode_sense_control() {
  // Byte 1: DBD (no block descriptors); byte 2: PC 00b (current values), page 0Ah.
  std::uint8_t cdb[10] = {kModeSense10, 0x08, kControlModePage, 0, 0, 0, 0, 0, kSenseAllocation, 0};
  std::vector<std::uint8_t> data(kSenseAllocation);
  run_cdb(fd_, cdb, &data, devnode_ + ": MODE SENSE page 0Ah");
  return data;
}

void ScsiLogSource::send_diagnostic(std::uint8_t self_test_code) {
  throw ScsiLogRefused("SEND DIAGNOSTIC self-test code " + sg_hex(self_test_code) +
                       ": not available through this SCSI log source");
}

std::vector<std::uint8_t> ScsiLogSource::request_sense() {
  throw ScsiLogRefused("REQUEST SENSE: not available through this SCSI log source");
}

std::vector<std::uint8_t> ScsiLogSource::mode_sense_control() {
  throw ScsiLogRefused("MODE SENSE page 0Ah: not available through this SCSI log source");
}

std::vector<std::uint8_t> ScsiLogSource::read_defect_data(bool twelve) {
  throw ScsiLogRefused(std::string("READ DEFECT DATA (") + (twelve ? "12" : "10") +
                       "): not available through this SCSI log source");
}

}  // namespace storqual::devices
