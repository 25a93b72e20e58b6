// Small YAML readers shared by the co-design input files (see yaml_fields.hpp).
#include "chorus/codesign/yaml_fields.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/strict_number.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus::codesign {

YAML::Node load_yaml_map(const std::string& path) {
  YAML::Node root = load_yaml_file(path);
  if (!root.IsMap())
    throw Error(path, "", "expected a mapping at the top level");
  return root;
}

void check_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& prefix) {
  if (!map.IsMap())
    throw Error(path, prefix.empty() ? std::string("") : prefix.substr(0, prefix.size() - 1), "must be a mapping");
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (!allowed.count(key)) {
      std::string list;
      for (const std::string& a : allowed)
        list += (list.empty() ? "" : ", ") + a;
      throw Error(path, prefix + key, fmt::format("unknown key; expected one of {}", list));
    }
  }
}

double yaml_number(const YAML::Node& node, const std::string& path, const std::string& field) {
  if (!node || !node.IsScalar())
    throw Error(path, field, "must be a number");
  return parse_strict_number(node.Scalar(), path, field);
}

std::string yaml_string(const YAML::Node& node, const std::string& path, const std::string& field) {
  if (!node || !node.IsScalar())
    throw Error(path, field, "must be a string");
  return node.Scalar();
}

}  // namespace chorus::codesign
