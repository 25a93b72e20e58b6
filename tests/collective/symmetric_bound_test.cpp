// Tests of the bounds through symmetry (collective/symmetric_bound.hpp): the quotient search must give exactly the
// bound of max-flows from every sink on every shape small enough to run both, and two cases derived by hand.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/collective/symmetric_bound.hpp"
#include "chorus/topology/cluster_generators.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

Dimension dim(BlockKind kind, uint32_t size, double gib_per_s, int64_t ns) {
  return Dimension{kind, size, Bandwidth::gib_per_s(gib_per_s), Time::ns(ns)};
}

LowerBound bound_of(const Topology& t, CollectiveKind kind, BoundMethod method, Bytes size = Bytes::gib(1)) {
  BoundOptions options;
  options.method = method;
  options.information_bound = false;
  return lower_bound(t, Collective{kind, size, t.npu_count()}, options);
}

// Shapes with switches, uni- and bidirectional rings, odd sizes, dimensions of 1 and 2, and a different
// bandwidth and latency in every dimension.
std::vector<std::vector<Dimension>> shapes() {
  using enum BlockKind;
  return {
      {dim(Switch, 8, 25, 700)},
      {dim(Ring, 7, 50, 500)},
      {dim(UniRing, 6, 50, 500)},
      {dim(FullyConnected, 4, 100, 300), dim(Switch, 4, 25, 1000)},
      {dim(Ring, 4, 300, 150), dim(FullyConnected, 4, 150, 400), dim(Switch, 8, 25, 1200)},
      {dim(Ring, 5, 40, 100), dim(Ring, 3, 90, 200)},
      {dim(Switch, 4, 200, 100), dim(Ring, 6, 20, 900)},
      {dim(UniRing, 3, 60, 100), dim(Switch, 3, 10, 500), dim(FullyConnected, 2, 45, 50)},
      {dim(Ring, 2, 80, 100), dim(Ring, 1, 80, 100), dim(Switch, 5, 12.5, 300)},
      {dim(Switch, 3, 7, 100), dim(Switch, 3, 300, 100), dim(Ring, 4, 1, 10)},
  };
}

TEST(SymmetricBound, EqualsAllSinksMaxFlowOnEveryShape) {
  for (const std::vector<Dimension>& dims : shapes()) {
    const Topology t = compose(dims);
    SCOPED_TRACE(t.name());
    ASSERT_TRUE(npu_orbits(t).has_value());
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
                                CollectiveKind::AllToAll}) {
      const LowerBound symmetric = bound_of(t, kind, BoundMethod::Symmetric);
      const LowerBound flows = bound_of(t, kind, BoundMethod::AllSinks);
      EXPECT_EQ(symmetric.bound, flows.bound) << to_string(kind);
      EXPECT_EQ(symmetric.bandwidth_bound, flows.bandwidth_bound) << to_string(kind);
      EXPECT_EQ(symmetric.latency_bound, flows.latency_bound) << to_string(kind);
    }
    EXPECT_EQ(bound_of(t, CollectiveKind::AllReduce, BoundMethod::Auto).method, BoundMethod::Symmetric);
  }
}

// Hand derivation, FullyConnected(4, B1 = 100 GiB/s) x Switch(4, B2 = 25 GiB/s), 16 NPUs (x, y), one switch per x
// joining the 4 NPUs (x, 0..3). Candidate cuts S with ratio B+(S) / |S ∩ V_c|:
//   all but NPU v (switches in S): v's in-links 3 B1 + B2 = 325 over 15 NPUs = 21.7
//   all but the x = 0 column: 12 FC links into it, 12 B1 over 12 NPUs = 100
//   all but the y = 0 row (all switches in S): 4 switch links, 4 B2 over 12 NPUs = B2 / 3 = 8.33   <- minimum
// so T_AG = (M / N) / (B2 / 3) = 3 M / (16 B2) = 3 / (16 x 25) s = 7.5 ms for M = 1 GiB, and RS the same.
TEST(SymmetricBound, FullyConnectedBySwitchByHand) {
  const Topology t = compose({dim(BlockKind::FullyConnected, 4, 100, 0), dim(BlockKind::Switch, 4, 25, 0)});
  const LowerBound ag = bound_of(t, CollectiveKind::AllGather, BoundMethod::Symmetric);
  EXPECT_EQ(ag.bandwidth_bound, Time::us(7500));
  EXPECT_EQ(ag.worst_cut_npus, 12u);
  EXPECT_EQ(bound_of(t, CollectiveKind::AllReduce, BoundMethod::Symmetric).bandwidth_bound, Time::us(15000));
}

