// SPDX-License-Identifier: Apache-2.0
// A suite (docs/formats.md, "Suite"): named workloads in fio's terms, with shared <defaults>, and
// latency searches (the iodepth-sweep method). Attributes are applied through the one workload
// option table (runner/measure/workload.hpp), so names, validation and messages are the bench
// command line's. Loading throws FileError "file:line:column: what was expected" on the first
// mistake.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/measure/workload.hpp"
#include "runner/methods/method.hpp"
#include "runner/methods/preconditioning/preconditioning.hpp"

namespace storqual::runner {

// One entry of a suite in file order: its workload and the method its element names
// (runner/methods/method.hpp). For a latency search, `spec` holds everything but the iodepth,
// which the search chooses (spec.params.iodepth is 1).
struct SuiteWorkload {
  WorkloadSpec spec;
  std::shared_ptr<const Method> method = plain_method();
  // <precondition> inside the element: done before this workload, over its range.
  std::optional<Precondition> precondition;
  std::string location;  // "file:line:column" of the element
  [[nodiscard]] const std::string& id() const noexcept { return spec.id; }
  // The equivalent fio command (Method::fio_equivalent).
  [[nodiscard]] std::string fio_equivalent() const { return method->fio_equivalent(spec); }
  // The method as its own type, or null when it is another (tests, and a method's own code).
  template <class M>
  [[nodiscard]] const M* method_as() const noexcept {
    return dynamic_cast<const M*>(method.get());
  }
};

class Suite {
 public:
  std::string name;
  std::string description;
  std::filesystem::path path;
  std::string sha256;                    // of the file's bytes, lower-case hex (the run records it)
  std::vector<SuiteWorkload> workloads;  // file order; ids unique
  // <precondition> directly in <suite>: done once before the first workload, over the whole
  // region the suite touches.
  std::optional<Precondition> precondition;

  [[nodiscard]] const SuiteWorkload* find(std::string_view id) const noexcept;

  [[nodiscard]] static Suite load(const std::filesystem::path& path);
  [[nodiscard]] static Suite parse(std::string text, std::string display_name);
};

// The share directory beside the running binary: <prefix>/share/storqual for <prefix>/bin/storqual
// (from /proc/self/exe), so that an installed tree works wherever it was installed or packaged;
// empty when /proc/self/exe cannot be read. It need not exist (a build tree has none).
[[nodiscard]] std::filesystem::path installed_data_dir();

// Where standard suites are looked for, the first that has a name wins: the share directory beside
// the binary (installed_data_dir()/suites), the configured one (kDataDir/suites: the install
// prefix at configure time), then the source tree's suites/ (kSourceDir/suites); only those that
// exist.
[[nodiscard]] std::vector<std::filesystem::path> default_suite_dirs();

// Resolves `--suite NAME|FILE`: an existing file as given; otherwise NAME.xml in the first of
// `dirs` that has it. Throws FileError naming where it looked and the suites it saw.
[[nodiscard]] std::filesystem::path resolve_suite(std::string_view name_or_file,
                                                  const std::vector<std::filesystem::path>& dirs);

// The suite a spec sheet names: a name from `dirs`, or a path ending in .xml (or .fio or .job, a
// fio job file) or containing '/' taken relative to the sheet's own directory.
[[nodiscard]] std::filesystem::path resolve_suite_for_sheet(
    const std::string& suite, const std::filesystem::path& sheet_path,
    const std::vector<std::filesystem::path>& dirs);

// Every *.xml in `dirs`, by name, the first directory winning (as resolve_suite).
[[nodiscard]] std::vector<std::filesystem::path> list_suite_files(
    const std::vector<std::filesystem::path>& dirs);

}  // namespace storqual::runner
