// SPDX-License-Identifier: Apache-2.0
// `storqual suites`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_suites(const Args& /*args*/) {
  throw UsageError("'suites' is not built yet");
}

}  // namespace storqual::runner
