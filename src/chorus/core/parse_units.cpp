// Unit-string parsers (see parse_units.hpp).
#include "chorus/core/parse_units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

struct NumberAndUnit {
  double value = 0;
  std::string unit;
};

// Splits "12.5 GiB" into 12.5 and "GiB". Rejects empty, non-finite and negative numbers.
NumberAndUnit split(std::string_view text, const Field& field, const char* what) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  size_t end = begin;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                               text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-')) {
    // 'e' may start a unit only if no digit follows; sizes never use an 'e' unit, so accept it as exponent.
    ++end;
  }
  NumberAndUnit out;
  const auto [ptr, ec] = std::from_chars(text.data() + begin, text.data() + end, out.value);
  if (ec != std::errc() || ptr != text.data() + end || begin == end || !std::isfinite(out.value)) {
    throw Error("", field, fmt::format("cannot parse '{}' as a {}", text, what));
  }
  if (out.value < 0)
    throw Error("", field, fmt::format("'{}' is negative; a {} must be >= 0", text, what));
  size_t unit_begin = end;
  while (unit_begin < text.size() && std::isspace(static_cast<unsigned char>(text[unit_begin])))
    ++unit_begin;
  size_t unit_end = text.size();
  while (unit_end > unit_begin && std::isspace(static_cast<unsigned char>(text[unit_end - 1])))
    --unit_end;
  out.unit = std::string(text.substr(unit_begin, unit_end - unit_begin));
  return out;
}

}  // namespace

Bytes parse_size(std::string_view text, const Field& field) {
  static constexpr std::pair<const char*, double> kUnits[] = {{"", 1},
                                                              {"B", 1},
                                                              {"KB", 1e3},
                                                              {"MB", 1e6},
                                                              {"GB", 1e9},
                                                              {"TB", 1e12},
                                                              {"KiB", 1024.0},
                                                              {"MiB", 1048576.0},
                                                              {"GiB", 1073741824.0},
                                                              {"TiB", 1099511627776.0},
                                                              // Bare letters as nccl-tests reads them
                                                              // (`-e 8G` is 8 * 2^30 bytes): powers of 1024.
                                                              {"K", 1024.0},
                                                              {"k", 1024.0},
                                                              {"M", 1048576.0},
                                                              {"m", 1048576.0},
                                                              {"G", 1073741824.0},
                                                              {"g", 1073741824.0},
                                                              {"T", 1099511627776.0},
                                                              {"t", 1099511627776.0}};
  const NumberAndUnit nu = split(text, field, "size");
  for (const auto& [name, factor] : kUnits) {
    if (nu.unit == name) {
      const double bytes = nu.value * factor;
      if (bytes > static_cast<double>(kMaxSizeBytes))
        throw Error("", field, fmt::format("size '{}' is above 1 PiB", text));
      if (bytes != std::floor(bytes))
        throw Error("", field, fmt::format("size '{}' is not a whole number of bytes", text));
      return Bytes(static_cast<int64_t>(bytes));
    }
  }
  throw Error("", field,
              fmt::format("unknown size unit '{}' in '{}'; expected B, KB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, "
                          "T (= KiB ... TiB)",
                          nu.unit, text));
}

Bandwidth parse_bandwidth(std::string_view text, const Field& field) {
  static constexpr std::pair<const char*, double> kUnits[] = {
      {"B/s", 1},           {"KB/s", 1e3},           {"MB/s", 1e6},
      {"GB/s", 1e9},        {"TB/s", 1e12},          {"KiB/s", 1024.0},
      {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
      {"bps", 0.125},       {"Kbps", 125.0},         {"Mbps", 125e3},
      {"Gbps", 125e6},      {"Tbps", 125e9}};
  const NumberAndUnit nu = split(text, field, "bandwidth");
  if (nu.unit.empty()) {
    throw Error("", field, fmt::format("bandwidth '{}' has no unit; write e.g. 50GB/s, 50GiB/s or 400Gbps", text));
  }
  for (const auto& [name, factor] : kUnits) {
    if (nu.unit == name) {
      if (nu.value <= 0)
        throw Error("", field, fmt::format("bandwidth '{}' must be > 0", text));
      const double bytes_per_s = nu.value * factor;
      if (bytes_per_s < kMinBandwidthBytesPerS || bytes_per_s > kMaxBandwidthBytesPerS) {
        throw Error("", field, fmt::format("bandwidth '{}' is outside 1 KB/s to 1 EB/s", text));
      }
      return Bandwidth::bytes_per_s(bytes_per_s);
    }
  }
  // Unlike sizes, a bandwidth takes no bare letter ("50G/s"): link speeds are quoted in both 10^9 and 2^30.
  if (nu.unit.size() == 3 && nu.unit.substr(1) == "/s" &&
      std::string_view("KMGTkmgt").find(nu.unit[0]) != std::string_view::npos) {
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(nu.unit[0])));
    throw Error("", field,
                fmt::format("bandwidth '{}' is ambiguous; write {}{}B/s (10^n) or {}{}iB/s (2^n)", text, nu.value,
                            upper, nu.value, upper));
  }
  throw Error("", field,
              fmt::format("unknown bandwidth unit '{}' in '{}'; expected e.g. GB/s, GiB/s, Gbps", nu.unit, text));
}

Time parse_time(std::string_view text, const Field& field) {
  static constexpr std::pair<const char*, double> kUnits[] = {
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  const NumberAndUnit nu = split(text, field, "time");
  if (nu.unit.empty())
    throw Error("", field, fmt::format("time '{}' has no unit; write e.g. 500ns or 0.5us", text));
  for (const auto& [name, factor] : kUnits) {
    if (nu.unit == name) {
      if (nu.value * factor > 9.2e6)
        throw Error("", field, fmt::format("time '{}' is too large", text));
      return Time::from_seconds(nu.value * factor);
    }
  }
  throw Error("", field, fmt::format("unknown time unit '{}' in '{}'; expected ps, ns, us, ms or s", nu.unit, text));
}

}  // namespace chorus
