// SPDX-License-Identifier: Apache-2.0
// Must not compile: reporting/ links only model/, so a runner header is not on its include path
// (ctest folder_layers_build_refuses_upward expects exactly this failure).
#include "runner/base/errors.hpp"
