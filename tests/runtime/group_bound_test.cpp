// Physical lower bounds of a workload's collectives (runtime/group_bound.hpp), against closed forms worked out by
// hand: a group behind one switch is bounded by that switch's star, a group spanning a FullyConnected dimension by
// its full mesh; and the runtime reports those bounds and flags collectives faster than them.
#include <gtest/gtest.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/runtime/group_bound.hpp"
#include "chorus/runtime/reports.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "workload_builder.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

constexpr int64_t kBytes = 8'000'000;

// Bounds are rounded down to whole picoseconds from a floating-point value: allow 2 ps.
void expect_ps(Time actual, double expected_ps) {
  EXPECT_NEAR(static_cast<double>(actual.picoseconds()), expected_ps, 2.0);
}

std::vector<uint32_t> range(uint32_t from, uint32_t to) {
  std::vector<uint32_t> v;
  for (uint32_t i = from; i < to; ++i)
    v.push_back(i);
  return v;
}

// 16 NPUs: 8 behind a switch per node (1 GB/s, 1 us per link), NPU i and i + 8 joined by a second switch.
Topology two_nodes_of_eight() {
  return compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(1), Time::us(1)},
                  Dimension{BlockKind::Switch, 2, Bandwidth::gb_per_s(1), Time::us(1)}});
}

TEST(GroupBounds, GroupBehindOneSwitchIsBoundOnThatSwitchsStar) {
  // A star of N = 8 NPUs with B = 1 GB/s per direction: the worst All-Gather cut is the switch with 7 NPUs, which
  // must send the missing NPU its 7 shares of M/8 through one link: 7/8 * M / B = 7 ms for M = 8 MB; Reduce-Scatter
  // the same (transposed); All-Reduce 2 x 7 = 14 ms (the 2 us latency diameter is far below).
  const Topology t = two_nodes_of_eight();
  GroupBounds bounds(t);
  const Topology& star = bounds.network_of(range(0, 8));
  EXPECT_EQ(star.npu_count(), 8u);
  EXPECT_EQ(star.node_count(), 9u);   // the members and their switch: the other node's NPUs are not on any route
  EXPECT_EQ(star.link_count(), 16u);  // one up and one down link per member
  expect_ps(bounds.bound(CommType::AllReduce, Bytes(kBytes), range(0, 8)), 14e9);
  expect_ps(bounds.bound(CommType::ReduceScatter, Bytes(kBytes), range(0, 8)), 7e9);
  expect_ps(bounds.bound(CommType::AllGather, Bytes(kBytes / 8), range(0, 8)), 7e9);  // comm_size: each member's share
  expect_ps(bounds.bound(CommType::AllReduce, Bytes(kBytes), range(8, 16)), 14e9);    // the other node: the same
}

TEST(GroupBounds, GroupSpanningAFullyConnectedDimensionGetsItsFullMesh) {
  // FullyConnected 4 x Switch 2; group {0..3} on the full mesh (B = 1 GB/s per direction per pair). All-Gather cut
  // S of k NPUs sends k(4 - k) links' worth: (M/4) k / (k (4 - k) B), largest at k = 3: M / (4B) = 2 ms.
  // All-Reduce: 2 x 2 = 4 ms. A logical ring over the group would only use 4 of the 12 links.
  const Topology t = compose({Dimension{BlockKind::FullyConnected, 4, Bandwidth::gb_per_s(1), Time::us(1)},
                              Dimension{BlockKind::Switch, 2, Bandwidth::gb_per_s(1), Time::us(1)}});
  GroupBounds bounds(t);
  const Topology& mesh = bounds.network_of(range(0, 4));
  EXPECT_EQ(mesh.node_count(), 4u);
  EXPECT_EQ(mesh.link_count(), 12u);
  expect_ps(bounds.bound(CommType::AllReduce, Bytes(kBytes), range(0, 4)), 4e9);
}

