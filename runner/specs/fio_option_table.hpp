// SPDX-License-Identifier: Apache-2.0
// The one table of fio's options (fio 3.33's HOWTO and options.c for their meaning), internal to
// runner/specs/: how fio_suite.cpp takes each option, and fio's aliases of their names.
#pragma once

#include <string>
#include <string_view>

namespace storqual::runner::fio_options {

// How an option of fio is taken. Map: the workload option `target` (runner/measure/workload.hpp)
// with the value converted by `kind`; Special: its own code in apply_option; Ignore: accepted and
// listed with `target` as the reason; Refuse: an error with `target` as the reason, unless the
// value is `harmless` (fio's default, or what storqual does anyway: it changes nothing).
enum class Take { Map, Special, Ignore, Refuse };
enum class Kind { None, Int, Bool, Size, Time };

struct FioOptionRule {
  std::string_view name;
  Take take;
  Kind kind = Kind::None;
  std::string_view target = {};
  std::string_view harmless = {};
};

// The rule of an option by its canonical name; null for an option the table does not know.
[[nodiscard]] const FioOptionRule* find_rule(std::string_view name);
// The canonical name of an option fio also knows by an alias ("blocksize" -> "bs").
[[nodiscard]] std::string canonical(std::string_view name);

}  // namespace storqual::runner::fio_options
