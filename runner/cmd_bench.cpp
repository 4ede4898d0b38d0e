// SPDX-License-Identifier: Apache-2.0
// `storqual bench`: one ad-hoc workload, fio-like numbers, optional JSON and per-I/O log.
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "runner/cli.hpp"
#include "runner/job_runner.hpp"
#include "runner/units.hpp"
#include "runner/workload.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

po::options_description bench_options() {
  po::options_description opts("storqual bench --target PATH --rw MODE --bs SIZE [options]");
  opts.add_options()("help,h", "this help")("target", po::value<std::string>(),
                                            "file or block device (any name for ioengine=null)");
  // The workload options come from the one declarative table (runner/workload.cpp).
  for (const auto& o : workload_options()) {
    std::string help(o.help);
    if (!o.default_value.empty()) help += " [" + std::string(o.default_value) + "]";
    opts.add_options()(std::string(o.name).c_str(), po::value<std::string>(), help.c_str());
  }
  opts.add_options()("json", po::value<std::string>(), "write the result as JSON to this file")(
      "lat-log", po::value<std::string>(),
      "write one CSV line per completed I/O: time ms, clat ns, direction, size, offset")(
      "allow-destructive", po::bool_switch(), "allow writes to a block device or an existing file")(
      "force", po::bool_switch(),
      "with --allow-destructive: ignore a filesystem or partition signature");
  return opts;
}

}  // namespace

int cmd_bench(const Args& args) {
  auto opts = bench_options();
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitPass;
  }
  WorkloadSpec spec;
  spec.id = "bench";
  spec.params.runtime_s = 0;
  for (const auto& o : workload_options()) {
    if (vm.count(std::string(o.name)))
      set_workload_option(spec, o.name, vm[std::string(o.name)].as<std::string>());
  }
  if (!vm.count("target")) throw UsageError("--target is required (a file or block device)");
  spec.params.target = vm["target"].as<std::string>();
  if (spec.params.ioengine != "null") {
    struct stat st {};
    if (stat(spec.params.target.c_str(), &st) != 0)
      throw UsageError("target " + spec.params.target + " does not exist");
    if (S_ISDIR(st.st_mode))
      throw UsageError("target " + spec.params.target +
                       " is a directory: give a file or a block device (storqual run makes a "
                       "scratch file in a directory)");
  }
  validate(spec);

  RunOptions run;
  if (vm.count("lat-log")) run.lat_log_path = vm["lat-log"].as<std::string>();
  reporting::WorkloadResult r = run_workload(spec, run);

  auto print_dir = [&](const char* name, const std::optional<reporting::DirectionResult>& d) {
    if (!d) return;
    std::printf("  %s: IOPS=%s, BW=%s (%s), ios=%llu\n", name, format_count(d->iops).c_str(),
                format_rate_mib(d->bw_bytes).c_str(), format_rate_mb(d->bw_bytes).c_str(),
                static_cast<unsigned long long>(d->ios));
    std::printf("    clat: min=%s max=%s avg=%s stdev=%s\n",
                format_ns(double(d->clat.min_ns)).c_str(),
                format_ns(double(d->clat.max_ns)).c_str(), format_ns(d->clat.mean_ns).c_str(),
                format_ns(d->clat.stdev_ns).c_str());
    for (auto [pct, v] : d->clat.percentiles)
      std::printf("    clat p%-6g = %s\n", pct, format_ns(double(v)).c_str());
  };
  std::printf("%s\n", r.fio_command.c_str());
  print_dir("read", r.read);
  print_dir("write", r.write);
  std::printf("  cpu: usr=%.1f%% sys=%.1f%%\n", r.cpu.usr_pct, r.cpu.sys_pct);
  for (const auto& e : r.errors) std::fprintf(stderr, "storqual bench: %s\n", e.c_str());
  if (r.interrupted) return kExitInterrupted;
  return r.errors.empty() ? kExitPass : kExitRuntime;
}

}  // namespace storqual::runner
