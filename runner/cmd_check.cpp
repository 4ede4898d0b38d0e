// SPDX-License-Identifier: Apache-2.0
// `storqual check`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_check(const Args& /*args*/) {
  throw UsageError("'check' is not built yet");
}

}  // namespace storqual::runner
