// SPDX-License-Identifier: Apache-2.0
// storqual's entry point: everything lives in the libraries; main only hands over argv.
#include "runner/cli/cli.hpp"

int main(int argc, char** argv) {
  return storqual::runner::cli_main(argc, argv);
}
