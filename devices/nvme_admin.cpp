// SPDX-License-Identifier: Apache-2.0
// NvmeAdmin implementations and page parsing (see nvme_admin.hpp).
#include "devices/nvme_admin.hpp"

#include <endian.h>
#include <fcntl.h>
#include <libnvme.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "devices/sanitize.hpp"

namespace storqual::devices {

static_assert(sizeof(nvme_id_ctrl) == sizeof(IdentifyPage));
static_assert(sizeof(nvme_id_ns) == sizeof(IdentifyPage));
static_assert(sizeof(nvme_smart_log) == sizeof(SmartLogPage));

namespace {

std::string command_failure(const std::string& devnode, const char* what, int rc) {
  if (rc < 0) return devnode + ": " + what + " failed: " + std::strerror(errno);
  return devnode + ": " + what + " failed with NVMe status 0x" + [&] {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", rc);
    return std::string(buf);
  }();
}

template <std::size_t N>
std::array<std::uint8_t, N> read_page(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw NvmeError("cannot open captured NVMe page " + file.string());
  std::array<std::uint8_t, N> page{};
  in.read(reinterpret_cast<char*>(page.data()), N);
  if (in.gcount() != static_cast<std::streamsize>(N) || in.peek() != std::char_traits<char>::eof())
    throw NvmeError("captured NVMe page " + file.string() + " is not " + std::to_string(N) +
                    " bytes");
  return page;
}

template <typename T, std::size_t N>
T as(const std::array<std::uint8_t, N>& page) {
  static_assert(sizeof(T) == N);
  T value;
  std::memcpy(&value, page.data(), N);
  return value;
}

}  // namespace

LibnvmeAdmin::LibnvmeAdmin(const std::string& devnode) : devnode_(devnode) {
  fd_ = ::open(devnode.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw NvmeError(devnode + ": cannot open: " + std::strerror(errno));
  __u32 nsid = 0;
  // A controller character device has no namespace of its own.
  if (nvme_get_nsid(fd_, &nsid) == 0 && nsid != 0) nsid_ = nsid;
}

LibnvmeAdmin::~LibnvmeAdmin() {
  if (fd_ >= 0) ::close(fd_);
}

IdentifyPage LibnvmeAdmin::identify_controller() {
  nvme_id_ctrl id{};
  int rc = nvme_identify_ctrl(fd_, &id);
  if (rc != 0) throw NvmeError(command_failure(devnode_, "identify controller", rc));
  IdentifyPage page;
  std::memcpy(page.data(), &id, page.size());
  return page;
}

IdentifyPage LibnvmeAdmin::identify_namespace() {
  nvme_id_ns ns{};
  int rc = nvme_identify_ns(fd_, nsid_, &ns);
  if (rc != 0) throw NvmeError(command_failure(devnode_, "identify namespace", rc));
  IdentifyPage page;
  std::memcpy(page.data(), &ns, page.size());
  return page;
}

SmartLogPage LibnvmeAdmin::smart_log() {
  nvme_smart_log log{};
  int rc = nvme_get_log_smart(fd_, NVME_NSID_ALL, false, &log);
  if (rc != 0) throw NvmeError(command_failure(devnode_, "SMART / health log", rc));
  SmartLogPage page;
  std::memcpy(page.data(), &log, page.size());
  return page;
}

OcpSmartLogPage LibnvmeAdmin::ocp_smart_log() {
  OcpSmartLogPage page{};
  // A vendor-specific page: libnvme's generic call (nvme-cli's OCP plugin reads the same LID).
  int rc = nvme_get_log_simple(fd_, static_cast<nvme_cmd_get_log_lid>(0xC0),
                               static_cast<__u32>(page.size()), page.data());
  if (rc != 0) throw NvmeError(command_failure(devnode_, "log page C0h (OCP SMART extended)", rc));
  return page;
}

IdentifyPage LibnvmeAdmin::zns_identify_namespace() {
  IdentifyPage page{};
  static_assert(sizeof(nvme_zns_id_ns) == sizeof(IdentifyPage));
  if (int rc = nvme_zns_identify_ns(fd_, nsid_, reinterpret_cast<nvme_zns_id_ns*>(page.data()));
      rc != 0)
    throw NvmeError(command_failure(devnode_, "ZNS identify namespace", rc));
  return page;
}

void LibnvmeAdmin::format_namespace(std::uint8_t secure_erase) {
  nvme_id_ns ns{};
  if (int rc = nvme_identify_ns(fd_, nsid_, &ns); rc != 0)
    throw NvmeError(command_failure(devnode_, "identify namespace", rc));
  __u8 flbas = 0;
  nvme_id_ns_flbas_to_lbaf_inuse(ns.flbas, &flbas);
  __u32 result = 0;
  nvme_format_nvm_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.timeout = 3'600'000;  // ms: a format may erase every block
  args.nsid = nsid_;
  args.mset = static_cast<nvme_cmd_format_mset>((ns.flbas >> 4) & 1);
  args.pi = static_cast<nvme_cmd_format_pi>(ns.dps & 7);
  args.pil = static_cast<nvme_cmd_format_pil>((ns.dps >> 3) & 1);
  args.ses = static_cast<nvme_cmd_format_ses>(secure_erase);
  args.lbaf = flbas & 0xf;
  args.lbafu = static_cast<__u8>((flbas >> 4) & 0x3);
  if (int rc = nvme_format_nvm(&args); rc != 0)
    throw NvmeError(command_failure(devnode_, "format NVM", rc));
}

void LibnvmeAdmin::start_sanitize(SanitizeAction action) {
  __u32 result = 0;
  nvme_sanitize_nvm_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.sanact = static_cast<nvme_sanitize_sanact>(action);
  args.owpass = 1;
  if (int rc = nvme_sanitize_nvm(&args); rc != 0)
    throw NvmeError(command_failure(devnode_, "sanitize", rc));
}

SanitizeLogPage LibnvmeAdmin::sanitize_log() {
  nvme_sanitize_log_page log{};
  if (int rc = nvme_get_log_sanitize(fd_, false, &log); rc != 0)
    throw NvmeError(command_failure(devnode_, "sanitize status log", rc));
  SanitizeLogPage page;
  std::memcpy(page.data(), &log, page.size());
  return page;
}

void LibnvmeAdmin::device_self_test(std::uint8_t stc) {
  __u32 result = 0;
  nvme_dev_self_test_args args{};
  args.result = &result;
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.nsid = nsid_;
  args.stc = static_cast<nvme_dst_stc>(stc);
  if (int rc = nvme_dev_self_test(&args); rc != 0)
    throw NvmeError(
        command_failure(devnode_, ("device self-test " + std::to_string(stc)).c_str(), rc));
}

SelfTestLogPage LibnvmeAdmin::self_test_log() {
  nvme_self_test_log log{};
  static_assert(sizeof log == std::tuple_size_v<SelfTestLogPage>);
  if (int rc = nvme_get_log_device_self_test(fd_, &log); rc != 0)
    throw NvmeError(command_failure(devnode_, "device self-test log", rc));
  SelfTestLogPage page;
  std::memcpy(page.data(), &log, page.size());
  return page;
}

void CapturedNvmeAdmin::device_self_test(std::uint8_t stc) {
  issued_.push_back("self-test stc=" + std::to_string(stc));
}

SelfTestLogPage CapturedNvmeAdmin::self_test_log() {
  if (self_test_.empty()) throw NvmeError("no device self-test log (06h) was captured");
  const SelfTestLogPage& page = self_test_[next_self_test_];
  if (next_self_test_ + 1 < self_test_.size()) ++next_self_test_;
  return page;
}

CapturedNvmeAdmin::CapturedNvmeAdmin(const std::filesystem::path& dir,
                                     std::vector<std::string> smart_files)
    : ctrl_(read_page<4096>(dir / "identify-ctrl.bin")),
      ns_(read_page<4096>(dir / "identify-ns.bin")),
      zns_dir_(dir) {
  for (const auto& f : smart_files) smart_.push_back(read_page<512>(dir / f));
  if (smart_.empty()) throw NvmeError("CapturedNvmeAdmin needs at least one SMART log page");
}

IdentifyPage CapturedNvmeAdmin::zns_identify_namespace() {
  if (!zns_dir_.empty() && std::filesystem::exists(zns_dir_ / "identify-ns-zns.bin"))
    return read_page<4096>(zns_dir_ / "identify-ns-zns.bin");
  throw NvmeError("no ZNS Identify Namespace was captured (identify-ns-zns.bin)");
}

void CapturedNvmeAdmin::format_namespace(std::uint8_t secure_erase) {
  issued_.push_back("format ses=" + std::to_string(secure_erase));
}

void CapturedNvmeAdmin::start_sanitize(SanitizeAction action) {
  issued_.push_back("sanitize sanact=" + std::to_string(static_cast<unsigned>(action)));
  sanitizing_ = true;
  sanitize_polls_ = 0;
}

SanitizeLogPage CapturedNvmeAdmin::sanitize_log() {
  SanitizeLogPage page{};
  std::uint16_t sstat = NVME_SANITIZE_SSTAT_STATUS_NEVER_SANITIZED;
  std::uint16_t sprog = 0;
  if (sanitizing_) {
    if (sanitize_polls_ < sanitize_polls_in_progress_) {
      sstat = NVME_SANITIZE_SSTAT_STATUS_IN_PROGESS;
      sprog = static_cast<std::uint16_t>(65535u * (sanitize_polls_ + 1) /
                                         (sanitize_polls_in_progress_ + 1));
      ++sanitize_polls_;
    } else {
      sstat = sanitize_success_ ? NVME_SANITIZE_SSTAT_STATUS_COMPLETE_SUCCESS
                                : NVME_SANITIZE_SSTAT_STATUS_COMPLETED_FAILED;
      sprog = 65535;
    }
  }
  page[0] = static_cast<std::uint8_t>(sprog & 0xff);
  page[1] = static_cast<std::uint8_t>(sprog >> 8);
  page[2] = static_cast<std::uint8_t>(sstat & 0xff);
  page[3] = static_cast<std::uint8_t>(sstat >> 8);
  return page;
}

void CapturedNvmeAdmin::set_ocp_pages(const std::filesystem::path& dir,
                                      const std::vector<std::string>& files) {
  ocp_.clear();
  next_ocp_ = 0;
  for (const auto& f : files) ocp_.push_back(read_page<512>(dir / f));
}

OcpSmartLogPage CapturedNvmeAdmin::ocp_smart_log() {
  if (ocp_.empty()) throw NvmeError("no captured log page C0h");
  const OcpSmartLogPage& page = ocp_[std::min(next_ocp_, ocp_.size() - 1)];
  ++next_ocp_;
  return page;
}

SmartLogPage CapturedNvmeAdmin::smart_log() {
  const SmartLogPage& page = smart_[std::min(next_smart_, smart_.size() - 1)];
  ++next_smart_;
  return page;
}

Counter128 Counter128::from_le(const std::uint8_t* bytes16) {
  Counter128 c;
  for (int i = 7; i >= 0; --i) c.low = (c.low << 8) | bytes16[i];
  for (int i = 15; i >= 8; --i) c.high = (c.high << 8) | bytes16[i];
  return c;
}

namespace {

// Decimal text of a little-endian array of 32-bit limbs (destroys the limbs).
std::string limbs_to_decimal(std::vector<std::uint32_t> limbs) {
  std::string digits;
  auto is_zero = [&] {
    return std::all_of(limbs.begin(), limbs.end(), [](std::uint32_t l) { return l == 0; });
  };
  do {
    std::uint64_t rem = 0;
    for (auto it = limbs.rbegin(); it != limbs.rend(); ++it) {
      std::uint64_t cur = (rem << 32) | *it;
      *it = static_cast<std::uint32_t>(cur / 10);
      rem = cur % 10;
    }
    digits.push_back(static_cast<char>('0' + rem));
  } while (!is_zero());
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::vector<std::uint32_t> limbs_of(const Counter128& c) {
  return {static_cast<std::uint32_t>(c.low), static_cast<std::uint32_t>(c.low >> 32),
          static_cast<std::uint32_t>(c.high), static_cast<std::uint32_t>(c.high >> 32)};
}

}  // namespace

std::string Counter128::to_decimal() const {
  return limbs_to_decimal(limbs_of(*this));
}

std::string Counter128::times_to_decimal(std::uint32_t factor) const {
  std::vector<std::uint32_t> limbs = limbs_of(*this);
  std::uint64_t carry = 0;
  for (auto& limb : limbs) {
    std::uint64_t cur = std::uint64_t{limb} * factor + carry;
    limb = static_cast<std::uint32_t>(cur);
    carry = cur >> 32;
  }
  limbs.push_back(static_cast<std::uint32_t>(carry));
  return limbs_to_decimal(std::move(limbs));
}

Counter128 minus(const Counter128& a, const Counter128& b) {
  Counter128 r;
  r.low = a.low - b.low;
  r.high = a.high - b.high - (a.low < b.low ? 1 : 0);
  return r;
}

NvmeControllerIdentity parse_identify_controller(const IdentifyPage& page) {
  auto id = as<nvme_id_ctrl>(page);
  NvmeControllerIdentity out;
  out.vid = le16toh(id.vid);
  out.ssvid = le16toh(id.ssvid);
  out.serial = sanitize_device_string(std::string_view(id.sn, sizeof id.sn));
  out.model = sanitize_device_string(std::string_view(id.mn, sizeof id.mn));
  out.firmware = sanitize_device_string(std::string_view(id.fr, sizeof id.fr));
  out.cntlid = le16toh(id.cntlid);
  out.volatile_write_cache = (id.vwc & 1) != 0;
  out.awupf = le16toh(id.awupf);
  std::uint32_t ver = le32toh(id.ver);
  if (ver != 0)
    out.version = std::to_string(ver >> 16) + "." + std::to_string((ver >> 8) & 0xff) + "." +
                  std::to_string(ver & 0xff);
  return out;
}

NvmeNamespaceIdentity parse_identify_namespace(const IdentifyPage& page) {
  auto ns = as<nvme_id_ns>(page);
  NvmeNamespaceIdentity out;
  out.size_lbas = le64toh(ns.nsze);
  out.capacity_lbas = le64toh(ns.ncap);
  // FLBAS bits 3:0 are the low and bits 6:5 the high part of the format index (NVMe 2.0).
  out.lba_format =
      (ns.flbas & NVME_NS_FLBAS_LOWER_MASK) | ((ns.flbas & NVME_NS_FLBAS_HIGHER_MASK) >> 1);
  const nvme_lbaf& f = ns.lbaf[std::min<unsigned>(out.lba_format, 63)];
  out.lba_size = f.ds < 32 ? (std::uint32_t{1} << f.ds) : 0;
  out.metadata_size = le16toh(f.ms);
  out.deallocated_read = ns.dlfeat & 0x7;
  return out;
}

NvmeZnsNamespaceIdentity parse_zns_identify_namespace(const IdentifyPage& page,
                                                      const NvmeNamespaceIdentity& ns) {
  auto z = as<nvme_zns_id_ns>(page);
  NvmeZnsNamespaceIdentity out;
  out.max_active_resources = le32toh(z.mar);
  out.max_open_resources = le32toh(z.mor);
  out.zone_size_lbas = le64toh(z.lbafe[std::min<unsigned>(ns.lba_format, 63)].zsze);
  out.zone_size_bytes = out.zone_size_lbas * ns.lba_size;
  return out;
}

NvmeSmartLog parse_smart_log(const SmartLogPage& page) {
  auto s = as<nvme_smart_log>(page);
  NvmeSmartLog out;
  out.critical_warning = s.critical_warning;
  out.temperature_kelvin = static_cast<std::uint16_t>(s.temperature[0] | (s.temperature[1] << 8));
  out.available_spare = s.avail_spare;
  out.available_spare_threshold = s.spare_thresh;
  out.percentage_used = s.percent_used;
  out.data_units_read = Counter128::from_le(s.data_units_read);
  out.data_units_written = Counter128::from_le(s.data_units_written);
  out.power_on_hours = Counter128::from_le(s.power_on_hours);
  out.power_cycles = Counter128::from_le(s.power_cycles);
  out.unsafe_shutdowns = Counter128::from_le(s.unsafe_shutdowns);
  out.media_errors = Counter128::from_le(s.media_errors);
  out.error_log_entries = Counter128::from_le(s.num_err_log_entries);
  out.warning_temp_minutes = le32toh(s.warning_temp_time);
  out.critical_temp_minutes = le32toh(s.critical_comp_time);
  out.tmt1_transitions = le32toh(s.thm_temp1_trans_count);
  out.tmt2_transitions = le32toh(s.thm_temp2_trans_count);
  out.tmt1_seconds = le32toh(s.thm_temp1_total_time);
  out.tmt2_seconds = le32toh(s.thm_temp2_total_time);
  return out;
}

std::string describe_critical_warning(std::uint8_t bits) {
  static constexpr const char* kNames[] = {"available spare below threshold",
                                           "temperature outside threshold",
                                           "reliability degraded",
                                           "media placed in read-only mode",
                                           "volatile memory backup failed",
                                           "persistent memory region read-only",
                                           "reserved bit 6",
                                           "reserved bit 7"};
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (!(bits & (1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += kNames[i];
  }
  return out.empty() ? "none" : out;
}

}  // namespace storqual::devices
