// Parsing of algorithm names (see algorithm_names.hpp).
#include "chorus/collective/algorithm_names.hpp"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

ParsedAlgorithm parse_algorithm_name(std::string_view name, const std::string& source, const Field& field) {
  ParsedAlgorithm out;
  std::string_view rest = name;
  if (rest.starts_with("one")) {
    out.flatten = true;
    rest.remove_prefix(3);
  }
  std::string key;
  for (char c : rest) {
    if (c != '_' && c != '-')
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (key == "ring") {
    out.choice.kind = AlgorithmKind::Ring;
  } else if (key == "halvingdoubling" || key == "hd") {
    out.choice.kind = AlgorithmKind::HalvingDoubling;
  } else if (!out.flatten && (key == "doublebinarytree" || key == "dbt")) {
    out.choice.kind = AlgorithmKind::DoubleBinaryTree;
  } else if (!out.flatten && key == "twotree") {
    out.choice.kind = AlgorithmKind::TwoTree;
  } else if (key.starts_with("direct")) {
    out.choice.kind = AlgorithmKind::Direct;
    const std::string_view window = std::string_view(key).substr(6);
    if (!window.empty()) {
      uint32_t w = 0;
      const auto [ptr, ec] = std::from_chars(window.data(), window.data() + window.size(), w);
      if (ec != std::errc() || ptr != window.data() + window.size() || w == 0) {
        throw Error(source, field, fmt::format("bad window in algorithm '{}'; expected directN with N >= 1", name));
      }
      out.choice.window = w;
    }
  } else {
    throw Error(
        source, field,
        fmt::format("unknown algorithm '{}'; expected ring, direct, directN, halvingDoubling, doubleBinaryTree, "
                    "twoTree, oneRing, oneDirect or oneHalvingDoubling",
                    name));
  }
  return out;
}

}  // namespace chorus
