// A bound rescaled to another size equals the bound computed there, to the picosecond, for every collective; and
// one hand value: a bidirectional ring's All-Gather bound is (N - 1) M / (2 N B).
#include <gtest/gtest.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

TEST(LowerBoundAtSize, EqualsTheDirectBoundAtEverySize) {
  const LinkParams link{Bandwidth::gb_per_s(50), Time::ns(700)};
  const std::vector<Topology> topologies = {
      ring(8, link), torus2d(4, 4, link, LinkParams{Bandwidth::gb_per_s(25), Time::ns(300)}), switch_star(6, link)};
  const CollectiveKind kinds[] = {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                                  CollectiveKind::AllToAll,  CollectiveKind::Broadcast, CollectiveKind::Reduce};
  for (const Topology& topology : topologies) {
    for (const CollectiveKind kind : kinds) {
      const uint32_t n = topology.npu_count();
      const LowerBound reference = lower_bound(topology, Collective{kind, Bytes::gib(1), n});
      for (const int64_t size : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{1} << 20, int64_t{3} << 33}) {
        const LowerBound direct = lower_bound(topology, Collective{kind, Bytes(size), n});
        const LowerBound scaled = lower_bound_at_size(reference, Bytes(size));
        SCOPED_TRACE(topology.name() + " " + to_string(kind) + " " + std::to_string(size));
        EXPECT_EQ(scaled.bound, direct.bound);
        EXPECT_EQ(scaled.bandwidth_bound, direct.bandwidth_bound);
        EXPECT_EQ(scaled.latency_bound, direct.latency_bound);
        EXPECT_EQ(scaled.information_bound, direct.information_bound);
        EXPECT_EQ(scaled.size, Bytes(size));
      }
    }
  }
}

TEST(LowerBoundAtSize, RingAllGatherHandValue) {
  const Topology r = ring(8, LinkParams{Bandwidth::gb_per_s(50), Time::us(1)});
  const LowerBound reference = lower_bound(r, Collective{CollectiveKind::AllGather, Bytes(1), 8});
  // 7 * 8e6 B / (16 * 50e9 B/s) = 70 us; the latency bound is the 4-hop diameter, 4 us.
  const LowerBound b = lower_bound_at_size(reference, Bytes(8'000'000));
  EXPECT_EQ(b.bandwidth_bound, Time::us(70));
  EXPECT_EQ(b.latency_bound, Time::us(4));
  EXPECT_EQ(b.bound, Time::us(70));
}

}  // namespace
}  // namespace chorus
