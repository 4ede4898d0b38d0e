// SPDX-License-Identifier: Apache-2.0
// `storqual report`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_report(const Args& /*args*/) {
  throw UsageError("'report' is not built yet");
}

}  // namespace storqual::runner
