// Tests of the topology generators: node/link counts, degrees, dimensions and coordinates, all worked out by
// hand from the shapes' definitions.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::ns(500)};

// Every node's out-degree and in-degree equal `degree`.
void expect_regular(const Topology& t, size_t degree) {
  for (uint32_t n = 0; n < t.node_count(); ++n) {
    EXPECT_EQ(t.out_links(NodeId{n}).size(), degree) << "node " << n;
    EXPECT_EQ(t.in_links(NodeId{n}).size(), degree) << "node " << n;
  }
}

bool has_link(const Topology& t, uint32_t src, uint32_t dst) {
  for (LinkId l : t.out_links(NodeId{src})) {
    if (t.link_dst(l) == NodeId{dst})
      return true;
  }
  return false;
}

TEST(TopologyGenerator, RingIsBidirectional) {
  const Topology t = ring(8, kLink);
  EXPECT_EQ(t.name(), "ring:8");
  EXPECT_EQ(t.npu_count(), 8u);
  EXPECT_EQ(t.node_count(), 8u);
  EXPECT_EQ(t.link_count(), 16u);  // 8 cables, two directions each
  expect_regular(t, 2);
  EXPECT_TRUE(has_link(t, 7, 0));
  EXPECT_TRUE(has_link(t, 0, 7));
  ASSERT_EQ(t.dimensions().size(), 1u);
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::Ring);
  EXPECT_EQ(t.dimensions()[0].size, 8u);
  EXPECT_EQ(t.link_bandwidth(LinkId{0}), Bandwidth::gb_per_s(50));
  EXPECT_EQ(t.link_latency(LinkId{0}), Time::ns(500));
}

TEST(TopologyGenerator, RingOfTwoIsOneDuplexPair) {
  const Topology t = ring(2, kLink);
  EXPECT_EQ(t.link_count(), 2u);
  expect_regular(t, 1);
}

TEST(TopologyGenerator, RingOfOneHasNoLinks) {
  EXPECT_EQ(ring(1, kLink).link_count(), 0u);
}

TEST(TopologyGenerator, UniRingGoesForwardOnly) {
  const Topology t = uniring(8, kLink);
  EXPECT_EQ(t.link_count(), 8u);
  expect_regular(t, 1);
  EXPECT_TRUE(has_link(t, 7, 0));
  EXPECT_FALSE(has_link(t, 0, 7));
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::UniRing);
}

TEST(TopologyGenerator, FullyConnected) {
  const Topology t = fully_connected(8, kLink);
  EXPECT_EQ(t.name(), "fc:8");
  EXPECT_EQ(t.link_count(), 56u);  // 8 * 7 ordered pairs
  expect_regular(t, 7);
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::FullyConnected);
}

TEST(TopologyGenerator, SwitchStar) {
  const Topology t = switch_star(8, kLink);
  EXPECT_EQ(t.name(), "switch:8");
  EXPECT_EQ(t.npu_count(), 8u);
  EXPECT_EQ(t.node_count(), 9u);
  EXPECT_EQ(t.link_count(), 16u);
  EXPECT_EQ(t.kind(NodeId{8}), NodeKind::Switch);
  EXPECT_EQ(t.kind(NodeId{7}), NodeKind::Npu);
  EXPECT_EQ(t.out_links(NodeId{8}).size(), 8u);
  for (uint32_t n = 0; n < 8; ++n) {
    ASSERT_EQ(t.out_links(NodeId{n}).size(), 1u);
    EXPECT_EQ(t.link_dst(t.out_links(NodeId{n})[0]), NodeId{8});
  }
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::Switch);
}

TEST(TopologyGenerator, Mesh2dHasNoWrapAround) {
  const Topology t = mesh2d(4, 4, kLink, kLink);
  EXPECT_EQ(t.name(), "mesh2d:4x4");
  EXPECT_EQ(t.link_count(), 48u);                // 4 rows * 3 cables + 4 columns * 3 cables = 24 cables
  EXPECT_EQ(t.out_links(NodeId{0}).size(), 2u);  // corner
  EXPECT_EQ(t.out_links(NodeId{1}).size(), 3u);  // edge
  EXPECT_EQ(t.out_links(NodeId{5}).size(), 4u);  // interior
  EXPECT_FALSE(has_link(t, 3, 0));
  EXPECT_FALSE(has_link(t, 0, 12));
  ASSERT_EQ(t.dimensions().size(), 2u);
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::Mesh);
  EXPECT_EQ(t.dimensions()[1].kind, BlockKind::Mesh);
}

TEST(TopologyGenerator, Mesh3d) {
  const Topology t = mesh3d(2, 3, 4, kLink, kLink, kLink);
  EXPECT_EQ(t.name(), "mesh3d:2x3x4");
  EXPECT_EQ(t.npu_count(), 24u);
  // x: 12 lines of 1 cable, y: 8 lines of 2 cables, z: 6 lines of 3 cables = 46 cables.
  EXPECT_EQ(t.link_count(), 92u);
  EXPECT_EQ(t.dimensions().size(), 3u);
}

