// Tests of load_topology: generator specs, bandwidth/latency lists, file dispatch and spec errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/topology/load.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

const fs::path kReferenceDir = fs::path(CHORUS_REFERENCE_DIR);

TopologyRequest spec_request(const std::string& spec) {
  TopologyRequest r;
  r.spec = spec;
  r.bandwidths = {Bandwidth::gb_per_s(50)};
  r.latencies = {Time::ns(500)};
  return r;
}

TEST(LoadTopology, GeneratorSpecs) {
  struct Case {
    std::string spec;
    uint32_t npus, nodes, links;
  };
  // Counts from each shape's definition (see generators_test.cpp for the derivations).
  for (const Case& c :
       {Case{"ring:8", 8, 8, 16}, Case{"uniring:8", 8, 8, 8}, Case{"fc:8", 8, 8, 56}, Case{"switch:8", 8, 9, 16},
        Case{"mesh2d:4x4", 16, 16, 48}, Case{"mesh3d:2x3x4", 24, 24, 92}, Case{"torus2d:4x4", 16, 16, 64},
        Case{"torus3d:4x2x2", 16, 16, 64}, Case{"hypercube:4", 16, 16, 64}}) {
    const Topology t = load_topology(spec_request(c.spec));
    EXPECT_EQ(t.name(), c.spec);
    EXPECT_EQ(t.npu_count(), c.npus) << c.spec;
    EXPECT_EQ(t.node_count(), c.nodes) << c.spec;
    EXPECT_EQ(t.link_count(), c.links) << c.spec;
  }
}

TEST(LoadTopology, PerDimensionBandwidths) {
  TopologyRequest r = spec_request("torus2d:4x4");
  r.bandwidths = {Bandwidth::gb_per_s(50), Bandwidth::gb_per_s(25)};
  const Topology t = load_topology(r);
  EXPECT_EQ(t.dimensions()[0].bandwidth, Bandwidth::gb_per_s(50));
  EXPECT_EQ(t.dimensions()[1].bandwidth, Bandwidth::gb_per_s(25));
  EXPECT_EQ(t.dimensions()[1].latency, Time::ns(500));  // the single latency applies to both
}

TEST(LoadTopology, Dgx) {
  TopologyRequest r = spec_request("dgx:2x8");
  r.bandwidths = {Bandwidth::gb_per_s(300), Bandwidth::gb_per_s(25)};
  const Topology t = load_topology(r);
  EXPECT_EQ(t.node_count(), 26u);
  EXPECT_EQ(t.link_count(), 64u);
  // GPU 0's first link goes to its NVSwitch (intra), the second to its rail switch (inter).
  EXPECT_EQ(t.link_bandwidth(t.out_links(NodeId{0})[0]), Bandwidth::gb_per_s(300));
  EXPECT_EQ(t.link_bandwidth(t.out_links(NodeId{0})[1]), Bandwidth::gb_per_s(25));
}

TEST(LoadTopology, DimsComposition) {
  const Topology t = load_topology(spec_request("dims:ring8,fc8,switch8"));
  EXPECT_EQ(t.npu_count(), 512u);
  EXPECT_EQ(t.node_count(), 576u);
  EXPECT_EQ(t.link_count(), 5632u);
  const Topology u = load_topology(spec_request("dims:mesh4,uniring4"));
  EXPECT_EQ(u.link_count(), 40u);  // 4 lines of 3 cables + 4 unidirectional rings of 4 links
  EXPECT_EQ(u.dimensions()[0].kind, BlockKind::Mesh);
  EXPECT_EQ(u.dimensions()[1].kind, BlockKind::UniRing);
}

TEST(LoadTopology, EdgeListAndNetworkFiles) {
  TopologyRequest edges;
  edges.spec = (kReferenceDir / "tacos-inputs" / "ring_16.txt").string();
  EXPECT_EQ(load_topology(edges).link_count(), 32u);
  TopologyRequest network;
  network.network_file = (kReferenceDir / "astra-sim-inputs" / "network" / "Switch_8.yml").string();
  EXPECT_EQ(load_topology(network).node_count(), 9u);
}

void expect_error(const TopologyRequest& r, const std::string& field) {
  try {
    load_topology(r);
    ADD_FAILURE() << "'" << r.spec << "': expected an error on " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_TRUE(e.names_argument()) << e.what();  // the CLI prints it as the option: --network/--topology
  }
}

TEST(LoadTopology, MalformedSpecs) {
  for (const char* spec : {"torus4d:2x2x2x2", "ring:0", "ring:", "ring:abc", "ring:-4", "torus2d:4x4x4", "mesh3d:4x4",
                           "torus3d:1024x1024x32", "hypercube:25", "hypercube:0", "dims:torus4", "dims:8",
                           "dims:ring8,,fc8", "dgx:4", "fc:99999999999999999999"}) {
    expect_error(spec_request(spec), "topology");
  }
}

TEST(LoadTopology, MissingBandwidthOrLatency) {
  TopologyRequest r = spec_request("ring:8");
  r.bandwidths.clear();
  expect_error(r, "bandwidth");
  r = spec_request("ring:8");
  r.latencies.clear();
  expect_error(r, "latency");
}

TEST(LoadTopology, WrongNumberOfValues) {
  TopologyRequest r = spec_request("torus2d:4x4");
  r.bandwidths = {Bandwidth::gb_per_s(1), Bandwidth::gb_per_s(2), Bandwidth::gb_per_s(3)};
  expect_error(r, "bandwidth");
  r = spec_request("dgx:2x8");
  r.latencies = {Time::ns(1), Time::ns(2), Time::ns(3)};
  expect_error(r, "latency");
}

TEST(LoadTopology, NetworkAndSpecAreExclusive) {
  TopologyRequest both = spec_request("ring:8");
  both.network_file = "net.yml";
  expect_error(both, "network/topology");
  expect_error(TopologyRequest{}, "network/topology");
}

TEST(LoadTopology, MissingEdgeListFile) {
  TopologyRequest r;
  r.spec = testing::TempDir() + "chorus_load_test_missing.txt";
  try {
    load_topology(r);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), r.spec);
    EXPECT_EQ(e.field(), "file");
  }
}

}  // namespace
}  // namespace chorus
