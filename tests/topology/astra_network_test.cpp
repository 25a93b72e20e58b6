// Tests of the ASTRA-sim network YAML reader: every reference input, then one test per malformed input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "chorus/core/error.hpp"
#include "chorus/topology/astra_network.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

const fs::path kNetworkDir = fs::path(CHORUS_REFERENCE_DIR) / "astra-sim-inputs" / "network";

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "chorus_astra_test_" + name;
  std::ofstream(path) << text;
  return path;
}

// Node and link counts of one dimension of `size` NPUs, repeated in `groups` groups, per the block's wiring.
struct Counts {
  uint64_t switches = 0;
  uint64_t links = 0;
};

Counts count_block(const std::string& block, uint64_t size, uint64_t groups) {
  if (block == "Ring")
    return {0, groups * (size == 2 ? 2 : 2 * size)};
  if (block == "FullyConnected")
    return {0, groups * size * (size - 1)};
  return {groups, groups * 2 * size};  // Switch: one switch per group, one duplex uplink per NPU
}

TEST(AstraNetwork, LoadsOneDimensionalReferenceFiles) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kNetworkDir)) {
    const std::string stem = entry.path().stem().string();
    if (stem.find('x') != std::string::npos)
      continue;  // the RingxFCxSwitch files: next test
    const std::string block = stem.substr(0, stem.find('_'));
    const uint64_t npus = std::stoull(stem.substr(stem.find('_') + 1));
    const Topology t = load_astra_network(entry.path().string());
    const Counts c = count_block(block, npus, 1);
    EXPECT_EQ(t.name(), stem);
    EXPECT_EQ(t.npu_count(), npus) << stem;
    EXPECT_EQ(t.node_count(), npus + c.switches) << stem;
    EXPECT_EQ(t.link_count(), c.links) << stem;
    // Every 1-D reference file uses 50 "GB/s" (meaning GiB/s) and 500 ns.
    EXPECT_EQ(t.link_bandwidth(LinkId{0}), Bandwidth::gib_per_s(50)) << stem;
    EXPECT_EQ(t.link_latency(LinkId{0}), Time::ns(500)) << stem;
    ++files;
  }
  EXPECT_EQ(files, 30);  // Ring, FullyConnected and Switch at 8, 16, ..., 4096
}

TEST(AstraNetwork, LoadsRingFcSwitchReferenceFiles) {
  for (const auto& [name, x, y, z] : {std::tuple{"RingxFCxSwitch_2x2x2", 2u, 2u, 2u},
                                      {"RingxFCxSwitch_4x4x4", 4u, 4u, 4u},
                                      {"RingxFCxSwitch_8x8x8", 8u, 8u, 8u},
                                      {"RingxFCxSwitch_8x8x16", 8u, 8u, 16u},
                                      {"RingxFCxSwitch_16x16x16", 16u, 16u, 16u}}) {
    const Topology t = load_astra_network((kNetworkDir / (std::string(name) + ".yml")).string());
    const uint64_t npus = uint64_t{x} * y * z;
    const Counts ring = count_block("Ring", x, npus / x);
    const Counts fc = count_block("FullyConnected", y, npus / y);
    const Counts sw = count_block("Switch", z, npus / z);
    EXPECT_EQ(t.npu_count(), npus) << name;
    EXPECT_EQ(t.node_count(), npus + sw.switches) << name;
    EXPECT_EQ(t.link_count(), ring.links + fc.links + sw.links) << name;
    ASSERT_EQ(t.dimensions().size(), 3u);
    EXPECT_EQ(t.dimensions()[0].kind, BlockKind::Ring);
    EXPECT_EQ(t.dimensions()[1].kind, BlockKind::FullyConnected);
    EXPECT_EQ(t.dimensions()[2].kind, BlockKind::Switch);
    EXPECT_EQ(t.dimensions()[0].bandwidth, Bandwidth::gib_per_s(200));
    EXPECT_EQ(t.dimensions()[1].latency, Time::ns(500));
    EXPECT_EQ(t.dimensions()[2].latency, Time::ns(1000));
  }
  // Spelled out for 8x8x8: 64 rings of 16 links, 64 cliques of 56 links, 64 switches of 16 links.
  const Topology t = load_astra_network((kNetworkDir / "RingxFCxSwitch_8x8x8.yml").string());
  EXPECT_EQ(t.node_count(), 576u);
  EXPECT_EQ(t.link_count(), 5632u);
}

