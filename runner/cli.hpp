// SPDX-License-Identifier: Apache-2.0
// The command line: `storqual COMMAND [options]`. Each command lives in runner/cmd_<name>.cpp.
#pragma once

#include <string>
#include <vector>

namespace storqual::runner {

// Exit codes (README.md, "Exit codes"; docs/robustness.md for 3 and 128+signal).
enum ExitCode : int {
  kExitPass = 0,         // every claim passed
  kExitClaimFailed = 1,  // a claim failed
  kExitUsage = 2,        // usage or file error
  kExitRuntime = 3,      // run-time error (device, I/O)
  kExitInterrupted = 130,
};

// Thrown for bad input anywhere below a command; main prints "storqual: <what>" and exits 2.
class UsageError : public std::exception {
 public:
  explicit UsageError(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

using Args = std::vector<std::string>;  // the command's own arguments (after the command name)

int cmd_bench(const Args& args);
int cmd_run(const Args& args);
int cmd_identify(const Args& args);
int cmd_check(const Args& args);
int cmd_suites(const Args& args);
int cmd_report(const Args& args);

// The full command line as typed, quoted for a shell (for reports).
[[nodiscard]] const std::string& invocation();
[[nodiscard]] std::string version_string();  // "storqual 0.1.0 (git abcdef012345)"

int cli_main(int argc, char** argv);

}  // namespace storqual::runner
