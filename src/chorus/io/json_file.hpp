// Parsing JSON inputs in one place: a nesting-depth limit checked before parsing, and every parse or number error
// turned into a chorus::Error naming the file (nlohmann's own exceptions name no file).
//
//   nlohmann::json doc = load_json_file("sys.json");      // Error("sys.json", "line 3", "invalid JSON: ...")
//   nlohmann::json v = parse_json_text(text, "w.0.et: node 4");
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace chorus {

// Throws chorus::Error(source, "line N", ...) when brackets ('[' '{', outside strings) nest deeper than
// limits::kMaxNestingDepth. YAML flow collections use the same brackets, so YAML readers call it too.
void check_nesting_depth(std::string_view text, const std::string& source);

// Parses `text`; throws chorus::Error(source, ...) for a nesting, syntax or number-range error.
nlohmann::json parse_json_text(std::string_view text, const std::string& source);

// Reads (read_text_file) and parses a JSON file.
nlohmann::json load_json_file(const std::string& path);

}  // namespace chorus
