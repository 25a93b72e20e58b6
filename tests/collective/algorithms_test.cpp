// Built-in algorithms under the congestion-unaware model, checked against their closed forms.
//
// Unless stated, alpha = 1 us per hop, B = 50 GB/s, no endpoint delay and free reductions, so a message of
// m bytes over h hops takes h * alpha + m / B exactly (1 MB = 1e6 B takes 20 us).
#include <gtest/gtest.h>

#include "chorus/collective/hierarchical.hpp"
#include "chorus/core/error.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/test_topologies.hpp"

namespace chorus {
namespace {

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::us(1)};

Time run(const Topology& t, CollectiveKind kind, Bytes size, AlgorithmKind algorithm, uint32_t splits = 1,
         Evaluation evaluation = Evaluation::Auto) {
  CollectiveRunOptions options;
  options.plan.algorithms = {AlgorithmChoice{algorithm, 0}};
  options.plan.splits = splits;
  options.evaluation = evaluation;
  return run_collective(t, Collective{kind, size, t.npu_count()}, options).time;
}

TEST(Algorithms, RingMatchesThakurClosedForms) {
  const Topology t = ring(8, kLink);
  const Bytes d(8'000'000);  // D/p = 1 MB per message
  // All-Reduce 2(p-1)(alpha + D/(pB)) = 14 * 21 us; Reduce-Scatter and All-Gather (p-1)(alpha + D/(pB)).
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, d, AlgorithmKind::Ring), Time::us(14 * 21));
  EXPECT_EQ(run(t, CollectiveKind::ReduceScatter, d, AlgorithmKind::Ring), Time::us(7 * 21));
  EXPECT_EQ(run(t, CollectiveKind::AllGather, d, AlgorithmKind::Ring), Time::us(7 * 21));
  // On a switch every message crosses two links: 2 alpha per step.
  EXPECT_EQ(run(switch_star(8, kLink), CollectiveKind::AllReduce, d, AlgorithmKind::Ring), Time::us(14 * 22));
}

TEST(Algorithms, DirectOnFullMeshIsTwoSteps) {
  const Topology t = fully_connected(8, kLink);
  const Bytes d(8'000'000);
  // Reduce-scatter half alpha + D/(pB), then the gather half: 2 * 21 us.
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, d, AlgorithmKind::Direct), Time::us(42));
  EXPECT_EQ(run(t, CollectiveKind::AllGather, d, AlgorithmKind::Direct), Time::us(21));
  // On a ring the farthest peer is 4 hops away: 2 * (4 alpha + 20 us).
  EXPECT_EQ(run(ring(8, kLink), CollectiveKind::AllReduce, d, AlgorithmKind::Direct), Time::us(48));
}

TEST(Algorithms, HalvingDoublingIsRabenseifner) {
  const Bytes d(8'000'000);  // D/B = 160 us
  // Full mesh: 2 log2(p) alpha + 2 (p-1)/p D/B = 6 + 280 us.
  EXPECT_EQ(run(fully_connected(8, kLink), CollectiveKind::AllReduce, d, AlgorithmKind::HalvingDoubling),
            Time::us(286));
  // Reduce-Scatter alone: log2(p) alpha + (p-1)/p D/B = 3 + 140 us.
  EXPECT_EQ(run(fully_connected(8, kLink), CollectiveKind::ReduceScatter, d, AlgorithmKind::HalvingDoubling),
            Time::us(143));
  // On a ring partners at distance 1, 2, 4 cost 1 + 2 + 4 hops per half: 2 * (7 + 140) us.
  EXPECT_EQ(run(ring(8, kLink), CollectiveKind::AllReduce, d, AlgorithmKind::HalvingDoubling), Time::us(294));
  EXPECT_THROW(run(ring(6, kLink), CollectiveKind::AllReduce, d, AlgorithmKind::HalvingDoubling), Error);
}

TEST(Algorithms, TwoTreeByHand) {
  // fc:4, halves of 4 MB (81 us per hop). Tree A: 0 <- {1, 2}, 1 <- {3}. Up: 3->1 at 81, 1->0 at 162,
  // 2->0 at 81; down: 0->1 and 0->2 at 243, 1->3 at 324. Tree B is its mirror; both run in parallel.
  EXPECT_EQ(run(fully_connected(4, kLink), CollectiveKind::AllReduce, Bytes(8'000'000), AlgorithmKind::TwoTree),
            Time::us(324));
  EXPECT_THROW(run(fully_connected(4, kLink), CollectiveKind::AllGather, Bytes(8'000'000), AlgorithmKind::TwoTree),
               Error);
}

TEST(Algorithms, HierarchicalTorusPipelinesChunks) {
  const Topology t = torus2d(4, 4, kLink, kLink);
  const Bytes d(16'000'000);
  // One chunk: RS on x (3 x (1 + 80) us), AR on y over 4 MB (6 x (1 + 20)), AG on x (3 x (1 + 80)).
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, d, AlgorithmKind::Ring), Time::us(243 + 126 + 243));
  // Four chunks of 4 MB: phases 63, 36, 63 us; sum + 3 x max = 162 + 189.
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, d, AlgorithmKind::Ring, 4), Time::us(351));
}

TEST(Algorithms, EndpointDelayAndReductionAreChargedPerMessage) {
  // Ring Reduce-Scatter on 4 NPUs, 4 MB: 3 messages of 1 MB. Each send waits the endpoint delay (10 ns), each
  // arrival is reduced (3 x 1 MB at 1000 GB/s = 3 us) plus 10 ns, and the phase ends after the last one:
  // 10 ns + 3 x (21 us + 10 ns + 3 us) = 72.04 us.
  CollectiveRunOptions options;
  options.plan.overheads.endpoint_delay = Time::ns(10);
  options.plan.overheads.reduction_bytes_per_s = 1000e9;
  const Topology t = ring(4, kLink);
  const auto r = run_collective(t, Collective{CollectiveKind::ReduceScatter, Bytes(4'000'000), 4}, options);
  EXPECT_EQ(r.time, Time::ns(10 + 3 * (21'000 + 10 + 3'000)));
}

