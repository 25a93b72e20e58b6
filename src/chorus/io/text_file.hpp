// Reading input files with errors that name the file: the whole text of a file, or a file parsed as YAML.
//
//   YAML::Node root = load_yaml_file("net.yml");  // Error("net.yml", "line 3", "yaml syntax error: ...")
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace chorus {

// Throws chorus::Error(path, "file", "cannot open: <reason>").
std::string read_text_file(const std::string& path);

// Throws as read_text_file, or chorus::Error(path, "line N", "yaml syntax error: ..." or "key 'K' appears twice in
// one mapping": YAML allows each key once, and yaml-cpp would otherwise keep the first silently).
YAML::Node load_yaml_file(const std::string& path);

}  // namespace chorus