TEST(TopologyGenerator, Torus2d) {
  const LinkParams x{Bandwidth::gb_per_s(50), Time::ns(100)};
  const LinkParams y{Bandwidth::gb_per_s(25), Time::ns(200)};
  const Topology t = torus2d(4, 4, x, y);
  EXPECT_EQ(t.name(), "torus2d:4x4");
  EXPECT_EQ(t.npu_count(), 16u);
  EXPECT_EQ(t.link_count(), 64u);
  expect_regular(t, 4);
  EXPECT_TRUE(has_link(t, 3, 0));   // x wrap-around in row 0
  EXPECT_TRUE(has_link(t, 12, 0));  // y wrap-around in column 0
  EXPECT_FALSE(has_link(t, 3, 4));  // row ends do not join the next row
  for (LinkId l : t.out_links(NodeId{0})) {
    const bool along_x = t.link_dst(l).value < 4;
    EXPECT_EQ(t.link_bandwidth(l), along_x ? x.bandwidth : y.bandwidth);
    EXPECT_EQ(t.link_latency(l), along_x ? x.latency : y.latency);
  }
  EXPECT_EQ(t.dimensions()[0].kind, BlockKind::Ring);
  EXPECT_EQ(t.dimensions()[1].bandwidth, y.bandwidth);
  // NPU 6 = 2 + 4 * 1.
  EXPECT_EQ(t.coordinate(NodeId{6}, 0), 2u);
  EXPECT_EQ(t.coordinate(NodeId{6}, 1), 1u);
}

TEST(TopologyGenerator, Torus3dWithSizeTwoDimensions) {
  const Topology t = torus3d(4, 2, 2, kLink, kLink, kLink);
  EXPECT_EQ(t.npu_count(), 16u);
  // x: 4 rings of 4 cables; y and z: 8 pairs each, one cable per pair (no parallel links) -> 32 cables.
  EXPECT_EQ(t.link_count(), 64u);
  expect_regular(t, 4);
  // NPU 13 = 1 + 4 * 1 + 8 * 1.
  EXPECT_EQ(t.coordinate(NodeId{13}, 0), 1u);
  EXPECT_EQ(t.coordinate(NodeId{13}, 1), 1u);
  EXPECT_EQ(t.coordinate(NodeId{13}, 2), 1u);
}

TEST(TopologyGenerator, Hypercube) {
  const Topology t = hypercube(4, std::vector<LinkParams>(4, kLink));
  EXPECT_EQ(t.name(), "hypercube:4");
  EXPECT_EQ(t.npu_count(), 16u);
  EXPECT_EQ(t.link_count(), 64u);  // 16 NPUs * 4 neighbours
  expect_regular(t, 4);
  // The neighbours of 5 = 0b0101 flip one bit each.
  for (uint32_t neighbour : {4u, 7u, 1u, 13u})
    EXPECT_TRUE(has_link(t, 5, neighbour)) << neighbour;
  EXPECT_EQ(t.dimensions().size(), 4u);
}

TEST(TopologyGenerator, DgxLike) {
  const LinkParams intra{Bandwidth::gb_per_s(300), Time::ns(100)};
  const LinkParams inter{Bandwidth::gb_per_s(25), Time::ns(1000)};
  const Topology t = dgx(2, 8, intra, inter);
  EXPECT_EQ(t.name(), "dgx:2x8");
  EXPECT_EQ(t.npu_count(), 16u);
  EXPECT_EQ(t.node_count(), 26u);  // 16 GPUs + 2 NVSwitches + 8 rail switches
  EXPECT_EQ(t.link_count(), 64u);  // every GPU: one duplex NVSwitch link + one duplex rail link
  EXPECT_FALSE(t.is_dimensional());
  for (uint32_t s = 16; s < 26; ++s)
    EXPECT_EQ(t.kind(NodeId{s}), NodeKind::Switch);
  EXPECT_EQ(t.out_links(NodeId{16}).size(), 8u);  // NVSwitch of node 0
  EXPECT_EQ(t.out_links(NodeId{18}).size(), 2u);  // rail switch 0: GPU 0 of each node
  // GPU 9 is GPU 1 of node 1: NVSwitch 17 (intra) and rail switch 16 + 2 + 1 = 19 (inter).
  ASSERT_EQ(t.out_links(NodeId{9}).size(), 2u);
  EXPECT_TRUE(has_link(t, 9, 17));
  EXPECT_TRUE(has_link(t, 9, 19));
  for (LinkId l : t.out_links(NodeId{9})) {
    EXPECT_EQ(t.link_bandwidth(l), t.link_dst(l) == NodeId{17} ? intra.bandwidth : inter.bandwidth);
  }
}

