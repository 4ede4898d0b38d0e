// SPDX-License-Identifier: Apache-2.0
// Admission and scratch-file layout (see target_preparation.hpp).
#include "runner/qualification/target_preparation.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "runner/base/units.hpp"

namespace storqual::runner {

namespace {

bool buffered(const WorkloadSpec& w) {
  const auto members = group_members(w);
  if (members.empty()) return !w.params.direct;
  return std::any_of(members.begin(), members.end(),
                     [](const WorkloadSpec& m) { return !m.params.direct; });
}

}  // namespace

std::optional<double> settle_page_cache(const std::vector<WorkloadSpec>& plan, std::size_t i) {
  struct stat st {};
  if (i >= plan.size() || ::stat(plan[i].params.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode))
    return std::nullopt;
  if (std::none_of(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(i) + 1, buffered))
    return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  const int fd = ::open(plan[i].params.target.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw UnitError("cannot open " + plan[i].params.target +
                    " to drop its page cache: " + std::strerror(errno));
  const int rc = ::ioctl(fd, BLKFLSBUF, 0);
  const int err = errno;
  ::close(fd);
  if (rc != 0)
    throw UnitError("cannot write back and drop the page cache of " + plan[i].params.target +
                    " (BLKFLSBUF): " + std::strerror(err));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void lay_out_file(const std::string& path, std::uint64_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw UnitError("cannot lay out " + path + ": " + std::strerror(errno));
  std::mt19937_64 rng(0x1A70u);
  std::vector<std::uint64_t> chunk(1 << 17);  // 1 MiB
  for (auto& w : chunk) w = rng();
  std::uint64_t done = 0;
  while (done < size) {
    chunk[done / 8 % chunk.size()] ^= rng();  // no two chunks alike (deduplicating filesystems)
    std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - done, chunk.size() * 8));
    ssize_t w = ::pwrite(fd, chunk.data(), n, static_cast<off_t>(done));
    if (w <= 0) {
      int e = w < 0 ? errno : ENOSPC;
      ::close(fd);
      throw UnitError("cannot lay out " + path + ": " + std::strerror(e));
    }
    done += static_cast<std::uint64_t>(w);
  }
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

devices::AdmittedTarget admit_target(WorkloadSpec& spec, const TargetFlags& flags) {
  devices::GuardRequest req;
  req.target = spec.params.target;
  req.writes = writes(spec);
  req.allow_destructive = flags.allow_destructive;
  req.force = flags.force;
  req.offset = spec.params.offset;
  req.size = spec.params.size;
  devices::SafetyGuard guard{devices::Sysfs{flags.sysfs_root}};
  devices::AdmittedTarget admitted = guard.admit(req);
  spec.params.target = admitted.path;
  spec.params.size = admitted.size;
  if (admitted.kind == devices::AdmittedKind::ScratchFile)
    lay_out_file(admitted.path, admitted.offset + admitted.size);
  return admitted;
}

}  // namespace storqual::runner
