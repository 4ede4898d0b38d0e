// SPDX-License-Identifier: Apache-2.0
// `storqual bench`: one ad-hoc workload, fio-like numbers, optional JSON and per-I/O log.
#include <sys/stat.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <optional>

#include "archive/results_store.hpp"
#include "reporting/fio_summary.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/units.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"
#include "runner/measure/fault_spec.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/verify.hpp"
#include "runner/measure/workload.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "runner/qualification/environment.hpp"
#include "runner/qualification/signals.hpp"
#include "runner/qualification/target_preparation.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

po::options_description bench_options() {
  po::options_description opts("storqual bench --target PATH --rw MODE --bs SIZE [options]");
  opts.add_options()("help,h", "this help")("target", po::value<std::string>(),
                                            "file or block device (any name for ioengine=null)");
  // The workload options come from the one declarative table (runner/measure/workload.cpp).
  for (const auto& o : workload_options()) {
    std::string help(o.help);
    if (!o.default_value.empty()) help += " [" + std::string(o.default_value) + "]";
    opts.add_options()(std::string(o.name).c_str(), po::value<std::string>(), help.c_str());
  }
  opts.add_options()("time_based", po::value<std::string>()->implicit_value("1"),
                     "accepted as fio's (also --time-based): with --runtime storqual always runs "
                     "for the whole runtime, passing over the region again when it is covered; "
                     "without --runtime it covers the size once, as fio does");
  opts.add_options()("json", po::value<std::string>(), "write the result as JSON to this file")(
      "lat-log", po::value<std::string>(),
      "write one CSV line per completed I/O: time ms, clat ns, direction, size, offset")(
      "allow-destructive", po::bool_switch(), "allow writes to a block device or an existing file")(
      "force", po::bool_switch(),
      "with --allow-destructive: ignore a filesystem or partition signature")(
      "latency-limit", po::value<std::string>(),
      "run a latency-bounded IOPS search instead of one run: the highest IOPS over iodepth 1, 2, "
      "4 .. --max-iodepth whose statistic stays at or under this duration (e.g. 10ms)")(
      "latency-stat", po::value<std::string>()->default_value("mean"),
      "with --latency-limit: mean or a reported percentile pNN (p99, p99.9)")(
      "latency-kind", po::value<std::string>()->default_value("lat"),
      "with --latency-limit: lat (submission to completion, fio's lat) or clat (completion)")(
      "max-iodepth", po::value<unsigned>()->default_value(256),
      "with --latency-limit: the deepest step")(
      "search", po::value<std::string>()->default_value("sweep"),
      "with --latency-limit: sweep (every depth) or bisect (stop at the first over the limit)");
  return opts;
}

// --latency-limit and its companions as a LatencySearch; throws UsageError on a bad value.
LatencySearch bench_search(const po::variables_map& vm) {
  LatencySearch s;
  try {
    s.limit_ns = parse_duration(vm["latency-limit"].as<std::string>()) * 1e9;
    s.stat = vm["latency-stat"].as<std::string>();
    s.percentile = parse_metric("lat." + s.stat).percentile;
  } catch (const UnitError& e) {
    throw UsageError(std::string("--latency-limit/--latency-stat: ") + e.what());
  }
  if (!(s.limit_ns > 0)) throw UsageError("--latency-limit must be greater than 0");
  s.latency = vm["latency-kind"].as<std::string>();
  if (s.latency != "lat" && s.latency != "clat")
    throw UsageError("--latency-kind: expected lat or clat, got '" + s.latency + "'");
  const std::string mode = vm["search"].as<std::string>();
  if (mode != "sweep" && mode != "bisect")
    throw UsageError("--search: expected sweep or bisect, got '" + mode + "'");
  s.bisect = mode == "bisect";
  s.max_iodepth = vm["max-iodepth"].as<unsigned>();
  if (s.max_iodepth < 1 || s.max_iodepth > kMaxIodepth)
    throw UsageError("--max-iodepth must be 1.." + std::to_string(kMaxIodepth));
  return s;
}

// fio's --time_based (or --time-based): what storqual's --runtime does anyway. Without a runtime
// fio warns and covers the size once, and so does this; time_based=0 with a runtime (fio: stop at
// the runtime or when the size is covered) is not a mode storqual has.
void check_time_based(const po::variables_map& vm, const WorkloadSpec& spec) {
  for (const char* name : {"time_based", "time-based"}) {
    if (!vm.count(name)) continue;
    const std::string value = vm[name].as<std::string>();
    bool on = false;
    if (value == "1" || value == "true" || value == "yes" || value == "on")
      on = true;
    else if (value != "0" && value != "false" && value != "no" && value != "off")
      throw UsageError(std::string("--") + name + ": expected 0 or 1, got '" + value + "'");
    if (on && spec.params.runtime_s <= 0)
      std::fprintf(stderr, "storqual bench: --%s needs --runtime; covering the size once\n", name);
    if (!on && spec.params.runtime_s > 0)
      throw UsageError(std::string("--") + name +
                       "=0 with --runtime: storqual's runtime is always time based; leave out "
                       "--runtime to cover the size once");
  }
}

}  // namespace

