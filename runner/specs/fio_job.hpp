// SPDX-License-Identifier: Apache-2.0
// The grammar of fio job files and fio command lines (fio's HOWTO, "Job file format"; fio 3.33's
// init.c __parse_jobs_ini and options.c are the reference): [global] and job sections, a job
// inheriting the [global] sections above it, `include FILE` (options only, relative to the
// including file when not found as given), ${VAR} environment expansion, the keywords $ncpus,
// $mb_memory and $pagesize with fio's integer arithmetic on them, comments with '#' and ';',
// options with and without values. This layer knows no option's meaning: runner/specs/
// fio_suite.hpp maps the options onto workloads. Parsing throws FileError "file:line: what".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storqual::runner {

// What fio substitutes into values: the host's figures and its environment. A seam, so that tests
// and the fuzzer see fixed values.
struct FioEnvironment {
  unsigned ncpus = 1;
  std::uint64_t mb_memory = 1024;  // total memory in MiB, as fio's $mb_memory
  std::uint64_t pagesize = 4096;
  std::function<std::optional<std::string>(const std::string&)> getenv;  // empty: none set
  // Reads `include` files; empty: an include is an error (the fuzzer reads no files).
  std::function<std::string(const std::filesystem::path&)> read_file;
  [[nodiscard]] static FioEnvironment of_this_host();
};

struct FioOption {
  std::string name;   // as written, e.g. "bs"
  std::string value;  // expanded (${VAR}, keywords and their arithmetic); "" when none
  bool has_value = false;
  std::string location;      // "file:line" or "fio-cmd:word N"
  bool from_global = false;  // inherited from a [global] section
};

struct FioJob {
  std::string name;      // the section name (or --name)
  std::string location;  // of its section header
  // The options of the [global] sections above it, then its own, in the order fio applies them.
  std::vector<FioOption> options;
};

struct FioJobFile {
  std::string display_name;
  std::vector<FioJob> jobs;  // file order
};

// A job file from disk; includes are read relative to it (FioEnvironment::read_file when set).
[[nodiscard]] FioJobFile parse_fio_job_file(const std::filesystem::path& path,
                                            const FioEnvironment& env);
// A job file's text; `path` places relative includes and names the file in messages.
[[nodiscard]] FioJobFile parse_fio_job_text(std::string_view text,
                                            const std::filesystem::path& path,
                                            const FioEnvironment& env);
// A command line as documentation gives it: "fio --name=a --rw=randread --bs=4k --name=b ...";
// options before the first --name (and under --name=global) are global, as on fio's command
// line. Words are split as a POSIX shell would (quotes, backslashes; no expansion but fio's own).
[[nodiscard]] FioJobFile parse_fio_command_line(std::string_view command,
                                                const FioEnvironment& env);

// Shell-like word splitting: whitespace separates, '...' and "..." quote, backslash escapes.
// Throws FileError on an unterminated quote.
[[nodiscard]] std::vector<std::string> split_shell_words(std::string_view text);

// fio's value substitution of one option value: ${VAR} (unset: empty), then $ncpus, $mb_memory,
// $pagesize; when a keyword was replaced and the value has + - * /, its integer arithmetic (fio
// hands it to bc: whole numbers, + - * / and parentheses, truncating division). Throws UnitError
// for arithmetic bc would not take.
[[nodiscard]] std::string expand_fio_value(std::string_view value, const FioEnvironment& env);

}  // namespace storqual::runner
