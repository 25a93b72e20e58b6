// Tests of the cluster fabric generators (topology/cluster_generators.hpp): node and link counts and bisection
// bandwidths of small instances, worked out by hand in the comments; spec parsing through load_topology.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "chorus/collective/max_flow.hpp"
#include "chorus/core/error.hpp"
#include "chorus/topology/cluster_generators.hpp"
#include "chorus/topology/load.hpp"

namespace chorus {
namespace {

const LinkParams kHost{Bandwidth::gb_per_s(100), Time::ns(100)};
const LinkParams kFabric{Bandwidth::gb_per_s(100), Time::ns(200)};

// Minimum cut (bytes/s) separating the NPUs with in_a(npu) from the others, switches free to fall on either side:
// a max-flow from a super source feeding side A to a super sink drained by side B.
double cut_between(const Topology& t, const std::function<bool(uint32_t)>& in_a) {
  const double unit = 1e9;
  const uint32_t source = t.node_count(), sink = t.node_count() + 1;
  std::vector<FlowArc> arcs;
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    const LinkId link{l};
    arcs.push_back({t.link_src(link).value, t.link_dst(link).value, t.link_bandwidth(link).bytes_per_second() / unit});
  }
  const double infinite = 1e9;
  for (uint32_t n = 0; n < t.npu_count(); ++n)
    arcs.push_back(in_a(n) ? FlowArc{source, n, infinite} : FlowArc{n, sink, infinite});
  MaxFlow flow(t.node_count() + 2, arcs, 1e-12);
  return flow.run(source, sink) * unit;
}

uint32_t links_of(const Topology& t, uint32_t node) {
  return static_cast<uint32_t>(t.out_links(NodeId{node}).size());
}

// k = 4: 4 pods x (2 edge + 2 aggregation) switches and (4/2)^2 = 4 cores = 20 switches; 2 hosts per edge switch
// (x oversubscription). Duplex connections: hosts, edge-agg 4 pods x 2 x 2 = 16, agg-core 4 pods x 2 x 2 = 16.
TEST(ClusterGenerators, FatTreeCountsAndBisection) {
  const Topology full = fat_tree({4, 1}, kHost, kFabric);
  EXPECT_EQ(full.npu_count(), 16u);
  EXPECT_EQ(full.node_count(), 16u + 20u);
  EXPECT_EQ(full.link_count(), 2u * (16 + 16 + 16));
  // Pods {0, 1} against {2, 3}: every core has one link into each pod, so 2 of its 4 links cross whichever side it
  // joins: 4 cores x 2 x 100 GB/s = 800 GB/s = 8 hosts x 100 GB/s, full bisection.
  EXPECT_DOUBLE_EQ(cut_between(full, [](uint32_t n) { return n < 8; }), 800e9);

  const Topology oversubscribed = fat_tree({4, 2}, kHost, kFabric);
  EXPECT_EQ(oversubscribed.npu_count(), 32u);
  EXPECT_EQ(oversubscribed.node_count(), 32u + 20u);
  EXPECT_EQ(oversubscribed.link_count(), 2u * (32 + 16 + 16));
  // Same fabric, twice the hosts: 800 GB/s for 16 hosts a side = 16 x 100 / 2, i.e. 2:1 oversubscribed.
  EXPECT_DOUBLE_EQ(cut_between(oversubscribed, [](uint32_t n) { return n < 16; }), 800e9);
  // An edge switch has k/2 uplinks and k/2 * oversubscription hosts.
  EXPECT_EQ(links_of(oversubscribed, 32), 4u + 2u);
}

// nodes = 4 of 2 GPUs, units of 2 nodes, 2 spines: 4 NVSwitches + 2 units x 2 rails = 4 leaves + 2 spines = 10
// switches; duplex connections: 8 NVLink + 8 NIC + 4 leaves x 2 spines = 24. Leaf-spine bandwidth = unit x nic /
// (spines x oversub) = 2 x 50 / 2 = 50 GB/s.
TEST(ClusterGenerators, RailFabricCountsAndBisection) {
  const LinkParams nvlink{Bandwidth::gb_per_s(450), Time::ns(100)}, nic{Bandwidth::gb_per_s(50), Time::ns(1000)};
  const Topology t = rail_fabric({4, 2, 2, 2, 1}, nvlink, nic);
  EXPECT_EQ(t.npu_count(), 8u);
  EXPECT_EQ(t.node_count(), 8u + 10u);
  EXPECT_EQ(t.link_count(), 2u * 24);
  // GPU 0 (node 0) reaches its NVSwitch and rail 0's leaf of unit 0; GPU 5 (node 2, rail 1) the leaf of unit 1.
  EXPECT_EQ(links_of(t, 0), 2u);
  // Unit 0 (GPUs 0-3) against unit 1: each spine links to 2 leaves a side, so 2 links of 50 GB/s cross per spine:
  // 200 GB/s = 4 GPUs x 50 GB/s, full bisection of the NICs.
  EXPECT_DOUBLE_EQ(cut_between(t, [](uint32_t n) { return n < 4; }), 200e9);
  // 2:1 oversubscribed: half the uplink bandwidth, 100 GB/s.
  EXPECT_NEAR(cut_between(rail_fabric({4, 2, 2, 2, 2}, nvlink, nic), [](uint32_t n) { return n < 4; }), 100e9, 1);
}

// p = 2, a = 4, h = 2: g = a h + 1 = 9 groups of 4 routers, 72 NPUs, 36 routers. Duplex connections: 72 terminal,
// 9 groups x C(4, 2) = 54 local, C(9, 2) = 36 global.
TEST(ClusterGenerators, DragonflyCountsAndGroupCut) {
  const LinkParams terminal{Bandwidth::gb_per_s(100), Time::ns(50)}, local{Bandwidth::gb_per_s(100), Time::ns(100)},
      global{Bandwidth::gb_per_s(10), Time::ns(500)};
  const Topology t = dragonfly({2, 4, 2}, terminal, local, global);
  EXPECT_EQ(t.npu_count(), 72u);
  EXPECT_EQ(t.node_count(), 72u + 36u);
  EXPECT_EQ(t.link_count(), 2u * (72 + 54 + 36));
  // Every router: p terminals + (a - 1) local + h global links.
  for (uint32_t r = 72; r < 108; ++r)
    EXPECT_EQ(links_of(t, r), 2u + 3u + 2u) << r;
  // Group 0's 8 NPUs against the rest: its a h = 8 global links of 10 GB/s bind (terminals and locals are 100).
  EXPECT_DOUBLE_EQ(cut_between(t, [](uint32_t n) { return n < 8; }), 80e9);
}

TopologyRequest spec(const std::string& text, std::vector<Bandwidth> bandwidths) {
  TopologyRequest r;
  r.spec = text;
  r.bandwidths = std::move(bandwidths);
  r.latencies = {Time::ns(500)};
  return r;
}

TEST(ClusterGenerators, Specs) {
  const Bandwidth b = Bandwidth::gb_per_s(50);
  EXPECT_EQ(load_topology(spec("fattree:k=16", {b})).npu_count(), 1024u);  // 16^3 / 4
  EXPECT_EQ(load_topology(spec("fattree:k=4,oversub=2", {b, b})).npu_count(), 32u);
  EXPECT_EQ(load_topology(spec("rail:nodes=8,unit=4,spines=2", {b, b})).npu_count(), 64u);
  EXPECT_EQ(load_topology(spec("dragonfly:p=2,a=4,h=2", {b})).npu_count(), 72u);
  for (const char* bad : {"fattree:k=3", "fattree:q=4", "fattree:k=4,k=4", "fattree:oversub=2",
                          "rail:nodes=6,unit=4,spines=2", "dragonfly:p=2,a=4", "fattree:k=4096"}) {
    EXPECT_THROW(load_topology(spec(bad, {b})), Error) << bad;
  }
}

}  // namespace
}  // namespace chorus
