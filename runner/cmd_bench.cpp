// SPDX-License-Identifier: Apache-2.0
// `storqual bench`.
#include "runner/cli.hpp"

namespace storqual::runner {

int cmd_bench(const Args& /*args*/) {
  throw UsageError("'bench' is not built yet");
}

}  // namespace storqual::runner
