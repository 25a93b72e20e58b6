// Size sweeps (see size_range.hpp).
#include "chorus/sweep/size_range.hpp"

#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/core/strict_number.hpp"

namespace chorus {

namespace {

// The field with words appended ("size" -> "size factor"), still an argument when it was one.
Field suffixed(Field field, const char* words) {
  field.name += words;
  return field;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (size_t at; (at = text.find(separator, begin)) != std::string_view::npos; begin = at + 1)
    parts.push_back(text.substr(begin, at - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

void check_count(size_t count, std::string_view text, const Field& field) {
  if (count > kMaxSweepSizes) {
    throw Error("", field,
                fmt::format("'{}' gives more than {} sizes; use a larger step or factor", text, kMaxSweepSizes));
  }
}

// A * F^i for i = 0, 1, ... while <= B, each rounded down to whole bytes (nccl-tests' -f takes integers; a
// fractional factor such as x1.5 works the same way). A start of 0 would never grow: it is taken once, then 1.
std::vector<Bytes> geometric(Bytes start, Bytes end, std::string_view factor_text, std::string_view text,
                             const Field& field) {
  const double factor = parse_strict_number(factor_text, "", suffixed(field, " factor"));
  if (!(factor > 1))
    throw Error("", field, fmt::format("factor 'x{}' in '{}' must be > 1", factor_text, text));
  std::vector<Bytes> sizes;
  double next = static_cast<double>(start.count());
  int64_t last = -1;
  while (next <= static_cast<double>(end.count())) {
    const auto bytes = static_cast<int64_t>(std::floor(next));
    if (bytes != last)  // a small start with a fractional factor repeats a size after rounding
      sizes.push_back(Bytes(bytes));
    check_count(sizes.size(), text, field);
    last = bytes;
    next = next == 0 ? 1 : next * factor;
  }
  return sizes;
}

std::vector<Bytes> arithmetic(Bytes start, Bytes end, std::string_view step_text, std::string_view text,
                              const Field& field) {
  const Bytes step = parse_size(step_text, suffixed(field, " step"));
  if (step.count() == 0)
    throw Error("", field, fmt::format("step '+{}' in '{}' must be > 0", step_text, text));
  check_count(static_cast<size_t>((end.count() - start.count()) / step.count()) + 1, text, field);
  std::vector<Bytes> sizes;
  for (int64_t bytes = start.count(); bytes <= end.count(); bytes += step.count())
    sizes.push_back(Bytes(bytes));
  return sizes;
}

}  // namespace

bool is_size_range(std::string_view text) {
  return text.find(':') != std::string_view::npos || text.find(',') != std::string_view::npos;
}

std::vector<Bytes> parse_size_range(std::string_view text, const Field& field) {
  if (text.find(':') == std::string_view::npos) {
    std::vector<Bytes> sizes;
    for (const std::string_view part : split(text, ',')) {
      sizes.push_back(parse_size(part, field));
      check_count(sizes.size(), text, field);
    }
    return sizes;
  }
  const std::vector<std::string_view> parts = split(text, ':');
  if (parts.size() != 3 || parts[2].empty() || (parts[2][0] != 'x' && parts[2][0] != '+')) {
    throw Error("", field,
                fmt::format("'{}' is not a size range; expected START:END:xFACTOR (e.g. 8B:8GiB:x2) or "
                            "START:END:+STEP (e.g. 1MiB:8MiB:+1MiB)",
                            text));
  }
  const Bytes start = parse_size(parts[0], field);
  const Bytes end = parse_size(parts[1], field);
  if (end < start)
    throw Error("", field, fmt::format("range '{}' ends below its start ({} < {})", text, parts[1], parts[0]));
  return parts[2][0] == 'x' ? geometric(start, end, parts[2].substr(1), text, field)
                            : arithmetic(start, end, parts[2].substr(1), text, field);
}

}  // namespace chorus
