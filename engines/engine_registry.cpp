// SPDX-License-Identifier: Apache-2.0
// Which engines exist, whether this kernel can run them, and how to make one by name.
#include <array>

#include "engines/engine.hpp"
#include "engines/null_engine.hpp"

namespace storqual::engines {
namespace {
constexpr std::array<std::string_view, 1> kNames = {"null"};
}

std::span<const std::string_view> engine_names() noexcept {
  return kNames;
}

Availability available(std::string_view name) {
  if (name == "null") return {true, {}};
  return {false, "unknown engine '" + std::string(name) + "' (known: null)"};
}

std::unique_ptr<Engine> make_engine(std::string_view name) {
  auto a = available(name);
  if (!a.ok) throw EngineError(a.reason, EINVAL);
  if (name == "null") return std::make_unique<NullEngine>();
  throw EngineError("unknown engine '" + std::string(name) + "'", EINVAL);
}

}  // namespace storqual::engines
