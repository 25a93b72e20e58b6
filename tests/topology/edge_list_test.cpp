// Tests of the edge-list reader: every TACOS reference input, comment handling, and one test per error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/topology/edge_list.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

const fs::path kTacosDir = fs::path(CHORUS_REFERENCE_DIR) / "tacos-inputs";

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "chorus_edge_list_test_" + name;
  std::ofstream(path) << text;
  return path;
}

// The NPU count and the number of link lines, counted independently of the reader.
std::pair<uint32_t, uint32_t> count_contents(const fs::path& path) {
  std::ifstream in(path);
  uint32_t npus = 0;
  uint32_t links = 0;
  bool header_seen = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    if (!header_seen) {
      npus = static_cast<uint32_t>(std::stoul(line));
      header_seen = true;
    } else {
      ++links;
    }
  }
  return {npus, links};
}

TEST(EdgeList, LoadsEveryTacosInput) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kTacosDir)) {
    const Topology t = load_edge_list(entry.path().string());
    const auto [npus, links] = count_contents(entry.path());
    EXPECT_EQ(t.name(), entry.path().stem().string());
    EXPECT_EQ(t.npu_count(), npus) << entry.path();
    EXPECT_EQ(t.node_count(), npus) << entry.path();
    EXPECT_EQ(t.link_count(), links) << entry.path();
    EXPECT_FALSE(t.is_dimensional());
    ++files;
  }
  EXPECT_EQ(files, 40);
}

TEST(EdgeList, TacosCountsMatchTheShapes) {
  // {NPUs, directed links} from each shape's definition.
  const std::map<std::string, std::pair<uint32_t, uint32_t>> expected = {
      {"ring_16", {16, 32}},
      {"uniring_16", {16, 16}},
      {"fc_16", {16, 240}},
      {"torus2d_4x4", {16, 64}},
      {"torus3d_4x2x2", {16, 64}},
      {"mesh2d_4x4", {16, 48}},
      {"hypercube_d4", {16, 64}},
      {"asymtorus2d_4x4", {16, 64}},
      {"hetmesh2d_4x4", {16, 48}},
      {"dgxlike_2x8", {16, 2 * 56 + 16}},  // a clique of 8 per node + 8 inter-node cables
      {"hypercube_d10", {1024, 10240}},
      {"mesh2d_32x64", {2048, 2 * (32 * 63 + 64 * 31)}},
  };
  for (const auto& [name, counts] : expected) {
    const Topology t = load_edge_list((kTacosDir / (name + ".txt")).string());
    EXPECT_EQ(t.npu_count(), counts.first) << name;
    EXPECT_EQ(t.link_count(), counts.second) << name;
  }
}

TEST(EdgeList, UnitsAreGibPerSecondAndMicroseconds) {
  // asymtorus2d_4x4 starts with "0 1 50 0.5" and "1 0 12.5 0.5".
  const Topology t = load_edge_list((kTacosDir / "asymtorus2d_4x4.txt").string());
  EXPECT_EQ(t.link_src(LinkId{0}), NodeId{0});
  EXPECT_EQ(t.link_dst(LinkId{0}), NodeId{1});
  EXPECT_EQ(t.link_bandwidth(LinkId{0}), Bandwidth::gib_per_s(50));
  EXPECT_EQ(t.link_latency(LinkId{0}), Time::ns(500));
  EXPECT_EQ(t.link_bandwidth(LinkId{1}), Bandwidth::gib_per_s(12.5));
}

TEST(EdgeList, CommentsAndBlankLines) {
  const std::string path = write_file("comments.txt", "# header\n\n3  # NPUs\n0 1 1 0.25\n\n# more\n1 2 2 0\n");
  const Topology t = load_edge_list(path);
  EXPECT_EQ(t.npu_count(), 3u);
  EXPECT_EQ(t.link_count(), 2u);
  EXPECT_EQ(t.link_latency(LinkId{0}), Time::ns(250));
  EXPECT_EQ(t.link_latency(LinkId{1}), Time::zero());
}

void expect_error(const std::string& name, const std::string& text, const std::string& field) {
  const std::string path = write_file(name, text);
  try {
    load_edge_list(path);
    ADD_FAILURE() << name << ": expected an error on " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(EdgeList, WrongFieldCount) {
  expect_error("fields.txt", "4\n0 1 50 0.5\n1 2 50\n", "line 3");
}

TEST(EdgeList, ExtraFieldOnCountLine) {
  expect_error("count_fields.txt", "4 4\n0 1 50 0.5\n", "line 1");
}

TEST(EdgeList, NotANumber) {
  expect_error("nan_bw.txt", "4\n0 1 fast 0.5\n", "line 2");
  expect_error("nan_id.txt", "4\n0 one 50 0.5\n", "line 2");
  expect_error("nan_count.txt", "four\n", "line 1");
}

TEST(EdgeList, IdOutOfRange) {
  expect_error("range.txt", "# c\n4\n0 4 50 0.5\n", "line 3");
}

TEST(EdgeList, SelfLoop) {
  expect_error("loop.txt", "4\n2 2 50 0.5\n", "line 2");
}

TEST(EdgeList, BandwidthNotPositive) {
  expect_error("bw0.txt", "4\n0 1 0 0.5\n", "line 2");
  expect_error("bwneg.txt", "4\n0 1 -5 0.5\n", "line 2");
}

TEST(EdgeList, NegativeLatency) {
  expect_error("lat.txt", "4\n0 1 50 -0.5\n", "line 2");
}

TEST(EdgeList, MissingCount) {
  // Two lines of comment and blank: the count was due on line 3.
  expect_error("empty.txt", "# nothing here\n\n", "line 3");
}

TEST(EdgeList, ZeroNpus) {
  expect_error("zero.txt", "0\n", "line 1");
}

TEST(EdgeList, TooManyNpus) {
  expect_error("huge.txt", "16777217\n", "line 1");
}  // 2^24 + 1

TEST(EdgeList, FileNotFound) {
  const std::string path = testing::TempDir() + "chorus_edge_list_test_does_not_exist.txt";
  try {
    load_edge_list(path);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field(), "file");
  }
}

}  // namespace
}  // namespace chorus
