// Conversions and formatting for the strong unit types.
#include "chorus/core/units.hpp"

#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"

namespace chorus {

Time Time::from_seconds(double seconds) {
  return Time::ps(static_cast<int64_t>(std::llround(seconds * 1e12)));
}

Time transfer_time(Bytes size, Bandwidth bandwidth) {
  CHORUS_ASSERT(bandwidth.bytes_per_second() > 0, "transfer over a zero bandwidth ({} B/s)",
                bandwidth.bytes_per_second());
  // Work in long double so that sizes up to 2^63 B keep sub-picosecond precision before rounding up.
  long double ps =
      static_cast<long double>(size.count()) * 1e12L / static_cast<long double>(bandwidth.bytes_per_second());
  long double up = std::ceil(ps - 1e-6L);  // tolerate representation noise below a micro-picosecond
  if (up >= static_cast<long double>(std::numeric_limits<int64_t>::max()))
    return Time::max();
  return Time::ps(static_cast<int64_t>(up));
}

std::string to_string(Bytes b) {
  const int64_t v = b.count();
  if (v >= (int64_t{1} << 30) && v % (int64_t{1} << 30) == 0)
    return fmt::format("{} GiB", v >> 30);
  if (v >= (int64_t{1} << 20) && v % (int64_t{1} << 20) == 0)
    return fmt::format("{} MiB", v >> 20);
  if (v >= (int64_t{1} << 10) && v % (int64_t{1} << 10) == 0)
    return fmt::format("{} KiB", v >> 10);
  return fmt::format("{} B", v);
}

std::string to_string(Bandwidth b) {
  return fmt::format("{:.6g} GB/s", b.gb_per_second());
}

std::string to_string(Time t) {
  const double ns = t.nanoseconds();
  if (std::fabs(ns) >= 1e6)
    return fmt::format("{:.6g} ms", ns / 1e6);
  if (std::fabs(ns) >= 1e3)
    return fmt::format("{:.6g} us", ns / 1e3);
  return fmt::format("{:.6g} ns", ns);
}

std::ostream& operator<<(std::ostream& os, Time t) {
  return os << t.picoseconds() << " ps";
}

std::ostream& operator<<(std::ostream& os, Bytes b) {
  return os << b.count() << " B";
}

}  // namespace chorus
