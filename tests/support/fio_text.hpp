// SPDX-License-Identifier: Apache-2.0
// fio job files in tests, without this host: a fixed machine (8 CPUs, 16 GiB, 4 KiB pages), the
// environment variables `vars` (every other ${VAR} unset) and `files` as the only files an
// include can read (any other: "cannot open the job file").
#pragma once

#include <map>
#include <string>

#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"

namespace storqual::testing {

struct FioTestHost {
  std::map<std::string, std::string> vars;   // ${NAME} -> value
  std::map<std::string, std::string> files;  // include path -> contents
};

[[nodiscard]] runner::FioEnvironment fio_test_environment(const FioTestHost& host = {});
// `text` read as fio reads dir/t.fio on that host, imported as the suite "t".
[[nodiscard]] runner::FioImport import_fio_text(const std::string& text,
                                                const FioTestHost& host = {});

}  // namespace storqual::testing