TEST(AstraNetwork, FractionalLatencyIsExact) {
  const std::string path =
      write_file("hgx.yml", "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 400 ]\nlatency: [ 936.25 ]\n");
  const Topology t = load_astra_network(path);
  EXPECT_EQ(t.node_count(), 9u);
  EXPECT_EQ(t.link_latency(LinkId{0}), Time::ps(936'250));
  EXPECT_EQ(t.link_bandwidth(LinkId{0}), Bandwidth::bytes_per_s(400.0 * 1073741824.0));
}

// Loads `text` and expects an Error naming the file and `field`.
void expect_error(const std::string& name, const std::string& text, const std::string& field) {
  const std::string path = write_file(name, text);
  try {
    load_astra_network(path);
    ADD_FAILURE() << name << ": expected an error on " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(AstraNetwork, MissingKey) {
  expect_error("missing.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n", "latency");
}

TEST(AstraNetwork, UnknownKey) {
  expect_error("unknown.yml",
               "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 5 ]\nlatencey: [ 5 ]\n",
               "latencey");
}

TEST(AstraNetwork, NotAList) {
  expect_error("scalar.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: 50\nlatency: [ 5 ]\n", "bandwidth");
}

TEST(AstraNetwork, NotANumber) {
  expect_error("nan.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ fast ]\nlatency: [ 5 ]\n",
               "bandwidth[0]");
}

TEST(AstraNetwork, MismatchedLengths) {
  expect_error("lengths.yml",
               "topology: [ Ring, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 50 ]\nlatency: [ 5, 5 ]\n", "bandwidth");
}

TEST(AstraNetwork, NpusCountBelowTwo) {
  expect_error("one.yml", "topology: [ Ring, Ring ]\nnpus_count: [ 8, 1 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 5, 5 ]\n",
               "npus_count[1]");
}

TEST(AstraNetwork, NpusCountNotInteger) {
  expect_error("frac.yml", "topology: [ Ring ]\nnpus_count: [ 8.5 ]\nbandwidth: [ 50 ]\nlatency: [ 5 ]\n",
               "npus_count[0]");
}

TEST(AstraNetwork, BandwidthNotPositive) {
  expect_error("bw.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 0 ]\nlatency: [ 5 ]\n", "bandwidth[0]");
}

TEST(AstraNetwork, NegativeLatency) {
  expect_error("lat.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ -1 ]\n", "latency[0]");
}

TEST(AstraNetwork, UnknownBlock) {
  expect_error("block.yml",
               "topology: [ Ring, Torus ]\nnpus_count: [ 8, 8 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 5, 5 ]\n",
               "topology[1]");
}

TEST(AstraNetwork, YamlSyntaxError) {
  // The flow sequence opened on line 2 is never closed; yaml-cpp reports a line of its own choosing, so only
  // the "line N" form is checked.
  const std::string path = write_file("syntax.yml", "topology: [ Ring ]\nnpus_count: [ 8\nbandwidth: [ 50 ]\n");
  try {
    load_astra_network(path);
    ADD_FAILURE() << "expected a syntax error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field().rfind("line ", 0), 0u) << e.what();
    EXPECT_NE(e.message().find("yaml syntax error"), std::string::npos) << e.what();
  }
}

TEST(AstraNetwork, FileNotFound) {
  const std::string path = testing::TempDir() + "chorus_astra_test_does_not_exist.yml";
  try {
    load_astra_network(path);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field(), "file");
  }
}

TEST(AstraNetwork, TooManyNpus) {
  // 4096 * 4096 * 2 = 2^25 > 2^24.
  expect_error(
      "huge.yml",
      "topology: [ Ring, Ring, Ring ]\nnpus_count: [ 4096, 4096, 2 ]\nbandwidth: [ 1, 1, 1 ]\nlatency: [ 1, 1, 1 ]\n",
      "npus_count");
}

}  // namespace
}  // namespace chorus
