// SPDX-License-Identifier: Apache-2.0
// The one error type of the project and its exit codes. Every exception storqual throws derives
// from storqual::Error, which carries the exit code it means; describe_error (errors.cpp) is the
// one place that turns an exception into a message and that code (docs/architecture.md).
// Header-only for the classes, so that engines/, devices/ and reporting/ derive from it through the
// storqual_errors target without linking the runner.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace storqual {

// Exit codes of `storqual` (docs/architecture.md, "The path of a run").
enum ExitCode : int {
  kExitPass = 0,         // every claim passed
  kExitClaimFailed = 1,  // a claim failed
  kExitUsage = 2,        // usage or file error
  kExitRuntime = 3,      // run-time error (device, I/O)
  kExitInterrupted = 130,
};

class Error : public std::runtime_error {
 public:
  // `label` is said before the message ("refused" for a safety refusal), empty for most.
  Error(const std::string& what, ExitCode code, std::string_view label = {})
      : std::runtime_error(what), code_(code), label_(label) {}
  [[nodiscard]] ExitCode exit_code() const noexcept { return code_; }
  [[nodiscard]] std::string_view label() const noexcept { return label_; }

 private:
  ExitCode code_;
  std::string_view label_;  // a literal
};

// Bad input anywhere below a command: the command prints "storqual CMD: <what>" and exits 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what, kExitUsage) {}
};

// What an exception means for the user: the line to print (after "storqual CMD: ") and the exit
// code. storqual::Error says both; a command-line parse error is usage (2); anything else is a
// run-time error (3) printed as "error: <what>".
struct ErrorReport {
  ExitCode exit_code = kExitRuntime;
  std::string message;
};
[[nodiscard]] ErrorReport describe_error(const std::exception_ptr& error) noexcept;

namespace runner {
using storqual::Error;
using storqual::ExitCode;
using storqual::UsageError;
using enum storqual::ExitCode;
}  // namespace runner

}  // namespace storqual
