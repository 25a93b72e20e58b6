// A subgroup's collectives as the runtime times them: All-to-All direct on a logical switch (each member's port
// carries its n - 1 shares once), the others on the logical ring, worked out by hand.
#include <gtest/gtest.h>

#include "chorus/network/model_registry.hpp"
#include "chorus/runtime/collective_timer.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

TEST(CollectiveTimer, SubgroupAllToAllRunsDirectNearItsBound) {
  // 16 NPUs on one switch at 100 GB/s per port, no latency; the group is NPUs 0-7. Each member sends 7 shares of
  // 8 MiB / 8 through its port: 7/8 x 8 MiB / 100 GB/s = 73.400 us (a ring All-to-All would carry each share up to
  // 4 hops: about 4x this).
  const Topology t = compose({Dimension{BlockKind::Switch, 16, Bandwidth::gb_per_s(100), Time::zero()}});
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  CollectiveTimer timer(t, options);
  const std::vector<uint32_t> members{0, 1, 2, 3, 4, 5, 6, 7};
  const TimedCollective a2a = timer.time(chakra::CommType::AllToAll, Bytes(8 << 20), members);
  EXPECT_NEAR(a2a.duration.microseconds(), 7.0 / 8 * (8 << 20) / 100e9 * 1e6, 0.01);
  // The All-Reduce of the same group stays a ring: 2 x 7/8 x 8 MiB / 100 GB/s.
  const TimedCollective ar = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), members);
  EXPECT_NEAR(ar.duration.microseconds(), 2 * 7.0 / 8 * (8 << 20) / 100e9 * 1e6, 0.01);
}

TEST(CollectiveTimer, SubgroupRingHopsShareThePhysicalLinksTheyCross) {
  // An 8-NPU bidirectional ring at 100 GB/s per direction, no latency; the group 0, 4, 1, 5 in that ring order.
  // Routes (shorter way, forward on a tie): 0->4 over 0>1>2>3>4, 4->1 over 4>3>2>1, 1->5 over 1>2>3>4>5, 5->0 over
  // 5>6>7>0. Links 1>2, 2>3 and 3>4 carry two hops each, so under the congestion-aware models every hop runs at
  // 50 GB/s: a ring All-Reduce of 8 MiB takes 2 x 3/4 x 8 MiB / 50 GB/s = 251.66 us. The unaware model (no
  // congestion by definition) keeps 100 GB/s: 125.83 us.
  const Topology t = compose({Dimension{BlockKind::Ring, 8, Bandwidth::gb_per_s(100), Time::zero()}});
  const std::vector<uint32_t> members{0, 4, 1, 5};
  for (const auto& [model, gb_per_s] :
       {std::pair{NetworkModelKind::Flow, 50.0}, std::pair{NetworkModelKind::Aware, 50.0},
        std::pair{NetworkModelKind::Unaware, 100.0}}) {
    CollectiveTimerOptions options;
    options.model = model;
    CollectiveTimer timer(t, options);
    const TimedCollective ar = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), members);
    EXPECT_NEAR(ar.duration.microseconds(), 2 * 3.0 / 4 * (8 << 20) / (gb_per_s * 1e9) * 1e6, 0.01) << to_string(model);
  }
  // Every other NPU (0, 2, 4, 6) crosses each link once: no sharing, 2 x 3/4 x 8 MiB / 100 GB/s.
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  CollectiveTimer timer(t, options);
  const TimedCollective spread = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), {0, 2, 4, 6});
  EXPECT_NEAR(spread.duration.microseconds(), 2 * 3.0 / 4 * (8 << 20) / 100e9 * 1e6, 0.01);
}

TEST(CollectiveTimer, SubgroupAllToAllAcrossTwoDomainsSendsTheNearSharesOverTheFastPorts) {
  // 4 nodes of 8 NPUs: 450 GB/s ports inside a node, 50 GB/s between nodes, no latency; the group is nodes 0 and 1
  // (NPUs 0-15). Each member sends 15 shares of 8 MiB / 16: 7 to its own node through the fast port and 8 to the
  // other node through the slow one, at once. The slow port's 8/16 x 8 MiB / 50 GB/s = 83.886 us sets the time (the
  // near shares take 7/16 x 8 MiB / 450 GB/s = 8.155 us); at the slowest hop's speed for all 15 it would be 157.3 us.
  const Topology t = compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(450), Time::zero()},
                              Dimension{BlockKind::Switch, 4, Bandwidth::gb_per_s(50), Time::zero()}});
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  CollectiveTimer timer(t, options);
  std::vector<uint32_t> members;
  for (uint32_t i = 0; i < 16; ++i)
    members.push_back(i);
  const TimedCollective a2a = timer.time(chakra::CommType::AllToAll, Bytes(8 << 20), members);
  EXPECT_NEAR(a2a.duration.microseconds(), 8.0 / 16 * (8 << 20) / 50e9 * 1e6, 0.01);
  // One member per node (NPUs 0, 8, 16, 24): every share crosses nodes, 3/4 x 8 MiB / 50 GB/s, as before.
  const TimedCollective spread = timer.time(chakra::CommType::AllToAll, Bytes(8 << 20), {0, 8, 16, 24});
  EXPECT_NEAR(spread.duration.microseconds(), 3.0 / 4 * (8 << 20) / 50e9 * 1e6, 0.01);
}

