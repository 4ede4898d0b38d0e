// SPDX-License-Identifier: Apache-2.0
// The command line: `storqual COMMAND [options]`. Each command lives in runner/cmd_<name>.cpp.
#pragma once

#include <string>
#include <vector>

#include "runner/base/errors.hpp"
#include "runner/base/invocation.hpp"

namespace storqual::runner {

using Args = std::vector<std::string>;  // the command's own arguments (after the command name)

int cmd_bench(const Args& args);
int cmd_run(const Args& args);
int cmd_identify(const Args& args);
int cmd_check(const Args& args);
int cmd_suites(const Args& args);
int cmd_suites_import(const Args& args);  // `suites import` (cmd_suites_fio.cpp)
int cmd_suites_export(const Args& args);  // `suites export`
int cmd_report(const Args& args);
int cmd_judge(const Args& args);  // `judge --fio-json` (cmd_judge.cpp)
int cmd_history(const Args& args);
int cmd_archive(const Args& args);
int cmd_audit(const Args& args);
int cmd_powercut(const Args& args);  // `powercut arm | check | listen | indicators`

int cli_main(int argc, char** argv);

}  // namespace storqual::runner
