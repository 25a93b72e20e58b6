// Input files read whole, with errors naming the file (see text_file.hpp).
#include "chorus/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path, "file", fmt::format("cannot open: {}", std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node load_yaml_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(path, fmt::format("line {}", e.mark.line + 1), fmt::format("yaml syntax error: {}", e.msg));
  }
}

}  // namespace chorus
