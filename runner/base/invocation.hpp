// SPDX-License-Identifier: Apache-2.0
// Who this process is, for reports: the command line as typed and the version it was built as.
#pragma once

#include <string>

namespace storqual::runner {

// Records argv, each argument quoted for a shell; cli_main calls it once at start.
void set_invocation(int argc, char** argv);
// The full command line as typed, quoted for a shell (for reports).
[[nodiscard]] const std::string& invocation();
[[nodiscard]] std::string version_string();  // "storqual 0.1.0 (git abcdef012345)"

}  // namespace storqual::runner
