// SPDX-License-Identifier: Apache-2.0
// fio's values as the import reads them: sizes and times with fio's units (parse.c), and the
// refusal of one option, which names its file, line and value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runner/specs/fio_job.hpp"

namespace storqual::runner::fio_values {

// "dir/t.fio:3: option 'bs=4q': why".
[[nodiscard]] std::string refusal(const FioOption& o, std::string_view why);
// Throws FileError(refusal(o, why)).
[[noreturn]] void refuse(const FioOption& o, std::string_view why);
// fio's sizes (parse.c str_to_decimal, get_mult_bytes): k/m/g/t/p (and kb, mb, ...) are kb_base
// multiples; KiB, MiB, ... the other base (with fio's default kb_base=1024, 4KiB is 4000 bytes).
[[nodiscard]] std::uint64_t fio_bytes(const FioOption& o, std::string_view v, unsigned kb_base);
// fio's times (parse.c get_mult_time) in microseconds: us, ms, s, m, h, d; a plain number is
// seconds for runtime and ramp_time.
[[nodiscard]] std::uint64_t fio_micros(const FioOption& o, std::string_view v);

}  // namespace storqual::runner::fio_values
