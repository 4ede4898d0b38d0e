// SPDX-License-Identifier: Apache-2.0
// `storqual powercut arm | check | listen | indicators | summary` (docs/power-cut.md): the command
// line of the power-cut method (runner/methods/power_cut/power_cut.hpp), a step a command. Each
// step's options become its phase's request; the phase runs in the method, and a step that makes
// a result (check, summary) saves it as `storqual run` does.
#include <array>
#include <boost/program_options.hpp>
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
#include "reporting/report_names.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/power_cut/power_cut.hpp"
#include "runner/qualification/device_identification.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/qualification.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

// The method's entry in the registry: its steps and their help.
const SteppedMethodEntry& power_cut() {
  static const SteppedMethodEntry* const entry = find_stepped_method("powercut");
  return *entry;
}

// `storqual powercut --help`, and the about line of each step's --help.
const std::string& about() {
  static const std::string text = stepped_method_help(power_cut());
  return text;
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

// What the method's phases read through runner/qualification: the drive's health and NVMe identify
// by the one identification path of `run` and `identify` (device_identification.hpp), and the stop
// handlers.
PowercutSeams seams() {
  PowercutSeams s;
  s.read_health = [](const std::string& device) {
    const DeviceIdentification id = read_full_identity(devices::Sysfs{}, device, NvmeAccess{});
    HealthReading out;
    if (id.ata)
      out.snapshot = devices::take_health_snapshot(*id.ata);
    else if (id.scsi)
      out.snapshot = devices::take_health_snapshot(*id.scsi);
    else if (id.admin)
      out.snapshot = devices::take_health_snapshot(*id.admin);
    if (!out.snapshot)
      out.gap = !id.health_gap.empty()    ? id.health_gap
                : !id.admin_error.empty() ? id.admin_error
                                          : "no NVMe, ATA or SCSI health seam answered";
    return out;
  };
  s.nvme_cache = [](const std::string& device) -> std::optional<NvmeCacheIdentity> {
    const DeviceIdentification id = read_full_identity(devices::Sysfs{}, device, NvmeAccess{});
    if (!id.admin) return std::nullopt;
    const auto ctrl = devices::parse_identify_controller(id.admin->identify_controller());
    return NvmeCacheIdentity{ctrl.volatile_write_cache, ctrl.awupf + 1u};
  };
  s.stop = [] { return &install_stop_handlers(); };
  return s;
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
  if (parse_command_options(args, opts, opts, vm, nullptr, about())) return kExitPass;
  const bool to_file = vm.count("journal") > 0, to_listener = vm.count("listener") > 0;
  if (to_file == to_listener) throw UsageError("give one of --journal FILE or --listener ADDR");
  if (to_listener && !vm.count("token")) throw UsageError("--listener needs the run's --token");
  if (vm.count("power-cut-cmd") && vm["prompt"].as<bool>())
    throw UsageError("give --power-cut-cmd or --prompt, not both");
  const devices::AdmittedTarget admitted = admit_written_region(vm);
  JournalDestination journal;
  if (to_file) {
    journal.file = vm["journal"].as<std::string>();
    refuse_journal_on_target(*journal.file, admitted.path);
  } else {
    journal.listener = vm["listener"].as<std::string>();
    journal.token = vm["token"].as<std::string>();
  }
  const PowercutArmOutcome out =
      arm_power_cut(arm_options(vm, admitted), journal, seams(), std::cout, std::cerr);
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

// The reports a step that makes a result writes: --out, --json, --junit, --html.
void add_report_options(po::options_description& o) {
  o.add_options()("out", po::value<std::string>()->default_value("."), "directory for the reports")(
      "json", po::value<std::string>(), "result JSON path")(
      "junit", po::value<std::string>(), "JUnit XML path")("html", po::value<std::string>(),
                                                           "HTML report path");
}

// --sheet's name, vendor and path in the result of a step (check, summary), when it is given; the
// sheet, for the step's own fields.
std::optional<SpecSheet> load_sheet_into(const po::variables_map& vm, reporting::RunResult& run) {
  if (!vm.count("sheet")) return std::nullopt;
  SpecSheet sheet = SpecSheet::load(vm["sheet"].as<std::string>());
  run.spec.name = sheet.name;
  run.spec.vendor = sheet.vendor;
  run.spec.path = vm["sheet"].as<std::string>();
  return sheet;
}

// The step's verdicts judged (3 for a cut with nothing acknowledged), its reports saved (--json,
// --junit, --html, else the defaults under --out); its exit code.
int finish_result(const po::variables_map& vm, QualificationOutcome& out) {
  out.result.exit_code = exit_code_for(out.result.verdicts);
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
      "name", po::value<std::string>()->default_value("cut"), "the testcase's name (\"cut 3\")");
  add_report_options(opts);
  po::variables_map vm;
  if (parse_command_options(args, opts, opts, vm, nullptr, about())) return kExitPass;
  const std::string target = vm["target"].as<std::string>();
  const JournalContents journal = read_journal_file(vm["journal"].as<std::string>());
  QualificationOutcome out;
  reporting::RunResult& run = out.result;
  run.environment = capture_environment();
  run.device.name = fs::path(target).filename().string();
  run.device.path = target;
  describe_device(target, run.device);
  bool plp = vm["plp"].as<bool>();
  if (const auto sheet = load_sheet_into(vm, run)) plp = plp || sheet->plp.value_or(false);
  run.verdicts =
      check_power_cut(target, journal, plp, vm["name"].as<std::string>(), seams(), std::cout);
  return finish_result(vm, out);
}

int cmd_powercut_summary(const Args& args) {
  po::options_description visible("storqual powercut summary RESULT.json...");
  visible.add_options()("help,h", "this help")(
      "sheet", po::value<std::string>(),
      "the spec sheet: powercut_cycles=\"N\" is the number of cuts to check")(
      "cycles", po::value<unsigned>(), "the cuts to check (without --sheet)");
  add_report_options(visible);
  po::options_description all = visible;
  all.add_options()("result", po::value<std::vector<std::string>>(), "check results");
  po::positional_options_description positional;
  positional.add("result", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional, about())) return kExitPass;
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
  if (const auto sheet = load_sheet_into(vm, run)) claimed = sheet->powercut_cycles;
  const PowercutSummary summary = summarize_power_cuts(vm["result"].as<std::vector<std::string>>(),
                                                       claimed, run.device, std::cout);
  run.verdicts = cut_summary_verdicts(summary);
  return finish_result(vm, out);
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
  if (parse_command_options(args, opts, opts, vm, nullptr, about())) return kExitPass;
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
  listen_for_journal(lo, vm["listen"].as<std::string>(), vm["sessions"].as<unsigned>(), seams(),
                     std::cerr);
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
  if (parse_command_options(args, opts, opts, vm, nullptr, about())) return kExitPass;
  const devices::AdmittedTarget admitted = admit_written_region(vm);
  std::vector<std::uint64_t> dirty;
  std::stringstream list(vm["dirty"].as<std::string>());
  for (std::string item; std::getline(list, item, ',');) dirty.push_back(parse_size(item));
  const PowercutIndicators in = measure_power_cut_indicators(
      admitted, dirty, vm["sync-writes"].as<unsigned>(), seams(), std::cerr);
  std::cout << format_indicators(in);
  return kExitPass;
}

// The command line of each step of the method (its names from the registry's entry).
struct StepCommand {
  std::string_view step;
  int (*run)(const Args& args);
};
constexpr std::array<StepCommand, 5> kStepCommands{{{"arm", cmd_powercut_arm},
                                                    {"check", cmd_powercut_check},
                                                    {"listen", cmd_powercut_listen},
                                                    {"indicators", cmd_powercut_indicators},
                                                    {"summary", cmd_powercut_summary}}};

}  // namespace

int cmd_powercut(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << about() << "\n";
    return args.empty() ? kExitUsage : kExitPass;
  }
  const Args rest(args.begin() + 1, args.end());
  if (find_method_step(power_cut(), args[0]))
    for (const StepCommand& c : kStepCommands)
      if (c.step == args[0]) return c.run(rest);
  throw UsageError("powercut: unknown step '" + args[0] + "' (expected " +
                   stepped_method_step_names(power_cut()) + ")");
}

}  // namespace storqual::runner
