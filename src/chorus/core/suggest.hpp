// "Did you mean ...?": the closest known word to a mistyped one (a subcommand, an option), by edit distance.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chorus {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbours cost 1
// each ("colective" -> "collective" is 1, "clolective" -> "collective" is 1).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a typo: at most 2 edits, and at most a third of
// the word's length for words of 3 letters or fewer (so "ab" does not suggest "sim"). Ties go to the first.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace chorus
