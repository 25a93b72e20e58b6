// Shape sizes and printing for HLO shapes (module.hpp).
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
