// JSON inputs parsed with a nesting limit and file-naming errors (see json_file.hpp).
#include "chorus/io/json_file.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus {

namespace {

// nlohmann's what() starts with "[json.exception.parse_error.101] "; the id says nothing to a user.
std::string without_exception_id(const std::string& what) {
  const size_t close = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && close != std::string::npos ? what.substr(close + 2) : what;
}

}  // namespace

void check_nesting_depth(std::string_view text, const std::string& source) {
  int depth = 0;
  size_t line = 1;
  bool in_string = false;
  char quote = '"';
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n')
      ++line;
    if (in_string) {
      if (c == '\\') {
        ++i;  // skip the escaped character (a quote must not end the string)
      } else if (c == quote) {
        in_string = false;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      // JSON strings use '"' only; YAML's single-quoted scalars hold brackets too. In JSON, a lone ' outside a
      // string is a syntax error anyway, which the parser reports.
      in_string = true;
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxNestingDepth) {
        throw Error(source, fmt::format("line {}", line),
                    fmt::format("nesting is deeper than {} levels (kMaxNestingDepth in src/chorus/core/limits.hpp)",
                                limits::kMaxNestingDepth));
      }
    } else if (c == ']' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
    }
  }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& source) {
  check_nesting_depth(text, source);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(source, fmt::format("byte {}", e.byte),
                fmt::format("invalid JSON: {}", without_exception_id(e.what())));
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406: a number such as 1e400 that no double holds
    throw Error(source, "number", fmt::format("invalid JSON: {}", without_exception_id(e.what())));
  }
}

nlohmann::json load_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path), path);
}

}  // namespace chorus
