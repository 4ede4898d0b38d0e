// SPDX-License-Identifier: Apache-2.0
// The programs the tests call beside storqual (fio, chromium, sg_logs, xmllint, ...), each found
// one way for every test. A test whose tool is missing fails naming it: STORQUAL_REQUIRE(cond,
// what) instead of a skip (scripts/install-deps.sh test installs them all; tests/expected-skips
// lists the only skips `make test` accepts).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"

// Fails the test (it returns from the test body or SetUp) unless `cond` holds, naming `what`.
#define STORQUAL_REQUIRE(cond, what)                                      \
  do {                                                                    \
    if (!(cond)) GTEST_FAIL() << "cannot run: " << what << " is missing"; \
  } while (0)

namespace storqual::testing {

// `name` is a program on the PATH (`command -v`).
[[nodiscard]] bool have_program(const std::string& name);
// fio (/usr/bin/fio, Debian's fio 3.33: the reference) on the PATH.
[[nodiscard]] bool have_fio();
// `/usr/bin/python3 -c 'import MODULE'` succeeds.
[[nodiscard]] bool have_python_module(const std::string& module);

// The headless browser the HTML pages are checked in: STORQUAL_CHROMIUM when set (an empty
// string when it names no executable file), else chromium, chromium-browser or google-chrome on
// the PATH; "" when there is none.
[[nodiscard]] std::string find_chromium();
// What a test says when find_chromium() found none.
[[nodiscard]] std::string chromium_missing();
// One headless run of `binary` on `page` (file://) with a fresh profile under `profile`, bounded
// to `seconds` by timeout(1); `extra` goes before the page (--dump-dom, --screenshot=...).
CommandResult run_chromium(const std::string& binary, const std::filesystem::path& profile,
                           const std::vector<std::string>& extra, const std::filesystem::path& page,
                           int seconds = 60);

// Writes `text` to `p` (creating or replacing it, and its folder); throws std::runtime_error
// naming the file when it cannot.
void write_text(const std::filesystem::path& p, const std::string& text);

// sg3-utils' sg_logs as the independent decoder of SCSI log pages: `sg_logs --in=FILE --raw`'s
// "label = value" lines (a "[9 TB]" suffix dropped) and its whole text.
struct SgLogs {
  std::map<std::string, std::string> values;
  std::string text;
};
[[nodiscard]] bool have_sg_logs();
[[nodiscard]] SgLogs sg_logs(const std::filesystem::path& page_file);

}  // namespace storqual::testing
