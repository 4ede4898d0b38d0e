// SPDX-License-Identifier: Apache-2.0
// Admission and scratch-file layout (see target_preparation.hpp).
#include "runner/qualification/target_preparation.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "runner/base/units.hpp"

namespace storqual::runner {

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