TEST(TopologyGenerator, ComposeRingFcSwitch) {
  const Bandwidth bw = Bandwidth::gb_per_s(10);
  const Topology t = compose({{BlockKind::Ring, 8, bw, Time::ns(1)},
                              {BlockKind::FullyConnected, 8, bw, Time::ns(2)},
                              {BlockKind::Switch, 8, bw, Time::ns(3)}});
  EXPECT_EQ(t.name(), "dims:ring8,fc8,switch8");
  EXPECT_EQ(t.npu_count(), 512u);
  EXPECT_EQ(t.node_count(), 576u);  // one switch per dimension-2 group: 64 groups
  // ring: 64 groups * 16 links; fc: 64 groups * 56 links; switch: 64 groups * 16 links.
  EXPECT_EQ(t.link_count(), 1024u + 3584u + 1024u);
  // NPU 0's group along dimension 1 is {0, 8, 16, ..., 56}; along dimension 2 it is {0, 64, ...}.
  EXPECT_TRUE(has_link(t, 0, 56));
  EXPECT_FALSE(has_link(t, 0, 64));
  // Per NPU: 2 ring neighbours + 7 fc peers + 1 switch uplink; per switch: its 8 NPUs.
  for (uint32_t n = 0; n < 512; ++n)
    ASSERT_EQ(t.out_links(NodeId{n}).size(), 10u) << n;
  for (uint32_t n = 512; n < 576; ++n)
    ASSERT_EQ(t.out_links(NodeId{n}).size(), 8u) << n;
}

TEST(TopologyGenerator, ComposeMeshAndUniRing) {
  const Topology t = compose({{BlockKind::Mesh, 4, Bandwidth::gb_per_s(1), Time::zero()},
                              {BlockKind::UniRing, 4, Bandwidth::gb_per_s(1), Time::zero()}});
  EXPECT_EQ(t.npu_count(), 16u);
  EXPECT_EQ(t.link_count(), 24u + 16u);  // mesh: 4 lines * 3 cables; uniring: 4 rings * 4 links
  EXPECT_TRUE(has_link(t, 12, 0));       // uniring wraps 3 -> 0 along dimension 1
  EXPECT_FALSE(has_link(t, 0, 12));
  EXPECT_FALSE(has_link(t, 3, 0));  // the mesh does not wrap
}

TEST(TopologyGenerator, RejectsBadSizes) {
  EXPECT_THROW(ring(0, kLink), Error);
  EXPECT_THROW(torus3d(1024, 1024, 32, kLink, kLink, kLink), Error);  // 2^25 NPUs
  EXPECT_THROW(hypercube(25, std::vector<LinkParams>(25, kLink)), Error);
  EXPECT_THROW(dgx(0, 8, kLink, kLink), Error);
  EXPECT_THROW(compose({}), Error);
}

// follows_dimensions compares a topology with what compose() would build from its dimensions, link by link: true
// for compositions, false once one link differs, one is missing, a switch is added, or no dimensions are declared.
TEST(TopologyGenerator, FollowsDimensionsOnlyForTheComposedLinks) {
  const std::vector<Dimension> dims = {{BlockKind::Ring, 4, kLink.bandwidth, kLink.latency},
                                       {BlockKind::FullyConnected, 3, kLink.bandwidth, kLink.latency},
                                       {BlockKind::Switch, 2, kLink.bandwidth, kLink.latency}};
  const Topology composed = compose(dims);
  EXPECT_TRUE(follows_dimensions(composed));
  // The same links rebuilt, with a change each time.
  auto rebuilt = [&](int change) {
    TopologyBuilder b("copy", composed.npu_count());
    for (uint32_t n = composed.npu_count(); n < composed.node_count(); ++n)
      b.add_switch();
    if (change == 2)
      b.add_switch();
    for (uint32_t l = 0; l < composed.link_count(); ++l) {
      const LinkId link{l};
      if (change == 1 && l + 1 == composed.link_count())
        continue;
      const Bandwidth bw = change == 0 && l == 5 ? Bandwidth::gb_per_s(25) : composed.link_bandwidth(link);
      b.add_link(composed.link_src(link), composed.link_dst(link), bw, composed.link_latency(link));
    }
    if (change != 4)
      b.set_dimensions(dims);
    return std::move(b).seal();
  };
  EXPECT_FALSE(follows_dimensions(rebuilt(0)));
  EXPECT_FALSE(follows_dimensions(rebuilt(1)));
  EXPECT_FALSE(follows_dimensions(rebuilt(2)));
  EXPECT_TRUE(follows_dimensions(rebuilt(3)));
  EXPECT_FALSE(follows_dimensions(rebuilt(4)));  // no dimensions declared
}

}  // namespace
}  // namespace chorus
