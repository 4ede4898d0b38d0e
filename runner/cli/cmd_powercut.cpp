// SPDX-License-Identifier: Apache-2.0
// `storqual powercut arm | check | listen | indicators` (docs/power-cut.md): write records with a
// journal kept off the device and cut the power at a random moment; after the device is back,
// check every acknowledged record; keep a journal for another machine; read the indicators that
// need no cut.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "devices/device_identity.hpp"
#include "devices/health.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/safety_guard.hpp"
#include "devices/sysfs.hpp"
#include "model/quantity_format.hpp"
#include "reporting/report_names.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/methods/power_cut/powercut_arm.hpp"
#include "runner/methods/power_cut/powercut_check.hpp"
#include "runner/methods/power_cut/powercut_indicators.hpp"
#include "runner/methods/power_cut/powercut_listener.hpp"
#include "runner/methods/power_cut/powercut_summary.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/qualification.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using reporting::format_fixed;

constexpr const char* kAbout =
    "storqual powercut arm     write records, journal every acknowledgement off the device, cut\n"
    "storqual powercut check   after the device is back: classify every acknowledged record\n"
    "storqual powercut listen  keep a run's journal for another machine\n"
    "storqual powercut indicators  write-cache setting, flush time, QD1 sync latency (no cut)\n"
    "storqual powercut summary RESULT.json...  N cuts' check results added up, the device's "
    "verdict\n"
    "docs/power-cut.md has the method and the classes.";

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

// The journal must not live on the device it journals: the cut would take both.
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

std::vector<unsigned> parse_depths(const std::string& text) {
  std::vector<unsigned> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    try {
      const unsigned long d = std::stoul(item);
      if (d == 0 || d > 256) throw std::out_of_range("depth");
      out.push_back(static_cast<unsigned>(d));
    } catch (const std::exception&) {
      throw UsageError("--depths: expected depths 1..256 separated by commas, got '" + text + "'");
    }
  }
  if (out.empty()) throw UsageError("--depths: no depth given");
  return out;
}

std::pair<double, double> parse_cut_after(const std::string& text) {
  const auto colon = text.find(':');
  try {
    const double lo = std::stod(text.substr(0, colon));
    const double hi = colon == std::string::npos ? lo : std::stod(text.substr(colon + 1));
    return {lo, hi};
  } catch (const std::exception&) {
    throw UsageError("--cut-after: expected seconds MIN:MAX, got '" + text + "'");
  }
}

void add_arm_options(po::options_description& o) {
  o.add_options()("help,h", "this help")("target", po::value<std::string>()->required(),
                                         "the device (or file) under test")(
      "journal", po::value<std::string>(), "keep the journal in this new file, on another device")(
      "listener", po::value<std::string>(),
      "send the journal to `storqual powercut listen` at unix:/path or HOST:PORT")(
      "token", po::value<std::string>(), "the run's token (with --listener)")(
      "power-cut-cmd", po::value<std::string>(),
      "run this through /bin/sh at a random moment of the workload: it cuts the power")(
      "prompt", po::bool_switch(), "instead of a command, ask the operator to cut the power")(
      "cut-after", po::value<std::string>()->default_value("2:10"),
      "seconds MIN:MAX: the cut comes at a uniformly random moment in between")(
      "runtime", po::value<double>()->default_value(60),
      "seconds; the workload ends (flushed, End journalled) if no cut came by then")(
      "offset", po::value<std::string>()->default_value("0"), "the region's start")(
      "size", po::value<std::string>()->default_value("256M"), "the region's size")(
      "ioengine", po::value<std::string>()->default_value("io_uring"), "io_uring, libaio, psync")(
      "depths", po::value<std::string>()->default_value("1,4,16"), "queue depths, in turn")(
      "bs", po::value<std::string>()->default_value("4k"), "random write size")(
      "sequential-bs", po::value<std::string>()->default_value("64k"), "sequential write size")(
      "atomic-unit", po::value<std::string>()->default_value("4k"),
      "the device's atomic write unit (NVMe AWUPF+1 blocks): sectors within one are never shorn")(
      "flush-every", po::value<unsigned>()->default_value(64), "requests between flushes")(
      "fua-every", po::value<unsigned>()->default_value(16), "every Nth request is FUA (0: none)")(
      "seed", po::value<std::uint64_t>()->default_value(0), "random seed (0: random)")(
      "allow-destructive", po::bool_switch(), "allow writes to a block device or an existing file")(
      "force", po::bool_switch(),
      "with --allow-destructive: ignore a filesystem or partition signature");
}