TEST(CollectiveTimer, SubgroupWithSeveralMembersPerNodeRunsOneRingPerMemberNic) {
  // 2 nodes of 8 NPUs (450 GB/s ports inside a node, a 50 GB/s port per NPU between nodes, no latency); the group is
  // every other NPU (a data-parallel group at TP 2): 0, 2, 4, 6 | 8, 10, 12, 14. One ring in member order crosses
  // the nodes twice, each time through one 50 GB/s port: 2 x 7/8 x 8 MiB / 50 GB/s = 293.60 us. As NCCL runs it, 4
  // rings, each entering a node at a different member, carry a quarter of the data each and cross through 4
  // different ports at once: 200 GB/s across, while inside a node each NPU's 450 GB/s port carries one hop of each
  // ring (112.5 GB/s a ring, above 50): 2 x 7/8 x 8 MiB / 200 GB/s = 73.40 us.
  const Topology t = compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(450), Time::zero()},
                              Dimension{BlockKind::Switch, 2, Bandwidth::gb_per_s(50), Time::zero()}});
  const std::vector<uint32_t> members{0, 2, 4, 6, 8, 10, 12, 14};
  const double bytes = 8 << 20;
  for (const auto& [model, gb_per_s] :
       {std::pair{NetworkModelKind::Flow, 200.0}, std::pair{NetworkModelKind::Aware, 200.0},
        std::pair{NetworkModelKind::Unaware, 50.0}}) {
    CollectiveTimerOptions options;
    options.model = model;
    CollectiveTimer timer(t, options);
    const TimedCollective ar = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), members);
    EXPECT_NEAR(ar.duration.microseconds(), 2 * 7.0 / 8 * bytes / (gb_per_s * 1e9) * 1e6, 0.01) << to_string(model);
  }
  // One member per node (0 and 8 of a 2-member group, or 0, 8 as blocks of one): no blocks, one ring.
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  options.link_stats = true;
  CollectiveTimer timer(t, options);
  EXPECT_NEAR(timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), {0, 8}).duration.microseconds(),
              2 * 1.0 / 2 * bytes / 50e9 * 1e6, 0.01);
  // The link statistics spread each ring hop's bytes over the 4 rings' own hops: 4 rings x 8 hops, a quarter each.
  const TimedCollective ar = timer.time(chakra::CommType::AllReduce, Bytes(8 << 20), members);
  ASSERT_TRUE(ar.links.has_value());
  EXPECT_EQ(ar.ring_links.size(), 4u * 16u);  // the logical ring's 16 directed links, per ring
  double total = 0;
  for (const double b : ar.links->bytes)
    total += b;
  // A ring All-Reduce sends 2 x 7/8 of the buffer over each of its 8 forward hops.
  EXPECT_NEAR(total, 8 * 2 * 7.0 / 8 * bytes, 1e-6 * bytes);
}

TEST(CollectiveTimer, WholeNetworkAllToAllRunsDirectWhenAsked) {
  // 2 nodes of 8 NPUs (450 and 50 GB/s ports, no latency), the group all 16: the LLM engine's option makes it the
  // direct exchange of the test above, 8/16 x 8 MiB / 50 GB/s = 83.886 us; without it the per-dimension phases run.
  const Topology t = compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(450), Time::zero()},
                              Dimension{BlockKind::Switch, 2, Bandwidth::gb_per_s(50), Time::zero()}});
  std::vector<uint32_t> members;
  for (uint32_t i = 0; i < 16; ++i)
    members.push_back(i);
  CollectiveTimerOptions options;
  options.model = NetworkModelKind::Flow;
  options.whole_all_to_all_direct = true;
  CollectiveTimer direct(t, options);
  const double us = direct.time(chakra::CommType::AllToAll, Bytes(8 << 20), members).duration.microseconds();
  EXPECT_NEAR(us, 8.0 / 16 * (8 << 20) / 50e9 * 1e6, 0.01);
  options.whole_all_to_all_direct = false;
  CollectiveTimer phased(t, options);
  EXPECT_GT(phased.time(chakra::CommType::AllToAll, Bytes(8 << 20), members).duration.microseconds(), us);
}

}  // namespace
}  // namespace chorus
