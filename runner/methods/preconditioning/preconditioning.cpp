// SPDX-License-Identifier: Apache-2.0
// Purge and workload-independent preconditioning (see preconditioning.hpp).
#include "runner/methods/preconditioning/preconditioning.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

std::string range_text(std::uint64_t offset, std::uint64_t size) {
  return "[" + format_size_fio(offset) + ", " + format_size_fio(offset + size) + ")";
}

// queue/discard_max_bytes of the disk behind a block device (a partition's queue is its disk's).
std::uint64_t discard_max_bytes(const std::string& sysfs_root, dev_t rdev) {
  namespace fs = std::filesystem;
  fs::path dev = fs::path(sysfs_root) / "dev" / "block" /
                 (std::to_string(major(rdev)) + ":" + std::to_string(minor(rdev)));
  for (fs::path q :
       {dev / "queue" / "discard_max_bytes", dev / ".." / "queue" / "discard_max_bytes"}) {
    std::ifstream in(q);
    std::uint64_t v = 0;
    if (in >> v) return v;
  }
  return 0;
}

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

PurgeMethod parse_purge(std::string_view t) {
  if (t == "none") return PurgeMethod::None;
  if (t == "discard") return PurgeMethod::Discard;
  if (t == "format") return PurgeMethod::NvmeFormat;
  if (t == "sanitize") return PurgeMethod::NvmeSanitize;
  throw UnitError("purge: expected none, discard, format or sanitize, got '" + std::string(t) +
                  "'");
}

std::string_view to_string(PurgeMethod m) noexcept {
  switch (m) {
    case PurgeMethod::None:
      return "none";
    case PurgeMethod::Discard:
      return "discard";
    case PurgeMethod::NvmeFormat:
      return "format";
    case PurgeMethod::NvmeSanitize:
      return "sanitize";
  }
  return "none";
}

