// SPDX-License-Identifier: Apache-2.0
// `storqual run`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_run(const Args& /*args*/) {
  throw UsageError("'run' is not built yet");
}

}  // namespace storqual::runner
