// CSV text as RFC 4180 defines it: fields separated by commas, a field that contains a comma, a double quote or a
// line break enclosed in double quotes with its quotes doubled. Every CSV chorus writes goes through here, so a
// name such as `layer "attn", 3` never shifts a column. Lines end in "\n" (what the common readers expect).
//
//   csv_row({"npu", "name"}) == "npu,name\n";  csv_field("a,b") == "\"a,b\""
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace chorus {

std::string csv_field(std::string_view text);
// The fields of an unquoted comma-separated line, empty ones kept ("a,,b," gives "a", "", "b", "").
std::vector<std::string> split_commas(const std::string& line);
std::string csv_row(std::initializer_list<std::string_view> fields);
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace chorus
