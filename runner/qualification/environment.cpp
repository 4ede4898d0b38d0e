// SPDX-License-Identifier: Apache-2.0
// Capturing the environment of a run for the reports.
#include "runner/qualification/environment.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "devices/sanitize.hpp"
#include "runner/base/invocation.hpp"

namespace storqual::runner {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

reporting::Environment capture_environment() {
  reporting::Environment env;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) env.host = devices::sanitize_device_string(host);
  utsname u{};
  if (uname(&u) == 0) env.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos)
        env.cpu_model = devices::sanitize_device_string(line.substr(colon + 1));
      break;
    }
  }
  env.cpus = std::thread::hardware_concurrency();
  env.storqual_version = version_string();
  env.command_line = invocation();
  env.start_utc = utc_now();
  return env;
}

}  // namespace storqual::runner
