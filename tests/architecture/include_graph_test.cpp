// The folder-level include graph of src/chorus: folder A depends on folder B when a file of A includes
// "chorus/B/...". The graph must have no cycle, so that the folders stack in layers (docs/design.md, "Layers"), and
// the lowest layers must stay low: core includes no other folder, machine only core.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

// folder -> folder it includes -> one file that does (for the failure message).
using Graph = std::map<std::string, std::map<std::string, std::string>>;

Graph include_graph(const fs::path& root) {
  Graph g;
  const std::regex include_re(R"(^\s*#\s*include\s*"chorus/([a-z_0-9]+)/)");
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp"))
      continue;
    const std::string folder = fs::relative(entry.path(), root).begin()->string();
    g[folder];  // a folder that includes nothing is still a node
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, include_re) && m[1] != folder)
        g[folder].emplace(m[1], fs::relative(entry.path(), root).string());
    }
  }
  return g;
}

// A cycle as "a -> b (file) -> ... -> a", or "" when the graph has none (depth-first search, three colours).
std::string find_cycle(const Graph& g) {
  std::map<std::string, int> colour;  // 0 unseen, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::string found;
  std::function<bool(const std::string&)> visit = [&](const std::string& node) {
    colour[node] = 1;
    stack.push_back(node);
    const auto it = g.find(node);
    if (it != g.end()) {
      for (const auto& [next, file] : it->second) {
        if (colour[next] == 1) {
          std::string cycle;
          bool in = false;
          for (const std::string& s : stack) {
            in = in || s == next;
            if (in)
              cycle += s + " -> ";
          }
          found = cycle + next + " (the last edge from " + file + ")";
          return true;
        }
        if (colour[next] == 0 && visit(next))
          return true;
      }
    }
    stack.pop_back();
    colour[node] = 2;
    return false;
  };
  for (const auto& [node, edges] : g) {
    if (colour[node] == 0 && visit(node))
      return found;
  }
  return "";
}

const fs::path kSource = fs::path(CHORUS_SOURCE_DIR) / "src" / "chorus";

TEST(IncludeGraph, HasNoFolderCycle) {
  const Graph g = include_graph(kSource);
  ASSERT_GT(g.size(), 10u);  // the walk found the folders
  std::string listing;
  for (const auto& [folder, edges] : g) {
    listing += folder + " ->";
    for (const auto& [to, file] : edges)
      listing += " " + to;
    listing += "\n";
  }
  EXPECT_EQ(find_cycle(g), "") << "folder-level include graph:\n" << listing;
}

TEST(IncludeGraph, LowestLayersStayLow) {
  const Graph g = include_graph(kSource);
  ASSERT_TRUE(g.contains("core"));
  ASSERT_TRUE(g.contains("machine"));
  EXPECT_TRUE(g.at("core").empty()) << "core includes " << g.at("core").begin()->first;
  for (const auto& [to, file] : g.at("machine"))
    EXPECT_EQ(to, "core") << file << " makes machine/ include " << to << "/";
}

// The detector itself, on graphs worked by hand.
TEST(IncludeGraph, DetectsACycleOfThree) {
  const Graph g{{"a", {{"b", "a/x.cpp"}}}, {"b", {{"c", "b/y.cpp"}}}, {"c", {{"a", "c/z.cpp"}}}};
  EXPECT_EQ(find_cycle(g), "a -> b -> c -> a (the last edge from c/z.cpp)");
}

TEST(IncludeGraph, AcceptsADiamond) {
  const Graph g{{"a", {{"b", "1"}, {"c", "2"}}}, {"b", {{"d", "3"}}}, {"c", {{"d", "4"}}}, {"d", {}}};
  EXPECT_EQ(find_cycle(g), "");
}

}  // namespace
