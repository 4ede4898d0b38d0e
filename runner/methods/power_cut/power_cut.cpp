// SPDX-License-Identifier: Apache-2.0
// The power-cut method's phases and its entry in the registry (power_cut.hpp, docs/power-cut.md).
#include "runner/methods/power_cut/power_cut.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "devices/sysfs.hpp"
#include "model/errors.hpp"
#include "model/quantity_format.hpp"
#include "reporting/result_json.hpp"

namespace storqual::runner {
namespace {

namespace fs = std::filesystem;

// The steps, in the order of `storqual powercut --help`.
constexpr std::array<MethodStep, 5> kSteps{{
    {"arm", "", "write records, journal every acknowledgement off the device, cut"},
    {"check", "", "after the device is back: classify every acknowledged record"},
    {"listen", "", "keep a run's journal for another machine"},
    {"indicators", "", "write-cache setting, flush time, QD1 sync latency (no cut)"},
    {"summary", " RESULT.json...", "N cuts' check results added up, the device's verdict"},
}};

// The whole disk a path's storage lives on ("sda" for /dev/sda2 or a file on it), by sysfs.
std::string whole_disk_of(dev_t dev) {
  std::error_code ec;
  const fs::path link =
      "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  fs::path real = fs::canonical(link, ec);
  if (ec) return std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  if (fs::exists(real / "partition")) real = real.parent_path();
  return real.filename().string();
}

// The target read back with O_DIRECT, or why it cannot be (gone, or shorter than the journal's
// region): `missing` says which, and the descriptor is -1.
int open_checked_target(const std::string& target, const JournalContents& journal,
                        std::string& missing) {
  const int fd = ::open(target.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    missing = target + ": " + std::strerror(errno);
    return -1;
  }
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const std::uint64_t region_end = journal.header.region_offset + journal.header.region_size;
  if (size < 0 || static_cast<std::uint64_t>(size) < region_end) {
    missing = target + " has " + std::to_string(size < 0 ? 0 : size) +
              " bytes now; the journal's region ends at " + std::to_string(region_end);
    ::close(fd);
    return -1;
  }
  return fd;
}

const std::atomic<bool>* stop_flag(const PowercutSeams& seams) {
  return seams.stop ? seams.stop() : nullptr;
}

}  // namespace

SteppedMethodEntry power_cut_method_entry() noexcept {
  return {"powercut", kSteps, "docs/power-cut.md has the method and the classes."};
}

JournalShutdowns read_unsafe_shutdowns(const std::string& target, const PowercutSeams& seams) {
  JournalShutdowns out;
  try {
    const devices::ResolvedTarget resolved = devices::Sysfs{}.resolve(target);
    if (resolved.kind != devices::TargetKind::BlockDevice) {
      out.source = target + " is a file, not a drive";
      return out;
    }
    const HealthReading health = seams.read_health(resolved.device);
    if (!health.snapshot) {
      out.source = health.gap;
      return out;
    }
    const devices::UnsafeShutdownCount c = devices::unsafe_shutdown_count(*health.snapshot);
    if (!c.count) {
      out.source = c.note;
      return out;
    }
    out.readable = true;
    out.count = *c.count;
    out.source = c.source;
    out.has_ocp = c.ocp_incomplete.has_value();
    out.ocp_incomplete = c.ocp_incomplete.value_or(0);
  } catch (const std::exception& e) {
    out.source = e.what();
  }
  return out;
}

std::string describe_shutdowns(const JournalShutdowns& s) {
  if (!s.readable) return "unsafe-shutdown count not readable: " + s.source;
  return "unsafe-shutdown count " + std::to_string(s.count) + " (" + s.source + ")" +
         (s.has_ocp ? ", OCP incomplete shutdowns " + std::to_string(s.ocp_incomplete) : "");
}

void refuse_journal_on_target(const std::string& journal, const std::string& target) {
  struct stat t {
  }, j{};
  const fs::path dir = fs::absolute(journal).parent_path();
  if (::stat(target.c_str(), &t) != 0 || ::stat(dir.c_str(), &j) != 0) return;
  const dev_t target_dev = S_ISBLK(t.st_mode) ? t.st_rdev : t.st_dev;
  if (whole_disk_of(target_dev) == whole_disk_of(j.st_dev))
    throw UsageError("--journal " + journal + " is on " + whole_disk_of(j.st_dev) +
                     ", the device under test: keep the journal on another device or use "
                     "--listener");
}

PowercutArmOutcome arm_power_cut(PowercutArmOptions options, const JournalDestination& journal,
                                 const PowercutSeams& seams, std::ostream& out, std::ostream& log) {
  if (journal.file) refuse_journal_on_target(*journal.file, options.target);
  options.shutdowns_before = read_unsafe_shutdowns(options.target, seams);
  // Every option checked and the target opened before the journal exists: a refused run leaves
  // no empty journal behind to block the next.
  PreparedPowercutArm prepared = prepare_powercut_arm(options);
  auto sink = journal.file ? open_journal_file(*journal.file)
                           : connect_journal_listener(journal.listener, journal.token);
  log << "storqual powercut arm: " << options.target << " [" << options.region_offset << ", +"
      << options.region_size << "), journal to " << sink->describe() << "; "
      << describe_shutdowns(options.shutdowns_before) << std::endl;
  const PowercutArmOutcome outcome =
      run_prepared_powercut_arm(*prepared, *sink, stop_flag(seams), log);
  out << "run " << outcome.run_id << ": " << outcome.acknowledged << " writes acknowledged ("
      << outcome.fua << " FUA), " << outcome.flushes << " flushes, " << outcome.errors
      << " errors in " << reporting::format_fixed(outcome.seconds, 1)
      << " s; no cut happened: `storqual powercut check` expects every record\n";
  return outcome;
}

std::vector<reporting::ClaimVerdict> check_power_cut(const std::string& target,
                                                     const JournalContents& journal, bool plp,
                                                     const std::string& name,
                                                     const PowercutSeams& seams,
                                                     std::ostream& out) {
  std::vector<reporting::ClaimVerdict> verdicts;
  std::string missing;
  const int fd = open_checked_target(target, journal, missing);
  if (fd < 0) {
    verdicts.push_back(missing_device_verdict(name, missing));
    out << name << ": " << verdicts.back().message << "\n";
  } else {
    const CutCheck c = classify_cut(
        journal,
        [fd](std::uint64_t offset, std::uint32_t length, void* buf) {
          return ::pread(fd, buf, length, static_cast<off_t>(offset)) ==
                 static_cast<ssize_t>(length);
        },
        plp);
    ::close(fd);
    verdicts.push_back(cut_verdict(c, name));
    out << name << ": " << verdicts.back().message << "\n";
    for (auto& v : cut_class_verdicts(c, name)) verdicts.push_back(std::move(v));
  }
  verdicts.push_back(unsafe_shutdown_verdict(journal, read_unsafe_shutdowns(target, seams), name));
  out << name << ": " << verdicts.back().message << "\n";
  return verdicts;
}

PowercutSummary summarize_power_cuts(const std::vector<std::string>& files,
                                     std::optional<unsigned> claimed,
                                     reporting::DeviceReport& device, std::ostream& out) {
  std::vector<CutCycle> cycles;
  for (const auto& file : files) {
    const reporting::RunResult r = reporting::load_run_result(file);
    if (device.name.empty()) device = r.device;
    cycles.push_back(cut_cycle_of(r, file));
  }
  PowercutSummary summary = summarize_cuts(std::move(cycles), claimed);
  out << format_cut_summary(summary);
  return summary;
}

void listen_for_journal(const ListenerOptions& options, const std::string& address_text,
                        unsigned sessions, const PowercutSeams& seams, std::ostream& log) {
  const ListenAddress address = parse_listen_address(address_text);
  JournalListener listener(options);  // refuses a journal that is not whole, before binding
  const int server = listen_on(address);
  const std::atomic<bool>* stop = stop_flag(seams);
  log << "storqual powercut listen: on " << describe_bound(server, address) << ", journal "
      << options.journal_path << std::endl;
  unsigned n = 0;
  listener.run(server, stop, sessions, [&n, &log](const SessionOutcome& s) {
    log << "session " << ++n << ": " << (s.accepted ? "accepted" : "refused") << ", " << s.frames
        << " entries kept" << (s.ended ? " (the run ended)" : "") << "; " << s.reason << std::endl;
  });
  ::close(server);
  if (address.unix_socket) ::unlink(address.path.c_str());
}

PowercutIndicators measure_power_cut_indicators(const devices::AdmittedTarget& admitted,
                                                const std::vector<std::uint64_t>& dirty,
                                                unsigned sync_writes, const PowercutSeams& seams,
                                                std::ostream& log) {
  PowercutIndicators in;
  struct stat st {};
  if (::stat(admitted.path.c_str(), &st) == 0)
    in.cache =
        read_cache_setting("/sys", whole_disk_of(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev));
  if (!admitted.device.empty()) {
    try {
      in.nvme = seams.nvme_cache(admitted.device);
    } catch (const std::exception& e) {
      log << "storqual powercut indicators: NVMe identify not read: " << e.what() << "\n";
    }
  }
  time_flushes_and_sync_writes(admitted.path, admitted.offset, admitted.size, dirty, sync_writes,
                               in);
  judge_indicators(in);
  return in;
}

}  // namespace storqual::runner
