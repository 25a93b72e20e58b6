// Shape sizes and printing for HLO shapes (module.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "chorus/hlo/module.hpp"

namespace chorus::hlo {

int element_size(std::string_view type) {
  if (type == "pred" || type == "s8" || type == "u8" || type == "s4" || type == "u4" || type.starts_with("f8"))
    return 1;
  if (type == "f16" || type == "bf16" || type == "s16" || type == "u16")
    return 2;
  if (type == "f32" || type == "s32" || type == "u32")
    return 4;
  if (type == "f64" || type == "s64" || type == "u64" || type == "c64")
    return 8;
  if (type == "c128")
    return 16;
  if (type == "token" || type == "opaque")
    return 0;
  return -1;
}

int64_t Shape::elements() const {
  if (is_tuple)
    return 0;
  int64_t n = 1;
  for (const int64_t d : dims)
    n *= d;
  return n;
}

int64_t Shape::bytes() const {
  if (!is_tuple)
    return elements() * element_size(element_type);
  int64_t sum = 0;
  for (const Shape& s : tuple)
    sum += s.bytes();
  return sum;
}

namespace {

// a x b, or nullopt past 2^62 (a, b >= 0).
std::optional<int64_t> times(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > (int64_t{1} << 62))
    return std::nullopt;
  return r;
}

// d rounded up to a multiple of t (t >= 1), or nullopt past 2^62.
std::optional<int64_t> round_up(int64_t d, int64_t t) {
  int64_t sum = 0;
  if (__builtin_add_overflow(d, t - 1, &sum))
    return std::nullopt;
  return times(sum / t, t);
}

// Dimension i, from the most major to the most minor in `minor_to_major` order (empty: the default order, the last
// dimension most minor), of an array seen as `n >= dims.size()` dimensions, the first n - dims.size() of size 1.
int64_t physical_dim(std::span<const int64_t> dims, std::span<const int64_t> minor_to_major, size_t i, size_t n) {
  const size_t r = dims.size();
  if (i < n - r)
    return 1;
  const size_t j = i - (n - r);
  return minor_to_major.size() == r ? dims[static_cast<size_t>(minor_to_major[r - 1 - j])] : dims[j];
}

}  // namespace

// XLA's ShapeUtil::ArraySize: the first tile covers the most minor dimensions (dimensions a tile of higher rank
// reaches beyond the array's count as size 1), each rounded up to a multiple of its tile size; the more major ones
// are kept. A '*' folds its dimension into the next more minor one first (docs/tiled_layout.md in openxla/xla).
std::optional<int64_t> tiled_elements(std::span<const int64_t> dims, std::span<const int64_t> minor_to_major,
                                      std::span<const int64_t> tile) {
  const size_t k = tile.size();
  const size_t n = std::max(dims.size(), k);
  const size_t first = n - k;  // the first (most major) dimension the tile covers
  std::optional<int64_t> count = 1;
  int64_t folded = 1;  // the product of the dimensions a '*' folded into this one
  for (size_t i = 0; i < n && count; ++i) {
    std::optional<int64_t> d = times(physical_dim(dims, minor_to_major, i, n), folded);
    folded = 1;
    if (d && i >= first) {
      const int64_t t = tile[i - first];
      if (t == -1) {
        if (i + 1 == n)
          return std::nullopt;  // nothing more minor to fold into
        folded = *d;
        continue;
      }
      if (t < 1)
        return std::nullopt;
      d = round_up(*d, t);
    }
    count = d ? times(*count, *d) : std::nullopt;
  }
  return count;
}

int64_t Shape::memory_bytes() const {
  if (!is_tuple)
    return (padded_elements >= 0 ? padded_elements : elements()) * element_size(element_type);
  int64_t sum = 0;
  for (const Shape& s : tuple)
    sum += s.memory_bytes();
  return sum;
}

std::string Shape::to_string() const {
  if (is_tuple) {
    std::string out = "(";
    for (size_t i = 0; i < tuple.size(); ++i)
      out += (i ? ", " : "") + tuple[i].to_string();
    return out + ")";
  }
  return fmt::format("{}[{}]", element_type, fmt::join(dims, ","));
}

std::string_view Instruction::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key)
      return v;
  return {};
}

}  // namespace chorus::hlo
