// The congestion-aware models (store-and-forward "aware", max-min "flow") on collectives: closed forms where
// nothing competes, physical limits where links are shared, and agreement of the symmetric evaluation with
// the full schedule.
#include <gtest/gtest.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/test_topologies.hpp"

namespace chorus {
namespace {

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::us(1)};

CollectiveRunResult run(const Topology& t, CollectiveKind kind, Bytes size, NetworkModelKind model,
                        AlgorithmKind algorithm = AlgorithmKind::Ring, uint32_t splits = 1, uint32_t active = 1,
                        Evaluation evaluation = Evaluation::Auto) {
  CollectiveRunOptions options;
  options.plan.algorithms = {AlgorithmChoice{algorithm, 0}};
  options.plan.splits = splits;
  options.plan.active_chunks = active;
  options.model = model;
  options.evaluation = evaluation;
  return run_collective(t, Collective{kind, size, t.npu_count()}, options);
}

TEST(ContentionModels, RingWithoutContentionMatchesTheUnawareClosedForm) {
  // One message per link at a time: 2(p-1)(alpha + D/(pB)) = 14 x 21 us for both models.
  const Topology t = ring(8, kLink);
  for (NetworkModelKind m : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
    EXPECT_EQ(run(t, CollectiveKind::AllReduce, Bytes(8'000'000), m).time, Time::us(14 * 21));
  }
}

TEST(ContentionModels, StoreAndForwardPaysSerialisationPerHop) {
  // Switch: each message crosses 2 links; aware forwards whole messages: 2 (alpha + D/(pB)) per step,
  // flow pipelines them: 2 alpha + D/(pB) per step.
  const Topology t = switch_star(8, kLink);
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, Bytes(8'000'000), NetworkModelKind::Aware).time, Time::us(14 * 42));
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, Bytes(8'000'000), NetworkModelKind::Flow).time, Time::us(14 * 22));
}

TEST(ContentionModels, ActiveChunksCannotBeatTheLinkBandwidth) {
  // 64-NPU ring, 64 MiB All-Reduce, 4 chunks all active: every chunk's ring runs forward, so each forward link
  // carries 2 (p-1)/p D bytes in total; no schedule can finish before that has crossed one link.
  const Topology t = ring(64, LinkParams{Bandwidth::gib_per_s(50), Time::ns(500)});
  const Bytes d = Bytes::mib(64);
  const Time link_bound = transfer_time(Bytes(d.count() / 64 * 2 * 63), Bandwidth::gib_per_s(50));
  const Time unaware = run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Unaware, AlgorithmKind::Ring, 4, 4).time;
  const Time flow = run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Flow, AlgorithmKind::Ring, 4, 4).time;
  const Time aware = run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Aware, AlgorithmKind::Ring, 4, 4).time;
  EXPECT_LT(unaware, link_bound);  // the unaware model lets four chunks share a link at full speed each
  EXPECT_GE(flow, link_bound);
  EXPECT_GE(aware, link_bound);
  EXPECT_LT(flow.seconds(), link_bound.seconds() * 1.05);
}

TEST(ContentionModels, DirectOnASwitchIsLimitedByEachUplink) {
  // Direct All-Reduce on an 8-NPU switch: each NPU pushes (p-1) D/p through its one uplink in each half.
  const Topology t = switch_star(8, kLink);
  const Bytes d(8'000'000);
  const Time uplink_bound = transfer_time(Bytes(2 * 7 * d.count() / 8), Bandwidth::gb_per_s(50));
  const Time unaware = run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Unaware, AlgorithmKind::Direct).time;
  // Unaware: all 7 messages leave at once at full speed: 2 (2 alpha + D/(pB)) = 2 x 22 us.
  EXPECT_EQ(unaware, Time::us(44));
  // Flow: 7 flows share the uplink (and each downlink receives 7): 2 (2 alpha + 7 D/(pB)) = 2 x 142 us.
  EXPECT_EQ(run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Flow, AlgorithmKind::Direct).time, Time::us(284));
  EXPECT_GE(run(t, CollectiveKind::AllReduce, d, NetworkModelKind::Aware, AlgorithmKind::Direct).time, uplink_bound);
}