TEST(GroupBounds, GroupAcrossTheSecondDimensionUsesItsSwitch) {
  // Group {3, 11}: the route between them goes up and down the dimension-1 switch of position 3. Two NPUs at
  // 0.5 GB/s: All-Reduce = 2 x (1/2) M / B = M / B = 16 ms.
  const Topology t = compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(1), Time::us(1)},
                              Dimension{BlockKind::Switch, 2, Bandwidth::gb_per_s(0.5), Time::us(1)}});
  GroupBounds bounds(t);
  EXPECT_EQ(bounds.network_of({3, 11}).link_count(), 4u);
  expect_ps(bounds.bound(CommType::AllReduce, Bytes(kBytes), {3, 11}), 16e9);
}

TEST(RuntimeBounds, ReportsTheBoundOfThePhysicalLinksAndItsFeasibility) {
  // Both nodes All-Reduce 8 MB in their own group: each bound is the star's 14 ms (above). The logical ring run
  // through the switch takes at least as long, so both are feasible.
  WorkloadBuilder b("bounds_tp", 16);
  for (uint32_t npu = 0; npu < 16; ++npu)
    b.coll(npu, 1, CommType::AllReduce, kBytes, {}, npu < 8 ? "a" : "b");
  const std::string groups = b.file("groups.json", R"({"a": [0, 1, 2, 3, 4, 5, 6, 7],
                                                       "b": [8, 9, 10, 11, 12, 13, 14, 15]})");
  const Workload w = load_workload(b.write(), groups);
  const Topology t = two_nodes_of_eight();
  const RunReport r = run_workload(w, t, RuntimeOptions{});
  ASSERT_EQ(r.collectives.size(), 2u);
  for (const CollectiveReport& c : r.collectives) {
    expect_ps(c.lower_bound, 14e9);
    EXPECT_GE(c.end - c.start, c.lower_bound);
    EXPECT_FALSE(below_bound(c));
  }
  EXPECT_EQ(count_below_bound(r), 0u);
}

TEST(RuntimeBounds, DirectAllReduceUnderTheUnawareModelIsBelowItsBound) {
  // switch:4 at 1 GB/s, the whole network, ASTRA-sim's direct All-Reduce of M = 8 MB: each NPU sends its 3 shares
  // of M/4 at once, and the unaware model gives each the full link: about 2 x M / (4 B) = 4 ms. The star's bound
  // is 2 x 3/4 x M / B = 12 ms, so the unaware time is flagged; the flow model shares the up-link and is not.
  WorkloadBuilder b("bounds_direct", 4);
  for (uint32_t npu = 0; npu < 4; ++npu)
    b.coll(npu, 1, CommType::AllReduce, kBytes);
  const std::string sys_path =
      b.file("sys.json", R"({"scheduling-policy": "LIFO", "collective-optimization": "baseline", "endpoint-delay": 0,
      "preferred-dataset-splits": 1, "active-chunks-per-dimension": 1,
      "all-reduce-implementation": ["direct"], "all-gather-implementation": ["direct"],
      "reduce-scatter-implementation": ["direct"], "all-to-all-implementation": ["direct"]})");
  const AstraSystemConfig sys = load_astra_system(sys_path);
  const Workload w = load_workload(b.write(), "");
  const Topology t = switch_star(4, LinkParams{Bandwidth::gb_per_s(1), Time::us(1)});
  RuntimeOptions options;
  options.system = &sys;
  const RunReport unaware = run_workload(w, t, options);
  ASSERT_EQ(unaware.collectives.size(), 1u);
  expect_ps(unaware.collectives[0].lower_bound, 12e9);
  EXPECT_LT(unaware.collectives[0].end - unaware.collectives[0].start, Time::us(5000));
  EXPECT_TRUE(below_bound(unaware.collectives[0]));
  options.model = NetworkModelKind::Flow;
  const RunReport flow = run_workload(w, t, options);
  EXPECT_FALSE(below_bound(flow.collectives[0]));
}

}  // namespace
}  // namespace chorus
