// Checked arithmetic for input numbers (see checked.hpp).
#include "chorus/core/checked.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"

namespace chorus {

int64_t checked_mul(int64_t a, int64_t b, const std::string& source, const Field& field) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(source, field, fmt::format("{} * {} overflows a 64-bit integer", a, b));
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& source, const Field& field) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw Error(source, field, fmt::format("{} + {} overflows a 64-bit integer", a, b));
  return r;
}

Time checked_time_from_picoseconds(double ps, const std::string& source, const Field& field) {
  // 9.2e18 ps is just below 2^63 ps, so that rounding to a whole picosecond cannot overflow.
  constexpr double kMaxPs = 9.2e18;
  if (!std::isfinite(ps) || ps < 0 || ps > kMaxPs) {
    throw Error(source, field,
                fmt::format("gives a time of {} s; chorus times must lie in [0, {} s] (about 106 days)", ps / 1e12,
                            kMaxPs / 1e12));
  }
  return Time::ps(std::llround(ps));
}

Time checked_time_from_seconds(double seconds, const std::string& source, const Field& field) {
  return checked_time_from_picoseconds(seconds * 1e12, source, field);
}

int64_t checked_integer(double value, int64_t low, int64_t high, const std::string& source, const Field& field) {
  if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<double>(low) ||
      value > static_cast<double>(high)) {
    throw Error(source, field, fmt::format("is {}; must be a whole number between {} and {}", value, low, high));
  }
  return static_cast<int64_t>(value);
}

uint32_t checked_npu_id(uint64_t value, const std::string& source, const Field& field) {
  if (value >= limits::kMaxNpus) {
    throw Error(source, field,
                fmt::format("NPU id {} is out of range; NPU ids are below {} (kMaxNpus)", value, limits::kMaxNpus));
  }
  return static_cast<uint32_t>(value);
}

}  // namespace chorus