// Hand derivation on examples/networks/ring_fc_switch_4x4x8.yml: Ring 4 at 300, FullyConnected 4 at 150, Switch 8
// at 25 GiB/s. Per dimension alone the worst cut is all but one member: ring 2 x 300 / 3 = 200, fc 3 x 150 / 3 =
// 150, switch 25 / 7 = 3.57; the whole-network "all but one NPU" gives (600 + 450 + 25) / 127 = 8.46, and "all but
// one switch position" (16 NPUs, each fed by its switch) 16 x 25 / 112 = 3.57. The bound is the switch's: T_AG =
// (M / 128) x 7 / 25 GiB/s = 7 / 3200 s = 2.1875 ms for M = 1 GiB.
// Latency: the farthest NPU is 2 ring hops, 1 fc hop and 2 switch hops away: 2 x 150 + 400 + 2 x 1200 = 3100 ns.
TEST(SymmetricBound, RingFullyConnectedSwitchByHand) {
  const Topology t = compose({dim(BlockKind::Ring, 4, 300, 150), dim(BlockKind::FullyConnected, 4, 150, 400),
                              dim(BlockKind::Switch, 8, 25, 1200)});
  const LowerBound ag = bound_of(t, CollectiveKind::AllGather, BoundMethod::Auto);
  EXPECT_EQ(ag.method, BoundMethod::Symmetric);
  EXPECT_EQ(ag.bandwidth_bound, Time::ps(2'187'500'000));
  EXPECT_EQ(ag.latency_bound, Time::ns(3100));
}

TEST(SymmetricBound, FatTreesEqualAllSinksMaxFlow) {
  const LinkParams fast{Bandwidth::gb_per_s(100), Time::ns(100)}, slow{Bandwidth::gb_per_s(10), Time::ns(300)};
  for (const auto& [shape, host, fabric] :
       {std::tuple(FatTreeShape{4, 1}, fast, fast), std::tuple(FatTreeShape{4, 2}, fast, slow),
        std::tuple(FatTreeShape{6, 1}, slow, fast), std::tuple(FatTreeShape{2, 3}, fast, slow),
        std::tuple(FatTreeShape{4, 8}, fast, slow)}) {
    const Topology t = fat_tree(shape, host, fabric);
    SCOPED_TRACE(t.name());
    ASSERT_TRUE(npu_orbits(t).has_value());
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::AllReduce}) {
      const LowerBound symmetric = bound_of(t, kind, BoundMethod::Symmetric);
      const LowerBound flows = bound_of(t, kind, BoundMethod::AllSinks);
      EXPECT_EQ(symmetric.bound, flows.bound) << to_string(kind);
      EXPECT_EQ(symmetric.bandwidth_bound, flows.bandwidth_bound) << to_string(kind);
      EXPECT_EQ(symmetric.latency_bound, flows.latency_bound) << to_string(kind);
    }
  }
}

