// Strict number parsing (see strict_number.hpp).
#include "chorus/core/strict_number.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

double parse_strict_number(std::string_view text, const std::string& source, const Field& field) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    throw Error(source, field, fmt::format("'{}' is not a number", text));
  }
  return value;
}

}  // namespace chorus
