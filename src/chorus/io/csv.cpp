// RFC 4180 CSV fields and rows (see csv.hpp).
#include "chorus/io/csv.hpp"

#include <sstream>

namespace chorus {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"')
      quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

namespace {

template <typename Range>
std::string join(const Range& fields) {
  std::string row;
  bool first = true;
  for (const auto& field : fields) {
    if (!first)
      row.push_back(',');
    row += csv_field(field);
    first = false;
  }
  row.push_back('\n');
  return row;
}

}  // namespace

std::string csv_row(std::initializer_list<std::string_view> fields) {
  return join(fields);
}

std::string csv_row(const std::vector<std::string>& fields) {
  return join(fields);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');)
    out.push_back(field);
  if (!line.empty() && line.back() == ',')
    out.emplace_back();
  return out;
}

}  // namespace chorus
