// Small YAML readers shared by the co-design input files: unknown keys, numbers and lists, each error naming the file
// and the field.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace chorus::codesign {

YAML::Node load_yaml_map(const std::string& path);
void check_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& allowed,
                const std::string& prefix);
double yaml_number(const YAML::Node& node, const std::string& path, const std::string& field);
std::string yaml_string(const YAML::Node& node, const std::string& path, const std::string& field);

}  // namespace chorus::codesign
