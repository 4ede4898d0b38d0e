// SPDX-License-Identifier: Apache-2.0
// Must not compile: built against runner/measure alone (the ctest
// runner_layers_build_refuses_upward), it includes a header of runner/methods, a higher library
// that measure does not link.
#include "runner/methods/steady_state/steady_state.hpp"
