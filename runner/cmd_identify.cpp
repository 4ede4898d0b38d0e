// SPDX-License-Identifier: Apache-2.0
// `storqual identify`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_identify(const Args& /*args*/) {
  throw UsageError("'identify' is not built yet");
}

}  // namespace storqual::runner
