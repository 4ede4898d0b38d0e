// SPDX-License-Identifier: Apache-2.0
// Which engines exist, whether this kernel can run them, and how to make one by name. Engines are
// probed, not assumed (a throwaway ring and its opcode probe, an io_setup): containers and
// hardened kernels switch io_uring off, and the user should hear that, not an obscure EPERM.
#include <libaio.h>
#include <liburing.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "engines/engine.hpp"
#include "engines/io_uring_engine.hpp"
#include "engines/libaio_engine.hpp"
#include "engines/null_engine.hpp"
#include "engines/psync_engine.hpp"

namespace storqual::engines {
namespace {

constexpr std::array<std::string_view, 4> kNames = {"io_uring", "libaio", "psync", "null"};

std::string io_uring_disabled_note() {
  std::ifstream in("/proc/sys/kernel/io_uring_disabled");
  int value = 0;
  if (!(in >> value) || value == 0) return {};
  return value == 1 ? " (kernel.io_uring_disabled=1: only members of kernel.io_uring_group may "
                      "create rings)"
                    : " (kernel.io_uring_disabled=2: io_uring is switched off on this system)";
}

Availability probe_io_uring() {
  io_uring ring{};
  int ret = io_uring_queue_init(4, &ring, 0);
  if (ret < 0) {
    std::string reason = "io_uring is not available: " + std::string(std::strerror(-ret));
    if (ret == -ENOSYS)
      reason += " (the kernel is built without io_uring)";
    else if (ret == -EPERM || ret == -EACCES)
      reason += io_uring_disabled_note().empty()
                    ? " (refused by a security policy: seccomp, container runtime or LSM)"
                    : io_uring_disabled_note();
    else if (ret == -ENOMEM)
      reason += " (locked-memory limit too low: ulimit -l)";
    return {false, reason};
  }
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  Availability result{true, {}};
  if (probe == nullptr) {
    result = {false, "io_uring is too old: the kernel cannot report its opcodes (needs 5.6+)"};
  } else {
    for (int op : {IORING_OP_READ, IORING_OP_WRITE, IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED}) {
      if (!io_uring_opcode_supported(probe, op)) {
        result = {false, "io_uring lacks opcode " + std::to_string(op) +
                             " (read/write/read_fixed/write_fixed; needs Linux 5.6+)"};
        break;
      }
    }
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  return result;
}

Availability probe_libaio() {
  io_context_t ctx = nullptr;
  int ret = io_setup(1, &ctx);
  if (ret < 0) {
    std::string reason = "libaio is not available: " + std::string(std::strerror(-ret));
    if (ret == -ENOSYS) reason += " (the kernel is built without AIO)";
    if (ret == -EAGAIN)
      reason += " (the system-wide AIO limit is reached: /proc/sys/fs/aio-max-nr)";
    if (ret == -EPERM) reason += " (refused by a security policy: seccomp or container runtime)";
    return {false, reason};
  }
  io_destroy(ctx);
  return {true, {}};
}

}  // namespace

std::span<const std::string_view> engine_names() noexcept {
  return kNames;
}

Availability available(std::string_view name) {
  if (name == "io_uring") return probe_io_uring();
  if (name == "libaio") return probe_libaio();
  if (name == "psync" || name == "null") return {true, {}};
  std::string known;
  for (auto n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
  return {false, "unknown engine '" + std::string(name) + "' (known: " + known + ")"};
}

std::unique_ptr<Engine> make_engine(std::string_view name) {
  auto a = available(name);
  if (!a.ok) throw EngineError(a.reason, name == "io_uring" || name == "libaio" ? ENOSYS : EINVAL);
  if (name == "io_uring") return std::make_unique<IoUringEngine>();
  if (name == "libaio") return std::make_unique<LibaioEngine>();
  if (name == "psync") return std::make_unique<PsyncEngine>();
  if (name == "null") return std::make_unique<NullEngine>();
  throw EngineError("unknown engine '" + std::string(name) + "'", EINVAL);
}

}  // namespace storqual::engines
