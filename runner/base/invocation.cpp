// SPDX-License-Identifier: Apache-2.0
// The command line and version of this process (see invocation.hpp).
#include "runner/base/invocation.hpp"

#include <string_view>

#include "runner/base/version.hpp"

namespace storqual::runner {
namespace {

std::string g_invocation;

std::string shell_quote(std::string_view s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./=:,+%@") == std::string_view::npos)
    return std::string(s);
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

void set_invocation(int argc, char** argv) {
  g_invocation.clear();
  for (int i = 0; i < argc; ++i) {
    if (i) g_invocation += ' ';
    g_invocation += shell_quote(argv[i]);
  }
}

const std::string& invocation() {
  return g_invocation;
}

std::string version_string() {
  return std::string("storqual ") + kVersion + " (git " + kGitRevision + ")";
}

}  // namespace storqual::runner
