// SPDX-License-Identifier: Apache-2.0
#include "tests/support/fio_text.hpp"

#include <filesystem>
#include <optional>

#include "runner/base/xml_file.hpp"

namespace storqual::testing {

runner::FioEnvironment fio_test_environment(const FioTestHost& host) {
  runner::FioEnvironment env;
  env.ncpus = 8;
  env.mb_memory = 16384;
  env.pagesize = 4096;
  env.getenv = [vars = host.vars](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  env.read_file = [files = host.files](const std::filesystem::path& p) {
    auto it = files.find(p.string());
    if (it == files.end()) throw runner::FileError(p.string() + ": cannot open the job file");
    return it->second;
  };
  return env;
}

runner::FioImport import_fio_text(const std::string& text, const FioTestHost& host) {
  return runner::import_fio_jobs(
      runner::parse_fio_job_text(text, "dir/t.fio", fio_test_environment(host)), "t");
}

}  // namespace storqual::testing
