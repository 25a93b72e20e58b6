// Names of the built-in algorithms, as ASTRA-sim system files and the chorus CLI write them.
//
//   ring | direct | directN (window N) | halvingDoubling | doubleBinaryTree (ASTRA-sim's), and ASTRA-sim's
//   flattened forms oneRing | oneDirect[N] | oneHalvingDoubling (one logical dimension of all NPUs);
//   twoTree is chorus's own double binary tree (not an ASTRA-sim name).
// The CLI also accepts snake_case and short forms: halving_doubling, hd, double_binary_tree, dbt, two_tree.
#pragma once

#include <string>
#include <string_view>

#include "chorus/collective/program.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

struct ParsedAlgorithm {
  AlgorithmChoice choice;
  bool flatten = false;
};

// Throws chorus::Error(source, field, ...) for an unknown name.
ParsedAlgorithm parse_algorithm_name(std::string_view name, const std::string& source, const Field& field);

}  // namespace chorus
