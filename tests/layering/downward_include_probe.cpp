// SPDX-License-Identifier: Apache-2.0
// The control of upward_include_probe.cpp: built against runner/measure alone, a header of measure
// itself and one of the library below it compile, so the probe fails for the direction only.
#include "runner/base/units.hpp"
#include "runner/measure/workload.hpp"
