// SPDX-License-Identifier: Apache-2.0
// The exit codes of `storqual` and the error for bad input anywhere below a command.
#pragma once

#include <exception>
#include <string>

namespace storqual::runner {

// Exit codes (docs/architecture.md, "errors").
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

}  // namespace storqual::runner
