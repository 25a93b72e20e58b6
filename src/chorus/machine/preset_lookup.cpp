// The unknown-preset error of preset_lookup.hpp.
#include "chorus/machine/preset_lookup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/core/suggest.hpp"

namespace chorus::machine {

void throw_unknown_preset(std::string_view kind, std::string_view name, const std::vector<std::string>& names,
                          std::string_view field) {
  const auto near = closest_match(name, names);
  throw Error("", Argument{std::string(field)},
              fmt::format("'{}' is not a {} preset{} (presets: {}; `chorus machines` lists them)", name, kind,
                          near ? fmt::format("; did you mean '{}'?", *near) : "", fmt::join(names, ", ")));
}

}  // namespace chorus::machine
