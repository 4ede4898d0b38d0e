// SPDX-License-Identifier: Apache-2.0
// The one error type of the project and its exit codes. Every exception storqual throws derives
// from storqual::Error, which carries the exit code it means; describe_error
// (runner/base/errors.hpp) is the one place that turns an exception into a message and that code
// (docs/architecture.md). Header-only, at the bottom with the result model, so that engines/,
// devices/ and reporting/ derive their exceptions from it without seeing the runner.
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

}  // namespace storqual
