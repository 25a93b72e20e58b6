// Tests of BFS routing: hop counts worked out by hand on small topologies, path continuity, tie-breaking.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/topology/routing.hpp"

namespace chorus {
namespace {

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::ns(500)};

// The route is a chain of links from src to dst.
void expect_path(const Topology& t, const std::vector<LinkId>& path, uint32_t src, uint32_t dst) {
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(t.link_src(path.front()), NodeId{src});
  EXPECT_EQ(t.link_dst(path.back()), NodeId{dst});
  for (size_t i = 1; i < path.size(); ++i)
    EXPECT_EQ(t.link_src(path[i]), t.link_dst(path[i - 1]));
}

TEST(Router, Ring) {
  const Topology t = ring(8, kLink);
  const Router router(t);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{4}), 4u);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{7}), 1u);  // the short way round
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{3}), 3u);
  EXPECT_EQ(router.hop_count(NodeId{6}, NodeId{1}), 3u);
  expect_path(t, router.route(NodeId{6}, NodeId{1}), 6, 1);
}

TEST(Router, SameNodeIsEmptyRoute) {
  const Topology t = ring(4, kLink);
  const Router router(t);
  EXPECT_TRUE(router.route(NodeId{2}, NodeId{2}).empty());
  EXPECT_EQ(router.hop_count(NodeId{2}, NodeId{2}), 0u);
}

TEST(Router, TiesGoToTheFirstOutLink) {
  // NPU 0's out-links are 0->1 (cable 0-1) then 0->3 (cable 3-0), so both 2-hop paths to 2 tie and the
  // one through 1 is found first.
  const Topology t = ring(4, kLink);
  const Router router(t);
  const std::vector<LinkId> path = router.route(NodeId{0}, NodeId{2});
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(t.link_dst(path[0]), NodeId{1});
  EXPECT_EQ(router.route(NodeId{0}, NodeId{2}), path);  // the cached tree gives the same answer
}

TEST(Router, UniRingGoesTheLongWay) {
  const Topology t = uniring(8, kLink);
  EXPECT_EQ(Router(t).hop_count(NodeId{1}, NodeId{0}), 7u);
}

TEST(Router, Torus2d) {
  const Topology t = torus2d(4, 4, kLink, kLink);
  const Router router(t);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{10}), 4u);  // (2,2): two hops along each dimension
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{15}), 2u);  // (3,3): one wrap-around hop each
  expect_path(t, router.route(NodeId{0}, NodeId{10}), 0, 10);
}

TEST(Router, Mesh2dAndHypercube) {
  const Topology mesh = mesh2d(4, 4, kLink, kLink);
  EXPECT_EQ(Router(mesh).hop_count(NodeId{0}, NodeId{15}), 6u);  // no wrap-around: 3 + 3
  const Topology cube = hypercube(4, std::vector<LinkParams>(4, kLink));
  const Router router(cube);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{15}), 4u);  // Hamming distance
  EXPECT_EQ(router.hop_count(NodeId{5}, NodeId{6}), 2u);   // 0101 -> 0110
}

TEST(Router, SwitchForwards) {
  const Topology t = switch_star(8, kLink);
  const Router router(t);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{5}), 2u);
  const std::vector<LinkId> path = router.route(NodeId{0}, NodeId{5});
  expect_path(t, path, 0, 5);
  EXPECT_EQ(t.link_dst(path[0]), NodeId{8});
}

TEST(Router, DgxLike) {
  const Topology t = dgx(2, 8, kLink, kLink);
  const Router router(t);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{1}), 2u);  // through NVSwitch 16
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{8}), 2u);  // through rail switch 18
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{9}), 4u);  // another GPU index on another node
  EXPECT_EQ(t.link_dst(router.route(NodeId{0}, NodeId{8})[0]), NodeId{18});
}

TEST(Router, UnreachableThrows) {
  TopologyBuilder builder("line", 3);
  builder.add_link(NodeId{0}, NodeId{1}, kLink.bandwidth, kLink.latency);
  const Topology t = std::move(builder).seal();
  const Router router(t);
  EXPECT_EQ(router.hop_count(NodeId{0}, NodeId{1}), 1u);
  try {
    router.route(NodeId{1}, NodeId{0});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "route");
    EXPECT_EQ(e.message(), "no path from NPU 1 to NPU 0");
  }
  EXPECT_THROW(router.route(NodeId{0}, NodeId{2}), Error);
}

}  // namespace
}  // namespace chorus
