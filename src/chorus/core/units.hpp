// Strong unit types: Time (integer picoseconds), Bytes (integer) and Bandwidth (bytes per second).
//
// - Time counts picoseconds in an int64_t: +-2^63 ps is about +-106 days, far beyond any training step,
//   and integer ticks make every run exact and reproducible. Addition saturates instead of wrapping.
// - Bytes counts bytes in an int64_t (negative sizes are rejected at the edges, not here).
// - Bandwidth is bytes per second in a double. Its factories say which "GB" they mean:
//   Bandwidth::gb_per_s(50) is 50e9 B/s, Bandwidth::gib_per_s(50) is 50 * 2^30 B/s.
//   (ASTRA-sim network files write "GB/s" but mean GiB/s; the loader says so by calling gib_per_s.)
// - transfer_time(Bytes, Bandwidth) is the one place bytes become time; it rounds up to a whole ps.
//
//   Time t = Time::ns(500) + transfer_time(Bytes::mib(1), Bandwidth::gb_per_s(50));
#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>

namespace chorus {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(v * 1000); }
  static constexpr Time us(int64_t v) { return Time(v * 1000 * 1000); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }
  // Rounds to the nearest picosecond; for edges (parsing, reports) only.
  static Time from_seconds(double seconds);

  constexpr int64_t picoseconds() const { return ps_; }
  constexpr double nanoseconds() const { return static_cast<double>(ps_) / 1e3; }
  constexpr double microseconds() const { return static_cast<double>(ps_) / 1e6; }
  constexpr double seconds() const { return static_cast<double>(ps_) / 1e12; }

  constexpr Time operator+(Time o) const {
    int64_t r = 0;
    if (__builtin_add_overflow(ps_, o.ps_, &r))
      return o.ps_ > 0 ? max() : Time(std::numeric_limits<int64_t>::min());
    return Time(r);
  }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time operator*(int64_t k) const {
    int64_t r = 0;
    if (__builtin_mul_overflow(ps_, k, &r))
      return max();
    return Time(r);
  }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(int64_t ps) : ps_(ps) {}
  int64_t ps_ = 0;
};

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(int64_t v) : v_(v) {}
  static constexpr Bytes kib(int64_t v) { return Bytes(v << 10); }
  static constexpr Bytes mib(int64_t v) { return Bytes(v << 20); }
  static constexpr Bytes gib(int64_t v) { return Bytes(v << 30); }
  constexpr int64_t count() const { return v_; }
  constexpr Bytes operator+(Bytes o) const { return Bytes(v_ + o.v_); }
  constexpr Bytes operator*(int64_t k) const { return Bytes(v_ * k); }
  constexpr Bytes operator/(int64_t k) const { return Bytes(v_ / k); }
  constexpr auto operator<=>(const Bytes&) const = default;

 private:
  int64_t v_ = 0;
};

class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_s(double v) { return Bandwidth(v); }
  static constexpr Bandwidth gb_per_s(double v) { return Bandwidth(v * 1e9); }
  static constexpr Bandwidth gib_per_s(double v) { return Bandwidth(v * 1073741824.0); }
  constexpr double bytes_per_second() const { return bps_; }
  constexpr double gb_per_second() const { return bps_ / 1e9; }
  constexpr double gib_per_second() const { return bps_ / 1073741824.0; }
  constexpr Bandwidth operator+(Bandwidth o) const { return Bandwidth(bps_ + o.bps_); }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(double v) : bps_(v) {}
  double bps_ = 0;
};

// The range of link bandwidths chorus accepts at its edges (1 KB/s to 1 EB/s): outside it a value is a typo or a
// unit mistake, and times computed from it would overflow the picosecond range.
inline constexpr double kMinBandwidthBytesPerS = 1e3;
inline constexpr double kMaxBandwidthBytesPerS = 1e18;
// Sizes above 1 PiB are rejected at the edges for the same reason.
inline constexpr int64_t kMaxSizeBytes = int64_t{1} << 50;

// Time to push `size` through `bandwidth` (serialisation only, no latency), rounded up to whole picoseconds.
Time transfer_time(Bytes size, Bandwidth bandwidth);

// Human-readable forms for reports: "1.5 MiB", "50 GB/s", "12.3 us".
std::string to_string(Bytes b);
std::string to_string(Bandwidth b);
std::string to_string(Time t);

// Stream output (used by test frameworks to print values): "1234 ps", "1024 B".
std::ostream& operator<<(std::ostream& os, Time t);
std::ostream& operator<<(std::ostream& os, Bytes b);

}  // namespace chorus