// Hand derivations on k = 4 fat-trees (M = 1 GiB):
// - host and fabric links at B = 100 GB/s, 16 hosts: all but one host is fed by that host's one link, B / 15; all but
//   an edge group (2 hosts) by 2 aggregation links, 2B / 14; all but a pod by 4 core links, 4B / 12. So B / 15:
//   T_AG = (M / 16) x 15 / B = 2^30 x 15 / (16 x 1e11) s = 10,066,329,600 ps.
// - oversub = 8 (16 hosts per edge switch, 128 hosts) with 10 GB/s fabric links F: all but one host gives B / 127,
//   all but an edge group 2F / 112 = B / 560, all but a pod 4F / 96 = B / 240. So the edge group binds:
//   T_AG = (M / 128) x 112 / (2F) = 2^30 x 0.875 / 2e10 s = 46,976,204,800 ps.
TEST(SymmetricBound, FatTreeByHand) {
  const LinkParams b{Bandwidth::gb_per_s(100), Time::ns(0)}, f{Bandwidth::gb_per_s(10), Time::ns(0)};
  EXPECT_EQ(bound_of(fat_tree({4, 1}, b, b), CollectiveKind::AllGather, BoundMethod::Auto).bandwidth_bound,
            Time::ps(10'066'329'600));
  const LowerBound oversubscribed = bound_of(fat_tree({4, 8}, b, f), CollectiveKind::AllGather, BoundMethod::Auto);
  EXPECT_EQ(oversubscribed.method, BoundMethod::Symmetric);
  EXPECT_EQ(oversubscribed.bandwidth_bound, Time::ps(46'976'204'800));
  EXPECT_EQ(oversubscribed.worst_cut_npus, 112u);
}

TEST(SymmetricBound, OrbitsAreFewAndNpuZeroIsAlone) {
  // 16 x 16 x 16 Ring x FullyConnected x Switch: 9 x 2 x 2 NPU orbits and 9 x 2 switch orbits.
  const Topology t = compose({dim(BlockKind::Ring, 16, 300, 150), dim(BlockKind::FullyConnected, 16, 150, 400),
                              dim(BlockKind::Switch, 16, 25, 1200)});
  const std::optional<NpuOrbits> orbits = npu_orbits(t);
  ASSERT_TRUE(orbits.has_value());
  EXPECT_EQ(orbits->classes, 36u + 18u);
  EXPECT_EQ(orbits->npus[orbits->class_of[0]], 1u);
}

TEST(SymmetricBound, RefusedWithoutProvenSymmetry) {
  // A mesh is not NPU-transitive.
  EXPECT_FALSE(npu_orbits(compose({dim(BlockKind::Mesh, 4, 50, 500), dim(BlockKind::Ring, 4, 50, 500)})));
  // Links that disagree with the declared dimensions: one ring link slower than the rest.
  TopologyBuilder b("odd ring", 4);
  for (uint32_t i = 0; i < 4; ++i)
    b.add_duplex(NodeId{i}, NodeId{(i + 1) % 4}, Bandwidth::gib_per_s(i == 0 ? 10 : 50), Time::ns(500));
  b.set_dimensions({dim(BlockKind::Ring, 4, 50, 500)});
  const Topology odd = std::move(b).seal();
  EXPECT_FALSE(npu_orbits(odd));
  EXPECT_NE(bound_of(odd, CollectiveKind::AllGather, BoundMethod::Auto).method, BoundMethod::Symmetric);
  EXPECT_THROW(bound_of(odd, CollectiveKind::AllGather, BoundMethod::Symmetric), Error);
}

// Past limits::kMaxBoundNpus a symmetric topology with few orbits is still bounded; anything needing max-flows per
// NPU throws BoundNotComputed (callers print "not computed") instead of running for minutes.
TEST(SymmetricBound, LargeTopologiesBoundedOnlyThroughSymmetry) {
  const Topology big = compose({dim(BlockKind::Switch, 512, 50, 500), dim(BlockKind::Switch, 512, 25, 500)});
  ASSERT_EQ(big.npu_count(), 262144u);
  const Collective ar{CollectiveKind::AllReduce, Bytes::gib(1), big.npu_count()};
  BoundOptions options;
  options.information_bound = false;
  EXPECT_FALSE(bound_not_computable(big, ar, options));
  // Each switch dimension alone binds at B / (n - 1) = 25 / 511, but all but one NPU does far better: its in-links
  // 50 + 25 GiB/s over N - 1 NPUs. Any set T outside S holding an NPU and none of its switches has 75 GiB/s of
  // in-links, and one holding a switch has at least 511 x 25, so T = {v} is the worst: T_AG = (M / N) x (N - 1)
  // / 75 GiB/s = 262143 / (262144 x 75) s = 13,333,282,470 ps (rounded down); All-Reduce twice that.
  EXPECT_EQ(lower_bound(big, ar, options).bandwidth_bound, Time::ps(2 * 13'333'282'470));
  options.information_bound = true;
  EXPECT_TRUE(bound_not_computable(big, ar, options));
  EXPECT_THROW(lower_bound(big, ar, options), BoundNotComputed);
}

}  // namespace
}  // namespace chorus
