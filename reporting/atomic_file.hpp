// SPDX-License-Identifier: Apache-2.0
// Writing report files so that a crash or a signal never leaves a torn file under the final name.
//
// Contract: write_file_atomically(path, content) writes `content` to "<path>.tmp.<pid>" in the
// same directory, fsyncs it, renames it over `path` and fsyncs the directory. On any failure the
// temporary file is removed and std::system_error is thrown naming the path and the errno.
// While a write is in flight, the temporary's name is recorded in a static slot so that a signal
// handler can call remove_pending_temp_file() (async-signal-safe: only unlink(2) on fixed
// buffers) before _exit(). Thread-safe: each concurrent write (up to 32 at once; more wait for a
// slot) records its own temporary. Two threads writing the same path at once share its temporary
// name and are not supported.
// A path that exists and is not a regular file (`--json /dev/null`, a FIFO, /dev/stdout) is
// written in place: renaming over it would replace the device or pipe with a file (as root,
// /dev/null itself).
#pragma once

#include <string>
#include <string_view>

namespace storqual::reporting {

void write_file_atomically(const std::string& path, std::string_view content);

// The temporary name write_file_atomically() uses for `path` in this process.
[[nodiscard]] std::string temp_name_for(const std::string& path);

// Async-signal-safe: unlinks the temporary file of a write in progress, if there is one.
void remove_pending_temp_file() noexcept;

}  // namespace storqual::reporting
