// Input files read whole, with errors naming the file (see text_file.hpp).
#include "chorus/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

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

namespace {

// YAML allows a key once per mapping, but yaml-cpp keeps every copy and a lookup returns the first: a file whose
// `npus_count` appears twice would be read with the first value and the second silently ignored.
// Aliases let a small file name one node many times (each level of `[*a, *a, ...]` multiplies the walk), so the
// walk has a budget far above any input file chorus reads.
constexpr size_t kMaxYamlNodesWalked = 1'000'000;

void reject_duplicate_keys(const YAML::Node& root, const std::string& path) {
  std::vector<YAML::Node> pending{root};  // iterative: nesting is bounded, but no recursion is needed
  size_t walked = 0;
  while (!pending.empty()) {
    if (++walked > kMaxYamlNodesWalked) {
      throw Error(path, "file",
                  fmt::format("more than {} YAML nodes once aliases are expanded; not an input chorus reads",
                              kMaxYamlNodesWalked));
    }
    const YAML::Node node = pending.back();
    pending.pop_back();
    if (node.IsSequence()) {
      for (const YAML::Node& item : node)
        pending.push_back(item);
    } else if (node.IsMap()) {
      std::set<std::string> seen;
      for (const auto& entry : node) {
        if (entry.first.IsScalar() && !seen.insert(entry.first.Scalar()).second) {
          throw Error(path, fmt::format("line {}", entry.first.Mark().line + 1),
                      fmt::format("key '{}' appears twice in one mapping", entry.first.Scalar()));
        }
        pending.push_back(entry.second);
      }
    }
  }
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  const std::string text = read_text_file(path);
  check_nesting_depth(text, path);  // flow collections; yaml-cpp's own guard limits block nesting
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(path, fmt::format("line {}", e.mark.line + 1), fmt::format("yaml syntax error: {}", e.msg));
  }
  reject_duplicate_keys(root, path);
  return root;
}

}  // namespace chorus