// The target and region a command writes (--target, --offset, --size), admitted by the safety
// guard with --allow-destructive and --force as every write is (docs/identity-and-safety.md).
devices::AdmittedTarget admit_written_region(const po::variables_map& vm) {
  devices::GuardRequest g;
  g.target = vm["target"].as<std::string>();
  g.writes = true;
  g.allow_destructive = vm["allow-destructive"].as<bool>();
  g.force = vm["force"].as<bool>();
  g.offset = parse_size(vm["offset"].as<std::string>());
  g.size = parse_size(vm["size"].as<std::string>());
  return devices::SafetyGuard{}.admit(g);
}

// The drive's unsafe-shutdown count now, through the health seam the target has (NVMe SMART log and
// OCP C0h, ATA SMART, SCSI log pages); not readable, with the reason, for a file, a device without
// such a counter or a seam that does not answer.
JournalShutdowns read_unsafe_shutdowns(const std::string& target) {
  JournalShutdowns out;
  try {
    const devices::Sysfs sysfs;
    const devices::ResolvedTarget resolved = sysfs.resolve(target);
    if (resolved.kind != devices::TargetKind::BlockDevice) {
      out.source = target + " is a file, not a drive";
      return out;
    }
    DeviceIdentification id = read_full_identity(sysfs, resolved.device, NvmeAccess{});
    std::optional<devices::HealthSnapshot> snapshot;
    if (id.ata)
      snapshot = devices::take_health_snapshot(*id.ata);
    else if (id.scsi)
      snapshot = devices::take_health_snapshot(*id.scsi);
    else if (id.admin)
      snapshot = devices::take_health_snapshot(*id.admin);
    if (!snapshot) {
      out.source = !id.health_gap.empty()    ? id.health_gap
                   : !id.admin_error.empty() ? id.admin_error
                                             : "no NVMe, ATA or SCSI health seam answered";
      return out;
    }
    const devices::UnsafeShutdownCount c = devices::unsafe_shutdown_count(*snapshot);
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

PowercutArmOptions arm_options(const po::variables_map& vm, const devices::AdmittedTarget& t) {
  PowercutArmOptions o;
  o.target = t.path;
  o.region_offset = t.offset;
  o.region_size = t.size;
  o.ioengine = vm["ioengine"].as<std::string>();
  o.depths = parse_depths(vm["depths"].as<std::string>());
  o.random_bs = static_cast<std::uint32_t>(parse_size(vm["bs"].as<std::string>()));
  o.sequential_bs = static_cast<std::uint32_t>(parse_size(vm["sequential-bs"].as<std::string>()));
  o.atomic_unit = static_cast<std::uint32_t>(parse_size(vm["atomic-unit"].as<std::string>()));
  o.flush_every = vm["flush-every"].as<unsigned>();
  o.fua_every = vm["fua-every"].as<unsigned>();
  o.runtime_s = vm["runtime"].as<double>();
  std::tie(o.cut_min_s, o.cut_max_s) = parse_cut_after(vm["cut-after"].as<std::string>());
  if (vm.count("power-cut-cmd")) o.power_cut_cmd = vm["power-cut-cmd"].as<std::string>();
  o.prompt = vm["prompt"].as<bool>();
  o.seed = vm["seed"].as<std::uint64_t>();
  return o;
}

int cmd_powercut_arm(const Args& args) {
  po::options_description opts("storqual powercut arm");
  add_arm_options(opts);
  po::variables_map vm;
  if (parse_command_options(args, opts, opts, vm, nullptr, kAbout)) return kExitPass;
  const bool to_file = vm.count("journal") > 0, to_listener = vm.count("listener") > 0;
  if (to_file == to_listener) throw UsageError("give one of --journal FILE or --listener ADDR");
  if (to_listener && !vm.count("token")) throw UsageError("--listener needs the run's --token");
  if (vm.count("power-cut-cmd") && vm["prompt"].as<bool>())
    throw UsageError("give --power-cut-cmd or --prompt, not both");
  const devices::AdmittedTarget admitted = admit_written_region(vm);
  if (to_file) refuse_journal_on_target(vm["journal"].as<std::string>(), admitted.path);
  PowercutArmOptions o = arm_options(vm, admitted);
  o.shutdowns_before = read_unsafe_shutdowns(admitted.path);
  // Every option checked and the target opened before the journal exists: a refused run leaves
  // no empty journal behind to block the next.
  PreparedPowercutArm prepared = prepare_powercut_arm(o);
  auto journal = to_file ? open_journal_file(vm["journal"].as<std::string>())
                         : connect_journal_listener(vm["listener"].as<std::string>(),
                                                    vm["token"].as<std::string>());
  std::cerr << "storqual powercut arm: " << admitted.path << " [" << o.region_offset << ", +"
            << o.region_size << "), journal to " << journal->describe() << "; "
            << describe_shutdowns(o.shutdowns_before) << std::endl;
  const PowercutArmOutcome out =
      run_prepared_powercut_arm(*prepared, *journal, &install_stop_handlers(), std::cerr);
  std::cout << "run " << out.run_id << ": " << out.acknowledged << " writes acknowledged ("
            << out.fua << " FUA), " << out.flushes << " flushes, " << out.errors << " errors in "
            << format_fixed(out.seconds, 1) << " s; no cut happened: `storqual powercut check` "
            << "expects every record\n";
  if (const int code = interrupted_exit_code()) return code;
  return out.errors ? kExitRuntime : kExitPass;
}

// Who the device is, read only (sysfs, udev, NVMe identify), for the report; nothing when it is
// gone or not a block device's.
void describe_device(const std::string& target, reporting::DeviceReport& report) {
  try {
    const devices::Sysfs sysfs;
    const devices::ResolvedTarget resolved = sysfs.resolve(target);
    const DeviceIdentification id = read_full_identity(sysfs, resolved.device, NvmeAccess{});
    report.name = resolved.kind == devices::TargetKind::BlockDevice
                      ? resolved.device
                      : "file " + target + " (on " + resolved.device + ")";
    for (const auto& r : devices::identity_rows(id.identity))
      report.identity.push_back({r.field, r.value, r.source});
  } catch (const std::exception&) {
    // the check itself says that the device did not come back
  }
}

// The run's reports (--json, --junit, --html, else the defaults under --out); its exit code.
int save_reports(const po::variables_map& vm, QualificationOutcome& out) {
  out.exit_code = out.result.exit_code;
  const std::string dir = vm["out"].as<std::string>();
  auto opt = [&](const char* k) {
    return vm.count(k) ? std::optional<std::string>(vm[k].as<std::string>()) : std::nullopt;
  };
  save_run_reports(reporting::default_reports(dir, opt("json"), opt("junit"), opt("html")), dir,
                   nullptr, stdout, out);
  return out.exit_code;
}

int cmd_powercut_check(const Args& args) {
  po::options_description opts("storqual powercut check");
  opts.add_options()("help,h", "this help")("target", po::value<std::string>()->required(),
                                            "the device (or file) after the cut")(
      "journal", po::value<std::string>()->required(),
      "the run's journal (a file or the listener's)")(
      "sheet", po::value<std::string>(), "the spec sheet: plp=\"yes\" fails losses before a flush")(
      "plp", po::bool_switch(), "judge as a drive with power-loss protection (without --sheet)")(
      "name", po::value<std::string>()->default_value("cut"), "the testcase's name (\"cut 3\")")(
      "out", po::value<std::string>()->default_value("."), "directory for the reports")(
      "json", po::value<std::string>(), "result JSON path")(
      "junit", po::value<std::string>(), "JUnit XML path")("html", po::value<std::string>(),
                                                           "HTML report path");
  po::variables_map vm;
  if (parse_command_options(args, opts, opts, vm, nullptr, kAbout)) return kExitPass;
  const std::string target = vm["target"].as<std::string>();
  const JournalContents journal = read_journal_file(vm["journal"].as<std::string>());
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  run.device.name = fs::path(target).filename().string();
  run.device.path = target;
  describe_device(target, run.device);
  bool plp = vm["plp"].as<bool>();
  if (vm.count("sheet")) {
    const SpecSheet sheet = SpecSheet::load(vm["sheet"].as<std::string>());
    run.spec.name = sheet.name;
    run.spec.vendor = sheet.vendor;
    run.spec.path = vm["sheet"].as<std::string>();
    plp = plp || sheet.plp.value_or(false);
  }
  const std::string name = vm["name"].as<std::string>();
  std::string missing;
  const int fd = ::open(target.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) missing = target + ": " + std::strerror(errno);
  const off_t size = fd < 0 ? 0 : ::lseek(fd, 0, SEEK_END);
  const std::uint64_t region_end = journal.header.region_offset + journal.header.region_size;
  if (fd >= 0 && (size < 0 || static_cast<std::uint64_t>(size) < region_end)) {
    missing = target + " has " + std::to_string(size < 0 ? 0 : size) +
              " bytes now; the journal's region ends at " + std::to_string(region_end);
    ::close(fd);
  }
  if (!missing.empty()) {
    run.verdicts.push_back(missing_device_verdict(name, missing));
    std::cout << name << ": " << run.verdicts.back().message << "\n";
  } else {
    const CutCheck c = classify_cut(
        journal,
        [fd](std::uint64_t offset, std::uint32_t length, void* buf) {
          return ::pread(fd, buf, length, static_cast<off_t>(offset)) ==
                 static_cast<ssize_t>(length);
        },
        plp);
    ::close(fd);
    run.verdicts.push_back(cut_verdict(c, name));
    std::cout << name << ": " << run.verdicts.back().message << "\n";
    for (auto& v : cut_class_verdicts(c, name)) run.verdicts.push_back(std::move(v));
  }
  run.verdicts.push_back(unsafe_shutdown_verdict(journal, read_unsafe_shutdowns(target), name));
  std::cout << name << ": " << run.verdicts.back().message << "\n";
  run.exit_code = exit_code_for(run.verdicts);  // 3 for a cut with nothing acknowledged
  return save_reports(vm, out);
}

int cmd_powercut_summary(const Args& args) {
  po::options_description visible("storqual powercut summary RESULT.json...");
  visible.add_options()("help,h", "this help")(
      "sheet", po::value<std::string>(),
      "the spec sheet: powercut_cycles=\"N\" is the number of cuts to check")(
      "cycles", po::value<unsigned>(), "the cuts to check (without --sheet)")(
      "out", po::value<std::string>()->default_value("."), "directory for the reports")(
      "json", po::value<std::string>(), "result JSON path")(
      "junit", po::value<std::string>(), "JUnit XML path")("html", po::value<std::string>(),
                                                           "HTML report path");
  po::options_description all = visible;
  all.add_options()("result", po::value<std::vector<std::string>>(), "check results");
  po::positional_options_description positional;
  positional.add("result", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional, kAbout)) return kExitPass;
  if (!vm.count("result"))
    throw UsageError(
        "powercut summary: give the result JSON of each cut's `storqual powercut "
        "check`");
  if (vm.count("sheet") && vm.count("cycles"))
    throw UsageError("give --sheet or --cycles, not both");
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  std::optional<unsigned> claimed;
  if (vm.count("cycles")) {
    claimed = vm["cycles"].as<unsigned>();
    if (*claimed == 0) throw UsageError("--cycles: at least 1");
  }
  if (vm.count("sheet")) {
    const SpecSheet sheet = SpecSheet::load(vm["sheet"].as<std::string>());
    run.spec.name = sheet.name;
    run.spec.vendor = sheet.vendor;
    run.spec.path = vm["sheet"].as<std::string>();
    claimed = sheet.powercut_cycles;
  }
  std::vector<CutCycle> cycles;
  for (const auto& file : vm["result"].as<std::vector<std::string>>()) {
    const reporting::RunResult r = reporting::load_run_result(file);
    if (run.device.name.empty()) run.device = r.device;
    cycles.push_back(cut_cycle_of(r, file));
  }
  const PowercutSummary summary = summarize_cuts(std::move(cycles), claimed);
  std::cout << format_cut_summary(summary);
  run.verdicts = cut_summary_verdicts(summary);
  run.exit_code = exit_code_for(run.verdicts);
  return save_reports(vm, out);
}

int cmd_powercut_listen(const Args& args) {
  po::options_description opts("storqual powercut listen");
  opts.add_options()("help,h", "this help")("listen", po::value<std::string>()->required(),
                                            "unix:/path or HOST:PORT to listen on")(
      "token", po::value<std::string>()->required(), "the run's token; other clients are refused")(
      "journal", po::value<std::string>()->required(), "the journal file to keep")(
      "max-bytes", po::value<std::string>()->default_value("1G"), "the journal's largest size")(
      "idle-timeout", po::value<double>()->default_value(10),
      "seconds without a byte after which a client is taken as gone")(
      "frame-timeout", po::value<double>()->default_value(5),
      "seconds a client has to finish its hello or a frame it began (a trickling client is "
      "dropped)")("salvage", po::value<std::string>(),
                  "copy the whole frames of a damaged or torn --journal to this new file, and "
                  "exit (the journal is left as it is)")(
      "sessions", po::value<unsigned>()->default_value(0),
      "end after this many client sessions (0: until SIGINT or SIGTERM)");
  po::variables_map vm;
  if (parse_command_options(args, opts, opts, vm, nullptr, kAbout)) return kExitPass;
  ListenerOptions lo;
  lo.token = vm["token"].as<std::string>();
  if (lo.token.size() < 8) throw UsageError("--token: at least 8 characters");
  lo.journal_path = vm["journal"].as<std::string>();
  lo.max_bytes = parse_size(vm["max-bytes"].as<std::string>());
  lo.idle_timeout_s = vm["idle-timeout"].as<double>();
  lo.frame_timeout_s = vm["frame-timeout"].as<double>();
  if (lo.idle_timeout_s <= 0 || lo.frame_timeout_s <= 0)
    throw UsageError("--idle-timeout and --frame-timeout: seconds above 0");
  if (vm.count("salvage")) {
    std::cout << salvage_journal(lo.journal_path, vm["salvage"].as<std::string>()) << "\n";
    return kExitPass;
  }
  const ListenAddress address = parse_listen_address(vm["listen"].as<std::string>());
  JournalListener listener(lo);  // refuses a journal that is not whole, before binding
  const int server = listen_on(address);
  const std::atomic<bool>& stop = install_stop_handlers();
  std::cerr << "storqual powercut listen: on " << describe_bound(server, address) << ", journal "
            << lo.journal_path << std::endl;
  unsigned n = 0;
  listener.run(server, &stop, vm["sessions"].as<unsigned>(), [&n](const SessionOutcome& s) {
    std::cerr << "session " << ++n << ": " << (s.accepted ? "accepted" : "refused") << ", "
              << s.frames << " entries kept" << (s.ended ? " (the run ended)" : "") << "; "
              << s.reason << std::endl;
  });
  ::close(server);
  if (address.unix_socket) ::unlink(address.path.c_str());
  return kExitPass;
}

int cmd_powercut_indicators(const Args& args) {
  po::options_description opts("storqual powercut indicators");
  opts.add_options()("help,h", "this help")("target", po::value<std::string>()->required(),
                                            "the device (or file); its region is written")(
      "offset", po::value<std::string>()->default_value("0"), "the region's start")(
      "size", po::value<std::string>()->default_value("1G"), "the region's size")(
      "dirty", po::value<std::string>()->default_value("16M,64M,256M,1G"),
      "amounts written before each timed flush (each at most --size)")(
      "sync-writes", po::value<unsigned>()->default_value(256), "QD1 writes per latency figure")(
      "allow-destructive", po::bool_switch(), "allow writes to a block device or an existing file")(
      "force", po::bool_switch(),
      "with --allow-destructive: ignore a filesystem or partition signature");
  po::variables_map vm;
  if (parse_command_options(args, opts, opts, vm, nullptr, kAbout)) return kExitPass;
  const devices::AdmittedTarget admitted = admit_written_region(vm);
  std::vector<std::uint64_t> dirty;
  std::stringstream list(vm["dirty"].as<std::string>());
  for (std::string item; std::getline(list, item, ',');) dirty.push_back(parse_size(item));
  PowercutIndicators in;
  struct stat st {};
  if (::stat(admitted.path.c_str(), &st) == 0)
    in.cache =
        read_cache_setting("/sys", whole_disk_of(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev));
  if (!admitted.device.empty()) {
    try {
      const DeviceIdentification id =
          read_full_identity(devices::Sysfs{}, admitted.device, NvmeAccess{});
      if (id.admin) {
        const auto ctrl = devices::parse_identify_controller(id.admin->identify_controller());
        in.nvme = NvmeCacheIdentity{ctrl.volatile_write_cache, ctrl.awupf + 1u};
      }
    } catch (const std::exception& e) {
      std::cerr << "storqual powercut indicators: NVMe identify not read: " << e.what() << "\n";
    }
  }
  time_flushes_and_sync_writes(admitted.path, admitted.offset, admitted.size, dirty,
                               vm["sync-writes"].as<unsigned>(), in);
  judge_indicators(in);
  std::cout << format_indicators(in);
  return kExitPass;
}

}  // namespace

int cmd_powercut(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kAbout << "\n";
    return args.empty() ? kExitUsage : kExitPass;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "arm") return cmd_powercut_arm(rest);
  if (args[0] == "check") return cmd_powercut_check(rest);
  if (args[0] == "listen") return cmd_powercut_listen(rest);
  if (args[0] == "indicators") return cmd_powercut_indicators(rest);
  if (args[0] == "summary") return cmd_powercut_summary(rest);
  throw UsageError("powercut: unknown step '" + args[0] +
                   "' (expected arm, check, listen, indicators or summary)");
}

}  // namespace storqual::runner
