// CSV / JSONL rows of a sweep and reading them back for a resumed run (see result_rows.hpp).
#include "chorus/sweep/result_rows.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string csv_value(const nlohmann::json& value) {
  if (value.is_null())
    return "";
  if (value.is_string())
    return csv_field(value.get<std::string>());
  return csv_field(value.dump());
}

// Splits one CSV line (no newline inside: csv_field never writes one unquoted, and rows are single lines because
// one-line error messages and JSON dumps contain no raw newline).
std::vector<std::string> split_csv(const std::string& line, const std::string& path, size_t line_number) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    throw Error(path, fmt::format("line {}", line_number), "unterminated quoted field");
  return fields;
}

// The complete lines of the file; an incomplete last line is removed from the file itself so that appending
// starts on a fresh line.
std::vector<std::string> complete_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const size_t end = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (end != text.size())
    std::filesystem::resize_file(path, end);
  std::vector<std::string> lines;
  std::istringstream rows(text.substr(0, end));
  for (std::string line; std::getline(rows, line);)
    lines.push_back(line);
  return lines;
}

// The result columns named by a header line; throws if it does not start with the grid's axes, status and error.
std::vector<std::string> header_columns(const std::string& line, const std::string& path, const Grid& grid) {
  const std::vector<std::string> header = split_csv(line, path, 1);
  const size_t k = grid.axes.size();
  bool matches = header.size() >= k + 2 && header[k] == "status" && header[k + 1] == "error";
  for (size_t a = 0; matches && a < k; ++a)
    matches = header[a] == grid.axes[a].column;
  if (!matches) {
    throw Error(path, "header",
                "does not start with the grid's axes, status and error; write to a new file or remove this one");
  }
  return {header.begin() + static_cast<std::ptrdiff_t>(k + 2), header.end()};
}

ExistingRows read_csv(const std::string& path, const Grid& grid, const std::vector<std::string>& lines) {
  ExistingRows rows;
  if (lines.empty())
    return rows;
  rows.has_header = true;
  rows.result_columns = header_columns(lines[0], path, grid);
  const size_t k = grid.axes.size();
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = split_csv(lines[i], path, i + 1);
    if (fields.size() < k)
      throw Error(path, fmt::format("line {}", i + 1), "has fewer fields than the grid has axes");
    rows.done.insert(point_key({fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(k)}));
  }
  return rows;
}

ExistingRows read_jsonl(const std::string& path, const Grid& grid, const std::vector<std::string>& lines) {
  ExistingRows rows;
  for (size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json row = nlohmann::json::parse(lines[i], nullptr, false);
    if (row.is_discarded() || !row.contains("point") || !row["point"].is_object())
      throw Error(path, fmt::format("line {}", i + 1), "is not a sweep row (an object with \"point\")");
    std::vector<std::string> values;
    for (const GridAxis& axis : grid.axes) {
      const auto it = row["point"].find(axis.column);
      if (it == row["point"].end() || !it->is_string())
        throw Error(path, fmt::format("line {}", i + 1), fmt::format("has no value for axis '{}'", axis.column));
      values.push_back(it->get<std::string>());
    }
    rows.done.insert(point_key(values));
  }
  return rows;
}

}  // namespace

std::string point_key(const std::vector<std::string>& values) {
  std::string key;
  for (const std::string& v : values) {
    key += v;
    key += '\x1f';  // unit separator: cannot appear in a YAML scalar typed by hand
  }
  return key;
}

ExistingRows read_existing_rows(const std::string& path, const Grid& grid, bool jsonl) {
  if (!std::filesystem::exists(path))
    return {};
  if (std::filesystem::is_directory(path))
    throw Error(path, Argument{"out"}, "is a directory");
  if (!std::filesystem::is_regular_file(path))  // a device such as /dev/zero would be read without end
    throw Error(path, Argument{"out"}, "not a regular file");
  const std::vector<std::string> lines = complete_lines(path);
  return jsonl ? read_jsonl(path, grid, lines) : read_csv(path, grid, lines);
}

std::optional<std::vector<std::string>> read_csv_header(const std::string& path, const Grid& grid) {
  if (std::filesystem::exists(path) && !std::filesystem::is_regular_file(path))
    throw Error(path, Argument{"out"}, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || in.eof())
    return std::nullopt;  // no complete first line yet
  return header_columns(line, path, grid);
}

std::vector<std::string> result_columns(const Grid& grid, const nlohmann::json& result) {
  std::vector<std::string> columns;
  for (const auto& [key, value] : result.items()) {
    bool is_axis = key == "status" || key == "error";
    for (const GridAxis& axis : grid.axes)
      is_axis = is_axis || axis.column == key;
    if (!is_axis)
      columns.push_back(key);
  }
  return columns;
}

std::string csv_header(const Grid& grid, const std::vector<std::string>& result_columns) {
  std::string line;
  for (const GridAxis& axis : grid.axes)
    line += csv_field(axis.column) + ',';
  line += "status,error";
  for (const std::string& column : result_columns)
    line += ',' + csv_field(column);
  return line + '\n';
}

std::string csv_row(const std::vector<std::string>& values, const PointOutcome& outcome,
                    const std::vector<std::string>& result_columns) {
  std::string line;
  for (const std::string& v : values)
    line += csv_field(v) + ',';
  line += outcome.ok ? "ok," : "error," + csv_field(outcome.error);
  for (const std::string& column : result_columns) {
    line += ',';
    if (outcome.ok && outcome.result.contains(column))
      line += csv_value(outcome.result[column]);
  }
  return line + '\n';
}

std::string jsonl_row(const Grid& grid, const std::vector<std::string>& values, const PointOutcome& outcome) {
  nlohmann::json row;
  for (size_t a = 0; a < grid.axes.size(); ++a)
    row["point"][grid.axes[a].column] = values[a];
  row["status"] = outcome.ok ? "ok" : "error";
  row["error"] = outcome.error;
  row["result"] = outcome.ok ? outcome.result : nlohmann::json(nullptr);
  return row.dump() + '\n';
}

}  // namespace chorus
