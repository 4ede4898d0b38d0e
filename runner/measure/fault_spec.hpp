// SPDX-License-Identifier: Apache-2.0
// The text form of a FaultPlan (engines/fault_engine.hpp), for the hidden `--inject-fault` option
// of `run` and `bench`: the seam through which tests (and anyone rehearsing a failing device) put
// the fault-injecting engine under a whole qualification.
//
//   SPEC   := FAULT (';' FAULT)*
//   FAULT  := KIND (':' KEY '=' VALUE (',' KEY '=' VALUE)*)?  |  'seed=' N
//   KIND   := fail | eagain | stuck | drop-write | short | misdirect | bit-flip | fake-capacity
//             | latency | cliff
//   trigger keys (every kind but fake-capacity, latency, cliff):
//            dir=read|write|both, after=N, count=N, probability=P (0..1)
//   fail:    error=EIO|ENOSPC|EROFS|ENXIO|ENODEV|EINVAL|ETIMEDOUT|<number>
//   eagain:  at=queue|reap                       short:     bytes=SIZE
//   misdirect: shift=SIZE (may be negative)      fake-capacity: wrap=SIZE, claimed=SIZE
//   latency: base=DURATION, per_in_flight=DURATION[, bump=DURATION, bump_from=N, bump_to=N]
//   cliff:   after=SIZE, slowdown=X
//
// e.g. "fail:dir=write,after=1000,error=EIO"  or  "stuck:after=50,count=1"  or
//      "fake-capacity:wrap=8m".
// Throws UnitError naming the part that is wrong.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "engines/fault_engine.hpp"

namespace storqual::runner {

[[nodiscard]] engines::FaultPlan parse_fault_plan(std::string_view spec);

// A RunOptions::wrap_engine that puts every engine inside a FaultEngine with `plan`.
[[nodiscard]] std::function<std::unique_ptr<engines::Engine>(std::unique_ptr<engines::Engine>)>
fault_injector(engines::FaultPlan plan);

}  // namespace storqual::runner