std::string purge_range(const std::string& path, std::uint64_t offset, std::uint64_t size,
                        PurgeMethod method, const NvmePurgeAccess& nvme,
                        const std::string& sysfs_root) {
  if (method == PurgeMethod::None) return "purge: none asked";
  if (method == PurgeMethod::NvmeFormat || method == PurgeMethod::NvmeSanitize) {
    std::string name(to_string(method));
    if (!nvme.allowed)
      throw PreconditionRefused("purge=" + name +
                                " erases the whole NVMe namespace, not only the tested range; it "
                                "needs the explicit flag --allow-nvme-purge");
    if (nvme.admin == nullptr)
      throw PreconditionRefused("purge=" + name + ": " + path +
                                " is not an NVMe device (or its NVMe admin interface cannot be "
                                "opened); use purge=\"discard\"");
    try {
      return devices::nvme_purge(*nvme.admin,
                                 method == PurgeMethod::NvmeFormat
                                     ? devices::NvmePurgeKind::Format
                                     : devices::NvmePurgeKind::Sanitize,
                                 path, nvme.timing);
    } catch (const std::exception& e) {  // NvmePurgeError, NvmeError
      throw PreconditionRefused(e.what());
    }
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "purge: not purged, " + path + " cannot be examined (" + std::strerror(errno) + ")";
  const auto start = std::chrono::steady_clock::now();
  if (S_ISBLK(st.st_mode)) {
    std::uint64_t max = discard_max_bytes(sysfs_root, st.st_rdev);
    if (max == 0)
      return "purge: not purged, " + path +
             " does not support discard (queue/discard_max_bytes is 0)";
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      throw PreconditionRefused("purge: cannot open " + path + ": " + std::strerror(errno));
    std::uint64_t range[2] = {offset, size};
    int rc = ::ioctl(fd, BLKDISCARD, &range);
    int err = errno;
    ::close(fd);
    if (rc != 0)
      throw PreconditionRefused("purge: BLKDISCARD of " + range_text(offset, size) + " on " + path +
                                " failed: " + std::strerror(err));
    return "purge: BLKDISCARD of " + range_text(offset, size) + " on " + path + " (" +
           seconds_text(std::chrono::steady_clock::now() - start) + ")";
  }
  if (S_ISREG(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      throw PreconditionRefused("purge: cannot open " + path + ": " + std::strerror(errno));
    int rc = ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                         static_cast<off_t>(size));
    int err = errno;
    ::close(fd);
    if (rc != 0) {
      if (err == EOPNOTSUPP)
        return "purge: not purged, the filesystem of " + path + " cannot punch holes";
      throw PreconditionRefused("purge: punching " + range_text(offset, size) + " in " + path +
                                " failed: " + std::strerror(err));
    }
    return "purge: punched a hole over " + range_text(offset, size) + " of file " + path + " (" +
           seconds_text(std::chrono::steady_clock::now() - start) + ")";
  }
  return "purge: not purged, " + path + " is neither a block device nor a regular file";
}

std::uint64_t precondition_bytes(const WorkloadSpec& workload, double /*scale*/) {
  return 2 * workload.params.size;
}

std::string precondition_plan_text(const WorkloadSpec& workload, const Precondition& p,
                                   double scale) {
  std::vector<std::string> steps;
  if (p.purge != PurgeMethod::None)
    steps.push_back("purge (" + std::string(to_string(p.purge)) + ")");
  if (p.independent)
    steps.push_back(
        "2 x " + format_bytes_iec(static_cast<double>(workload.params.size)) +
        " sequential 128 KiB writes" +
        (scale >= 1 ? std::string() : std::string(", not scaled by --runtime-scale")) + " (" +
        format_bytes_iec(static_cast<double>(precondition_bytes(workload, scale))) + ")");
  if (p.dependent) steps.push_back("the workload in rounds until steady");
  std::string out;
  for (std::size_t i = 0; i < steps.size(); ++i) out += (i ? ", then " : "") + steps[i];
  return out;
}

std::string precondition_independent(const WorkloadSpec& workload, const RunWorkload& measure,
                                     double scale) {
  WorkloadSpec w = workload;
  w.id = workload.id + " (preconditioning)";
  w.params.rw = "write";
  w.params.bs = 128 * 1024;
  w.params.iodepth = 32;
  w.params.numjobs = 1;
  w.params.runtime_s = 0;
  w.params.ramp_time_s = 0;
  w.rate_iops = 0;
  w.rate_bytes = 0;
  if (w.params.ioengine == "psync") w.params.iodepth = 1;
  std::uint64_t bytes = 0;
  double seconds = 0;
  // Two passes whatever --runtime-scale says: one pass (or a share of the two) left a loop
  // device over a file with its blocks just allocated, and the rounds after it stalled (a
  // snia-iops round at 0 IOPS). A volume, said before it starts (precondition_plan_text).
  for (int pass = 0; pass < 2; ++pass) {
    reporting::WorkloadResult r = measure(w);
    if (r.write) bytes += r.write->bytes;
    seconds += r.elapsed_s;
    if (!r.errors.empty() || r.interrupted)
      throw PreconditionRefused("workload-independent preconditioning failed: " +
                                (r.errors.empty() ? std::string("interrupted") : r.errors.front()));
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f MB/s", seconds > 0 ? bytes / seconds / 1e6 : 0.0);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f s", seconds);
  return "workload-independent: sequential 128 KiB writes (iodepth " +
         std::to_string(w.params.iodepth) + ") " +
         (scale >= 1 ? std::string("twice over ")
                     : std::string("twice (not scaled by --runtime-scale) over ")) +
         range_text(workload.params.offset, workload.params.size) + ": " + format_size_fio(bytes) +
         " in " + secs + " (" + rate + ")";
}

std::vector<std::string> run_preconditioning(const WorkloadSpec& workload, const Precondition& p,
                                             const NvmePurgeAccess& nvme,
                                             const RunWorkload& measure,
                                             const std::string& sysfs_root, double scale) {
  std::vector<std::string> lines;
  if (p.purge != PurgeMethod::None)
    lines.push_back(purge_range(workload.params.target, workload.params.offset,
                                workload.params.size, p.purge, nvme, sysfs_root));
  if (p.independent) lines.push_back(precondition_independent(workload, measure, scale));
  if (p.dependent)
    lines.push_back("workload-dependent: the workload itself in rounds until steady (SNIA PTS)");
  return lines;
}

}  // namespace storqual::runner