TEST(Algorithms, ScheduleAndSymmetricEvaluationsAgree) {
  const std::vector<Topology> topologies = testing_support::symmetric_test_topologies();
  for (const Topology& t : topologies) {
    for (AlgorithmKind a : {AlgorithmKind::Ring, AlgorithmKind::Direct, AlgorithmKind::HalvingDoubling}) {
      for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                               CollectiveKind::AllToAll}) {
        if (a == AlgorithmKind::HalvingDoubling && k == CollectiveKind::AllToAll)
          continue;
        for (uint32_t splits : {1u, 3u}) {
          SCOPED_TRACE(t.name() + " " + to_string(a) + " " + to_string(k) + " splits " + std::to_string(splits));
          const Bytes size(3'000'000 + 123);
          const Time fast = run(t, k, size, a, splits, Evaluation::Symmetric);
          const Time full = run(t, k, size, a, splits, Evaluation::Schedule);
          EXPECT_EQ(fast, full);
          EXPECT_GT(fast, Time::zero());
        }
      }
    }
  }
}

TEST(Algorithms, ScheduleMovesTheExpectedBytes) {
  // Ring All-Reduce on p NPUs: every NPU sends 2(p-1) messages of D/p, 2(p-1) D in total.
  const Topology t = ring(8, kLink);
  CollectivePlanConfig config;
  const CollectivePlan plan = plan_collective(t, Collective{CollectiveKind::AllReduce, Bytes(8'000'000), 8}, config);
  const Schedule s = build_schedule(plan);
  EXPECT_EQ(s.transfer_count(), 8u * 14u);
  EXPECT_EQ(count_transfers(plan), 8u * 14u);
  EXPECT_EQ(s.total_bytes(), Bytes(14 * 8'000'000));
  for (uint32_t i = 0; i < s.size(); ++i) {
    const OpId op{i};
    if (!s.is_transfer(op))
      continue;
    EXPECT_EQ((s.src(op).value + 1) % 8, s.dst(op).value);  // neighbours only
  }
}

}  // namespace
}  // namespace chorus

namespace chorus {
namespace {

TEST(RootedAlgorithms, ChainBroadcastPipelinesChunks) {
  // Chain 0 -> 1 -> ... -> 7 on ring:8, 8 MB: 7 hops of (1 us + 160 us). With 8 chunks of 1 MB the chain is a
  // pipeline of 7 + 8 - 1 = 14 stages of (1 us + 20 us) (Thakur et al. 2005, pipelined broadcast).
  const Topology t = ring(8, kLink);
  EXPECT_EQ(run(t, CollectiveKind::Broadcast, Bytes(8'000'000), AlgorithmKind::Ring), Time::us(7 * 161));
  EXPECT_EQ(run(t, CollectiveKind::Broadcast, Bytes(8'000'000), AlgorithmKind::Ring, 8), Time::us(14 * 21));
  EXPECT_EQ(run(t, CollectiveKind::Reduce, Bytes(8'000'000), AlgorithmKind::Ring, 8), Time::us(14 * 21));
}

TEST(RootedAlgorithms, StarBroadcastAndReduce) {
  // Full mesh: the root reaches everyone in one hop, all at once: 1 us + 160 us.
  const Topology t = fully_connected(8, kLink);
  EXPECT_EQ(run(t, CollectiveKind::Broadcast, Bytes(8'000'000), AlgorithmKind::Direct), Time::us(161));
  EXPECT_EQ(run(t, CollectiveKind::Reduce, Bytes(8'000'000), AlgorithmKind::Direct), Time::us(161));
  // Under the flow model on a switch the root's one uplink carries all 7 copies: 2 us + 7 x 160 us.
  CollectiveRunOptions options;
  options.plan.algorithms = {AlgorithmChoice{AlgorithmKind::Direct, 0}};
  options.model = NetworkModelKind::Flow;
  const Topology s = switch_star(8, kLink);
  EXPECT_EQ(run_collective(s, Collective{CollectiveKind::Broadcast, Bytes(8'000'000), 8}, options).time,
            Time::us(2 + 7 * 160));
  EXPECT_THROW(run(t, CollectiveKind::Broadcast, Bytes(8'000'000), AlgorithmKind::HalvingDoubling), Error);
}

TEST(RootedAlgorithms, ChainReduceChargesEveryReduction) {
  // Chain 3 -> 2 -> 1 -> 0 on ring:4, 3 MB, endpoint 10 ns, reductions at 1000 GB/s (3 x 3 MB = 9 us each):
  // member 3 sends after 10 ns; members 2 and 1 reduce then forward (10 ns + 9 us); member 0 reduces last.
  CollectiveRunOptions options;
  options.plan.overheads.endpoint_delay = Time::ns(10);
  options.plan.overheads.reduction_bytes_per_s = 1000e9;
  const Topology t = ring(4, kLink);
  const Time hop = Time::us(1) + Time::us(60);  // 1 us + 3 MB / 50 GB/s
  const Time reduce = Time::ns(10) + Time::us(9);
  EXPECT_EQ(run_collective(t, Collective{CollectiveKind::Reduce, Bytes(3'000'000), 4}, options).time,
            Time::ns(10) + hop * 3 + reduce * 3);
}

}  // namespace
}  // namespace chorus
