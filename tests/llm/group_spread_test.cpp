// Where the planner's groups sit (llm/group_spread.hpp): members per node, the two-level cost of a gradient
// collective whose members share nodes, and the share of pipeline sends that leave a node, against hand values on a
// two-tier system: 8-GPU nodes at 300 GB/s, NICs at 25 GB/s, no latency, Calculon's ring factors (All-Reduce
// 2 (n - 1) / n, Reduce-Scatter and All-Gather (n - 1) / n of the buffer).
#include <gtest/gtest.h>

#include "chorus/llm/group_spread.hpp"

namespace chorus::llm {
namespace {

NetworkTier tier(double bytes_per_second, int64_t size) {
  NetworkTier t;
  t.bytes_per_second = bytes_per_second;
  t.size = size;
  t.scale[static_cast<size_t>(Collective::kP2p)] = 1;
  for (const Collective c : {Collective::kReduceScatter, Collective::kAllGather}) {
    t.scale[static_cast<size_t>(c)] = 1;
    t.offset[static_cast<size_t>(c)] = -1;
  }
  t.scale[static_cast<size_t>(Collective::kAllReduce)] = 2;
  t.offset[static_cast<size_t>(Collective::kAllReduce)] = -1;
  return t;
}

System two_tiers() {
  System s;
  s.networks = {tier(300e9, 8), tier(25e9, 1024)};
  return s;
}

Execution execution(int64_t tp, int64_t pp, int64_t dp, int64_t interleaving = 1) {
  Execution e;
  e.tensor_par = tp;
  e.pipeline_par = pp;
  e.data_par = dp;
  e.num_procs = tp * pp * dp;
  e.pipeline_interleaving = interleaving;
  return e;
}

TEST(LlmGroupSpread, MembersPerNodeAreTheNodeOverTp) {
  const System s = two_tiers();
  EXPECT_EQ(gradient_members_per_domain(execution(1, 1, 64), s), 8);
  EXPECT_EQ(gradient_members_per_domain(execution(2, 1, 64), s), 4);
  EXPECT_EQ(gradient_members_per_domain(execution(8, 4, 2), s), 1);
  EXPECT_EQ(gradient_members_per_domain(execution(2, 1, 2), s), 2);  // the group is smaller than a node's share
}

TEST(LlmGroupSpread, GradientCollectivesReduceInsideEachNodeFirst) {
  const System s = two_tiers();
  const double b = 8e9;
  // All-Reduce over 64 members, 8 per node: reduce-scatter in the node 8e9 x 7/8 / 300e9 = 23.33 ms, all-reduce of
  // 1e9 across 8 nodes 2 x 1e9 x 7/8 / 25e9 = 70 ms, all-gather in the node 23.33 ms: 116.67 ms (a flat ring on the
  // NICs: 2 x 8e9 x 63/64 / 25e9 = 630 ms).
  EXPECT_NEAR(spread_op_time(s, 1, Collective::kAllReduce, b, 64, 8), 0.0233333333 * 2 + 0.07, 1e-9);
  EXPECT_NEAR(spread_op_time(s, 1, Collective::kReduceScatter, b, 64, 8), 0.0233333333 + 0.035, 1e-9);
  EXPECT_NEAR(spread_op_time(s, 1, Collective::kAllGather, b, 64, 8), 0.035 + 0.0233333333, 1e-9);
  // One member per node, a group inside one node, or the group on tier 0: the one-tier time.
  EXPECT_NEAR(spread_op_time(s, 1, Collective::kAllReduce, b, 64, 1), 2 * b * 63 / 64 / 25e9, 1e-9);
  EXPECT_NEAR(spread_op_time(s, 1, Collective::kAllReduce, b, 8, 8), 2 * b * 7 / 8 / 25e9, 1e-9);
  EXPECT_NEAR(spread_op_time(s, 0, Collective::kAllReduce, b, 8, 8), 2 * b * 7 / 8 / 300e9, 1e-9);
}

TEST(LlmGroupSpread, PipelineSendsLeaveANodeAtItsEdgesOnly) {
  const System s = two_tiers();
  // Stages of 4 GPUs, two per node: of 3 boundaries of a 4-stage pipeline only the middle one leaves a node; an
  // interleaved pipeline also sends from the last stage back to the first, which leaves one too: 2 of 4.
  EXPECT_DOUBLE_EQ(pipeline_cross_domain_share(execution(1, 4, 4), s), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(pipeline_cross_domain_share(execution(1, 4, 4, 10), s), 0.5);
  EXPECT_DOUBLE_EQ(pipeline_cross_domain_share(execution(8, 4, 2), s), 1.0);  // a stage fills a node
  EXPECT_DOUBLE_EQ(pipeline_cross_domain_share(execution(1, 2, 4), s), 0.0);  // the whole pipeline in one node
}

}  // namespace
}  // namespace chorus::llm
