// A streaming JSON scanner that drives a nlohmann::json_sax handler from a file read in blocks, for the
// execution-trace reader: nlohmann's own lexer spent 40% of an import tokenizing values chorus never reads.
// Values of the keys in `skipped` are checked for balanced brackets and closed strings, not tokenized, and
// reach the handler as null. Strict JSON otherwise (RFC 8259: no comments, no trailing commas, one document).
//
//   scan_json(file, handler, "rank0.json", {"op_schema", "input_shapes"}, 64);
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace chorus::pytorch {

// Throws chorus::Error(source, "byte <offset>", "invalid JSON: ...") on a syntax error, and when containers
// nest deeper than max_depth; the handler's own exceptions pass through.
void scan_json(std::FILE* file, nlohmann::json_sax<nlohmann::json>& sax, const std::string& source,
               const std::vector<std::string>& skipped, size_t max_depth);

}  // namespace chorus::pytorch
