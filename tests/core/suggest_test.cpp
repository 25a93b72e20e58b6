// Tests of the edit distance and the "did you mean" choice behind the CLI's suggestions.
#include <gtest/gtest.h>

#include "chorus/core/suggest.hpp"

namespace chorus {
namespace {

TEST(Suggest, EditDistanceCountsSingleEdits) {
  EXPECT_EQ(edit_distance("collective", "collective"), 0u);
  EXPECT_EQ(edit_distance("colective", "collective"), 1u);    // one deletion
  EXPECT_EQ(edit_distance("collecttive", "collective"), 1u);  // one insertion
  EXPECT_EQ(edit_distance("sym", "sim"), 1u);                 // one substitution
  EXPECT_EQ(edit_distance("clolective", "collective"), 1u);   // one swap of neighbours
  EXPECT_EQ(edit_distance("", "bound"), 5u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // the textbook example: k->s, e->i, +g
}

TEST(Suggest, ClosestMatchPicksTheNearestTypo) {
  const std::vector<std::string> subcommands = {"collective", "bound",    "llm",     "netopt",
                                                "sim",        "generate", "convert", "synth"};
  EXPECT_EQ(closest_match("colective", subcommands), "collective");
  EXPECT_EQ(closest_match("bund", subcommands), "bound");
  EXPECT_EQ(closest_match("synht", subcommands), "synth");
  EXPECT_EQ(closest_match("genrate", subcommands), "generate");
}

TEST(Suggest, NoSuggestionWhenNothingIsClose) {
  const std::vector<std::string> subcommands = {"collective", "bound", "sim", "synth"};
  EXPECT_EQ(closest_match("frobnicate", subcommands), std::nullopt);
  EXPECT_EQ(closest_match("xy", subcommands), std::nullopt);  // 2 letters: too short to guess from
  EXPECT_EQ(closest_match("anything", {}), std::nullopt);
}

}  // namespace
}  // namespace chorus
