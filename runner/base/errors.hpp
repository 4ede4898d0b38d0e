// SPDX-License-Identifier: Apache-2.0
// What an exception means for the user (the error classes and exit codes: model/errors.hpp):
// describe_error (errors.cpp) is the one place that turns an exception into a message and an exit
// code (docs/architecture.md).
#pragma once

#include <exception>
#include <string>

#include "model/errors.hpp"

namespace storqual {

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
