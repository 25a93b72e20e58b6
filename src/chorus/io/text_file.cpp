// Input files read whole, with errors naming the file (see text_file.hpp).
#include "chorus/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  // An ifstream opens a directory without complaint and then reads nothing; say what is wrong instead.
  if (std::filesystem::is_directory(path, ec))
    throw Error(path, "file", "is a directory; expected a file");
  std::ifstream in(path);
  if (!in)
    throw Error(path, "file", fmt::format("cannot open: {}", std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw Error(path, "file", "cannot read");
  return text.str();
}

YAML::Node load_yaml_file(const std::string& path) {
  const std::string text = read_text_file(path);
  check_nesting_depth(text, path);  // flow collections; yaml-cpp's own guard limits block nesting
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(path, fmt::format("line {}", e.mark.line + 1), fmt::format("yaml syntax error: {}", e.msg));
  }
}

}  // namespace chorus