TEST(ContentionModels, NeverBelowTheLowerBound) {
  const std::vector<Topology> topologies = [] {
    std::vector<Topology> v;
    v.push_back(ring(16, kLink));
    v.push_back(torus2d(4, 4, kLink, kLink));
    v.push_back(switch_star(8, kLink));
    v.push_back(fully_connected(8, kLink));
    v.push_back(dgx(2, 4, LinkParams{Bandwidth::gb_per_s(300), Time::ns(300)},
                    LinkParams{Bandwidth::gb_per_s(50), Time::us(1)}));
    return v;
  }();
  for (const Topology& t : topologies) {
    for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
      for (AlgorithmKind a : {AlgorithmKind::Ring, AlgorithmKind::Direct}) {
        SCOPED_TRACE(t.name() + " " + to_string(k) + " " + to_string(a));
        const Bytes size(16'000'000);
        const Time bound = lower_bound(t, Collective{k, size, t.npu_count()}).bound;
        for (NetworkModelKind m : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
          EXPECT_GE(run(t, k, size, m, a, 2, 2).time, bound);
        }
      }
    }
  }
}

TEST(ContentionModels, SymmetricEvaluationMatchesTheFullSchedule) {
  const std::vector<Topology> topologies = testing_support::symmetric_test_topologies();
  for (const Topology& t : topologies) {
    for (AlgorithmKind a : {AlgorithmKind::Ring, AlgorithmKind::Direct}) {
      for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::AllToAll}) {
        for (uint32_t active : {1u, 3u}) {
          for (NetworkModelKind m : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
            SCOPED_TRACE(t.name() + " " + to_string(a) + " " + to_string(k) + " active " + std::to_string(active) +
                         (m == NetworkModelKind::Flow ? " flow" : " aware"));
            const Bytes size(3'000'000 + 123);
            const CollectiveRunResult fast = run(t, k, size, m, a, 3, active, Evaluation::Symmetric);
            const CollectiveRunResult full = run(t, k, size, m, a, 3, active, Evaluation::Schedule);
            EXPECT_EQ(fast.evaluation, "symmetric");
            // Both runs add the same rounded durations; floating-point rate updates may differ in the last ps.
            EXPECT_NEAR(static_cast<double>(fast.time.picoseconds()), static_cast<double>(full.time.picoseconds()),
                        8.0);
          }
        }
      }
    }
  }
}

TEST(ContentionModels, SymmetricLinkStatisticsMatchTheFullSchedule) {
  for (const Topology& t : testing_support::symmetric_test_topologies()) {
    for (NetworkModelKind m : {NetworkModelKind::Aware, NetworkModelKind::Flow}) {
      SCOPED_TRACE(t.name() + (m == NetworkModelKind::Flow ? " flow" : " aware"));
      CollectiveRunOptions options;
      options.plan.splits = 2;
      options.plan.active_chunks = 2;
      options.model = m;
      options.collect_link_stats = true;
      const Collective c{CollectiveKind::AllReduce, Bytes(3'000'000), t.npu_count()};
      options.evaluation = Evaluation::Symmetric;
      const CollectiveRunResult fast = run_collective(t, c, options);
      options.evaluation = Evaluation::Schedule;
      const CollectiveRunResult full = run_collective(t, c, options);
      ASSERT_TRUE(fast.links && full.links);
      for (uint32_t l = 0; l < t.link_count(); ++l) {
        EXPECT_DOUBLE_EQ(fast.links->bytes[l], full.links->bytes[l]) << "link " << l;
        EXPECT_NEAR(static_cast<double>(fast.links->busy[l].picoseconds()),
                    static_cast<double>(full.links->busy[l].picoseconds()), 16.0)
            << "link " << l;
        EXPECT_EQ(fast.links->peak_flows[l], full.links->peak_flows[l]) << "link " << l;
      }
    }
  }
}

}  // namespace
}  // namespace chorus
