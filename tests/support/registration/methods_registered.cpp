// SPDX-License-Identifier: Apache-2.0
// Every test executable links this object (tests/CMakeLists.txt): the methods' report readers and
// named figures are registered before any test reads a result or parses a claim, as the command
// line does it first (runner/cli/cli.cpp).
#include "runner/methods/method.hpp"

namespace {

const bool kRegistered = [] {
  storqual::runner::register_method_reports();
  return true;
}();

}  // namespace