int cmd_bench(const Args& args) {
  auto opts = bench_options();
  opts.add(archive_record_options());
  po::options_description hidden;
  hidden.add_options()("inject-fault", po::value<std::string>());  // runner/measure/fault_spec.hpp
  hidden.add_options()("time-based", po::value<std::string>()->implicit_value("1"));
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (parse_command_options(args, all, opts, vm)) return kExitPass;
  WorkloadSpec spec;
  spec.id = "bench";
  spec.params.runtime_s = 0;
  for (const auto& o : workload_options()) {
    if (vm.count(std::string(o.name)))
      set_workload_option(spec, o.name, vm[std::string(o.name)].as<std::string>());
  }
  check_time_based(vm, spec);
  if (!vm.count("target")) throw UsageError("--target is required (a file or block device)");
  spec.params.target = vm["target"].as<std::string>();
  validate(spec);
  const std::optional<LatencySearch> search =
      vm.count("latency-limit") ? std::optional(bench_search(vm)) : std::nullopt;
  if (search) spec.params.iodepth = search->max_iodepth;  // the guard sees the deepest step
  // The guard holds its claim (O_EXCL descriptor, scratch file) until the run is over.
  std::optional<devices::AdmittedTarget> admitted;
  if (spec.params.ioengine != "null") {
    struct stat st {};
    if (stat(spec.params.target.c_str(), &st) != 0)
      throw UsageError("target " + spec.params.target + " does not exist");
    if (S_ISDIR(st.st_mode) && spec.params.size == 0)
      throw UsageError("target " + spec.params.target +
                       " is a directory: give --size to measure a scratch file in it, or name a "
                       "file or block device");
    TargetFlags flags;
    flags.allow_destructive = vm["allow-destructive"].as<bool>();
    flags.force = vm["force"].as<bool>();
    admitted = admit_target(spec, flags);
    for (const auto& note : admitted->notes)
      std::fprintf(stderr, "storqual bench: %s\n", note.c_str());
  }

  RunOptions run;
  run.stop = &install_stop_handlers();
  if (vm.count("lat-log")) run.lat_log_path = vm["lat-log"].as<std::string>();
  if (vm.count("inject-fault"))
    run.wrap_engine = fault_injector(parse_fault_plan(vm["inject-fault"].as<std::string>()));
  reporting::Environment env = capture_environment();
  reporting::WorkloadResult r;
  if (search) {
    r = search_latency_bound(spec, *search, [&](const WorkloadSpec& step) {
          WorkloadSpec named = step;
          named.id = spec.id + " (iodepth " + std::to_string(step.params.iodepth) + ")";
          std::fprintf(stderr, "storqual bench: latency search, iodepth %u\n", step.params.iodepth);
          return run_workload(named, run);
        }).best;
    r.id = spec.id;
  } else {
    r = run_workload(spec, run);
  }

  std::fputs(reporting::format_fio_summary(r).c_str(), stdout);
  std::printf("  fio equivalent: %s\n", r.fio_command.c_str());
  if (vm.count("json")) {
    reporting::RunResult result;
    result.environment = env;
    result.environment.end_utc = utc_now();
    result.device.path = spec.params.target;
    result.device.name = spec.params.target;
    result.workloads.push_back(r);
    result.exit_code = r.interrupted      ? kExitInterrupted
                       : r.errors.empty() ? kExitPass
                                          : kExitRuntime;
    reporting::ReportSet reports;  // the result alone
    reports.json = vm["json"].as<std::string>();
    // The file; the acceptance archive (docs/archive.md) only when --archive names it: an
    // experiment is not an acceptance, and STORQUAL_ARCHIVE or the default place never gets one.
    if (vm.count("archive"))
      recording_store(vm, stderr)->save(result, reports);
    else
      reporting::default_results_store().save(result, reports);
  }
  for (const auto& e : r.errors) std::fprintf(stderr, "storqual bench: %s\n", e.c_str());
  if (r.interrupted) return interrupted_exit_code() ? interrupted_exit_code() : kExitInterrupted;
  if (!r.errors.empty()) return kExitRuntime;
  if (r.integrity) {
    std::printf("  %s\n", integrity_summary(*r.integrity).c_str());
    const auto& v = *r.integrity;
    if (v.corrupted + v.misplaced + v.stale + v.foreign > 0) return kExitClaimFailed;
  }
  return kExitPass;
}

}  // namespace storqual::runner
