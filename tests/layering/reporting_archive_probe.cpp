// SPDX-License-Identifier: Apache-2.0
// Must not compile: archive/ sits above reporting/ (it keeps what reporting renders), so reporting/
// links only model/ and an archive header is not on its include path (ctest
// folder_layers_build_refuses_archive expects exactly this failure).
#include "archive/results_store.hpp"
