// SPDX-License-Identifier: Apache-2.0
// The option parsing every `storqual COMMAND` does the same way (runner/cli/cmd_*.cpp): parse the
// command's arguments, answer --help with the visible options (and a line on what the command
// does) before any option is checked, then check the values (po::notify).
#pragma once

#include <boost/program_options.hpp>
#include <string_view>

#include "runner/cli/cli.hpp"

namespace storqual::runner {

// Returns true when --help was given and printed to stdout: the command then returns kExitPass.
// `all` holds the visible and hidden options; `positional` may be null.
[[nodiscard]] bool parse_command_options(
    const Args& args, const boost::program_options::options_description& all,
    const boost::program_options::options_description& visible,
    boost::program_options::variables_map& vm,
    const boost::program_options::positional_options_description* positional = nullptr,
    std::string_view about = {});

}  // namespace storqual::runner
