// SPDX-License-Identifier: Apache-2.0
// The one place an exception becomes a message and an exit code (see errors.hpp).
#include "runner/base/errors.hpp"

#include <boost/program_options/errors.hpp>

namespace storqual {

ErrorReport describe_error(const std::exception_ptr& error) noexcept {
  ErrorReport r;
  try {
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      r.exit_code = e.exit_code();
      r.message = e.label().empty() ? e.what() : std::string(e.label()) + ": " + e.what();
    } catch (const boost::program_options::error& e) {
      r.exit_code = kExitUsage;
      r.message = e.what();
    } catch (const std::exception& e) {
      r.exit_code = kExitRuntime;
      r.message = std::string("error: ") + e.what();
    } catch (...) {
      r.exit_code = kExitRuntime;
      r.message = "error: unknown exception";
    }
  } catch (...) {  // std::string ran out of memory
    r.exit_code = kExitRuntime;
  }
  return r;
}

}  // namespace storqual
