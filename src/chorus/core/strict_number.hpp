// Strict number parsing for configuration readers: the whole text must be one finite number.
//
// Library conversions (yaml-cpp's as<double>, std::stod) also accept ".inf", "nan" or trailing garbage
// ("12abc"); a value in an input file is either exactly a number or an error naming the file and field.
//
//   double gbps = parse_strict_number(node.Scalar(), "net.yml", "bandwidth[0]");
#pragma once

#include <string>
#include <string_view>

#include "chorus/core/error.hpp"

namespace chorus {

// Throws chorus::Error(source, field, "'<text>' is not a number").
double parse_strict_number(std::string_view text, const std::string& source, const Field& field);

}  // namespace chorus
